__kernel void atomics(__global int *counter, __global uint *hist, __global const uchar *data, __local int *lc) {
    int i = get_global_id(0);
    if (get_local_id(0) == 0) *lc = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(lc, 1);
    atomic_inc(&hist[data[i] & 15]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) atomic_max(counter, *lc);
}
