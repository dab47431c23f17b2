/* blur: image processing through OpenCL images (kernels/blur.cl). A procedurally drawn RGBA
 * picture (gradients and rings) goes into a read-only image; `gaussian` blurs it with a 5x5
 * binomial kernel through a clamp-to-edge sampler, `halve` resizes the result to half size with
 * bilinear filtering. Both are checked pixel by pixel against the same computation on the host
 * (OpenCL's UNORM_INT8 conversions: c/255 on read, round-to-nearest-even with saturation on
 * write), and the pictures are written as PPM files (build/blur.ppm, build/blur_half.ppm).
 *
 * Usage: blur [PATH/TO/blur.cl] */
#include "common.h"
#include <math.h>

#define W 96
#define H 64

static unsigned char in[H][W][4], blurred[H][W][4], half_img[H / 2][W / 2][4];

static float unorm(unsigned char c) { return (float)c / 255.0f; }

static unsigned char to_unorm(float f) {
    float x = rintf(f * 255.0f);
    return (unsigned char)(x < 0 ? 0 : x > 255 ? 255 : x);
}

/* Source pixel (x, y), clamped to the edge. */
static const unsigned char *at(int x, int y) {
    x = x < 0 ? 0 : x >= W ? W - 1 : x;
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
    return in[y][x];
}

static void write_ppm(const char *path, const unsigned char *rgba, int w, int h, int stride) {
    FILE *f = fopen(path, "wb");
    if (!f) fail("cannot write %s", path);
    fprintf(f, "P6\n%d %d\n255\n", w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) fwrite(rgba + ((size_t)y * stride + (size_t)x) * 4, 1, 3, f);
    fclose(f);
}

int main(int argc, char **argv) {
    struct sample s;
    char *path = sample_kernel_path(argc, argv, "blur.cl");
    sample_open(&s, "blur", path);
    cl_bool images = CL_FALSE;
    CHECK(clGetDeviceInfo(s.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
    if (!images) fail("the device has no image support");

    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float dx = x - W / 2.0f, dy = y - H / 2.0f, r = sqrtf(dx * dx + dy * dy);
            in[y][x][0] = (unsigned char)(x * 255 / (W - 1));
            in[y][x][1] = (unsigned char)(y * 255 / (H - 1));
            in[y][x][2] = ((int)r / 6) % 2 ? 230 : 20;
            in[y][x][3] = 255;
        }

    cl_int err;
    cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
    cl_mem src = clCreateImage(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt, &desc, in, &err);
    CHECK_ERR(err, "clCreateImage (source)");
    cl_mem mid = clCreateImage(s.context, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    CHECK_ERR(err, "clCreateImage (blurred)");
    cl_image_desc half_desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W / 2, .image_height = H / 2};
    cl_mem dst = clCreateImage(s.context, CL_MEM_WRITE_ONLY, &fmt, &half_desc, NULL, &err);
    CHECK_ERR(err, "clCreateImage (half)");
    const cl_sampler_properties edge_props[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE, CL_SAMPLER_ADDRESSING_MODE,
                                                CL_ADDRESS_CLAMP_TO_EDGE, CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
    cl_sampler edge = clCreateSamplerWithProperties(s.context, edge_props, &err);
    CHECK_ERR(err, "clCreateSampler");

    cl_kernel gaussian = sample_kernel(&s, "gaussian");
    CHECK(clSetKernelArg(gaussian, 0, sizeof src, &src));
    CHECK(clSetKernelArg(gaussian, 1, sizeof mid, &mid));
    CHECK(clSetKernelArg(gaussian, 2, sizeof edge, &edge));
    size_t global[2] = {W, H};
    CHECK(clEnqueueNDRangeKernel(s.queue, gaussian, 2, NULL, global, NULL, 0, NULL, NULL));
    cl_kernel halve = sample_kernel(&s, "halve");
    CHECK(clSetKernelArg(halve, 0, sizeof mid, &mid));
    CHECK(clSetKernelArg(halve, 1, sizeof dst, &dst));
    size_t half_global[2] = {W / 2, H / 2};
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(s.queue, halve, 2, NULL, half_global, NULL, 0, NULL, &done));
    sample_wait(done, "");
    size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1}, half_region[3] = {W / 2, H / 2, 1};
    CHECK(clEnqueueReadImage(s.queue, mid, CL_TRUE, origin, region, 0, 0, blurred, 0, NULL, NULL));
    CHECK(clEnqueueReadImage(s.queue, dst, CL_TRUE, origin, half_region, 0, 0, half_img, 0, NULL, NULL));

    /* The host's Gaussian blur, summed in the kernel's order. */
    static const float wgt[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};
    int bad = 0, worst = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                float sum = 0.0f;
                for (int dy = -2; dy <= 2; dy++)
                    for (int dx = -2; dx <= 2; dx++)
                        sum += wgt[dy + 2] * wgt[dx + 2] * unorm(at(x + dx, y + dy)[c]);
                int diff = abs((int)to_unorm(sum) - (int)blurred[y][x][c]);
                if (diff > worst) worst = diff;
                if (diff > 1 && bad++ < 5)
                    printf("blurred (%d,%d)[%d] = %d, expected %d\n", x, y, c, blurred[y][x][c], to_unorm(sum));
            }
    /* The host's bilinear half-size resize: each destination pixel centre falls on the corner
     * of a 2x2 block of the blurred image, so the filter averages that block. */
    for (int y = 0; y < H / 2; y++)
        for (int x = 0; x < W / 2; x++)
            for (int c = 0; c < 4; c++) {
                float avg = 0.25f * (unorm(blurred[2 * y][2 * x][c]) + unorm(blurred[2 * y][2 * x + 1][c]) +
                                     unorm(blurred[2 * y + 1][2 * x][c]) + unorm(blurred[2 * y + 1][2 * x + 1][c]));
                int diff = abs((int)to_unorm(avg) - (int)half_img[y][x][c]);
                if (diff > worst) worst = diff;
                if (diff > 1 && bad++ < 10)
                    printf("half (%d,%d)[%d] = %d, expected %d\n", x, y, c, half_img[y][x][c], to_unorm(avg));
            }
    char out_path[4096];
    const char *slash = strrchr(argv[0], '/');
    snprintf(out_path, sizeof out_path, "%.*sblur.ppm", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    write_ppm(out_path, &blurred[0][0][0], W, H, W);
    snprintf(out_path, sizeof out_path, "%.*sblur_half.ppm", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    write_ppm(out_path, &half_img[0][0][0], W / 2, H / 2, W / 2);

    printf("blur: %dx%d RGBA image, 5x5 Gaussian then bilinear half size (%dx%d), %s\n", W, H, W / 2, H / 2,
           worst <= 1 ? "every channel within 1/255 of the host" : "channels differ from the host");
    printf("blur: %s\n", bad ? "FAIL" : "PASS");
    clReleaseEvent(done);
    clReleaseKernel(gaussian);
    clReleaseKernel(halve);
    clReleaseSampler(edge);
    clReleaseMemObject(src);
    clReleaseMemObject(mid);
    clReleaseMemObject(dst);
    sample_close(&s);
    free(path);
    return bad ? 1 : 0;
}
