
// ---- OpenCL.std built-ins on double (`__vt_d_<name>`, called elementwise by the translator).
// Written with `double` arithmetic, which the translator lowers to the primitives above. ----

#define VT_D(u) as_double((ulong)(u))
#define VT_U(d) as_ulong(d)

double __vt_d_fma(double a, double b, double c) { return VT_D(__vt_f64_fma(VT_U(a), VT_U(b), VT_U(c))); }
double __vt_d_mad(double a, double b, double c) { return VT_D(__vt_f64_fma(VT_U(a), VT_U(b), VT_U(c))); }
double __vt_d_sqrt(double a) { return VT_D(__vt_f64_sqrt(VT_U(a))); }
double __vt_d_rint(double a) { return VT_D(__vt_f64_rint(VT_U(a), 0)); }
double __vt_d_trunc(double a) { return VT_D(__vt_f64_rint(VT_U(a), 1)); }
double __vt_d_ceil(double a) { return VT_D(__vt_f64_rint(VT_U(a), 2)); }
double __vt_d_floor(double a) { return VT_D(__vt_f64_rint(VT_U(a), 3)); }
double __vt_d_round(double a) { return VT_D(__vt_f64_rint(VT_U(a), 4)); }
double __vt_d_fmin(double a, double b) { return VT_D(__vt_f64_fmin(VT_U(a), VT_U(b))); }
double __vt_d_fmax(double a, double b) { return VT_D(__vt_f64_fmax(VT_U(a), VT_U(b))); }
double __vt_d_fmin_common(double a, double b) { return VT_D(__vt_f64_fmin(VT_U(a), VT_U(b))); }
double __vt_d_fmax_common(double a, double b) { return VT_D(__vt_f64_fmax(VT_U(a), VT_U(b))); }
double __vt_d_fclamp(double x, double lo, double hi) { return __vt_d_fmin(__vt_d_fmax(x, lo), hi); }
double __vt_d_ldexp(double a, int n) { return VT_D(__vt_f64_ldexp(VT_U(a), n)); }
int __vt_d_ilogb(double a) { return __vt_f64_ilogb(VT_U(a)); }
double __vt_d_nextafter(double a, double b) { return VT_D(__vt_f64_nextafter(VT_U(a), VT_U(b))); }
double __vt_d_fmod(double a, double b) { return VT_D(__vt_f64_fmod(VT_U(a), VT_U(b))); }
double __vt_d_remainder(double a, double b) { return VT_D(__vt_f64_remainder(VT_U(a), VT_U(b))); }
double __vt_d_remquo(double a, double b) { return VT_D(__vt_f64_remainder(VT_U(a), VT_U(b))); }
int __vt_d_remquo_q(double a, double b) { return __vt_f64_remquo_q(VT_U(a), VT_U(b)); }
double __vt_d_frexp(double a) { return VT_D(__vt_f64_frexp_mant(VT_U(a))); }
int __vt_d_frexp_exp(double a) { return __vt_f64_frexp_exp(VT_U(a)); }

static inline int vt_nan(double x) { return (VT_U(x) & ~VT_SIGN) > VT_INF; }
static inline int vt_inf(double x) { return (VT_U(x) & ~VT_SIGN) == VT_INF; }
static inline double vt_abs(double x) { return VT_D(VT_U(x) & ~VT_SIGN); }
static inline double vt_copysign(double x, double s) { return VT_D((VT_U(x) & ~VT_SIGN) | (VT_U(s) & VT_SIGN)); }

double __vt_d_fdim(double a, double b) {
    if (vt_nan(a) || vt_nan(b))
        return VT_D(VT_QNAN);
    return a > b ? a - b : 0.0;
}
double __vt_d_maxmag(double a, double b) {
    double x = vt_abs(a), y = vt_abs(b);
    return x > y ? a : y > x ? b : __vt_d_fmax(a, b);
}
double __vt_d_minmag(double a, double b) {
    double x = vt_abs(a), y = vt_abs(b);
    return x < y ? a : y < x ? b : __vt_d_fmin(a, b);
}
double __vt_d_modf(double x) {
    if (vt_inf(x))
        return vt_copysign(0.0, x);
    return vt_copysign(x - __vt_d_trunc(x), x);
}
double __vt_d_modf_int(double x) { return __vt_d_trunc(x); }
double __vt_d_fract(double x) {
    if (vt_nan(x))
        return x;
    if (vt_inf(x))
        return vt_copysign(0.0, x);
    double f = x - __vt_d_floor(x);
    return __vt_d_fmin(f, VT_D(0x3fefffffffffffffUL));
}
double __vt_d_fract_floor(double x) { return __vt_d_floor(x); }
double __vt_d_logb(double x) {
    if (vt_nan(x))
        return x;
    if (vt_inf(x))
        return vt_abs(x);
    if (x == 0.0)
        return VT_D(0xfff0000000000000UL);
    return (double)__vt_f64_ilogb(VT_U(x));
}
double __vt_d_rsqrt(double x) { return 1.0 / __vt_d_sqrt(x); }
double __vt_d_degrees(double x) { return x * 57.29577951308232; }
double __vt_d_radians(double x) { return x * 0.017453292519943295; }
double __vt_d_mix(double x, double y, double a) { return x + (y - x) * a; }
double __vt_d_step(double edge, double x) { return x < edge ? 0.0 : 1.0; }
double __vt_d_smoothstep(double e0, double e1, double x) {
    double t = __vt_d_fclamp((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}
double __vt_d_sign(double x) {
    if (vt_nan(x))
        return 0.0;
    if (x > 0.0)
        return 1.0;
    if (x < 0.0)
        return -1.0;
    return x;
}

// sqrt(a² + b² + c² + d²) without intermediate overflow or underflow.
double __vt_d_length4(double a, double b, double c, double d) {
    double m = __vt_d_fmax(__vt_d_fmax(vt_abs(a), vt_abs(b)), __vt_d_fmax(vt_abs(c), vt_abs(d)));
    if (vt_inf(a) || vt_inf(b) || vt_inf(c) || vt_inf(d))
        return VT_D(VT_INF);
    // fmax drops NaNs: any NaN component makes the length NaN (after the infinities).
    if (vt_nan(a) || vt_nan(b) || vt_nan(c) || vt_nan(d))
        return VT_D(VT_QNAN);
    if (m == 0.0)
        return m;
    int e = __vt_f64_ilogb(VT_U(m));
    a = __vt_d_ldexp(a, -e);
    b = __vt_d_ldexp(b, -e);
    c = __vt_d_ldexp(c, -e);
    d = __vt_d_ldexp(d, -e);
    return __vt_d_ldexp(__vt_d_sqrt(a * a + b * b + c * c + d * d), e);
}
// normalize(v) in two steps that avoid overflow and underflow: `__vt_d_norm_exp` gives the
// scale exponent e = ilogb(max |v_i|) (VT_NORM_INF = INT_MIN when a component is infinite: those become ±1 and
// the others 0, as the spec requires), `__vt_d_norm_len` the length of v·2^-e, and
// `__vt_d_norm_comp` one component v_i·2^-e / length. NaNs make every component NaN; a zero
// vector is returned unchanged.
#define VT_NORM_INF ((int)0x80000000)
int __vt_d_norm_exp(double a, double b, double c, double d) {
    if (vt_inf(a) || vt_inf(b) || vt_inf(c) || vt_inf(d))
        return VT_NORM_INF;
    double m = __vt_d_fmax(__vt_d_fmax(vt_abs(a), vt_abs(b)), __vt_d_fmax(vt_abs(c), vt_abs(d)));
    return m == 0.0 || vt_nan(m) ? 0 : __vt_f64_ilogb(VT_U(m));
}
static inline double vt_norm_scale(double x, int e) {
    if (e == VT_NORM_INF)
        return vt_inf(x) ? VT_D((VT_U(x) & VT_SIGN) | VT_U(1.0)) : VT_D(VT_U(x) & VT_SIGN);
    return __vt_d_ldexp(x, -e);
}
double __vt_d_norm_len(double a, double b, double c, double d) {
    if (vt_nan(a) || vt_nan(b) || vt_nan(c) || vt_nan(d))
        return VT_D(VT_QNAN);
    int e = __vt_d_norm_exp(a, b, c, d);
    a = vt_norm_scale(a, e);
    b = vt_norm_scale(b, e);
    c = vt_norm_scale(c, e);
    d = vt_norm_scale(d, e);
    return __vt_d_sqrt(a * a + b * b + c * c + d * d);
}
double __vt_d_norm_comp(double x, int e, double len) {
    if (vt_nan(len))
        return VT_D(VT_QNAN);
    if (len == 0.0)
        return x;
    return vt_norm_scale(x, e) / len;
}
double __vt_d_hypot(double x, double y) {
    if (vt_inf(x) || vt_inf(y))
        return VT_D(VT_INF);
    return __vt_d_length4(x, y, 0.0, 0.0);
}

// ---- exponentials and logarithms ----

#define VT_LN2_HI 0x1.62e42fefa39efp-1
#define VT_LN2_LO 0x1.abc9e3b39803fp-56
// Cody-Waite split of ln 2: k·VT_LN2_CW_HI is exact for |k| < 2^21.
#define VT_LN2_CW_HI 0x1.62e42fee00000p-1
#define VT_LN2_CW_LO 0x1.a39ef35793c76p-33
#define VT_LOG2E 0x1.71547652b82fep+0
#define VT_LOG2E_LO 0x1.777d0ffda0d24p-56
#define VT_LOG10E 0x1.bcb7b1526e50ep-2
#define VT_LOG10E_LO 0x1.95355baaafad3p-57
#define VT_LN10 0x1.26bb1bbb55516p+1
#define VT_LN10_LO (-0x1.f48ad494ea3e9p-53)
#define VT_LOG10_2_HI 0x1.34413509f0000p-2
#define VT_LOG10_2_LO (0x1.34413509f79ffp-2 - 0x1.34413509f0000p-2 - 0x1.9dc1da994fd21p-59)
#define VT_LOG2_10 0x1.a934f0979a371p+1
#define VT_PI 0x1.921fb54442d18p+1
#define VT_PI_LO 0x1.1a62633145c07p-53
#define VT_PIO2 0x1.921fb54442d18p+0
#define VT_PIO2_LO 0x1.1a62633145c07p-54
#define VT_INVPI 0x1.45f306dc9c883p-2

static inline double vt_mk(ulong u) { return VT_D(u); }

// e^r − 1 − r for |r| ≤ 0.35 (Taylor to r^13, remainder below 2^-57).
static double vt_expm1_tail(double r) {
    return r * r *
           (1.0 / 2 +
            r * (1.0 / 6 +
                 r * (1.0 / 24 +
                      r * (1.0 / 120 +
                           r * (1.0 / 720 +
                                r * (1.0 / 5040 +
                                     r * (1.0 / 40320 +
                                          r * (1.0 / 362880 +
                                               r * (1.0 / 3628800 +
                                                    r * (1.0 / 39916800 +
                                                         r * (1.0 / 479001600 + r * (1.0 / 6227020800.0))))))))))));
}

// 2^k · e^(rh + rl), |rh + rl| ≤ 0.35.
static double vt_exp_core(double rh, double rl, int k) {
    double r = rh + rl;
    double c = rl - (r - rh);
    double q = vt_expm1_tail(r);
    double y = 1.0 + (r + (c + (c * r + q)));
    return __vt_d_ldexp(y, k);
}

double __vt_d_exp(double x) {
    if (vt_nan(x))
        return x;
    if (x > 709.782712893384)
        return VT_D(VT_INF);
    if (x < -745.1332191019412)
        return 0.0;
    double kd = __vt_d_rint(x * VT_LOG2E);
    int k = (int)kd;
    return vt_exp_core(x - kd * VT_LN2_CW_HI, -kd * VT_LN2_CW_LO, k);
}

// e^(zh + zl) for a double-double exponent.
static double vt_exp_dd(double zh, double zl) {
    if (zh > 709.79)
        return VT_D(VT_INF);
    if (zh < -745.2)
        return 0.0;
    double kd = __vt_d_rint(zh * VT_LOG2E);
    return vt_exp_core(zh - kd * VT_LN2_CW_HI, zl - kd * VT_LN2_CW_LO, (int)kd);
}

double __vt_d_exp2(double x) {
    if (vt_nan(x))
        return x;
    if (x >= 1024.0)
        return VT_D(VT_INF);
    if (x < -1075.0)
        return 0.0;
    double kd = __vt_d_rint(x);
    double f = x - kd;
    double rh = f * VT_LN2_HI;
    double rl = __vt_d_fma(f, VT_LN2_HI, -rh) + f * VT_LN2_LO;
    return vt_exp_core(rh, rl, (int)kd);
}

double __vt_d_exp10(double x) {
    if (vt_nan(x))
        return x;
    if (x > 308.3)
        return VT_D(VT_INF);
    if (x < -324.0)
        return 0.0;
    double kd = __vt_d_rint(x * VT_LOG2_10);
    double yh = x - kd * VT_LOG10_2_HI;
    double yl = -kd * VT_LOG10_2_LO;
    double s = yh + yl;
    yl = yl - (s - yh);
    yh = s;
    double rh = yh * VT_LN10;
    double rl = __vt_d_fma(yh, VT_LN10, -rh) + (yh * VT_LN10_LO + yl * VT_LN10);
    return vt_exp_core(rh, rl, (int)kd);
}

double __vt_d_expm1(double x) {
    if (vt_nan(x))
        return x;
    if (x > 709.782712893384)
        return VT_D(VT_INF);
    if (x < -38.0)
        return -1.0;
    if (vt_abs(x) < 0x1p-54)
        return x;
    if (vt_abs(x) < 0.34657359027997264)
        return x + vt_expm1_tail(x);
    double kd = __vt_d_rint(x * VT_LOG2E);
    int k = (int)kd;
    double rh = x - kd * VT_LN2_CW_HI, rl = -kd * VT_LN2_CW_LO;
    double r = rh + rl;
    double c = rl - (r - rh);
    double t = r + (c + (c * r + vt_expm1_tail(r))); // e^(rh+rl) − 1
    if (k > 53)
        return __vt_d_ldexp(1.0 + t, k) - 1.0;
    return (__vt_d_ldexp(1.0, k) - 1.0) + __vt_d_ldexp(t, k);
}

// log(x) for finite x > 0 as a double-double hi + *lo.
static double vt_log_dd(double x, double *lo) {
    ulong u = VT_U(x);
    int k = 0;
    if ((u >> 52) == 0) {
        u = VT_U(x * 0x1p54);
        k = -54;
    }
    k += (int)(u >> 52) - 1023;
    ulong mu = (u & VT_FRAC) | 0x3ff0000000000000UL;
    if (mu > 0x3ff6a09e667f3bcdUL) {
        mu -= 0x0010000000000000UL;
        k += 1;
    }
    double f = VT_D(mu) - 1.0;
    double dh = 2.0 + f;
    double dl = f - (dh - 2.0);
    double sh = f / dh;
    double sl = (__vt_d_fma(-sh, dh, f) - sh * dl) / dh;
    double z = sh * sh;
    double R = z * (1.0 / 3 +
                    z * (1.0 / 5 +
                         z * (1.0 / 7 +
                              z * (1.0 / 9 +
                                   z * (1.0 / 11 +
                                        z * (1.0 / 13 +
                                             z * (1.0 / 15 +
                                                  z * (1.0 / 17 +
                                                       z * (1.0 / 19 + z * (1.0 / 21 + z * (1.0 / 23 + z * (1.0 / 25))))))))))));
    double Lh = 2.0 * sh;
    double Ll = 2.0 * sl + Lh * R;
    double kd = (double)k;
    double A = kd * VT_LN2_CW_HI;
    double S = A + Lh;
    double err = vt_abs(A) > vt_abs(Lh) ? Lh - (S - A) : A - (S - Lh);
    double l = err + (kd * VT_LN2_CW_LO + Ll);
    double h = S + l;
    *lo = l - (h - S);
    return h;
}

// Special values shared by the logarithms; returns 1 when *out is the answer.
static int vt_log_special(double x, double *out) {
    if (vt_nan(x)) {
        *out = x;
        return 1;
    }
    if (x == 0.0) {
        *out = VT_D(0xfff0000000000000UL);
        return 1;
    }
    if (x < 0.0) {
        *out = VT_D(VT_QNAN);
        return 1;
    }
    if (vt_inf(x)) {
        *out = x;
        return 1;
    }
    return 0;
}

double __vt_d_log(double x) {
    double r, lo;
    if (vt_log_special(x, &r))
        return r;
    return vt_log_dd(x, &lo);
}

static double vt_log_scaled(double x, double ch, double cl) {
    double r, lo;
    if (vt_log_special(x, &r))
        return r;
    double h = vt_log_dd(x, &lo);
    double p = h * ch;
    double e = __vt_d_fma(h, ch, -p) + (h * cl + lo * ch);
    return p + e;
}

double __vt_d_log2(double x) { return vt_log_scaled(x, VT_LOG2E, VT_LOG2E_LO); }
double __vt_d_log10(double x) { return vt_log_scaled(x, VT_LOG10E, VT_LOG10E_LO); }

double __vt_d_log1p(double x) {
    if (vt_nan(x))
        return x;
    if (x == -1.0)
        return VT_D(0xfff0000000000000UL);
    if (x < -1.0)
        return VT_D(VT_QNAN);
    if (vt_inf(x))
        return x;
    if (vt_abs(x) < 0x1p-54)
        return x;
    double u = 1.0 + x;
    double c = vt_abs(x) < 1.0 ? x - (u - 1.0) : 1.0 - (u - x);
    double lo;
    double h = vt_log_dd(u, &lo);
    return h + (lo + c / u);
}

// ---- powers ----

// 0: not an integer, 1: odd integer, 2: even integer (finite y).
static int vt_int_kind(double y) {
    ulong u = VT_U(y) & ~VT_SIGN;
    if (u == 0)
        return 2;
    int e = (int)(u >> 52) - 1023;
    if (e < 0)
        return 0;
    if (e >= 53)
        return 2;
    ulong m = (u & VT_FRAC) | VT_HIDDEN;
    uint fb = (uint)(52 - e);
    if (fb > 0 && (m & ((1UL << fb) - 1)) != 0)
        return 0;
    return ((m >> fb) & 1) ? 1 : 2;
}

// |x|^y for finite nonzero x, with y·log|x| in double-double.
static double vt_pow_core(double ax, double y) {
    double ll;
    double lh = vt_log_dd(ax, &ll);
    double zh = y * lh;
    double zl = __vt_d_fma(y, lh, -zh) + y * ll;
    return vt_exp_dd(zh, zl);
}

double __vt_d_pow(double x, double y) {
    if (y == 0.0 || x == 1.0)
        return 1.0;
    if (vt_nan(x) || vt_nan(y))
        return VT_D(VT_QNAN);
    double ax = vt_abs(x);
    if (vt_inf(y)) {
        if (ax == 1.0)
            return 1.0;
        return (ax < 1.0) == (y < 0.0) ? VT_D(VT_INF) : 0.0;
    }
    int kind = vt_int_kind(y);
    int neg = x < 0.0 || (x == 0.0 && (VT_U(x) >> 63));
    double sgn = (neg && kind == 1) ? -1.0 : 1.0;
    if (x == 0.0 || vt_inf(x)) {
        int big = vt_inf(x) ? y > 0.0 : y < 0.0;
        return big ? vt_copysign(VT_D(VT_INF), sgn) : vt_copysign(0.0, sgn);
    }
    if (x < 0.0 && kind == 0)
        return VT_D(VT_QNAN);
    double r = vt_pow_core(ax, y);
    return sgn < 0.0 ? -r : r;
}

double __vt_d_pown(double x, int n) { return __vt_d_pow(x, (double)n); }

double __vt_d_powr(double x, double y) {
    if (vt_nan(x) || vt_nan(y) || x < 0.0)
        return VT_D(VT_QNAN);
    if (x == 0.0 && y == 0.0)
        return VT_D(VT_QNAN);
    if (vt_inf(x) && y == 0.0)
        return VT_D(VT_QNAN);
    if (x == 1.0 && vt_inf(y))
        return VT_D(VT_QNAN);
    // powr(±0, y): +inf for y < 0, +0 for y > 0 (no odd-integer sign rule, unlike pow).
    if (x == 0.0)
        return y < 0.0 ? VT_D(VT_INF) : 0.0;
    return __vt_d_pow(x, y);
}

// x^(1/n) with log|x| / n in double-double.
double __vt_d_rootn(double x, int n) {
    if (n == 0 || vt_nan(x))
        return VT_D(VT_QNAN);
    int odd = n & 1;
    if (x < 0.0 && !odd)
        return VT_D(VT_QNAN);
    double sgn = (odd && (VT_U(x) >> 63)) ? -1.0 : 1.0;
    if (x == 0.0)
        return n < 0 ? vt_copysign(VT_D(VT_INF), sgn) : vt_copysign(0.0, sgn);
    if (vt_inf(x))
        return n < 0 ? vt_copysign(0.0, sgn) : vt_copysign(VT_D(VT_INF), sgn);
    double ll;
    double lh = vt_log_dd(vt_abs(x), &ll);
    double nd = (double)n;
    double zh = lh / nd;
    double zl = (__vt_d_fma(-zh, nd, lh) + ll) / nd;
    double r = vt_exp_dd(zh, zl);
    return sgn < 0.0 ? -r : r;
}

double __vt_d_cbrt(double x) {
    if (vt_nan(x) || vt_inf(x) || x == 0.0)
        return x;
    double r = __vt_d_rootn(vt_abs(x), 3);
    // One Newton step on r³ = |x| with the residual computed exactly (fma).
    double r2 = r * r;
    double e2 = __vt_d_fma(r, r, -r2);
    double r3 = r2 * r;
    double e3 = __vt_d_fma(r2, r, -r3) + e2 * r;
    double res = (r3 - vt_abs(x)) + e3;
    r = r - res / (3.0 * r2);
    return vt_copysign(r, x);
}

// ---- trigonometry ----

// Bits of 2/π (1344 bits): word 0 holds the first 64 bits after the binary point.
__constant ulong vt_two_over_pi[21] = {
    0xa2f9836e4e441529UL, 0xfc2757d1f534ddc0UL, 0xdb6295993c439041UL, 0xfe5163abdebbc561UL,
    0xb7246e3a424dd2e0UL, 0x06492eea09d1921cUL, 0xfe1deb1cb129a73eUL, 0xe88235f52ebb4484UL,
    0xe99c7026b45f7e41UL, 0x3991d639835339f4UL, 0x9c845f8bbdf9283bUL, 0x1ff897ffde05980fUL,
    0xef2f118b5a0a6d1fUL, 0x6d367ecf27cb09b7UL, 0x4f463f669e5fea2dUL, 0x7527bac7ebe5f17bUL,
    0x3d0739f78a5292eaUL, 0x6bfb5fb11f8d5d08UL, 0x56033046fc7b6babUL, 0xf0cfbc209af4361dUL,
    0xa9e391615ee61b08UL};

// 64 bits of 2/π starting `bo` bits into word `i` of the table.
static ulong vt_two_over_pi_word(int i, int bo) {
    ulong a = vt_two_over_pi[i], b = vt_two_over_pi[i + 1];
    return bo == 0 ? a : (a << bo) | (b >> (64 - bo));
}

static inline ulong vt_word(ulong p0, ulong p1, ulong p2, ulong p3, int i) {
    return i == 0 ? p0 : i == 1 ? p1 : i == 2 ? p2 : i == 3 ? p3 : 0;
}

// 64 bits of the 256-bit p3:p2:p1:p0 starting at bit `pos` (0 ≤ pos ≤ 192).
static inline ulong vt_bits(ulong p0, ulong p1, ulong p2, ulong p3, int pos) {
    int w = pos >> 6, b = pos & 63;
    ulong lo = vt_word(p0, p1, p2, p3, w);
    if (b == 0)
        return lo;
    return (lo >> b) | (vt_word(p0, p1, p2, p3, w + 1) << (64 - b));
}

// Payne-Hanek reduction: x = q·π/2 + (*rh + *rl) with |rh| ≤ π/4; returns q mod 4. Integer
// arithmetic on 192 bits of 2/π, exact for every finite x.
static int vt_rem_pio2(double x, double *rh, double *rl) {
    ulong u = VT_U(x);
    if ((u & ~VT_SIGN) <= 0x3fe921fb54442d18UL) {
        *rh = x;
        *rl = 0.0;
        return 0;
    }
    int ex = (int)((u >> 52) & 0x7ff);
    ulong m = (u & VT_FRAC) | VT_HIDDEN;
    int e = ex - 1075; // |x| = m · 2^e
    int s = e - 1 > 1 ? e - 1 : 1;
    int wi = (s - 1) >> 6, bo = (s - 1) & 63;
    // Three words, not a private array: the uniform variant keeps them in scalar registers.
    ulong w0 = vt_two_over_pi_word(wi, bo), w1 = vt_two_over_pi_word(wi + 1, bo), w2 = vt_two_over_pi_word(wi + 2, bo);
    vt_u128 t2 = vt_mul64(m, w2), t1 = vt_mul64(m, w1), t0 = vt_mul64(m, w0);
    ulong p0 = t2.lo;
    ulong p1 = t2.hi + t1.lo;
    ulong c1 = p1 < t1.lo;
    ulong p2a = t1.hi + t0.lo;
    ulong c2 = p2a < t0.lo;
    ulong p2 = p2a + c1;
    c2 += p2 < c1;
    ulong p3 = t0.hi + c2;
    int k = s + 191 - e; // fraction bits of the product
    uint q = (uint)vt_bits(p0, p1, p2, p3, k) & 3;
    ulong f1 = vt_bits(p0, p1, p2, p3, k - 64);
    ulong f0 = vt_bits(p0, p1, p2, p3, k - 128);
    int negf = 0;
    if (f1 >> 63) {
        // Fraction ≥ 1/2: take f − 1 (negative) and the next quadrant.
        q += 1;
        f0 = ~f0 + 1;
        f1 = ~f1 + (ulong)(f0 == 0);
        negf = 1;
    }
    int lz;
    if (f1 == 0) {
        f1 = f0;
        f0 = 0;
        lz = 64 + (int)vt_clz64(f1);
        f1 <<= (lz - 64);
    } else {
        lz = (int)vt_clz64(f1);
        if (lz != 0) {
            f1 = (f1 << lz) | (f0 >> (64 - lz));
            f0 <<= lz;
        }
    }
    // f = (f1·2^64 + f0) · 2^(-128-lz); hi takes 53 bits, lo the next 64.
    ulong hi53 = f1 >> 11;
    ulong rest = (f1 << 53) | (f0 >> 11);
    double fh = VT_D(((ulong)(1023 - 53 - lz + 52) << 52) | (hi53 & VT_FRAC));
    double fl = __vt_d_ldexp((double)rest, -117 - lz);
    double r = fh * VT_PIO2;
    double re = __vt_d_fma(fh, VT_PIO2, -r) + (fh * VT_PIO2_LO + fl * VT_PIO2);
    double sum = r + re;
    re = re - (sum - r);
    r = sum;
    if (negf) {
        r = -r;
        re = -re;
    }
    if (u >> 63) {
        r = -r;
        re = -re;
        q = 0u - q;
    }
    *rh = r;
    *rl = re;
    return (int)(q & 3);
}

// sin(x + y) and cos(x + y) for |x| ≤ π/4, |y| ≤ ulp(x) (Taylor to x^19 / x^20).
static double vt_sin_k(double x, double y) {
    double z = x * x;
    double p = z * (1.0 / 120 +
                    z * (-1.0 / 5040 +
                         z * (1.0 / 362880 +
                              z * (-1.0 / 39916800 +
                                   z * (1.0 / 6227020800.0 +
                                        z * (-1.0 / 1307674368000.0 +
                                             z * (1.0 / 355687428096000.0 + z * (-1.0 / 121645100408832000.0))))))));
    return x + (x * z * (-1.0 / 6 + p) + y * (1.0 - 0.5 * z));
}

static double vt_cos_k(double x, double y) {
    double z = x * x;
    double r = z * z *
               (1.0 / 24 +
                z * (-1.0 / 720 +
                     z * (1.0 / 40320 +
                          z * (-1.0 / 3628800 +
                               z * (1.0 / 479001600 +
                                    z * (-1.0 / 87178291200.0 +
                                         z * (1.0 / 20922789888000.0 +
                                              z * (-1.0 / 6402373705728000.0 + z * (1.0 / 2432902008176640000.0)))))))));
    double hz = 0.5 * z;
    double w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + (r - x * y));
}

double __vt_d_sin(double x) {
    if (vt_nan(x) || vt_inf(x))
        return VT_D(VT_QNAN);
    if (vt_abs(x) < 0x1p-27)
        return x;
    double h, l;
    int q = vt_rem_pio2(x, &h, &l);
    double r = (q & 1) ? vt_cos_k(h, l) : vt_sin_k(h, l);
    return (q & 2) ? -r : r;
}

double __vt_d_cos(double x) {
    if (vt_nan(x) || vt_inf(x))
        return VT_D(VT_QNAN);
    double h, l;
    int q = vt_rem_pio2(x, &h, &l);
    double r = (q & 1) ? vt_sin_k(h, l) : vt_cos_k(h, l);
    return ((q + 1) & 2) ? -r : r;
}

double __vt_d_sincos(double x) { return __vt_d_sin(x); }

double __vt_d_tan(double x) {
    if (vt_nan(x) || vt_inf(x))
        return VT_D(VT_QNAN);
    double h, l;
    int q = vt_rem_pio2(x, &h, &l);
    if (h == 0.0)
        return x;
    double s = vt_sin_k(h, l), c = vt_cos_k(h, l);
    return (q & 1) ? -c / s : s / c;
}

// sin(πx), cos(πx), tan(πx): x reduced exactly modulo 2 first.
static int vt_rem_half(double x, double *rh, double *rl) {
    double ax = vt_abs(x);
    // ax mod 2 (exact), then the nearest multiple of 1/2.
    double m = ax >= 0x1p53 ? 0.0 : ax - 2.0 * __vt_d_floor(ax * 0.5);
    double k = __vt_d_rint(m * 2.0);
    double f = m - k * 0.5; // |f| ≤ 1/4, exact
    double h = f * VT_PI;
    double l = __vt_d_fma(f, VT_PI, -h) + f * VT_PI_LO;
    int q = (int)k;
    if (VT_U(x) >> 63) {
        h = -h;
        l = -l;
        q = -q;
    }
    *rh = h;
    *rl = l;
    return q & 3;
}

double __vt_d_sinpi(double x) {
    if (vt_nan(x) || vt_inf(x))
        return VT_D(VT_QNAN);
    double h, l;
    int q = vt_rem_half(x, &h, &l);
    double r = (q & 1) ? vt_cos_k(h, l) : vt_sin_k(h, l);
    r = (q & 2) ? -r : r;
    return r == 0.0 ? vt_copysign(0.0, x) : r;
}

double __vt_d_cospi(double x) {
    if (vt_nan(x) || vt_inf(x))
        return VT_D(VT_QNAN);
    double h, l;
    int q = vt_rem_half(x, &h, &l);
    double r = (q & 1) ? vt_sin_k(h, l) : vt_cos_k(h, l);
    r = ((q + 1) & 2) ? -r : r;
    return r == 0.0 ? 0.0 : r;
}

double __vt_d_tanpi(double x) {
    if (vt_nan(x) || vt_inf(x))
        return VT_D(VT_QNAN);
    double h, l;
    int q = vt_rem_half(x, &h, &l);
    if (h == 0.0) {
        // Integers: ±0 by parity of the quadrant pair; half-integers: ±inf.
        // n + 1/2: +inf for even n (quadrant 1), -inf for odd n (quadrant 3).
        if (q & 1)
            return (q & 2) ? VT_D(0xfff0000000000000UL) : VT_D(VT_INF);
        return vt_copysign(0.0, (q & 2) ? -x : x);
    }
    double s = vt_sin_k(h, l), c = vt_cos_k(h, l);
    return (q & 1) ? -c / s : s / c;
}

// atan(t) for |t| ≤ 0.14 (Taylor to t^21).
static double vt_atan_k(double t) {
    double z = t * t;
    return t + t * z *
                   (-1.0 / 3 +
                    z * (1.0 / 5 +
                         z * (-1.0 / 7 +
                              z * (1.0 / 9 +
                                   z * (-1.0 / 11 +
                                        z * (1.0 / 13 + z * (-1.0 / 15 + z * (1.0 / 17 + z * (-1.0 / 19 + z * (1.0 / 21))))))))));
}

// atan(|x|) as k·π/12 + atan(t), |t| ≤ tan(π/24).
static double vt_atan_pos(double a) {
    if (a > 7.595754112725151) {
        // π/2 − atan(1/a)
        double t = 1.0 / a;
        return VT_PIO2 + (VT_PIO2_LO - vt_atan_k(t));
    }
    int k = a < 0.13165249758739583 ? 0 : a < 0.41421356237309503 ? 1 : a < 0.7673269879789604 ? 2
            : a < 1.3032253728412058 ? 3 : a < 2.414213562373095 ? 4 : 5;
    double c = k == 0 ? 0.0 : k == 1 ? 0.2679491924311227 : k == 2 ? 0.5773502691896257
               : k == 3 ? 1.0 : k == 4 ? 1.7320508075688772 : 3.7320508075688772;
    double t = (a - c) / (1.0 + a * c);
    double base = (double)k * 0x1.0c152382d7366p-2;
    double base_lo = (double)k * -0x1.ee6913347c2a6p-56;
    return base + (base_lo + vt_atan_k(t));
}

double __vt_d_atan(double x) {
    if (vt_nan(x))
        return x;
    if (vt_abs(x) < 0x1p-28)
        return x;
    return vt_copysign(vt_atan_pos(vt_abs(x)), x);
}

double __vt_d_atan2(double y, double x) {
    if (vt_nan(x) || vt_nan(y))
        return VT_D(VT_QNAN);
    int sx = (int)(VT_U(x) >> 63);
    double ay = vt_abs(y), ax = vt_abs(x);
    double r;
    if (ay == 0.0)
        r = sx ? VT_PI : 0.0;
    else if (ax == 0.0)
        r = VT_PIO2;
    else if (vt_inf(ax) && vt_inf(ay))
        r = sx ? 3.0 * VT_PIO2 / 2.0 : VT_PIO2 / 2.0;
    else if (vt_inf(ax))
        r = sx ? VT_PI : 0.0;
    else if (vt_inf(ay))
        r = VT_PIO2;
    else {
        double q = ay / ax;
        double a = (q == 0.0) ? 0.0 : vt_atan_pos(q);
        if (ay > ax && ax < ay * 0x1p-60)
            a = VT_PIO2;
        r = sx ? VT_PI + (VT_PI_LO - a) : a;
        if (sx && q == 0.0)
            r = VT_PI;
    }
    return vt_copysign(r, y);
}

double __vt_d_asin(double x) {
    if (vt_nan(x) || vt_abs(x) > 1.0)
        return VT_D(VT_QNAN);
    if (vt_abs(x) < 0x1p-28)
        return x;
    double a = vt_abs(x);
    double c = __vt_d_sqrt((1.0 - a) * (1.0 + a));
    return vt_copysign(__vt_d_atan2(a, c), x);
}

double __vt_d_acos(double x) {
    if (vt_nan(x) || vt_abs(x) > 1.0)
        return VT_D(VT_QNAN);
    double s = __vt_d_sqrt((1.0 - x) * (1.0 + x));
    return __vt_d_atan2(s, x);
}

// a / pi in double-double: the product's sign is a's (the fma tail of a zero would make -0 into +0).
static double vt_mul_invpi(double a) {
    double h = a * VT_INVPI;
    return vt_copysign(h + (__vt_d_fma(a, VT_INVPI, -h) + a * -0x1.6b01ec5417056p-56), a);
}
double __vt_d_asinpi(double x) { return vt_mul_invpi(__vt_d_asin(x)); }
double __vt_d_acospi(double x) { return vt_mul_invpi(__vt_d_acos(x)); }
double __vt_d_atanpi(double x) { return vt_mul_invpi(__vt_d_atan(x)); }
double __vt_d_atan2pi(double y, double x) { return vt_mul_invpi(__vt_d_atan2(y, x)); }

// ---- hyperbolic ----

// sinh, cosh and tanh each evaluate one expm1 (every call is inlined: one is far smaller than
// an expm1 and an exp on separate branches).
double __vt_d_sinh(double x) {
    if (vt_nan(x) || vt_inf(x))
        return x;
    double a = vt_abs(x);
    if (a < 0x1p-28)
        return x;
    int big = a >= 22.0;
    double t = __vt_d_expm1(big ? 0.5 * a : a);
    double r = big ? (0.5 * (t + 1.0)) * (t + 1.0) : 0.5 * (t + t / (t + 1.0));
    return vt_copysign(r, x);
}

double __vt_d_cosh(double x) {
    if (vt_nan(x))
        return x;
    double a = vt_abs(x);
    if (vt_inf(a))
        return a;
    int big = a >= 22.0;
    double t = __vt_d_expm1(big ? 0.5 * a : a);
    double e = t + 1.0;
    if (big)
        return (0.5 * e) * e;
    if (a < 0.34657359027997264)
        return 1.0 + (t * t) / (2.0 * e);
    return 0.5 * e + 0.5 / e;
}

double __vt_d_tanh(double x) {
    if (vt_nan(x))
        return x;
    double a = vt_abs(x);
    if (a < 0x1p-28)
        return x;
    if (a > 22.0)
        return vt_copysign(1.0, x);
    int ge1 = a >= 1.0;
    double t = __vt_d_expm1(ge1 ? 2.0 * a : -2.0 * a);
    double r = ge1 ? 1.0 - 2.0 / (t + 2.0) : -t / (t + 2.0);
    return vt_copysign(r, x);
}

double __vt_d_asinh(double x) {
    if (vt_nan(x) || vt_inf(x))
        return x;
    double a = vt_abs(x);
    double r;
    if (a < 0x1p-28)
        return x;
    if (a > 0x1p28)
        r = __vt_d_log(a) + VT_LN2_HI;
    else if (a > 2.0)
        r = __vt_d_log(2.0 * a + 1.0 / (__vt_d_sqrt(a * a + 1.0) + a));
    else
        r = __vt_d_log1p(a + a * a / (1.0 + __vt_d_sqrt(1.0 + a * a)));
    return vt_copysign(r, x);
}

double __vt_d_acosh(double x) {
    if (vt_nan(x) || x < 1.0)
        return VT_D(VT_QNAN);
    if (vt_inf(x))
        return x;
    if (x > 0x1p28)
        return __vt_d_log(x) + VT_LN2_HI;
    if (x > 2.0)
        return __vt_d_log(2.0 * x - 1.0 / (x + __vt_d_sqrt(x * x - 1.0)));
    double t = x - 1.0;
    return __vt_d_log1p(t + __vt_d_sqrt(2.0 * t + t * t));
}

double __vt_d_atanh(double x) {
    if (vt_nan(x) || vt_abs(x) > 1.0)
        return VT_D(VT_QNAN);
    double a = vt_abs(x);
    if (a == 1.0)
        return vt_copysign(VT_D(VT_INF), x);
    if (a < 0x1p-28)
        return x;
    double r = a < 0.5 ? 0.5 * __vt_d_log1p(2.0 * a + 2.0 * a * a / (1.0 - a)) : 0.5 * __vt_d_log1p(2.0 * a / (1.0 - a));
    return vt_copysign(r, x);
}

// ---- error function ----

#define VT_2_SQRTPI 0x1.20dd750429b6dp+0

// e^(−x²) with x² in double-double.
static double vt_exp_negsq(double x) {
    double h = x * x;
    double l = __vt_d_fma(x, x, -h);
    return vt_exp_dd(-h, -l);
}

// erfc on [0.5, 3): g(x) = e^(x²)·erfc(x) is entire and smooth; its Taylor series at the nearest
// x0 ∈ {0.75, 1.25, …, 2.75} follows g' = 2x·g − 2/√π, g^(n+1) = 2x·g^(n) + 2n·g^(n−1).
static double vt_erfc_mid(double x) {
    int j = (int)((x - 0.5) * 2.0);
    j = j < 0 ? 0 : j > 4 ? 4 : j;
    double x0 = 0.75 + 0.5 * (double)j;
    double g0 = j == 0 ? 0x1.038d54ea3d834p-1 : j == 1 ? 0x1.78a692138767ap-2 : j == 2 ? 0x1.23cfc2f1dc7e0p-2
                : j == 3 ? 0x1.d94446d627932p-3 : 0x1.8c9eb68ff27d7p-3;
    double h = x - x0;
    double gp = g0, gn = 2.0 * x0 * g0 - VT_2_SQRTPI; // g^(n−1), g^(n)
    double t = h;                                       // h^n / n!
    double s = t * gn;
#pragma unroll 1
    for (int n = 1; n < 30; n++) {
        double next = 2.0 * x0 * gn + 2.0 * (double)n * gp;
        gp = gn;
        gn = next;
        t = t * h / (double)(n + 1);
        s = s + t * gn;
    }
    return (g0 + s) * vt_exp_negsq(x);
}

// erfc for x ≥ 3: continued fraction (backward), e^(−x²)/(√π · t).
static double vt_erfc_big(double x) {
    if (x > 27.3)
        return 0.0;
    double t = x;
#pragma unroll 1
    for (int k = 60; k >= 1; k--)
        t = x + (0.5 * (double)k) / t;
    return vt_exp_negsq(x) * (0.5 * VT_2_SQRTPI) / t;
}

// erf for |x| < 0.5: Taylor series.
static double vt_erf_small(double x) {
    if (vt_abs(x) < 0x1p-60)
        return x * VT_2_SQRTPI;
    double z = x * x;
    double term = x, s = 0.0;
#pragma unroll 1
    for (int n = 1; n <= 18; n++) {
        term = term * -z / (double)n;
        s = s + term / (double)(2 * n + 1);
    }
    return VT_2_SQRTPI * (x + s);
}

double __vt_d_erf(double x) {
    if (vt_nan(x))
        return x;
    double a = vt_abs(x);
    double r;
    if (a < 0.5)
        return vt_erf_small(x);
    else if (a < 3.0)
        r = 1.0 - vt_erfc_mid(a);
    else if (a < 6.0)
        r = 1.0 - vt_erfc_big(a);
    else
        r = 1.0;
    return vt_copysign(r, x);
}

double __vt_d_erfc(double x) {
    if (vt_nan(x))
        return x;
    double a = vt_abs(x);
    double r;
    if (a < 0.5)
        return 1.0 - vt_erf_small(x);
    if (a < 3.0)
        r = vt_erfc_mid(a);
    else
        r = vt_erfc_big(a);
    return (VT_U(x) >> 63) ? 2.0 - r : r;
}

// ---- gamma ----

// log Γ(y) for y ≥ 12 as double-double (Stirling series).
static double vt_lgamma_big(double y, double *lo) {
    double ll;
    double lh = vt_log_dd(y, &ll);
    double a = y - 0.5;
    double ph = a * lh;
    double pl = __vt_d_fma(a, lh, -ph) + a * ll;
    // (y − ½)·log y − y + log √(2π) + S(y)
    double s = ph - y;
    double e = (ph - s) - y; // ph ≥ y: exact error of s
    double iy = 1.0 / y, iz = iy * iy;
    double S = iy * (1.0 / 12 +
                     iz * (-1.0 / 360 +
                           iz * (1.0 / 1260 +
                                 iz * (-1.0 / 1680 +
                                       iz * (1.0 / 1188 + iz * (-691.0 / 360360 + iz * (1.0 / 156 + iz * (-3617.0 / 122400))))))));
    double l = pl + e + (-0x1.65b5a1b7ff5dfp-55 + S);
    double h = s + 0x1.d67f1c864beb5p-1;
    double err = 0x1.d67f1c864beb5p-1 - (h - s);
    l += err;
    double r = h + l;
    *lo = l - (r - h);
    return r;
}

// Γ(xh + xl) for 0 < xh (xl a small correction to the argument): shifted up to ≥ 12 with the
// factors and the shifted argument in double-double, then Stirling.
static double vt_tgamma_pos(double xh, double xl) {
    if (xh > 171.62437695630272)
        return VT_D(VT_INF);
    if (xh < 0x1p-54)
        return 1.0 / xh;
    double ph = 1.0, pl = 0.0, yh = xh, yl = xl;
    while (yh < 12.0) {
        double m = ph * yh;
        double e = __vt_d_fma(ph, yh, -m) + (ph * yl + pl * yh);
        ph = m + e;
        pl = e - (ph - m);
        double s = yh + 1.0;
        yl += yh >= 1.0 ? 1.0 - (s - yh) : yh - (s - 1.0);
        yh = s;
    }
    double lo;
    double h = vt_lgamma_big(yh, &lo);
    // log Γ(yh + yl) ≈ log Γ(yh) + yl·ψ(yh), ψ(y) ≈ log y − 1/(2y) − 1/(12y²).
    lo += yl * (__vt_d_log(yh) - 0.5 / yh - 1.0 / (12.0 * yh * yh));
    double g = vt_exp_dd(h, lo);
    return (g / ph) * (1.0 - pl / ph);
}

double __vt_d_tgamma(double x) {
    if (vt_nan(x))
        return x;
    if (x == 0.0)
        return vt_copysign(VT_D(VT_INF), x);
    if (vt_inf(x))
        return x > 0.0 ? x : VT_D(VT_QNAN);
    if (x > 0.0)
        return vt_tgamma_pos(x, 0.0);
    if (vt_int_kind(x) != 0)
        return VT_D(VT_QNAN);
    // Reflection: Γ(x) = π / (sin(πx) · Γ(1 − x)), with 1 − x in double-double.
    double s = __vt_d_sinpi(x);
    if (x < -184.0)
        return vt_copysign(0.0, s);
    double yh = 1.0 - x;
    double bb = yh - 1.0;
    double yl = (1.0 - (yh - bb)) + (-x - bb);
    if (yh > 171.62437695630272) {
        // Γ(1 − x) overflows: divide by its square root twice.
        double lo;
        double h = vt_lgamma_big(yh, &lo);
        lo += yl * (__vt_d_log(yh) - 0.5 / yh);
        double hg = vt_exp_dd(0.5 * h, 0.5 * lo);
        return (VT_PI / (s * hg)) / hg;
    }
    return VT_PI / (s * vt_tgamma_pos(yh, yl));
}

static double vt_lgamma_pos(double x) {
    if (vt_inf(x) || x > 0x1p1014)
        return VT_D(VT_INF);
    if (x < 0x1p-70)
        return -__vt_d_log(x);
    double p = 1.0;
    double y = x;
    while (y < 12.0) {
        p *= y;
        y += 1.0;
    }
    double lo;
    double h = vt_lgamma_big(y, &lo);
    if (x >= 12.0)
        return h + lo;
    return (h - __vt_d_log(p)) + lo;
}

double __vt_d_lgamma(double x) {
    if (vt_nan(x))
        return x;
    if (vt_inf(x))
        return VT_D(VT_INF);
    if (x > 0.0)
        return vt_lgamma_pos(x);
    if (x == 0.0 || vt_int_kind(x) != 0)
        return VT_D(VT_INF);
    if (x > -0x1p-70)
        return -__vt_d_log(-x);
    // log|Γ(x)| = log(π / |sin(πx)|) − log Γ(1 − x)
    double s = vt_abs(__vt_d_sinpi(x));
    return __vt_d_log(VT_PI / s) - vt_lgamma_pos(1.0 - x);
}

double __vt_d_lgamma_r(double x) { return __vt_d_lgamma(x); }

int __vt_d_lgamma_sign(double x) {
    if (vt_nan(x))
        return 0;
    if (x > 0.0 || vt_inf(x))
        return 1;
    if (x == 0.0)
        return (VT_U(x) >> 63) ? -1 : 1;
    if (vt_int_kind(x) != 0)
        return 0;
    return __vt_d_sinpi(x) < 0.0 ? -1 : 1;
}
