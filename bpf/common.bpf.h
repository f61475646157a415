/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Maps, settings and helpers every ringcap event source shares.
 *
 * User space creates the events, targets and stats maps once and hands the
 * same fds to every source's object (bpf_map__reuse_fd), so all sources
 * write to one ring and count into one table.
 */
#ifndef RINGCAP_COMMON_BPF_H
#define RINGCAP_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "events.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 16); /* replaced by user space's map */
} events SEC(".maps");

/* tgids to trace when knobs.filter_pids is set */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rc_bpf_stats);
} stats SEC(".maps");

const volatile struct rc_knobs knobs = {};

static __always_inline bool rc_comm_eq(const char *a, const volatile char *b)
{
	const __u64 *x = (const __u64 *)a;
	const volatile __u64 *y = (const volatile __u64 *)b;

	return x[0] == y[0] && x[1] == y[1];
}

/* Is a task with this tgid and comm (NULL: current's) in scope? */
static __always_inline bool rc_task_wanted(__u32 tgid, const char *comm)
{
	char cur[RC_COMM_LEN];

	if (tgid == knobs.self_tgid)
		return false;
	if (knobs.filter_pids && !bpf_map_lookup_elem(&targets, &tgid))
		return false;
	if (knobs.filter_comm) {
		if (!comm) {
			bpf_get_current_comm(cur, sizeof(cur));
			comm = cur;
		}
		if (!rc_comm_eq(comm, knobs.comm))
			return false;
	}
	return true;
}

static __always_inline bool rc_current_wanted(void)
{
	return rc_task_wanted(bpf_get_current_pid_tgid() >> 32, NULL);
}

static __always_inline struct rc_bpf_stats *rc_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/* Count an event of @type that was out of scope; returns 0 for the program. */
static __always_inline int rc_filtered(__u16 type)
{
	struct rc_bpf_stats *st = rc_stats();

	if (st)
		__sync_fetch_and_add(&st->filtered[type & (RC_EV_SLOTS - 1)], 1);
	return 0;
}

/*
 * Reserve a record of @type, counting it as made, and as dropped when the
 * ring is full. Fills the common header: the timestamp is taken after the
 * reservation, so ring order and time order agree as closely as they can.
 */
static __always_inline void *rc_reserve(__u16 type, __u32 size)
{
	struct rc_bpf_stats *st = rc_stats();
	struct rc_ev_hdr *h;
	__u64 id;

	if (st)
		__sync_fetch_and_add(&st->made[type & (RC_EV_SLOTS - 1)], 1);
	h = bpf_ringbuf_reserve(&events, size, 0);
	if (!h) {
		if (st)
			__sync_fetch_and_add(&st->dropped[type & (RC_EV_SLOTS - 1)], 1);
		return NULL;
	}
	id = bpf_get_current_pid_tgid();
	h->ts = bpf_ktime_get_boot_ns();
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->flags = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
	return h;
}

/*
 * Submit, waking the reader only when knobs.wakeup_bytes of data are
 * pending. Every submit at or above the mark forces a wakeup (not only the
 * one that crosses it): with two CPUs producing, both can see the mark
 * already passed, and a single crossing record would be missed.
 */
static __always_inline void rc_submit(void *rec)
{
	__u64 flags = 0;

	if (knobs.wakeup_bytes)
		flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= knobs.wakeup_bytes
			    ? BPF_RB_FORCE_WAKEUP
			    : BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(rec, flags);
}

#endif /* RINGCAP_COMMON_BPF_H */
