//! `printf` lowering (OpenCL.std `printf`).
//!
//! Each call site becomes an entry of the program's [`PrintfTable`] (format string and argument
//! descriptors taken from the SPIR-V types; `%s` literals are stored in the table) and, per
//! work-item, a *record* in the print buffer whose address and usable size are the metadata words
//! `+48`/`+52`:
//!
//! 1. `old = amoadd.w(buf, len)` reserves `len` bytes (word 0 of the buffer is the write offset);
//! 2. if `old + len > size` the record does not fit: word 1 (lost records) is incremented, the
//!    call returns -1 (else 0), and the record is written to the scratch area the host allocates
//!    after `size` ([`PRINT_SCRATCH_BYTES`]) — or, when `old < size`, at `old` with a
//!    [`PRINT_SKIP_ID`] header of length `size - old` so the host can step over it;
//! 3. the arguments are stored from `+4`, then the header word (`len << 16 | id`) is written with
//!    an atomic swap (release: the host reads a record only after seeing its header);
//! 4. `CSR_PRINT` is set, which makes the host drain committed records while the kernel runs.
//!
//! The code is branch-free, so it is valid in divergent control flow.

use super::super::ir::*;
use super::super::CompileError;
use super::lower::Lowerer;
use super::types::SType;
use crate::abi::launch::md as meta;
use crate::abi::printf::{record_header, PrintfArg, PrintfSite, PRINT_SCRATCH_BYTES, PRINT_SKIP_ID};

/// One printf operand: SPIR-V id, its type id, and its lowered scalars.
pub(super) struct PrintfOperand {
    pub ty: u32,
    pub vals: Vec<Value>,
}

impl Lowerer<'_> {
    /// Lowers one `printf(fmt, args…)`; returns the call's `int` result.
    pub(super) fn lower_printf(&mut self, b: BlockId, ops: &[PrintfOperand]) -> Result<Value, CompileError> {
        let fmt_ptr = *ops.first().and_then(|o| o.vals.first()).ok_or(self.err("printf without a format"))?;
        let format = self.const_string(fmt_ptr).ok_or(self.err("printf with a format that is not a string literal"))?;
        let convs = conversions(&format);
        let mut site = PrintfSite { format, args: Vec::new() };
        let mut stored: Vec<(Value, u32)> = Vec::new(); // (i32/f32 value, byte offset in the record)
        let mut off = 4u32;
        for (k, o) in ops[1..].iter().enumerate() {
            let conv = convs.get(k).copied().unwrap_or(b'?');
            let (elem, lanes) = match self.m.types.get(o.ty)? {
                SType::Vector { elem, count } => (*elem, *count),
                _ => (o.ty, 1),
            };
            let arg = match self.m.types.get(elem)?.clone() {
                SType::Pointer { .. } if conv == b's' => {
                    PrintfArg::Str(self.const_string(o.vals[0]).unwrap_or_else(|| b"(?)".to_vec()))
                }
                SType::Pointer { .. } => PrintfArg::Ptr,
                SType::Int { width, .. } if width <= 64 => {
                    PrintfArg::Int { bytes: (width / 8).max(1) as u8, lanes: lanes as u8 }
                }
                SType::Float { width: 32 } => PrintfArg::Float { bytes: 4, lanes: lanes as u8 },
                SType::Bool => PrintfArg::Int { bytes: 4, lanes: lanes as u8 },
                other => return Err(self.err(&format!("printf argument of type {other:?}"))),
            };
            if !matches!(arg, PrintfArg::Str(_)) {
                for v in &o.vals {
                    let w = match self.f.ty(*v) {
                        Ty::I32 | Ty::F32 => *v,
                        Ty::Ptr(_) => self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, *v)),
                        Ty::I1 | Ty::I8 | Ty::I16 => self.f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, *v)),
                        Ty::I64 => {
                            // Two words, low first.
                            let lo = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, *v));
                            let k32 = self.const_val(Ty::I64, 32);
                            let h = self.f.push(b, Ty::I64, Op::Bin(BinOp::ShrL, *v, k32));
                            let hi = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, h));
                            stored.push((lo, off));
                            stored.push((hi, off + 4));
                            off += 8;
                            continue;
                        }
                    };
                    stored.push((w, off));
                    off += 4;
                }
            }
            site.args.push(arg);
        }
        let len = site.record_bytes();
        debug_assert_eq!(len, off);
        if len > PRINT_SCRATCH_BYTES {
            return Err(CompileError::Resources(format!(
                "a printf record of {len} bytes (limit {PRINT_SCRATCH_BYTES})"
            )));
        }
        self.printf_sites.push(site);
        let id = self.printf_first_id + self.printf_sites.len() as u32;
        if id >= PRINT_SKIP_ID {
            return Err(CompileError::Resources("more than 65535 printf call sites".into()));
        }

        let gptr = Ty::Ptr(Space::Global);
        let base = self.f.push(b, gptr, Op::MetaWord { offset: meta::PRINT_ADDR });
        let size = self.f.push(b, Ty::I32, Op::MetaWord { offset: meta::PRINT_SIZE });
        let n = self.const_val(Ty::I32, len as u64);
        let old = self.f.push(b, Ty::I32, Op::Atomic { op: AtomicOp::Add, ptr: base, value: n });
        let end = self.f.push(b, Ty::I32, Op::Bin(BinOp::Add, old, n));
        let ok = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LeU, end, size));
        let inside = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LtU, old, size));
        let at = self.f.push(b, Ty::I32, Op::Select(inside, old, size));
        let rec = self.f.push(b, gptr, Op::Bin(BinOp::Add, base, at));
        let (zero, one) = (self.const_val(Ty::I32, 0), self.const_val(Ty::I32, 1));
        let lost = self.f.push(b, Ty::I32, Op::Select(ok, zero, one));
        let lost_ptr = self.offset_ptr(b, base, 4);
        self.f.push(b, Ty::I32, Op::Atomic { op: AtomicOp::Add, ptr: lost_ptr, value: lost });
        for (v, o) in stored {
            let p = self.offset_ptr(b, rec, o);
            self.f.push_void(b, Op::Store { ptr: p, value: v });
        }
        let h = self.const_val(Ty::I32, record_header(len, id) as u64);
        let rest = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, size, old));
        let sixteen = self.const_val(Ty::I32, 16);
        let rest = self.f.push(b, Ty::I32, Op::Bin(BinOp::Shl, rest, sixteen));
        let skip_id = self.const_val(Ty::I32, PRINT_SKIP_ID as u64);
        let skip = self.f.push(b, Ty::I32, Op::Bin(BinOp::Or, rest, skip_id));
        let h = self.f.push(b, Ty::I32, Op::Select(ok, h, skip));
        self.f.push(b, Ty::I32, Op::Atomic { op: AtomicOp::Xchg, ptr: rec, value: h });
        self.f.push_void(b, Op::PrintNotify);
        let minus1 = self.const_val(Ty::I32, u32::MAX as u64);
        Ok(self.f.push(b, Ty::I32, Op::Select(ok, zero, minus1)))
    }

    /// The NUL-terminated constant string `p` points to, when `p` is a constant address.
    fn const_string(&self, p: Value) -> Option<Vec<u8>> {
        let off = self.const_offset(p, 0)? as usize;
        for (_, data, base) in self.all_modules() {
            let base = *base as usize;
            if off >= base && off < base + data.bytes.len() {
                let s = &data.bytes[off - base..];
                let end = s.iter().position(|c| *c == 0).unwrap_or(s.len());
                return Some(s[..end].to_vec());
            }
        }
        None
    }

    /// Byte offset in `.rodata` of a pointer built from `ConstAddr` and constant arithmetic.
    fn const_offset(&self, v: Value, depth: u32) -> Option<u32> {
        if depth > 32 {
            return None;
        }
        let op = &self.f.blocks.iter().flat_map(|b| &b.insts).find(|i| i.result == Some(v))?.op;
        match *op {
            Op::ConstAddr { offset } => Some(offset),
            Op::Const(c) => Some(c as u32),
            Op::Copy(x) | Op::Conv(ConvOp::Bitcast | ConvOp::Trunc | ConvOp::ZExt | ConvOp::SExt, x) => {
                self.const_offset(x, depth + 1)
            }
            Op::Bin(BinOp::Add, a, c) => {
                Some(self.const_offset(a, depth + 1)?.wrapping_add(self.const_offset(c, depth + 1)?))
            }
            Op::Bin(BinOp::Mul, a, c) => {
                Some(self.const_offset(a, depth + 1)?.wrapping_mul(self.const_offset(c, depth + 1)?))
            }
            _ => None,
        }
    }
}

/// The conversion character of each argument-consuming conversion in `fmt`, in order.
fn conversions(fmt: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        while i < fmt.len() && !b"diouxXfFeEgGaAcsp".contains(&fmt[i]) {
            i += 1;
        }
        if i < fmt.len() {
            out.push(fmt[i]);
            i += 1;
        }
    }
    out
}
