/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loss counters, each defined once (issue 33 step 5). The lists below
 * make the members of struct rc_stat_entry, rc_stats_point and
 * rc_ledger_row, the copies to and from the disk (lib/format/writer_blocks.c,
 * reader_blocks.c: the layout itself stays explicit, struct rc_disk_stat in
 * format/format.h), the sums and differences (format/stats.c,
 * decode/loss.c), and stat's JSON keys, in this order.
 *
 * Adding a counter: a line in a list here, and its field at the end of
 * struct rc_disk_stat with a larger entry_size (ringcap-file(5)); then
 * count it where a backend counts (lib/capture/).
 */
#ifndef RINGCAP_FORMAT_COUNTERS_H
#define RINGCAP_FORMAT_COUNTERS_H

#include <stdint.h>

/* What went through, per CPU and event. */
#define RC_COUNTERS_FLOW(X)                                                                        \
	X(made)	    /* events in scope the programs, or the kernel's tracer, tried to emit */      \
	X(captured) /* records read by user space */

/* What was lost, or never made, and why. */
#define RC_COUNTERS_LOSS(X)                                                                        \
	X(dropped)   /* the ring was full: the reservation failed */                               \
	X(paused)    /* flight recorder: refused while a snapshot paused the rings (v1.10) */      \
	X(filtered)  /* out of scope (-p, a command, --comm): not made, not dropped */             \
	X(missed)    /* runs of a program the kernel skipped (recursion): an upper bound */        \
	X(not_run)   /* samples asked for (-F, -c) the program never ran for: estimated (v1.8) */  \
	X(throttled) /* of those, while the kernel throttled the event */                          \
	X(throttled_ns) /* time throttled */                                                       \
	X(throttles)	/* times throttled */

/*
 * A rotated run's bookkeeping, not shown. in_flight: made (counted in
 * made) before the counters were taken, and neither dropped nor read from
 * the ring by then: written after them (v1.9; 0 in older files and in a
 * run's last counters).
 */
#define RC_COUNTERS_RUN(X) X(in_flight)

/* The counters stat shows: of every event, CPU and file, and summed. */
#define RC_COUNTERS_SHOWN(X) RC_COUNTERS_FLOW(X) RC_COUNTERS_LOSS(X)

/* Every counter of a stats entry. */
#define RC_COUNTERS(X) RC_COUNTERS_SHOWN(X) RC_COUNTERS_RUN(X)

/* X-functions for the lists: a member; one count for each */
#define RC_COUNTER_MEMBER(name) uint64_t name;
#define RC_COUNTER_ONE(name)	+1

/* The number of counters in a stats entry. */
#define RC_NCOUNTERS (0 RC_COUNTERS(RC_COUNTER_ONE))

#endif /* RINGCAP_FORMAT_COUNTERS_H */
