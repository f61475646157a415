/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Time order across the CPUs' ftrace rings, as arithmetic on times alone
 * (no tracefs, no rings), so that it is tested on its own
 * (tests/test_ftorder.c).
 *
 * Each CPU's events are in time order. A pass takes, from every CPU, the
 * events up to a watermark: the earliest time any CPU may still produce
 * an event at. That is the last event a CPU has waiting (its bound), or,
 * for a CPU with nothing waiting, now less a hold: an event's time is
 * taken before its bytes are written and committed, and interrupts and
 * softirqs can run in between. The hold is RC_FT_HOLD_NS (a softirq run's
 * budget), but never more than 1/RC_FT_HOLD_SHARE of the time a ring takes
 * to fill at the rate its last full sub-buffer was written: events wait in
 * the ring while held, and a ring that fills loses them. The watermark
 * never goes back. An event taken that is earlier than a record of a chunk
 * already written lands out of order: late, counted.
 */
#ifndef RINGCAP_CAPTURE_FTRACE_ORDER_H
#define RINGCAP_CAPTURE_FTRACE_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RC_FT_HOLD_NS	 2000000ull /* an event this recent may still be on its way */
#define RC_FT_HOLD_SHARE 8	    /* the hold is at most this share of a ring's time */

/**
 * struct rc_ftrace_order - the ordering state of a capture
 * @mark: the watermark of the last pass: what was taken is up to it
 * @hold: the hold of this pass
 * @written_ts: the latest record of the chunks written
 * @late: events taken earlier than @written_ts
 */
struct rc_ftrace_order {
	uint64_t mark, hold, written_ts, late;
};

/**
 * rc_ftrace__ring_ns() - how long a ring takes to fill, from one sub-buffer
 * @span: ns between the sub-buffer's first and last event
 * @used: its bytes of events
 * @data: the bytes of events a sub-buffer holds
 * @nr_subbufs: sub-buffers in the ring
 *
 * Return: ns, saturating; 0 when @used is 0.
 */
uint64_t rc_ftrace__ring_ns(uint64_t span, uint32_t used, uint32_t data, uint32_t nr_subbufs);

/**
 * rc_ftrace__hold() - the hold of a pass, lowered for one more ring
 * @hold: the hold so far (RC_FT_HOLD_NS for the first ring)
 * @ring_ns: the ring's time to fill (0: not known yet)
 *
 * Return: @hold, or @ring_ns over RC_FT_HOLD_SHARE when less.
 */
uint64_t rc_ftrace__hold(uint64_t hold, uint64_t ring_ns);

/**
 * rc_ftrace__idle_bound() - the bound of a CPU with nothing waiting
 * @o: with this pass's @hold
 * @now: CLOCK_BOOTTIME
 * @final: the last pass: nothing more will come
 *
 * Return: @now less the hold (0 at most), or UINT64_MAX when @final.
 */
uint64_t rc_ftrace__idle_bound(const struct rc_ftrace_order *o, uint64_t now, bool final);

/**
 * rc_ftrace__advance() - the watermark of a pass
 * @o: the state; @mark is updated
 * @earliest: the least of the CPUs' bounds
 *
 * Return: @earliest, or the last watermark when that is later.
 */
uint64_t rc_ftrace__advance(struct rc_ftrace_order *o, uint64_t earliest);

/**
 * rc_ftrace__is_late() - will an event of time @ts, taken under watermark @w, be late?
 * @o: the state
 * @ts: the event's time
 * @w: the watermark it is taken under (events after it are not taken)
 */
bool rc_ftrace__is_late(const struct rc_ftrace_order *o, uint64_t ts, uint64_t w);

/**
 * rc_ftrace__written() - a chunk whose last record has time @last_ts was written
 * @o: the state
 * @last_ts: the chunk's last record's time
 */
void rc_ftrace__written(struct rc_ftrace_order *o, uint64_t last_ts);

#endif /* RINGCAP_CAPTURE_FTRACE_ORDER_H */
