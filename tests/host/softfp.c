// Host-side check of the soft-double library (src/compiler/softlib/*.cl), compiled as C by gcc:
// the same source the device runs. Part 1: every primitive bit-exact against the host's IEEE
// double (x86-64 SSE2) on seeded random and edge operands (1,000,000 per operation by default),
// conversions in all four rounding modes, double → half. Part 2: every math built-in measured
// in ULP against the host's long double (x87, 64-bit mantissa) reference, with the OpenCL 3.0
// full-profile bounds. Exit status: the number of failed checks (0 = all good).
// Used by tests/softfp_host.rs.
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>
#include <fenv.h>
#include "host_shim.h"
#include "fp64.cl"
#include "fp64_math.cl"
#undef long

static uint64_t rng = 0x243f6a8885a308d3ULL;
static uint64_t nx(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static uint64_t bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double dbl(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
static uint64_t canon(double x) { return isnan(x) ? 0x7ff8000000000000ULL : bits(x); }
static double unit(void) { return (double)(nx() >> 11) / 9007199254740992.0; }

/// Random doubles weighted towards the interesting cases.
static uint64_t gen(void) {
    uint64_t r = nx();
    switch (nx() % 16) {
    case 0: return r & 0x800fffffffffffffULL; // subnormal
    case 1: {
        static const uint64_t sp[] = {0, 0x7ff0000000000000ULL, 0x7ff8000000000001ULL, 0x7ff0000000000001ULL,
                                      0x3ff0000000000000ULL, 0x0010000000000000ULL, 0x7fefffffffffffffULL, 1};
        return sp[nx() % 8] ^ ((nx() & 1) << 63);
    }
    case 2: return (r & 0x800fffffffffffffULL) | ((uint64_t)(1023 + (int)(nx() % 8) - 4) << 52);
    case 3: return (r & 0x8000000000000fffULL) | ((uint64_t)(nx() % 2047) << 52) | (nx() & 0x000ffff000000000ULL);
    default: return r;
    }
}

static long bad[32];
#define CHK(k, got, want)                                                                                      \
    if ((uint64_t)(got) != (uint64_t)(want) && bad[k]++ < 3)                                                     \
        printf("primitive %d (%016llx, %016llx, %016llx): got %016llx want %016llx\n", k, (unsigned long long)a, \
               (unsigned long long)c, (unsigned long long)e, (unsigned long long)(got), (unsigned long long)(want));

static int primitives(long n) {
    for (long i = 0; i < n; i++) {
        uint64_t a = gen(), c = gen(), e = gen();
        if (i % 5 == 0) c = (a & 0xfff0000000000000ULL) | (nx() & 0xfffffffffffffULL);
        double x = dbl(a), y = dbl(c), z = dbl(e);
        CHK(0, __vt_f64_add(a, c), canon(x + y));
        CHK(1, __vt_f64_sub(a, c), canon(x - y));
        CHK(2, __vt_f64_mul(a, c), canon(x * y));
        CHK(3, __vt_f64_div(a, c), canon(x / y));
        CHK(4, __vt_f64_sqrt(a), canon(sqrt(x)));
        CHK(5, __vt_f64_fma(a, c, e), canon(fma(x, y, z)));
        if (i % 3 == 0) {
            uint64_t p = __vt_f64_mul(a, c); // cancellation: fma(x, y, -round(x*y))
            CHK(5, __vt_f64_fma(a, c, p ^ 0x8000000000000000ULL), canon(fma(x, y, -dbl(p))));
        }
        CHK(6, __vt_f64_eq(a, c), x == y);
        CHK(6, __vt_f64_lt(a, c), x < y);
        CHK(6, __vt_f64_le(a, c), x <= y);
        float fx = (float)x;
        uint32_t fb;
        memcpy(&fb, &fx, 4);
        CHK(7, __vt_f64_to_f32(a, 0), isnan(fx) ? 0x7fc00000u : fb);
        uint32_t fr = (uint32_t)a;
        float ff;
        memcpy(&ff, &fr, 4);
        CHK(8, __vt_f64_from_f32(fr), canon((double)ff));
        int64_t iv = (int64_t)nx() >> (nx() % 64);
        CHK(9, __vt_f64_from_i64(iv, 0), bits((double)iv));
        uint64_t uv = nx() >> (nx() % 64);
        CHK(9, __vt_f64_from_u64(uv, 0, 0), bits((double)uv));
        CHK(10, __vt_f64_rint(a, 0), canon(rint(x)));
        CHK(10, __vt_f64_rint(a, 1), canon(trunc(x)));
        CHK(10, __vt_f64_rint(a, 2), canon(ceil(x)));
        CHK(10, __vt_f64_rint(a, 3), canon(floor(x)));
        CHK(10, __vt_f64_rint(a, 4), canon(round(x)));
        if (!isnan(x) && fabs(x) < 9e18) {
            CHK(11, __vt_f64_to_i64(a, 1), (int64_t)x);
            CHK(11, __vt_f64_to_i64(a, 0), llrint(x));
        }
        int ee = (int)(nx() % 4200) - 2100;
        CHK(12, __vt_f64_ldexp(a, ee), canon(ldexp(x, ee)));
        CHK(13, __vt_f64_nextafter(a, c), canon(nextafter(x, y)));
        int fe;
        double fm = frexp(x, &fe);
        if (!isnan(x)) {
            CHK(14, __vt_f64_frexp_mant(a), bits(fm));
            if (!isinf(x)) CHK(14, __vt_f64_frexp_exp(a), fe);
        }
        if (!isnan(x) && !isnan(y) && y != 0 && !isinf(x)) {
            CHK(15, __vt_f64_fmod(a, c), canon(fmod(x, y)));
            // IEEE 754: a zero remainder has the sign of x (glibc returns -0/+0 the other way
            // round for some tiny divisors).
            double rw = remainder(x, y);
            CHK(15, __vt_f64_remainder(a, c), canon(rw == 0 ? copysign(0.0, x) : rw));
        }
    }
    // Conversions in the four rounding modes (the host's current mode is the reference).
    static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
    for (int m = 0; m < 4; m++) {
        fesetround(modes[m]);
        for (long i = 0; i < n / 4; i++) {
            uint64_t a = gen(), c = 0, e = 0;
            volatile double vx = dbl(a);
            float fx = (float)vx;
            uint32_t fb;
            memcpy(&fb, &fx, 4);
            CHK(16, __vt_f64_to_f32(a, m), isnan(fx) ? 0x7fc00000u : fb);
            volatile int64_t viv = (int64_t)nx() >> (nx() % 64);
            CHK(17, __vt_f64_from_i64(viv, m), bits((double)viv));
            if (!isnan(vx) && fabs(vx) < 9e18) CHK(18, __vt_f64_to_i64(a, m), llrint(vx));
            uint64_t h = (nx() & 0x800fffffffffffffULL) | ((uint64_t)(1023 - 26 + (int)(nx() % 44)) << 52);
            volatile double vh = dbl(i % 2 ? h : a);
            _Float16 hf = (_Float16)vh;
            uint16_t hb;
            memcpy(&hb, &hf, 2);
            a = bits(vh);
            CHK(19, __vt_f64_to_f16(a, m), isnan(vh) ? 0x7e00 : hb);
        }
    }
    fesetround(FE_TONEAREST);
    int failed = 0;
    for (int k = 0; k < 32; k++)
        if (bad[k]) {
            printf("primitive %d: %ld results differ\n", k, bad[k]);
            failed++;
        }
    printf("primitives: %ld random operand sets per operation, %d failing\n", n, failed);
    return failed;
}

/// Error in ulps of the correctly rounded result, against a long double reference.
static double ulps(double got, long double want) {
    double w = (double)want;
    if (isnan(w)) return isnan(got) ? 0 : 1e9;
    if (isinf(w)) return got == w ? 0 : 1e9;
    if (isinf(got) || isnan(got)) return 1e9;
    int e;
    frexpl(fabsl(want), &e);
    long double ulp = ldexpl(1.0L, (e - 1) - 52);
    if (ulp < ldexpl(1.0L, -1074)) ulp = ldexpl(1.0L, -1074);
    return (double)(fabsl((long double)got - want) / ulp);
}

typedef double (*F1)(double);
typedef long double (*R1)(long double);
static int math_failed;

/// `n` samples of `f` over [lo, hi] (logscale 1: |x| log-uniform; 2: with random sign).
static void t1(const char *name, F1 f, R1 r, double lo, double hi, int logscale, double bound) {
    double worst = 0, wx = 0;
    for (int i = 0; i < 100000; i++) {
        double u = unit();
        double x = logscale ? exp(log(lo) + u * (log(hi) - log(lo))) : lo + u * (hi - lo);
        if (logscale == 2 && (nx() & 1)) x = -x;
        double e = ulps(f(x), r((long double)x));
        if (e > worst) {
            worst = e;
            wx = x;
        }
    }
    int over = worst > bound;
    math_failed += over;
    printf("%-8s [%g, %g]: worst %.3f ulp at %.17g (bound %g)%s\n", name, lo, hi, worst, wx, bound, over ? "  FAIL" : "");
}

static long double rtgamma(long double x) { return tgammal(x); }
static long double sinpil(long double x) {
    // Exact reduction to [-1/2, 1/2] (sin(πr) = sin(π(1 − r))), then one long double product.
    long double r = x - 2 * rintl(x / 2);
    if (r > 0.5L) r = 1 - r;
    if (r < -0.5L) r = -1 - r;
    return sinl(3.14159265358979323846264338327950288L * r);
}
static double vt_sinpi_wrap(double x) { return __vt_d_sinpi(x); }

static void mathfns(void) {
    // OpenCL 3.0 full profile double ULP bounds (the reference is the correctly rounded long
    // double result, so a measured error can exceed the true one by at most 0.5).
    t1("exp", __vt_d_exp, expl, -745, 709.7, 0, 3);
    t1("exp2", __vt_d_exp2, exp2l, -1074, 1023.9, 0, 3);
    t1("exp10", __vt_d_exp10, exp10l, -323, 308.2, 0, 3);
    t1("expm1", __vt_d_expm1, expm1l, 1e-12, 700, 2, 3);
    t1("log", __vt_d_log, logl, 1e-320, 1e308, 1, 3);
    t1("log2", __vt_d_log2, log2l, 1e-320, 1e308, 1, 3);
    t1("log10", __vt_d_log10, log10l, 1e-320, 1e308, 1, 3);
    t1("log1p", __vt_d_log1p, log1pl, -0.999, 1e300, 0, 2);
    t1("log1p", __vt_d_log1p, log1pl, 1e-15, 1e300, 1, 2);
    t1("sin", __vt_d_sin, sinl, 1e-10, 1e300, 2, 4);
    t1("cos", __vt_d_cos, cosl, 1e-10, 1e300, 2, 4);
    t1("tan", __vt_d_tan, tanl, 1e-10, 1e300, 2, 5);
    t1("sinpi", vt_sinpi_wrap, sinpil, -1e4, 1e4, 0, 4);
    t1("asin", __vt_d_asin, asinl, -1, 1, 0, 4);
    t1("acos", __vt_d_acos, acosl, -1, 1, 0, 4);
    t1("atan", __vt_d_atan, atanl, 1e-300, 1e300, 2, 5);
    t1("sinh", __vt_d_sinh, sinhl, 1e-10, 710, 2, 4);
    t1("cosh", __vt_d_cosh, coshl, 1e-10, 710, 2, 4);
    t1("tanh", __vt_d_tanh, tanhl, 1e-10, 30, 2, 5);
    t1("asinh", __vt_d_asinh, asinhl, 1e-10, 1e300, 2, 4);
    t1("acosh", __vt_d_acosh, acoshl, 1, 1e300, 1, 4);
    t1("atanh", __vt_d_atanh, atanhl, -1, 1, 0, 5);
    t1("erf", __vt_d_erf, erfl, -6, 6, 0, 16);
    t1("erfc", __vt_d_erfc, erfcl, -6, 27, 0, 16);
    t1("tgamma", __vt_d_tgamma, rtgamma, 1e-5, 171.6, 1, 16);
    t1("tgamma", __vt_d_tgamma, rtgamma, -170, 0, 0, 16);
    t1("cbrt", __vt_d_cbrt, cbrtl, 1e-300, 1e300, 2, 2);
    double worst = 0, wx = 0, wy = 0;
    for (int i = 0; i < 100000; i++) {
        double x = exp(unit() * 40 - 20), y = (unit() - 0.5) * 200;
        double e = ulps(__vt_d_pow(x, y), powl(x, y));
        if (e > worst) { worst = e; wx = x; wy = y; }
    }
    math_failed += worst > 16;
    printf("pow      worst %.3f ulp at (%.17g, %.17g) (bound 16)\n", worst, wx, wy);
    worst = 0;
    for (int i = 0; i < 100000; i++) {
        double x = (unit() - 0.5) * 1e6, y = exp(unit() * 20 - 10) * ((nx() & 1) ? 1 : -1);
        double e = ulps(__vt_d_atan2(y, x), atan2l(y, x));
        if (e > worst) { worst = e; wx = x; wy = y; }
    }
    math_failed += worst > 6;
    printf("atan2    worst %.3f ulp at (%.17g, %.17g) (bound 6)\n", worst, wx, wy);
    // C99 Annex F special values of every function against the host libm (NaN-ness, signed zeros,
    // infinities, exact results).
    static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1e-310, -1e-310, 1e308};
    int nsp = sizeof sp / sizeof *sp, special = 0;
    for (int i = 0; i < nsp; i++)
        for (int j = 0; j < nsp; j++) {
            double x = sp[i], y = sp[j], g = __vt_d_pow(x, y), w = pow(x, y);
            if (!(isnan(g) && isnan(w)) && !(ulps(g, w) <= 16 && signbit(g) == signbit(w)) && special++ < 10)
                printf("pow(%g, %g) = %g, want %g\n", x, y, g, w);
            g = __vt_d_atan2(x, y);
            w = atan2(x, y);
            if (!(isnan(g) && isnan(w)) && !(ulps(g, w) <= 6 && signbit(g) == signbit(w)) && special++ < 10)
                printf("atan2(%g, %g) = %g, want %g\n", x, y, g, w);
        }
    F1 fs[] = {__vt_d_exp, __vt_d_log, __vt_d_sin, __vt_d_cos, __vt_d_tan, __vt_d_asin, __vt_d_acos, __vt_d_atan,
               __vt_d_sinh, __vt_d_cosh, __vt_d_tanh, __vt_d_asinh, __vt_d_acosh, __vt_d_atanh, __vt_d_erf,
               __vt_d_erfc, __vt_d_tgamma, __vt_d_cbrt, __vt_d_expm1, __vt_d_log1p, __vt_d_exp2, __vt_d_log2,
               __vt_d_log10, __vt_d_exp10};
    double (*hs[])(double) = {exp, log, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh,
                              erf, erfc, tgamma, cbrt, expm1, log1p, exp2, log2, log10, exp10};
    for (int k = 0; k < (int)(sizeof fs / sizeof *fs); k++)
        for (int i = 0; i < nsp; i++) {
            double x = sp[i], g = fs[k](x), w = hs[k](x);
            if (isnan(w) ? !isnan(g) : (ulps(g, w) > 16 || (g == 0 && signbit(g) != signbit(w))))
                if (special++ < 20) printf("function %d (%g) = %.17g, want %.17g\n", k, x, g, w);
        }
    // OpenCL-specific special values (the CTS found these): hypot with NaNs, powr of zeros,
    // tanpi at half-integers, ilogb's FP_ILOGBNAN (INT_MAX in clang's OpenCL headers).
    if (!isnan(__vt_d_hypot(NAN, NAN)) || !isnan(__vt_d_hypot(NAN, 0.0)) || __vt_d_hypot(INFINITY, NAN) != INFINITY)
        special++, printf("hypot NaN rules\n");
    if (__vt_d_powr(-0.0, -3.0) != INFINITY || __vt_d_powr(0.0, -2.5) != INFINITY || __vt_d_powr(-0.0, 3.0) != 0.0)
        special++, printf("powr of zero\n");
    if (__vt_d_tanpi(-0.5) != -INFINITY || __vt_d_tanpi(0.5) != INFINITY || __vt_d_tanpi(1.5) != -INFINITY ||
        __vt_d_tanpi(-1.5) != INFINITY)
        special++, printf("tanpi at half-integers\n");
    if (__vt_d_ilogb(NAN) != 0x7fffffff || __vt_d_ilogb(0.0) != (int)0x80000000 || __vt_d_ilogb(INFINITY) != 0x7fffffff)
        special++, printf("ilogb special values\n");
    // The π-scaled inverse trigonometric functions keep the sign of a zero result (the CTS's
    // math_edge_cases: asinpi(-0), atanpi(-0), atan2pi(-0, +0), atan2pi(-1, +inf) are -0).
    {
        double z[] = {__vt_d_asinpi(-0.0), __vt_d_atanpi(-0.0), __vt_d_atan2pi(-0.0, 0.0), __vt_d_atan2pi(-0.0, 1.0),
                      __vt_d_atan2pi(-1.0, INFINITY), __vt_d_asinpi(-1e-320), __vt_d_atanpi(-1e-320)};
        for (int i = 0; i < (int)(sizeof z / sizeof *z); i++)
            if (!signbit(z[i]) || (i < 5 && z[i] != 0))
                special++, printf("pi-scaled inverse trig case %d = %g, want -0 / negative\n", i, z[i]);
        if (__vt_d_asinpi(0.0) != 0 || signbit(__vt_d_asinpi(0.0)) || __vt_d_atan2pi(0.0, 1.0) != 0 ||
            signbit(__vt_d_atan2pi(0.0, 1.0)))
            special++, printf("pi-scaled inverse trig of +0\n");
    }
    math_failed += special != 0;
    printf("special values: %d differ\n", special);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int failed = primitives(n);
    mathfns();
    printf("failed checks: %d\n", failed + math_failed);
    return failed + math_failed;
}
