/* Three-point smoothing with an off-by-one bug: the last work-item reads in[n], one element past
 * the end of the input buffer. The buffer's last 4 KiB page holds zeros there, so without the
 * memory checker the kernel completes with a plausible wrong value. */
kernel void smooth(global const float *in, global float *out, uint n) {
    uint i = get_global_id(0);
    if (i < n) {
        float left = i > 0 ? in[i - 1] : in[i];
        float right = in[i + 1]; /* BUG: for i == n - 1 this reads in[n] */
        out[i] = (left + in[i] + right) / 3.0f;
    }
}
