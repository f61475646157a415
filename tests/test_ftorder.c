// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ftrace backend's cross-CPU ordering (lib/capture/ftrace/order.h), on
 * times alone: no tracefs, no rings.
 */
#include <stdint.h>
#include "capture/ftrace/order.h"
#include "test_progs.h"

/* A ring's time to fill, from one sub-buffer's events; saturating, never dividing by 0. */
void test_ftorder_ring_ns(void)
{
	/* half a 4080-byte sub-buffer in 1 ms: a 256-sub-buffer ring in 512 ms */
	ASSERT_EQ(rc_ftrace__ring_ns(1000000, 2040, 4080, 256), 512000000ull, "rate");
	ASSERT_EQ(rc_ftrace__ring_ns(1000000, 0, 4080, 256), 0, "no events: unknown");
	ASSERT_EQ(rc_ftrace__ring_ns(1000000, 100, 0, 256), 0, "no room: unknown");
	/* a span that would overflow the multiplication is clamped first */
	ASSERT_TRUE(rc_ftrace__ring_ns(UINT64_MAX, 4080, 4080, 1) == UINT64_MAX / 4080, "clamped");
	ASSERT_TRUE(rc_ftrace__ring_ns(UINT64_MAX, 4080, 4080, 256) ==
			UINT64_MAX / 4080 / 256 * 256,
		    "clamped, many sub-buffers");
}

/* The hold: 2 ms, or an eighth of the fastest ring's time to fill. */
void test_ftorder_hold(void)
{
	uint64_t h = RC_FT_HOLD_NS;

	ASSERT_EQ(rc_ftrace__hold(h, 0), RC_FT_HOLD_NS, "a ring of unknown rate");
	ASSERT_EQ(rc_ftrace__hold(h, 100000000), RC_FT_HOLD_NS, "a slow ring");
	h = rc_ftrace__hold(h, 8000000); /* fills in 8 ms: hold 1 ms */
	ASSERT_EQ(h, 1000000, "a fast ring lowers it");
	ASSERT_EQ(rc_ftrace__hold(h, 16000000), 1000000, "a slower one does not raise it");
	ASSERT_EQ(rc_ftrace__hold(h, 7), 0, "a ring that fills at once: no hold");
}

/* A CPU with nothing waiting: now less the hold, never below 0; everything at the end. */
void test_ftorder_idle_bound(void)
{
	struct rc_ftrace_order o = { .hold = 2000000 };

	ASSERT_EQ(rc_ftrace__idle_bound(&o, 5000000, false), 3000000, "now less the hold");
	ASSERT_EQ(rc_ftrace__idle_bound(&o, 1000000, false), 0, "early in boot: 0");
	ASSERT_EQ(rc_ftrace__idle_bound(&o, 1000000, true), UINT64_MAX,
		  "final: nothing more comes");
}

/* The watermark follows the earliest bound, and never goes back. */
void test_ftorder_watermark(void)
{
	struct rc_ftrace_order o = {};

	ASSERT_EQ(rc_ftrace__advance(&o, 100), 100, "first pass");
	ASSERT_EQ(rc_ftrace__advance(&o, 250), 250, "forward");
	ASSERT_EQ(rc_ftrace__advance(&o, 200), 250, "a CPU's bound behind the mark: the mark");
	ASSERT_EQ(o.mark, 250, "kept");
	ASSERT_EQ(rc_ftrace__advance(&o, UINT64_MAX), UINT64_MAX, "final pass");
}

/*
 * Late: earlier than a record already written, and taken in this pass.
 * Two CPUs: CPU 1's event at 150 commits after CPU 0's chunk up to 200
 * was written.
 */
void test_ftorder_late(void)
{
	struct rc_ftrace_order o = {};
	uint64_t w;

	w = rc_ftrace__advance(&o, 200);
	ASSERT_TRUE(!rc_ftrace__is_late(&o, 150, w), "nothing written yet: in order");
	rc_ftrace__written(&o, 200);
	rc_ftrace__written(&o, 180); /* a chunk never moves it back */
	ASSERT_EQ(o.written_ts, 200, "the latest written");
	w = rc_ftrace__advance(&o, 300);
	ASSERT_TRUE(rc_ftrace__is_late(&o, 150, w), "before what was written: late");
	ASSERT_TRUE(!rc_ftrace__is_late(&o, 200, w), "equal times keep their order");
	ASSERT_TRUE(!rc_ftrace__is_late(&o, 250, w), "after it: in order");
	ASSERT_TRUE(!rc_ftrace__is_late(&o, 100, 90), "not taken in this pass: not counted yet");
}
