/* Aggregates passed and returned by value (tests/cl_aggregates.rs).
 *
 * The same source is OpenCL C for the device and C for the host (clang-15 with ext_vector_type
 * typedefs standing in for OpenCL's vectors): every case `cNN(x)` must give the same int on
 * both. A callee that changes its by-value copy must never change the caller's object. Values
 * stay small so that no case overflows (no undefined behaviour for either compiler to exploit).
 */
#ifdef __OPENCL_C_VERSION__
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#include <stdio.h>
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef int int3 __attribute__((ext_vector_type(3)));
typedef float float3 __attribute__((ext_vector_type(3)));
#endif

#define NOINLINE __attribute__((noinline))
#define ALWAYS static inline __attribute__((always_inline))

/* piglit's calls-struct shape: a char and an int array (padding after the char). */
struct SC {
    char c;
    int a[4];
};

static void fill_sc(struct SC *s, int x) {
    s->c = (char)(x & 63);
    for (int i = 0; i < 4; ++i)
        s->a[i] = x + i;
}

/* Each callee twice: called (noinline), and inlined by clang. */
#define SUM_BUMPED_BODY                                                                            \
    {                                                                                              \
        s.a[0] += 100;                                                                             \
        int sum = 0;                                                                               \
        for (int i = 0; i < 4; ++i)                                                                \
            sum += s.a[i];                                                                         \
        return sum + s.c;                                                                          \
    }
NOINLINE int sum_bumped(struct SC s) SUM_BUMPED_BODY
ALWAYS int sum_bumped_inline(struct SC s) SUM_BUMPED_BODY

/* 1: piglit's case: a volatile struct, a callee that changes its copy. */
int c01(int x) {
    volatile struct SC s;
    s.c = (char)(x & 63);
    for (int i = 0; i < 4; ++i)
        s.a[i] = x + i;
    int r = sum_bumped(s);
    return r + 7 * s.a[0] + 13 * s.c;
}

/* 2: the same, not volatile. */
int c02(int x) {
    struct SC s;
    fill_sc(&s, x);
    int r = sum_bumped(s);
    return r + 7 * s.a[0] + 13 * s.c;
}

/* 3: the same, the callee inlined by clang. */
int c03(int x) {
    struct SC s;
    fill_sc(&s, x);
    int r = sum_bumped_inline(s);
    return r + 7 * s.a[0] + 13 * s.c;
}

/* Mixed members with padding between them. */
struct M {
    char c;
    short s;
    int i;
    long l;
    float f;
    uchar u;
};

static struct M make_m(int x) {
    struct M m;
    m.c = (char)(x % 100);
    m.s = (short)(x * 3);
    m.i = x - 17;
    m.l = (long)x * 1000;
    m.f = (float)x * 0.25f;
    m.u = (uchar)(x & 0xff);
    return m;
}

#define CHANGE_M_BODY                                                                              \
    {                                                                                              \
        m.c += 1;                                                                                  \
        m.s *= 2;                                                                                  \
        m.i -= 3;                                                                                  \
        m.l *= 4;                                                                                  \
        m.f *= 0.5f;                                                                               \
        m.u ^= 0xff;                                                                               \
        return m.c + m.s + m.i + m.l + (long)m.f + m.u;                                            \
    }
NOINLINE long change_m(struct M m) CHANGE_M_BODY
ALWAYS long change_m_inline(struct M m) CHANGE_M_BODY

static int fold_m(struct M m) {
    return m.c + 3 * m.s + 5 * m.i + (int)(m.l / 7) + (int)(m.f * 4.0f) + 11 * m.u;
}

/* 4: mixed members with padding. */
int c04(int x) {
    struct M m = make_m(x);
    long r = change_m(m);
    return (int)(r % 100000) + fold_m(m);
}

/* 5: the same, inlined. */
int c05(int x) {
    struct M m = make_m(x);
    long r = change_m_inline(m);
    return (int)(r % 100000) + fold_m(m);
}

/* Nested structs. */
struct In {
    char a;
    long b;
};
struct Out {
    struct In in;
    char tail;
    struct In in2;
};

NOINLINE int change_out(struct Out o) {
    o.in.b += 5;
    o.in2.a = 9;
    o.tail = (char)(o.tail * 2);
    return (int)o.in.b + o.in2.a + o.tail;
}

/* 6: nested structs. */
int c06(int x) {
    struct Out o;
    o.in.a = (char)(x & 15);
    o.in.b = x * 2;
    o.tail = (char)(x & 31);
    o.in2.a = (char)(x & 7);
    o.in2.b = -x;
    int r = change_out(o);
    return r + 3 * o.in.a + 5 * (int)o.in.b + 7 * o.tail + 11 * o.in2.a + 13 * (int)o.in2.b;
}

/* An array of structs inside a struct. */
struct P {
    short x, y;
};
struct Poly {
    int n;
    struct P p[5];
};

NOINLINE int reverse_poly(struct Poly q) {
    for (int i = 0; i < q.n / 2; ++i) {
        struct P t = q.p[i];
        q.p[i] = q.p[q.n - 1 - i];
        q.p[q.n - 1 - i] = t;
    }
    int s = 0;
    for (int i = 0; i < q.n; ++i)
        s += (i + 1) * (q.p[i].x - q.p[i].y);
    return s;
}

/* 7: an array of structs in a struct, reordered by the callee. */
int c07(int x) {
    struct Poly q;
    q.n = 5;
    for (int i = 0; i < 5; ++i) {
        q.p[i].x = (short)(x + i * i);
        q.p[i].y = (short)(i - x);
    }
    int r = reverse_poly(q);
    int s = 0;
    for (int i = 0; i < 5; ++i)
        s += (i + 1) * (q.p[i].x - q.p[i].y);
    return r * 3 + s;
}

union U {
    int i;
    float f;
    uchar c[4];
};

NOINLINE int poke_union(union U u) {
    u.c[1] = 0x7f;
    return u.i;
}

/* 8: a union, one byte changed by the callee. */
int c08(int x) {
    union U u;
    u.i = x * 977;
    int r = poke_union(u);
    return (r ^ u.i) + (u.i & 0xffff);
}

/* A union whose largest member is not its most aligned one. */
union V {
    char c;
    long l;
    short s[5];
};

NOINLINE int poke_union_v(union V v) {
    v.s[4] = 1234;
    v.l = -5;
    return v.s[4] + v.c;
}

/* 9: a union of mixed sizes. */
int c09(int x) {
    union V v;
    for (int i = 0; i < 5; ++i)
        v.s[i] = (short)(x + 100 * i);
    int r = poke_union_v(v);
    return r + v.s[0] + 2 * v.s[1] + 3 * v.s[2] + 4 * v.s[3] + 5 * v.s[4];
}

/* A 3-element vector in a struct. */
struct W {
    char c;
    int3 v;
    short t;
};

NOINLINE int change_w(struct W w) {
    w.v.y += 40;
    w.c = 1;
    w.t = (short)(w.t + w.v.z);
    return w.v.x + w.v.y + w.v.z + w.c + w.t;
}

/* 10: a vector of 3 in a struct. */
int c10(int x) {
    struct W w;
    w.c = (char)(x & 7);
    w.v.x = x;
    w.v.y = x + 1;
    w.v.z = -x;
    w.t = (short)(x * 2);
    int r = change_w(w);
    return r * 5 + w.c + w.v.x + 2 * w.v.y + 3 * w.v.z + w.t;
}

NOINLINE float change_f3(float3 v) {
    v.x += 1.0f;
    return v.x * v.y - v.z;
}

/* 11: a float3 by value. */
int c11(int x) {
    float3 v;
    v.x = (float)x;
    v.y = 2.0f;
    v.z = (float)(x & 15);
    float r = change_f3(v);
    return (int)(r + v.x * 3.0f + v.y + v.z);
}

NOINLINE int3 make_i3(int x) {
    int3 v;
    v.x = x;
    v.y = x * 2;
    v.z = x * 3;
    return v;
}

/* 12: an int3 returned by value. */
int c12(int x) {
    int3 v = make_i3(x);
    return v.x + 3 * v.y + 5 * v.z;
}

NOINLINE struct M make_m_noinline(int x) {
    return make_m(x + 1);
}

/* 13: a struct returned by value (through a hidden result pointer). */
int c13(int x) {
    struct M m = make_m_noinline(x);
    return fold_m(m);
}

NOINLINE struct SC bump_sc(struct SC s) {
    s.a[1] += 5;
    s.c--;
    return s;
}

/* 14: a struct taken and returned by value: the result is the callee's copy, the argument the
 * caller's own object. */
int c14(int x) {
    struct SC s;
    fill_sc(&s, x);
    struct SC t = bump_sc(s);
    return 3 * s.a[1] + s.c + 5 * t.a[1] + 7 * t.c;
}

NOINLINE int level2(struct SC s) {
    s.a[2] *= 3;
    return s.a[2] + s.a[0];
}

NOINLINE int level1(struct SC s) {
    s.a[0] = 7;
    int r = level2(s);
    return r * 100 + s.a[2] + s.a[0];
}

/* 15: two call levels, each changing its own copy. */
int c15(int x) {
    struct SC s;
    fill_sc(&s, x);
    return level1(s) + s.a[0] + s.a[2];
}

NOINLINE void clobber(struct SC *p) {
    p->a[3] = -1;
}

NOINLINE int through_pointer(struct SC s) {
    clobber(&s);
    return s.a[3];
}

/* 16: the callee changes its copy through a pointer it passes on. */
int c16(int x) {
    struct SC s;
    fill_sc(&s, x);
    return through_pointer(s) * 10 + s.a[3];
}

NOINLINE int two_copies(struct SC a, struct SC b) {
    a.a[0] = 1000;
    return a.a[0] + b.a[0];
}

/* 17: one object passed twice: changing the first copy leaves the second alone. */
int c17(int x) {
    struct SC s;
    fill_sc(&s, x);
    return two_copies(s, s) + s.a[0];
}

NOINLINE int bump_all(struct SC s) {
    int t = 0;
    for (int i = 0; i < 4; ++i) {
        s.a[i] += 1;
        t += s.a[i];
    }
    return t;
}

/* 18: a call in a loop, the caller changing its object between calls. */
int c18(int x) {
    struct SC s;
    fill_sc(&s, x);
    int acc = 0;
    for (int k = 0; k < 4; ++k) {
        acc += bump_all(s);
        s.a[k] += k;
    }
    return acc + s.a[0] + s.a[3];
}

struct L {
    int v[40];
};

NOINLINE int change_l(struct L l) {
    for (int i = 0; i < 40; ++i)
        l.v[i] = l.v[i] * 2 + i;
    int s = 0;
    for (int i = 0; i < 40; ++i)
        s += l.v[i];
    return s;
}

/* 19: a large struct (160 bytes). */
int c19(int x) {
    struct L l;
    for (int i = 0; i < 40; ++i)
        l.v[i] = x - i;
    int r = change_l(l);
    int s = 0;
    for (int i = 0; i < 40; ++i)
        s += (i + 1) * l.v[i];
    return r + s;
}

struct D {
    char c;
    double d;
    float f;
};

NOINLINE double change_d(struct D s) {
    s.d = s.d * 1.5 + s.c;
    s.f += 1.0f;
    return s.d + s.f;
}

/* 20: a double member (the soft-double library on the device). */
int c20(int x) {
    struct D s;
    s.c = (char)(x & 15);
    s.d = (double)x * 2.0;
    s.f = (float)x;
    double r = change_d(s);
    return (int)(r + s.d * 4.0 + s.f);
}

struct O {
    char c[7];
    short s;
};

NOINLINE int change_o(struct O o) {
    o.c[6] = 100;
    o.s = -1;
    int t = 0;
    for (int i = 0; i < 7; ++i)
        t += o.c[i];
    return t + o.s;
}

/* 21: an odd-length char array before a short. */
int c21(int x) {
    struct O o;
    for (int i = 0; i < 7; ++i)
        o.c[i] = (char)((x + i) & 63);
    o.s = (short)x;
    int r = change_o(o);
    int t = 0;
    for (int i = 0; i < 7; ++i)
        t += (i + 1) * o.c[i];
    return r * 3 + t + o.s;
}

struct __attribute__((packed)) PK {
    char c;
    int i;
    short s;
};

NOINLINE int change_pk(struct PK p) {
    p.i += 1000;
    p.s = (short)(p.s - 1);
    return p.i + p.s + p.c;
}

/* 22: a packed struct (members at unaligned offsets). */
int c22(int x) {
    struct PK p;
    p.c = (char)(x & 31);
    p.i = x * 5;
    p.s = (short)(x + 2);
    int r = change_pk(p);
    return r + 3 * p.i + 5 * p.s + 7 * p.c;
}

NOINLINE void write_out(struct SC s, int *o) {
    s.a[0] += 1;
    o[0] = s.a[0];
    o[1] = s.c;
}

/* 23: a callee writing results through a pointer after changing its copy. */
int c23(int x) {
    struct SC s;
    fill_sc(&s, x);
    int o[2];
    write_out(s, o);
    return o[0] * 3 + o[1] + s.a[0];
}

NOINLINE struct M chain2(int x) {
    struct M m = make_m_noinline(x);
    m.i += 9;
    return m;
}

/* 24: a struct returned through two levels. */
int c24(int x) {
    struct M a = chain2(x);
    struct M b = make_m_noinline(x);
    return fold_m(a) - fold_m(b) + a.i;
}

/* 25: a volatile caller object changed between two calls. */
int c25(int x) {
    volatile struct SC s;
    s.c = (char)(x & 63);
    for (int i = 0; i < 4; ++i)
        s.a[i] = x * i;
    int r = sum_bumped(s);
    s.a[0] = r;
    r += sum_bumped(s);
    return r + s.a[0];
}

struct PP {
    int *p;
    int k;
};

NOINLINE int through_member(struct PP s) {
    *s.p += s.k;
    s.p = 0;
    s.k = 99;
    return 1;
}

/* 26: a pointer member: the pointee is shared, the pointer itself is copied. */
int c26(int x) {
    int v = x;
    struct PP s;
    s.p = &v;
    s.k = 3;
    int r = through_member(s);
    return v * 10 + s.k + (s.p == &v) + r;
}

struct V3 {
    float3 v[2];
    int n;
};

NOINLINE int change_v3(struct V3 s) {
    s.v[1].z = 8.0f;
    s.n += 2;
    return (int)(s.v[0].x + s.v[1].z) + s.n;
}

/* 27: an array of 3-vectors in a struct. */
int c27(int x) {
    struct V3 s;
    s.v[0].x = (float)x;
    s.v[0].y = 1.0f;
    s.v[0].z = 2.0f;
    s.v[1].x = 3.0f;
    s.v[1].y = 4.0f;
    s.v[1].z = (float)(x & 7);
    s.n = x & 3;
    int r = change_v3(s);
    return r * 7 + (int)s.v[1].z + s.n;
}

NOINLINE int mixed_params(int a, struct SC s, char b, struct M m, short c) {
    s.a[0] = a;
    m.i = b;
    s.c = (char)c;
    return s.a[0] + m.i + s.c + s.a[1] + (int)m.l / 100;
}

/* 28: struct parameters between scalars. */
int c28(int x) {
    struct SC s;
    fill_sc(&s, x);
    struct M m = make_m(x);
    int r = mixed_params(x + 1, s, (char)(x & 15), m, (short)(x * 2));
    return r + s.a[0] + s.c + m.i;
}

#define CASES(X) \
    X(01) X(02) X(03) X(04) X(05) X(06) X(07) X(08) X(09) X(10) X(11) X(12) X(13) X(14) \
    X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28)
#define NCASES 28
#define RUN(n) out[k++] = c##n(x);

#ifdef __OPENCL_C_VERSION__
kernel void aggregates(global const int *in, global int *outs) {
    int i = get_global_id(0);
    int x = in[i];
    global int *out = outs + i * NCASES;
    int k = 0;
    CASES(RUN)
}
#else
/* Reads the inputs from stdin, prints every case's result (NCASES a line per input). */
int main(void) {
    int x;
    while (scanf("%d", &x) == 1) {
        int out[NCASES];
        int k = 0;
        CASES(RUN)
        for (int j = 0; j < NCASES; ++j)
            printf("%d%c", out[j], j + 1 == NCASES ? '\n' : ' ');
    }
    return 0;
}
#endif
