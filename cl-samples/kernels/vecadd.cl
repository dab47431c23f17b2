// vecadd: c = a + b, one work-item per element, with a bounds check (n need not be a multiple of
// the work-group size).
__kernel void vecadd(__global const float *a, __global const float *b, __global float *c, uint n) {
    size_t i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
