// divergence: per-element control flow that depends on the data: nested if/else, a loop with
// break and continue whose trip count varies per work-item, an inner loop, and early returns.
// divergence.c computes the same function on the host.

__kernel void divergence(__global const int *in, __global int *out, uint n) {
    const uint i = get_global_id(0);
    if (i >= n)
        return; // early return (bounds)
    int x = in[i];
    if (x == 0) {
        out[i] = -1; // early return (data dependent)
        return;
    }
    int acc = 0;
    if (x < 0) {
        if (x & 1) {
            acc = -x * 3;
        } else {
            acc = x / 4;
            if (acc < -100)
                acc = -100;
        }
    } else if (x % 3 == 0) {
        acc = x >> 1;
    } else {
        acc = x ^ 0x5a;
    }

    int steps = (x < 0 ? -x : x) % 37;
    for (int k = 0; k < steps; k++) {
        if ((k + x) % 5 == 0)
            continue;
        if (acc > 5000) {
            acc -= 17 * k;
            break;
        }
        int j = 0;
        while (j < (k & 3)) {
            acc += (x & 1) ? j : -j;
            j++;
        }
        acc += k * (x & 7);
    }

    if (acc % 7 == 3) {
        out[i] = acc * 2; // early return in the middle of divergent code
        return;
    }
    out[i] = acc - steps;
}
