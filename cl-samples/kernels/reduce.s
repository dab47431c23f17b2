# reduce: partial[g] = sum of in[i] over the global ids i < n of work-group g.
# Tree reduction in a __local scratch array (one float per work-item) with work-group barriers.
# 1D NDRange; the local size must be a power of two (and a multiple of the warp size, so that no
# lane is beyond the work-group). The global offset is honoured.
# Arguments: 0 in, 4 partial, 8 scratch (__local float*, local size floats), 12 n.
        .globl  reduce
reduce:
        lw      a1, 0(a0)               # in
        lw      a2, 4(a0)               # partial
        lw      a3, 8(a0)               # scratch, in the LDS window
        lw      a4, 12(a0)              # n
        csrr    t0, knl
        lw      t2, 24(t0)              # local size L
        lw      t3, 36(t0)              # global offset x
        csrr    t4, gidx                # work-group id
        mul     t5, t4, t2
        add     t5, t5, t3
        csrr    t6, tid
        vid.v   v1
        vadd.vx v1, v1, t6              # local id
        vadd.vx v2, v1, t5              # global id
        # value = i < n ? in[i] : 0.0
        vmv.v.x v3, zero
        vmv.v.x v4, a4
        la      t1, .Lloaded
        setrpc  zero, t1, 0
        vbgeu   v2, v4, .Lloaded
        vsll.vi v5, v2, 2
        vadd.vx v5, v5, a1
        vlw12.v v3, 0(v5)
.Lloaded:
        join    zero, zero, 0
        vsll.vi v6, v1, 2
        vadd.vx v6, v6, a3              # &scratch[local id]
        vsw12.v v3, 0(v6)
        barrier x0, x0, 1               # every value is in scratch
        srli    t5, t2, 1               # stride s = L / 2 (uniform: a scalar loop)
.Lstep:
        beqz    t5, .Lsum
        vmv.v.x v7, t5
        la      t1, .Lskip
        setrpc  zero, t1, 0
        vbgeu   v1, v7, .Lskip          # only lanes with local id < s add
        slli    t6, t5, 2
        vadd.vx v8, v6, t6
        vlw12.v v9, 0(v8)               # scratch[id + s]
        vlw12.v v10, 0(v6)              # scratch[id]
        vfadd.vv v10, v10, v9
        vsw12.v v10, 0(v6)
.Lskip:
        join    zero, zero, 0
        barrier x0, x0, 1               # this step is complete in every warp
        srli    t5, t5, 1
        j       .Lstep
.Lsum:
        csrr    t6, wid
        bnez    t6, .Ldone              # warp 0 stores the work-group's sum (scalar code)
        lw      t6, 0(a3)               # scratch[0]
        slli    t4, t4, 2
        add     t4, t4, a2
        sw      t6, 0(t4)               # partial[group id]
.Ldone:
        ret
