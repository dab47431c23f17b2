#!/usr/bin/env bash
# Regenerates the seed corpus for the spirv_frontend fuzz target: every OpenCL C kernel in
# fuzz/kernels/*.cl is compiled the way the driver does (clang-15 → llvm-spirv-15) into
# OUT_DIR/NAME-O2.spv and OUT_DIR/NAME-O0.spv (like the driver, a module that llvm-spirv rejects
# at -O2 — e.g. LLVM's `freeze` — is only kept at -O0).
# Usage: bash fuzz/make_corpus.sh [OUT_DIR]   (default fuzz/corpus/spirv_frontend, git-ignored)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/corpus/spirv_frontend}"
mkdir -p "$out"
n=0
for cl in "$here"/kernels/*.cl; do
    name="$(basename "$cl" .cl)"
    for opt in -O2 -O0; do
        if clang-15 -x cl -cl-std=CL1.2 -target spir-unknown-unknown "$opt" -cl-kernel-arg-info \
            -fno-builtin-memset -emit-llvm -c - -o - < "$cl" \
            | llvm-spirv-15 --preserve-ocl-kernel-arg-type-metadata-through-string - -o "$out/$name$opt.spv" 2>/dev/null; then
            n=$((n + 1))
        else
            rm -f "$out/$name$opt.spv"
            echo "note: llvm-spirv rejected $name at $opt" >&2
        fi
    done
done
# Also the checked-in seeds and any saved crash reproducers.
cp "$here"/seeds/*.spv "$out"/ 2>/dev/null || true
cp "$here"/../tests/fixtures/spirv-crashers/*.spv "$out"/ 2>/dev/null || true
echo "wrote $n modules (+ seeds, + crashers) to $out"
