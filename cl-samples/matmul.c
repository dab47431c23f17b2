/* matmul: C = A * B (row-major floats) with __local tiling (kernels/matmul.cl, OpenCL C built at
 * run time with -DTILE=n): TILE x TILE work-groups stage tiles of A and B in local memory between
 * barriers. TILE is 16 when the device allows 256-item work-groups (else 8 or 4). The sizes are
 * not multiples of the tile, so partial tiles (zero padding) and the store bounds check matter.
 * The host computes the same fused multiply-adds in the same order, so the comparison is exact.
 *
 * Usage: matmul [PATH/TO/matmul.cl] */
#include "common.h"

#include <math.h>

#define M 101
#define N 130
#define K 77

static float A[M * K], B[K * N], C[M * N], want[M * N];

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [PATH/TO/matmul.cl]\n", argv[0]);
        return 2;
    }
    char *path = sample_kernel_path(argc, argv, "matmul.cl");

    /* The tile: the largest of 16, 8, 4 whose square fits a work-group of the device. */
    struct sample probe;
    cl_uint np = 0;
    sample_name = "matmul";
    CHECK(clGetPlatformIDs(1, &probe.platform, &np));
    if (np == 0) fail("no OpenCL platform (is OCL_ICD_VENDORS set?)");
    CHECK(clGetDeviceIDs(probe.platform, CL_DEVICE_TYPE_ALL, 1, &probe.device, NULL));
    size_t max_group = 0, max_items[3] = {0, 0, 0};
    CHECK(clGetDeviceInfo(probe.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL));
    CHECK(clGetDeviceInfo(probe.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof max_items, max_items, NULL));
    size_t tile = 16;
    while (tile > 4 && (tile * tile > max_group || tile > max_items[0] || tile > max_items[1])) tile /= 2;
    char options[32];
    snprintf(options, sizeof options, "-DTILE=%zu", tile);

    struct sample s;
    sample_open_with(&s, "matmul", path, options);
    free(path);
    cl_kernel k = sample_kernel(&s, "matmul");

    for (int i = 0; i < M * K; i++) A[i] = sinf(0.1f * (float)i);
    for (int i = 0; i < K * N; i++) B[i] = cosf(0.07f * (float)i) - 0.25f;
    for (int i = 0; i < M * N; i++) C[i] = -7.0f;
    const size_t k_padded = (K + tile - 1) / tile * tile;
    for (int r = 0; r < M; r++) {
        for (int c = 0; c < N; c++) {
            float acc = 0.0f;
            for (size_t x = 0; x < k_padded; x++) acc = fmaf(x < K ? A[r * K + x] : 0.0f, x < K ? B[x * N + c] : 0.0f, acc);
            want[r * N + c] = acc;
        }
    }

    cl_mem da = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof A, A);
    cl_mem db = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof B, B);
    cl_mem dc = sample_buffer(&s, CL_MEM_WRITE_ONLY, sizeof C, C);
    cl_uint m = M, n = N, kk = K;
    CHECK(clSetKernelArg(k, 0, sizeof da, &da));
    CHECK(clSetKernelArg(k, 1, sizeof db, &db));
    CHECK(clSetKernelArg(k, 2, sizeof dc, &dc));
    CHECK(clSetKernelArg(k, 3, sizeof m, &m));
    CHECK(clSetKernelArg(k, 4, sizeof n, &n));
    CHECK(clSetKernelArg(k, 5, sizeof kk, &kk));
    size_t local[2] = {tile, tile};
    size_t global[2] = {(N + tile - 1) / tile * tile, (M + tile - 1) / tile * tile};
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, k, 2, NULL, global, local, 0, NULL, &done));
    sample_wait(done, "");
    CHECK(clEnqueueReadBuffer(s.queue, dc, CL_TRUE, 0, sizeof C, C, 0, NULL, NULL));

    int bad = 0;
    for (int i = 0; i < M * N; i++) {
        if (C[i] != want[i] && bad++ < 5) printf("C[%d][%d] = %.9g, expected %.9g\n", i / N, i % N, C[i], want[i]);
    }
    printf("matmul: C(%dx%d) = A(%dx%d) * B(%dx%d) with __local tiles\n", M, N, M, K, K, N);
    CHECK(clReleaseMemObject(da));
    CHECK(clReleaseMemObject(db));
    CHECK(clReleaseMemObject(dc));
    CHECK(clReleaseKernel(k));
    sample_close(&s);
    if (bad) fail("%d wrong elements", bad);
    printf("matmul: PASS\n");
    return 0;
}
