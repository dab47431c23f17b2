// printf-debugging on the emulated Ventus device: each work-item reports what it computes.
__kernel void hello(__global const float *x, __global float *y, float a) {
    int i = get_global_id(0);
    float r = a * x[i] + y[i];
    if (i % 8 == 0)
        printf("work-item %2d of group %d: %.2f * %6.2f + %5.1f = %8.3f\n", i, (int)get_group_id(0), a, x[i], y[i], r);
    if (i == 0)
        printf("vector %v4hlf, hex %#x, string \"%s\", char %c, %e\n", (float4)(1.0f, -2.5f, 0.125f, 1e10f), 0xbeef, "ok", 'V', -0.0f);
    y[i] = r;
}
