//! Register and CSR names (ABI names as llvm-objdump prints them) and the Ventus CSR numbers.

/// ABI names of x0..x31.
pub const X_ABI: [&str; 32] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2",
    "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
];

/// ABI names of f0..f31 (accepted by the assembler; the disassembler prints zfinx x names).
pub const F_ABI: [&str; 32] = [
    "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5",
    "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
];

/// Ventus custom CSRs (ventus-isa.md §5.1, driver-abi.md §2.4).
pub mod csr {
    pub const TID: u16 = 0x800;
    pub const NUMW: u16 = 0x801;
    pub const NUMT: u16 = 0x802;
    pub const KNL: u16 = 0x803;
    pub const WGID: u16 = 0x804;
    pub const WID: u16 = 0x805;
    pub const LDS: u16 = 0x806;
    pub const PDS: u16 = 0x807;
    pub const GIDX: u16 = 0x808;
    pub const GIDY: u16 = 0x809;
    pub const GIDZ: u16 = 0x80a;
    pub const PRINT: u16 = 0x80b;
    pub const RPC: u16 = 0x80c;
    /// Per-lane (vector) CSRs of the newest ABI: global id x/y/z, global linear id, local id x/y/z.
    pub const GL_ID_X: u16 = 0x80d;
    pub const GL_ID_Y: u16 = 0x80e;
    pub const GL_ID_Z: u16 = 0x80f;
    pub const GLL_ID: u16 = 0x810;
    pub const LC_ID_X: u16 = 0x811;
    pub const LC_ID_Y: u16 = 0x812;
    pub const LC_ID_Z: u16 = 0x813;
    pub const FFLAGS: u16 = 0x001;
    pub const FRM: u16 = 0x002;
    pub const FCSR: u16 = 0x003;
    pub const VSTART: u16 = 0x008;
    pub const VXSAT: u16 = 0x009;
    pub const VXRM: u16 = 0x00a;
    pub const VCSR: u16 = 0x00f;
    pub const MSTATUS: u16 = 0x300;
    pub const MISA: u16 = 0x301;
    pub const MIE: u16 = 0x304;
    pub const MTVEC: u16 = 0x305;
    pub const MSCRATCH: u16 = 0x340;
    pub const MEPC: u16 = 0x341;
    pub const MCAUSE: u16 = 0x342;
    pub const MTVAL: u16 = 0x343;
    pub const MIP: u16 = 0x344;
    pub const MCYCLE: u16 = 0xb00;
    pub const MINSTRET: u16 = 0xb02;
    pub const CYCLE: u16 = 0xc00;
    pub const TIME: u16 = 0xc01;
    pub const INSTRET: u16 = 0xc02;
    pub const CYCLEH: u16 = 0xc80;
    pub const INSTRETH: u16 = 0xc82;
    pub const VL: u16 = 0xc20;
    pub const VTYPE: u16 = 0xc21;
    pub const VLENB: u16 = 0xc22;
    pub const MVENDORID: u16 = 0xf11;
    pub const MARCHID: u16 = 0xf12;
    pub const MIMPID: u16 = 0xf13;
    pub const MHARTID: u16 = 0xf14;
}

/// Standard CSR names llvm-objdump prints (custom Ventus CSRs print as decimal numbers).
const STANDARD_CSRS: &[(u16, &str)] = &[
    (csr::FFLAGS, "fflags"),
    (csr::FRM, "frm"),
    (csr::FCSR, "fcsr"),
    (csr::VSTART, "vstart"),
    (csr::VXSAT, "vxsat"),
    (csr::VXRM, "vxrm"),
    (csr::VCSR, "vcsr"),
    (csr::MSTATUS, "mstatus"),
    (csr::MISA, "misa"),
    (csr::MIE, "mie"),
    (csr::MTVEC, "mtvec"),
    (csr::MSCRATCH, "mscratch"),
    (csr::MEPC, "mepc"),
    (csr::MCAUSE, "mcause"),
    (csr::MTVAL, "mtval"),
    (csr::MIP, "mip"),
    (csr::MCYCLE, "mcycle"),
    (csr::MINSTRET, "minstret"),
    (csr::CYCLE, "cycle"),
    (csr::TIME, "time"),
    (csr::INSTRET, "instret"),
    (csr::CYCLEH, "cycleh"),
    (csr::INSTRETH, "instreth"),
    (csr::VL, "vl"),
    (csr::VTYPE, "vtype"),
    (csr::VLENB, "vlenb"),
    (csr::MVENDORID, "mvendorid"),
    (csr::MARCHID, "marchid"),
    (csr::MIMPID, "mimpid"),
    (csr::MHARTID, "mhartid"),
];

/// Ventus CSR names accepted by the assembler (ventus-isa.md spelling).
const VENTUS_CSRS: &[(u16, &str)] = &[
    (csr::TID, "tid"),
    (csr::NUMW, "numw"),
    (csr::NUMT, "numt"),
    (csr::KNL, "knl"),
    (csr::WGID, "wgid"),
    (csr::WID, "wid"),
    (csr::LDS, "lds"),
    (csr::PDS, "pds"),
    (csr::GIDX, "gidx"),
    (csr::GIDY, "gidy"),
    (csr::GIDZ, "gidz"),
    (csr::PRINT, "print"),
    (csr::RPC, "rpc"),
    (csr::GL_ID_X, "gl_id_x"),
    (csr::GL_ID_Y, "gl_id_y"),
    (csr::GL_ID_Z, "gl_id_z"),
    (csr::GLL_ID, "gll_id"),
    (csr::LC_ID_X, "lc_id_x"),
    (csr::LC_ID_Y, "lc_id_y"),
    (csr::LC_ID_Z, "lc_id_z"),
];

/// The name llvm-objdump prints for a CSR, if it has one.
pub fn csr_print_name(num: u16) -> Option<&'static str> {
    STANDARD_CSRS.iter().find(|(n, _)| *n == num).map(|(_, s)| *s)
}

/// Any known name of a CSR (standard first, then Ventus), used by traces and the assembler.
pub fn csr_name(num: u16) -> Option<&'static str> {
    csr_print_name(num).or_else(|| VENTUS_CSRS.iter().find(|(n, _)| *n == num).map(|(_, s)| *s))
}

/// Parses a CSR name (standard or Ventus, case-insensitive) or number.
pub fn parse_csr(text: &str) -> Option<u16> {
    let t = text.trim().to_ascii_lowercase();
    if let Some(&(n, _)) = STANDARD_CSRS.iter().chain(VENTUS_CSRS).find(|(_, s)| *s == t) {
        return Some(n);
    }
    let n = match t.strip_prefix("0x") {
        Some(h) if !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()) => u32::from_str_radix(h, 16).ok()?,
        Some(_) => return None,
        None if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => t.parse().ok()?,
        None => return None,
    };
    (n < 4096).then_some(n as u16)
}

/// A register number: 1–3 decimal digits (no sign), at most 255.
fn reg_num(digits: &str) -> Option<u8> {
    if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Parses an x register: `x0`..`x255` or an ABI name (`fp` = `s0`).
pub fn parse_x(text: &str) -> Option<u8> {
    let t = text.trim();
    if t == "fp" {
        return Some(8);
    }
    if let Some(i) = X_ABI.iter().position(|n| *n == t) {
        return Some(i as u8);
    }
    reg_num(t.strip_prefix('x')?)
}

/// Parses a vector register `v0`..`v255`.
pub fn parse_v(text: &str) -> Option<u8> {
    reg_num(text.trim().strip_prefix('v')?)
}

/// Parses an f register: `f0`..`f31`, an FP ABI name, or (zfinx) an x register.
pub fn parse_f(text: &str) -> Option<u8> {
    let t = text.trim();
    if let Some(i) = F_ABI.iter().position(|n| *n == t) {
        return Some(i as u8);
    }
    if let Some(n) = t.strip_prefix('f').and_then(reg_num) {
        return (n < 32).then_some(n);
    }
    parse_x(t)
}

/// Rounding-mode names (index = rm field).
pub const RM_NAMES: [&str; 8] = ["rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"];
