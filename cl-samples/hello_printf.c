/* hello_printf: kernel printf through the ICD. The kernel (kernels/hello_printf.cl) prints from
 * some work-items while it runs; the driver formats the records on the host and writes them to
 * this process's stdout. One work-group, so the order of the lines is deterministic.
 *
 * Usage: hello_printf [PATH/TO/hello_printf.cl] */
#include "common.h"

#define N 32

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [PATH/TO/hello_printf.cl]\n", argv[0]);
        return 2;
    }
    char *path = sample_kernel_path(argc, argv, "hello_printf.cl");
    struct sample s;
    sample_open(&s, "hello_printf", path);
    free(path);
    cl_kernel k = sample_kernel(&s, "hello");

    float x[N], y[N], want[N], a = 1.5f;
    for (int i = 0; i < N; i++) {
        x[i] = (float)i * 0.25f - 3.0f;
        y[i] = (float)(i % 5);
        want[i] = a * x[i] + y[i];
    }
    cl_mem dx = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof x, x);
    cl_mem dy = sample_buffer(&s, CL_MEM_READ_WRITE, sizeof y, y);
    CHECK(clSetKernelArg(k, 0, sizeof dx, &dx));
    CHECK(clSetKernelArg(k, 1, sizeof dy, &dy));
    CHECK(clSetKernelArg(k, 2, sizeof a, &a));
    size_t global = N, local = N;
    printf("hello_printf: launching %d work-items\n", N);
    fflush(stdout); /* the kernel's lines go to the same stdout, written by the driver */
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, k, 1, NULL, &global, &local, 0, NULL, &done));
    sample_wait(done, "");
    CHECK(clEnqueueReadBuffer(s.queue, dy, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (y[i] != want[i] && bad++ < 5) printf("y[%d] = %g, expected %g\n", i, y[i], want[i]);
    CHECK(clReleaseMemObject(dx));
    CHECK(clReleaseMemObject(dy));
    CHECK(clReleaseKernel(k));
    sample_close(&s);
    if (bad) fail("%d wrong elements", bad);
    printf("hello_printf: PASS\n");
    return 0;
}
