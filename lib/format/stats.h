/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counters summed and subtracted (lib/format/stats.c).
 */
#ifndef RINGCAP_FORMAT_STATS_H
#define RINGCAP_FORMAT_STATS_H

#include "format/meta.h"

/**
 * rc_stats__totals() - the totals of a set of counters
 * @st: the counters
 * @pt: filled: every entry of @st summed, with @st's ts, ring_hwm and
 *	ring_pending
 */
void rc_stats__totals(const struct rc_stats *st, struct rc_stats_point *pt);

/**
 * rc_stats__span() - the counters of one file of a run: its last less those it began with
 * @end: the file's last counters (rc_reader__stats() at its end)
 * @base: the run's counters when it began (rc_reader__base()); NULL: zeros
 * @out: filled: @end's entries, each less @base's of its CPU and event
 *	(0 when that went back), made being (END.made - BASE.made) +
 *	BASE.in_flight - END.in_flight (ringcap-file(5), RUN); ring sizes as
 *	@end's. Free @out->entries
 *
 * The records in the file are then @out's captured, and the files of a
 * run sum to its totals.
 *
 * Return: 0, or -ENOMEM.
 */
int rc_stats__span(const struct rc_stats *end, const struct rc_stats *base, struct rc_stats *out);

#endif /* RINGCAP_FORMAT_STATS_H */
