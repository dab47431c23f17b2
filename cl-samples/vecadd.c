/* vecadd: c = a + b on floats, kernel in OpenCL C (kernels/vecadd.cl) built at run time.
 * n is prime, so the last work-group is partial and the kernel's bounds check matters.
 *
 * Usage: vecadd [PATH/TO/vecadd.cl] */
#include "common.h"

#include <math.h>

#define N 10007
#define LOCAL 128 /* work-group size, if the device allows it */

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [PATH/TO/vecadd.cl]\n", argv[0]);
        return 2;
    }
    char *path = sample_kernel_path(argc, argv, "vecadd.cl");
    struct sample s;
    sample_open(&s, "vecadd", path);
    free(path);
    cl_kernel k = sample_kernel(&s, "vecadd");

    static float a[N], b[N], got[N];
    for (int i = 0; i < N; i++) {
        a[i] = sinf((float)i) * 100.0f;
        b[i] = (float)i / 7.0f;
        got[i] = -1.0f;
    }
    cl_mem da = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof a, a);
    cl_mem db = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof b, b);
    cl_mem dc = sample_buffer(&s, CL_MEM_WRITE_ONLY, sizeof got, got);
    cl_uint n = N;
    CHECK(clSetKernelArg(k, 0, sizeof da, &da));
    CHECK(clSetKernelArg(k, 1, sizeof db, &db));
    CHECK(clSetKernelArg(k, 2, sizeof dc, &dc));
    CHECK(clSetKernelArg(k, 3, sizeof n, &n));
    size_t local = sample_local_size(&s, LOCAL), global = (N + local - 1) / local * local;
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, k, 1, NULL, &global, &local, 0, NULL, &done));
    sample_wait(done, "");
    CHECK(clEnqueueReadBuffer(s.queue, dc, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));

    int bad = 0;
    for (int i = 0; i < N; i++) {
        float want = a[i] + b[i];
        if (got[i] != want && bad++ < 5) printf("c[%d] = %.9g, expected %.9g\n", i, got[i], want);
    }
    printf("vecadd: c = a + b on %d floats\n", N);
    CHECK(clReleaseMemObject(da));
    CHECK(clReleaseMemObject(db));
    CHECK(clReleaseMemObject(dc));
    CHECK(clReleaseKernel(k));
    sample_close(&s);
    if (bad) fail("%d wrong elements", bad);
    printf("vecadd: PASS\n");
    return 0;
}
