/* reduce: work-group sums in __local memory with barriers (kernels/reduce.s, Ventus assembly):
 * every work-group writes the sum of its elements to partial[group]; the host adds the partial
 * sums. The values are multiples of 0.25, so every sum is exact and independent of order.
 *
 * Usage: reduce PATH/TO/reduce.elf */
#include "common.h"

#define N 10000
#define LOCAL 128 /* work-group size (a power of two: tree reduction), if the device allows it */

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/TO/reduce.elf\n", argv[0]);
        return 2;
    }
    struct sample s;
    sample_open(&s, "reduce", argv[1]);
    cl_kernel k = sample_kernel(&s, "reduce");

    const size_t local = sample_local_size(&s, LOCAL), groups = (N + local - 1) / local;
    static float in[N], partial[N], want[N];
    float total_want = 0.0f;
    for (int i = 0; i < N; i++) {
        in[i] = 0.25f * (float)(i % 17);
        want[i / local] += in[i];
        total_want += in[i];
    }
    cl_mem din = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof in, in);
    cl_mem dpartial = sample_buffer(&s, CL_MEM_WRITE_ONLY, groups * sizeof(float), partial);
    cl_uint n = N;
    CHECK(clSetKernelArg(k, 0, sizeof din, &din));
    CHECK(clSetKernelArg(k, 1, sizeof dpartial, &dpartial));
    CHECK(clSetKernelArg(k, 2, local * sizeof(float), NULL)); /* __local float scratch[local] */
    CHECK(clSetKernelArg(k, 3, sizeof n, &n));
    size_t global = groups * local;
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, k, 1, NULL, &global, &local, 0, NULL, &done));
    sample_wait(done, "");
    CHECK(clEnqueueReadBuffer(s.queue, dpartial, CL_TRUE, 0, groups * sizeof(float), partial, 0, NULL, NULL));

    int bad = 0;
    float total = 0.0f;
    for (size_t g = 0; g < groups; g++) {
        total += partial[g];
        if (partial[g] != want[g]) {
            if (bad++ < 5) printf("partial[%zu] = %g, expected %g\n", g, partial[g], want[g]);
        }
    }
    printf("reduce: sum of %d floats %.2f (expected %.2f), every work-group's partial sum checked\n", N, total,
           total_want);
    CHECK(clReleaseMemObject(din));
    CHECK(clReleaseMemObject(dpartial));
    CHECK(clReleaseKernel(k));
    sample_close(&s);
    if (bad || total != total_want) fail("%d wrong partial sums", bad);
    printf("reduce: PASS\n");
    return 0;
}
