/* transpose: a 2D NDRange (kernels/transpose.s, Ventus assembly) transposes a width x height
 * matrix whose sizes are not multiples of the work-group size (8 x 8 if the device allows it), so the kernel's nested bounds
 * checks (two divergent branches sharing one reconvergence point) matter.
 *
 * Usage: transpose PATH/TO/transpose.elf */
#include "common.h"

#define W 37
#define H 29
#define LX 8
#define LY 8

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/TO/transpose.elf\n", argv[0]);
        return 2;
    }
    struct sample s;
    sample_open(&s, "transpose", argv[1]);
    cl_kernel k = sample_kernel(&s, "transpose");

    static float in[W * H], out[W * H], got[W * H];
    for (int i = 0; i < W * H; i++) {
        in[i] = (float)i;
        out[i] = -1.0f;
    }
    cl_mem dout = sample_buffer(&s, CL_MEM_WRITE_ONLY, sizeof out, out);
    cl_mem din = sample_buffer(&s, CL_MEM_READ_ONLY, sizeof in, in);
    cl_uint w = W, h = H;
    CHECK(clSetKernelArg(k, 0, sizeof dout, &dout));
    CHECK(clSetKernelArg(k, 1, sizeof din, &din));
    CHECK(clSetKernelArg(k, 2, sizeof w, &w));
    CHECK(clSetKernelArg(k, 3, sizeof h, &h));
    size_t local[2] = {LX, LY};
    size_t max_group = sample_local_size(&s, LX * LY);
    while (local[0] * local[1] > max_group) local[local[0] > local[1] ? 0 : 1] /= 2;
    size_t global[2] = {(W + local[0] - 1) / local[0] * local[0], (H + local[1] - 1) / local[1] * local[1]};
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, k, 2, NULL, global, local, 0, NULL, &done));
    sample_wait(done, "");
    CHECK(clEnqueueReadBuffer(s.queue, dout, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));

    int bad = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float want = in[y * W + x];
            if (got[x * H + y] != want) {
                if (bad++ < 5) printf("out[%d][%d] = %g, expected %g\n", x, y, got[x * H + y], want);
            }
        }
    }
    printf("transpose: %dx%d matrix transposed by a 2D NDRange\n", W, H);
    CHECK(clReleaseMemObject(dout));
    CHECK(clReleaseMemObject(din));
    CHECK(clReleaseKernel(k));
    sample_close(&s);
    if (bad) fail("%d wrong elements", bad);
    printf("transpose: PASS\n");
    return 0;
}
