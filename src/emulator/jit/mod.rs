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
//!   (≥ 1; with those of the functions it went on into, see below) in the low 32 bits, bit 32
//!   set when the last of them ended the turn (its outcome then is in `out`, the warp's pc is
//!   as the handler left it, and `Warp::stop_pc` is that entry's pc), and
//!   [`TURN_OVER`] when the next entry may not run in this turn (it is shared, or past the
//!   text) so the caller need not look at it. A scalar load or store after the first entry
//!   whose address other warps may see or store to ([`super::turn`]'s `private`) is not run:
//!   the result is the entries before it, with the warp's pc at it, and [`TURN_OVER`].
//! * Entries with a template ([`templates`], listed below) run as host instructions on the
//!   warp's registers in memory (no host register holds an emulated one across entries, so a
//!   later entry's fault sees the registers exactly as the interpreter would leave them); every
//!   other entry calls its AVX2 handler ([`handlers::AVX2`]) with the warp's pc set to the
//!   entry's address first.
//! * A function's last entry may be a private vector branch, `join`, scalar branch or `jal`
//!   ([`terminal`]); after it, or after the last entry of its run, the function goes on
//!   *into the function compiled where the warp goes* ([`link`]: a jump to its body, after
//!   the frame, with rbp counting the entries run so far) when that one may run now — the
//!   turn's budget has room for all its entries too, it reads no counter (they advance when
//!   the call returns), and a function starting with a shared or address-checked entry is
//!   entered only by a lone warp ([`Ctx::lone`], whose instructions are all private) — else
//!   it returns with the warp's pc there. So a lone warp's loop over global accesses, vector
//!   branches and soft-double calls runs inside one call while the budget lasts. A vector
//!   branch that no active lane takes goes on at the next entry, one that all take at its
//!   target; one that splits the lanes or would change the mask returns *before* it, and the
//!   interpreter runs it (a function's first entry runs it through its handler, then
//!   returns) — so the mask never changes inside a call. A `join` goes on unless the SIMT
//!   stack's top is for its pc ([`Warp::join_at`]; then likewise). A `jalr` (crt0's call
//!   of the kernel, every `ret`) runs its handler, then looks its target up at run time in
//!   the translation's table of functions ([`link_indirect`], [`Slot`]) and goes on into the
//!   one there on the same terms — unless the handler resumed a native call's declined lanes
//!   (a mask change): then it returns. So a warp's life from crt0 through the kernel back
//!   to `endprg` is a few functions going on into each other, not a return to the turn loop
//!   and an interpreted `jalr` at each call and return.
//! * Vector templates are used only while the warp's vector state is known to be full: every
//!   lane active and below `vl`, `vtype` legal (checked at entry and again after a `vset*` or
//!   CSR write, which switches to the other copy of the run when it no longer holds), and only
//!   for unmasked (`vm = 1`) operations: then "the active lanes" is all 32 lanes, and a
//!   lane-wise operation on 32 lanes is four 256-bit host operations. A run entered with a
//!   partial mask runs its second copy, where the same templates compute all 32 lanes and
//!   blend the result into the lanes the state selects (`Warp::vmask` and its lane masks,
//!   computed once and kept in host registers until a call or a change of `vl`; an illegal
//!   `vtype` calls the handler, which traps) — narrow work-groups and divergent code no
//!   longer call a handler per vector instruction. There a unit-stride `vlw12.v`/`vsw12.v`
//!   moves the active lanes' words with masked host moves
//!   ([`templates::unit_stride_masked`]). In a program that
//!   never reads the accrued FP flags ([`Program::reads_fflags`]; untraced warps then compute
//!   none, `Warp::fflags_unread`), unmasked `vfadd`/`vfsub`/`vfmul`/`vfmacc`/`vfmadd`/`vfdiv`
//!   `.vv`/`.vf`, `vfrdiv.vf` and `vfsqrt.v` (not `.vf` with x0, which reads as a NaN) have
//!   templates too: host arithmetic (correctly rounded, as IEEE division and square root are) in
//!   round-to-nearest-even, NaN results made canonical — the interpreter's flag-free path;
//!   so do the comparisons `vmfeq`/`vmfne`/`vmflt`/`vmfle` (`.vv`/`.vf`) and `vmfgt`/`vmfge`
//!   (`.vf`) — the host's `vcmpps` with the ordered predicates (`vmfne` unordered), lanes 0/1 —
//!   the sign injections `vfsgnj`/`vfsgnjn`/`vfsgnjx`, bit operations whose NaNs stay as
//!   they are, and `vfmin`/`vfmax` (RISC-V's: the number beside a NaN, −0 below +0).
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
//!   up to [`MAX_CHAINED`] entries instead of a call, a handler and a call per primitive
//!   ([`CHAIN_CALLS`]; the copies of the runs between calls in every function that reaches
//!   them cost code size, but measured faster than going on into the function after each
//!   return). Such a function's entries are no longer consecutive: each carries its pc. In the
//!   copy for a full vector state a varying primitive (`HostCall::F64`) is not even a host
//!   call: a `call` of its compiled form, emitted once per translation ([`fp64::Stubs`]; inline
//!   copies in every function that chains the call measured 1.7× slower on EinsteinToolkit:
//!   code size), then the pc set to `ra`.
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
//! [`Warp::join_at`]: super::warp::Warp::join_at
//! [`Ctx::lone`]: super::exec::Ctx
//! [`MemView::LAYOUT`]: super::memory::MemView::LAYOUT

mod fp64;
mod gather;
mod perf_map;
mod plan;
mod templates;

use super::exec::handlers::{self, Handler};
use super::exec::{Ctx, Flow};
use super::fault::Trap;
use super::program::{paired, selected, straight, Decoded, F64Op, Program, Sharing, MAX_RUN};
use super::warp::Warp;
use crate::isa::{Fmt, Op};
use dynasmrt::x64::Assembler;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, ExecutableBuffer};
use plan::*;
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
    /// By entry index: where an indirect jump may go on ([`link_indirect`]); the code holds
    /// its address (it never moves: a boxed slice, written only before `new` returns).
    #[allow(dead_code)]
    slots: Box<[Slot]>,
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
    /// Translated by its [`plan()`].
    Own,
    /// A `jal ra` to a host call that runs inline ([`inline_call`]): only `ra = pc + 4`.
    Link,
    /// That host call's marker: its handler runs the call and returns to `ra`, never stopping;
    /// a varying soft-double primitive's operation (compiled inline for a full vector state,
    /// [`fp64::Stubs`]).
    Call(Option<F64Op>),
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

/// Whether a function goes on after an inline host call's return with the run there (up to
/// [`MAX_CHAINED`] entries) rather than into the function compiled there ([`link`]).
const CHAIN_CALLS: bool = true;

/// Whether a private `jal` `d` at text index `k` calls a host call that may run inside a
/// compiled function: a soft-double primitive ([`HostCall::F64`](super::hostcall::HostCall::F64) and its uniform form: on the
/// warp's registers only, never declining, never stopping the turn), returning to `ra`, which
/// the `jal` sets. The callee's index then.
fn inline_call(prog: &Program, d: &Decoded, k: usize) -> Option<(usize, Option<F64Op>)> {
    use super::hostcall::HostCall;
    if d.op != Some(Op::Jal) || d.rd != 1 || d.sharing != Sharing::Private {
        return None;
    }
    let t = usize::try_from(k as i64 + i64::from(d.imm >> 2)).ok()?;
    let callee = prog.ops().get(t)?;
    match prog.host_call(callee.host_call)? {
        HostCall::F64(op) => Some((t, Some(op))),
        HostCall::F64Uniform(_) => Some((t, None)),
        _ => None,
    }
}

/// Whether `d` is private and ends a function as its last entry, which then leaves to the
/// function at its target or at the next entry ([`Place`]): a vector branch (when it neither
/// splits the lanes nor changes the mask; else the interpreter runs it), a `join` (when it has
/// nothing to do), a scalar branch or a `jal`.
fn terminal(d: &Decoded) -> bool {
    d.sharing == Sharing::Private
        && d.host_call == 0
        && d.op.is_some_and(|op| {
            is_jump(op)
                || matches!(op, Op::Jalr | Op::Vbeq | Op::Vbne | Op::Vblt | Op::Vbge | Op::Vbltu | Op::Vbgeu | Op::Join)
        })
}

/// Where a warp goes on after a function (or its last entry): the entry at a plain index, or
/// the shared extended variant a prefix at this index selects (the prefix runs first; its
/// function is an extended head, [`Jit::ext_entry`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Place {
    Plain(usize),
    Ext(usize),
}

/// What a function compiled from one entry runs ([`function_entries`]).
struct Spec {
    entries: Vec<Item>,
    /// Where it goes on when its entries end without a [`terminal`] one.
    next: Option<Place>,
    /// It starts with a shared instruction.
    head: bool,
}

/// The entries a function compiled from entry `i` runs, `len` of them from `i` on (fewer when
/// the text ends): after a [`paired`] prefix, its variant; then, when the next entry is a
/// `jal` to a host call that runs inline ([`inline_call`]), that `jal`, the call and the run
/// after its return, and so on (at most [`MAX_CHAINED`] entries, none reading a counter);
/// then, when the next entry is [`terminal`] — or a prefix selecting a private jump — that
/// too. Also where a warp goes on when it has no terminal entry ([`Spec::next`]).
fn function_entries(prog: &Program, i: usize, len: usize) -> (Vec<Item>, Option<Place>) {
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
        // Ends with a paired prefix (a run split at `MAX_RUN`): its handler selects the
        // variant for the turn loop.
        if out.last().is_some_and(|e| paired(&e.d, ext).is_some()) {
            return (out, None);
        }
        let Some((t, op)) = ops.get(k).and_then(|d| inline_call(prog, d, k)) else { break };
        out.push(Item { role: Role::Link, ..at(k) });
        out.push(Item { role: Role::Call(op), ..at(t) });
        if CHAIN_CALLS {
            let after = ops.get(k + 1).map_or(0, |n| usize::from(n.run));
            let reads = ops[(k + 1).min(ops.len())..(k + 1 + after).min(ops.len())].iter().any(reads_counter);
            if out.len() + after <= MAX_CHAINED && !reads {
                (k, len) = (k + 1, after);
                continue;
            }
        }
        // On into the function after the return.
        return (out, Some(Place::Plain(k + 1)));
    }
    let private_jump = |d: &Decoded| d.sharing == Sharing::Private && d.op.is_some_and(is_jump);
    if let Some(t) = ops.get(k) {
        if terminal(t) {
            out.push(at(k));
            return (out, None);
        }
        if selected(t, ext).is_some_and(private_jump) {
            let v = variant(t, k + 1);
            out.push(at(k));
            out.push(v);
            return (out, None);
        }
        if selected(t, ext).is_some_and(|v| v.sharing == Sharing::Shared) {
            return (out, Some(Place::Ext(k)));
        }
    }
    (out, Some(Place::Plain(k)))
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
        let started = std::time::Instant::now();
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
        let flags_unread = !prog.reads_fflags();
        // What each function runs, first: a function may go on into another ([`Target`]).
        let mut plain: Vec<Option<Spec>> = (0..ops.len()).map(|_| None).collect();
        for i in 0..ops.len() {
            let d = &ops[i];
            let after = ops.get(i + 1).map_or(0, |n| usize::from(n.run));
            let (len, head) = if d.run >= 1 && enter[i] {
                (usize::from(d.run), false)
            } else if enter[i] && terminal(d) {
                // Only the terminal entry (a target a function may go on to).
                (0, false)
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
            let (entries, next) = function_entries(prog, i, len);
            if !entries.is_empty() {
                plain[i] = Some(Spec { entries, next, head });
            }
        }
        // A shared variant a prefix selects (a global access behind a `regext`, as compiled
        // code keeps its high registers): a head of its own, entered with the prefix's
        // selection pending (the variant and the run after it).
        let mut ext: Vec<Option<Spec>> = (0..prog.ext().len()).map(|_| None).collect();
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
            let (rest, next) = function_entries(prog, i + 2, after);
            let x = ops[i].next_ext as usize;
            let mut entries = vec![Item { d: *v, src: Src::Ext((x * ENTRY) as i32), at: i + 1, role: Role::Own }];
            entries.extend(rest);
            ext[x] = Some(Spec { entries, next, head: true });
        }
        let target = |f: &Spec, a: &mut Assembler| Target {
            body: a.new_dynamic_label(),
            len: f.entries.len(),
            lone_only: f.entries[0].d.sharing != Sharing::Private,
            never: f.entries.iter().any(|e| reads_counter(&e.d)),
        };
        let targets: Vec<Option<Target>> = plain.iter().map(|f| f.as_ref().map(|f| target(f, &mut a))).collect();
        let ext_targets: Vec<Option<Target>> = ext.iter().map(|f| f.as_ref().map(|f| target(f, &mut a))).collect();
        let f64_stubs = fp64::Stubs::new(&mut a);
        let mut slots = vec![Slot::default(); ops.len()].into_boxed_slice();
        let links = Links {
            plain: &targets,
            ext: &ext_targets,
            ops,
            text_base: prog.text_base(),
            f64_stubs: &f64_stubs,
            slots: slots.as_ptr() as usize,
        };
        let emit = |f: &Spec, t: &Target, a: &mut Assembler| -> Option<Entry> {
            let start = a.offset();
            emit_run(a, f, t.body, &links, flags_unread);
            let off = u32::try_from(start.0).ok()?.checked_add(1)?;
            Some(Entry { off, len: f.entries.len() as u16, head: f.head })
        };
        let mut entries = vec![Entry::default(); ops.len()];
        for (i, f) in plain.iter().enumerate() {
            if let (Some(f), Some(t)) = (f, &targets[i]) {
                entries[i] = emit(f, t, &mut a)?;
            }
        }
        let mut ext_entries = vec![Entry::default(); prog.ext().len()];
        for (x, f) in ext.iter().enumerate() {
            if let (Some(f), Some(t)) = (f, &ext_targets[x]) {
                ext_entries[x] = emit(f, t, &mut a)?;
            }
        }
        f64_stubs.emit(&mut a);
        let bodies: Vec<Option<(usize, Target)>> = targets
            .iter()
            .map(|t| t.filter(|t| !t.never).and_then(|t| Some((a.labels().resolve_dynamic(t.body).ok()?.0, t))))
            .collect();
        let buf = a.finalize().ok()?;
        let base = buf.as_ptr() as usize;
        for (slot, (off, t)) in slots.iter_mut().zip(&bodies).filter_map(|(s, b)| Some((s, b.as_ref()?))) {
            *slot = Slot { body: (base + off) as u64, len: t.len as u32, lone_only: u32::from(t.lone_only) };
        }
        let jit = Jit { buf, base, entries, ext_entries, slots };
        if crate::emulator::config::Config::get().perf_map {
            jit.name_for_perf(prog);
        }
        log::debug!("translated {} entries: {jit:?} in {:.1?}", ops.len(), started.elapsed());
        Some(jit)
    }

    /// Appends this translation's functions to the process's perf map ([`perf_map`]): each
    /// named by the text address of the entry it was compiled from.
    fn name_for_perf(&self, prog: &Program) {
        let pc = |i: usize| prog.text_base().wrapping_add(4 * i as u32);
        let at = |e: &Entry| (e.off != 0).then(|| e.off as usize - 1);
        let mut functions: Vec<(usize, String)> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((at(e)?, format!("ventus {:#010x}", pc(i)))))
            .collect();
        for (k, x) in super::program::prefixed_variants(prog.ops(), prog.ext()) {
            if let Some(start) = self.ext_entries.get(x).and_then(at) {
                functions.push((start, format!("ventus {:#010x} prefixed", pc(k))));
            }
        }
        perf_map::append(&perf_map::lines(self.base, self.buf.len(), functions));
        perf_map::dump(self.base, &self.buf);
    }

    /// The head compiled from extended variant `x` (a shared global access a prefix selected;
    /// the warp's pc is the variant's): as [`Jit::entry`], always a head. The caller clears
    /// the warp's pending selection first, as the interpreter does before running the variant.
    #[inline(always)]
    pub fn ext_entry(&self, x: usize) -> Option<(RunFn, u64, bool)> {
        self.function(*self.ext_entries.get(x)?)
    }

    /// The function compiled from entry `idx`, if any: the function, how many entries it runs
    /// itself (those of the functions it goes on into are within the budget it is given, see
    /// [`RunFn`]), and whether it starts with a shared instruction (then it may only be
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

/// Emits the function `f` (its body at label `body`, which other functions jump to, see
/// [`link`]).
///
/// Two copies of the run: one for a full vector state (vector templates on all 32 lanes), one
/// for any other (the same templates blending into the active lanes below `vl`,
/// [`Plan::Masked`]; other vector entries call their handlers). The function enters the copy the
/// state at entry
/// asks for; after an entry that may change the state (`vset*`, a CSR write) it checks again
/// and goes on in the copy that fits, at the next entry (both copies leave the warp the same
/// at every entry boundary after a call: registers in memory, pc current).
fn emit_run(a: &mut Assembler, f: &Spec, body: DynamicLabel, links: &Links, flags_unread: bool) {
    let (entries, text_base) = (&f.entries[..], links.text_base);
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
                (Role::Call(Some(op)), _) if full => Plan::F64(op),
                (Role::Call(_), _) => Plan::HostCall,
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
    // run by the functions this call ran before (see `link`), [rsp] = the budget (entries the
    // turn allows), [rsp + 8] = the extended variants. Six pushes and three slots after the
    // return address: rsp is 16-byte aligned at every call. Another function goes on into
    // this one at `body`, with the same frame.
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
        ; =>body
    );
    let mut stops = Vec::new();
    let copies = Copies { at_full: &at_full, at_partial: &at_partial, full: &full, partial: &partial };
    if full != partial {
        check_state(a, at_full[0], at_partial[0]);
        emit_body(a, run, true, &copies, &srcs, &pcs, (exit, links, f.next), &mut stops);
    }
    dynasm!(a ; .arch x64 ; =>at_partial[0]);
    emit_body(a, run, false, &copies, &srcs, &pcs, (exit, links, f.next), &mut stops);
    // Out of line: the ends before a scalar load that may not run (`n`; the prefix before an
    // extended one selects it for the turn loop) and after an entry that ended the turn
    // (`n | 1 << 32`).
    for Stop { label, value, selects, pc, stopped_at } in stops {
        dynasm!(a ; .arch x64 ; =>label);
        if let Some(Src::Ext(off)) = selects {
            dynasm!(a ; .arch x64 ; mov DWORD [rbx + EXT], off / ENTRY as i32);
        }
        if let Some(pc) = pc {
            dynasm!(a ; .arch x64 ; mov DWORD [rbx + PC], pc as i32);
        }
        if let Some(at) = stopped_at {
            dynasm!(a ; .arch x64 ; mov DWORD [rbx + STOP_PC], at as i32);
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

/// An out-of-line end of a function ([`emit_run`]): at `label`, the result `value`; with the
/// prefix of `selects` selected (a scalar load behind it may not run yet), the warp's pc set
/// to `pc` (an entry left to the interpreter), and `Warp::stop_pc` to `stopped_at` (the pc of
/// an entry that ended the turn).
struct Stop {
    label: DynamicLabel,
    value: u64,
    selects: Option<Src>,
    pc: Option<u32>,
    stopped_at: Option<u32>,
}

/// A label to jump to when the handler of entry `k` (at `pc`) stopped the warp: the function
/// returns [`STOPPED`] with the entries run (`k + 1`), the warp's pc already set.
fn stopped_after(a: &mut Assembler, stops: &mut Vec<Stop>, k: usize, pc: u32) -> DynamicLabel {
    let label = a.new_dynamic_label();
    stops.push(Stop { label, value: STOPPED | (k as u64 + 1), selects: None, pc: None, stopped_at: Some(pc) });
    label
}

/// A function another may go on into ([`link`]): the label of its body (after the frame is
/// set up), its entries, whether only a lone warp may enter it mid-turn (its first entry is
/// not private: a head, or a scalar access that must pass the sharing check), and whether
/// none may (it reads a counter, which advances only when the call returns).
#[derive(Clone, Copy)]
struct Target {
    body: DynamicLabel,
    len: usize,
    lone_only: bool,
    never: bool,
}

/// The functions of a program by entry index and by extended variant ([`Jit::new`]), for
/// [`link`].
struct Links<'l> {
    plain: &'l [Option<Target>],
    ext: &'l [Option<Target>],
    ops: &'l [Decoded],
    text_base: u32,
    /// The soft-double primitives' inline forms, shared by every function ([`fp64::Stubs`]).
    f64_stubs: &'l fp64::Stubs,
    /// The address of the translation's [`Slot`] table (one per plain entry; filled in once
    /// the code is placed, before it ever runs).
    slots: usize,
}

/// Leaves for `place` after `done` entries of this function: into the function compiled
/// there when it may run now — the turn's budget has room for all of its entries too, a lone
/// warp for a shared first entry ([`Target`]) — with rbp counting the entries so far (for an
/// extended head, the prefix before it as well); else back to the turn loop with the warp's pc
/// at `place` (before the prefix) and [`TURN_OVER`] when that entry is shared or past the text.
fn link(a: &mut Assembler, links: &Links, place: Place, done: usize, exit: DynamicLabel) {
    let pc = |i: usize| links.text_base.wrapping_add(4 * i as u32);
    let (target, extra, into, back, over) = match place {
        Place::Plain(i) => {
            let shared = links.ops.get(i).is_none_or(|d| d.sharing == Sharing::Shared);
            (links.plain.get(i).copied().flatten(), 0, pc(i), pc(i), if shared { TURN_OVER } else { 0 })
        }
        Place::Ext(i) => {
            let t = links.ext.get(links.ops[i].next_ext as usize).copied().flatten();
            (t, 1, pc(i + 1), pc(i), 0)
        }
    };
    if let Some(t) = target.filter(|t| !t.never) {
        let no = a.new_dynamic_label();
        dynasm!(a
            ; .arch x64
            ; lea rax, [rbp + (done + extra + t.len) as i32]
            ; cmp rax, [rsp]
            ; ja =>no
        );
        if t.lone_only {
            dynasm!(a
                ; .arch x64
                ; cmp BYTE [r12 + LONE], 0
                ; je =>no
            );
        }
        dynasm!(a
            ; .arch x64
            ; add rbp, (done + extra) as i32
            ; mov DWORD [rbx + PC], into as i32
            ; jmp =>t.body
            ; =>no
        );
    }
    dynasm!(a
        ; .arch x64
        ; mov DWORD [rbx + PC], back as i32
        ; mov rax, QWORD (done as u64 | over) as i64
        ; jmp =>exit
    );
}

/// A function's row in the table an indirect jump looks its target up in ([`link_indirect`]),
/// by entry index: the absolute address of its body (0: none may be gone on into — none
/// compiled there, or it reads a counter, [`Target::never`]), its entries and whether only a
/// lone warp may enter it mid-turn ([`Target::lone_only`]).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Slot {
    body: u64,
    len: u32,
    lone_only: u32,
}

/// Leaves after `done` entries of this function, the last an indirect jump whose handler set
/// the warp's pc: into the function compiled there ([`Slot`], from the table
/// [`Links::slots`] points to) when it may run now, as [`link`] decides for a known place;
/// else back to the turn loop (which looks at the entry there itself: a pc outside the text
/// faults there).
fn link_indirect(a: &mut Assembler, links: &Links, done: usize, exit: DynamicLabel) {
    const _: () = assert!(size_of::<Slot>() == 16);
    let back = a.new_dynamic_label();
    let go = a.new_dynamic_label();
    dynasm!(a
        ; .arch x64
        ; mov eax, [rbx + PC]
        ; sub eax, links.text_base as i32
        ; test eax, 3
        ; jnz =>back
        ; shr eax, 2
        ; cmp eax, links.ops.len() as i32
        ; jae =>back
        ; shl rax, 4
        ; mov rcx, QWORD links.slots as i64
        ; add rcx, rax
        ; mov rdx, [rcx]
        ; test rdx, rdx
        ; jz =>back
        ; mov eax, [rcx + 8]
        ; lea rax, [rbp + rax + done as i32]
        ; cmp rax, [rsp]
        ; ja =>back
        ; cmp DWORD [rcx + 12], 0
        ; je =>go
        ; cmp BYTE [r12 + LONE], 0
        ; je =>back
        ; =>go
        ; add rbp, done as i32
        ; jmp rdx
        ; =>back
        ; mov eax, done as i32
        ; jmp =>exit
    );
}

/// The entry at `pc` of the text at `text_base` with `n` entries, if any.
fn index_of(pc: u32, text_base: u32, n: usize) -> Option<usize> {
    let off = pc.wrapping_sub(text_base);
    (off & 3 == 0).then_some((off >> 2) as usize).filter(|&i| i < n)
}

/// Leaves for the entry at `pc` after `done` entries ([`link`]); a pc outside the text (or
/// misaligned) goes back to the turn loop, which faults there.
fn link_pc(a: &mut Assembler, links: &Links, pc: u32, done: usize, exit: DynamicLabel) {
    match index_of(pc, links.text_base, links.ops.len()) {
        Some(i) => link(a, links, Place::Plain(i), done, exit),
        None => dynasm!(a
            ; .arch x64
            ; mov DWORD [rbx + PC], pc as i32
            ; mov rax, QWORD (done as u64 | TURN_OVER) as i64
            ; jmp =>exit
        ),
    }
}

/// Where a vector branch or `join` (entry `k` of its function, at `pc`) goes when the
/// interpreter must run it (it splits the lanes or changes the mask): back to the turn loop
/// before it — but a function's first entry must run (a call makes progress): there, when no
/// earlier function of this call ran anything (rbp = 0), its handler runs it and the call
/// returns (the mask may have changed: nothing more may run in it).
fn bail(
    a: &mut Assembler,
    d: &Decoded,
    k: usize,
    src: Src,
    pc: u32,
    exit: DynamicLabel,
    stops: &mut Vec<Stop>,
) -> DynamicLabel {
    let before = a.new_dynamic_label();
    stops.push(Stop { label: before, value: k as u64, selects: None, pc: Some(pc), stopped_at: None });
    if k > 0 {
        return before;
    }
    let (bail, skip, ended) = (a.new_dynamic_label(), a.new_dynamic_label(), a.new_dynamic_label());
    stops.push(Stop { label: ended, value: STOPPED | 1, selects: None, pc: None, stopped_at: Some(pc) });
    dynasm!(a
        ; .arch x64
        ; jmp =>skip
        ; =>bail
        ; test rbp, rbp
        ; jnz =>before
        ; mov DWORD [rbx + PC], pc as i32
    );
    let h: Handler = handlers::handler(&handlers::AVX2, d);
    call(a, h as usize, src, true);
    dynasm!(a
        ; .arch x64
        ; jz =>ended
        ; mov eax, 1
        ; jmp =>exit
        ; =>skip
    );
    bail
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

/// Emits one copy (`full`: the full-state one) of `run` (its entries' pcs `pcs`), ending in
/// its terminal entry or a [`link`] to `next` (or, after a prefix that selected its variant,
/// a return).
#[allow(clippy::too_many_arguments)]
fn emit_body(
    a: &mut Assembler,
    run: &[Decoded],
    full: bool,
    c: &Copies,
    srcs: &[Src],
    pcs: &[u32],
    (exit, links, next): (DynamicLabel, &Links, Option<Place>),
    stops: &mut Vec<Stop>,
) {
    let (labels, plans) = if full { (c.at_full, c.full) } else { (c.at_partial, c.partial) };
    // Whether the warp's pc in memory is behind (templates do not advance it).
    let mut stale = false;
    // Whether r10d and ymm11–ymm14 hold the lanes the masked templates write
    // ([`templates::masked_lanes`]): computed at the first that needs them, kept until a call
    // or a change of `vl` (every jump into the copy lands where they are not yet computed: its
    // first entry, or after such a change).
    let mut masks = false;
    for (k, (d, p)) in run.iter().zip(plans).enumerate() {
        if k > 0 || full {
            dynasm!(a ; .arch x64 ; =>labels[k]);
        }
        let pc = pcs[k];
        match *p {
            Plan::Link => dynasm!(a ; .arch x64 ; mov DWORD [rbx + x(1)], pc.wrapping_add(4) as i32),
            Plan::F64(op) => {
                // The primitive on all 32 lanes, as its handler computes it; then to `ra`.
                let stub = links.f64_stubs.of(op);
                dynasm!(a ; .arch x64 ; call =>stub);
                dynasm!(a
                    ; .arch x64
                    ; mov eax, [rbx + x(1)]
                    ; mov [rbx + PC], eax
                );
                stale = false;
                continue;
            }
            Plan::HostCall => {
                // The call's handler runs it on the warp's registers and sets the pc to `ra`
                // (it never declines: no result to test).
                dynasm!(a ; .arch x64 ; mov DWORD [rbx + PC], pc as i32);
                let h: Handler = handlers::handler(&handlers::AVX2, d);
                call(a, h as usize, srcs[k], true);
                (stale, masks) = (false, false);
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
            // The last entry: on to its target or the next entry (`link`).
            Plan::Jump(op) => {
                let target = pc.wrapping_add(d.imm as u32);
                if op == Op::Jal {
                    if d.rd != 0 {
                        dynasm!(a ; .arch x64 ; mov DWORD [rbx + x(d.rd)], pc.wrapping_add(4) as i32);
                    }
                } else {
                    let not = a.new_dynamic_label();
                    templates::branch_not_taken(a, d, op, not);
                    link_pc(a, links, target, k + 1, exit);
                    dynasm!(a ; .arch x64 ; =>not);
                    link_pc(a, links, pc.wrapping_add(4), k + 1, exit);
                    return;
                }
                link_pc(a, links, target, k + 1, exit);
                return;
            }
            Plan::VBranch(op) => {
                let (bail, taken) = (bail(a, d, k, srcs[k], pc, exit, stops), a.new_dynamic_label());
                if !full && !masks {
                    // An illegal `vtype`: the interpreter traps.
                    templates::masked_lanes(a, Some(bail));
                }
                templates::vbranch(a, d, op, !full, bail, taken);
                link_pc(a, links, pc.wrapping_add(4), k + 1, exit);
                dynasm!(a ; .arch x64 ; =>taken);
                link_pc(a, links, pc.wrapping_add(d.imm as u32), k + 1, exit);
                return;
            }
            Plan::Join => {
                let bail = bail(a, d, k, srcs[k], pc, exit, stops);
                templates::join(a, pc, bail);
                link_pc(a, links, pc.wrapping_add(4), k + 1, exit);
                return;
            }
            Plan::JumpReg => {
                // Its handler (the link register, the pc, the resumption of a native call that
                // declined lanes), then on into the function compiled where it went — unless
                // it resumed such a call, which changes the mask (a function keeps its mask).
                let ended = stopped_after(a, stops, k, pc);
                let h: Handler = handlers::handler(&handlers::AVX2, d);
                let resumes = a.new_dynamic_label();
                dynasm!(a
                    ; .arch x64
                    ; mov DWORD [rbx + PC], pc as i32
                    ; cmp DWORD [rbx + RESUME_MASK], 0
                    ; jne =>resumes
                );
                call(a, h as usize, srcs[k], true);
                dynasm!(a ; .arch x64 ; jz =>ended);
                link_indirect(a, links, k + 1, exit);
                dynasm!(a ; .arch x64 ; =>resumes);
                call(a, h as usize, srcs[k], true);
                dynasm!(a
                    ; .arch x64
                    ; jz =>ended
                    ; mov eax, (k + 1) as i32
                    ; jmp =>exit
                );
                return;
            }
            Plan::Setrpc => templates::setrpc(a, d),
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
            | Plan::Narrow(_)
            | Plan::MaskedUnitStride(_)
            | Plan::MaskedNarrow(_)
            | Plan::Private(_)
            | Plan::Masked(_)
            | Plan::Call => {
                let done = a.new_dynamic_label();
                if let Plan::Masked(m) = *p {
                    let slow = a.new_dynamic_label();
                    if !masks {
                        templates::masked_lanes(a, Some(slow));
                    }
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
                        let (other, scattered) = (a.new_dynamic_label(), a.new_dynamic_label());
                        templates::unit_stride(a, d, true, other, done);
                        dynasm!(a ; .arch x64 ; =>other);
                        templates::octet_store(a, d, scattered, done);
                        dynasm!(a ; .arch x64 ; =>scattered);
                        gather::scatter(a, d, Op::Vsw12V, false, slow, done);
                    } else {
                        let other = a.new_dynamic_label();
                        templates::unit_stride(a, d, false, other, done);
                        dynasm!(a ; .arch x64 ; =>other);
                        gather::gather(a, d, slow, done);
                    }
                    dynasm!(a ; .arch x64 ; =>slow);
                }
                if let Plan::Narrow(op) = *p {
                    let slow = a.new_dynamic_label();
                    if matches!(op, Op::Vsb12V | Op::Vsh12V) {
                        let scattered = a.new_dynamic_label();
                        templates::narrow_store(a, d, op, scattered, done);
                        dynasm!(a ; .arch x64 ; =>scattered);
                        gather::scatter(a, d, op, false, slow, done);
                    } else {
                        let scattered = a.new_dynamic_label();
                        templates::narrow_load(a, d, op, scattered, done);
                        dynasm!(a ; .arch x64 ; =>scattered);
                        gather::gather_narrow(a, d, op, false, slow, done);
                    }
                    dynasm!(a ; .arch x64 ; =>slow);
                }
                if let Plan::MaskedNarrow(op) = *p {
                    let slow = a.new_dynamic_label();
                    if !masks {
                        templates::masked_lanes(a, Some(slow));
                    }
                    if matches!(op, Op::Vsb12V | Op::Vsh12V) {
                        gather::scatter(a, d, op, true, slow, done);
                    } else {
                        gather::gather_narrow(a, d, op, true, slow, done);
                    }
                    dynasm!(a ; .arch x64 ; =>slow);
                }
                if let Plan::MaskedUnitStride(store) = *p {
                    let slow = a.new_dynamic_label();
                    if !masks {
                        templates::masked_lanes(a, Some(slow));
                    }
                    if store {
                        let scattered = a.new_dynamic_label();
                        templates::unit_stride_masked(a, d, true, scattered, done);
                        dynasm!(a ; .arch x64 ; =>scattered);
                        gather::scatter(a, d, Op::Vsw12V, true, slow, done);
                    } else {
                        // Not consecutive: a gather of the active lanes, else the handler.
                        let scattered = a.new_dynamic_label();
                        templates::unit_stride_masked(a, d, false, scattered, done);
                        dynasm!(a ; .arch x64 ; =>scattered);
                        gather::gather_masked(a, d, slow, done);
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
                    stops.push(Stop {
                        label: before,
                        value: k as u64 | TURN_OVER,
                        selects: Some(entry),
                        pc: None,
                        stopped_at: None,
                    });
                    let f = scalar_load_private as unsafe extern "sysv64" fn(&Warp, &Decoded, &Ctx) -> bool;
                    call(a, f as usize, entry, false);
                    dynasm!(a ; .arch x64 ; jz =>before);
                }
                let h: Handler = handlers::handler(&handlers::AVX2, d);
                let ended = stopped_after(a, stops, k, pc);
                call(a, h as usize, entry, true);
                dynasm!(a ; .arch x64 ; jz =>ended);
                // The call clobbered the masked templates' lanes: a masked template's fallback
                // (a handler that changes no vector state) computes them again, so that its
                // fast path and it leave them alike; any other leaves them to be computed.
                masks = match *p {
                    Plan::Masked(_) | Plan::MaskedUnitStride(_) | Plan::MaskedNarrow(_) => {
                        templates::masked_lanes(a, None);
                        true
                    }
                    _ => false,
                };
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
        if *p == Plan::Vsetvli {
            masks = false;
            if c.full[k + 1..] != c.partial[k + 1..] {
                check_state(a, c.at_full[k + 1], c.at_partial[k + 1]);
            }
        }
        stale = true;
    }
    if let Some(place) = next {
        return link(a, links, place, run.len(), exit);
    }
    // A prefix whose handler selected its variant for the turn loop.
    if stale {
        dynasm!(a ; .arch x64 ; mov DWORD [rbx + PC], pcs[run.len() - 1].wrapping_add(4) as i32);
    }
    dynasm!(a
        ; .arch x64
        ; mov eax, run.len() as i32
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
