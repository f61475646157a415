/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ftrace transport: tracepoints recorded by the kernel's own event
 * tracer into a tracefs instance of ringcap's own, whose per-CPU ring
 * buffers are mapped into user space (Linux 6.10), or spliced from
 * trace_pipe_raw, and written to the capture as the kernel wrote them
 * (ftpage.h), without BPF.
 *
 * A backend of the capture engine (capture/backend.h): rc_ftrace_ops.
 */
#ifndef RINGCAP_FTRACE_H
#define RINGCAP_FTRACE_H

/*
 * Remove the instances of ringcap processes that are gone (killed before
 * they could remove their own); returns how many.
 */
int rc_ftrace__clean_stale(void);

#endif /* RINGCAP_FTRACE_H */
