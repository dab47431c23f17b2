//! The translator: each straight-line run of a program ([`Decoded::run`]) compiled once to
//! x86-64 machine code (AVX2), which the untraced AVX2 turn loop ([`super::turn`]) calls instead
//! of dispatching the run's entries one by one.
//!
//! Contract of a compiled run ([`RunFn`]), entered for a warp whose pc is the run's first entry
//! (not an extended variant, `w.ext == NO_EXT`) with at least the run's length left in its turn
//! — and, for a function that starts with a shared instruction (a *head*, [`Jit::entry`]), as
//! the turn's first instruction:
//! * It has exactly the effect of the interpreter's turn loop over the same entries — the same
//!   registers, memory, CSRs, pc and outcome — and returns, packed: the entries executed `n`
//!   (≥ 1) in the low 32 bits, bit 32 set when the last of them ended the turn (its outcome
//!   then is in `out`, and the warp's pc is that entry's, as the handler left it), and
//!   [`TURN_OVER`] when the next entry may not run in this turn (it is shared, or past the
//!   text) so the caller need not look at it. A scalar load or store after the first entry
//!   whose address other warps may see or store to ([`super::turn`]'s `private`) is not run:
//!   the result is the entries before it, with the warp's pc at it, and [`TURN_OVER`].
//! * Entries with a template ([`templates`], listed below) run as host instructions on the
//!   warp's registers in memory (no host register holds an emulated one across entries, so a
//!   later entry's fault sees the registers exactly as the interpreter would leave them); every
//!   other entry calls its AVX2 handler ([`handlers::AVX2`]) with the warp's pc set to the
//!   entry's address first.
//! * Vector templates are used only while the warp's vector state is known to be full: every
//!   lane active and below `vl`, `vtype` legal (checked at entry and again after a `vset*` or
//!   CSR write, which switches to the other copy of the run when it no longer holds), and only
//!   for unmasked (`vm = 1`) operations: then "the active lanes" is all 32 lanes, and a
//!   lane-wise operation on 32 lanes is four 256-bit host operations. A run entered with a
//!   partial mask runs its second copy, where the same templates compute all 32 lanes and
//!   blend the result into the lanes the state selects (`Warp::vmask`, computed at each such
//!   entry; an illegal `vtype` calls the handler, which traps) — narrow work-groups and
//!   divergent code no longer call a handler per vector instruction. In a program that
//!   never reads the accrued FP flags ([`Program::reads_fflags`]; untraced warps then compute
//!   none, `Warp::fflags_unread`), unmasked `vfadd`/`vfsub`/`vfmul`/`vfmacc`/`vfmadd` `.vv`/`.vf` (not
//!   `.vf` with x0, which reads as a NaN) have templates too: host arithmetic in
//!   round-to-nearest-even, NaN results made canonical — the interpreter's flag-free path.
//! * Scalar templates: RV32I register-register and register-immediate arithmetic, `lui`,
//!   `auipc` (the pc is known at translation), `mul`, and reads of the work-group CSRs
//!   (`csrr rd, tid` … `gidz`). A write to `x0` is no operation.
//! * Memory, inline with the handler as the fallback (the same effect and counts either way):
//!   `lw` from one of the two read-only blocks the memory view remembers (a kernel's argument
//!   and metadata loads) or from the warp's own uniform stack (spills); in the full-state copy, a unit-stride `vlw12.v`/`vsw12.v` in the
//!   global buffer the view's latest such access found, any other `vlw12.v` of aligned words
//!   as four host gathers from a buffer of the view's gather table (filed by address), and a
//!   private `vlw.v`/`vsw.v` whose lanes share one address (32 consecutive words of the
//!   private overlay) ([`MemView::LAYOUT`] gives the fields read). A global access as a head
//!   gets a function of its own even with no run after it.
//! * A scalar branch or `jal` right after a run is compiled as the function's last entry
//!   (neither changes the mask). Taken back to the function's first entry — a loop — when
//!   that entry is private, and the turn's budget (the last argument: entries the turn still
//!   allows) has room for another whole iteration, it runs the body again inside the call;
//!   the result then counts every iteration, and a turn-ending entry's position is given
//!   separately ([`STOP_AT_SHIFT`]) since its pc no longer follows from the count.
//!
//! * A `regext`/`regexti` prefix whose extended variant is plain ([`paired`]) and that variant
//!   are two entries of a run: the prefix compiles to nothing (its pc is passed), the variant
//!   with its extended registers (its [`Decoded`] is in the program's extended variants, the
//!   function's last argument). A function that ends on a prefix (a run split at
//!   [`MAX_RUN`]) runs the prefix's handler, which selects the variant for the turn loop; a
//!   variant scalar load that may not run yet leaves the warp with its prefix's selection
//!   (`w.ext`), exactly as the interpreter would. A prefix selecting a private scalar branch
//!   may end a function like the branch itself. A prefix selecting a shared global access
//!   (compiled code keeps its high registers behind prefixes) leaves the variant as the next
//!   turn's first instruction: that variant and the run after it are a head of their own
//!   ([`Jit::ext_entry`]), entered with the selection pending (the turn loop clears it).
//! * Inline host calls: a private `jal ra` to a soft-double primitive running as a host call
//!   ([`hostcall`](super::hostcall)`::HostCall::F64`, on the warp's registers only, never
//!   declining) does not end the function: the `jal` sets `ra`, the call's handler runs it
//!   (and returns the pc to `ra`), and the function goes on with the run after the return —
//!   so double-precision code of a few instructions between calls runs as one function of
//!   up to [`MAX_CHAINED`] entries instead of a call, a handler and a call per primitive.
//!   Such a function's entries are no longer consecutive: each carries its pc, and a
//!   turn-ending entry is reported by its pc's distance from the first ([`STOP_AT_SHIFT`]).
//! * Compiled code clears the upper halves of the vector registers (`vzeroupper`) before every
//!   call and before it returns: what it calls and returns to reaches code compiled without
//!   AVX (the host calls' arithmetic, `hostcall::run_registers_only`), where dirty upper halves
//!   cost every SSE instruction a merge (on the development host: a kernel of native double
//!   calls ran 1.8× slower, the memory-streaming bench 7×).
//!
//! Translation happens once per program ([`Program::jit`]) when a launch first needs it, after
//! any host calls are installed (installing one ends the runs through it, and a program with new
//! host calls starts without a translation). Compiled code refers to the program's entries
//! through the base pointer passed in (`ops`), never by address, so it stays valid for clones.
//! Traced runs never use it: they interpret every instruction (records are per instruction).
//!
//! [`Program::jit`]: super::program::Program::jit
//! [`MemView::LAYOUT`]: super::memory::MemView::LAYOUT

mod templates;

use super::exec::handlers::{self, Handler};
use super::exec::{Ctx, Flow};
use super::fault::Trap;
use super::program::{paired, selected, straight, Decoded, Program, Sharing, MAX_RUN};
use super::warp::Warp;
use crate::isa::regs::csr;
use crate::isa::{Fmt, Op};
use dynasmrt::x64::Assembler;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, ExecutableBuffer};
use templates::*;

/// A compiled run (see the module documentation): `(warp, ctx, out, ops, budget, ext)` →
/// `n | stopped << 32` (0: never returned; every call runs at least its first entry); `ops` and
/// `ext` are the program's plain entries and extended variants ([`Program::ext`]).
pub type RunFn = unsafe extern "sysv64" fn(
    *mut Warp,
    *const Ctx,
    *mut Result<Flow, Trap>,
    *const Decoded,
    u64,
    *const Decoded,
) -> u64;

/// In a compiled function's result: the entries executed (see [`RunFn`]).
pub const EXECUTED: u64 = 0xffff_ffff;
/// In a compiled function's result: the last entry executed ended the turn.
pub const STOPPED: u64 = 1 << 32;
/// In a compiled function's result, when [`STOPPED`]: the position in the function's text of
/// the entry that ended the turn (its pc = the first pc + 4 × this).
pub const STOP_AT_SHIFT: u32 = 40;

/// The compiled runs of one program.
pub struct Jit {
    buf: ExecutableBuffer,
    /// The address of `buf`'s first byte (the buffer never moves: it is only read after
    /// `finalize`), so that a lookup is one add.
    base: usize,
    /// By entry index: what was compiled from there.
    entries: Vec<Entry>,
    /// By extended variant ([`Program::ext`]): the head compiled from a shared variant a
    /// prefix selects ([`Jit::ext_entry`]).
    ext_entries: Vec<Entry>,
}

/// A compiled function ([`Jit::entry`]).
#[derive(Clone, Copy, Default)]
struct Entry {
    /// Its offset in the buffer, plus one (0: none compiled from this entry).
    off: u32,
    /// The entries it runs when none stops it.
    len: u16,
    /// It starts with a shared instruction ([`Jit::entry`]).
    head: bool,
}

/// In a compiled function's result: the entry after the last one run may not run in this
/// turn (it is shared, or the text ends there): the turn is over.
pub const TURN_OVER: u64 = 1 << 33;

impl std::fmt::Debug for Jit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Jit({} bytes, {} functions)", self.buf.len(), self.entries.iter().filter(|e| e.off != 0).count())
    }
}

/// `private` of the turn loop for a compiled run's scalar loads.
unsafe extern "sysv64" fn scalar_load_private(w: &Warp, d: &Decoded, ctx: &Ctx) -> bool {
    super::exec::private(w, d, ctx)
}

/// A vector integer operation with a template, `vd = a ⊕ b` lane by lane (`a` = vs2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum VAlu {
    Add,
    Sub,
    Rsub,
    And,
    Or,
    Xor,
    Mul,
    Sll,
    Srl,
    Sra,
    Min,
    Max,
    Minu,
    Maxu,
    Seq,
    Sne,
    /// Comparisons, lane = 1 when `a ⋚ b` (signed, or unsigned with `u`).
    Slt,
    Sltu,
    Sle,
    Sleu,
    Sgt,
    Sgtu,
    /// `vd = b · vd + a` (`vmadd`), `vd = a − b · vd` (`vnmsub`), `vd = b · a + vd`
    /// (`vmacc`), `vd = vd − b · a` (`vnmsac`).
    Madd,
    Nmsub,
    Macc,
    Nmsac,
}

/// A vector FP operation with a template (round-to-nearest-even, no flags, NaNs canonical).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FAlu {
    Add,
    Sub,
    Mul,
    /// `vd = b · vs2 + vd`, one rounding.
    Macc,
    /// `vd = b · vd + vs2`, one rounding (`vfmadd`).
    Madd,
}

/// A vector template in the copy for a partial vector state ([`Plan::Masked`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Masked {
    Vector(VAlu, B),
    Fp(FAlu, B),
    Vid,
    Vmv(B),
}

/// The second operand of a [`VAlu`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum B {
    V(u8),
    X(u8),
    Imm(u32),
}

/// Where a compiled entry's [`Decoded`] lives: the program's plain text or its extended
/// variants (the entry after a [`paired`] prefix), at this byte offset.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Src {
    Plain(i32),
    Ext(i32),
}

/// What an entry of a compiled function is ([`Item`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// Translated by its [`plan`].
    Own,
    /// A `jal ra` to a host call that runs inline ([`inline_call`]): only `ra = pc + 4`.
    Link,
    /// That host call's marker: its handler runs the call and returns to `ra`, never stopping.
    Call,
}

/// An entry of a compiled function: its [`Decoded`], where that lives, its word's index in
/// the text (its pc = the text's base + 4 × `at`) and its [`Role`].
#[derive(Clone, Copy, Debug)]
struct Item {
    d: Decoded,
    src: Src,
    at: usize,
    role: Role,
}

/// The most entries a function chained through inline host calls ([`function_entries`]) may
/// have: a turn allows [`TURN`](super::workgroup) entries, and a function runs only when the
/// turn has room for all of its.
const MAX_CHAINED: usize = 128;

/// Whether a private `jal` `d` at text index `k` calls a host call that may run inside a
/// compiled function: a soft-double primitive ([`HostCall::F64`](super::hostcall::HostCall::F64) and its uniform form: on the
/// warp's registers only, never declining, never stopping the turn), returning to `ra`, which
/// the `jal` sets. The callee's index then.
fn inline_call(prog: &Program, d: &Decoded, k: usize) -> Option<usize> {
    use super::hostcall::HostCall;
    if d.op != Some(Op::Jal) || d.rd != 1 || d.sharing != Sharing::Private {
        return None;
    }
    let t = usize::try_from(k as i64 + i64::from(d.imm >> 2)).ok()?;
    let callee = prog.ops().get(t)?;
    matches!(prog.host_call(callee.host_call)?, HostCall::F64(_) | HostCall::F64Uniform(_)).then_some(t)
}

/// The entries a function compiled from entry `i` runs, `len` of them from `i` on (fewer when
/// the text ends): after a [`paired`] prefix, its variant; then, when the next entry is a
/// `jal` to a host call that runs inline ([`inline_call`]), that `jal`, the call and the run
/// after its return, and so on (at most [`MAX_CHAINED`] entries, none reading a counter);
/// then, when the next entry is a private scalar branch or `jal` — or a prefix selecting one
/// — that too (see [`emit_run`]). Also whether the turn is over after them ([`TURN_OVER`]:
/// the next entry is shared or past the text).
fn function_entries(prog: &Program, i: usize, len: usize) -> (Vec<Item>, u64) {
    let (ops, ext) = (prog.ops(), prog.ext());
    let at = |k: usize| Item { d: ops[k], src: Src::Plain((k * ENTRY) as i32), at: k, role: Role::Own };
    let variant = |d: &Decoded, k: usize| Item {
        d: ext[d.next_ext as usize],
        src: Src::Ext((d.next_ext as usize * ENTRY) as i32),
        at: k,
        role: Role::Own,
    };
    let mut out: Vec<Item> = Vec::with_capacity(len + 2);
    let (mut k, mut len) = (i, len);
    loop {
        let begin = out.len();
        while out.len() - begin < len && k < ops.len() {
            let after_prefix =
                out[begin..].last().and_then(|e| matches!(e.src, Src::Plain(_)).then(|| paired(&e.d, ext)).flatten());
            out.push(if after_prefix.is_some() { variant(&out.last().unwrap().d, k) } else { at(k) });
            k += 1;
        }
        // Ends with a paired prefix (a run split at `MAX_RUN`): its variant runs next.
        if out.last().is_some_and(|e| paired(&e.d, ext).is_some()) {
            let next = ext[out.last().unwrap().d.next_ext as usize];
            let over = if next.sharing == Sharing::Shared { TURN_OVER } else { 0 };
            return (out, over);
        }
        let Some(t) = ops.get(k).and_then(|d| inline_call(prog, d, k)) else { break };
        let after = ops.get(k + 1).map_or(0, |n| usize::from(n.run));
        let reads = ops[(k + 1).min(ops.len())..(k + 1 + after).min(ops.len())].iter().any(reads_counter);
        if out.len() + 2 + after > MAX_CHAINED || reads {
            break;
        }
        out.push(Item { role: Role::Link, ..at(k) });
        out.push(Item { role: Role::Call, ..at(t) });
        (k, len) = (k + 1, after);
    }
    let private_jump = |d: &Decoded| d.sharing == Sharing::Private && d.op.is_some_and(is_jump);
    if let Some(t) = ops.get(k) {
        if private_jump(t) {
            out.push(at(k));
            return (out, 0);
        }
        if selected(t, ext).is_some_and(private_jump) {
            let v = variant(t, k + 1);
            out.push(at(k));
            out.push(v);
            return (out, 0);
        }
    }
    let over = if ops.get(k).is_none_or(|d| d.sharing == Sharing::Shared) { TURN_OVER } else { 0 };
    (out, over)
}

/// How one entry is translated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Plan {
    /// No effect (an arithmetic write to x0).
    Nothing,
    /// `x[rd] = x[rs1] ⊕ (x[rs2] or imm)`.
    Scalar(Op),
    /// `x[rd] = ` a work-group CSR's field.
    ReadCsr(i32),
    /// `vd = vs2 ⊕ b` on all 32 lanes.
    Vector(VAlu, B),
    /// In the copy for any other vector state: a vector template on the warp's active lanes
    /// below `vl` ([`templates::store_chunk`]), else (an illegal `vtype`) the handler.
    Masked(Masked),
    /// `vd = vs2 ⊕ b` (FP) on all 32 lanes.
    Fp(FAlu, B),
    /// `vd = 0, 1, …, 31`.
    Vid,
    /// `vd = b` on all lanes.
    Vmv(B),
    /// `vsetvli`/`vsetivli` (`vl`, `vtype`, `vill`, `mstatus.VS`, `x[rd]`).
    Vsetvli,
    /// `csrrw rd, mtvec, rs1`.
    WriteMtvec,
    /// `csrr{w,s,c}[i] rd, mstatus, …` (crt0 turns the FP unit on this way).
    Mstatus(Op),
    /// `lw` from a remembered read-only block, else the general path.
    LoadWord,
    /// A full warp's unit-stride `vlw12.v` (false) / `vsw12.v` (true) in the global buffer
    /// the view remembers, a `vlw12.v` also as a gather from a buffer of the view's gather
    /// table, else the handler (only in the copy for a full vector state).
    UnitStride(bool),
    /// A full warp's `vlw.v` (false) / `vsw.v` (true) with one address in every lane: 32
    /// consecutive words of the private overlay, else the handler (only in the copy for a
    /// full vector state).
    Private(bool),
    /// `vdivu.vx`/`vremu.vx` by a power of two (a shift, a mask), else the handler.
    DivPow2(Op),
    /// A scalar branch or `jal` ending the function (see [`emit_run`]).
    Jump(Op),
    /// A `jal ra` to an inline host call ([`Role::Link`]): `ra = pc + 4`.
    Link,
    /// The inline host call ([`Role::Call`]): its handler, which cannot stop the turn.
    HostCall,
    /// The handler.
    Call,
}

/// A shared instruction worth a function of its own (a head with no run after it): one with
/// an inline path, which saves the handler call ([`Plan::UnitStride`]).
fn inline_head(d: &Decoded) -> bool {
    matches!(plan(d, true, false), Plan::UnitStride(_))
}

/// Whether `op` may change what "the vector state is full" means (`vl`, `vtype`), or a CSR.
fn changes_vector_state(d: &Decoded) -> bool {
    match d.op {
        Some(Op::Vsetvli | Op::Vsetivli | Op::Vsetvl) => true,
        Some(Op::Csrrw | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci) => true,
        Some(Op::Csrrs) => d.rs1 != 0,
        _ => false,
    }
}

/// Whether `d` reads `instret` (or `cycle`, `time`: the same counter).
fn reads_counter(d: &Decoded) -> bool {
    let csr_op = matches!(d.op, Some(Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci));
    csr_op
        && matches!(
            d.imm as u16,
            csr::CYCLE | csr::TIME | csr::INSTRET | csr::CYCLEH | csr::INSTRETH | csr::MCYCLE | csr::MINSTRET
        )
}

/// A scalar branch or `jal`: continues at a known pc without changing the mask.
fn is_jump(op: Op) -> bool {
    matches!(op, Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu | Op::Jal)
}

/// How entry `d` is translated, in the copy for a full vector state (`vector_full`) or the
/// other; `flags_unread`: the program never reads the accrued FP flags, so untraced runs
/// compute none ([`Program::reads_fflags`]).
fn plan(d: &Decoded, vector_full: bool, flags_unread: bool) -> Plan {
    let Some(op) = d.op else { return Plan::Call };
    let scalar = matches!(
        op,
        Op::Addi
            | Op::Slti
            | Op::Sltiu
            | Op::Xori
            | Op::Ori
            | Op::Andi
            | Op::Slli
            | Op::Srli
            | Op::Srai
            | Op::Add
            | Op::Sub
            | Op::Sll
            | Op::Slt
            | Op::Sltu
            | Op::Xor
            | Op::Srl
            | Op::Sra
            | Op::Or
            | Op::And
            | Op::Lui
            | Op::Auipc
            | Op::Mul
    );
    if scalar {
        return if d.rd == 0 { Plan::Nothing } else { Plan::Scalar(op) };
    }
    if is_jump(op) {
        return Plan::Jump(op);
    }
    if op == Op::Csrrs && d.rs1 == 0 {
        if let Some(f) = wg_csr(d.imm as u16) {
            return if d.rd == 0 { Plan::Nothing } else { Plan::ReadCsr(f) };
        }
    }
    match op {
        Op::Vsetvli | Op::Vsetivli => return Plan::Vsetvli,
        Op::Csrrw if d.imm as u16 == csr::MTVEC => return Plan::WriteMtvec,
        Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci if d.imm as u16 == csr::MSTATUS => {
            return Plan::Mstatus(op)
        }
        Op::Lw => return Plan::LoadWord,
        _ => {}
    }
    if !d.vm {
        return Plan::Call;
    }
    if !vector_full {
        // The lane-wise templates, writing only the lanes the warp's state selects.
        return match plan(d, true, flags_unread) {
            Plan::Vector(alu, b) => Plan::Masked(Masked::Vector(alu, b)),
            Plan::Fp(f, b) => Plan::Masked(Masked::Fp(f, b)),
            Plan::Vid => Plan::Masked(Masked::Vid),
            Plan::Vmv(b) => Plan::Masked(Masked::Vmv(b)),
            _ => Plan::Call,
        };
    }
    match op {
        Op::Vlw12V => return Plan::UnitStride(false),
        Op::Vsw12V => return Plan::UnitStride(true),
        Op::VlwV => return Plan::Private(false),
        Op::VswV => return Plan::Private(true),
        _ => {}
    }
    let (vv, vx, vi) = (B::V(d.rs1), B::X(d.rs1), B::Imm(d.imm as u32));
    // A copy (`vadd.vx vd, vs2, x0`, the compiler's register moves): the move alone.
    let identity = match op {
        Op::VaddVx | Op::VsubVx | Op::VorVx | Op::VxorVx => d.rs1 == 0,
        Op::VaddVi | Op::VorVi | Op::VxorVi => d.imm == 0,
        _ => false,
    };
    if identity {
        return Plan::Vmv(B::V(d.rs2));
    }
    // A `.vf` scalar comes from the zfinx mirror, where x0 reads as a NaN: those call.
    let vf = (d.rs1 != 0).then_some(vx);
    let fp = match op {
        Op::VfaddVv => Some((FAlu::Add, Some(vv))),
        Op::VfaddVf => Some((FAlu::Add, vf)),
        Op::VfsubVv => Some((FAlu::Sub, Some(vv))),
        Op::VfsubVf => Some((FAlu::Sub, vf)),
        Op::VfmulVv => Some((FAlu::Mul, Some(vv))),
        Op::VfmulVf => Some((FAlu::Mul, vf)),
        Op::VfmaccVv => Some((FAlu::Macc, Some(vv))),
        Op::VfmaccVf => Some((FAlu::Macc, vf)),
        Op::VfmaddVv => Some((FAlu::Madd, Some(vv))),
        Op::VfmaddVf => Some((FAlu::Madd, vf)),
        _ => None,
    };
    if let Some((f, b)) = fp {
        return match b {
            Some(b) if flags_unread => Plan::Fp(f, b),
            _ => Plan::Call,
        };
    }
    let (alu, b) = match op {
        Op::VaddVv => (VAlu::Add, vv),
        Op::VaddVx => (VAlu::Add, vx),
        Op::VaddVi => (VAlu::Add, vi),
        Op::VsubVv => (VAlu::Sub, vv),
        Op::VsubVx => (VAlu::Sub, vx),
        Op::VrsubVx => (VAlu::Rsub, vx),
        Op::VrsubVi => (VAlu::Rsub, vi),
        Op::VandVv => (VAlu::And, vv),
        Op::VandVx => (VAlu::And, vx),
        Op::VandVi => (VAlu::And, vi),
        Op::VorVv => (VAlu::Or, vv),
        Op::VorVx => (VAlu::Or, vx),
        Op::VorVi => (VAlu::Or, vi),
        Op::VxorVv => (VAlu::Xor, vv),
        Op::VxorVx => (VAlu::Xor, vx),
        Op::VxorVi => (VAlu::Xor, vi),
        Op::VmulVv => (VAlu::Mul, vv),
        Op::VmulVx => (VAlu::Mul, vx),
        Op::VsllVv => (VAlu::Sll, vv),
        Op::VsllVx => (VAlu::Sll, vx),
        Op::VsllVi => (VAlu::Sll, vi),
        Op::VsrlVv => (VAlu::Srl, vv),
        Op::VsrlVx => (VAlu::Srl, vx),
        Op::VsrlVi => (VAlu::Srl, vi),
        Op::VsraVv => (VAlu::Sra, vv),
        Op::VsraVx => (VAlu::Sra, vx),
        Op::VsraVi => (VAlu::Sra, vi),
        Op::VminVv => (VAlu::Min, vv),
        Op::VminVx => (VAlu::Min, vx),
        Op::VmaxVv => (VAlu::Max, vv),
        Op::VmaxVx => (VAlu::Max, vx),
        Op::VminuVv => (VAlu::Minu, vv),
        Op::VminuVx => (VAlu::Minu, vx),
        Op::VmaxuVv => (VAlu::Maxu, vv),
        Op::VmaxuVx => (VAlu::Maxu, vx),
        Op::VmseqVv => (VAlu::Seq, vv),
        Op::VmseqVx => (VAlu::Seq, vx),
        Op::VmseqVi => (VAlu::Seq, vi),
        Op::VmsneVv => (VAlu::Sne, vv),
        Op::VmsneVx => (VAlu::Sne, vx),
        Op::VmsneVi => (VAlu::Sne, vi),
        Op::VmsltVv => (VAlu::Slt, vv),
        Op::VmsltVx => (VAlu::Slt, vx),
        Op::VmsltuVv => (VAlu::Sltu, vv),
        Op::VmsltuVx => (VAlu::Sltu, vx),
        Op::VmsleVv => (VAlu::Sle, vv),
        Op::VmsleVx => (VAlu::Sle, vx),
        Op::VmsleVi => (VAlu::Sle, vi),
        Op::VmsleuVv => (VAlu::Sleu, vv),
        Op::VmsleuVx => (VAlu::Sleu, vx),
        Op::VmsleuVi => (VAlu::Sleu, vi),
        Op::VmsgtVx => (VAlu::Sgt, vx),
        Op::VmsgtVi => (VAlu::Sgt, vi),
        Op::VmsgtuVx => (VAlu::Sgtu, vx),
        Op::VmsgtuVi => (VAlu::Sgtu, vi),
        Op::VmaddVv => (VAlu::Madd, vv),
        Op::VmaddVx => (VAlu::Madd, vx),
        Op::VnmsubVv => (VAlu::Nmsub, vv),
        Op::VnmsubVx => (VAlu::Nmsub, vx),
        Op::VmaccVv => (VAlu::Macc, vv),
        Op::VmaccVx => (VAlu::Macc, vx),
        Op::VnmsacVv => (VAlu::Nmsac, vv),
        Op::VnmsacVx => (VAlu::Nmsac, vx),
        Op::VidV => return Plan::Vid,
        Op::VdivuVx | Op::VremuVx => return Plan::DivPow2(op),
        Op::VmvVV => return Plan::Vmv(vv),
        Op::VmvVX | Op::VmvSX => return Plan::Vmv(vx),
        Op::VmvVI => return Plan::Vmv(vi),
        _ => return Plan::Call,
    };
    Plan::Vector(alu, b)
}

impl Jit {
    /// The translation of `prog`, made on the first call and kept with the program
    /// ([`Program::translation`]); `None` as for [`Jit::new`].
    pub fn of(prog: &Program) -> Option<&Jit> {
        prog.translation(Jit::new).and_then(Option::as_ref)
    }

    /// Translates, from every entry where turns enter straight-line code, the run that starts
    /// there: the first entry of each run (after a shared instruction, a jump, a branch), every
    /// target of a branch, vector branch or `jal` inside a run (a loop's head), and every 64
    /// entries of a longer run. Also, from every shared instruction that continues at the next
    /// word without changing the mask (a global access: where the turns of memory-bound code
    /// begin), that instruction and the run after it — called only as a turn's first
    /// instruction. `None` when the host's executable memory cannot be had (the interpreter
    /// then runs everything).
    pub fn new(prog: &Program) -> Option<Jit> {
        let ops = prog.ops();
        let mut enter: Vec<bool> = (0..ops.len()).map(|i| i == 0 || ops[i - 1].run < 2).collect();
        for (i, d) in ops.iter().enumerate() {
            if d.op.is_some_and(|op| matches!(op.desc().fmt, Fmt::B | Fmt::J | Fmt::VBranch)) {
                let target = (i as i64) + i64::from(d.imm >> 2);
                if let Some(e) = usize::try_from(target).ok().and_then(|t| enter.get_mut(t)) {
                    *e = true;
                }
            }
        }
        let mut a = Assembler::new().ok()?;
        let mut entries = vec![Entry::default(); ops.len()];
        let mut ext_entries = vec![Entry::default(); prog.ext().len()];
        let flags_unread = !prog.reads_fflags();
        for i in 0..ops.len() {
            let d = &ops[i];
            let after = ops.get(i + 1).map_or(0, |n| usize::from(n.run));
            let (mut len, head) = if d.run >= 1 && enter[i] {
                (usize::from(d.run), false)
            } else if d.sharing == Sharing::Shared
                && straight(d)
                && (after >= 1 || inline_head(d))
                // The interpreter counts the head before its run starts: a counter read in
                // the run would see one more there.
                && !ops[i + 1..i + 1 + after].iter().any(reads_counter)
            {
                (1 + after, true)
            } else {
                continue;
            };
            // A run longer than `MAX_RUN` goes on where this part of it ends.
            if !head && d.run == MAX_RUN {
                if let Some(e) = enter.get_mut(i + len) {
                    *e = true;
                }
            }
            // A scalar branch or `jal` right after the run ends the function (a loop's body
            // and its branch back: one call per iteration, or per turn, see `emit_run`).
            let (run, over) = function_entries(prog, i, len);
            len = run.len();
            if len < 2 && !(head && inline_head(d)) {
                continue;
            }
            let start = a.offset();
            emit_run(&mut a, &run, over, prog.text_base(), flags_unread);
            let off = u32::try_from(start.0).ok()?.checked_add(1)?;
            entries[i] = Entry { off, len: len as u16, head };
        }
        // A shared variant a prefix selects (a global access behind a `regext`, as compiled
        // code keeps its high registers): a head of its own, entered with the prefix's
        // selection pending (the variant and the run after it).
        for i in 0..ops.len() {
            let Some(v) = selected(&ops[i], prog.ext()) else { continue };
            let after = ops.get(i + 2).map_or(0, |n| usize::from(n.run));
            let worth = after >= 1 || inline_head(v);
            if v.sharing != Sharing::Shared || !straight(v) || !worth {
                continue;
            }
            if ops[(i + 2).min(ops.len())..(i + 2 + after).min(ops.len())].iter().any(reads_counter) {
                continue;
            }
            let (rest, over) = function_entries(prog, i + 2, after);
            let x = ops[i].next_ext as usize;
            let mut run = vec![Item { d: *v, src: Src::Ext((x * ENTRY) as i32), at: i + 1, role: Role::Own }];
            run.extend(rest);
            let start = a.offset();
            emit_run(&mut a, &run, over, prog.text_base(), flags_unread);
            let off = u32::try_from(start.0).ok()?.checked_add(1)?;
            ext_entries[x] = Entry { off, len: run.len() as u16, head: true };
        }
        let buf = a.finalize().ok()?;
        let base = buf.as_ptr() as usize;
        Some(Jit { buf, base, entries, ext_entries })
    }

    /// The head compiled from extended variant `x` (a shared global access a prefix selected;
    /// the warp's pc is the variant's): as [`Jit::entry`], always a head. The caller clears
    /// the warp's pending selection first, as the interpreter does before running the variant.
    #[inline(always)]
    pub fn ext_entry(&self, x: usize) -> Option<(RunFn, u64, bool)> {
        self.function(*self.ext_entries.get(x)?)
    }

    /// The function compiled from entry `idx`, if any: the function, how many entries it runs
    /// when none stops it, and whether it starts with a shared instruction (then it may only be
    /// a turn's first: a shared instruction runs in its round-robin place).
    #[inline(always)]
    pub fn entry(&self, idx: usize) -> Option<(RunFn, u64, bool)> {
        self.function(*self.entries.get(idx)?)
    }

    #[inline(always)]
    fn function(&self, e: Entry) -> Option<(RunFn, u64, bool)> {
        if e.off == 0 {
            return None;
        }
        let p = (self.base + (e.off as usize - 1)) as *const u8;
        // SAFETY: `p` is the start of a function emitted by `emit_run` with the `RunFn`
        // signature, in `self.buf` (at `base`), which lives as long as `self`.
        Some((unsafe { std::mem::transmute::<*const u8, RunFn>(p) }, u64::from(e.len), e.head))
    }
}

/// Emits the function for `entries` ([`function_entries`]) of the text at `text_base`;
/// `over`: the turn is over after them ([`TURN_OVER`] or 0).
///
/// Two copies of the run: one for a full vector state (vector templates on all 32 lanes), one
/// for any other (the same templates blending into the active lanes below `vl`,
/// [`Plan::Masked`]; other vector entries call their handlers). The function enters the copy the
/// state at entry
/// asks for; after an entry that may change the state (`vset*`, a CSR write) it checks again
/// and goes on in the copy that fits, at the next entry (both copies leave the warp the same
/// at every entry boundary after a call: registers in memory, pc current).
fn emit_run(a: &mut Assembler, entries: &[Item], over: u64, text_base: u32, flags_unread: bool) {
    let len = entries.len();
    let run: Vec<Decoded> = entries.iter().map(|e| e.d).collect();
    let srcs: Vec<Src> = entries.iter().map(|e| e.src).collect();
    let pcs: Vec<u32> = entries.iter().map(|e| text_base.wrapping_add(4 * e.at as u32)).collect();
    let run = &run[..];
    // A prefix whose variant follows in the function does nothing more (the variant is
    // compiled with its registers); one that ends the function selects it for the turn loop.
    let planned = |full: bool| -> Vec<Plan> {
        (0..len)
            .map(|k| match (entries[k].role, srcs.get(k + 1)) {
                (Role::Link, _) => Plan::Link,
                (Role::Call, _) => Plan::HostCall,
                (Role::Own, Some(Src::Ext(_))) => Plan::Nothing,
                (Role::Own, _) => plan(&run[k], full, flags_unread),
            })
            .collect()
    };
    let (full, partial) = (planned(true), planned(false));
    let exit = a.new_dynamic_label();
    let at_full: Vec<DynamicLabel> = (0..len).map(|_| a.new_dynamic_label()).collect();
    let at_partial: Vec<DynamicLabel> = (0..len).map(|_| a.new_dynamic_label()).collect();
    // rbx = warp, r12 = ctx, r13 = out, r14 = ops, r15 = vector register file, rbp = entries
    // run by earlier iterations of a loop, [rsp] = the budget (entries the turn allows),
    // [rsp + 8] = the extended variants. Six pushes and three slots after the return address:
    // rsp is 16-byte aligned at every call.
    dynasm!(a
        ; .arch x64
        ; push rbx
        ; push rbp
        ; push r12
        ; push r13
        ; push r14
        ; push r15
        ; sub rsp, 24
        ; mov [rsp], r8
        ; mov [rsp + 8], r9
        ; xor ebp, ebp
        ; mov rbx, rdi
        ; mov r12, rsi
        ; mov r13, rdx
        ; mov r14, rcx
        ; mov r15, [rbx + V]
    );
    let mut stops = Vec::new();
    let copies = Copies { at_full: &at_full, at_partial: &at_partial, full: &full, partial: &partial };
    if full != partial {
        check_state(a, at_full[0], at_partial[0]);
        emit_body(a, run, true, &copies, &srcs, &pcs, (exit, over), &mut stops);
    }
    dynasm!(a ; .arch x64 ; =>at_partial[0]);
    emit_body(a, run, false, &copies, &srcs, &pcs, (exit, over), &mut stops);
    // Out of line: the ends before a scalar load that may not run (`n`; the prefix before an
    // extended one selects it for the turn loop) and after an entry that ended the turn
    // (`n | 1 << 32`).
    for (label, value, selects) in stops {
        dynasm!(a ; .arch x64 ; =>label);
        if let Some(Src::Ext(off)) = selects {
            dynasm!(a ; .arch x64 ; mov DWORD [rbx + EXT], off / ENTRY as i32);
        }
        dynasm!(a
            ; .arch x64
            ; mov rax, QWORD value as i64
            ; jmp =>exit
        );
    }
    // Every result counts the entries of earlier iterations too.
    dynasm!(a
        ; .arch x64
        ; =>exit
        ; add rax, rbp
        ; add rsp, 24
        ; pop r15
        ; pop r14
        ; pop r13
        ; pop r12
        ; pop rbp
        ; pop rbx
        ; vzeroupper
        ; ret
    );
}

/// The two copies of a run: per entry, its label and its plan in each.
struct Copies<'c> {
    at_full: &'c [DynamicLabel],
    at_partial: &'c [DynamicLabel],
    full: &'c [Plan],
    partial: &'c [Plan],
}

/// Jumps to `full` when every lane is active and below `vl` and `vtype` is legal, else to
/// `partial`.
fn check_state(a: &mut Assembler, full: DynamicLabel, partial: DynamicLabel) {
    dynasm!(a
        ; .arch x64
        ; cmp DWORD [rbx + MASK], -1
        ; jne =>partial
        ; cmp DWORD [rbx + VL], 32
        ; jb =>partial
        ; cmp BYTE [rbx + VILL], 0
        ; jne =>partial
        ; jmp =>full
    );
}

/// Emits one copy (`full`: the full-state one) of `run` (its entries' pcs `pcs`); ends with
/// the run's length (and `over`, [`TURN_OVER`] or 0) in rax and a jump to `exit`. A turn
/// ended at entry `k` is reported at its pc's position from the first ([`STOP_AT_SHIFT`]):
/// only an inline host call, which never ends one, lies elsewhere.
#[allow(clippy::too_many_arguments)]
fn emit_body(
    a: &mut Assembler,
    run: &[Decoded],
    full: bool,
    c: &Copies,
    srcs: &[Src],
    pcs: &[u32],
    (exit, over): (DynamicLabel, u64),
    stops: &mut Vec<(DynamicLabel, u64, Option<Src>)>,
) {
    let (labels, plans) = if full { (c.at_full, c.full) } else { (c.at_partial, c.partial) };
    let pc0 = pcs[0];
    // Whether the warp's pc in memory is behind (templates do not advance it).
    let mut stale = false;
    for (k, (d, p)) in run.iter().zip(plans).enumerate() {
        if k > 0 || full {
            dynasm!(a ; .arch x64 ; =>labels[k]);
        }
        let pc = pcs[k];
        let pos = u64::from(pc.wrapping_sub(pc0) >> 2);
        match *p {
            Plan::Link => dynasm!(a ; .arch x64 ; mov DWORD [rbx + x(1)], pc.wrapping_add(4) as i32),
            Plan::HostCall => {
                // The call's handler runs it on the warp's registers and sets the pc to `ra`
                // (it never declines: no result to test).
                dynasm!(a ; .arch x64 ; mov DWORD [rbx + PC], pc as i32);
                let h: Handler = handlers::handler(&handlers::AVX2, d);
                call(a, h as usize, srcs[k], true);
                stale = false;
                continue;
            }
            Plan::Nothing => {}
            Plan::Scalar(op) => scalar(a, d, op, pc),
            Plan::ReadCsr(f) => dynasm!(a
                ; .arch x64
                ; mov eax, [rbx + f]
                ; mov [rbx + x(d.rd)], eax
            ),
            Plan::Vector(alu, b) => vector(a, d, alu, b, false),
            Plan::Fp(f, b) => fp(a, d, f, b, false),
            Plan::Vid => vid(a, d, false),
            Plan::Vmv(b) => vmv(a, d, b, false),
            Plan::Jump(op) => {
                // The function's last entry: sets the pc, returns or loops.
                // Only a private first entry may run again without the turn loop's checks,
                // and only a body that reads no counter: `instret` (and the cycle and time
                // CSRs, which read it) advances when the call returns, as after an
                // interpreted run, so a loop inside one call would read it unchanged.
                let again = run[0].sharing == Sharing::Private && !run.iter().any(reads_counter);
                let head = again.then_some(labels[0]);
                jump(a, d, op, pc, pc0, head, run.len(), exit);
                return;
            }
            Plan::Vsetvli => vsetvli(a, d),
            Plan::Mstatus(op) => mstatus(a, d, op),
            Plan::WriteMtvec => {
                // `csr_op`: old value to rd, the source with its low bits cleared to mtvec.
                dynasm!(a
                    ; .arch x64
                    ; mov eax, [rbx + x(d.rs1)]
                    ; and eax, -4
                    ; mov ecx, [rbx + MTVEC]
                    ; mov [rbx + MTVEC], eax
                );
                if d.rd != 0 {
                    dynasm!(a ; .arch x64 ; mov [rbx + x(d.rd)], ecx);
                }
            }
            Plan::LoadWord
            | Plan::DivPow2(_)
            | Plan::UnitStride(_)
            | Plan::Private(_)
            | Plan::Masked(_)
            | Plan::Call => {
                let done = a.new_dynamic_label();
                if let Plan::Masked(m) = *p {
                    let slow = a.new_dynamic_label();
                    templates::masked_lanes(a, slow);
                    match m {
                        Masked::Vector(alu, b) => vector(a, d, alu, b, true),
                        Masked::Fp(f, b) => fp(a, d, f, b, true),
                        Masked::Vid => vid(a, d, true),
                        Masked::Vmv(b) => vmv(a, d, b, true),
                    }
                    dynasm!(a ; .arch x64 ; jmp =>done ; =>slow);
                }
                if let Plan::UnitStride(store) = *p {
                    let slow = a.new_dynamic_label();
                    if store {
                        templates::unit_stride(a, d, true, slow, done);
                    } else {
                        let other = a.new_dynamic_label();
                        templates::unit_stride(a, d, false, other, done);
                        dynasm!(a ; .arch x64 ; =>other);
                        templates::gather(a, d, slow, done);
                    }
                    dynasm!(a ; .arch x64 ; =>slow);
                }
                if let Plan::Private(store) = *p {
                    let slow = a.new_dynamic_label();
                    templates::private_words(a, d, store, slow, done);
                    dynasm!(a ; .arch x64 ; =>slow);
                }
                if let Plan::DivPow2(op) = *p {
                    div_pow2(a, d, op, done);
                }
                let entry = srcs[k];
                if *p == Plan::LoadWord {
                    // A word of a remembered read-only block inline; else the general path.
                    let slow = a.new_dynamic_label();
                    templates::read_only_lw(a, d, slow, done);
                    dynasm!(a ; .arch x64 ; =>slow);
                }
                if stale {
                    dynasm!(a ; .arch x64 ; mov DWORD [rbx + PC], pc as i32);
                }
                if k > 0 && d.sharing.by_address() {
                    let before = a.new_dynamic_label();
                    // That load may not run now: the turn is over before it.
                    stops.push((before, k as u64 | TURN_OVER, Some(entry)));
                    let f = scalar_load_private as unsafe extern "sysv64" fn(&Warp, &Decoded, &Ctx) -> bool;
                    call(a, f as usize, entry, false);
                    dynasm!(a ; .arch x64 ; jz =>before);
                }
                let h: Handler = handlers::handler(&handlers::AVX2, d);
                let ended = a.new_dynamic_label();
                stops.push((ended, STOPPED | pos << STOP_AT_SHIFT | (k as u64 + 1), None));
                call(a, h as usize, entry, true);
                dynasm!(a ; .arch x64 ; jz =>ended);
                dynasm!(a ; .arch x64 ; =>done);
                if *p == Plan::Call {
                    stale = false;
                    // The state may have changed: go on in the copy that fits it, when the rest
                    // of the run has a vector template at all.
                    if changes_vector_state(d) && c.full[k + 1..] != c.partial[k + 1..] {
                        check_state(a, c.at_full[k + 1], c.at_partial[k + 1]);
                    }
                    continue;
                }
                // A fast path left the pc behind, the general one did not.
            }
        }
        if *p == Plan::Vsetvli && c.full[k + 1..] != c.partial[k + 1..] {
            check_state(a, c.at_full[k + 1], c.at_partial[k + 1]);
        }
        stale = true;
    }
    let end = pcs[run.len() - 1].wrapping_add(4);
    if stale {
        dynasm!(a ; .arch x64 ; mov DWORD [rbx + PC], end as i32);
    }
    dynasm!(a
        ; .arch x64
        ; mov rax, QWORD (run.len() as u64 | over) as i64
        ; jmp =>exit
    );
}

/// `vid.v`: `vd = 0, 1, …, 31` (`masked`: on the lanes of r10d).
fn vid(a: &mut Assembler, d: &Decoded, masked: bool) {
    // `store_chunk` leaves rax alone.
    dynasm!(a ; .arch x64 ; mov rax, QWORD IOTA.0.as_ptr() as i64);
    for j in 0..4 {
        dynasm!(a ; .arch x64 ; vmovdqu ymm0, [rax + 32 * j]);
        templates::store_chunk(a, d.rd, j, masked);
    }
}

/// `vmv.v.*`: `vd = b` (`masked`: on the lanes of r10d).
fn vmv(a: &mut Assembler, d: &Decoded, b: B, masked: bool) {
    for j in 0..4 {
        match b {
            B::V(r) => dynasm!(a ; .arch x64 ; vmovdqu ymm0, [r15 + templates::v(r, j)]),
            _ => {
                // A broadcast stays in ymm1 for the next chunks (a masked store changes ymm0).
                operand(a, b, j, 1);
                dynasm!(a ; .arch x64 ; vmovdqa ymm0, ymm1);
            }
        }
        templates::store_chunk(a, d.rd, j, masked);
    }
}

/// Calls `f(warp, entry, ctx[, out])` (the entry's [`Decoded`] in the plain text or the
/// extended variants) and tests its `bool` result (the caller jumps on the flags).
fn call(a: &mut Assembler, f: usize, entry: Src, with_out: bool) {
    match entry {
        Src::Plain(off) => dynasm!(a ; .arch x64 ; lea rsi, [r14 + off]),
        Src::Ext(off) => dynasm!(a
            ; .arch x64
            ; mov rsi, [rsp + 8]
            ; add rsi, off
        ),
    }
    dynasm!(a
        ; .arch x64
        ; mov rdi, rbx
        ; mov rdx, r12
    );
    if with_out {
        dynasm!(a ; .arch x64 ; mov rcx, r13);
    }
    dynasm!(a
        ; .arch x64
        ; mov rax, QWORD f as i64
        ; vzeroupper
        ; call rax
        ; test al, al
    );
}
