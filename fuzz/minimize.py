#!/usr/bin/env python3
"""Instruction-level minimiser for spirv_frontend findings.

`cargo fuzz tmin` keeps *any* crash, so it drifts to the cheapest one known (e.g. a truncated
header); this keeps only inputs whose fuzz-target output matches a signature (a regex such as the
panic location or `stack-overflow`), removing whole SPIR-V instructions (ddmin-style chunks, then
one at a time) and finally trailing words. Header-less inputs get the same 5-word header the fuzz
target prepends, so the result is a complete module.

usage: fuzz/minimize.py BINARY INPUT OUTPUT REGEX [--timeout SECONDS]
  BINARY: the built fuzz target, e.g. /work/target-fuzz/x86_64-unknown-linux-gnu/release/spirv_frontend
  REGEX:  must match the target's output for the input to count as "still failing"; with
          --timeout, an input that runs longer than SECONDS counts as failing (hangs).
"""
import re, struct, subprocess, sys, tempfile, os

MAGIC = 0x07230203
HEADER = [MAGIC, 0x00010000, 0x0006000E, 0x00001000, 0]

def words_of(b):
    n = len(b) // 4
    return list(struct.unpack("<%dI" % n, b[: 4 * n]))

def bytes_of(w):
    return struct.pack("<%dI" % len(w), *w)

def split(w):
    """Header + list of instructions (each a list of words); an unparsable tail is one item."""
    insts, i = [], 5
    while i < len(w):
        wc = w[i] >> 16
        if wc == 0 or i + wc > len(w):
            insts.append(w[i:])
            break
        insts.append(w[i : i + wc])
        i += wc
    return w[:5], insts

def main():
    args = sys.argv[1:]
    timeout = None
    if "--timeout" in args:
        k = args.index("--timeout")
        timeout = float(args[k + 1])
        del args[k : k + 2]
    binary, inp, outp, regex = args
    sig = re.compile(regex)
    w = words_of(open(inp, "rb").read())
    if not w or w[0] != MAGIC:
        w = HEADER + w
    tmp = tempfile.NamedTemporaryFile(delete=False, suffix=".spv").name
    runs = [0]

    def fails(words):
        runs[0] += 1
        open(tmp, "wb").write(bytes_of(words))
        cmd = [binary, "-rss_limit_mb=4096", tmp]
        if timeout is not None:
            try:
                r = subprocess.run(cmd, capture_output=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return True
            return False
        r = subprocess.run(cmd, capture_output=True)
        return r.returncode != 0 and sig.search(r.stdout.decode("latin1") + r.stderr.decode("latin1")) is not None

    if not fails(w):
        sys.exit("the input does not fail with that signature")
    header, insts = split(w)
    join = lambda xs: header + [x for i in xs for x in i]
    chunk = max(1, len(insts) // 2)
    while True:
        i, progressed = 0, False
        while i < len(insts):
            cand = insts[:i] + insts[i + chunk :]
            if fails(join(cand)):
                insts, progressed = cand, True
            else:
                i += chunk
        if chunk == 1 and not progressed:
            break
        if not progressed:
            chunk = max(1, chunk // 2)
    w = join(insts)
    # Trailing words (e.g. of a truncated last instruction).
    while len(w) > 5 and fails(w[:-1]):
        w = w[:-1]
    open(outp, "wb").write(bytes_of(w))
    os.unlink(tmp)
    print("%s: %d words, %d instructions, %d runs" % (outp, len(w), len(insts), runs[0]))

if __name__ == "__main__":
    main()
