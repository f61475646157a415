/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --bpf: a user's BPF object, loaded and attached by its SEC()
 * names, its ring buffer or perf event array drained, and each record it
 * emits wrapped in a ringcap record: the struct's event when the record is
 * the struct's size, else the raw bytes.
 */
#ifndef RINGCAP_USERBPF_H
#define RINGCAP_USERBPF_H

#include "capture/dyn.h"

struct rc_user;

/* A whole ringcap record to add to the capture; -errno stops the drain. */
typedef int (*rc_user_put_fn)(void *ctx, const void *rec, size_t len);
/*
 * The kernel lost @n records on @cpu's perf ring, before one stamped @ts;
 * @flags RC_LOST_F_AT_END: after the last record, at the end.
 */
typedef int (*rc_user_lost_fn)(void *ctx, uint32_t cpu, uint64_t n, uint64_t ts,
			       uint32_t flags);

struct rc_user_opts {
	const char *path;
	const char *map;	/* NULL: the object's only ring */
	const char *event_type; /* NULL: records kept raw */
	const char *const *sets;
	size_t nsets;
	size_t perf_size; /* a perf event array's ring on each CPU; 0: 8 MiB */
	rc_user_put_fn put;
	rc_user_lost_fn lost;
	void *ctx;
};

/* Open and load the object, describe its events into @d and @schema; NULL and errno, said. */
struct rc_user *rc_user__open(const struct rc_user_opts *o, struct rc_dyn_set *d,
			      struct rc_schema *schema);
enum rc_transport rc_user__transport(const struct rc_user *u);
int rc_user__attach(struct rc_user *u);
void rc_user__detach(struct rc_user *u);
/*
 * Read what is in the ring: records read, or -errno. A perf event array's
 * only up to @until (as rc_perfbuf__read()); a BPF ring buffer's all.
 */
long rc_user__consume(struct rc_user *u, uint64_t until);
/* Sleep until the ring has records or @ms pass; a BPF ring buffer's are read. */
long rc_user__poll(struct rc_user *u, int ms);
/* Bytes waiting in the fullest perf ring; 0 for a BPF ring buffer (it does not say). */
size_t rc_user__pending(const struct rc_user *u, bool sum);
/* The perf rings' losses no record followed (at the end), stamped @ts. */
int rc_user__put_owed(struct rc_user *u, uint64_t ts);
/* The struct's event id, for drops (the raw one when there is no struct). */
uint16_t rc_user__event_id(const struct rc_user *u);
/* Records of a size other than the struct's, stored raw. */
uint64_t rc_user__mismatched(const struct rc_user *u);
void rc_user__free(struct rc_user *u);

#endif
