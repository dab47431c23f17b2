__kernel void math(__global float *x, __global ushort *h, float t) {
    int i = get_global_id(0);
    float a = x[i];
    float r = mad(a, t, 1.0f) + fmin(a, t) - fmax(a, 0.5f) + sqrt(fabs(a)) + floor(a) + clamp(a, -1.0f, 1.0f);
    x[i] = (a > t) ? r : -r;
    h[i] = (ushort)(rotate((uint)i, 3u) + popcount((uint)i) + clz((uint)a) + mul_hi((uint)i, 77u)) + abs(i - 3);
}
