//! Host-side formatting of printf records (OpenCL C 3.0 §6.15.14).
//!
//! The format string is parsed here; every single scalar conversion is delegated to the C
//! library's `snprintf` with a conversion spec rebuilt from whitelisted characters (never the
//! user's format string), so numbers, infinities, NaNs and `%a` come out byte-identical to the
//! host `printf`. Grammar: `%[flags][width][.precision][vector][length]conv` with flags `-+ #0`,
//! decimal width and precision (empty precision = 0; both at most [`MAX_FIELD`]), vector `v2 v3 v4
//! v8 v16`, length `hh h hl l` (`ll` accepted as `l`; `hl` only with a vector), conversions
//! `d i o u x X f F e E g G a A c s p`. A vector specifier is allowed with the integer (`d i o u
//! x X`) and float conversions only; `s` and `p` take no length modifier.
//!
//! Value semantics:
//! * Integer conversions: the raw element bits are extended from the element width (sign for
//!   `d i`, zero for `o u x X`), truncated to the length modifier's width (hh 8, h 16, none/hl 32,
//!   l 64 bits; a vector without a length modifier uses the element width) and extended again by
//!   the conversion's signedness. `%c` prints the low byte of the element (length ignored).
//! * Float conversions: half/float elements are widened to `f64` exactly (NaN sign and payload
//!   kept), then printed as the C library prints that `f64`; the length modifier is ignored.
//! * `%p`: the 32-bit address zero-extended to a host `void*` (`(nil)` for 0 with glibc).
//! * `%s`: the [`PrintfArg::Str`] literal up to its first NUL, as C would print it.
//! * Vector conversions format every element with the same flags, width and precision and join
//!   them with `,`.
//!
//! Bad input never panics. Chosen behaviour:
//! * Output stops at the first NUL byte of the format string, as in C.
//! * An invalid conversion spec (unknown conversion, `*` width, `hl` without a vector, width or
//!   precision above [`MAX_FIELD`], …) prints its `%` literally and consumes no argument; the text
//!   after the `%` is then printed as ordinary text.
//! * A valid conversion with no argument left, or whose argument bytes lie (partly) beyond the end
//!   of the record, prints its own spec text literally (e.g. `%v4hlf`).
//! * A valid conversion whose argument does not fit consumes that argument and prints its spec text
//!   literally, except: `%s` with a non-string argument prints `(null)` (with the spec's width and
//!   precision); integer conversions accept a pointer (as a 32-bit unsigned value) and a float
//!   (its raw element bits, e.g. `%x` of `1.0f` is `3f800000`). Misfits are: a lane count different
//!   from the vector specifier (a scalar conversion needs a scalar), a float conversion of a
//!   non-float, `%p` of a non-pointer, any conversion but `%s` of a string.
//! * Arguments beyond the last conversion are ignored.

use super::{slot_bytes, PrintfArg, PrintfSite};
use std::ffi::{c_char, c_int, c_void, CStr, CString};

/// Largest accepted width or precision (bounds the output of one conversion).
pub const MAX_FIELD: u32 = 65_535;

const FLAG_MINUS: u8 = 1;
const FLAG_PLUS: u8 = 2;
const FLAG_SPACE: u8 = 4;
const FLAG_HASH: u8 = 8;
const FLAG_ZERO: u8 = 16;
/// Flag characters in the order they are re-emitted, with their bits.
const FLAGS: [(u8, u8); 5] =
    [(b'-', FLAG_MINUS), (b'+', FLAG_PLUS), (b' ', FLAG_SPACE), (b'#', FLAG_HASH), (b'0', FLAG_ZERO)];

/// Length modifier of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Length {
    None,
    Hh,
    H,
    Hl,
    L,
}

/// One parsed conversion spec (not `%%`).
#[derive(Clone, Copy, Debug)]
struct Spec {
    flags: u8,
    width: Option<u32>,
    precision: Option<u32>,
    vector: Option<u8>,
    length: Length,
    conv: u8,
}

fn is_int_conv(c: u8) -> bool {
    matches!(c, b'd' | b'i' | b'o' | b'u' | b'x' | b'X')
}

fn is_float_conv(c: u8) -> bool {
    matches!(c, b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A')
}

/// Parses a decimal field starting at `*i`; `None` if it exceeds [`MAX_FIELD`].
fn parse_number(fmt: &[u8], i: &mut usize) -> Option<u32> {
    let mut n: u32 = 0;
    while let Some(d) = fmt.get(*i).filter(|b| b.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(u32::from(d - b'0'));
        *i += 1;
    }
    (n <= MAX_FIELD).then_some(n)
}

/// Parses the spec after a `%` at `start`; returns it and the index just past the conversion.
fn parse_spec(fmt: &[u8], start: usize) -> Option<(Spec, usize)> {
    let mut i = start;
    let mut flags = 0;
    while let Some(&(_, bit)) = fmt.get(i).and_then(|c| FLAGS.iter().find(|(f, _)| f == c)) {
        flags |= bit;
        i += 1;
    }
    let width = match fmt.get(i) {
        Some(b'1'..=b'9') => Some(parse_number(fmt, &mut i)?),
        _ => None,
    };
    let precision = if fmt.get(i) == Some(&b'.') {
        i += 1;
        Some(parse_number(fmt, &mut i)?)
    } else {
        None
    };
    let vector = if fmt.get(i) == Some(&b'v') {
        i += 1;
        let n = parse_number(fmt, &mut i)?;
        if !matches!(n, 2 | 3 | 4 | 8 | 16) {
            return None;
        }
        Some(n as u8)
    } else {
        None
    };
    let (length, skip) = match (fmt.get(i), fmt.get(i + 1)) {
        (Some(b'h'), Some(b'h')) => (Length::Hh, 2),
        (Some(b'h'), Some(b'l')) => (Length::Hl, 2),
        (Some(b'h'), _) => (Length::H, 1),
        (Some(b'l'), Some(b'l')) => (Length::L, 2),
        (Some(b'l'), _) => (Length::L, 1),
        _ => (Length::None, 0),
    };
    i += skip;
    let conv = *fmt.get(i)?;
    let numeric = is_int_conv(conv) || is_float_conv(conv);
    let valid = match conv {
        b's' | b'p' => length == Length::None && vector.is_none(),
        b'c' => vector.is_none() && length != Length::Hl,
        _ => numeric && (length != Length::Hl || vector.is_some()),
    };
    let spec = Spec { flags, width, precision, vector, length, conv };
    valid.then_some((spec, i + 1))
}

/// One piece of a format string.
enum Piece<'a> {
    /// Ordinary text, printed as is.
    Text(&'a [u8]),
    /// `%%`.
    Percent,
    /// A `%` that does not start a valid conversion spec: printed literally, consumes nothing.
    Stray,
    /// A valid conversion spec and its text (from the `%`).
    Conv(Spec, &'a [u8]),
}

/// The pieces of `fmt` up to its first NUL (see the module documentation for the grammar).
fn pieces(fmt: &[u8]) -> impl Iterator<Item = Piece<'_>> {
    let fmt = &fmt[..fmt.iter().position(|&b| b == 0).unwrap_or(fmt.len())];
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= fmt.len() {
            return None;
        }
        if fmt[i] != b'%' {
            let end = fmt[i..].iter().position(|&b| b == b'%').map_or(fmt.len(), |p| i + p);
            let text = &fmt[i..end];
            i = end;
            return Some(Piece::Text(text));
        }
        if fmt.get(i + 1) == Some(&b'%') {
            i += 2;
            return Some(Piece::Percent);
        }
        match parse_spec(fmt, i + 1) {
            Some((spec, end)) => {
                let text = &fmt[i..end];
                i = end;
                Some(Piece::Conv(spec, text))
            }
            None => {
                i += 1;
                Some(Piece::Stray)
            }
        }
    })
}

/// Formats one record's argument bytes (the bytes after the header) per `site`, appending to
/// `out`. See the module documentation for the exact semantics and the handling of bad input.
pub fn format_record(site: &PrintfSite, args: &[u8], out: &mut Vec<u8>) {
    let mut next_arg = 0usize;
    let mut offset = 0usize;
    for piece in pieces(&site.format) {
        let (spec, text) = match piece {
            Piece::Text(t) => {
                out.extend_from_slice(t);
                continue;
            }
            Piece::Percent | Piece::Stray => {
                out.push(b'%');
                continue;
            }
            Piece::Conv(spec, text) => (spec, text),
        };
        let Some(arg) = site.args.get(next_arg) else {
            out.extend_from_slice(text);
            continue;
        };
        next_arg += 1;
        let len = arg.record_bytes() as usize;
        let bytes = offset.checked_add(len).and_then(|e| args.get(offset..e));
        offset = offset.saturating_add(len);
        let done = bytes.is_some_and(|b| convert(&spec, arg, b, out));
        if !done {
            out.extend_from_slice(text);
        }
    }
}

/// The argument each conversion of `format` consumes when the values are passed the C way
/// (variadic default promotions, OpenCL C type sizes): integer conversions and `%c` take an
/// `int` (4 bytes), or a `long` (8 bytes) with `l`; float conversions take a `double`; a vector
/// conversion takes the vector its length modifier names (`hh` char, `h` short/half, `hl`
/// int/float, `l` long/double elements); `%p` a pointer and `%s` a string pointer (returned as an
/// empty [`PrintfArg::Str`] for the caller to fill in). Invalid specs take nothing.
pub fn vararg_types(format: &[u8]) -> Vec<PrintfArg> {
    pieces(format)
        .filter_map(|p| match p {
            Piece::Conv(spec, _) => Some(spec),
            _ => None,
        })
        .map(|spec| {
            let float = is_float_conv(spec.conv);
            match (spec.conv, spec.vector) {
                (b's', _) => PrintfArg::Str(Vec::new()),
                (b'p', _) => PrintfArg::Ptr,
                (_, None) if float => PrintfArg::Float { bytes: 8, lanes: 1 },
                (_, None) => PrintfArg::Int { bytes: if spec.length == Length::L { 8 } else { 4 }, lanes: 1 },
                (_, Some(lanes)) => {
                    let bytes = match spec.length {
                        Length::Hh => 1,
                        Length::H => 2,
                        Length::L => 8,
                        Length::Hl | Length::None => 4,
                    };
                    if float {
                        PrintfArg::Float { bytes, lanes }
                    } else {
                        PrintfArg::Int { bytes, lanes }
                    }
                }
            }
        })
        .collect()
}

/// Formats one conversion of `arg` (whose record bytes are `bytes`); `false` if they do not fit
/// (nothing written then).
fn convert(spec: &Spec, arg: &PrintfArg, bytes: &[u8], out: &mut Vec<u8>) -> bool {
    let conv = spec.conv;
    match (conv, arg) {
        (b's', PrintfArg::Str(s)) => {
            let s = &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())];
            let s = CString::new(s).unwrap_or_default();
            c_format(spec, CArg::Str(&s), out);
            true
        }
        (b's', _) => {
            c_format(spec, CArg::Str(c"(null)"), out);
            true
        }
        (b'p', PrintfArg::Ptr) => match element(bytes, 4, 0) {
            Some(addr) => {
                c_format(spec, CArg::Ptr(addr as u32), out);
                true
            }
            None => false,
        },
        (b'p', _) => false,
        _ => {
            let (elem_bytes, lanes, is_float) = match arg {
                PrintfArg::Int { bytes, lanes } => (*bytes, *lanes, false),
                PrintfArg::Float { bytes, lanes } => (*bytes, *lanes, true),
                PrintfArg::Ptr => (4, 1, false),
                PrintfArg::Str(_) => return false,
            };
            if spec.vector.unwrap_or(1) != lanes || (is_float_conv(conv) && !is_float) {
                return false;
            }
            let mut raws = Vec::with_capacity(usize::from(lanes));
            for lane in 0..usize::from(lanes) {
                match element(bytes, elem_bytes, lane) {
                    Some(raw) => raws.push(raw),
                    None => return false,
                }
            }
            for (lane, raw) in raws.into_iter().enumerate() {
                if lane > 0 {
                    out.push(b',');
                }
                let value = if is_float_conv(conv) {
                    CArg::Double(float_to_f64(raw, elem_bytes))
                } else {
                    int_value(spec, raw, u32::from(elem_bytes) * 8)
                };
                c_format(spec, value, out);
            }
            true
        }
    }
}

/// Raw bits of element `lane` of an argument with `elem_bytes`-byte elements (zero-extended).
fn element(bytes: &[u8], elem_bytes: u8, lane: usize) -> Option<u64> {
    let slot = slot_bytes(elem_bytes) as usize;
    let at = lane.checked_mul(slot)?;
    let b = bytes.get(at..at.checked_add(slot)?)?;
    let mut word = [0u8; 8];
    word[..slot].copy_from_slice(b);
    Some(u64::from_le_bytes(word) & mask(u32::from(elem_bytes) * 8))
}

/// All-ones in the low `bits` bits.
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v`.
fn sext(v: u64, bits: u32) -> u64 {
    if bits >= 64 || bits == 0 {
        v
    } else {
        let s = 64 - bits;
        (((v << s) as i64) >> s) as u64
    }
}

/// The C argument for an integer conversion of an element's raw bits (see module docs).
fn int_value(spec: &Spec, raw: u64, elem_bits: u32) -> CArg<'static> {
    if spec.conv == b'c' {
        return CArg::Char(c_int::from(raw as u8));
    }
    let signed = matches!(spec.conv, b'd' | b'i');
    let length_bits = match spec.length {
        Length::Hh => 8,
        Length::H => 16,
        Length::Hl => 32,
        Length::L => 64,
        Length::None if spec.vector.is_some() => elem_bits,
        Length::None => 32,
    };
    if signed {
        CArg::Signed(sext(sext(raw, elem_bits), length_bits) as i64)
    } else {
        CArg::Unsigned(raw & mask(elem_bits) & mask(length_bits))
    }
}

/// Widens a half (2), float (4) or double (8) bit pattern to `f64` exactly, NaN sign and payload
/// included.
fn float_to_f64(raw: u64, bytes: u8) -> f64 {
    match bytes {
        2 => {
            let h = raw as u16;
            let sign = u64::from(h >> 15) << 63;
            let exp = u64::from((h >> 10) & 0x1F);
            let man = u64::from(h & 0x3FF);
            match exp {
                0 => {
                    // Subnormal or zero: man * 2^-24, exact in f64.
                    let v = man as f64 * f64::from_bits((1023 - 24) << 52);
                    f64::from_bits(v.to_bits() | sign)
                }
                31 => f64::from_bits(sign | (0x7FF << 52) | (man << 42)),
                _ => f64::from_bits(sign | ((exp + 1023 - 15) << 52) | (man << 42)),
            }
        }
        4 => {
            let f = raw as u32;
            let v = f32::from_bits(f);
            if v.is_nan() {
                let sign = u64::from(f >> 31) << 63;
                f64::from_bits(sign | (0x7FF << 52) | (u64::from(f & 0x7F_FFFF) << 29))
            } else {
                f64::from(v)
            }
        }
        _ => f64::from_bits(raw),
    }
}

/// One argument of a single C conversion.
enum CArg<'a> {
    /// `%lld`/`%lli`.
    Signed(i64),
    /// `%llo`/`%llu`/`%llx`/`%llX`.
    Unsigned(u64),
    /// Any float conversion.
    Double(f64),
    /// `%c`.
    Char(c_int),
    /// `%p` of a 32-bit device address.
    Ptr(u32),
    /// `%s`.
    Str(&'a CStr),
}

/// Appends the C library's rendering of `arg` under `spec` (flags, width, precision, conversion).
fn c_format(spec: &Spec, arg: CArg<'_>, out: &mut Vec<u8>) {
    // The spec is rebuilt from whitelisted characters: '%', flags, digits, '.', an optional
    // "ll" and the conversion character matching `arg`'s type, then a NUL.
    let mut f = Vec::with_capacity(24);
    f.push(b'%');
    for (c, bit) in FLAGS {
        if spec.flags & bit != 0 {
            f.push(c);
        }
    }
    if let Some(w) = spec.width {
        f.extend_from_slice(w.to_string().as_bytes());
    }
    if let Some(p) = spec.precision {
        f.push(b'.');
        f.extend_from_slice(p.to_string().as_bytes());
    }
    let conv = match arg {
        CArg::Signed(_) | CArg::Unsigned(_) => {
            f.extend_from_slice(b"ll");
            spec.conv
        }
        CArg::Double(_) => spec.conv,
        CArg::Char(_) => b'c',
        CArg::Ptr(_) => b'p',
        CArg::Str(_) => b's',
    };
    f.push(conv);
    let Ok(f) = CString::new(f) else { return };
    let mut buf = [0u8; 256];
    let n = c_snprintf(&mut buf, &f, &arg);
    let Ok(n) = usize::try_from(n) else { return };
    if n < buf.len() {
        out.extend_from_slice(&buf[..n]);
    } else {
        let mut big = vec![0u8; n + 1];
        let m = c_snprintf(&mut big, &f, &arg);
        if usize::try_from(m) == Ok(n) {
            out.extend_from_slice(&big[..n]);
        }
    }
}

/// `snprintf(buf, buf.len(), spec, arg)`. `spec` must be a single conversion built by
/// [`c_format`] whose type matches `arg`.
fn c_snprintf(buf: &mut [u8], spec: &CStr, arg: &CArg<'_>) -> c_int {
    let s = buf.as_mut_ptr().cast::<c_char>();
    let n = buf.len();
    let f = spec.as_ptr();
    // SAFETY: `s` is valid for `n` bytes of writes (snprintf writes at most `n` including the NUL).
    // `f` is a NUL-terminated spec built by `c_format` from whitelisted characters only: one '%',
    // flags, decimal digits, '.', optional "ll" and exactly one conversion character, never '*' or
    // '$', so snprintf reads exactly one variadic argument, and that argument has the type the
    // conversion expects: "ll" + d/i with `long long`, "ll" + o/u/x/X with `unsigned long long`,
    // a float conversion with `double`, 'c' with `int`, 'p' with `void*` (never dereferenced) and
    // 's' with a pointer to a NUL-terminated string that lives for the whole call.
    unsafe {
        match *arg {
            CArg::Signed(v) => libc::snprintf(s, n, f, v as libc::c_longlong),
            CArg::Unsigned(v) => libc::snprintf(s, n, f, v as libc::c_ulonglong),
            CArg::Double(v) => libc::snprintf(s, n, f, v),
            CArg::Char(v) => libc::snprintf(s, n, f, v),
            CArg::Ptr(a) => libc::snprintf(s, n, f, std::ptr::without_provenance::<c_void>(a as usize)),
            CArg::Str(p) => libc::snprintf(s, n, f, p.as_ptr()),
        }
    }
}

/// Fallback for a record whose id has no table entry: the argument bytes as little-endian words,
/// e.g. `[printf #7: 0x00000001 0x3f800000]\n`; a trailing partial word prints only its bytes
/// (`0x` + 2 hex digits per byte); no arguments gives `[printf #7]\n`.
pub fn format_unknown(id: u32, args: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(format!("[printf #{id}").as_bytes());
    for (k, chunk) in args.chunks(4).enumerate() {
        out.extend_from_slice(if k == 0 { b": " } else { b" " });
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        let v = u32::from_le_bytes(word);
        let digits = chunk.len() * 2;
        out.extend_from_slice(format!("0x{v:0digits$x}").as_bytes());
    }
    out.extend_from_slice(b"]\n");
}
