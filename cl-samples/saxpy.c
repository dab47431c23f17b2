/* saxpy: y = a * x + y with a scalar float argument, one fused multiply-add per element. The
 * kernel is OpenCL C built at run time (kernels/saxpy.cl, the default) or the same kernel written
 * in Ventus assembly (kernels/saxpy.s, assembled to build/saxpy.elf by the Makefile). n is not a
 * multiple of the work-group size, so the kernel's bounds check (a divergent branch) matters.
 *
 * Usage: saxpy [PATH/TO/saxpy.cl | PATH/TO/saxpy.elf] */
#include "common.h"

#include <math.h>

#define N 1000
#define LOCAL 64 /* work-group size, if the device allows it */

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [PATH/TO/saxpy.cl | PATH/TO/saxpy.elf]\n", argv[0]);
        return 2;
    }
    char *path = sample_kernel_path(argc, argv, "saxpy.cl");
    struct sample s;
    sample_open(&s, "saxpy", path);
    free(path);
    cl_kernel k = sample_kernel(&s, "saxpy");

    static float x[N], y[N], want[N], got[N];
    const float a = 2.5f;
    for (int i = 0; i < N; i++) {
        x[i] = sinf((float)i);
        y[i] = cosf(0.37f * (float)i);
        want[i] = fmaf(a, x[i], y[i]);
    }
    cl_mem dy = sample_buffer(&s, CL_MEM_READ_WRITE, sizeof y, y);
    cl_mem dx = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof x, x);
    cl_uint n = N;
    CHECK(clSetKernelArg(k, 0, sizeof dy, &dy));
    CHECK(clSetKernelArg(k, 1, sizeof dx, &dx));
    CHECK(clSetKernelArg(k, 2, sizeof a, &a));
    CHECK(clSetKernelArg(k, 3, sizeof n, &n));
    size_t local = sample_local_size(&s, LOCAL), global = (N + local - 1) / local * local;
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, k, 1, NULL, &global, &local, 0, NULL, &done));
    sample_wait(done, "");
    CHECK(clEnqueueReadBuffer(s.queue, dy, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));

    int bad = 0;
    for (int i = 0; i < N; i++) {
        if (got[i] != want[i]) {
            if (bad++ < 5) printf("y[%d] = %.9g, expected %.9g\n", i, got[i], want[i]);
        }
    }
    printf("saxpy: y = %.1f * x + y on %d floats\n", a, N);
    CHECK(clReleaseMemObject(dy));
    CHECK(clReleaseMemObject(dx));
    CHECK(clReleaseKernel(k));
    sample_close(&s);
    if (bad) fail("%d wrong elements", bad);
    printf("saxpy: PASS\n");
    return 0;
}
