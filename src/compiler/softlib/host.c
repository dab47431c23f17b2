// The soft-double library compiled for the host by build.rs (the `cc` crate, gcc): the same
// source the device runs, so that untraced runs can execute its level-1 math built-ins
// (`__vt_d_*`) natively (emulator/hostcall.rs, deviation 23). Host `double` arithmetic is the
// IEEE-754 arithmetic the device's correctly rounded primitives implement; the emulator takes a
// native result only when no operand is NaN or infinite and the result is not NaN (NaN bits are
// where the host and the library differ), and tests/native_math.rs compares every function
// native against compiled. Built with -ffp-contract=off (no fused multiply-add the device code
// does not have), -fwrapv and -fno-strict-aliasing (OpenCL C's integer semantics), hidden
// visibility (nothing leaves the driver's library).
#include "host_shim.h"
#include "fp64.cl"
#include "fp64_math.cl"
#undef long
