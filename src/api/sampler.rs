//! Sampler entry points (OpenCL 3.0 §5.7): creation, reference counting, `clGetSamplerInfo`.
//!
//! Contracts: every spec error clause is checked here; the object is
//! [`crate::core::image::Sampler`], whose word kernels receive for a `sampler_t` argument.

use super::{check, info, object, status};
use crate::cl::object::Obj;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::image::Sampler;
use libc::size_t;
use std::ffi::c_void;

/// Sampler addressing modes.
const ADDRESSING: [cl_addressing_mode; 5] =
    [CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT];
/// Sampler filter modes.
const FILTERS: [cl_filter_mode; 2] = [CL_FILTER_NEAREST, CL_FILTER_LINEAR];

fn create(
    context: cl_context,
    normalized: cl_bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
    properties: Vec<cl_sampler_properties>,
) -> CLResult<cl_sampler> {
    // Spec: "CL_INVALID_CONTEXT if context is not a valid context."
    let ctx = Obj::<Context>::get(context)?;
    // Spec: "CL_INVALID_VALUE if addressing_mode, filter_mode, normalized_coords or a
    // combination of these arguments are not valid."
    check(normalized == CL_TRUE || normalized == CL_FALSE, CL_INVALID_VALUE)?;
    check(ADDRESSING.contains(&addressing), CL_INVALID_VALUE)?;
    check(FILTERS.contains(&filter), CL_INVALID_VALUE)?;
    let s = Sampler { context: ctx, normalized: normalized == CL_TRUE, addressing, filter, properties };
    Ok(Obj::new(s).handle())
}

pub extern "C" fn clCreateSampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    object(errcode_ret, || create(context, normalized_coords, addressing_mode, filter_mode, Vec::new()))
}

pub extern "C" fn clCreateSamplerWithProperties(
    context: cl_context,
    sampler_properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    object(errcode_ret, || {
        // Spec: "CL_INVALID_CONTEXT if context is not a valid context."
        Obj::<Context>::get(context)?;
        // Name/value pairs: a value may be 0 (CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE).
        let list = super::context::property_pairs(sampler_properties)?;
        // Defaults: normalized coordinates, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST.
        let (mut normalized, mut addressing, mut filter) = (CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
        let mut seen = Vec::new();
        for pair in list.chunks(2).take_while(|p| p[0] != 0) {
            let value = *pair.get(1).ok_or(CL_INVALID_VALUE)?;
            // Spec: "CL_INVALID_VALUE if the property name in sampler_properties is not a
            // supported property name, if the value specified for a supported property name is
            // not valid, or if the same property name is specified more than once."
            check(!seen.contains(&pair[0]), CL_INVALID_VALUE)?;
            seen.push(pair[0]);
            match pair[0] as cl_sampler_info {
                CL_SAMPLER_NORMALIZED_COORDS => normalized = value as cl_bool,
                CL_SAMPLER_ADDRESSING_MODE => addressing = value as cl_addressing_mode,
                CL_SAMPLER_FILTER_MODE => filter = value as cl_filter_mode,
                _ => return Err(CL_INVALID_VALUE),
            }
        }
        create(context, normalized, addressing, filter, list)
    })
}

pub extern "C" fn clRetainSampler(sampler: cl_sampler) -> cl_int {
    status(|| Obj::<Sampler>::retain(sampler))
}

pub extern "C" fn clReleaseSampler(sampler: cl_sampler) -> cl_int {
    status(|| Obj::<Sampler>::release(sampler).map(|_| ()))
}

pub extern "C" fn clGetSamplerInfo(
    sampler: cl_sampler,
    param_name: cl_sampler_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_SAMPLER if sampler is a not a valid sampler object."
        let smp = Obj::<Sampler>::get(sampler)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        match param_name {
            CL_SAMPLER_REFERENCE_COUNT => info::write(&smp.api_ref_count(), s, v, r),
            CL_SAMPLER_CONTEXT => info::write(&info::Ptr(smp.context.handle()), s, v, r),
            CL_SAMPLER_NORMALIZED_COORDS => info::write(&(smp.normalized as cl_bool), s, v, r),
            CL_SAMPLER_ADDRESSING_MODE => info::write(&smp.addressing, s, v, r),
            CL_SAMPLER_FILTER_MODE => info::write(&smp.filter, s, v, r),
            CL_SAMPLER_PROPERTIES => info::write(&smp.properties, s, v, r),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}
