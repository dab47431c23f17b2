/* Shared helpers of the cl-samples host programs: plain OpenCL 3.0 API calls through the ICD
 * loader (-lOpenCL), nothing Ventus-specific. A program is built at run time from OpenCL C source
 * (a path ending in ".cl": clCreateProgramWithSource + clBuildProgram, the build log printed on
 * failure) or loaded from a Ventus ELF binary (any other path: clCreateProgramWithBinary).
 *
 * Every failure prints "<sample>: FAIL (...)" on stdout and exits with status 1. The helpers are
 * static inline so that a program using only some of them builds without warnings. */
#ifndef CL_SAMPLES_COMMON_H
#define CL_SAMPLES_COMMON_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Name of the running sample, for messages. */
static const char *sample_name = "sample";

static inline void fail(const char *fmt, ...) {
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
static inline unsigned char *read_file(const char *path, size_t *len) {
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

/* Prints the program's build log for the sample's device (after a failed build). */
static inline void print_build_log(struct sample *s) {
    size_t size = 0;
    if (clGetProgramBuildInfo(s->program, s->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS) return;
    char *log = calloc(size + 1, 1);
    if (!log) return;
    if (clGetProgramBuildInfo(s->program, s->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) == CL_SUCCESS)
        printf("%s: build log:\n%s\n", sample_name, log);
    free(log);
}

static inline int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The kernel file of a sample: argv[1] if given, else `file` in the kernels/ directory beside the
 * executable's directory (cl-samples/build/NAME → cl-samples/kernels/file), else kernels/file
 * relative to the working directory. The result is malloc'ed. */
static inline char *sample_kernel_path(int argc, char **argv, const char *file) {
    if (argc >= 2) {
        char *copy = malloc(strlen(argv[1]) + 1);
        if (!copy) fail("out of memory");
        return strcpy(copy, argv[1]);
    }
    const char *slash = strrchr(argv[0], '/');
    size_t dir_len = slash ? (size_t)(slash - argv[0]) : 1;
    char *path = malloc(dir_len + strlen(file) + sizeof "/../kernels/");
    if (!path) fail("out of memory");
    sprintf(path, "%.*s/../kernels/%s", (int)dir_len, slash ? argv[0] : ".", file);
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        return path;
    }
    free(path);
    path = malloc(strlen(file) + sizeof "kernels/");
    if (!path) fail("out of memory");
    sprintf(path, "kernels/%s", file);
    return path;
}

/* First platform, its first device, a context, an in-order queue, and the program built with
 * `options` from `path`: OpenCL C source if it ends in ".cl", else a Ventus ELF. */
static inline void sample_open_with(struct sample *s, const char *name, const char *path, const char *options) {
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
    unsigned char *bytes = read_file(path, &len);
    if (ends_with(path, ".cl")) {
        const char *sources[1] = {(const char *)bytes};
        s->program = clCreateProgramWithSource(s->context, 1, sources, &len, &err);
        CHECK_ERR(err, "clCreateProgramWithSource");
    } else {
        const unsigned char *binaries[1] = {bytes};
        cl_int status = CL_SUCCESS;
        s->program = clCreateProgramWithBinary(s->context, 1, &s->device, &len, binaries, &status, &err);
        CHECK_ERR(err, "clCreateProgramWithBinary");
        CHECK_ERR(status, "clCreateProgramWithBinary (binary status)");
    }
    free(bytes);
    err = clBuildProgram(s->program, 1, &s->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        print_build_log(s);
        fail("clBuildProgram(\"%s\") of %s returned %d", options, path, (int)err);
    }
}

static inline void sample_open(struct sample *s, const char *name, const char *path) {
    sample_open_with(s, name, path, "");
}

/* A kernel of the sample's program. */
static inline cl_kernel sample_kernel(struct sample *s, const char *kernel_name) {
    cl_int err;
    cl_kernel k = clCreateKernel(s->program, kernel_name, &err);
    CHECK_ERR(err, "clCreateKernel");
    return k;
}

/* A buffer initialised from `data` (CL_MEM_COPY_HOST_PTR). */
static inline cl_mem sample_buffer(struct sample *s, cl_mem_flags flags, size_t size, void *data) {
    cl_int err;
    cl_mem m = clCreateBuffer(s->context, flags | CL_MEM_COPY_HOST_PTR, size, data, &err);
    CHECK_ERR(err, "clCreateBuffer");
    return m;
}

/* The largest power of two <= `want` that the device accepts as a work-group size in dimension
 * 0 (CL_DEVICE_MAX_WORK_GROUP_SIZE, CL_DEVICE_MAX_WORK_ITEM_SIZES[0]); the limits depend on the
 * device configuration (e.g. NUM_THREAD). */
static inline size_t sample_local_size(struct sample *s, size_t want) {
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
static inline void sample_wait(cl_event ev, const char *hint) {
    cl_int status = CL_COMPLETE;
    cl_int err = clWaitForEvents(1, &ev); /* the status below tells a failed command apart */
    if (err != CL_SUCCESS && err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        fail("clWaitForEvents returned %d", (int)err);
    CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    CHECK(clReleaseEvent(ev));
    if (status != CL_COMPLETE) fail("the kernel failed with status %d%s", (int)status, hint);
}

static inline void sample_close(struct sample *s) {
    CHECK(clReleaseProgram(s->program));
    CHECK(clReleaseCommandQueue(s->queue));
    CHECK(clReleaseContext(s->context));
}

#endif
