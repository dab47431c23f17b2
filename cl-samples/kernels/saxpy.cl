// saxpy: y = a * x + y with a scalar float argument; fma() so the result is exact to the host's
// fmaf() whatever the contraction rules.
__kernel void saxpy(__global float *y, __global const float *x, float a, uint n) {
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = fma(a, x[i], y[i]);
}
