# saxpy: y[i] = a * x[i] + y[i] (one fused multiply-add) for every global id i < n.
# 1D NDRange, any local size; the global offset is honoured.
# Arguments (a0 = argument buffer, pocl packing): 0 y, 4 x, 8 a (float bits), 12 n.
        .globl  saxpy
saxpy:
        lw      a1, 0(a0)               # y
        lw      a2, 4(a0)               # x
        lw      a3, 8(a0)               # a
        lw      a4, 12(a0)              # n
        # global id = group id * local size + global offset + (warp's first local id + lane)
        csrr    t0, knl                 # kernel metadata buffer
        lw      t2, 24(t0)              # local size x
        lw      t3, 36(t0)              # global offset x
        csrr    t4, gidx
        mul     t4, t4, t2
        add     t4, t4, t3
        csrr    t5, tid
        vid.v   v1
        vadd.vx v1, v1, t5              # local id
        vadd.vx v2, v1, t4              # global id
        vmv.v.x v3, a4
        la      t1, .Lend               # reconvergence point of the branch below
        setrpc  zero, t1, 0
        vbgeu   v2, v3, .Lend           # lanes with id >= n skip the body
        vsll.vi v4, v2, 2               # byte offset
        vadd.vx v5, v4, a2
        vlw12.v v5, 0(v5)               # x[i]
        vadd.vx v6, v4, a1
        vlw12.v v7, 0(v6)               # y[i]
        vmv.v.x v8, a3                  # a in every lane
        vfmacc.vv v7, v8, v5            # y[i] += a * x[i]
        vsw12.v v7, 0(v6)
.Lend:
        join    zero, zero, 0
        ret
