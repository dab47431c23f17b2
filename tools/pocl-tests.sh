#!/usr/bin/env bash
# Builds pocl's own test programs (v3.1: tests/kernel, regression, runtime, workgroup, and
# examples/) against the system ICD loader and runs them with ctest against ventus-icd or pocl.
# A developer tool (docs/suites.md), not part of CI; nothing of pocl enters this repository.
#
#   tools/pocl-tests.sh POCL_SOURCE WORK_DIR [ventus|pocl] [extra ctest args...]
#
#   POCL_SOURCE  a checkout of pocl (git clone --branch v3.1 https://github.com/pocl/pocl)
#   WORK_DIR     where the build, the vendors directories and results-<driver>/ go
#   ventus       this repository's target/release/libventus_icd.so (a snapshot copy is tested)
#   pocl         Debian's pocl (pocl-opencl-icd)
#
# Environment: JOBS (make -j, default 2), CTEST_TIMEOUT (seconds per test, default 300),
# SKIP_BUILD=1 (reuse the build), RUN_DIR (run ctest in a copy of the build: two drivers at once),
# VENTUS_SO (another driver library).
# Needs (Debian 12): cmake build-essential ocl-icd-opencl-dev ocl-icd-dev opencl-c-headers
# opencl-clhpp-headers. ocl-icd-dev provides ocl-icd.pc, without which pocl's CMake does not
# link the tests against the loader. No LLVM: pocl is configured with ENABLE_LLVM=OFF and only
# the test executables (and libpoclu) are built, never libpocl.
set -euo pipefail

[ $# -ge 2 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
SRC=$(cd "$1" && pwd)
mkdir -p "$2"
WORK=$(cd "$2" && pwd)
shift 2
DRIVER=${1:-ventus}; shift || true
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENTUS_SO=${VENTUS_SO:-$ROOT/target/release/libventus_icd.so}
JOBS=${JOBS:-2}
CTEST_TIMEOUT=${CTEST_TIMEOUT:-300}
BUILD=$WORK/build
[ -f "$SRC/CMakeLists.txt" ] || { echo "no pocl source at $SRC"; exit 2; }
if [ "$DRIVER" = ventus ] && [ ! -f "$VENTUS_SO" ]; then
  (cd "$ROOT" && cargo build --release --lib)
fi

# ---------------------------------------------------------------- build
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mkdir -p "$BUILD"
  nice cmake -S "$SRC" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DENABLE_ICD=ON \
    -DENABLE_LLVM=OFF \
    -DENABLE_HOST_CPU_DEVICES=OFF \
    -DENABLE_LOADABLE_DRIVERS=OFF \
    -DENABLE_POCLCC=OFF \
    -DENABLE_TESTS=ON \
    -DENABLE_EXAMPLES=ON > "$BUILD/configure.log"
  grep -q 'TESTS_USE_ICD: 1' "$BUILD/configure.log" || {
    echo "pocl did not detect ocl-icd (install ocl-icd-dev)"; exit 1; }
  # Only the test programs (tests/ pulls in poclu); libpocl is not built.
  # -k: keep going, a test that fails to build just fails in ctest.
  nice make -k -j"$JOBS" -C "$BUILD/tests" > "$BUILD/build-tests.log" 2>&1 || true
  nice make -k -j"$JOBS" -C "$BUILD/examples" > "$BUILD/build-examples.log" 2>&1 || true
fi

# ---------------------------------------------------------------- vendors
case "$DRIVER" in
  ventus)
    VDIR=$WORK/vendors-ventus
    mkdir -p "$VDIR"
    # snapshot so that concurrent rebuilds of the driver don't change it mid-run
    cp "$VENTUS_SO" "$WORK/libventus_icd.so"
    echo "$WORK/libventus_icd.so" > "$VDIR/ventus.icd"
    export VENTUS_THREADS=${VENTUS_THREADS:-1}
    ;;
  pocl)
    VDIR=$WORK/vendors-pocl
    mkdir -p "$VDIR"
    cp /etc/OpenCL/vendors/pocl.icd "$VDIR/"
    ;;
  *) echo "unknown driver $DRIVER (ventus|pocl)"; exit 2 ;;
esac

# RUN_DIR: optionally run ctest in a copy of the build dir, so that two
# drivers can be tested at the same time (test binaries stay in $BUILD).
RUN=${RUN_DIR:-$BUILD}
if [ "$RUN" != "$BUILD" ]; then rm -rf "$RUN"; cp -a "$BUILD" "$RUN"; fi

# pocl's generated CTestCustom.cmake forces OCL_ICD_VENDORS=<build>/ocl-vendors
# and POCL_BUILDING=1 (the latter would make Debian's libpocl look for its
# kernel library in our build tree).  Replace it with one using our dir.
cat > "$RUN/CTestCustom.cmake" <<EOF
set(ENV{OCL_ICD_VENDORS} "$VDIR")
set(ENV{POCL_ENABLE_UNINIT} "1")
EOF
export OCL_ICD_VENDORS=$VDIR
unset POCL_BUILDING

# Tests that need libpocl itself or its poclcc tool (not built here):
EXCLUDE='^(pocl_version_check|pocl_test_dlopen_.*|poclcc|examples/.*_poclbin)$'

RES=$WORK/results-$DRIVER
mkdir -p "$RES"
cd "$RUN"
# run tests/ (kernel, regression, runtime, workgroup) and examples/
nice ctest --timeout "$CTEST_TIMEOUT" -j1 --output-on-failure \
  -E "$EXCLUDE" "$@" 2>&1 | tee "$RES/ctest.log" || true
cp Testing/Temporary/LastTest.log "$RES/LastTest.log" 2>/dev/null || true
grep -E 'tests passed|tests failed' "$RES/ctest.log" || true
