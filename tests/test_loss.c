// SPDX-License-Identifier: GPL-2.0-only
/*
 * The loss ledger (lib/decode/loss.c) on counters built by hand: what was
 * lost at each layer, what a flight recorder overwrote, the worst second.
 */
#include <errno.h>
#include <stdlib.h>
#include "ringcap.h"
#include "test_progs.h"

/* Two CPUs, event 1: 100 made on CPU 0 (10 dropped), 50 on CPU 1; 3 user-space drops. */
static struct rc_stats two_cpus(struct rc_stat_entry *e)
{
	e[0] = (struct rc_stat_entry){
		.cpu = 0, .type = 1, .made = 100, .dropped = 10, .filtered = 7, .captured = 90
	};
	e[1] = (struct rc_stat_entry){ .cpu = 1, .type = 1, .made = 50, .captured = 50 };
	e[2] = (struct rc_stat_entry){ .cpu = RC_CPU_ANY, .type = 1, .missed = 4 };
	return (struct rc_stats){ .nentries = 3, .entries = e, .user_dropped = 3 };
}

void test_loss_layers(void)
{
	struct rc_stat_entry e[3];
	struct rc_stats st = two_cpus(e);
	const struct rc_meta m = { .schema = rc_builtin_schema() };
	struct rc_rec_hdr rec = { .type = 1 };
	struct rc_ledger l = {};
	int i;

	if (!ASSERT_OK(rc_ledger__alloc(&l, 2), "alloc"))
		goto out;
	/* the file holds 130 of the 140 read: cut short by 10 */
	for (i = 0; i < 130; i++) {
		rec.cpu = i < 85 ? 0 : 1;
		rc_ledger__add_record(&l, &m, &rec);
	}
	rc_ledger__count(&l, &st);
	ASSERT_EQ(l.total.made, 150, "made");
	ASSERT_EQ(l.total.dropped, 10, "dropped");
	ASSERT_EQ(l.total.filtered, 7, "filtered");
	ASSERT_EQ(l.total.captured, 140, "captured");
	ASSERT_EQ(l.total.in_file, 130, "in the file");
	ASSERT_EQ(l.total.missed, 4, "missed, shown apart");
	ASSERT_EQ(l.by_cpu[0].made, 100, "per CPU");
	ASSERT_EQ(l.by_cpu[1].in_file, 45, "per CPU, in the file");
	ASSERT_EQ(rc_ledger__missing(&l, &l.total), 10, "missing: read, not in the file");
	ASSERT_EQ(rc_ledger__lost(&l), 10 + 3 + 10, "ring full + user space + cut short");
	ASSERT_EQ(rc_ledger__overwritten(&l), 0, "not a flight recorder");
	ASSERT_EQ(rc_ledger__cut_short(&l), 10, "all cut short");
	/* 6 of the 10 were in a damaged chunk: missing still, but not cut short */
	rc_ledger__add_corrupt(&l, 1, 6, 500);
	ASSERT_EQ(rc_ledger__missing(&l, &l.total), 10, "missing, damaged or cut");
	ASSERT_EQ(rc_ledger__cut_short(&l), 4, "cut short");
	ASSERT_EQ(rc_ledger__lost(&l), 10 + 3 + 10, "lost, once");
	/* counters older than the damage: the damaged chunks' records are lost still */
	rc_ledger__add_corrupt(&l, 1, 14, 500);
	ASSERT_EQ(rc_ledger__cut_short(&l), 0, "none cut short");
	ASSERT_EQ(rc_ledger__lost(&l), 10 + 3 + 20, "ring full + user space + damaged");
	l.live = true;
	ASSERT_EQ(rc_ledger__missing(&l, &l.total), 0, "live: nothing is missing");
out:
	rc_ledger__free(&l);
}

/* A flight recorder: made, not dropped, not in a snapshot; and the ledger's own records. */
void test_loss_overwrite(void)
{
	struct rc_stat_entry e = {
		.cpu = 0, .type = 1, .made = 1000, .dropped = 0, .captured = 300
	};
	struct rc_stats st = { .nentries = 1, .entries = &e };
	struct rc_ledger l = { .overwrite = true };

	if (!ASSERT_OK(rc_ledger__alloc(&l, 1), "alloc"))
		goto out;
	rc_ledger__count(&l, &st);
	ASSERT_EQ(rc_ledger__overwritten(&l), 700, "overwritten");
	rc_ledger__add_lost(&l, 5, false);
	rc_ledger__add_lost(&l, 2, true);
	ASSERT_EQ(l.lost_in_stream, 5, "lost where the kernel said");
	ASSERT_EQ(l.lost_at_end, 2, "lost at the end");
out:
	rc_ledger__free(&l);
}

/* A file cut before its first counters: its records, and nothing known dropped. */
void test_loss_no_counters(void)
{
	const struct rc_meta m = { .schema = rc_builtin_schema() };
	struct rc_rec_hdr rec = { .type = 2, .cpu = 0 };
	struct rc_ledger l = {};

	if (!ASSERT_OK(rc_ledger__alloc(&l, 1), "alloc"))
		goto out;
	rc_ledger__add_record(&l, &m, &rec);
	rc_ledger__count(&l, NULL);
	ASSERT_EQ(l.total.in_file, 1, "in the file");
	ASSERT_EQ(rc_ledger__lost(&l), 0, "no counters: nothing known dropped");
out:
	rc_ledger__free(&l);
}

/* Records whose CPU is unknown (a --bpf BPF ring buffer's) count for no CPU, not CPU 0. */
void test_loss_unknown_cpu(void)
{
	const struct rc_event_desc ev = {
		.id = 256, .size = 40, .name = "bpf:ev", .flags = RC_EVENT_NO_CPU
	};
	struct rc_stat_entry e = { .cpu = RC_CPU_ANY, .type = 256, .made = 3, .captured = 3 };
	struct rc_stats st = { .nentries = 1, .entries = &e };
	struct rc_rec_hdr rec = { .type = 256, .cpu = 0 };
	struct rc_schema *s = rc_schema__new(rc_builtin_schema());
	struct rc_meta m = { .schema = s };
	struct rc_ledger l = {};
	int i;

	if (!ASSERT_OK_PTR(s, "schema") || !ASSERT_OK(rc_schema__add_event(s, &ev), "event") ||
	    !ASSERT_OK(rc_ledger__alloc(&l, 2), "alloc"))
		goto out;
	for (i = 0; i < 3; i++)
		rc_ledger__add_record(&l, &m, &rec);
	rec.type = 1; /* syscall: its CPU is known */
	rc_ledger__add_record(&l, &m, &rec);
	rc_ledger__count(&l, &st);
	ASSERT_EQ(l.by_event[256].in_file, 3, "the event's records");
	ASSERT_EQ(l.by_cpu[0].in_file, 1, "CPU 0: only the syscall");
	ASSERT_EQ(l.by_cpu[0].made + l.by_cpu[1].made, 0, "made on no CPU");
	ASSERT_EQ(l.total.captured, 3, "captured, in the total");
	ASSERT_EQ(rc_ledger__missing(&l, &l.total), 0, "nothing missing");
out:
	rc_ledger__free(&l);
	rc_schema__free(s);
}

/* The second with the most drops, from the counters' history; the first starts at t0. */
void test_loss_worst_second(void)
{
	const uint64_t s = 1000000000ull;
	struct rc_stats_point h[] = {
		{ .ts = 10 * s + s, .made = 100, .dropped = 0 },
		{ .ts = 10 * s + 2 * s, .made = 300, .dropped = 50 },
		{ .ts = 10 * s + 3 * s, .made = 400, .dropped = 60 },
	};
	struct rc_ledger l = {};

	rc_ledger__worst_second(&l, h, 3, 10 * s);
	ASSERT_EQ(l.worst_dropped, 50, "the worst interval's drops");
	ASSERT_EQ(l.worst_made, 200, "its events made");
	ASSERT_TRUE(l.worst_at == 1.0, "it starts 1 s in");
	rc_ledger__worst_second(&l, h, 0, 10 * s);
	ASSERT_EQ(l.worst_dropped, 50, "an empty history changes nothing");
}
