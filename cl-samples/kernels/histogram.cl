// histogram: counts byte values. Each work-group clears a __local histogram, its work-items add
// their elements with local atomics (atomic_inc), and after a barrier the group adds its non-zero
// bins to the global histogram with atomic_add.
#define BINS 256

__kernel void histogram(__global const uchar *data, uint n, __global uint *hist) {
    __local uint local_hist[BINS];
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    for (uint b = lid; b < BINS; b += lsize)
        local_hist[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_hist[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint b = lid; b < BINS; b += lsize) {
        uint count = local_hist[b];
        if (count != 0)
            atomic_add(&hist[b], count);
    }
}
