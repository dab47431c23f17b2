// Soft double precision for the Ventus device (no D extension): IEEE 754 binary64 arithmetic on
// 64-bit integers, which the back end keeps in 32-bit register pairs.
//
// This file is OpenCL C, compiled once per process by the driver's own front end (clang +
// llvm-spirv) into a SPIR-V library module; the SPIR-V translator lowers every `double` operation
// of a kernel to a call of one of the `__vt_f64_*` functions below: an out-of-line subroutine
// (one body per program, compiler/target/call.rs), inlined only inside the library's own level.
// The primitives use integers only — never `double` arithmetic, which would recurse into them.
//
// Semantics (the contract tests/cl_fp64.rs checks bit for bit against the host's IEEE double):
// * add, sub, mul, div, sqrt, fma and conversions are correctly rounded, round-to-nearest-even
//   unless a conversion names another mode (0 rte, 1 rtz, 2 rtp, 3 rtn); subnormals are kept
//   (inputs and results), never flushed.
// * NaN results follow RISC-V (the device's F extension does the same for float): every NaN
//   produced by arithmetic or a conversion is the canonical quiet NaN 0x7ff8000000000000;
//   sign operations (neg, fabs, copysign) and moves keep payloads.
// * float → integer conversions saturate and map NaN to 0 (the `_sat` rule; without `_sat` the
//   out-of-range result is undefined in OpenCL, so one rule serves both).

#ifndef VT_HOST_TEST
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// Contracting a*b+c into fma would replace two cheap soft operations by one far larger one.
#pragma OPENCL FP_CONTRACT OFF
#define VT_CLZ32(x) clz(x)
#endif

#define VT_SIGN 0x8000000000000000UL
#define VT_INF 0x7ff0000000000000UL
#define VT_QNAN 0x7ff8000000000000UL
#define VT_FRAC 0x000fffffffffffffUL
#define VT_HIDDEN 0x0010000000000000UL

typedef struct {
    ulong hi, lo;
} vt_u128;

static inline uint vt_clz64(ulong x) {
    uint hi = (uint)(x >> 32);
    return hi != 0 ? VT_CLZ32(hi) : 32 + VT_CLZ32((uint)x);
}

static inline ulong vt_shr_jam64(ulong a, uint dist) {
    return dist < 63 ? (a >> dist) | (ulong)((a << ((64 - dist) & 63)) != 0 && dist != 0)
                     : (ulong)(a != 0);
}

static inline int vt_isnan(ulong a) { return (a & ~VT_SIGN) > VT_INF; }

// Rounding increment for a 10-bit round field (sig has its leading one at bit 62).
static inline uint vt_round_inc(int mode, uint sign) {
    return mode == 0 ? 0x200 : mode == 1 ? 0 : (mode == 2) != (sign != 0) ? 0x3ff : 0;
}

// Packs sign, exponent `exp` (one less than the biased exponent of a result whose leading
// one is at bit 62 of `sig`) and `sig` with 10 extra round bits, rounding per `mode`.
static ulong vt_round_pack(uint sign, int exp, ulong sig, int mode) {
    uint inc = vt_round_inc(mode, sign);
    ulong s = (ulong)sign << 63;
    if ((uint)exp >= 0x7fd) {
        if (exp < 0) {
            sig = vt_shr_jam64(sig, (uint)(-exp) > 64 ? 64 : (uint)(-exp));
            exp = 0;
        } else if (exp > 0x7fd || sig + inc >= 0x8000000000000000UL) {
            return s | (inc != 0 ? VT_INF : VT_INF - 1);
        }
    }
    uint bits = (uint)sig & 0x3ff;
    sig = (sig + inc) >> 10;
    if (bits == 0x200 && mode == 0)
        sig &= ~1UL;
    if (sig == 0)
        exp = 0;
    return s + ((ulong)exp << 52) + sig;
}

// As vt_round_pack for any nonzero `sig` (normalised here).
static ulong vt_norm_round_pack(uint sign, int exp, ulong sig, int mode) {
    int shift = (int)vt_clz64(sig) - 1;
    exp -= shift;
    if (shift >= 10 && (uint)exp < 0x7fd)
        return ((ulong)sign << 63) + ((ulong)(sig != 0 ? exp : 0) << 52) + (sig << (shift - 10));
    if (shift < 0)
        return vt_round_pack(sign, exp, vt_shr_jam64(sig, 1), mode);
    return vt_round_pack(sign, exp, sig << shift, mode);
}

// a + b for non-NaN operands of any signs. Every path that rounds ends in the one
// vt_round_pack at the bottom (every round_pack is a copy of that code: smaller routines spill
// less and run faster).
ulong __vt_f64_add(ulong a, ulong b) {
    if (vt_isnan(a) || vt_isnan(b))
        return VT_QNAN;
    uint sign = (uint)(a >> 63);
    int ea = (int)((a >> 52) & 0x7ff), eb = (int)((b >> 52) & 0x7ff);
    ulong sa = a & VT_FRAC, sb = b & VT_FRAC;
    int d = ea - eb;
    int ez;
    ulong sz;
    if (ea == 0x7ff || eb == 0x7ff) {
        // An infinity: inf − inf is invalid, else the infinite operand wins.
        if (ea == 0x7ff && eb == 0x7ff && (a >> 63) != (b >> 63))
            return VT_QNAN;
        return ea == 0x7ff ? a : b;
    }
    if (sign == (uint)(b >> 63)) {
        if (d == 0) {
            if (ea == 0)
                return ((ulong)sign << 63) | (sa + sb);
            ez = ea;
            sz = (VT_HIDDEN * 2 + sa + sb) << 9;
        } else {
            // Order so that a has the larger exponent.
            if (d < 0) {
                ulong t = sa;
                sa = sb;
                sb = t;
                ez = eb;
                eb = ea;
                d = -d;
            } else {
                ez = ea;
            }
            sa <<= 9;
            sb <<= 9;
            sb += eb != 0 ? 0x2000000000000000UL : sb;
            sb = vt_shr_jam64(sb, (uint)d);
            sz = 0x2000000000000000UL + sa + sb;
            if (sz < 0x4000000000000000UL) {
                --ez;
                sz <<= 1;
            }
        }
    } else if (d == 0) {
        long diff = (long)(sa - sb);
        if (diff == 0)
            return 0;
        if (ea != 0)
            --ea;
        if (diff < 0) {
            sign ^= 1;
            diff = -diff;
        }
        int shift = (int)vt_clz64((ulong)diff) - 11;
        ez = ea - shift;
        if (ez < 0) {
            shift = ea;
            ez = 0;
        }
        // Exact: the round bits are zero.
        sz = ((ulong)diff << shift) << 10;
    } else {
        if (d < 0) {
            ulong t = sa;
            sa = sb;
            sb = t;
            ez = eb;
            eb = ea;
            d = -d;
            sign ^= 1;
        } else {
            ez = ea;
        }
        sa <<= 10;
        sb <<= 10;
        sb += eb != 0 ? 0x4000000000000000UL : sb;
        sb = vt_shr_jam64(sb, (uint)d);
        sz = (sa | 0x4000000000000000UL) - sb;
        // Normalise: the leading one moves to bit 62.
        int shift = (int)vt_clz64(sz) - 1;
        ez = ez - 1 - shift;
        sz <<= shift;
    }
    return vt_round_pack(sign, ez, sz, 0);
}

ulong __vt_f64_sub(ulong a, ulong b) { return __vt_f64_add(a, b ^ VT_SIGN); }

// A subnormal significand `frac` (nonzero) normalised: leading one at bit 52.
static inline ulong vt_norm_sub(ulong frac, int *exp) {
    int shift = (int)vt_clz64(frac) - 11;
    *exp = 1 - shift;
    return frac << shift;
}

static inline vt_u128 vt_mul64(ulong a, ulong b) {
    ulong a0 = (uint)a, a1 = a >> 32, b0 = (uint)b, b1 = b >> 32;
    ulong p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    ulong mid = (p00 >> 32) + (uint)p01 + (uint)p10;
    vt_u128 r;
    r.lo = (mid << 32) | (uint)p00;
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

ulong __vt_f64_mul(ulong a, ulong b) {
    if (vt_isnan(a) || vt_isnan(b))
        return VT_QNAN;
    uint sign = (uint)((a ^ b) >> 63);
    int ea = (int)((a >> 52) & 0x7ff), eb = (int)((b >> 52) & 0x7ff);
    ulong sa = a & VT_FRAC, sb = b & VT_FRAC;
    ulong s = (ulong)sign << 63;
    if (ea == 0x7ff || eb == 0x7ff) {
        if ((ea == 0 && sa == 0) || (eb == 0 && sb == 0))
            return VT_QNAN;
        return s | VT_INF;
    }
    if (ea == 0) {
        if (sa == 0)
            return s;
        sa = vt_norm_sub(sa, &ea);
    }
    if (eb == 0) {
        if (sb == 0)
            return s;
        sb = vt_norm_sub(sb, &eb);
    }
    int ez = ea + eb - 0x3ff;
    vt_u128 p = vt_mul64((sa | VT_HIDDEN) << 10, (sb | VT_HIDDEN) << 11);
    ulong sz = p.hi | (ulong)(p.lo != 0);
    if (sz < 0x4000000000000000UL) {
        --ez;
        sz <<= 1;
    }
    return vt_round_pack(sign, ez, sz, 0);
}

ulong __vt_f64_div(ulong a, ulong b) {
    if (vt_isnan(a) || vt_isnan(b))
        return VT_QNAN;
    uint sign = (uint)((a ^ b) >> 63);
    int ea = (int)((a >> 52) & 0x7ff), eb = (int)((b >> 52) & 0x7ff);
    ulong sa = a & VT_FRAC, sb = b & VT_FRAC;
    ulong s = (ulong)sign << 63;
    if (ea == 0x7ff)
        return eb == 0x7ff ? VT_QNAN : s | VT_INF;
    if (eb == 0x7ff)
        return s;
    if (eb == 0 && sb == 0)
        return (ea == 0 && sa == 0) ? VT_QNAN : s | VT_INF;
    if (ea == 0) {
        if (sa == 0)
            return s;
        sa = vt_norm_sub(sa, &ea);
    }
    if (eb == 0)
        sb = vt_norm_sub(sb, &eb);
    sa |= VT_HIDDEN;
    sb |= VT_HIDDEN;
    int ez = ea - eb + 0x3fe;
    if (sa < sb) {
        --ez;
        sa <<= 1;
    }
    // Restoring division: 63 quotient bits (leading one at bit 62), then a sticky bit.
    ulong rem = sa, q = 0;
#pragma unroll 1
    for (int i = 0; i < 63; i++) {
        q <<= 1;
        if (rem >= sb) {
            rem -= sb;
            q |= 1;
        }
        rem <<= 1;
    }
    return vt_round_pack(sign, ez, q | (ulong)(rem != 0), 0);
}

ulong __vt_f64_sqrt(ulong a) {
    if (vt_isnan(a))
        return VT_QNAN;
    int ea = (int)((a >> 52) & 0x7ff);
    ulong sa = a & VT_FRAC;
    if ((a & ~VT_SIGN) == 0)
        return a;
    if (a >> 63)
        return VT_QNAN;
    if (ea == 0x7ff)
        return a;
    if (ea == 0)
        sa = vt_norm_sub(sa, &ea);
    sa |= VT_HIDDEN;
    int e = ea - 0x3ff;
    if (e & 1) {
        sa <<= 1;
        e -= 1;
    }
    // Digit-by-digit square root of sa · 2^54 (sa < 2^54): 54 root bits, remainder for sticky.
    ulong rem = 0, root = 0;
#pragma unroll 1
    for (int i = 0; i < 54; i++) {
        uint two = i < 27 ? (uint)((sa >> (52 - 2 * i)) & 3) : 0;
        rem = (rem << 2) | two;
        ulong trial = (root << 2) | 1;
        root <<= 1;
        if (rem >= trial) {
            rem -= trial;
            root |= 1;
        }
    }
    return vt_round_pack(0, (e >> 1) + 0x3fe, (root << 9) | (ulong)(rem != 0), 0);
}

static inline vt_u128 vt_shl128(vt_u128 a, uint n) {
    vt_u128 r;
    if (n == 0)
        return a;
    if (n >= 64) {
        r.hi = a.lo << (n - 64);
        r.lo = 0;
    } else {
        r.hi = (a.hi << n) | (a.lo >> (64 - n));
        r.lo = a.lo << n;
    }
    return r;
}

static inline vt_u128 vt_shr_jam128(vt_u128 a, uint n) {
    vt_u128 r;
    if (n == 0)
        return a;
    if (n >= 128) {
        r.hi = 0;
        r.lo = (ulong)((a.hi | a.lo) != 0);
    } else if (n >= 64) {
        ulong lost = a.lo | (n > 64 ? a.hi << (128 - n) : 0);
        r.hi = 0;
        r.lo = (n == 64 ? a.hi : a.hi >> (n - 64)) | (ulong)(lost != 0);
    } else {
        ulong lost = a.lo << (64 - n);
        r.hi = a.hi >> n;
        r.lo = (a.lo >> n) | (a.hi << (64 - n)) | (ulong)(lost != 0);
    }
    return r;
}

ulong __vt_f64_fma(ulong a, ulong b, ulong c) {
    if (vt_isnan(a) || vt_isnan(b) || vt_isnan(c))
        return VT_QNAN;
    uint sp = (uint)((a ^ b) >> 63), sc = (uint)(c >> 63);
    int ea = (int)((a >> 52) & 0x7ff), eb = (int)((b >> 52) & 0x7ff), ec = (int)((c >> 52) & 0x7ff);
    ulong fa = a & VT_FRAC, fb = b & VT_FRAC, fc = c & VT_FRAC;
    int za = ea == 0 && fa == 0, zb = eb == 0 && fb == 0;
    if (ea == 0x7ff || eb == 0x7ff) {
        if (za || zb)
            return VT_QNAN;
        if (ec == 0x7ff && sc != sp)
            return VT_QNAN;
        return ((ulong)sp << 63) | VT_INF;
    }
    if (ec == 0x7ff)
        return c;
    if (za || zb)
        return __vt_f64_add((ulong)sp << 63, c);
    if (ec == 0 && fc == 0)
        return __vt_f64_mul(a, b);
    if (ea == 0)
        fa = vt_norm_sub(fa, &ea);
    if (eb == 0)
        fb = vt_norm_sub(fb, &eb);
    if (ec == 0)
        fc = vt_norm_sub(fc, &ec);
    // Product: 106 bits, aligned so its leading one is at bit 125; value = P · 2^(ep-1023-125).
    vt_u128 p = vt_mul64(fa | VT_HIDDEN, fb | VT_HIDDEN);
    int ep = ea + eb - 0x3ff;
    if (p.hi >> 41) {
        p = vt_shl128(p, 20);
        ep += 1;
    } else {
        p = vt_shl128(p, 21);
    }
    vt_u128 q;
    q.hi = (fc | VT_HIDDEN) << 9;
    q.lo = 0;
    int e;
    if (ep >= ec) {
        q = vt_shr_jam128(q, (uint)(ep - ec) > 128 ? 128 : (uint)(ep - ec));
        e = ep;
    } else {
        p = vt_shr_jam128(p, (uint)(ec - ep) > 128 ? 128 : (uint)(ec - ep));
        e = ec;
    }
    vt_u128 s;
    uint sign = sp;
    if (sp == sc) {
        s.lo = p.lo + q.lo;
        s.hi = p.hi + q.hi + (ulong)(s.lo < p.lo);
    } else {
        s.lo = p.lo - q.lo;
        s.hi = p.hi - q.hi - (ulong)(p.lo < q.lo);
        if (s.hi >> 63) {
            s.lo = ~s.lo + 1;
            s.hi = ~s.hi + (ulong)(s.lo == 0);
            sign ^= 1;
        }
        if ((s.hi | s.lo) == 0)
            return 0;
    }
    // Leading one at bit L; value = S · 2^(e-1023-125).
    uint lz = s.hi != 0 ? vt_clz64(s.hi) : 64 + vt_clz64(s.lo);
    int L = 127 - (int)lz;
    ulong sig;
    if (L > 62) {
        vt_u128 t = vt_shr_jam128(s, (uint)(L - 62));
        sig = t.lo;
    } else {
        sig = vt_shl128(s, (uint)(62 - L)).lo;
    }
    return vt_round_pack(sign, e + (L - 125) - 1, sig, 0);
}

// ---- comparisons (ordered: false when either operand is NaN) ----

int __vt_f64_eq(ulong a, ulong b) {
    return !vt_isnan(a) && !vt_isnan(b) && (a == b || ((a | b) & ~VT_SIGN) == 0);
}

int __vt_f64_lt(ulong a, ulong b) {
    if (vt_isnan(a) || vt_isnan(b))
        return 0;
    uint sa = (uint)(a >> 63), sb = (uint)(b >> 63);
    if (sa != sb)
        return sa != 0 && ((a | b) & ~VT_SIGN) != 0;
    return a != b && ((a < b) != (sa != 0));
}

int __vt_f64_le(ulong a, ulong b) {
    if (vt_isnan(a) || vt_isnan(b))
        return 0;
    uint sa = (uint)(a >> 63), sb = (uint)(b >> 63);
    if (sa != sb)
        return sa != 0 || ((a | b) & ~VT_SIGN) == 0;
    return a == b || ((a < b) != (sa != 0));
}

int __vt_f64_unord(ulong a, ulong b) { return vt_isnan(a) || vt_isnan(b); }

// ---- conversions ----

ulong __vt_f64_from_f32(uint f) {
    uint e = (f >> 23) & 0xff, frac = f & 0x7fffff;
    ulong s = (ulong)(f >> 31) << 63;
    if (e == 0xff)
        return frac != 0 ? VT_QNAN : s | VT_INF;
    if (e == 0) {
        if (frac == 0)
            return s;
        uint shift = VT_CLZ32(frac) - 8;
        frac = (frac << shift) & 0x7fffff;
        return s | ((ulong)(1 + 1023 - 127 - shift) << 52) | ((ulong)frac << 29);
    }
    return s | ((ulong)(e + 1023 - 127) << 52) | ((ulong)frac << 29);
}

// Packs a float from sign, exponent (one less than biased) and sig (leading one at bit 30,
// 7 round bits).
static uint vt_round_pack32(uint sign, int exp, uint sig, int mode) {
    uint inc = mode == 0 ? 0x40 : mode == 1 ? 0 : (mode == 2) != (sign != 0) ? 0x7f : 0;
    uint s = sign << 31;
    if ((uint)exp >= 0xfd) {
        if (exp < 0) {
            uint d = (uint)(-exp);
            sig = d < 31 ? (sig >> d) | (uint)((sig << ((32 - d) & 31)) != 0 && d != 0) : (uint)(sig != 0);
            exp = 0;
        } else if (exp > 0xfd || sig + inc >= 0x80000000u) {
            return s | (inc != 0 ? 0x7f800000u : 0x7f7fffffu);
        }
    }
    uint bits = sig & 0x7f;
    sig = (sig + inc) >> 7;
    if (bits == 0x40 && mode == 0)
        sig &= ~1u;
    if (sig == 0)
        exp = 0;
    return s + ((uint)exp << 23) + sig;
}

uint __vt_f64_to_f32(ulong a, int mode) {
    uint sign = (uint)(a >> 63);
    int e = (int)((a >> 52) & 0x7ff);
    ulong frac = a & VT_FRAC;
    if (e == 0x7ff)
        return frac != 0 ? 0x7fc00000u : (sign << 31) | 0x7f800000u;
    if (e == 0 && frac == 0)
        return sign << 31;
    // Subnormal doubles are far below the float range: only their sticky bit matters.
    ulong sig = e == 0 ? frac : frac | VT_HIDDEN;
    if (e == 0)
        e = 1;
    // sig (leading at 52) → 32-bit with leading at 30: shift right 22 with jam.
    uint s32 = (uint)vt_shr_jam64(sig, 22);
    if (s32 < 0x40000000u) {
        // Only for subnormal doubles: far below float's range.
        return vt_round_pack32(sign, -200, s32 | 1, mode);
    }
    return vt_round_pack32(sign, e - 1023 + 127 - 1, s32, mode);
}

// Integer (magnitude `m`, sign) → double, rounded per `mode`.
ulong __vt_f64_from_u64(ulong m, uint sign, int mode) {
    if (m == 0)
        return 0;
    return vt_norm_round_pack(sign, 0x43c, m, mode);
}

ulong __vt_f64_from_i64(long v, int mode) {
    uint sign = v < 0;
    return __vt_f64_from_u64(sign ? (ulong)(-v) : (ulong)v, sign, mode);
}

// |a| rounded to an integer per `mode` (0 rte, 1 rtz, 2 rtp, 3 rtn on the signed value),
// saturating at 2^64-1; *neg gets the sign, *big whether |a| ≥ 2^64 or NaN.
static ulong vt_to_mag(ulong a, int mode, int *neg, int *big) {
    uint sign = (uint)(a >> 63);
    int e = (int)((a >> 52) & 0x7ff);
    ulong sig = (a & VT_FRAC) | (e != 0 ? VT_HIDDEN : 0);
    *neg = (int)sign;
    *big = 0;
    if (vt_isnan(a)) {
        *big = 2;
        return 0;
    }
    int shift = e - 1075;
    if (shift >= 0) {
        if (shift > 11) {
            *big = 1;
            return ~0UL;
        }
        return sig << shift;
    }
    ulong ip, frac;
    if (shift < -63) {
        ip = 0;
        frac = sig != 0 ? 1 : 0;
    } else {
        ip = sig >> (-shift);
        frac = sig << (64 + shift);
    }
    int up;
    if (mode == 0)
        up = frac > 0x8000000000000000UL || (frac == 0x8000000000000000UL && (ip & 1));
    else if (mode == 1)
        up = 0;
    else if (mode == 2)
        up = frac != 0 && !sign;
    else
        up = frac != 0 && sign;
    return ip + (ulong)up;
}

long __vt_f64_to_i64(ulong a, int mode) {
    int neg, big;
    ulong m = vt_to_mag(a, mode, &neg, &big);
    if (big == 2)
        return 0;
    if (neg)
        return m >= 0x8000000000000000UL ? (long)0x8000000000000000UL : -(long)m;
    return m >= 0x8000000000000000UL ? 0x7fffffffffffffffL : (long)m;
}

ulong __vt_f64_to_u64(ulong a, int mode) {
    int neg, big;
    ulong m = vt_to_mag(a, mode, &neg, &big);
    if (big == 2 || (neg && m != 0))
        return 0;
    return m;
}

// Rounds to an integral double: 0 rte, 1 rtz (trunc), 2 rtp (ceil), 3 rtn (floor),
// 4 nearest with ties away from zero (round).
ulong __vt_f64_rint(ulong a, int mode) {
    int e = (int)((a >> 52) & 0x7ff);
    ulong s = a & VT_SIGN;
    if (e == 0x7ff)
        return vt_isnan(a) ? VT_QNAN : a;
    if (e >= 1075)
        return a;
    if (e < 1023) {
        if ((a & ~VT_SIGN) == 0)
            return a;
        // |a| < 1
        int one;
        if (mode == 0)
            one = e == 1022 && (a & VT_FRAC) != 0;
        else if (mode == 4)
            one = e == 1022;
        else if (mode == 1)
            one = 0;
        else if (mode == 2)
            one = s == 0;
        else
            one = s != 0;
        return s | (one ? 0x3ff0000000000000UL : 0);
    }
    uint fb = (uint)(1075 - e);
    ulong mask = (1UL << fb) - 1;
    ulong frac = a & mask;
    if (frac == 0)
        return a;
    ulong hlf = 1UL << (fb - 1);
    ulong base = a & ~mask;
    int up;
    if (mode == 0)
        up = frac > hlf || (frac == hlf && ((a >> fb) & 1));
    else if (mode == 4)
        up = frac >= hlf;
    else if (mode == 1)
        up = 0;
    else if (mode == 2)
        up = s == 0;
    else
        up = s != 0;
    return up ? base + (1UL << fb) : base;
}

// ---- small operations ----

ulong __vt_f64_fmin(ulong a, ulong b) {
    if (vt_isnan(a))
        return vt_isnan(b) ? VT_QNAN : b;
    if (vt_isnan(b))
        return a;
    return __vt_f64_lt(b, a) || (((a | b) & ~VT_SIGN) == 0 && (b >> 63)) ? b : a;
}

ulong __vt_f64_fmax(ulong a, ulong b) {
    if (vt_isnan(a))
        return vt_isnan(b) ? VT_QNAN : b;
    if (vt_isnan(b))
        return a;
    return __vt_f64_lt(a, b) || (((a | b) & ~VT_SIGN) == 0 && (a >> 63)) ? b : a;
}

// ldexp: a · 2^n, correctly rounded (subnormal results round once).
ulong __vt_f64_ldexp(ulong a, int n) {
    int e = (int)((a >> 52) & 0x7ff);
    ulong frac = a & VT_FRAC;
    if (e == 0x7ff)
        return vt_isnan(a) ? VT_QNAN : a;
    if ((a & ~VT_SIGN) == 0)
        return a;
    if (e == 0)
        frac = vt_norm_sub(frac, &e);
    if (n > 4000)
        n = 4000;
    if (n < -4000)
        n = -4000;
    return vt_round_pack((uint)(a >> 63), e + n - 1, (frac | VT_HIDDEN) << 10, 0);
}

// frexp's exponent (0 for 0, inf and NaN) and mantissa in [0.5, 1).
int __vt_f64_frexp_exp(ulong a) {
    int e = (int)((a >> 52) & 0x7ff);
    if (e == 0x7ff || (a & ~VT_SIGN) == 0)
        return 0;
    if (e == 0)
        vt_norm_sub(a & VT_FRAC, &e);
    return e - 1022;
}

ulong __vt_f64_frexp_mant(ulong a) {
    int e = (int)((a >> 52) & 0x7ff);
    if (e == 0x7ff)
        return vt_isnan(a) ? VT_QNAN : a;
    if ((a & ~VT_SIGN) == 0)
        return a;
    ulong frac = a & VT_FRAC;
    if (e == 0)
        frac = vt_norm_sub(frac, &e) & VT_FRAC;
    return (a & VT_SIGN) | (1022UL << 52) | frac;
}

int __vt_f64_ilogb(ulong a) {
    int e = (int)((a >> 52) & 0x7ff);
    if ((a & ~VT_SIGN) == 0)
        return (int)0x80000000; // FP_ILOGB0 = INT_MIN (clang's OpenCL headers)
    if (e == 0x7ff)
        return 0x7fffffff; // FP_ILOGBNAN = INT_MAX (clang's OpenCL headers), and infinities
    if (e == 0)
        vt_norm_sub(a & VT_FRAC, &e);
    return e - 1023;
}

ulong __vt_f64_nextafter(ulong a, ulong b) {
    if (vt_isnan(a) || vt_isnan(b))
        return VT_QNAN;
    if (__vt_f64_eq(a, b))
        return b;
    if ((a & ~VT_SIGN) == 0)
        return (b & VT_SIGN) | 1;
    // Away from zero when moving in a's direction.
    int away = __vt_f64_lt(a, b) != (int)(a >> 63);
    return away ? a + 1 : a - 1;
}

int __vt_f64_one(ulong a, ulong b) { return !vt_isnan(a) && !vt_isnan(b) && !__vt_f64_eq(a, b); }

// fmod's remainder (exact, sign of x) and the low bits of the truncated quotient.
static ulong vt_fmod_core(ulong x, ulong y, uint *q) {
    ulong ax = x & ~VT_SIGN, ay = y & ~VT_SIGN;
    *q = 0;
    if (vt_isnan(x) || vt_isnan(y) || ax == VT_INF || ay == 0)
        return VT_QNAN;
    if (ay == VT_INF || ax < ay)
        return x;
    int ex = (int)(ax >> 52), ey = (int)(ay >> 52);
    ulong mx = ax & VT_FRAC, my = ay & VT_FRAC;
    if (ex == 0)
        mx = vt_norm_sub(mx, &ex);
    else
        mx |= VT_HIDDEN;
    if (ey == 0)
        my = vt_norm_sub(my, &ey);
    else
        my |= VT_HIDDEN;
    // Long division of mx · 2^(ex - ey) by my: the remainder and the quotient's low 32 bits.
#ifdef VT_HOST_TEST
    // The host (native math, deviation 23) divides 11 bits at a time with its 64-bit divider:
    // r < my < 2^53, so r << 11 fits. Same quotient and remainder as the device's loop below.
    ulong r = mx % my;
    uint qq = (uint)(mx / my);
    for (int d = ex - ey; d > 0;) {
        int k = d < 11 ? d : 11;
        ulong t = r << k;
        qq = (qq << k) | (uint)(t / my);
        r = t % my;
        d -= k;
    }
#else
    ulong r = mx;
    uint qq = 0;
#pragma unroll 1
    for (int d = ex - ey; d > 0; d--) {
        qq <<= 1;
        if (r >= my) {
            r -= my;
            qq |= 1;
        }
        r <<= 1;
    }
    qq <<= 1;
    if (r >= my) {
        r -= my;
        qq |= 1;
    }
#endif
    *q = qq;
    if (r == 0)
        return x & VT_SIGN;
    ulong v = __vt_f64_ldexp(vt_norm_round_pack(0, 0x43c, r, 0), ey - 1075);
    return v | (x & VT_SIGN);
}

ulong __vt_f64_fmod(ulong x, ulong y) {
    uint q;
    return vt_fmod_core(x, y, &q);
}

// IEEE remainder (quotient rounded to nearest even) and the low bits of that quotient.
static ulong vt_remainder_core(ulong x, ulong y, uint *q) {
    ulong r = vt_fmod_core(x, y, q);
    if (vt_isnan(r) || (y & ~VT_SIGN) == VT_INF)
        return r;
    ulong ar = r & ~VT_SIGN, ay = y & ~VT_SIGN;
    if (ar == 0)
        return r;
    // |r| > |y| - |r|, or equal with an odd quotient: step to the other side.
    ulong rest = __vt_f64_sub(ay, ar);
    if (__vt_f64_lt(rest, ar) || (rest == ar && (*q & 1))) {
        *q += 1;
        return (__vt_f64_sub(ar, ay)) ^ (r & VT_SIGN);
    }
    return r;
}

ulong __vt_f64_remainder(ulong x, ulong y) {
    uint q;
    return vt_remainder_core(x, y, &q);
}

int __vt_f64_remquo_q(ulong x, ulong y) {
    uint q;
    ulong r = vt_remainder_core(x, y, &q);
    if (vt_isnan(r))
        return 0;
    int v = (int)(q & 0x7f);
    return ((x ^ y) >> 63) ? -v : v;
}

// double → half bits, correctly rounded per `mode` (one rounding; vstore_half of doubles,
// convert_half_*).
uint __vt_f64_to_f16(ulong a, int mode) {
    uint sign = (uint)(a >> 63);
    int e = (int)((a >> 52) & 0x7ff);
    ulong frac = a & VT_FRAC;
    if (e == 0x7ff)
        return frac != 0 ? 0x7e00u : (sign << 15) | 0x7c00u;
    if (e == 0 && frac == 0)
        return sign << 15;
    ulong sig = e == 0 ? frac : frac | VT_HIDDEN;
    // Leading one at bit 14 with 4 round bits below it.
    uint s = (uint)vt_shr_jam64(sig, 38);
    int exp = s < 0x4000u ? -100 : e - 1023 + 15 - 1;
    if (s < 0x4000u)
        s |= 1;
    uint inc = mode == 0 ? 0x8u : mode == 1 ? 0u : (mode == 2) != (sign != 0) ? 0xfu : 0u;
    if ((uint)exp >= 0x1d) {
        if (exp < 0) {
            uint d = (uint)(-exp);
            s = d < 31 ? (s >> d) | (uint)((s << ((32 - d) & 31)) != 0) : (uint)(s != 0);
            exp = 0;
        } else if (exp > 0x1d || s + inc >= 0x8000u) {
            return (sign << 15) | (inc != 0 ? 0x7c00u : 0x7bffu);
        }
    }
    uint bits = s & 0xf;
    s = (s + inc) >> 4;
    if (bits == 8 && mode == 0)
        s &= ~1u;
    if (s == 0)
        exp = 0;
    return (sign << 15) + ((uint)exp << 10) + s;
}
