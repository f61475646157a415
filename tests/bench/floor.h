/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The benchmark's reference programs (floor.bpf.c) and their runner
 * (floor.c, rc_floor): what they share.
 */
#ifndef RC_BENCH_FLOOR_H
#define RC_BENCH_FLOOR_H

/* One per CPU: the count map's only element. */
struct floor_counts {
	__u64 hits;    /* floor: every run; ref: none */
	__u64 dropped; /* ref: reservations the ring refused */
};
_Static_assert(sizeof(struct floor_counts) == 16, "floor_counts layout");

/* handle_batch_56: records a batch, and a CPU's staging slot */
#define FLOOR_BATCH 16

struct floor_batch {
	__u32 n; /* records staged */
	__u32 pad;
	__u64 recs[FLOOR_BATCH * 7]; /* 56-byte records */
};

#endif /* RC_BENCH_FLOOR_H */
