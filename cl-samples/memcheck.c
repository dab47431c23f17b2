/* memcheck: the debugging story of the Ventus driver (kernels/memcheck.cl, OpenCL C built at run
 * time). The kernel reads one element past the end of its input buffer. Run normally, the read
 * lands in the zero-filled tail of the buffer's last 4 KiB page — as on the hardware — and the
 * bug goes unnoticed. Run in a context with the vendor property CL_CONTEXT_MEMCHECK_VENTUS
 * (include/CL/cl_ventus.h; VENTUS_MEMCHECK=1 does the same for every context), the first access
 * outside the bytes the buffer was created with fails the launch, and the context's callback
 * receives a report naming the kernel, work-group, warp, lane, work-item, pc, instruction,
 * source line, address and the buffer it missed, by how many bytes.
 *
 * Usage: memcheck [PATH/TO/memcheck.cl] */
#include "common.h"
#include <CL/cl_ventus.h>

#define N 1000 /* floats: 4000 bytes, so in[N] lies in the buffer's last page */
#define LOCAL 32

static char report[4096];

static void CL_CALLBACK notify(const char *message, const void *info, size_t cb, void *user) {
    (void)info, (void)cb, (void)user;
    if (!report[0]) snprintf(report, sizeof report, "%s", message);
}

/* The report without its pc and instruction (they change whenever the compiler does). */
static void print_report(void) {
    char *pc = strstr(report, ", pc 0x");
    if (!pc) {
        printf("memcheck: report: %s\n", report);
        return;
    }
    char *rest = pc + strlen(", pc 0x");
    while (*rest && strchr("0123456789abcdef", *rest)) rest++;
    if (strncmp(rest, " (", 2) == 0) { /* the instruction: skip to its closing parenthesis */
        int depth = 0;
        for (rest++; *rest; rest++) {
            if (*rest == '(') depth++;
            if (*rest == ')' && --depth == 0) {
                rest++;
                break;
            }
        }
    }
    printf("memcheck: report: %.*s, pc <pc>%s\n", (int)(pc - report), report, rest);
}

/* Runs the kernel in a new context; returns the launch's event status, *last = out[N - 1]. */
static cl_int run(const char *path, cl_bool check, float *last) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    cl_uint n_platforms = 0;
    CHECK(clGetPlatformIDs(1, &platform, &n_platforms));
    if (n_platforms == 0) fail("no OpenCL platform (is OCL_ICD_VENDORS set?)");
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_context_properties props[] = {CL_CONTEXT_MEMCHECK_VENTUS, check, 0};
    cl_context ctx = clCreateContext(props, 1, &device, notify, NULL, &err);
    CHECK_ERR(err, "clCreateContext(CL_CONTEXT_MEMCHECK_VENTUS)");
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
    CHECK_ERR(err, "clCreateCommandQueueWithProperties");
    size_t len;
    char *src = (char *)read_file(path, &len);
    cl_program prog = clCreateProgramWithSource(ctx, 1, (const char **)&src, &len, &err);
    CHECK_ERR(err, "clCreateProgramWithSource");
    free(src);
    CHECK(clBuildProgram(prog, 1, &device, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "smooth", &err);
    CHECK_ERR(err, "clCreateKernel");

    static float in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = (float)(i % 10), out[i] = -1.0f;
    cl_mem din = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    CHECK_ERR(err, "clCreateBuffer");
    cl_mem dout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR, sizeof out, out, &err);
    CHECK_ERR(err, "clCreateBuffer");
    cl_uint n = N;
    CHECK(clSetKernelArg(k, 0, sizeof din, &din));
    CHECK(clSetKernelArg(k, 1, sizeof dout, &dout));
    CHECK(clSetKernelArg(k, 2, sizeof n, &n));
    size_t local = LOCAL, global = (N + LOCAL - 1) / LOCAL * LOCAL;
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &done));
    clWaitForEvents(1, &done);
    cl_int status;
    CHECK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    CHECK(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    *last = out[N - 1];
    clReleaseEvent(done);
    clReleaseMemObject(din);
    clReleaseMemObject(dout);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return status;
}

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [PATH/TO/memcheck.cl]\n", argv[0]);
        return 2;
    }
    sample_name = "memcheck";
    char *path = sample_kernel_path(argc, argv, "memcheck.cl");
    float last;
    cl_int status = run(path, CL_FALSE, &last);
    /* in[N-2] = 8, in[N-1] = 9, in[N] reads 0: (8 + 9 + 0) / 3 */
    printf("memcheck: without the checker the launch ends with status %d and out[%d] = %.4f "
           "(in[%d] read the zero-filled page tail)\n",
           (int)status, N - 1, last, N);
    if (status != CL_COMPLETE || report[0]) fail("the launch without the checker did not complete cleanly");
    status = run(path, CL_TRUE, &last);
    printf("memcheck: with CL_CONTEXT_MEMCHECK_VENTUS the launch ends with status %d\n", (int)status);
    if (status != CL_OUT_OF_RESOURCES || !report[0]) fail("the checker did not report the bug");
    print_report();
    free(path);
    printf("memcheck: PASS\n");
    return 0;
}
