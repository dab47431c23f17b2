// matmul: C (M x N) = A (M x K) * B (K x N), row-major, TILE x TILE work-groups that stage tiles of
// A and B in __local memory. M, N and K need not be multiples of TILE: out-of-range tile elements
// are loaded as 0 and out-of-range results are not stored. TILE can be set with -DTILE=n.
#ifndef TILE
#define TILE 16
#endif

__kernel void matmul(__global const float *A, __global const float *B, __global float *C,
                     uint M, uint N, uint K) {
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    const uint tx = get_local_id(0), ty = get_local_id(1);
    const uint col = get_group_id(0) * TILE + tx;
    const uint row = get_group_id(1) * TILE + ty;
    float acc = 0.0f;
    for (uint t = 0; t < K; t += TILE) {
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < TILE; k++)
            acc = fma(As[ty][k], Bs[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
