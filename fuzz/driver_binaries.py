#!/usr/bin/env python3
"""Writes the binaries the driver itself produces (CL_PROGRAM_BINARIES) into a directory, as
seeds for the elf_loader fuzz target.

Usage: python3 fuzz/driver_binaries.py LIBVENTUS_ICD.so OUT_DIR KERNEL.cl...

Through Debian's ICD loader (libOpenCL.so.1, told by OCL_ICD_VENDORS to see only this driver),
exactly as an application: for every kernel source, clBuildProgram with default options
(NAME.elf) and with -cl-opt-disable -g0 (NAME-O0.elf, no line table), and clCompileProgram
(NAME.obj, a VNTSPVO compiled-object binary). Two inline OpenCL C 2.0 programs add a printf
table and program-scope variables (globals.elf). A source that does not build is reported and
skipped. Exit status 1 only if the platform cannot be set up.
"""
import ctypes as C
import os
import sys
import tempfile

CL_SUCCESS = 0
CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_PROGRAM_BINARY_SIZES = 0x1165
CL_PROGRAM_BINARIES = 0x1166
CL_PROGRAM_BUILD_LOG = 0x1183

# OpenCL C 2.0 extras (the kernels in fuzz/kernels/ are OpenCL C 1.2, for the SPIR-V corpus too).
EXTRA = {
    "globals": ("-cl-std=CL2.0", r"""
global int counter = 7;
global float table[4] = {1.0f, 2.5f, -3.0f, 4.0f};
constant uint masks[3] = {0xff, 0xff00, 0xff0000};
kernel void bump(global float *out, uint k) {
    size_t i = get_global_id(0);
    out[i] = table[i & 3] * (float)(masks[k % 3] >> 8) + (float)counter;
    if (i == 0) counter += (int)k;
}
kernel void printer(global const int *p) {
    if (get_global_id(0) == 0) printf("p[0]=%d p[1]=%x %s %f\n", p[0], p[1], "seed", 1.5f);
}
"""),
}


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    lib, out, sources = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    vendors = tempfile.mkdtemp(prefix="ventus-icd-vendors-")
    with open(os.path.join(vendors, "ventus.icd"), "w") as f:
        f.write(lib + "\n")
    os.environ["OCL_ICD_VENDORS"] = vendors  # before the loader is loaded
    os.environ.setdefault("RUST_LOG", "error")
    cl = C.CDLL("libOpenCL.so.1")
    vp, sz = C.c_void_p, C.c_size_t
    cl.clCreateContext.restype = vp
    cl.clCreateProgramWithSource.restype = vp

    platform, n = vp(), C.c_uint(0)
    if cl.clGetPlatformIDs(1, C.byref(platform), C.byref(n)) != CL_SUCCESS or n.value == 0:
        print("driver_binaries.py: no OpenCL platform (is %s a built libventus_icd.so?)" % lib, file=sys.stderr)
        return 1
    dev = vp()
    if cl.clGetDeviceIDs(platform, C.c_uint64(CL_DEVICE_TYPE_ALL), 1, C.byref(dev), None) != CL_SUCCESS:
        print("driver_binaries.py: no device", file=sys.stderr)
        return 1
    err = C.c_int(0)
    ctx = vp(cl.clCreateContext(None, 1, C.byref(dev), None, None, C.byref(err)))
    if err.value != CL_SUCCESS:
        print("driver_binaries.py: clCreateContext failed: %d" % err.value, file=sys.stderr)
        return 1

    def program(src):
        b = src.encode()
        s, length = C.c_char_p(b), sz(len(b))
        p = vp(cl.clCreateProgramWithSource(ctx, 1, C.byref(s), C.byref(length), C.byref(err)))
        return p if err.value == CL_SUCCESS else None

    def log(p):
        size = sz(0)
        cl.clGetProgramBuildInfo(p, dev, C.c_uint(CL_PROGRAM_BUILD_LOG), sz(0), None, C.byref(size))
        buf = C.create_string_buffer(size.value)
        cl.clGetProgramBuildInfo(p, dev, C.c_uint(CL_PROGRAM_BUILD_LOG), size, buf, None)
        return buf.value.decode(errors="replace").strip()

    def binary(p):
        size = sz(0)
        if cl.clGetProgramInfo(p, C.c_uint(CL_PROGRAM_BINARY_SIZES), sz(C.sizeof(sz)), C.byref(size), None):
            return None
        buf = C.create_string_buffer(size.value)
        ptrs = (C.c_char_p * 1)(C.cast(buf, C.c_char_p))
        if cl.clGetProgramInfo(p, C.c_uint(CL_PROGRAM_BINARIES), sz(C.sizeof(ptrs)), ptrs, None):
            return None
        return buf.raw[: size.value]

    written = 0

    def emit(name, src, how, options):
        nonlocal written
        p = program(src)
        if p is None:
            print("note: %s: clCreateProgramWithSource failed (%d)" % (name, err.value), file=sys.stderr)
            return
        opts = options.encode()
        if how == "build":
            ret = cl.clBuildProgram(p, 1, C.byref(dev), opts, None, None)
        else:
            ret = cl.clCompileProgram(p, 1, C.byref(dev), opts, 0, None, None, None, None)
        data = binary(p) if ret == CL_SUCCESS else None
        if data:
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
            written += 1
        else:
            print("note: %s (%s %r) failed (%d): %s" % (name, how, options, ret, log(p)[:500]), file=sys.stderr)
        cl.clReleaseProgram(p)

    for path in sources:
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            src = f.read()
        emit(name + ".elf", src, "build", "")
        emit(name + "-O0.elf", src, "build", "-cl-opt-disable -g0")
        emit(name + ".obj", src, "compile", "")
    for name, (options, src) in EXTRA.items():
        emit(name + ".elf", src, "build", options)
        emit(name + ".obj", src, "compile", options)
    cl.clReleaseContext(ctx)
    print("driver_binaries.py: wrote %d binaries to %s" % (written, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
