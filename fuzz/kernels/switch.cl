__kernel void sw(__global int *out, __global const long *in, uint mode) {
    int i = get_global_id(0);
    long v = in[i];
    switch ((i + mode) & 7) {
    case 0: v = v * 3; break;
    case 1: v = v >> 2; break;
    case 3: v = v / 7 + (v % 7); break;
    case 5: v = select(v, -v, (long)(v < 0)); break;
    default: v = max(v, (long)i);
    }
    out[i] = (int)v ^ (int)(v >> 32);
}
