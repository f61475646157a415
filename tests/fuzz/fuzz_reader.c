// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the capture reader and everything that reads what it
 * returns (text decoding, the summary, filters, run-queue latency, the
 * loss ledger, every output format of report, counters and their
 * history). Any input must give records or a clean error, never a crash,
 * a leak or undefined behaviour. The fuzzer runs with stdout closed (-close_fd_mask=1).
 */
#include <stddef.h>
#include <stdint.h>
#include "ringcap.h"
#include "report_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int quiet(enum rc_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rc_strbuf sb = {};
	struct rc_summary sum = {};
	struct report_out *outs[4] = {};
	static const uint32_t pids[] = { 0, 100 }, cpus[] = { 0 };
	struct rc_filter filter = { .pids = pids,
				    .npids = 2,
				    .cpus = cpus,
				    .ncpus = 1,
				    .comm = "seed1",
				    .until = UINT64_MAX };
	struct rc_ledger led = {};
	struct rc_runq runq = { .div = 1000 };
	int i;
	const struct rc_rec_hdr *rec;
	const struct rc_stats_point *hist;
	struct rc_stats_point pt;
	struct rc_damage dmg;
	const struct rc_stats *st;
	const struct rc_meta *m;
	struct rc_reader *r;
	size_t n;

	rc_set_print(quiet);
	r = rc_reader__open_mem(data, size);
	if (!r)
		return 0;
	m = rc_reader__meta(r);
	for (i = 0; i < 4; i++)
		outs[i] = report_out__new(i, m, i ? 0 : RC_FMT_WALL);
	rc_filter__add_event(&filter, m->schema, "sched");
	rc_ledger__alloc(&led, m->ncpus);
	rc_reader__set_range(r, size > 100 ? data[100] : 0, UINT64_MAX);
	while (rc_reader__next(r, &rec) > 0) {
		sb.len = 0;
		rc_decode__text(&sb, m, rec, 0);
		rc_decode__text(&sb, m, rec, RC_FMT_WALL);
		rc_summary__add(&sum, m, rec);
		rc_runq__add(&runq, m, rec);
		rc_filter__match(&filter, m, rec);
		if (led.by_event && led.by_cpu)
			rc_ledger__add_record(&led, m, rec);
		for (i = 0; i < 4; i++)
			if (outs[i])
				report_out__event(outs[i], rec);
	}
	for (i = 0; i < 4; i++) {
		if (outs[i])
			report_out__end(outs[i]);
		report_out__free(outs[i]);
	}
	rc_ledger__count(&led, rc_reader__stats(r));
	rc_ledger__free(&led);
	rc_runq__free(&runq);
	rc_filter__free(&filter);
	rc_summary__sort(&sum);
	st = rc_reader__stats(r);
	if (st)
		rc_stats__totals(st, &pt);
	hist = rc_reader__history(r, &n);
	(void)hist;
	rc_reader__truncated(r);
	rc_reader__corrupt(r, &dmg);
	(void)rc_reader__error(r);
	rc_reader__trailer(r);
	rc_summary__free(&sum);
	rc_strbuf__free(&sb);
	rc_reader__free(r);
	return 0;
}
