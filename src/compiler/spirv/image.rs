//! Images and samplers (OpenCL C §6.15.15) in software. An image value is the address of its
//! descriptor (`abi::image_desc`), a sampler value its `CLK_*` word, a sampled image the pair;
//! the image instructions become inlined calls of the device library
//! (`compiler/softlib/images.cl`, linked into every program that declares an image type), the
//! size and format queries plain descriptor loads.
//!
//! Contract: [`Lowerer::image_op`] handles `OpSampledImage`, `OpImageRead`, `OpImageWrite`,
//! `OpImageSampleExplicitLod` (`Lod` 0, as OpenCL produces it), `OpImageQuerySizeLod`,
//! `OpImageQuerySize`, `OpImageQueryOrder` and `OpImageQueryFormat` for every image type OpenCL
//! has; results of `read_imagef`/`h` are float/half vectors, of `read_imagei`/`ui` 32-bit integer
//! vectors (the image's data type decides sign- or zero-extension, so the instruction's
//! `SignExtend`/`ZeroExtend` hint is not needed). Depth images (`image2d_depth_t`,
//! `image2d_array_depth_t`) are 2D images whose reads return (or whose sampled reads' first
//! component is) the red channel and whose writes take one float. Coordinates are widened to four components
//! for the library (x, y, z — a 1D array's layer is y, a 2D array's z — and an ignored w).

use super::super::ir::*;
use super::super::CompileError;
use super::lower::{Frame, Lowerer};
use super::types::SType;
use super::{id_operand, invalid, lit_operand};
use crate::abi::image_desc::{self, word};
use rspirv::dr::{Instruction, Operand};
use spirv::Op as S;

/// The library function every image program links (see `lower_modules`).
pub(super) const LIBRARY_MARKER: &str = "__vt_img_sample_f";

/// `OpTypeImage` as the front end keeps it.
pub(super) fn image_type(i: &Instruction) -> Result<SType, CompileError> {
    let dim = match i.operands.get(1) {
        Some(Operand::Dim(d)) => *d as u32,
        _ => return Err(invalid("OpTypeImage without a dimensionality")),
    };
    let arrayed = lit_operand(i, 3)? != 0;
    let access = match i.operands.get(7) {
        Some(Operand::AccessQualifier(a)) => *a as u32,
        _ => 0,
    };
    // 1D, 2D, 3D and Buffer are OpenCL's; depth images (`cl_khr_depth_images`) are 2D ones,
    // arrayed or not; multisampled images (`cl_khr_gl_msaa_sharing`) are not offered.
    let depth = lit_operand(i, 2)? == 1;
    if ![0, 1, 2, 5].contains(&dim) || depth && dim != 1 || lit_operand(i, 4)? != 0 {
        return Err(CompileError::unsupported("multisampled, non-2D depth or non-OpenCL image types"));
    }
    Ok(SType::Image { dim, arrayed, access })
}

/// The descriptor words `OpImageQuerySize(Lod)` returns for an image of `dim`/`arrayed`.
fn size_words(dim: u32, arrayed: bool) -> Vec<usize> {
    let mut w = match dim {
        1 => vec![word::WIDTH, word::HEIGHT],
        2 => vec![word::WIDTH, word::HEIGHT, word::DEPTH],
        _ => vec![word::WIDTH],
    };
    if arrayed {
        w.push(word::ARRAY_SIZE);
    }
    w
}

impl Lowerer<'_> {
    /// The `OpTypeImage` of value `id` (an image or a sampled image).
    fn image_of(&self, id: u32) -> Result<(u32, bool), CompileError> {
        let ty = self.type_of(id)?;
        let ty = match self.m.types.get(ty)? {
            SType::SampledImage { image } => *image,
            _ => ty,
        };
        match self.m.types.get(ty)? {
            SType::Image { dim, arrayed, .. } => Ok((*dim, *arrayed)),
            other => Err(invalid(format!("an image operand of type {other:?}"))),
        }
    }

    /// Word `w` of the descriptor at `img`.
    fn descriptor_word(&mut self, b: BlockId, img: Value, w: usize) -> Value {
        let p = self.offset_ptr(b, img, w as u32 * 4);
        self.f.push(b, Ty::I32, Op::Load(p))
    }

    /// A coordinate widened to the library's four components.
    fn coord4(&mut self, coord: Vec<Value>) -> Result<(Vec<Value>, bool), CompileError> {
        let ty = coord.first().map(|v| self.f.ty(*v)).ok_or(invalid("an empty image coordinate"))?;
        let float = ty == Ty::F32;
        if !float && ty != Ty::I32 || coord.len() > 4 {
            return Err(invalid("an image coordinate that is not 1-4 ints or floats"));
        }
        let mut c = coord;
        while c.len() < 4 {
            let z = self.const_val(ty, 0);
            c.push(z);
        }
        Ok((c, float))
    }

    /// Lowers one image instruction (see the module documentation).
    pub(super) fn image_op(&mut self, fr: &mut Frame, cur: &mut BlockId, i: &Instruction) -> Result<(), CompileError> {
        let op = i.class.opcode;
        match op {
            S::SampledImage => {
                let (r, _) = self.result(i)?;
                let img = self.get1(fr, id_operand(i, 0)?)?;
                let smp = self.get1(fr, id_operand(i, 1)?)?;
                fr.vals.insert(r, vec![img, smp]);
            }
            S::ImageRead | S::ImageSampleExplicitLod => {
                let (r, ty) = self.result(i)?;
                let src = self.get(fr, id_operand(i, 0)?)?;
                let (img, smp) = match (op, src.as_slice()) {
                    (S::ImageRead, [img]) => (*img, self.const_val(Ty::I32, 0)),
                    (S::ImageSampleExplicitLod, [img, smp]) => (*img, *smp),
                    _ => return Err(invalid(format!("{op:?} of a value that is not an image"))),
                };
                let coord = self.get(fr, id_operand(i, 1)?)?;
                let (coord, float_coord) = self.coord4(coord)?;
                let leaves = self.m.types.leaves(ty)?;
                let elem = leaves.first().map(|(_, t)| *t).ok_or(invalid("an image read without a result"))?;
                let float_result = elem != Ty::I32;
                let name = match (float_result, float_coord) {
                    (true, true) => "__vt_img_sample_f",
                    (false, true) => "__vt_img_sample_i",
                    (true, false) => "__vt_img_read_f",
                    (false, false) => "__vt_img_read_i",
                };
                let texel = self.call_library(cur, name, vec![vec![img], vec![smp], coord])?;
                if texel.len() != 4 || leaves.len() > 4 {
                    return Err(invalid("an image read of other than four components"));
                }
                let out = match elem {
                    // read_imageh: the float texel rounded to half.
                    Ty::I16 => {
                        texel.iter().map(|v| self.float_to_half(*cur, *v, super::half::HalfRound::Rte)).collect()
                    }
                    Ty::F32 | Ty::I32 => texel,
                    other => return Err(invalid(format!("an image read returning {other:?}"))),
                };
                fr.vals.insert(r, out[..leaves.len()].to_vec());
            }
            S::ImageWrite => {
                let img = self.get1(fr, id_operand(i, 0)?)?;
                let coord = self.get(fr, id_operand(i, 1)?)?;
                let (coord, float_coord) = self.coord4(coord)?;
                if float_coord {
                    return Err(invalid("an image write with float coordinates"));
                }
                let mut texel = self.get(fr, id_operand(i, 2)?)?;
                // A depth image's texel is one float (its red channel).
                if texel.len() == 1 && self.f.ty(texel[0]) == Ty::F32 {
                    let z = self.const_val(Ty::F32, 0);
                    texel.extend([z, z, z]);
                }
                if texel.len() != 4 {
                    return Err(invalid("an image write of other than four components or one depth"));
                }
                let (name, texel) = match self.f.ty(texel[0]) {
                    Ty::F32 => ("__vt_img_write_f", texel),
                    // write_imageh: a half is exactly a float.
                    Ty::I16 => ("__vt_img_write_f", texel.iter().map(|h| self.half_to_float(*cur, *h)).collect()),
                    Ty::I32 => ("__vt_img_write_i", texel),
                    other => return Err(invalid(format!("an image write of {other:?}"))),
                };
                self.call_library(cur, name, vec![vec![img], coord, texel])?;
            }
            S::ImageQuerySizeLod | S::ImageQuerySize => {
                let (r, ty) = self.result(i)?;
                let img_id = id_operand(i, 0)?;
                let (dim, arrayed) = self.image_of(img_id)?;
                let img = self.get1(fr, img_id)?;
                let words = size_words(dim, arrayed);
                let mut out = Vec::new();
                // Each component as the result type has it (`size_t` ones — `get_image_array_size`
                // of a `Physical64` module — zero-extended).
                for (k, (_, t)) in self.m.types.leaves(ty)?.into_iter().enumerate() {
                    let v = match words.get(k) {
                        Some(w) => self.descriptor_word(*cur, img, *w),
                        None => self.const_val(Ty::I32, 0),
                    };
                    out.push(self.resize(*cur, v, t, false));
                }
                fr.vals.insert(r, out);
            }
            S::ImageQueryOrder | S::ImageQueryFormat => {
                let (r, _) = self.result(i)?;
                let img = self.get1(fr, id_operand(i, 0)?)?;
                let (w, base) = if op == S::ImageQueryOrder {
                    (word::ORDER, image_desc::ORDER_BASE)
                } else {
                    (word::DATA_TYPE, image_desc::DATA_TYPE_BASE)
                };
                let v = self.descriptor_word(*cur, img, w);
                let k = self.const_val(Ty::I32, base as u64);
                let out = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::Sub, v, k));
                fr.vals.insert(r, vec![out]);
            }
            _ => return Err(self.err(&format!("the image instruction {op:?}"))),
        }
        Ok(())
    }

    /// The sampler word of an `OpConstantSampler`.
    pub(super) fn constant_sampler(&mut self, c: &Instruction) -> Result<Value, CompileError> {
        let mode = match c.operands.first() {
            Some(Operand::SamplerAddressingMode(m)) => *m as u32,
            _ => return Err(invalid("OpConstantSampler without an addressing mode")),
        };
        let normalized = lit_operand(c, 1)? != 0;
        let linear = match c.operands.get(2) {
            Some(Operand::SamplerFilterMode(f)) => *f as u32 == 1,
            _ => return Err(invalid("OpConstantSampler without a filter mode")),
        };
        Ok(self.const_val(Ty::I32, image_desc::sampler::from_spirv(mode, normalized, linear) as u64))
    }
}

/// Whether `op` is an image instruction [`Lowerer::image_op`] lowers.
pub(super) fn is_image_op(op: S) -> bool {
    matches!(
        op,
        S::SampledImage
            | S::ImageRead
            | S::ImageWrite
            | S::ImageSampleExplicitLod
            | S::ImageQuerySizeLod
            | S::ImageQuerySize
            | S::ImageQueryOrder
            | S::ImageQueryFormat
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_queries_follow_the_dimensionality() {
        assert_eq!(size_words(0, false), vec![word::WIDTH]);
        assert_eq!(size_words(5, false), vec![word::WIDTH]);
        assert_eq!(size_words(0, true), vec![word::WIDTH, word::ARRAY_SIZE]);
        assert_eq!(size_words(1, true), vec![word::WIDTH, word::HEIGHT, word::ARRAY_SIZE]);
        assert_eq!(size_words(2, false), vec![word::WIDTH, word::HEIGHT, word::DEPTH]);
    }
}
