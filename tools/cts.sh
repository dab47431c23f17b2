#!/usr/bin/env bash
# Runs Khronos OpenCL-CTS suites through the ICD loader against ventus-icd (or, with --pocl,
# against the system's pocl for comparison) and prints a pass/fail/skip table.
#
#   tools/cts.sh [--pocl] [--threads N] [--timeout SECONDS] CTS_BUILD_DIR SUITE[:ARGS] ...
#
# SUITE is the name after `test_` (api, basic, compiler, ...); ARGS (comma-separated) are passed
# to the suite binary, e.g. `select:-w`, `allocations:single,5,all`, `basic:vload_global`.
# Defaults: VENTUS_THREADS=2, 1800 s per suite, logs in ./cts-logs/<suite>.<driver>.log.
# VENTUS_SO=PATH tests another driver library (e.g. a snapshot copy while the tree rebuilds).
# How to build the CTS outside this tree: docs/suites.md. Nothing here is part of CI.
set -u
driver=ours threads=2 timeout=1800 logs=${CTS_LOGS:-$PWD/cts-logs}
while [ $# -gt 0 ]; do
    case $1 in
        --pocl) driver=pocl; shift ;;
        --threads) threads=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
shift
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$logs"

if [ $driver = ours ]; then
    lib=${VENTUS_SO:-$root/target/release/libventus_icd.so}
    if [ -z "${VENTUS_SO:-}" ] && [ ! -f "$lib" ]; then
        (cd "$root" && cargo build --release --lib) || exit 1
    fi
    vendors=$(mktemp -d)
    trap 'rm -rf "$vendors"' EXIT
    echo "$lib" > "$vendors/ventus.icd"
else
    vendors=$(mktemp -d)
    trap 'rm -rf "$vendors"' EXIT
    cp /etc/OpenCL/vendors/pocl.icd "$vendors/" || { echo "no /etc/OpenCL/vendors/pocl.icd" >&2; exit 1; }
fi

printf '%-28s %7s %7s %7s %9s  %s\n' suite passed failed skipped seconds result
status=0
for spec in "$@"; do
    suite=${spec%%:*}
    args=()
    [ "$spec" != "$suite" ] && IFS=, read -r -a args <<< "${spec#*:}"
    bin=$(find "$build/test_conformance" -type f -perm -u+x -name "test_$suite" | head -1)
    if [ -z "$bin" ]; then
        printf '%-28s %7s %7s %7s %9s  %s\n' "$suite" - - - - "not built (make test_$suite)"
        status=1
        continue
    fi
    log=$logs/$suite.$driver.log
    start=$(date +%s)
    (cd "$(dirname "$bin")" && OCL_ICD_VENDORS=$vendors VENTUS_THREADS=$threads \
        timeout -k 10 "$timeout" "./test_$suite" "${args[@]}") > "$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    # "name passed" at the start of a line, or after "Testing..." (select, relationals).
    count() { grep -cE "(^|\.\.\.)[A-Za-z0-9_]+ $1\$" "$log"; }
    passed=$(count passed) failed=$(count FAILED)
    # The harness's own summary ("PASSED x of y tests." / "FAILED f of y tests.", skipped tests
    # not counted in y) is exact: some tests print extra "name passed" lines for their parts.
    summary=$(grep -oE '(PASSED|FAILED) [0-9]+ of [0-9]+ tests' "$log" | tail -1)
    if [[ $summary =~ ^PASSED\ ([0-9]+)\ of ]]; then
        passed=${BASH_REMATCH[1]} failed=0
    elif [[ $summary =~ ^FAILED\ ([0-9]+)\ of\ ([0-9]+) ]]; then
        failed=${BASH_REMATCH[1]} passed=$(( BASH_REMATCH[2] - BASH_REMATCH[1] ))
    fi
    # "name skipped", also with a reason ("name skipped (requires OpenCL 3.1)"); "name test not
    # supported" (pocl indents it); a suite skipped whole at set-up: "SKIPPED n of n tests".
    skipped=$(( $(grep -cE '(^|\.\.\.)[A-Za-z0-9_]+ skipped( \(.*\))?$' "$log") \
        + $(grep -cE '(^[[:space:]]*|\.\.\.)[A-Za-z0-9_]+ test not supported$' "$log") ))
    whole=$(grep -oE 'SKIPPED [0-9]+ of [0-9]+ tests' "$log" | tail -1)
    if [ -z "$summary" ] && [[ $whole =~ ^SKIPPED\ ([0-9]+)\ of ]]; then
        skipped=$(( skipped + BASH_REMATCH[1] ))
    fi
    case $rc in
        0) result=ok ;;
        124|137) result="TIMEOUT after ${timeout}s"; status=1 ;;
        *) result="rc=$rc"; status=1 ;;
    esac
    if [ "$failed" -gt 0 ]; then
        result="$result; failed: $(grep -oE '(^|\.\.\.)[A-Za-z0-9_]+ FAILED$' "$log" | sed 's/^\.\.\.//' | awk '{print $1}' | tr '\n' ' ')"
    fi
    printf '%-28s %7s %7s %7s %9s  %s\n' "$suite${args[*]:+ ${args[*]}}" "$passed" "$failed" "$skipped" "$secs" "$result"
done
echo "logs: $logs"
exit $status
