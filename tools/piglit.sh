#!/usr/bin/env bash
# Runs piglit's OpenCL tests (its `cl` profile, 710 tests) through the ICD loader against
# ventus-icd (or, with --pocl, against the system's pocl for comparison) with piglit's own runner,
# then prints pass/fail/skip/crash/timeout counts and, once both drivers have results, the tests
# that pass on one driver but not on the other.
#
#   tools/piglit.sh [--pocl] [--threads N] [--timeout SECONDS] PIGLIT_DIR [piglit-run args] ...
#
# PIGLIT_DIR is piglit's `make install` prefix (holding bin/piglit and lib/piglit), a build dir
# that has been installed (its CMAKE_INSTALL_PREFIX is used) or an in-tree build. Extra args go
# to `piglit run`: `-t REGEX`/`-x REGEX` select tests (`-t 'program@execute@vload'`), `-1` runs
# one test at a time. Defaults: VENTUS_THREADS=2, 120 s per test, concurrent tests (-c), results
# in ./piglit-results/<driver>/ (PIGLIT_RESULTS=DIR for another place), a fresh kernel cache per
# run. VENTUS_SO=PATH tests another driver library (e.g. a snapshot copy while the tree rebuilds).
# How to build piglit's CL tests outside this tree: docs/suites.md. Nothing here is part of CI.
set -u
driver=ours threads=2 timeout=120 results=${PIGLIT_RESULTS:-$PWD/piglit-results}
while [ $# -gt 0 ]; do
    case $1 in
        --pocl) driver=pocl; shift ;;
        --threads) threads=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
dir=$(cd "$1" && pwd) || exit 2
shift
root=$(cd "$(dirname "$0")/.." && pwd)

# piglit's runner finds its test programs and .cl files beside its own framework (an out-of-tree
# build dir alone lacks the .cl files), so run the `piglit` of an install or of an in-tree build.
if [ -f "$dir/CMakeCache.txt" ] && [ ! -d "$dir/framework" ]; then
    prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$dir/CMakeCache.txt")
    [ -x "$prefix/bin/piglit" ] || {
        echo "$dir is a build dir: run \`make install\` (or build in-tree)" >&2; exit 2; }
    dir=$prefix
fi
if [ -x "$dir/bin/piglit" ] && [ -d "$dir/lib/piglit/framework" ]; then
    runner=$dir/bin/piglit data=$dir/lib/piglit
elif [ -x "$dir/piglit" ] && [ -d "$dir/framework" ]; then
    runner=$dir/piglit data=$dir
else
    echo "no piglit runner in $dir (expected bin/piglit or an in-tree build)" >&2
    exit 2
fi
[ -f "$data/tests/cl.xml.gz" ] || {
    echo "no $data/tests/cl.xml.gz: build piglit with PIGLIT_BUILD_CL_TESTS=ON" >&2; exit 2; }
# piglit runs every test from the directory of the `piglit` it was started as; in an install that
# is bin/, where program@build@include-directories (`-I tests/cl/program/build`, a header that
# `make install` leaves out) cannot find its header: it fails there on every driver.
[ "$data" = "$dir" ] || echo "note: an install: include-directories fails on any driver" \
    "(an in-tree build runs it, see docs/suites.md)" >&2
# piglit needs mako and numpy: Debian's python3-mako/python3-numpy serve /usr/bin/python3, not a
# pyenv or virtualenv python3 that may come first on PATH.
python=${PIGLIT_PYTHON:-/usr/bin/python3}

# The loader sees exactly one platform: a private vendors dir whose .icd names the library.
# Each driver also gets a fresh kernel cache in it, so every run compiles every kernel and run
# times compare (a warm ~/.cache/pocl makes a pocl run six times faster).
vendors=$(mktemp -d)
trap 'rm -rf "$vendors"' EXIT
if [ $driver = ours ]; then
    lib=${VENTUS_SO:-$root/target/release/libventus_icd.so}
    if [ -z "${VENTUS_SO:-}" ] && [ ! -f "$lib" ]; then
        (cd "$root" && cargo build --release --lib) || exit 1
    fi
    echo "$lib" > "$vendors/ventus.icd"
    export VENTUS_CACHE_DIR=${VENTUS_CACHE_DIR:-$vendors/cache}
else
    cp /etc/OpenCL/vendors/pocl.icd "$vendors/" || { echo "no /etc/OpenCL/vendors/pocl.icd" >&2; exit 1; }
    export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$vendors/cache}
fi

# Concurrency: piglit runs CL tests one at a time unless the machine has a DRM render node; -c
# runs them all concurrently, as many as there are cores. On 2 cores that took the profile from
# 340 s to 210 s with our driver (VENTUS_THREADS=2 each) and pocl's from 1580 s to 970 s, with the
# same results: much of a test is process start-up and compiling, which overlap. `-1` among the
# extra args restores one at a time. Per-test timeout: piglit's CL default is 60 s; the slowest
# test takes ~15 s.
concurrency=(-c)
for arg in "$@"; do
    case $arg in -c|--all-concurrent|-1|--no-concurrency) concurrency=() ;; esac
done
mkdir -p "$results" && results=$(cd "$results" && pwd)
out=$results/$driver
start=$(date +%s)
OCL_ICD_VENDORS=$vendors VENTUS_THREADS=$threads "$python" "$runner" run cl "${concurrency[@]}" \
    --timeout "$timeout" -o -n "$driver" "$@" "$out" > "$results/$driver.log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
[ -f "$out/results.json.bz2" ] || { tail -20 "$results/$driver.log" >&2; exit 1; }

# Counts (one line per driver that has results), the slowest tests of this run, and the
# comparison of the two drivers, read from piglit's results.json.bz2.
"$python" - "$results" "$driver" <<'EOF'
import bz2, json, os, sys
results, driver = sys.argv[1], sys.argv[2]
kinds = ['pass', 'fail', 'skip', 'crash', 'timeout', 'warn', 'incomplete']
runs = {}
for d in ('ours', 'pocl'):
    path = os.path.join(results, d, 'results.json.bz2')
    if os.path.exists(path):
        with bz2.open(path, 'rt') as f:
            runs[d] = json.load(f)
print('%-6s %s %7s %9s' % ('driver', ' '.join('%7s' % k for k in kinds), 'total', 'seconds'))
for d, r in runs.items():
    tests = r['tests']
    n = {k: sum(t['result'] == k for t in tests.values()) for k in kinds}
    wall = r['time_elapsed']['end'] - r['time_elapsed']['start']
    print('%-6s %s %7d %9.0f' % (d, ' '.join('%7d' % n[k] for k in kinds), len(tests), wall))
tests = runs[driver]['tests']
dur = sorted(((t['time']['end'] - t['time']['start'], name) for name, t in tests.items()),
             reverse=True)
print('slowest (%s): %s' % (driver, ', '.join('%s %.0fs' % (name, s) for s, name in dur[:5])))
if len(runs) == 2:
    ours, pocl = runs['ours']['tests'], runs['pocl']['tests']
    for a, b in (('pocl', 'ours'), ('ours', 'pocl')):
        ta, tb = runs[a]['tests'], runs[b]['tests']
        diff = sorted(n for n in ta if ta[n]['result'] == 'pass' and n in tb
                      and tb[n]['result'] != 'pass')
        print('pass on %s, not on %s: %d' % (a, b, len(diff)))
        for n in diff:
            print('  %-70s %s' % (n, tb[n]['result']))
    bad = ('fail', 'crash', 'timeout', 'incomplete')
    both = sorted(n for n in ours if n in pocl and ours[n]['result'] in bad
                  and pocl[n]['result'] in bad)
    print('failing on both: %d' % len(both))
    for n in both:
        print('  %-70s %s / %s' % (n, ours[n]['result'], pocl[n]['result']))
# Like tools/cts.sh: exit 1 when a test of this run failed, crashed or timed out.
sys.exit(any(t['result'] in ('fail', 'crash', 'timeout', 'incomplete') for t in tests.values()))
EOF
status=$?
echo "run: ${secs}s; results: $out (piglit summary console|html); log: $results/$driver.log"
[ $rc -eq 0 ] || { echo "piglit run exited $rc" >&2; exit 1; }
exit $status
