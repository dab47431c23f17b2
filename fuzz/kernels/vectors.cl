__kernel void vectors(__global const float4 *a, __global float4 *b, __global int2 *c) {
    size_t i = get_global_id(0);
    float4 v = a[i];
    b[i] = v.wzyx * (float4)(1.0f, 2.0f, 3.0f, 4.0f) + fabs(v);
    c[i] = (int2)(convert_int(v.x), (int)dot(v, v)) + c[i].yx;
}
