#!/usr/bin/env python3
"""What the memory checker costs: median kernel times (profiling events) of a saxpy over 4 M
floats and a 256x256 matmul, and the process's peak RSS, under the VENTUS_MEMCHECK setting of
the environment. Results are checked against numpy. Run it once per setting through our ICD:

    for m in 0 1; do OCL_ICD_VENDORS=cl-samples/build/icd VENTUS_MEMCHECK=$m VENTUS_THREADS=1 \
        python3 tools/memcheck_cost.py; done

(`make -C cl-samples run` or `run-NAME` creates cl-samples/build/icd; Debian's python3-pyopencl.)
"""
import pyopencl as cl, numpy as np, os, resource, statistics as st
src = """
kernel void saxpy(global const float *x, global float *y, float a) { int i = get_global_id(0); y[i] = a * x[i] + y[i]; }
kernel void matmul(global const float *A, global const float *B, global float *C, int n) {
  int r = get_global_id(1), c = get_global_id(0); float acc = 0;
  for (int k = 0; k < n; k++) acc += A[r * n + k] * B[k * n + c];
  C[r * n + c] = acc; }
"""
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
p = cl.Program(ctx, src).build()
mf = cl.mem_flags
N = 1 << 22
x = np.random.rand(N).astype(np.float32); y = np.random.rand(N).astype(np.float32)
bx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x); by = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
n = 256
A = np.random.rand(n, n).astype(np.float32); B = np.random.rand(n, n).astype(np.float32)
bA = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=A); bB = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=B)
bC = cl.Buffer(ctx, mf.WRITE_ONLY, A.nbytes)
def t(ev): ev.wait(); return (ev.profile.end - ev.profile.start) * 1e-6
y0 = y.copy()
s = [t(p.saxpy(q, (N,), (256,), bx, by, np.float32(2))) for _ in range(5)]
m = [t(p.matmul(q, (n, n), (16, 16), bA, bB, bC, np.int32(n))) for _ in range(3)]
C = np.empty_like(A); cl.enqueue_copy(q, C, bC)
assert np.allclose(C, A @ B, rtol=1e-3)
Y = np.empty_like(y); cl.enqueue_copy(q, Y, by)
assert np.allclose(Y, y0 + 5 * 2 * x, rtol=1e-4)
print("VENTUS_MEMCHECK=%s saxpy 4M: %.1f ms, matmul 256: %.1f ms, peak RSS %d MiB" % (
  os.environ.get("VENTUS_MEMCHECK", "0"), st.median(s), st.median(m), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024))
