// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the capture reader and everything that reads what it
 * returns (text decoding, the summary, filters, run-queue latency, the
 * loss ledger, every output format of report, counters and their
 * history). Any input must give records or a clean error, never a crash,
 * a leak or undefined behaviour. The fuzzer runs with stdout closed (-close_fd_mask=1).
 *
 * The same input is first read through a descriptor, as a file (a memfd)
 * and as a pipe (when it fits in one): the look-ahead, give-back and
 * skips of lib/format/input.c. Each must read the same records and the
 * same damage as memory does (a pipe without a time range, which memory
 * and a file seek to with the trailer's index and a pipe cannot): else
 * the fuzzer aborts. Inputs of odd sizes are read so with their CRCs
 * checked (rc_fuzz_check_crc): a mutation is damage then, and the resync
 * runs.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "format/format.h"
#include "ringcap.h"

/*
 * LeakSanitizer's suppressions: libtraceevent 1.7.1 (Debian's) leaks a
 * token of a few bytes inside tep_parse_format() on some malformed format
 * texts (tests/fuzz/regressions/tep-parse-leak). That is the library's,
 * bounded by the events a file names, and not ours to free; every other
 * leak still fails the run.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PIPE_MAX (1u << 20) /* the most a pipe is asked to hold (fs.pipe-max-size) */

static int quiet(enum rc_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* What a read gave: compared between memory, a file and a pipe. */
struct outcome {
	bool opened, truncated, corrupt;
	long n;
	int err;
	uint64_t sum, offset, chunks;
	uint64_t plain; /* sum without the stacks: what a read of chunks compares */
	struct rc_damage d;
	char msg[512];
};

/* A sample's or off-CPU record's stack, every frame's names read (ids 7 and 8). */
static uint64_t stack_sum(const struct rc_reader *r, const struct rc_rec_hdr *rec)
{
	const struct rc_stack *st;
	uint64_t sum = 0;
	uint32_t id;
	size_t i;

	if ((rec->type != 7 && rec->type != 8) || rec->size < 60)
		return 0;
	memcpy(&id, (const char *)rec + 56, sizeof(id));
	st = rc_reader__stack(r, id);
	for (i = 0; st && i < (size_t)st->nkernel + st->nuser; i++) {
		sum += st->frames[i].addr + st->frames[i].off;
		sum += st->frames[i].sym ? strlen(st->frames[i].sym) : 0;
		sum += st->frames[i].dso ? strlen(st->frames[i].dso) : 0;
	}
	return sum;
}

/* An AUX block, decoded and checked: every byte read, as a consumer would. */
static int touch_aux(void *ctx, const struct rc_aux_chunk *ac)
{
	const unsigned char *p = ac->data;
	uint64_t i, *sum = ctx;

	for (i = 0; i < ac->size; i++)
		*sum += p[i];
	*sum += rc_aux_chunk__hw_to_ts(ac, *sum) + strlen(ac->pmu);
	return 0;
}

static void outcome_of(struct rc_reader *r, uint64_t since, struct outcome *o)
{
	const struct rc_rec_hdr *rec;
	int err;

	memset(o, 0, sizeof(*o));
	if (!r)
		return;
	o->opened = true;
	rc_reader__set_range(r, since, UINT64_MAX);
	while ((err = rc_reader__next(r, &rec)) > 0) {
		o->n++;
		o->sum = o->sum * 31 + rec->ts + rec->type + rec->size;
		o->plain = o->plain * 31 + rec->ts + rec->type + rec->size;
		o->sum += stack_sum(r, rec);
	}
	o->err = err;
	o->truncated = rc_reader__truncated(r);
	o->corrupt = rc_reader__corrupt(r, &o->d);
	o->offset = rc_reader__offset(r);
	o->chunks = rc_reader__chunks(r);
	snprintf(o->msg, sizeof(o->msg), "%s", rc_reader__error(r));
	rc_reader__free(r);
}

static bool same(const struct outcome *a, const struct outcome *b)
{
	const struct rc_damage *x = &a->d, *y = &b->d;

	return a->opened == b->opened && a->n == b->n && a->sum == b->sum && a->err == b->err &&
	       a->truncated == b->truncated && a->corrupt == b->corrupt && a->offset == b->offset &&
	       a->chunks == b->chunks && !strcmp(a->msg, b->msg) && x->offset == y->offset &&
	       x->resync == y->resync && x->stretches == y->stretches && x->bytes == y->bytes &&
	       x->chunks == y->chunks && x->records == y->records && x->exact == y->exact &&
	       x->spent == y->spent && x->gave_up == y->gave_up;
}

#define HELD 3 /* chunks a read of chunks keeps out before settling the oldest */

/* The oldest chunk out decompressed, its records summed, settled; 0 or -errno. */
static int settle_one(struct rc_reader *r, struct rc_inflater *d, struct rc_packed_chunk *c,
		      struct outcome *o)
{
	const void *raw;
	const char *why;
	uint64_t last = 0;
	size_t len, pos;
	int err = rc_inflater__run(d, r, c, &raw, &len, &why);

	if (err && err != -EBADMSG)
		return err;
	for (pos = 0; !err && pos < len;) {
		const struct rc_rec_hdr *rec = (const void *)((const char *)raw + pos);

		o->n++;
		o->plain = o->plain * 31 + rec->ts + rec->type + rec->size;
		last = rec->ts > last ? rec->ts : last;
		pos += rec->size;
	}
	return rc_reader__settle(r, c, !err, why, last);
}

/*
 * As outcome_of(), through rc_reader__next_chunk() (report -j's path),
 * up to HELD chunks out at a time: the same records, counts and damage.
 */
static void outcome_chunked(struct rc_reader *r, uint64_t since, struct outcome *o)
{
	struct rc_packed_chunk q[HELD] = {};
	struct rc_inflater *d = rc_inflater__new();
	size_t head = 0, out = 0, i;
	int err;

	memset(o, 0, sizeof(*o));
	if (!r || !d)
		goto done;
	o->opened = true;
	rc_reader__set_range(r, since, UINT64_MAX);
	for (;;) {
		err = rc_reader__next_chunk(r, &q[(head + out) % HELD]);
		if (err == 1 && ++out < HELD)
			continue;
		/* HELD out, RC_READER_SETTLE, the end or a failure: settle them */
		while (out && (err != 1 || out == HELD)) {
			int e = settle_one(r, d, &q[head], o);

			if (e < 0)
				abort(); /* ENOMEM: not the input's */
			head = (head + 1) % HELD;
			out--;
		}
		if (err <= 0)
			break;
	}
	o->err = err;
	o->truncated = rc_reader__truncated(r);
	o->corrupt = rc_reader__corrupt(r, &o->d);
	o->offset = rc_reader__offset(r);
	o->chunks = rc_reader__chunks(r);
	snprintf(o->msg, sizeof(o->msg), "%s", rc_reader__error(r));
done:
	for (i = 0; i < HELD; i++)
		rc_strbuf__free(&q[i].data);
	rc_inflater__free(d);
	rc_reader__free(r);
}

/* The reader of descriptor @fd, through its /proc path as rc_reader__open() takes it. */
static struct rc_reader *open_fd(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return rc_reader__open(path);
}

/*
 * @data read from a memfd, and from a pipe when it fits in one: as from
 * memory, or abort. The file from @since on, as memory is: both seek with
 * the trailer's index; the pipe from the start, which it cannot.
 */
static void read_from_fds(const uint8_t *data, size_t size, uint64_t since)
{
	struct outcome mem, fd;
	int mfd, p[2];

	outcome_of(rc_reader__open_mem(data, size), since, &mem);
	outcome_chunked(rc_reader__open_mem(data, size), since, &fd);
	fd.sum = mem.sum; /* the stacks are not read there */
	if (!same(&mem, &fd) || fd.plain != mem.plain) {
		fprintf(stderr,
			"chunks read otherwise than records: %s | %s; n %ld|%ld err %d|%d chunks "
			"%llu|%llu offset %llu|%llu plain %d trunc %d|%d dmg chunks %llu|%llu "
			"records %llu|%llu bytes %llu|%llu spent %llu|%llu\n",
			fd.msg, mem.msg, fd.n, mem.n, fd.err, mem.err,
			(unsigned long long)fd.chunks, (unsigned long long)mem.chunks,
			(unsigned long long)fd.offset, (unsigned long long)mem.offset,
			fd.plain == mem.plain, fd.truncated, mem.truncated,
			(unsigned long long)fd.d.chunks, (unsigned long long)mem.d.chunks,
			(unsigned long long)fd.d.records, (unsigned long long)mem.d.records,
			(unsigned long long)fd.d.bytes, (unsigned long long)mem.d.bytes,
			(unsigned long long)fd.d.spent, (unsigned long long)mem.d.spent);
		abort();
	}
	mfd = memfd_create("fuzz.rcap", MFD_CLOEXEC);
	if (mfd < 0)
		return;
	if (size && write(mfd, data, size) != (ssize_t)size)
		abort();
	outcome_of(open_fd(mfd), since, &fd);
	close(mfd);
	if (!same(&mem, &fd)) {
		fprintf(stderr, "a file reads otherwise than memory: %s | %s\n", fd.msg, mem.msg);
		abort();
	}
	if (size > PIPE_MAX || pipe2(p, O_CLOEXEC))
		return;
	/* all of it in the pipe, then its end: no writer to wait for */
	if (fcntl(p[1], F_SETPIPE_SZ, size > 4096 ? size : 4096) < (int)size ||
	    fcntl(p[1], F_SETFL, O_NONBLOCK) ||
	    (size && write(p[1], data, size) != (ssize_t)size)) {
		close(p[0]);
		close(p[1]);
		return;
	}
	close(p[1]);
	outcome_of(open_fd(p[0]), 0, &fd);
	close(p[0]);
	if (since)
		outcome_of(rc_reader__open_mem(data, size), 0, &mem);
	if (!same(&mem, &fd)) {
		fprintf(stderr, "a pipe reads otherwise than memory: %s | %s\n", fd.msg, mem.msg);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rc_strbuf sb = {};
	struct rc_summary sum = {};
	/* perf-script: tracepoints through libtraceevent, from the file's format notes */
	static const struct rc_output_ops *const fmts[6] = {
		&rc_output_text,     &rc_output_json,	       &rc_output_csv,
		&rc_output_perfetto, &rc_output_perfetto_json, &rc_output_perf_script
	};
	struct rc_output *outs[6] = {};
	static const uint32_t pids[] = { 0, 100 }, cpus[] = { 0 };
	struct rc_filter filter = { .pids = pids,
				    .npids = 2,
				    .cpus = cpus,
				    .ncpus = 1,
				    .comm = "seed1",
				    .until = UINT64_MAX };
	struct rc_ledger led = {};
	struct rc_runq runq = { .div = 1000 };
	uint64_t first, last, nrec, aux_sum = 0;
	struct rc_stats span;
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
	/* with the CRCs checked for inputs of odd sizes: damage, and the resync */
	rc_fuzz_check_crc = size & 1;
	read_from_fds(data, size, size > 100 ? data[100] : 0);
	rc_fuzz_check_crc = false;
	r = rc_reader__open_mem(data, size);
	if (!r)
		return 0;
	m = rc_reader__meta(r);
	for (i = 0; i < 6; i++)
		outs[i] = rc_output__new(fmts[i], stdout, &m, 1, i ? 0 : RC_FMT_WALL,
					 i & 1 /* hosts shown */);
	rc_filter__add_event(&filter, m->schema, "sched");
	rc_ledger__alloc(&led, m->ncpus);
	/* the trailer read from the end, as a set does to pass files over */
	rc_reader__on_aux(r, touch_aux, &aux_sum);
	rc_reader__span(r, &first, &last, &nrec);
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
		for (i = 0; i < 6; i++)
			if (outs[i])
				rc_output__event(outs[i], 0, rec);
	}
	for (i = 0; i < 6; i++) {
		if (outs[i])
			rc_output__end(outs[i]);
		rc_output__free(outs[i]);
	}
	/* a file of a run: its counters less its BASE, as stat counts it */
	if (rc_reader__stats(r) && !rc_stats__span(rc_reader__stats(r), rc_reader__base(r), &span))
		free(span.entries);
	rc_ledger__count(&led, rc_reader__stats(r));
	rc_ledger__free(&led);
	rc_runq__free(&runq);
	rc_filter__free(&filter);
	rc_summary__sort(&sum);
	st = rc_reader__stats(r);
	if (st)
		rc_stats__totals(st, &pt);
	st = rc_reader__base(r);
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
