/* histogram: a 256-bin histogram of bytes (kernels/histogram.cl, OpenCL C built at run time).
 * Every work-group counts into a __local histogram with local atomics, then adds it to the global
 * histogram with global atomic_add. The data are skewed (a third of the bytes hit four bins), so
 * many work-items update the same bins at once.
 *
 * Usage: histogram [PATH/TO/histogram.cl] */
#include "common.h"

#define N 100003
#define BINS 256
#define GROUPS 8
#define LOCAL 256 /* work-group size, if the device allows it */

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [PATH/TO/histogram.cl]\n", argv[0]);
        return 2;
    }
    char *path = sample_kernel_path(argc, argv, "histogram.cl");
    struct sample s;
    sample_open(&s, "histogram", path);
    free(path);
    cl_kernel k = sample_kernel(&s, "histogram");

    static unsigned char data[N];
    static cl_uint hist[BINS], want[BINS];
    cl_uint seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 1664525u + 1013904223u;
        cl_uint r = seed >> 24;
        data[i] = (unsigned char)(r % 3 == 0 ? 60 + (r & 3) : r);
        want[data[i]]++;
    }
    cl_mem ddata = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof data, data);
    cl_mem dhist = sample_buffer(&s, CL_MEM_READ_WRITE, sizeof hist, hist);
    cl_uint n = N;
    CHECK(clSetKernelArg(k, 0, sizeof ddata, &ddata));
    CHECK(clSetKernelArg(k, 1, sizeof n, &n));
    CHECK(clSetKernelArg(k, 2, sizeof dhist, &dhist));
    size_t local = sample_local_size(&s, LOCAL), global = GROUPS * local;
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, k, 1, NULL, &global, &local, 0, NULL, &done));
    sample_wait(done, "");
    CHECK(clEnqueueReadBuffer(s.queue, dhist, CL_TRUE, 0, sizeof hist, hist, 0, NULL, NULL));

    int bad = 0;
    unsigned long total = 0;
    for (int b = 0; b < BINS; b++) {
        total += hist[b];
        if (hist[b] != want[b] && bad++ < 5) printf("bin %d = %u, expected %u\n", b, hist[b], want[b]);
    }
    printf("histogram: %d bytes into %d bins by %d work-groups, %lu counted, largest bin %u\n", N, BINS, GROUPS,
           total, want[60]);
    CHECK(clReleaseMemObject(ddata));
    CHECK(clReleaseMemObject(dhist));
    CHECK(clReleaseKernel(k));
    sample_close(&s);
    if (bad) fail("%d wrong bins", bad);
    printf("histogram: PASS\n");
    return 0;
}
