//! `printf` lowering (OpenCL.std `printf`).
//!
//! Each call site becomes an entry of the program's [`PrintfTable`](crate::abi::printf::PrintfTable) (format string and argument
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
//!
//! A format or `%s` operand chosen at run time among literals (clang merges
//! `if (c) printf("a %d", x); else printf("b %d", x);` into one call on a `select`/`φ` of the two
//! formats) becomes one table entry per combination of choices (at most [`MAX_VARIANTS`]); the
//! record's call-site id is computed at run time by comparing the pointers with the candidates'
//! addresses. The candidate formats must consume the same arguments. A constant null `%s` prints
//! `(null)`.

use super::super::ir::*;
use super::super::CompileError;
use super::lower::Lowerer;
use super::types::SType;
use crate::abi::launch::md as meta;
use crate::abi::printf::{buffer, record_header, PrintfArg, PrintfSite, PRINT_SCRATCH_BYTES, PRINT_SKIP_ID};

/// One printf operand: its type id, its lowered scalars and, for a pointer chosen at run time
/// among several (`OpSelect`/`OpPhi`, recursively), the lowered candidate pointers.
pub(super) struct PrintfOperand {
    pub ty: u32,
    pub vals: Vec<Value>,
    pub choices: Vec<Value>,
}

/// Most table entries one call site may expand to (combinations of run-time-chosen literals).
pub const MAX_VARIANTS: usize = 256;

/// A string operand: its candidate literals and the run-time index of the one in use.
struct Choice {
    strings: Vec<Vec<u8>>,
    index: Value,
}

impl Lowerer<'_> {
    /// Lowers one `printf(fmt, args…)`; returns the call's `int` result.
    pub(super) fn lower_printf(&mut self, b: BlockId, ops: &[PrintfOperand]) -> Result<Value, CompileError> {
        let fmt_op = ops.first().ok_or(self.err("printf without a format"))?;
        let fmt_choice =
            self.string_choice(b, fmt_op).ok_or(self.err("printf with a format that is not a string literal"))?;
        let convs = conversions(&fmt_choice.strings[0]);
        if fmt_choice.strings.iter().any(|f| conversions(f) != convs) {
            return Err(self.err("printf formats chosen at run time that take different arguments"));
        }
        // Dimension 0 is the format; then one per `%s` argument with several candidates.
        let mut dims = vec![fmt_choice];
        // Per argument: the dimension holding its string (for `%s` literals).
        let mut str_dim: Vec<Option<usize>> = Vec::new();
        let mut args = Vec::new();
        let mut stored: Vec<(Value, u32)> = Vec::new(); // (i32/f32 value, byte offset in the record)
        let mut off = buffer::RECORD_ARGS;
        for (k, o) in ops[1..].iter().enumerate() {
            let conv = convs.get(k).copied().unwrap_or(b'?');
            let (elem, lanes) = match self.m.types.get(o.ty)? {
                SType::Vector { elem, count } => (*elem, *count),
                _ => (o.ty, 1),
            };
            let mut sdim = None;
            let arg = match self.m.types.get(elem)?.clone() {
                SType::Pointer { .. } if conv == b's' && self.is_null_constant(o.vals[0]) => PrintfArg::Ptr,
                SType::Pointer { .. } if conv == b's' => match self.string_choice(b, o) {
                    Some(c) if c.strings.len() == 1 => PrintfArg::Str(c.strings[0].clone()),
                    Some(c) => {
                        sdim = Some(dims.len());
                        dims.push(c);
                        PrintfArg::Str(Vec::new())
                    }
                    None => PrintfArg::Str(b"(?)".to_vec()),
                },
                SType::Pointer { .. } => PrintfArg::Ptr,
                SType::Int { width, .. } if width <= 64 => {
                    PrintfArg::Int { bytes: (width / 8).max(1) as u8, lanes: lanes as u8 }
                }
                SType::Float { width: 32 } => PrintfArg::Float { bytes: 4, lanes: lanes as u8 },
                SType::Float { width: 64 } => PrintfArg::Float { bytes: 8, lanes: lanes as u8 },
                // Half vectors (`%v4hf`; clang promotes a scalar half to double): the formatter
                // widens each half's bits, as it does for `vararg_types`' `h` elements.
                SType::Float { width: 16 } => PrintfArg::Float { bytes: 2, lanes: lanes as u8 },
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
            str_dim.push(sdim);
            args.push(arg);
        }
        // One table entry per combination (dimension 0 varies fastest).
        let variants: usize = dims.iter().map(|d| d.strings.len()).product();
        if variants > MAX_VARIANTS {
            return Err(self.err("printf with too many run-time choices of literal strings"));
        }
        let first_site = self.printf_sites.len();
        for v in 0..variants {
            let pick = |d: usize| {
                let stride: usize = dims[..d].iter().map(|x| x.strings.len()).product();
                (v / stride) % dims[d].strings.len()
            };
            let mut site = PrintfSite { format: dims[0].strings[pick(0)].clone(), args: args.clone() };
            for (a, d) in site.args.iter_mut().zip(&str_dim) {
                if let Some(d) = d {
                    *a = PrintfArg::Str(dims[*d].strings[pick(*d)].clone());
                }
            }
            self.printf_sites.push(site);
        }
        let site = &self.printf_sites[first_site];
        let len = site.record_bytes();
        debug_assert_eq!(len, off);
        if len > PRINT_SCRATCH_BYTES {
            return Err(CompileError::Resources(format!(
                "a printf record of {len} bytes (limit {PRINT_SCRATCH_BYTES})"
            )));
        }
        let id = self.printf_first_id + first_site as u32 + 1;
        if id + variants as u32 > PRINT_SKIP_ID {
            return Err(CompileError::Resources("more than 65535 printf call sites".into()));
        }

        let gptr = Ty::Ptr(Space::Global);
        let base = self.f.push(b, gptr, Op::MetaWord { offset: meta::PRINT_ADDR });
        let size = self.f.push(b, Ty::I32, Op::MetaWord { offset: meta::PRINT_SIZE });
        let n = self.const_val(Ty::I32, len as u64);
        let write_offset = self.offset_ptr(b, base, buffer::WRITE_OFFSET);
        let old = self.f.push(b, Ty::I32, Op::Atomic { op: AtomicOp::Add, ptr: write_offset, value: n });
        let end = self.f.push(b, Ty::I32, Op::Bin(BinOp::Add, old, n));
        let ok = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LeU, end, size));
        let inside = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LtU, old, size));
        let at = self.f.push(b, Ty::I32, Op::Select(inside, old, size));
        let rec = self.f.push(b, gptr, Op::Bin(BinOp::Add, base, at));
        let (zero, one) = (self.const_val(Ty::I32, 0), self.const_val(Ty::I32, 1));
        let lost = self.f.push(b, Ty::I32, Op::Select(ok, zero, one));
        let lost_ptr = self.offset_ptr(b, base, buffer::LOST_RECORDS);
        self.f.push(b, Ty::I32, Op::Atomic { op: AtomicOp::Add, ptr: lost_ptr, value: lost });
        for (v, o) in stored {
            let p = self.offset_ptr(b, rec, o);
            self.f.push_void(b, Op::Store { ptr: p, value: v });
        }
        let mut h = self.const_val(Ty::I32, record_header(len, id) as u64);
        if variants > 1 {
            // id += Σ index(d) · stride(d)
            let mut stride = 1u64;
            for d in &dims {
                if d.strings.len() > 1 {
                    let s = self.const_val(Ty::I32, stride);
                    let part = self.f.push(b, Ty::I32, Op::Bin(BinOp::Mul, d.index, s));
                    h = self.f.push(b, Ty::I32, Op::Bin(BinOp::Add, h, part));
                }
                stride *= d.strings.len() as u64;
            }
        }
        let rest = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, size, old));
        let shift = self.const_val(Ty::I32, buffer::HEADER_LEN_SHIFT as u64);
        let rest = self.f.push(b, Ty::I32, Op::Bin(BinOp::Shl, rest, shift));
        let skip_id = self.const_val(Ty::I32, PRINT_SKIP_ID as u64);
        let skip = self.f.push(b, Ty::I32, Op::Bin(BinOp::Or, rest, skip_id));
        let h = self.f.push(b, Ty::I32, Op::Select(ok, h, skip));
        self.f.push(b, Ty::I32, Op::Atomic { op: AtomicOp::Xchg, ptr: rec, value: h });
        self.f.push_void(b, Op::PrintNotify);
        let minus1 = self.const_val(Ty::I32, u32::MAX as u64);
        Ok(self.f.push(b, Ty::I32, Op::Select(ok, zero, minus1)))
    }

    /// The literal(s) a string operand may point to, with the run-time index of the one in use
    /// (compares the pointer with each candidate's address; computed in block `b`).
    fn string_choice(&mut self, b: BlockId, o: &PrintfOperand) -> Option<Choice> {
        let p = *o.vals.first()?;
        if let Some(s) = self.const_string(p) {
            let index = self.const_val(Ty::I32, 0);
            return Some(Choice { strings: vec![s], index });
        }
        if o.choices.is_empty() {
            return None;
        }
        let strings = o.choices.iter().map(|c| self.const_string(*c)).collect::<Option<Vec<_>>>()?;
        let word = |lw: &mut Self, v: Value| match lw.f.ty(v) {
            Ty::I32 => v,
            _ => lw.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, v)),
        };
        let pw = word(self, p);
        let mut index = self.const_val(Ty::I32, 0);
        for (k, c) in o.choices.iter().enumerate().skip(1) {
            let cw = word(self, *c);
            let eq = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, pw, cw));
            let kv = self.const_val(Ty::I32, k as u64);
            index = self.f.push(b, Ty::I32, Op::Select(eq, kv, index));
        }
        Some(Choice { strings, index })
    }

    /// Whether `p` is a constant null pointer.
    fn is_null_constant(&self, p: Value) -> bool {
        match self.f.def_op(p) {
            Some(Op::Const(0)) => true,
            Some(Op::Copy(x) | Op::Conv(_, x)) => self.is_null_constant(*x),
            _ => false,
        }
    }

    /// The NUL-terminated constant string `p` points to, when `p` is a constant address.
    pub(super) fn const_string(&self, p: Value) -> Option<Vec<u8>> {
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
        match *self.f.def_op(v)? {
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
