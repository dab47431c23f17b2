//! What the OpenCL C source says that SPIR-V cannot carry: the signedness of a
//! `vec_type_hint` type. SPIR-V's `VecTypeHint` execution mode encodes only the element width
//! and the component count, so `vec_type_hint(uint4)` comes back as `int4`; the kernel's
//! `CL_KERNEL_ATTRIBUTES` must name the type the programmer wrote.
//!
//! Contract: a hint is changed only to a type the source gives the same kernel that differs
//! from the SPIR-V one by signedness alone (`int4` ↔ `uint4`, `char` ↔ `uchar`, …); anything
//! the scan cannot match (macros, unusual layouts) keeps the SPIR-V name.

use crate::abi::kernel_info::KernelInfo;

/// `(kernel name, hinted type)` for every `vec_type_hint(T)` attribute of a function whose name
/// follows the attribute (attributes precede the declarator in a definition).
fn source_hints(source: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("vec_type_hint") {
        rest = &rest[at + "vec_type_hint".len()..];
        let Some(ty) = rest.trim_start().strip_prefix('(').and_then(|r| r.split(')').next()) else { continue };
        let ty: String = ty.split_whitespace().collect();
        // The function name: the identifier right before the first '(' that does not open
        // another `__attribute__((…))`.
        let mut after = rest;
        let name = loop {
            let Some(open) = after.find('(') else { break "" };
            let name = after[..open]
                .trim_end()
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default();
            if name != "__attribute__" && name != "vec_type_hint" && !after[..open].trim().is_empty() {
                break name;
            }
            // Skip the balanced parentheses that start here.
            let mut depth = 0;
            let close = after[open..].char_indices().find_map(|(i, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                (depth == 0).then_some(open + i + 1)
            });
            match close {
                Some(c) => after = &after[c..],
                None => break "",
            }
        };
        if !name.is_empty() {
            out.push((name.to_string(), ty));
        }
    }
    out
}

/// The type name without a leading `u` (`uint4` → `int4`), or the name itself.
fn unsigned_to_signed(ty: &str) -> &str {
    ["uchar", "ushort", "uint", "ulong"]
        .iter()
        .find_map(|u| ty.strip_prefix('u').filter(|_| ty.starts_with(u)))
        .unwrap_or(ty)
}

/// Replaces each kernel's SPIR-V-derived `vec_type_hint` (and its `CL_KERNEL_ATTRIBUTES` text)
/// with the source's spelling where they differ only in signedness.
pub fn apply_vec_type_hints(infos: &mut [KernelInfo], source: &str) {
    if !source.contains("vec_type_hint") {
        return;
    }
    let hints = source_hints(source);
    for info in infos.iter_mut().filter(|i| !i.vec_type_hint.is_empty()) {
        let Some((_, ty)) = hints.iter().find(|(k, _)| *k == info.name) else { continue };
        if *ty != info.vec_type_hint && unsigned_to_signed(ty) == unsigned_to_signed(&info.vec_type_hint) {
            let old = format!("vec_type_hint({})", info.vec_type_hint);
            info.attributes = info.attributes.replace(&old, &format!("vec_type_hint({ty})"));
            info.vec_type_hint = ty.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, hint: &str) -> KernelInfo {
        KernelInfo {
            name: name.into(),
            vec_type_hint: hint.into(),
            attributes: format!("reqd_work_group_size(1,1,1) vec_type_hint({hint})"),
            ..Default::default()
        }
    }

    #[test]
    fn signedness_comes_from_the_source() {
        let src = "__kernel __attribute__((vec_type_hint(uint4))) __attribute__((reqd_work_group_size(1,1,1)))
            void a(__global int* p) {}
            kernel __attribute__((vec_type_hint( ulong16 ))) void b(void) {}
            kernel __attribute__((vec_type_hint(float2))) void c(void) {}
            kernel __attribute__((vec_type_hint(int))) void d(void) {}";
        let mut infos =
            [info("a", "int4"), info("b", "long16"), info("c", "float2"), info("d", "int"), info("e", "short")];
        apply_vec_type_hints(&mut infos, src);
        let got: Vec<&str> = infos.iter().map(|i| i.vec_type_hint.as_str()).collect();
        assert_eq!(got, ["uint4", "ulong16", "float2", "int", "short"]);
        assert_eq!(infos[0].attributes, "reqd_work_group_size(1,1,1) vec_type_hint(uint4)");
    }

    #[test]
    fn unrelated_types_are_not_taken() {
        // A macro or a mismatch (the scan sees `T`): the SPIR-V name stays.
        let src = "#define T uint4\nkernel __attribute__((vec_type_hint(T))) void a(void) {}";
        let mut infos = [info("a", "int4")];
        apply_vec_type_hints(&mut infos, src);
        assert_eq!(infos[0].vec_type_hint, "int4");
        let mut infos = [info("a", "int4")];
        apply_vec_type_hints(&mut infos, "kernel __attribute__((vec_type_hint(uint8))) void a(void) {}");
        assert_eq!(infos[0].vec_type_hint, "int4");
    }
}
