// SPDX-License-Identifier: GPL-2.0-only
/* ringcap report --aux: each CPU's AUX stream, as text or a JSON line per CPU. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "decode/auxsum.h"
#include "output/json.h"

static double secs(uint64_t ts, uint64_t t0)
{
	return ts && ts >= t0 ? (ts - t0) / 1e9 : 0;
}

static void show_ipt_text(const struct rc_aux_cpu_sum *c, uint64_t t0)
{
	const struct rc_ipt_summary *p = &c->ipt;
	unsigned int t;
	int col = 0;

	printf("  CPU %u Intel PT: %llu packets in %llu bytes, %llu PSB, %llu TSC", c->cpu,
	       (unsigned long long)p->packets, (unsigned long long)p->bytes,
	       (unsigned long long)p->psb, (unsigned long long)p->ntsc);
	if (p->ntsc) {
		printf(" (0x%llx .. 0x%llx", (unsigned long long)p->tsc_first,
		       (unsigned long long)p->tsc_last);
		if (c->tsc_first_ts)
			printf(", %.6f .. %.6f s", secs(c->tsc_first_ts, t0),
			       secs(c->tsc_last_ts, t0));
		printf(")");
	}
	printf(", %llu decode errors, %llu bytes skipped, %llu cut\n",
	       (unsigned long long)p->errors, (unsigned long long)p->skipped,
	       (unsigned long long)p->truncated);
	for (t = 0; t < RC_IPT_NTYPES; t++) {
		if (!p->by_type[t])
			continue;
		printf("%s%s %llu", col ? ", " : "    ", rc_ipt__type_name(t),
		       (unsigned long long)p->by_type[t]);
		col++;
	}
	if (col)
		printf("\n");
}

static void show_text(const struct rc_aux_sum *s, uint64_t t0)
{
	size_t i;

	if (!s->n) {
		printf("no AUX streams in this capture: record one with -e PMU// (intel_pt//u)\n");
		return;
	}
	printf("AUX streams, per CPU (bytes; records: the kernel's PERF_RECORD_AUX):\n");
	printf("  %4s %-10s %8s %14s %8s %6s %12s %8s %9s %8s %9s\n", "CPU", "PMU", "blocks",
	       "bytes", "wrapped", "gaps", "gap bytes", "records", "truncated", "partial",
	       "rec lost");
	for (i = 0; i < s->n; i++) {
		const struct rc_aux_cpu_sum *c = &s->cpus[i];

		printf("  %4u %-10s %8llu %14llu %8llu %6llu %12llu %8llu %9llu %8llu %9llu\n",
		       c->cpu, c->pmu[0] ? c->pmu : "-", (unsigned long long)c->blocks,
		       (unsigned long long)c->bytes, (unsigned long long)c->wrapped,
		       (unsigned long long)c->gaps, (unsigned long long)c->gap_bytes,
		       (unsigned long long)c->records, (unsigned long long)c->truncated,
		       (unsigned long long)c->partial, (unsigned long long)c->meta_lost);
	}
	for (i = 0; i < s->n; i++)
		if (s->cpus[i].ipt_runs)
			show_ipt_text(&s->cpus[i], t0);
}

static void show_json(const struct rc_aux_sum *s)
{
	struct rc_json j = { .f = stdout };
	unsigned int t;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct rc_aux_cpu_sum *c = &s->cpus[i];

		rc_json__begin_object(&j, NULL);
		rc_json__u64(&j, "cpu", c->cpu);
		rc_json__string(&j, "pmu", c->pmu);
		rc_json__u64(&j, "blocks", c->blocks);
		rc_json__u64(&j, "bytes", c->bytes);
		rc_json__u64(&j, "lost", c->lost);
		rc_json__u64(&j, "wrapped_snapshots", c->wrapped);
		rc_json__u64(&j, "gaps", c->gaps);
		rc_json__u64(&j, "gap_bytes", c->gap_bytes);
		rc_json__u64(&j, "first_pos", c->first_pos);
		rc_json__u64(&j, "end_pos", c->end_pos);
		rc_json__u64(&j, "records", c->records);
		rc_json__u64(&j, "record_bytes", c->rec_bytes);
		rc_json__u64(&j, "truncated", c->truncated);
		rc_json__u64(&j, "partial", c->partial);
		rc_json__u64(&j, "collision", c->collision);
		rc_json__u64(&j, "records_lost", c->meta_lost);
		rc_json__u64(&j, "itrace_start", c->itrace);
		if (c->ipt_runs) {
			rc_json__begin_object(&j, "intel_pt");
			rc_json__u64(&j, "packets", c->ipt.packets);
			rc_json__u64(&j, "bytes", c->ipt.bytes);
			rc_json__u64(&j, "psb", c->ipt.psb);
			rc_json__u64(&j, "tsc", c->ipt.ntsc);
			rc_json__u64(&j, "tsc_first", c->ipt.tsc_first);
			rc_json__u64(&j, "tsc_last", c->ipt.tsc_last);
			rc_json__u64(&j, "tsc_first_ts", c->tsc_first_ts);
			rc_json__u64(&j, "tsc_last_ts", c->tsc_last_ts);
			rc_json__u64(&j, "errors", c->ipt.errors);
			rc_json__u64(&j, "skipped", c->ipt.skipped);
			rc_json__u64(&j, "cut", c->ipt.truncated);
			rc_json__begin_object(&j, "by_type");
			for (t = 0; t < RC_IPT_NTYPES; t++)
				if (c->ipt.by_type[t])
					rc_json__u64(&j, rc_ipt__type_name(t), c->ipt.by_type[t]);
			rc_json__end_object(&j);
			rc_json__end_object(&j);
		}
		rc_json__end_object(&j);
	}
}

int show_aux(struct rc_aux_sum *s, bool json, uint64_t t0)
{
	int err = rc_aux_sum__finish(s);
	size_t i;

	if (err) {
		say("--aux-dump: %s\n", strerror(-err));
		return err;
	}
	if (json)
		show_json(s);
	else
		show_text(s, t0);
	if (s->ipt_err == -EOPNOTSUPP)
		say("note: this ringcap was built without libipt: no Intel PT packet summary\n");
	for (i = 0; s->dump_dir && i < s->n; i++)
		say("wrote %s/aux-cpu%u.bin: %llu bytes\n", s->dump_dir, s->cpus[i].cpu,
		    (unsigned long long)s->cpus[i].bytes);
	return 0;
}
