#!/usr/bin/env bash
# Turns OpenCL C kernels into front-end filetests (tests/filetests/spirv/NAME.spvasm): clang-15
# and llvm-spirv-15 with the driver's main options, disassembled by spirv-dis; the OpenCL C source
# is kept as comments above the assembly. Then bless the expectations:
#   tools/spirv_filetest.sh k.cl [more.cl ...] && VENTUS_BLESS=1 cargo test --lib filetests
# The tests themselves need only spirv-as (spirv-tools), not clang.
set -euo pipefail
ext="-all,+cl_khr_byte_addressable_store,+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics"
ext="$ext,+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,+cl_khr_int64_base_atomics"
ext="$ext,+cl_khr_int64_extended_atomics,+cl_khr_fp64,+cl_khr_fp16"
out=tests/filetests/spirv
for src in "$@"; do
  name=$(basename "$src" .cl)
  # `// std: CL2.0` and `// opt: -O0` lines in the source override the defaults.
  std=$(sed -n 's|^// std: *||p' "$src" | head -1); std=${std:-CL1.2}
  opt=$(sed -n 's|^// opt: *||p' "$src" | head -1); opt=${opt:--O2}
  tmp=$(mktemp -d)
  clang-15 -x cl -cl-std="$std" -target spir-unknown-unknown "$opt" -cl-kernel-arg-info -fno-builtin-memset \
    -U__IMAGE_SUPPORT__ -fno-vectorize -fno-slp-vectorize -Wno-format -Xclang -cl-ext="$ext" \
    -emit-llvm -c "$src" -o "$tmp/k.bc"
  llvm-spirv-15 --preserve-ocl-kernel-arg-type-metadata-through-string "$tmp/k.bc" -o "$tmp/k.spv"
  {
    echo "; run: spirv"
    sed 's|^|; |' "$src"
    spirv-dis "$tmp/k.spv" | grep -v '^; \(Version\|Generator\|Bound\|Schema\)'
  } > "$out/$name.spvasm"
  rm -rf "$tmp"
  echo "$out/$name.spvasm"
done
