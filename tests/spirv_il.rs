//! Hand-assembled SPIR-V through `clCreateProgramWithIL` and Debian's ICD loader: constructs
//! clang never emits but the SPIR-V environment allows (the Khronos CTS `spirv_new` suite writes
//! them by hand), each built with `rspirv` and run on the device, results checked on the host.
//!
//! * a `CPacked` struct `{uint, uchar}` stored whole through an `OpInBoundsPtrAccessChain`
//!   without an `Aligned` operand: elements 5 bytes apart, so the `uint` member of every odd
//!   element is misaligned and must be stored in pieces (a word store faults);
//! * the same struct copied element by element with `OpCopyMemory` (odd elements misaligned on
//!   both sides);
//! * `OpVectorTimesScalar` on `float4` (double and half have their own lowering).

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;

use clrun::{run_il, Arg};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionModel, FunctionControl, MemoryModel, StorageClass,
};

/// Ids of a kernel module's common part.
struct Common {
    void: u32,
    uint: u32,
    uchar: u32,
    uint3: u32,
    /// The `GlobalInvocationId` input variable.
    gid: u32,
}

/// A kernel module's common part: capabilities, memory model, `void`, `uint`, `uchar` and the
/// `GlobalInvocationId` input.
fn module() -> (Builder, Common) {
    let mut b = Builder::new();
    b.set_version(1, 0);
    for c in [Capability::Addresses, Capability::Kernel, Capability::Int8] {
        b.capability(c);
    }
    b.memory_model(AddressingModel::Physical32, MemoryModel::OpenCL);
    let (void, uint, uchar) = (b.type_void(), b.type_int(32, 0), b.type_int(8, 0));
    let uint3 = b.type_vector(uint, 3);
    let input = b.type_pointer(None, StorageClass::Input, uint3);
    let gid = b.variable(input, None, StorageClass::Input, None);
    b.decorate(gid, Decoration::BuiltIn, [Operand::BuiltIn(BuiltIn::GlobalInvocationId)]);
    (b, Common { void, uint, uchar, uint3, gid })
}

/// `get_global_id(0)` inside the current block.
fn global_id_x(b: &mut Builder, c: &Common) -> u32 {
    let g = b.load(c.uint3, None, c.gid, None, []).unwrap();
    b.composite_extract(c.uint, None, g, [0]).unwrap()
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Builds `il`, runs `name` over `n` work-items (groups of 32) with `bufs` as its buffer
/// arguments in order, returns the buffers afterwards.
fn run(il: &[u8], name: &str, n: usize, bufs: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let args: Vec<Arg> = bufs.iter().map(|b| Arg::Buf(b.clone())).collect();
    run_il(il, name, &[n], Some(&[32]), &args)
}

#[test]
fn packed_struct_stores_at_unaligned_offsets() {
    const N: usize = 96;
    let (mut b, c) = module();
    let (void, uint, uchar, gid) = (c.void, c.uint, c.uchar, c.gid);
    let packed = b.type_struct([uint, uchar]);
    b.decorate(packed, Decoration::CPacked, []);
    let ptr = b.type_pointer(None, StorageClass::CrossWorkgroup, packed);
    let fn_ty = b.type_function(void, [ptr]);
    let ival = b.constant_bit32(uint, 2_100_483_600);
    let cval = b.constant_bit32(uchar, 127);
    let value = b.constant_composite(packed, [ival, cval]);
    let f = b.begin_function(void, None, FunctionControl::NONE, fn_ty).unwrap();
    let out = b.function_parameter(ptr).unwrap();
    b.begin_block(None).unwrap();
    let i = global_id_x(&mut b, &c);
    let elem = b.in_bounds_ptr_access_chain(ptr, None, out, i, []).unwrap();
    b.store(elem, value, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::Kernel, f, "packed", [gid]);
    let il = words_to_bytes(&b.module().assemble());

    // One spare byte past the last element stays untouched.
    let got = run(&il, "packed", N, &[vec![0xAAu8; 5 * N + 1]]).remove(0);
    for k in 0..N {
        let e = &got[5 * k..5 * k + 5];
        let ival = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        assert_eq!((ival, e[4]), (2_100_483_600, 127), "element {k} (byte offset {})", 5 * k);
    }
    assert_eq!(got[5 * N], 0xAA, "the byte after the last element");
}

#[test]
fn packed_structs_copy_at_unaligned_offsets() {
    const N: usize = 64;
    let (mut b, c) = module();
    let (void, uint, uchar, gid) = (c.void, c.uint, c.uchar, c.gid);
    let ushort = b.type_int(16, 0);
    let packed = b.type_struct([uchar, uint, ushort]);
    b.decorate(packed, Decoration::CPacked, []);
    let ptr = b.type_pointer(None, StorageClass::CrossWorkgroup, packed);
    let fn_ty = b.type_function(void, [ptr, ptr]);
    let f = b.begin_function(void, None, FunctionControl::NONE, fn_ty).unwrap();
    let (src, dst) = (b.function_parameter(ptr).unwrap(), b.function_parameter(ptr).unwrap());
    b.begin_block(None).unwrap();
    let i = global_id_x(&mut b, &c);
    let s = b.in_bounds_ptr_access_chain(ptr, None, src, i, []).unwrap();
    let d = b.in_bounds_ptr_access_chain(ptr, None, dst, i, []).unwrap();
    b.copy_memory(d, s, None, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::Kernel, f, "copy", [gid]);
    let il = words_to_bytes(&b.module().assemble());

    // 7-byte elements {uchar, uint, ushort}: every byte distinct.
    let src: Vec<u8> = (0..7 * N).map(|k| (k * 37 + 11) as u8).collect();
    let out = run(&il, "copy", N, &[src.clone(), vec![0u8; 7 * N]]);
    assert_eq!(out[1], src, "copied bytes");
    assert_eq!(out[0], src, "source unchanged");
}

#[test]
fn vector_times_scalar_on_float4() {
    const N: usize = 64;
    let (mut b, c) = module();
    let (void, gid) = (c.void, c.gid);
    let float = b.type_float(32, None);
    let float4 = b.type_vector(float, 4);
    let p4 = b.type_pointer(None, StorageClass::CrossWorkgroup, float4);
    let p1 = b.type_pointer(None, StorageClass::CrossWorkgroup, float);
    let fn_ty = b.type_function(void, [p4, p1, p4]);
    let f = b.begin_function(void, None, FunctionControl::NONE, fn_ty).unwrap();
    let (lhs, rhs, res) =
        (b.function_parameter(p4).unwrap(), b.function_parameter(p1).unwrap(), b.function_parameter(p4).unwrap());
    b.begin_block(None).unwrap();
    let i = global_id_x(&mut b, &c);
    let pl = b.in_bounds_ptr_access_chain(p4, None, lhs, i, []).unwrap();
    let pr = b.in_bounds_ptr_access_chain(p1, None, rhs, i, []).unwrap();
    let po = b.in_bounds_ptr_access_chain(p4, None, res, i, []).unwrap();
    let v = b.load(float4, None, pl, None, []).unwrap();
    let s = b.load(float, None, pr, None, []).unwrap();
    let r = b.vector_times_scalar(float4, None, v, s).unwrap();
    b.store(po, r, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::Kernel, f, "scale", [gid]);
    let il = words_to_bytes(&b.module().assemble());

    let lhs: Vec<f32> = (0..4 * N).map(|k| k as f32 * 0.25 - 7.0).collect();
    let rhs: Vec<f32> = (0..N).map(|k| 1.5 - k as f32 * 0.125).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let out = run(&il, "scale", N, &[bytes(&lhs), bytes(&rhs), vec![0u8; 16 * N]]);
    let got: Vec<f32> = out[2].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    for k in 0..4 * N {
        assert_eq!(got[k].to_bits(), (lhs[k] * rhs[k / 4]).to_bits(), "lane {} of work-item {}", k % 4, k / 4);
    }
}
