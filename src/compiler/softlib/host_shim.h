// What the soft-double library's OpenCL C (fp64.cl, fp64_math.cl) needs to compile as host C
// (gcc, x86-64 SSE2 doubles): OpenCL's integer type names and the `as_*` reinterpretations.
// Included by host.c (build.rs: the native math of deviation 23) and tests/host/softfp.c.
#include <stdint.h>
#include <string.h>
#define VT_HOST_TEST
typedef uint64_t ulong;
typedef uint32_t uint;
#define long int64_t
#define __constant const
#define VT_CLZ32(x) ((x) ? __builtin_clz(x) : 32)
static inline double as_double(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static inline uint64_t as_ulong(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
