# transpose: out[x * height + y] = in[y * width + x] for every global id (x, y) with x < width
# and y < height. 2D NDRange, any local size; global offsets are honoured.
# Local ids come from the linear id: x = linear mod local_x, y = linear / local_x.
# Arguments: 0 out, 4 in, 8 width, 12 height.
        .globl  transpose
transpose:
        lw      a1, 0(a0)               # out
        lw      a2, 4(a0)               # in
        lw      a3, 8(a0)               # width
        lw      a4, 12(a0)              # height
        csrr    t0, knl
        lw      t2, 24(t0)              # local size x
        lw      t3, 28(t0)              # local size y
        csrr    t4, tid
        vid.v   v1
        vadd.vx v1, v1, t4              # local linear id
        vremu.vx v2, v1, t2             # local x
        vdivu.vx v3, v1, t2             # local y
        csrr    t4, gidx
        mul     t4, t4, t2
        lw      t5, 36(t0)              # global offset x
        add     t4, t4, t5
        vadd.vx v2, v2, t4              # global x
        csrr    t4, gidy
        mul     t4, t4, t3
        lw      t5, 40(t0)              # global offset y
        add     t4, t4, t5
        vadd.vx v3, v3, t4              # global y
        vmv.v.x v4, a3
        vmv.v.x v5, a4
        la      t1, .Lend               # both branches reconverge at .Lend
        setrpc  zero, t1, 0
        vbgeu   v2, v4, .Lend           # x >= width: skip
        vbgeu   v3, v5, .Lend           # y >= height: skip (nested, same join)
        vmul.vx v6, v3, a3
        vadd.vv v6, v6, v2              # y * width + x
        vsll.vi v6, v6, 2
        vadd.vx v6, v6, a2
        vlw12.v v7, 0(v6)               # in[y * width + x]
        vmul.vx v8, v2, a4
        vadd.vv v8, v8, v3              # x * height + y
        vsll.vi v8, v8, 2
        vadd.vx v8, v8, a1
        vsw12.v v7, 0(v8)
.Lend:
        join    zero, zero, 0
        ret
