/* Shared helpers of the cl-samples host programs: plain OpenCL 3.0 API calls through the ICD
 * loader (-lOpenCL), nothing Ventus-specific except that programs are created from Ventus ELF
 * binaries (clCreateProgramWithBinary).
 *
 * Every failure prints "<sample>: FAIL (...)" on stdout and exits with status 1. */
#ifndef CL_SAMPLES_COMMON_H
#define CL_SAMPLES_COMMON_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Name of the running sample, for messages. */
static const char *sample_name = "sample";

static void fail(const char *fmt, ...) {
    va_list ap;
    printf("%s: FAIL (", sample_name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(")\n");
    fflush(stdout);
    exit(1);
}

/* Aborts with the call's text when it does not return CL_SUCCESS. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        cl_int check_err_ = (call);                                                                \
        if (check_err_ != CL_SUCCESS) fail("%s returned %d", #call, (int)check_err_);              \
    } while (0)

/* Aborts when an object-creating call reported an error through `err`. */
#define CHECK_ERR(err, what)                                                                       \
    do {                                                                                           \
        if ((err) != CL_SUCCESS) fail("%s returned %d", what, (int)(err));                         \
    } while (0)

/* Reads a whole file; fails the sample if it cannot. */
static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) fail("cannot open %s", path);
    if (fseek(f, 0, SEEK_END) != 0) fail("cannot seek %s", path);
    long size = ftell(f);
    if (size <= 0) fail("%s is empty", path);
    rewind(f);
    unsigned char *buf = malloc((size_t)size);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) fail("cannot read %s", path);
    fclose(f);
    *len = (size_t)size;
    return buf;
}

/* The OpenCL objects every sample needs. */
struct sample {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
};

/* First platform, its first device, a context, an in-order queue, and the program built from the
 * Ventus ELF at `elf_path`. */
static void sample_open(struct sample *s, const char *name, const char *elf_path) {
    cl_int err;
    cl_uint n = 0;
    sample_name = name;
    CHECK(clGetPlatformIDs(1, &s->platform, &n));
    if (n == 0) fail("no OpenCL platform (is OCL_ICD_VENDORS set?)");
    CHECK(clGetDeviceIDs(s->platform, CL_DEVICE_TYPE_ALL, 1, &s->device, NULL));
    s->context = clCreateContext(NULL, 1, &s->device, NULL, NULL, &err);
    CHECK_ERR(err, "clCreateContext");
    s->queue = clCreateCommandQueueWithProperties(s->context, s->device, NULL, &err);
    CHECK_ERR(err, "clCreateCommandQueueWithProperties");

    size_t len;
    unsigned char *binary = read_file(elf_path, &len);
    const unsigned char *binaries[1] = {binary};
    cl_int status = CL_SUCCESS;
    s->program = clCreateProgramWithBinary(s->context, 1, &s->device, &len, binaries, &status, &err);
    CHECK_ERR(err, "clCreateProgramWithBinary");
    CHECK_ERR(status, "clCreateProgramWithBinary (binary status)");
    free(binary);
    err = clBuildProgram(s->program, 1, &s->device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(s->program, s->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fail("clBuildProgram returned %d: %s", (int)err, log);
    }
}

/* A kernel of the sample's program. */
static cl_kernel sample_kernel(struct sample *s, const char *kernel_name) {
    cl_int err;
    cl_kernel k = clCreateKernel(s->program, kernel_name, &err);
    CHECK_ERR(err, "clCreateKernel");
    return k;
}

/* A buffer initialised from `data` (CL_MEM_COPY_HOST_PTR). */
static cl_mem sample_buffer(struct sample *s, cl_mem_flags flags, size_t size, void *data) {
    cl_int err;
    cl_mem m = clCreateBuffer(s->context, flags | CL_MEM_COPY_HOST_PTR, size, data, &err);
    CHECK_ERR(err, "clCreateBuffer");
    return m;
}

/* The largest power of two <= `want` that the device accepts as a work-group size in dimension
 * 0 (CL_DEVICE_MAX_WORK_GROUP_SIZE, CL_DEVICE_MAX_WORK_ITEM_SIZES[0]); the limits depend on the
 * device configuration (e.g. NUM_THREAD). */
static size_t sample_local_size(struct sample *s, size_t want) {
    size_t max_group = 0, max_items[3] = {0, 0, 0};
    CHECK(clGetDeviceInfo(s->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL));
    CHECK(clGetDeviceInfo(s->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof max_items, max_items, NULL));
    size_t limit = max_group < max_items[0] ? max_group : max_items[0];
    size_t local = 1;
    while (local * 2 <= want && local * 2 <= limit) local *= 2;
    return local;
}

/* Waits for `ev` and fails the sample if the command did not complete (a negative execution
 * status, e.g. a device fault), adding `hint` to the message. Releases `ev`. */
static void sample_wait(cl_event ev, const char *hint) {
    cl_int status = CL_COMPLETE;
    cl_int err = clWaitForEvents(1, &ev); /* the status below tells a failed command apart */
    if (err != CL_SUCCESS && err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        fail("clWaitForEvents returned %d", (int)err);
    CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    CHECK(clReleaseEvent(ev));
    if (status != CL_COMPLETE) fail("the kernel failed with status %d%s", (int)status, hint);
}

static void sample_close(struct sample *s) {
    CHECK(clReleaseProgram(s->program));
    CHECK(clReleaseCommandQueue(s->queue));
    CHECK(clReleaseContext(s->context));
}

#endif
