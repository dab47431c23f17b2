/* vecadd_official: runs the official Ventus toolchain's ELF through the ICD, unmodified.
 *
 * Usage: vecadd_official PATH/TO/vecadd.riscv
 *
 * The binary is ventus-gpgpu-isa-simulator's gpgpu-testcase/vsw_testcase/vecadd.riscv, built in
 * 2023 by the Ventus LLVM fork from
 *
 *     __kernel void vectorAdd(__global float* A, __global float* B) {
 *         unsigned tid = get_global_id(0);
 *         A[tid] += B[tid];
 *         printf("ddd%d 1", 2);
 *     }
 *
 * Its printf is the 2023 device-side libclc library, whose compiled code cannot run on Ventus (its
 * first store goes to address 0x18, which the device does not map; the reference simulator traps
 * there and never prints). Our driver runs that library's printf on the host instead, so every
 * work-item prints "ddd2 1" (the format has no newline) while the kernel runs; the program then
 * checks A == A + B. (VENTUS_LEGACY_PRINTF=0 VENTUS_TRAP=end-group reproduces the reference: no
 * output, the trap silently ends each work-group after A += B.)
 */
#include "common.h"

#define N 64     /* elements */
#define LOCAL 32 /* work-group size, if the device allows it */

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/TO/vecadd.riscv\n", argv[0]);
        return 2;
    }
    struct sample s;
    sample_open(&s, "vecadd_official", argv[1]);
    cl_kernel k = sample_kernel(&s, "vectorAdd");

    float a[N], b[N], want[N], got[N];
    for (int i = 0; i < N; i++) {
        a[i] = 1.5f * (float)i;
        b[i] = 100.0f - (float)i;
        want[i] = a[i] + b[i];
    }
    cl_mem da = sample_buffer(&s, CL_MEM_READ_WRITE, sizeof a, a);
    cl_mem db = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof b, b);
    CHECK(clSetKernelArg(k, 0, sizeof da, &da));
    CHECK(clSetKernelArg(k, 1, sizeof db, &db));
    size_t global = N, local = sample_local_size(&s, LOCAL);
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, k, 1, NULL, &global, &local, 0, NULL, &done));
    sample_wait(done, "");
    CHECK(clEnqueueReadBuffer(s.queue, da, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));

    int bad = 0;
    for (int i = 0; i < N; i++) {
        if (got[i] != want[i]) {
            if (bad++ < 5) printf("A[%d] = %g, expected %g\n", i, got[i], want[i]);
        }
    }
    printf("vecadd_official: vectorAdd on %d floats\n", N);
    CHECK(clReleaseMemObject(da));
    CHECK(clReleaseMemObject(db));
    CHECK(clReleaseKernel(k));
    sample_close(&s);
    if (bad) fail("%d wrong elements", bad);
    printf("vecadd_official: PASS\n");
    return 0;
}
