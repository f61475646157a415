/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Histograms, and run-queue latencies (lib/decode/hist.c).
 */
#ifndef RINGCAP_DECODE_HIST_H
#define RINGCAP_DECODE_HIST_H

#include <stddef.h>
#include <stdint.h>
#include "format/meta.h"
#include "util/idmap.h"

/* slots[i] counts values in [2^i, 2^(i+1)), slot 0 also 0 */
struct rc_hist {
	uint64_t slots[64];
	uint64_t count, total, min, max;
};

/**
 * rc_hist__add() - count a value in a log2 histogram
 * @h: the histogram, zeroed to start
 * @v: the value
 */
void rc_hist__add(struct rc_hist *h, uint64_t v);

/**
 * struct rc_runq - run-queue latency: from a task's sched_wakeup to the sched_switch that runs it
 * @hist: the latencies, in units of @div ns
 * @div: 1000: microseconds; 0 or 1: nanoseconds
 * @woken: tids woken, to the time of their wake-up; UINT64_MAX once
 *	counted (internal)
 *
 * Starts zeroed but for @div.
 */
struct rc_runq {
	struct rc_hist hist;
	unsigned int div;
	struct rc_idmap woken;
};

/**
 * rc_runq__add() - take a record into the run-queue latencies
 * @q: the latencies
 * @m: the capture's header, for its schema
 * @rec: the record (checked, as rc_reader__next() hands them out)
 *
 * A sched:sched_wakeup records when its wakee_tid was woken; the next
 * sched:sched_switch to it as next_tid adds the wait to @q->hist, once (not
 * a switch timed before the wake-up). Other records are passed over.
 *
 * Return: 0, or -ENOMEM.
 */
int rc_runq__add(struct rc_runq *q, const struct rc_meta *m, const struct rc_rec_hdr *rec);

/**
 * rc_runq__free() - free the latencies' table
 * @q: left zeroed, its hist and div included
 */
void rc_runq__free(struct rc_runq *q);

#endif /* RINGCAP_DECODE_HIST_H */
