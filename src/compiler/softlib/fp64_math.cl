
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
    if (vt_nan(m) || m == 0.0)
        return m;
    int e = __vt_f64_ilogb(VT_U(m));
    a = __vt_d_ldexp(a, -e);
    b = __vt_d_ldexp(b, -e);
    c = __vt_d_ldexp(c, -e);
    d = __vt_d_ldexp(d, -e);
    return __vt_d_ldexp(__vt_d_sqrt(a * a + b * b + c * c + d * d), e);
}
double __vt_d_normalize_comp(double x, double len) {
    if (len == 0.0)
        return x;
    return x / len;
}
double __vt_d_hypot(double x, double y) {
    if (vt_inf(x) || vt_inf(y))
        return VT_D(VT_INF);
    return __vt_d_length4(x, y, 0.0, 0.0);
}
