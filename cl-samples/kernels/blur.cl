// blur: image processing with OpenCL images and samplers. `gaussian` blurs an RGBA image with a
// 5x5 binomial kernel, reading through a clamp-to-edge sampler (so the border pixels repeat);
// `halve` resizes it to half its size with bilinear filtering (normalized coordinates, the
// sampler's linear filter averages each 2x2 block).

__constant float weights[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};

__kernel void gaussian(__read_only image2d_t src, __write_only image2d_t dst, sampler_t edge) {
    const int2 p = (int2)(get_global_id(0), get_global_id(1));
    if (p.x >= get_image_width(dst) || p.y >= get_image_height(dst))
        return;
    float4 sum = (float4)(0.0f);
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++)
            sum += weights[dy + 2] * weights[dx + 2] * read_imagef(src, edge, p + (int2)(dx, dy));
    write_imagef(dst, p, sum);
}

constant sampler_t bilinear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;

__kernel void halve(__read_only image2d_t src, __write_only image2d_t dst) {
    const int2 p = (int2)(get_global_id(0), get_global_id(1));
    const int2 size = get_image_dim(dst);
    if (p.x >= size.x || p.y >= size.y)
        return;
    // The centre of destination pixel p, in normalized source coordinates.
    float2 c = ((float2)(p.x, p.y) + 0.5f) / (float2)(size.x, size.y);
    write_imagef(dst, p, read_imagef(src, bilinear, c));
}
