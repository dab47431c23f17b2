#!/bin/sh
# Runs cl-samples through the ICD loader and compares each one's stdout with expected/RUN.out.
# Called by the Makefile (`make run`, `make run-NAME`) after the host programs, the kernel ELFs and
# the ICD are built; the environment carries BUILD, ICD_DIR and OFFICIAL_VECADD.
#
# Usage: run.sh RUN...   where RUN is one of
#   vecadd_official          the official toolchain's vecadd.riscv (its 2023 printf runs on the host)
#   saxpy_asm                saxpy with the Ventus-assembly kernel (build/saxpy.elf)
#   reduce transpose         Ventus-assembly kernels (build/NAME.elf)
#   vecadd saxpy matmul histogram divergence hello_printf memcheck blur
#                            OpenCL C kernels built at run time (kernels/NAME.cl)
cd "$(dirname "$0")" || exit 2
: "${BUILD:=build}" "${ICD_DIR:=$PWD/build/icd}"
failed=""
for run in "$@"; do
    echo "== $run"
    env=""
    case $run in
        vecadd_official) prog=vecadd_official; args=$OFFICIAL_VECADD ;;
        saxpy_asm) prog=saxpy; args=$BUILD/saxpy.elf ;;
        reduce | transpose) prog=$run; args=$BUILD/$run.elf ;;
        *) prog=$run; args=kernels/$run.cl ;;
    esac
    if [ ! -x "$BUILD/$prog" ]; then
        echo "$run: no program $BUILD/$prog"
        failed="$failed $run"
        continue
    fi
    # shellcheck disable=SC2086 # $env is empty or one NAME=VALUE word
    env OCL_ICD_VENDORS="$ICD_DIR" $env "./$BUILD/$prog" "$args" >"$BUILD/$run.out"
    status=$?
    cat "$BUILD/$run.out"
    if [ $status -ne 0 ]; then
        echo "$run: exit status $status"
        failed="$failed $run"
    elif ! diff -u "expected/$run.out" "$BUILD/$run.out"; then
        echo "$run: output differs from expected/$run.out"
        failed="$failed $run"
    fi
done
if [ -n "$failed" ]; then
    echo "FAILED:$failed"
    exit 1
fi
echo "all samples passed: $*"
