typedef struct { int a; float b; short c[3]; } S;
static int helper(__global const S *s, int k) { return s->a * k + s->c[k % 3]; }
__kernel void structs(__global const S *in, __global float *out, __constant int *tab) {
    int i = get_global_id(0);
    int priv[8];
    for (int k = 0; k < 8; k++) priv[k] = helper(&in[i], k) + tab[k];
    float acc = in[i].b;
    for (int k = 0; k < 8; k++) acc += (float)priv[(k * 3 + i) & 7];
    out[i] = acc;
}
