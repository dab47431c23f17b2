__kernel void first(__global int2 *p, int n) { int i = get_global_id(0); if (i < n) p[i] = p[i].yx + (int2)(n, i); }
__kernel void second(__global char *p, __global const ulong *q) { size_t g = get_global_id(1) * get_global_size(0) + get_global_id(0); p[g] = (char)(g + q[g]); }
