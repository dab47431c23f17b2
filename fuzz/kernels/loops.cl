__kernel void loops(__global int *out) {
    int i = get_global_id(0); int s = 0;
    for (int k = 0; k < 50; k++) {
        if (k % 3 == i % 3) continue;
        if (k > i) { if (i & 1) break; else s += 100; }
        s += k;
    }
    out[i] = s;
}
