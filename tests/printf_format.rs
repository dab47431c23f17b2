//! Host-side printf: table encoding and record formatting (`ventus_icd::abi::printf`).
//!
//! Expected strings come from the host C library called directly with the equivalent C spec and
//! value (`c!`), or are written out by hand; never from the implementation under test.

use std::ffi::{c_char, c_int, c_long, c_uint, c_ulong, c_void, CString};
use ventus_icd::abi::printf::*;

/// `snprintf(buf, n, spec, value)` with the host C library; `value` must already have its C
/// promoted type (c_int, c_long, f64, pointer).
macro_rules! c {
    ($spec:expr, $v:expr) => {{
        let spec = CString::new($spec).unwrap();
        let mut buf = vec![0u8; 1 << 16];
        // SAFETY: `buf` is writable for its length; `spec` is a NUL-terminated literal with one
        // conversion whose C type matches `$v` as passed.
        let n = unsafe { libc::snprintf(buf.as_mut_ptr().cast::<c_char>(), buf.len(), spec.as_ptr(), $v) };
        assert!(n >= 0 && (n as usize) < buf.len(), "snprintf({:?}) failed", $spec);
        buf.truncate(n as usize);
        String::from_utf8(buf).unwrap()
    }};
}

/// Builds a record's argument bytes together with the site's argument descriptors.
#[derive(Default)]
struct Rec {
    args: Vec<PrintfArg>,
    bytes: Vec<u8>,
}

impl Rec {
    fn new() -> Self {
        Self::default()
    }
    /// Integer vector/scalar of `bytes`-byte elements from raw bit patterns.
    fn int(mut self, bytes: u8, vals: &[u64]) -> Self {
        self.push_raw(bytes, vals);
        self.args.push(PrintfArg::Int { bytes, lanes: vals.len() as u8 });
        self
    }
    fn float_raw(mut self, bytes: u8, vals: &[u64]) -> Self {
        self.push_raw(bytes, vals);
        self.args.push(PrintfArg::Float { bytes, lanes: vals.len() as u8 });
        self
    }
    fn i32(self, v: i32) -> Self {
        self.int(4, &[v as u32 as u64])
    }
    fn f32s(self, v: &[f32]) -> Self {
        let raws: Vec<u64> = v.iter().map(|f| u64::from(f.to_bits())).collect();
        self.float_raw(4, &raws)
    }
    fn f64s(self, v: &[f64]) -> Self {
        let raws: Vec<u64> = v.iter().map(|f| f.to_bits()).collect();
        self.float_raw(8, &raws)
    }
    fn halfs(self, v: &[u16]) -> Self {
        let raws: Vec<u64> = v.iter().map(|&h| u64::from(h)).collect();
        self.float_raw(2, &raws)
    }
    fn ptr(mut self, a: u32) -> Self {
        self.bytes.extend_from_slice(&a.to_le_bytes());
        self.args.push(PrintfArg::Ptr);
        self
    }
    fn str(mut self, s: &[u8]) -> Self {
        self.args.push(PrintfArg::Str(s.to_vec()));
        self
    }
    fn push_raw(&mut self, bytes: u8, vals: &[u64]) {
        for &v in vals {
            if bytes == 8 {
                self.bytes.extend_from_slice(&v.to_le_bytes());
            } else {
                let m = (1u64 << (bytes * 8)) - 1;
                self.bytes.extend_from_slice(&((v & m) as u32).to_le_bytes());
            }
        }
    }
    fn site(&self, fmt: &[u8]) -> PrintfSite {
        PrintfSite { format: fmt.to_vec(), args: self.args.clone() }
    }
    fn run(&self, fmt: &str) -> String {
        let site = self.site(fmt.as_bytes());
        assert_eq!(site.record_bytes() as usize, 4 + self.bytes.len());
        let mut out = Vec::new();
        format_record(&site, &self.bytes, &mut out);
        String::from_utf8(out).unwrap()
    }
}

/// Collects mismatches so one test reports all of them; counts cases.
#[derive(Default)]
struct Check {
    cases: usize,
    failures: Vec<String>,
}

impl Check {
    fn eq(&mut self, what: &str, got: String, want: String) {
        self.cases += 1;
        if got != want {
            self.failures.push(format!("{what}: got {got:?}, want {want:?}"));
        }
    }
    fn done(self, min_cases: usize) {
        assert!(self.failures.is_empty(), "{} failures:\n{}", self.failures.len(), self.failures.join("\n"));
        eprintln!("{} cases", self.cases);
        assert!(self.cases >= min_cases, "only {} cases", self.cases);
    }
}

/// Joins per-element host results with ",".
fn join(parts: Vec<String>) -> String {
    parts.join(",")
}

#[test]
fn integer_conversions() {
    let mut k = Check::default();
    for (spec, v) in [
        ("%d", 42),
        ("%d", i32::MIN),
        ("%d", i32::MAX),
        ("%i", -7),
        ("%+d", 5),
        ("% d", 5),
        ("% d", -5),
        ("%-6d|", -3),
        ("%06d", -42),
        ("%.4d", 7),
        ("%8.3d", -7),
        ("%.0d", 0),
        ("%.d", 0),
        ("%-+8.3i|", 12),
        ("%+ 05d", 12),
        ("%0-5d|", 3),
    ] {
        k.eq(spec, Rec::new().i32(v).run(spec), c!(spec, v as c_int));
    }
    for (spec, v) in [
        ("%u", -1i32 as u32),
        ("%o", 8),
        ("%#o", 8),
        ("%#o", 0),
        ("%#.3o", 8),
        ("%x", 0xdead_beef),
        ("%X", 0xdead_beef),
        ("%#x", 255),
        ("%#X", 0),
        ("%#10.6x", 255),
        ("%-#8x|", 26),
        ("%08X", 0xabc),
    ] {
        k.eq(spec, Rec::new().int(4, &[u64::from(v)]).run(spec), c!(spec, v as c_uint));
    }
    // 64-bit integers (LP64 host: long is 64 bits).
    for (spec, v) in [("%ld", i64::MIN), ("%ld", i64::MAX), ("%+ld", 0), ("%li", -1), ("%20ld|", -123456789012)] {
        k.eq(spec, Rec::new().int(8, &[v as u64]).run(spec), c!(spec, v as c_long));
    }
    for (spec, v) in [("%lu", u64::MAX), ("%lx", u64::MAX), ("%#lo", u64::MAX), ("%lX", 0x0123_4567_89ab_cdef)] {
        k.eq(spec, Rec::new().int(8, &[v]).run(spec), c!(spec, v as c_ulong));
    }
    k.eq("%lld as %ld", Rec::new().int(8, &[i64::MIN as u64]).run("%lld"), c!("%ld", i64::MIN as c_long));
    // A 32-bit int printed with %ld is sign-extended first.
    k.eq("%ld of int", Rec::new().i32(-5).run("%ld"), c!("%ld", -5 as c_long));
    k.eq("%lu of uint", Rec::new().i32(-5).run("%lu"), c!("%lu", 0xFFFF_FFFB as c_ulong));
    // A long printed with %d: truncated to 32 bits.
    k.eq("%d of long", Rec::new().int(8, &[0x1_0000_0007]).run("%d"), c!("%d", 7 as c_int));

    // char / short with hh / h.
    let ch = |v: i8| Rec::new().int(1, &[v as u8 as u64]);
    let sh = |v: i16| Rec::new().int(2, &[v as u16 as u64]);
    k.eq("%hhd -1", ch(-1).run("%hhd"), c!("%hhd", -1 as c_int));
    k.eq("%hhd 127", ch(127).run("%hhd"), c!("%hhd", 127 as c_int));
    k.eq("%hhu -1", ch(-1).run("%hhu"), c!("%hhu", -1 as c_int));
    k.eq("%hhx 0x80", ch(-128).run("%hhx"), c!("%hhx", -128 as c_int));
    k.eq("%hhd of int 300", Rec::new().i32(300).run("%hhd"), c!("%hhd", 300 as c_int));
    k.eq("%hd", sh(-12345).run("%hd"), c!("%hd", -12345 as c_int));
    k.eq("%hu -1", sh(-1).run("%hu"), c!("%hu", -1 as c_int));
    k.eq("%hx of int", Rec::new().i32(0x12345).run("%hx"), c!("%hx", 0x12345 as c_int));
    k.eq("%+6hd", sh(300).run("%+6hd"), c!("%+6hd", 300 as c_int));
    k.eq("%d of char -1", ch(-1).run("%d"), c!("%d", -1 as c_int));
    // Unsigned conversions zero-extend the element (the record does not know C signedness).
    k.eq("%u of char -1", ch(-1).run("%u"), "255".to_string());
    k.eq("%x of short -1", sh(-1).run("%x"), "ffff".to_string());

    // %c
    k.eq("%c", ch(b'A' as i8).run("%c"), c!("%c", b'A' as c_int));
    k.eq("%5c|", ch(b'z' as i8).run("%5c|"), c!("%5c|", b'z' as c_int));
    k.eq("%-3c|", Rec::new().i32(0x141).run("%-3c|"), c!("%-3c|", 0x41 as c_int));
    k.eq("[%c]", Rec::new().i32(0).run("[%c]"), "[\0]".to_string());
    k.done(50);
}

#[test]
fn float_conversions() {
    let mut k = Check::default();
    let f32_cases: &[(&str, f32)] = &[
        ("%f", 3.25159),
        ("%.2f", 2.71359),
        ("%10.3f|", -2.5),
        ("%-10.1f|", 2.25),
        ("%+f", 1.0),
        ("% f", 1.0),
        ("%010.2f", -3.75),
        ("%#.0f", 3.0),
        ("%.0f", 2.5),
        ("%.f", 3.5),
        ("%e", 12345.678),
        ("%E", 0.000123),
        ("%g", 0.0001),
        ("%G", 1e20),
        ("%#g", 1.0),
        ("%g", 100000.0),
        ("%g", 1e6),
        ("%a", 1.0),
        ("%.2a", 1.5),
        ("%f", -0.0),
        ("%e", -0.0),
        ("%g", -0.0),
        ("%f", f32::INFINITY),
        ("%f", f32::NEG_INFINITY),
        ("%F", f32::INFINITY),
        ("%5.1f|", f32::NEG_INFINITY),
        ("%-8e|", f32::INFINITY),
        ("%+e", f32::INFINITY),
        ("%f", f32::MAX),
        ("%e", f32::MIN_POSITIVE),
        ("%a", 1.0e-45),
        ("%.3g", 1.0 / 3.0),
    ];
    for &(spec, v) in f32_cases {
        k.eq(spec, Rec::new().f32s(&[v]).run(spec), c!(spec, f64::from(v)));
    }
    let f64_cases: &[(&str, f64)] = &[
        ("%f", f64::MAX),
        ("%e", f64::MIN_POSITIVE),
        ("%g", 5e-324),
        ("%.20f", 0.1),
        ("%.3e", 1e-300),
        ("%A", -0.1),
        ("%#a", 2.0),
        ("%lf", 6.02214076e23),
        ("%.15g", std::f64::consts::PI),
        ("%G", -1e-10),
        ("%E", f64::NEG_INFINITY),
    ];
    for &(spec, v) in f64_cases {
        k.eq(spec, Rec::new().f64s(&[v]).run(spec), c!(spec, v));
    }
    // NaNs: glibc prints the sign bit; device NaNs are often negative.
    let nan = |bits: u32| Rec::new().float_raw(4, &[u64::from(bits)]);
    let pos_nan = f64::from_bits(0x7ff8_0000_0000_0000);
    let neg_nan = f64::from_bits(0xfff8_0000_0000_0000);
    k.eq("%f +nan", nan(0x7fc0_0000).run("%f"), c!("%f", pos_nan));
    k.eq("%f -nan", nan(0xffc0_0000).run("%f"), c!("%f", neg_nan));
    k.eq("%F -nan", nan(0xffc0_0000).run("%F"), c!("%F", neg_nan));
    k.eq("%e -snan", nan(0xff80_0001).run("%e"), c!("%e", neg_nan));
    k.eq("%8.2g| +nan", nan(0x7f80_0001).run("%8.2g|"), c!("%8.2g|", pos_nan));
    k.eq("%f -nan f64", Rec::new().float_raw(8, &[0xfff8_0000_0000_0001]).run("%f"), c!("%f", neg_nan));
    k.eq("%f +nan literal", nan(0x7fc0_0000).run("%f"), "nan".to_string());
    k.eq("%f -nan literal", nan(0xffc0_0000).run("%f"), "-nan".to_string());
    k.eq("%f -0 literal", Rec::new().f32s(&[-0.0]).run("%f"), "-0.000000".to_string());

    // Halves: values computed by hand.
    let halves: &[(u16, f64)] = &[
        (0x3c00, 1.0),
        (0xc000, -2.0),
        (0x3555, 0.333251953125),
        (0x7bff, 65504.0),
        (0x0001, 5.960464477539063e-08),
        (0x03ff, 6.097555160522461e-05),
        (0x8000, -0.0),
        (0x7c00, f64::INFINITY),
        (0xfc00, f64::NEG_INFINITY),
        (0x7e00, pos_nan),
        (0xfe00, neg_nan),
    ];
    for &(h, v) in halves {
        for spec in ["%f", "%a", "%.17g"] {
            k.eq(&format!("{spec} half {h:#06x}"), Rec::new().halfs(&[h]).run(spec), c!(spec, v));
        }
    }
    k.done(50);
}

#[test]
fn pointers_strings_and_text() {
    let mut k = Check::default();
    let p = |a: usize| a as *const c_void;
    k.eq("%p 0", Rec::new().ptr(0).run("%p"), c!("%p", p(0)));
    k.eq("%p 0x1234", Rec::new().ptr(0x1234).run("%p"), c!("%p", p(0x1234)));
    k.eq("%p high", Rec::new().ptr(0x9000_0000).run("%p"), c!("%p", p(0x9000_0000)));
    k.eq("%20p|", Rec::new().ptr(0xffff_fff0).run("%20p|"), c!("%20p|", p(0xffff_fff0)));
    k.eq("%-12p|", Rec::new().ptr(0).run("%-12p|"), c!("%-12p|", p(0)));
    k.eq("%p literal", Rec::new().ptr(0x1234).run("%p"), "0x1234".to_string());
    k.eq("%p nil literal", Rec::new().ptr(0).run("%p"), "(nil)".to_string());
    k.eq("%x of ptr", Rec::new().ptr(0x9000_0010).run("%x"), "90000010".to_string());

    let hello = CString::new("hello").unwrap();
    let s = |spec: &str| Rec::new().str(b"hello").run(spec);
    for spec in ["%s", "%.3s", "%.0s", "%.10s", "%10s|", "%-10s|", "%10.2s|", "%-4.1s|"] {
        k.eq(spec, s(spec), c!(spec, hello.as_ptr()));
    }
    k.eq("%s with NUL", Rec::new().str(b"ab\0cd").run("<%s>"), "<ab>".to_string());
    k.eq("%s utf-8 bytes", Rec::new().str("é!".as_bytes()).run("%.2s"), "é".to_string());
    k.eq("%s of int", Rec::new().i32(1).run("%s|%s"), "(null)|%s".to_string());
    k.eq("%8s of int", Rec::new().i32(1).run("%8s"), "  (null)".to_string());

    // Literal text, %% and mixed arguments.
    k.eq("%%", Rec::new().run("100%%"), "100%".to_string());
    k.eq("%%d", Rec::new().i32(3).run("%%d %d"), "%d 3".to_string());
    k.eq("plain", Rec::new().run("no conversions\n"), "no conversions\n".to_string());
    let mixed = Rec::new().i32(-4).f32s(&[0.5]).str(b"ok").ptr(0x80).int(8, &[u64::MAX]);
    let want = format!(
        "x={} y={} s={} p={} u={}!\n",
        c!("%d", -4 as c_int),
        c!("%.3f", 0.5f64),
        "ok",
        c!("%p", p(0x80)),
        c!("%lu", u64::MAX as c_ulong)
    );
    k.eq("mixed", mixed.run("x=%d y=%.3f s=%s p=%p u=%lu!\n"), want);
    k.eq("embedded NUL in format", Rec::new().i32(1).run("ab\0%d"), "ab".to_string());
    k.done(25);
}

#[test]
fn vector_conversions() {
    let mut k = Check::default();
    k.eq(
        "%v4hlf literal",
        Rec::new().f32s(&[1.0, 2.0, 3.5, 4.0]).run("%v4hlf"),
        "1.000000,2.000000,3.500000,4.000000".to_string(),
    );
    k.eq(
        "%v4f lenient",
        Rec::new().f32s(&[1.0, 2.0, 3.5, 4.0]).run("%v4f"),
        "1.000000,2.000000,3.500000,4.000000".into(),
    );
    k.eq(
        "%v2hhd",
        Rec::new().int(1, &[0xff, 127]).run("%v2hhd"),
        join(vec![c!("%hhd", -1 as c_int), c!("%hhd", 127 as c_int)]),
    );
    let shorts: [i16; 8] = [0, 1, -1, i16::MIN, i16::MAX, 300, -300, 7];
    let raws: Vec<u64> = shorts.iter().map(|&v| v as u16 as u64).collect();
    k.eq("%v8hd", Rec::new().int(2, &raws).run("%v8hd"), join(shorts.iter().map(|&v| c!("%hd", v as c_int)).collect()));
    k.eq(
        "%v3d",
        Rec::new().int(4, &[1, (-2i32) as u32 as u64, 3]).run("<%v3d>"),
        format!("<{}>", join(vec![c!("%d", 1), c!("%d", -2), c!("%d", 3)])),
    );
    k.eq("%v3hld", Rec::new().int(4, &[5, 6, 7]).run("%v3hld"), "5,6,7".into());
    let bytes: Vec<u64> = (0..16).map(|i| i * 17).collect();
    k.eq(
        "%#v16hhx",
        Rec::new().int(1, &bytes).run("%#v16hhx"),
        join(bytes.iter().map(|&v| c!("%#hhx", v as c_int)).collect()),
    );
    let uints: Vec<u64> = (0..16).map(|i| 0xffff_ffffu64 - i * 1000).collect();
    k.eq(
        "%v16hlu",
        Rec::new().int(4, &uints).run("%v16hlu"),
        join(uints.iter().map(|&v| c!("%u", v as c_uint)).collect()),
    );
    k.eq(
        "%v2ld",
        Rec::new().int(8, &[i64::MIN as u64, i64::MAX as u64]).run("%v2ld"),
        join(vec![c!("%ld", i64::MIN as c_long), c!("%ld", i64::MAX as c_long)]),
    );
    k.eq("%v2d of long2 lenient", Rec::new().int(8, &[u64::MAX, 1 << 40]).run("%v2d"), format!("-1,{}", 1u64 << 40));
    k.eq("%v4hhu of char4", Rec::new().int(1, &[0xff, 0, 1, 0x80]).run("%v4hhu"), "255,0,1,128".into());
    k.eq("%v2lf", Rec::new().f64s(&[0.1, -1e300]).run("%v2lf"), join(vec![c!("%f", 0.1f64), c!("%f", -1e300f64)]));
    k.eq("%v2le", Rec::new().f64s(&[0.1, -1e300]).run("%v2le"), join(vec![c!("%e", 0.1f64), c!("%e", -1e300f64)]));
    k.eq(
        "%+8.2v4hlf",
        Rec::new().f32s(&[1.0, -2.5, 0.125, f32::INFINITY]).run("%+8.2v4hlf"),
        join([1.0, -2.5, 0.125, f64::INFINITY].iter().map(|&v| c!("%+8.2f", v)).collect()),
    );
    k.eq(
        "%v4hf half4",
        Rec::new().halfs(&[0x3c00, 0xc000, 0x3800, 0x7c00]).run("%v4hf"),
        join([1.0, -2.0, 0.5, f64::INFINITY].iter().map(|&v| c!("%f", v)).collect()),
    );
    k.eq(
        "%v3hg half3",
        Rec::new().halfs(&[0x3555, 0x0001, 0xfe00]).run("%v3hg"),
        join(
            [0.333251953125, 5.960464477539063e-08, f64::from_bits(0xfff8_0000_0000_0000)]
                .iter()
                .map(|&v| c!("%g", v))
                .collect(),
        ),
    );
    let f8: Vec<f32> = (0..8).map(|i| i as f32 * 0.75 - 2.0).collect();
    k.eq("%v8hla", Rec::new().f32s(&f8).run("%v8hla"), join(f8.iter().map(|&v| c!("%a", f64::from(v))).collect()));
    let f16: Vec<f32> = (0..16).map(|i| (i as f32).exp()).collect();
    k.eq(
        "%-10.3v16hle|",
        Rec::new().f32s(&f16).run("%-10.3v16hle|"),
        join(f16.iter().map(|&v| c!("%-10.3e", f64::from(v))).collect()) + "|",
    );
    k.eq("%v2hlx of float2", Rec::new().f32s(&[1.0, -0.0]).run("%v2hlx"), "3f800000,80000000".into());
    k.eq(
        "%v2hho",
        Rec::new().int(4, &[0x1ff, 8]).run("%v2hho"),
        join(vec![c!("%hho", 0x1ff as c_int), c!("%hho", 8 as c_int)]),
    );
    k.done(20);
}

#[test]
fn mismatches_and_bad_specs_are_printed_literally() {
    let mut k = Check::default();
    k.eq("missing arg", Rec::new().i32(5).run("%d %d"), "5 %d".into());
    k.eq("no args at all", Rec::new().run("a%5.2fb%v4hlf"), "a%5.2fb%v4hlf".into());
    k.eq("unknown conversion", Rec::new().i32(5).run("%y%d"), "%y5".into());
    k.eq("star width", Rec::new().i32(7).run("%*d|%d"), "%*d|7".into());
    k.eq("scalar hl", Rec::new().i32(7).run("%hld %d"), "%hld 7".into());
    k.eq("bad vector width", Rec::new().i32(7).run("%v5d %d"), "%v5d 7".into());
    k.eq("vector %s", Rec::new().str(b"s").run("%v2s"), "%v2s".into());
    k.eq("trailing %", Rec::new().run("50%"), "50%".into());
    k.eq("huge width", Rec::new().i32(1).run("%70000d;%d"), "%70000d;1".into());
    k.eq("float conv of int", Rec::new().i32(1).i32(2).run("%f %d"), "%f 2".into());
    k.eq("%p of int", Rec::new().i32(1).i32(2).run("%p %d"), "%p 2".into());
    k.eq("%d of string", Rec::new().str(b"x").i32(2).run("%d %d"), "%d 2".into());
    k.eq("lanes mismatch", Rec::new().f32s(&[1.0, 2.0]).i32(3).run("%v4hlf %d"), "%v4hlf 3".into());
    k.eq("scalar conv of vector", Rec::new().f32s(&[1.0, 2.0]).i32(3).run("%f %d"), "%f 3".into());
    k.eq("%x of float", Rec::new().f32s(&[1.0]).run("%x"), "3f800000".into());
    k.eq("%lx of double", Rec::new().f64s(&[1.0]).run("%lx"), "3ff0000000000000".into());
    k.eq("extra args ignored", Rec::new().i32(1).i32(2).run("%d"), "1".into());

    // Truncated argument bytes: conversions whose bytes are missing print literally.
    let rec = Rec::new().i32(1).f64s(&[2.0]).f32s(&[1.0, 2.0, 3.0]).ptr(0x10);
    let site = rec.site(b"%d %f %v3hlf %p");
    for cut in 0..=rec.bytes.len() {
        let mut out = Vec::new();
        format_record(&site, &rec.bytes[..cut], &mut out);
        let out = String::from_utf8(out).unwrap();
        let want = match cut {
            0..=3 => "%d %f %v3hlf %p",
            4..=11 => "1 %f %v3hlf %p",
            12..=23 => "1 2.000000 %v3hlf %p",
            24..=27 => "1 2.000000 1.000000,2.000000,3.000000 %p",
            _ => "1 2.000000 1.000000,2.000000,3.000000 0x10",
        };
        k.eq(&format!("cut {cut}"), out, want.into());
    }
    k.done(40);
}

#[test]
fn garbage_descriptors_and_formats_never_panic() {
    // Arguments no decoded table can hold, odd byte counts, every ASCII spec byte pattern.
    let weird = [
        PrintfArg::Int { bytes: 0, lanes: 0 },
        PrintfArg::Int { bytes: 3, lanes: 5 },
        PrintfArg::Float { bytes: 1, lanes: 255 },
        PrintfArg::Float { bytes: 200, lanes: 2 },
        PrintfArg::Int { bytes: 8, lanes: 16 },
        PrintfArg::Str(vec![0xff, 0, 0xfe]),
        PrintfArg::Ptr,
    ];
    let mut seed = 0x1234_5678u32;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let alphabet = b"%-+ #0123456789.vhlcdiouxXfFeEgGaAspqz*\0";
    for _ in 0..3000 {
        let n = rnd() % 12;
        let format: Vec<u8> = (0..n).map(|_| alphabet[rnd() as usize % alphabet.len()]).collect();
        let args: Vec<PrintfArg> = (0..rnd() % 4).map(|_| weird[rnd() as usize % weird.len()].clone()).collect();
        let bytes: Vec<u8> = (0..rnd() % 200).map(|_| rnd() as u8).collect();
        let mut out = Vec::new();
        format_record(&PrintfSite { format, args }, &bytes, &mut out);
        format_unknown(rnd(), &bytes, &mut out);
    }
}

#[test]
fn unknown_records_and_headers() {
    let mut k = Check::default();
    let mut out = Vec::new();
    let mut args = 1u32.to_le_bytes().to_vec();
    args.extend_from_slice(&1.0f32.to_bits().to_le_bytes());
    format_unknown(7, &args, &mut out);
    k.eq("unknown", String::from_utf8(out).unwrap(), "[printf #7: 0x00000001 0x3f800000]\n".into());
    let mut out = Vec::new();
    format_unknown(3, &[], &mut out);
    k.eq("unknown empty", String::from_utf8(out).unwrap(), "[printf #3]\n".into());
    let mut out = Vec::new();
    format_unknown(9, &[1, 2, 3, 4, 0xab, 0xcd], &mut out);
    k.eq("unknown partial", String::from_utf8(out).unwrap(), "[printf #9: 0x04030201 0xcdab]\n".into());
    k.done(3);

    assert_eq!(record_header(12, 7), (12 << 16) | 7);
    assert_eq!(split_header(record_header(12, 7)), (12, 7));
    assert_eq!(split_header(record_header(0xFFFC, 0xFFFF)), (0xFFFC, 0xFFFF));
    assert_eq!(split_header(0), (0, 0));
    assert_eq!(PRINTF_SECTION, ".ventus.printf");
}

fn sample_table() -> PrintfTable {
    PrintfTable {
        sites: vec![
            PrintfSite { format: b"hello\n".to_vec(), args: vec![] },
            PrintfSite {
                format: b"%d %v4hlf %s %p %lu %v3hf %v16hhx".to_vec(),
                args: vec![
                    PrintfArg::Int { bytes: 4, lanes: 1 },
                    PrintfArg::Float { bytes: 4, lanes: 4 },
                    PrintfArg::Str(b"lit\xff".to_vec()),
                    PrintfArg::Ptr,
                    PrintfArg::Int { bytes: 8, lanes: 1 },
                    PrintfArg::Float { bytes: 2, lanes: 3 },
                    PrintfArg::Int { bytes: 1, lanes: 16 },
                ],
            },
            PrintfSite {
                format: Vec::new(),
                args: vec![PrintfArg::Str(Vec::new()), PrintfArg::Float { bytes: 8, lanes: 2 }],
            },
        ],
    }
}

#[test]
fn record_sizes() {
    let t = sample_table();
    assert_eq!(t.sites[0].record_bytes(), 4);
    assert_eq!(t.sites[1].record_bytes(), 4 + 4 + 16 + 4 + 8 + 12 + 64);
    assert_eq!(t.sites[2].record_bytes(), 4 + 16);
    assert_eq!(PrintfArg::Int { bytes: 2, lanes: 3 }.record_bytes(), 12);
    assert_eq!(PrintfArg::Float { bytes: 8, lanes: 16 }.record_bytes(), 128);
    assert_eq!(PrintfArg::Ptr.record_bytes(), 4);
    assert_eq!(PrintfArg::Str(b"abc".to_vec()).record_bytes(), 0);
}

#[test]
fn table_roundtrip_and_lookup() {
    let t = sample_table();
    let enc = t.encode();
    assert_eq!(&enc[..4], b"VPF1");
    let back = PrintfTable::decode(&enc).unwrap();
    assert_eq!(back, t);
    assert_eq!(PrintfTable::decode(&PrintfTable::default().encode()).unwrap(), PrintfTable::default());
    assert!(t.site(0).is_none());
    assert_eq!(t.site(1), Some(&t.sites[0]));
    assert_eq!(t.site(3), Some(&t.sites[2]));
    assert!(t.site(4).is_none());
    assert!(t.site(u32::MAX).is_none());
    let mut grown = PrintfTable::default();
    assert_eq!(grown.push(t.sites[0].clone()), Some(1));
    assert_eq!(grown.push(t.sites[1].clone()), Some(2));
}

#[test]
fn table_decode_rejects_bad_input() {
    let enc = sample_table().encode();
    for cut in 0..enc.len() {
        assert!(PrintfTable::decode(&enc[..cut]).is_err(), "prefix of {cut} bytes accepted");
    }
    let mut long = enc.clone();
    long.push(0);
    assert_eq!(PrintfTable::decode(&long), Err(PrintfError::TrailingBytes { offset: enc.len() }));
    assert_eq!(PrintfTable::decode(b"VPF2\0\0\0\0"), Err(PrintfError::BadMagic));
    assert_eq!(PrintfTable::decode(b"VPF1\xff\xff\xff\xff"), Err(PrintfError::TooManySites { count: u32::MAX }));
    // One site whose format claims 4 GiB, one with a huge argument count.
    assert!(matches!(PrintfTable::decode(b"VPF1\x01\0\0\0\xff\xff\xff\xff"), Err(PrintfError::Truncated { .. })));
    assert!(matches!(
        PrintfTable::decode(b"VPF1\x01\0\0\0\0\0\0\0\xff\xff\xff\xff\x02"),
        Err(PrintfError::Truncated { .. })
    ));
    let one_arg = |arg: &[u8]| {
        let mut v = b"VPF1\x01\0\0\0\0\0\0\0\x01\0\0\0".to_vec();
        v.extend_from_slice(arg);
        PrintfTable::decode(&v)
    };
    assert!(one_arg(&[2]).is_ok());
    assert_eq!(one_arg(&[9]), Err(PrintfError::BadArgKind { site: 0, arg: 0, tag: 9 }));
    assert_eq!(one_arg(&[0, 3, 1]), Err(PrintfError::BadElementSize { site: 0, arg: 0, bytes: 3 }));
    assert_eq!(one_arg(&[1, 1, 1]), Err(PrintfError::BadElementSize { site: 0, arg: 0, bytes: 1 }));
    assert_eq!(one_arg(&[0, 4, 5]), Err(PrintfError::BadLanes { site: 0, arg: 0, lanes: 5 }));
    assert_eq!(one_arg(&[0, 4, 0]), Err(PrintfError::BadLanes { site: 0, arg: 0, lanes: 0 }));
    // A record longer than a header can describe.
    let huge = PrintfTable {
        sites: vec![PrintfSite { format: Vec::new(), args: vec![PrintfArg::Float { bytes: 8, lanes: 16 }; 600] }],
    };
    assert!(matches!(PrintfTable::decode(&huge.encode()), Err(PrintfError::RecordTooLong { site: 0, .. })));
    // Every error displays.
    assert!(!PrintfError::BadMagic.to_string().is_empty());
    let _: &dyn std::error::Error = &PrintfError::Truncated { offset: 3 };

    // Random bytes and bit flips of a valid encoding: never panic.
    let mut seed = 0x9e37_79b9u32;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for _ in 0..2000 {
        let mut v: Vec<u8> = (0..rnd() % 64).map(|_| rnd() as u8).collect();
        if rnd() % 2 == 0 && v.len() >= 4 {
            v[..4].copy_from_slice(b"VPF1");
        }
        let _ = PrintfTable::decode(&v);
    }
    for i in 0..enc.len() * 8 {
        let mut v = enc.clone();
        v[i / 8] ^= 1 << (i % 8);
        let _ = PrintfTable::decode(&v);
    }
    assert!(PrintfTable::decode(&[]).is_err());
}
