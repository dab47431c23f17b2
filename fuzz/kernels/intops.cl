__kernel void intops(__global int *a, __global int *out) {
    int i = get_global_id(0); int x = a[i]; int r;
    if (x < 0) r = -x * 3; else if (x % 5 == 0) r = x / 5; else r = (x << 2) ^ 0x55;
    out[i] = r + (x >> 3) - (int)((unsigned)x >> 28);
}
