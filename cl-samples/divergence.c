/* divergence: data-dependent control flow (kernels/divergence.cl, OpenCL C built at run time):
 * nested if/else, a loop with continue and break whose trip count differs per work-item, an inner
 * while loop, and early returns, all inside one warp. The host computes the same function.
 *
 * Usage: divergence [PATH/TO/divergence.cl] */
#include "common.h"
#include <CL/cl_ventus.h> /* the driver's launch statistics (include/ of this repository) */

#define N 1000
#define LOCAL 64 /* work-group size, if the device allows it */

/* The kernel's function of one element, in C; counts the loop's breaks in *breaks. */
static int reference(int x, int *breaks) {
    if (x == 0) return -1;
    int acc;
    if (x < 0) {
        if (x & 1) {
            acc = -x * 3;
        } else {
            acc = x / 4;
            if (acc < -100) acc = -100;
        }
    } else if (x % 3 == 0) {
        acc = x >> 1;
    } else {
        acc = x ^ 0x5a;
    }
    int steps = (x < 0 ? -x : x) % 37;
    for (int k = 0; k < steps; k++) {
        if ((k + x) % 5 == 0) continue;
        if (acc > 5000) {
            acc -= 17 * k;
            (*breaks)++;
            break;
        }
        int j = 0;
        while (j < (k & 3)) {
            acc += (x & 1) ? j : -j;
            j++;
        }
        acc += k * (x & 7);
    }
    if (acc % 7 == 3) return acc * 2;
    return acc - steps;
}

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [PATH/TO/divergence.cl]\n", argv[0]);
        return 2;
    }
    char *path = sample_kernel_path(argc, argv, "divergence.cl");
    struct sample s;
    sample_open(&s, "divergence", path);
    free(path);
    cl_kernel k = sample_kernel(&s, "divergence");

    static cl_int in[N], got[N + 64];
    for (int i = 0; i < N; i++) in[i] = i % 13 == 0 ? 0 : (i * 7919) % 4001 - 2000;
    in[7] = 4999; /* acc > 5000 after a few steps: the break */
    in[8] = -1999;
    for (int i = 0; i < N + 64; i++) got[i] = 0x7eadbeef;
    cl_mem din = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof in, in);
    cl_mem dout = sample_buffer(&s, CL_MEM_READ_WRITE, sizeof got, got);
    cl_uint n = N;
    CHECK(clSetKernelArg(k, 0, sizeof din, &din));
    CHECK(clSetKernelArg(k, 1, sizeof dout, &dout));
    CHECK(clSetKernelArg(k, 2, sizeof n, &n));
    size_t local = sample_local_size(&s, LOCAL), global = (N + local - 1) / local * local;
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, k, 1, NULL, &global, &local, 0, NULL, &done));
    clWaitForEvents(1, &done);
    /* What the launch did, from the Ventus vendor query (other drivers answer CL_INVALID_VALUE). */
    cl_ventus_launch_stats st;
    cl_int have_stats = clGetEventInfo(done, CL_EVENT_STATISTICS_VENTUS, sizeof st, &st, NULL) == CL_SUCCESS;
    sample_wait(done, "");
    CHECK(clEnqueueReadBuffer(s.queue, dout, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));

    int bad = 0, breaks = 0, early = 0;
    for (int i = 0; i < N; i++) {
        int want = reference(in[i], &breaks);
        if (in[i] == 0) early++;
        if (got[i] != want && bad++ < 5) printf("out[%d] = %d for x = %d, expected %d\n", i, got[i], in[i], want);
    }
    for (int i = N; i < N + 64; i++) {
        if (got[i] != 0x7eadbeef && bad++ < 5) printf("out[%d] = %d written past n\n", i, got[i]);
    }
    printf("divergence: %d elements (%d early returns on zero, %d loop breaks), checked against the host\n", N,
           early, breaks);
    if (have_stats) {
        double utilisation = 100.0 * st.lane_instructions / ((double)st.warp_instructions * st.threads_per_warp);
        if (st.divergent_branches > 0 && utilisation < 100.0 && st.global_bytes >= 2 * N * sizeof(cl_int))
            printf("divergence: launch statistics: divergent branches, lane utilisation below 100%%\n");
        else
            printf("divergence: unexpected statistics: %llu divergent branches, utilisation %.1f%%, %llu global bytes\n",
                   (unsigned long long)st.divergent_branches, utilisation, (unsigned long long)st.global_bytes);
        fprintf(stderr, "divergence: %llu warp instructions, lane utilisation %.1f%%, %llu divergent branches\n",
                (unsigned long long)st.warp_instructions, utilisation, (unsigned long long)st.divergent_branches);
    }
    CHECK(clReleaseMemObject(din));
    CHECK(clReleaseMemObject(dout));
    CHECK(clReleaseKernel(k));
    sample_close(&s);
    if (bad) fail("%d wrong elements", bad);
    printf("divergence: PASS\n");
    return 0;
}
