/*
 * cl_ventus.h — the Ventus vendor extension of ventus-icd.
 *
 * Launch statistics: after a kernel launch has completed, clGetEventInfo on its event with
 * CL_EVENT_STATISTICS_VENTUS returns a cl_ventus_launch_stats (CL_INVALID_VALUE for other
 * commands and for launches that have not completed successfully). The same figures, summed
 * per kernel over the whole process, are printed to stderr at exit when the environment sets
 * VENTUS_STATS=1.
 *
 * Memory checker: CL_CONTEXT_MEMCHECK_VENTUS, a context property whose value is a cl_bool;
 * CL_TRUE runs every kernel of the context under the memory checker (VENTUS_MEMCHECK=1 does it
 * for every context). Each access must then lie inside an exact extent: the bytes a buffer was
 * created with (not the rest of its last 4 KiB page), each __local argument, the kernel's
 * __local variables, the work-item's private frame. The first violation fails the launch like a
 * fault (event status CL_OUT_OF_RESOURCES) and the context's notify callback receives a message
 * naming the kernel, work-group, warp, lane, work-item, pc, instruction, source line, address and
 * the nearest buffer with the number of bytes the access missed it by.
 *
 * Work-group budget: CL_CONTEXT_WATCHDOG_SECONDS_VENTUS, a context property whose value is the
 * host CPU seconds one work-group of the context's launches may use (0 = no limit); without it
 * VENTUS_WATCHDOG_SECONDS applies (default 120). A work-group over its budget fails its launch
 * (event status CL_OUT_OF_RESOURCES) with a watchdog message naming the kernel, work-group,
 * warp, pc and source line. longest_group_ns in the statistics is the most CPU time one
 * work-group of the launch used (work-groups shorter than a few milliseconds count as 0).
 *
 * The enum values are provisional (not registered with Khronos).
 */
#ifndef CL_VENTUS_H
#define CL_VENTUS_H

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_EVENT_STATISTICS_VENTUS 0x7F10
#define CL_CONTEXT_MEMCHECK_VENTUS 0x7F11
#define CL_CONTEXT_WATCHDOG_SECONDS_VENTUS 0x7F12

typedef struct cl_ventus_launch_stats {
    cl_ulong work_groups;        /* work-groups run */
    cl_ulong warp_instructions;  /* instructions executed, one per warp (barrier waits included) */
    cl_ulong lane_instructions;  /* sum of active lanes over those instructions */
    cl_ulong threads_per_warp;   /* warp width: utilisation = lane / (warp * width) */
    cl_ulong divergent_branches; /* vector branches that split a warp's active lanes */
    cl_ulong barriers;           /* work-group barriers completed (once per work-group) */
    cl_ulong global_bytes;       /* bytes loaded/stored/atomically updated in global memory */
    cl_ulong local_bytes;        /* ... in local memory */
    cl_ulong private_bytes;      /* ... in private memory (spills included) */
    cl_ulong elapsed_ns;         /* host time the emulator spent on the launch */
    cl_ulong longest_group_ns;   /* most host CPU time one work-group used */
    cl_ulong host_threads;       /* host threads the launch ran on (<= the device's compute units) */
} cl_ventus_launch_stats;

#ifdef __cplusplus
}
#endif

#endif /* CL_VENTUS_H */
