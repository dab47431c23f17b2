"""pyopencl through the ICD loader on the Ventus platform: a source kernel with printf, the
pyopencl.array module (its generated element-wise and reduction kernels) and a local-memory
kernel. Exits non-zero with a message on any mismatch."""
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

platforms = [p for p in cl.get_platforms() if p.name == "Ventus"]
if not platforms:
    sys.exit("no Ventus platform: %s" % [p.name for p in cl.get_platforms()])
ctx = cl.Context(platforms[0].get_devices())
q = cl.CommandQueue(ctx)
mf = cl.mem_flags

n = 1000
a = np.arange(n, dtype=np.float32) * 0.01
b = np.arange(n, dtype=np.float32) * 0.5
da = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
db = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
dc = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
prg = cl.Program(ctx, """
__kernel void fused(__global const float *a, __global const float *b, __global float *c) {
    int i = get_global_id(0);
    c[i] = a[i] + b[i] * sin(a[i]);
    if (i == 3) printf("pyopencl: work-item %d computed %.4f\\n", i, c[i]);
}
__kernel void block_sum(__global const float *x, __global float *out, __local float *tmp) {
    int l = get_local_id(0);
    tmp[l] = x[get_global_id(0)];
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < s) tmp[l] += tmp[l + s];
    }
    if (l == 0) out[get_group_id(0)] = tmp[0];
}
""").build()
prg.fused(q, a.shape, None, da, db, dc)
c = np.empty_like(a)
cl.enqueue_copy(q, c, dc)
q.finish()
want = a + b * np.sin(a)
err = np.max(np.abs(c - want) / np.maximum(np.abs(want), 1.0))
if err > 1e-6:
    sys.exit("fused: relative error %g" % err)

x = np.random.default_rng(7).random(4096).astype(np.float32)
dx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
dout = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * 16)
prg.block_sum(q, (4096,), (256,), dx, dout, cl.LocalMemory(256 * 4))
sums = np.empty(16, dtype=np.float32)
cl.enqueue_copy(q, sums, dout)
want = x.reshape(16, 256).sum(axis=1, dtype=np.float64)
if np.max(np.abs(sums - want)) > 1e-3:
    sys.exit("block_sum: %s vs %s" % (sums, want))

y = cla.to_device(q, np.linspace(0, 1, 4096).astype(np.float32))
total = cla.sum(y).get()
if abs(total - 2048.0) > 1e-2:
    sys.exit("pyopencl.array.sum: %r" % total)
z = (2 * y + 1).get()
if not np.allclose(z, np.linspace(0, 1, 4096) * 2 + 1):
    sys.exit("pyopencl.array element-wise")
# Double precision (software on the device): pyopencl.array arithmetic, a reduction, clmath and
# complex128, all compared with numpy.
import pyopencl.clmath as clmath
d = np.random.default_rng(11).random(2048) * 4 - 2
dd = cla.to_device(q, d)
if not np.array_equal((dd * 3.0 + dd / 7.0).get(), d * 3.0 + d / 7.0):
    sys.exit("float64 element-wise")
if abs(cla.sum(dd).get() - d.sum()) > 1e-12 * len(d):
    sys.exit("float64 sum")
for name, ref in (("exp", np.exp), ("sin", np.sin), ("sqrt", lambda v: np.sqrt(np.abs(v)))):
    arg = cla.to_device(q, np.abs(d)) if name == "sqrt" else dd
    got = getattr(clmath, name)(arg).get()
    if not np.allclose(got, ref(d), rtol=1e-15, atol=0):
        sys.exit("clmath.%s float64" % name)
zc = (d[:512] + 1j * d[512:1024]).astype(np.complex128)
dz = cla.to_device(q, zc)
if not np.allclose((dz * dz).get(), zc * zc, rtol=1e-15):
    sys.exit("complex128 multiply")
print("pyopencl: PASS")
