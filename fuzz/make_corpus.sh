#!/usr/bin/env bash
# Regenerates the seed corpora of both fuzz targets (idempotent: rerunning rewrites the same files;
# inputs libFuzzer added to the directories are kept).
#
# spirv_frontend: every OpenCL C kernel in fuzz/kernels/*.cl is compiled the way the driver does
# (clang-15 → llvm-spirv-15) into SPV_DIR/NAME-O2.spv and SPV_DIR/NAME-O0.spv (like the driver, a
# module that llvm-spirv rejects at -O2 — e.g. LLVM's `freeze` — is only kept at -O0).
#
# elf_loader: into ELF_DIR
#   * official-*: every ELF file under ../shared/testdata/ventus-official/ (the official
#     toolchain's; read by path, never kept in git; VENTUS_OFFICIAL_DIR overrides the folder);
#   * asm-NAME-meta.elf, asm-NAME-plain.elf: cl-samples/kernels/NAME.s through `ventus-run asm`,
#     with and without the argument metadata of NAME.decl;
#   * NAME.elf, NAME-O0.elf, NAME.obj per fuzz/kernels/*.cl and globals.elf/.obj (printf,
#     program-scope variables): what the driver hands an application as CL_PROGRAM_BINARIES
#     (fuzz/driver_binaries.py, through the ICD loader).
#   The last two need a built driver: VENTUS_RUN and VENTUS_ICD_LIB, else the newest
#   ventus-run / libventus_icd.so in /work/target-fuzz/release, target/release, target/debug
#   (build one with `CARGO_TARGET_DIR=/work/target-fuzz cargo build --release`); without one
#   they are skipped with a note.
#
# Usage: bash fuzz/make_corpus.sh [SPV_DIR [ELF_DIR]]
#        (defaults fuzz/corpus/spirv_frontend and fuzz/corpus/elf_loader, git-ignored)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/corpus/spirv_frontend}"
elf_out="${2:-$here/corpus/elf_loader}"
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

# ---- elf_loader ----
mkdir -p "$elf_out"
official="${VENTUS_OFFICIAL_DIR:-$here/../../shared/testdata/ventus-official}"
m=0
if [ -d "$official" ]; then
    while IFS= read -r -d '' f; do
        if [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; then
            rel="${f#"$official"/}"
            install -m 0644 "$f" "$elf_out/official-${rel//\//-}"  # a writable copy: reruns overwrite it
            m=$((m + 1))
        fi
    done < <(find "$official" -type f -print0 | sort -z)
else
    echo "note: $official not found: no official ELFs" >&2
fi
# The newest existing file among the candidates (empty if none).
newest() { ls -t "$@" 2>/dev/null | head -n 1 || true; }
root="$here/.."
run="${VENTUS_RUN:-$(newest /work/target-fuzz/release/ventus-run "$root"/target/release/ventus-run "$root"/target/debug/ventus-run)}"
lib="${VENTUS_ICD_LIB:-$(newest /work/target-fuzz/release/libventus_icd.so "$root"/target/release/libventus_icd.so "$root"/target/debug/libventus_icd.so)}"
if [ -n "$run" ] && [ -x "$run" ]; then
    # The assembly kernels of cl-samples (one source of hand-written kernels for both).
    for s in "$root"/cl-samples/kernels/*.s; do
        k=$(basename "$s" .s)
        "$run" asm "$s" -o "$elf_out/asm-$k-plain.elf" 2>/dev/null && m=$((m + 1))
        "$run" asm "$s" --kernel-info "${s%.s}.decl" -o "$elf_out/asm-$k-meta.elf" 2>/dev/null && m=$((m + 1))
    done
else
    echo "note: no ventus-run binary: skipping the ventus-run asm seeds" >&2
fi
if [ -n "$lib" ] && [ -f "$lib" ]; then
    echo "driver: $lib"
    python3 "$here/driver_binaries.py" "$lib" "$elf_out" "$here"/kernels/*.cl || echo "note: driver_binaries.py failed" >&2
else
    echo "note: no libventus_icd.so: skipping the driver-built binaries" >&2
fi
echo "wrote $m official/asm ELFs (+ driver binaries) to $elf_out; $(ls "$elf_out" | wc -l) files there"
