/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ftrace transport: tracepoints recorded by the kernel's own event
 * tracer into a tracefs instance of ringcap's own, whose per-CPU ring
 * buffers are mapped into user space (Linux 6.10) and written to the
 * capture as the kernel wrote them (ftpage.h), without BPF.
 *
 * rc_session delegates here when opts->transport is RC_TRANSPORT_FTRACE;
 * the functions mirror rc_session__*.
 */
#ifndef RINGCAP_FTRACE_H
#define RINGCAP_FTRACE_H

#include "internal.h"

struct rc_ftrace;

struct rc_ftrace *rc_ftrace__open(const struct rc_record_opts *opts);
int rc_ftrace__add_target(struct rc_ftrace *f, pid_t pid);
int rc_ftrace__start(struct rc_ftrace *f, int fd);
int rc_ftrace__drain(struct rc_ftrace *f, int ms);
int rc_ftrace__stop(struct rc_ftrace *f);
const struct rc_stats *rc_ftrace__sample(struct rc_ftrace *f);
const struct rc_stats *rc_ftrace__stats(const struct rc_ftrace *f);
const struct rc_meta *rc_ftrace__meta(const struct rc_ftrace *f);
uint64_t rc_ftrace__records_written(const struct rc_ftrace *f);
uint64_t rc_ftrace__bytes(const struct rc_ftrace *f, uint64_t *raw);
/* Removes the instance, also when the capture was never stopped. */
void rc_ftrace__free(struct rc_ftrace *f);

/*
 * Remove the instances of ringcap processes that are gone (killed before
 * they could remove their own); returns how many.
 */
int rc_ftrace__clean_stale(void);

#endif /* RINGCAP_FTRACE_H */
