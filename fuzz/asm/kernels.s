# Seed kernels for the elf_loader corpus: `ventus-run asm kernels.s -o OUT.elf [--kernel-info kernels.decl]`
# (make_corpus.sh writes the ELF with and without argument metadata).
.globl vadd
vadd:                            # c[i] = a[i] + b[i]
    lw t0, 0(a0)
    lw t1, 4(a0)
    lw t2, 8(a0)
    csrr x3, gl_id_x
    vsll.vi v4, v3, 2
    vadd.vx v5, v4, t0
    vlw12.v v5, 0(v5)
    vadd.vx v6, v4, t1
    vlw12.v v6, 0(v6)
    vadd.vv v5, v5, v6
    vadd.vx v7, v4, t2
    vsw12.v v5, 0(v7)
    ret

.globl scratch
scratch:                         # a[l] = l; barrier; out[g] = a[(l+1) % L]
    lw t0, 0(a0)
    lw t1, 4(a0)
    csrr x3, lc_id_x
    vsll.vi v4, v3, 2
    vadd.vx v5, v4, t1
    vsw12.v v3, 0(v5)
    barrier
    csrr t3, knl
    lw t4, 24(t3)
    vadd.vi v8, v3, 1
    vremu.vx v8, v8, t4
    vsll.vi v8, v8, 2
    vadd.vx v9, v8, t1
    vlw12.v v9, 0(v9)
    csrr x11, gl_id_x
    vsll.vi v11, v11, 2
    vadd.vx v11, v11, t0
    vsw12.v v9, 0(v11)
    ret

.globl mix
mix:                             # out[0..4] = c, l (low, high), i
    lw t0, 0(a0)
    lb t1, 4(a0)
    sw t1, 0(t0)
    lw t1, 8(a0)
    sw t1, 4(t0)
    lw t1, 12(a0)
    sw t1, 8(t0)
    lw t1, 16(a0)
    sw t1, 12(t0)
    ret

.globl fixed
fixed:
    j vadd
