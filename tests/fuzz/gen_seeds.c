// SPDX-License-Identifier: GPL-2.0-only
/*
 * Write the fuzzer's seed corpus into a directory: small valid captures
 * of every built-in event, in the current format, a truncated one, a
 * damaged one (blocks to resync past), and captures of FTRACE chunks (ftrace events as the kernel's
 * ring holds them).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "events.h"
#include "format/format.h"
#include "format/schema_int.h"
#include "format/ftpage.h"
#include "format/writer_int.h"
#include "ringcap.h"
#include "tracefs/tpformat.h"
#include "../ft_formats.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static void hdr(struct rc_rec_hdr *h, uint16_t type, uint16_t size, uint64_t ts)
{
	memset(h, 0, sizeof(*h));
	h->ts = ts;
	h->pid = 100 + ts % 3;
	h->tid = h->pid + 1;
	h->type = type;
	h->size = size;
	h->cpu = ts % 2;
	snprintf(h->comm, sizeof(h->comm), "seed%u", (unsigned)(ts % 5));
}

/* A ringcap:aux record and an AUX block (v1.10): compressible or not, in turn. */
static int add_aux(struct rc_writer *w, unsigned int i, uint64_t ts)
{
	unsigned char bytes[300];
	struct rc_rec_aux a = { .offset = 300 * i, .size = 300, .flags = i % 2, .kind = 11 };
	struct rc_aux_chunk ac = { .pmu = "intel_pt",
				   .cpu = i % 2,
				   .pos = 300 * i,
				   .size = sizeof(bytes),
				   .ts = ts,
				   .time_mult = 3,
				   .time_shift = 2,
				   .clock_valid = true,
				   .perf_to_boot = 7,
				   .data = bytes };
	unsigned int k;

	for (k = 0; k < sizeof(bytes); k++)
		bytes[k] = i % 2 ? (unsigned char)(k * 2654435761u >> 13) : (unsigned char)(k % 4);
	hdr(&a.hdr, RC_REC_AUX, sizeof(a), ts);
	return rc_writer__add(w, &a, sizeof(a)) ?: rc_writer__add_aux(w, &ac);
}

static int add_all(struct rc_writer *w, unsigned int n)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		uint64_t ts = 1000 + 100 * i;
		struct rc_ev_syscall sc;
		struct rc_ev_switch sw;
		struct rc_ev_wakeup wk;
		struct rc_ev_fork fk;
		struct rc_ev_exec ex;
		struct rc_ev_exit et;

		hdr(&sc.hdr, RC_EV_SYSCALL, sizeof(sc), ts);
		sc.nr = i % 3 ? 39 : 2;
		sc.__pad = 0;
		sc.ret = i % 4 ? (int64_t)i : -2;
		sc.duration = i * 7;
		memset(sc.args, i, sizeof(sc.args));
		hdr(&sw.hdr, RC_EV_SCHED_SWITCH, sizeof(sw), ts + 10);
		sw = (struct rc_ev_switch){ .hdr = sw.hdr,
					    .prev_state = i % 2 ? 0x1 : 0x100,
					    .prev_prio = 120,
					    .next_pid = 7,
					    .next_tid = 7,
					    .next_prio = 120,
					    .next_comm = "next" };
		hdr(&wk.hdr, RC_EV_SCHED_WAKEUP, sizeof(wk), ts + 20);
		wk = (struct rc_ev_wakeup){ .hdr = wk.hdr,
					    .pid = 7,
					    .tid = 8,
					    .prio = 100,
					    .target_cpu = 1,
					    .wakee_comm = "wakee" };
		hdr(&fk.hdr, RC_EV_SCHED_FORK, sizeof(fk), ts + 30);
		fk = (struct rc_ev_fork){
			.hdr = fk.hdr, .child_pid = 9, .child_tid = 9, .child_comm = "child"
		};
		hdr(&ex.hdr, RC_EV_SCHED_EXEC, sizeof(ex), ts + 40);
		memset(ex.filename, 0, sizeof(ex.filename));
		strcpy(ex.filename, "/usr/bin/seed");
		ex.old_tid = 9;
		ex.__pad = 0;
		hdr(&et.hdr, RC_EV_SCHED_EXIT, sizeof(et), ts + 50);
		et.exit_code = 7 << 8;
		et.group_dead = 1;
		err = rc_writer__add(w, &sc, sizeof(sc)) ?: rc_writer__add(w, &sw, sizeof(sw)) ?:
		      rc_writer__add(w, &wk, sizeof(wk)) ?: rc_writer__add(w, &fk, sizeof(fk)) ?:
		      rc_writer__add(w, &ex, sizeof(ex)) ?: rc_writer__add(w, &et, sizeof(et));
		if (!err && i % 3 == 0)
			err = add_aux(w, i, ts + 60);
	}
	return err;
}

/*
 * Eight syscall records an iteration, of one size: long runs, which the
 * writer shuffles as runs (codec 2); add_all()'s kinds in turn it shuffles
 * by class (codec 4).
 */
static int add_runs(struct rc_writer *w, unsigned int n)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < 8 * n && !err; i++) {
		struct rc_ev_syscall sc;

		hdr(&sc.hdr, RC_EV_SYSCALL, sizeof(sc), 1000 + 10 * i);
		sc.nr = 39;
		sc.__pad = 0;
		sc.ret = i;
		sc.duration = i * 3;
		memset(sc.args, i, sizeof(sc.args));
		err = rc_writer__add(w, &sc, sizeof(sc));
	}
	return err;
}

enum seed_codec { SHUFFLED, SHUFFLED_RUNS, PLAIN, STORED };
enum seed_end { WHOLE, CUT, DAMAGED };

/*
 * Damage a capture for the reader to resync past: the magic of its second
 * chunk; its fourth made a block of a later minor's type claiming most of
 * the rest of the file (its CRC wrong: read whole, given back, scanned
 * from a pipe's look-ahead); its sixth a STATS block claiming 8 MiB, past
 * the end. A byte after the END block makes the size odd: the fuzzer
 * reads such inputs with their CRCs checked (fuzz_reader.c).
 */
static int damage(int fd)
{
	uint32_t h[4], zero = 0, later = RC_BLOCK_END + 1, stats = RC_BLOCK_STATS, len;
	uint32_t huge = 8u << 20;
	uint64_t off = 0;
	off_t size = lseek(fd, 0, SEEK_END);
	int nth = 0;

	while (pread(fd, h, sizeof(h), off) == sizeof(h)) {
		struct rc_disk_chunk dc;

		if (h[2] != RC_BLOCK_CHUNK) {
			off += 8 + (uint64_t)h[1];
			continue;
		}
		if (pread(fd, &dc, sizeof(dc), off + RC_BLOCK_HDR_SIZE) != sizeof(dc))
			return -EIO;
		nth++;
		len = size - off - 100;
		if ((nth == 2 && pwrite(fd, &zero, 4, off) != 4) ||
		    (nth == 4 &&
		     (pwrite(fd, &len, 4, off + 4) != 4 || pwrite(fd, &later, 4, off + 8) != 4)) ||
		    (nth == 6 &&
		     (pwrite(fd, &huge, 4, off + 4) != 4 || pwrite(fd, &stats, 4, off + 8) != 4)))
			return -EIO;
		off += 8 + (uint64_t)h[1] + dc.data_size;
	}
	if (size % 2 == 0 && pwrite(fd, "", 1, size) != 1)
		return -EIO;
	return nth >= 6 ? 0 : -EINVAL;
}

/*
 * The built-in schema and how many arguments the seeds' calls take
 * (RC_ENUM_SYSCALL_NARGS, as record -e syscalls stores it): 39 none, 2
 * three, and an entry not a count, which a reader takes as six
 */
static struct rc_schema *nargs_schema(void)
{
	static const struct rc_enum_entry e[] = { { 2, "3" }, { 39, "0" }, { 40, "x" } };
	struct rc_schema *s = rc_schema__new(rc_builtin_schema());

	if (s && rc_schema__add_enum(s, &(struct rc_enum){ RC_ENUM_SYSCALL_NARGS, "syscall_nargs",
							   ARRAY_SIZE(e), e })) {
		rc_schema__free(s);
		return NULL;
	}
	return s;
}

static int write_seed(const char *dir, const char *name, unsigned int n, size_t chunk,
		      enum seed_end end, enum seed_codec codec)
{
	struct rc_stat_entry se[2] = {
		{ .cpu = 0, .type = RC_EV_SYSCALL, .made = n, .captured = n, .filtered = 3 },
		{ .cpu = 0xffffffffu, .type = RC_EV_SCHED_WAKEUP, .missed = 1 },
	};
	struct rc_stats st = {
		.ts = 5000, .ring_size = 4096, .ring_hwm = 512, .nentries = 2, .entries = se
	};
	struct rc_writer_opts wo = { .sz = sizeof(wo),
				     .chunk_size = chunk,
				     .reorder_ns = 1,
				     .no_shuffle = codec == PLAIN,
				     .no_compress = codec == STORED };
	struct rc_meta m = { .clock_id = 7,
			     .ncpus = 2,
			     .page_size = 4096,
			     .recorder_pid = 1,
			     .transport = RC_TRANSPORT_RINGBUF,
			     .start_ts = 900,
			     .ringbuf_size = 4096,
			     .host = "seed",
			     .kernel = "6.18",
			     .arch = "x86_64",
			     .cmdline = "ringcap record" };
	struct rc_schema *s;
	struct rc_writer *w;
	char path[4096];
	int fd, err;
	off_t len;

	s = nargs_schema();
	if (!s)
		return -ENOMEM;
	m.schema = s;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		rc_schema__free(s);
		return -errno;
	}
	w = rc_writer__new(fd, &m, &wo);
	if (!w) {
		err = -errno;
		close(fd);
		rc_schema__free(s);
		return err;
	}
	err = (codec == SHUFFLED_RUNS ? add_runs(w, n) : add_all(w, n)) ?:
	      rc_writer__add_stats(w, &st) ?: rc_writer__finish(w);
	rc_writer__free(w);
	len = lseek(fd, 0, SEEK_END);
	if (!err && end == CUT && ftruncate(fd, len * 2 / 3))
		err = -errno;
	if (!err && end == DAMAGED)
		err = damage(fd);
	close(fd);
	rc_schema__free(s);
	return err;
}

/* ---- FTRACE chunks ------------------------------------------------------ */

static const char switch_fmt[] = FT_SWITCH_FMT;
static const char irq_fmt[] = FT_IRQ_FMT;

static const struct {
	const char *name, *fmt;
	uint32_t ftrace_id;
	uint16_t rc_id;
} ft_events[] = {
	{ "sched:sched_switch", switch_fmt, 372, 256 },
	{ "irq:irq_handler_entry", irq_fmt, 225, 257 },
};

struct ft_range {
	unsigned char buf[4096];
	uint32_t len;
};

static void put32(struct ft_range *r, uint32_t v)
{
	memcpy(r->buf + r->len, &v, 4);
	r->len += 4;
}

/* A data event: header, then the raw record (common fields first). */
static void put_event(struct ft_range *r, uint32_t delta, uint16_t type, int32_t pid,
		      const void *fields, uint32_t flen)
{
	uint32_t len = (8 + flen + 3) & ~3u;

	if (len <= 112) {
		put32(r, delta << 5 | len / 4);
	} else {
		put32(r, delta << 5);
		put32(r, len + 4);
	}
	memset(r->buf + r->len, 0, len);
	memcpy(r->buf + r->len, &type, 2);
	memcpy(r->buf + r->len + 4, &pid, 4);
	memcpy(r->buf + r->len + 8, fields, flen);
	r->len += len;
}

/* One CPU's sub-buffer data: switches, irqs with a __data_loc name, extends, a discard. */
static void build_ft_range(struct ft_range *r, unsigned int cpu)
{
	unsigned int i;

	r->len = 0;
	for (i = 0; i < 12; i++) {
		struct {
			char prev_comm[16];
			int32_t prev_pid, prev_prio;
			int64_t prev_state;
			char next_comm[16];
			int32_t next_pid, next_prio;
		} sw = { "seed", 100 + i % 3, 120, i % 2, "next", 7, 120 };
		struct {
			int32_t irq;
			uint32_t name_loc;
			char name[8];
		} irq = { 16 + cpu, 5u << 16 | 16, "eth0" };

		if (i % 5 == 4) {
			put32(r, (1000 & ((1u << 27) - 1)) << 5 | 30); /* a time extend */
			put32(r, 1);
		}
		if (i % 7 == 6) {
			put32(r, 3u << 5 | 29); /* a discarded event */
			put32(r, 12);
			memset(r->buf + r->len, 0, 8);
			r->len += 8;
		}
		if (i % 2)
			put_event(r, 100, 225, 100 + i % 3, &irq, 13);
		else
			put_event(r, i % 5 == 4 ? 0 : 100, 372, i % 4 ? 100 + i % 3 : 0, &sw,
				  sizeof(sw));
	}
	put32(r, 29); /* end padding */
	r->len += 12;
}

static int seed_task(void *ctx, uint32_t tid, struct rc_disk_task *t)
{
	if (tid != 100 && tid != 101)
		return -ENOENT;
	t->tgid = 100;
	snprintf(t->comm, sizeof(t->comm), "task%u", tid);
	return 0;
}

/* Two CPUs' rings in two chunks, with a ringcap:lost record between. */
static int add_ft_chunks(struct rc_writer *w, struct rc_ftenc *e)
{
	struct rc_rec_lost lost = { .hdr = { .ts = 0, .type = RC_REC_LOST, .size = sizeof(lost) },
				    .lost = 3 };
	struct ft_range r[2];
	struct rc_ft_cursor c[2];
	struct rc_disk_chunk dc;
	const void *data;
	unsigned int cpu, round;
	int err = 0;

	for (cpu = 0; cpu < 2; cpu++) {
		build_ft_range(&r[cpu], cpu);
		c[cpu] = (struct rc_ft_cursor){ r[cpu].buf, r[cpu].len, 0, 5000 + cpu * 50 };
	}
	for (round = 0; round < 2 && !err; round++) {
		uint64_t until = round ? UINT64_MAX : 5000 + 600;

		for (cpu = 0; cpu < 2 && !err; cpu++)
			if (rc_ftenc__take(e, cpu, &c[cpu], until) < 0)
				err = -EINVAL;
		if (!round) {
			lost.hdr.ts = until;
			err = err ?: rc_ftenc__records(e, &lost, sizeof(lost));
		}
		err = err ?: rc_ftenc__end(e, &dc, &data);
		err = err ?: rc_writer__add_chunk(w, &dc, data);
	}
	return err;
}

static int write_ftrace_seed(const char *dir, const char *name, bool stored)
{
	static const char header_event[] = "\ttype_len    :    5 bits\n"
					   "\ttime_delta  :   27 bits\n"
					   "\tarray       :   32 bits\n";
	struct rc_meta m = { .clock_id = 7,
			     .ncpus = 2,
			     .page_size = 4096,
			     .transport = RC_TRANSPORT_RINGBUF,
			     .start_ts = 900,
			     .host = "seed",
			     .kernel = "6.18",
			     .arch = "x86_64",
			     .cmdline = "ringcap record" };
	struct rc_note notes[2 * ARRAY_SIZE(ft_events) + 1];
	uint32_t ids[ARRAY_SIZE(ft_events)];
	struct rc_writer *w = NULL;
	struct rc_ftenc *e = NULL;
	struct rc_schema *s;
	char path[4096];
	size_t i, k = 0;
	int fd, err = 0;

	s = rc_schema__new(rc_builtin_schema());
	if (!s)
		return -errno;
	for (i = 0; i < ARRAY_SIZE(ft_events) && !err; i++) {
		struct rc_event_desc ev = { .id = ft_events[i].rc_id, .name = ft_events[i].name };
		struct rc_tpformat f;
		char why[256];

		err = rc_tpformat__parse(&f, ft_events[i].fmt, sizeof(struct rc_rec_hdr), why,
					 sizeof(why));
		if (err)
			break;
		ev.size = (sizeof(struct rc_rec_hdr) + f.size + 7) & ~7u;
		ev.nfields = f.nfields;
		ev.fields = f.fields;
		err = rc_schema__add_event(s, &ev);
		rc_tpformat__free(&f);
		ids[i] = ft_events[i].ftrace_id;
		notes[k++] = (struct rc_note){ ev.id, "ftrace_id", &ids[i], sizeof(ids[i]) };
		notes[k++] =
		    (struct rc_note){ ev.id, "format", ft_events[i].fmt, strlen(ft_events[i].fmt) };
	}
	notes[k++] = (struct rc_note){ 0, "header_event", header_event, strlen(header_event) };
	m.schema = s;
	m.notes = notes;
	m.nnotes = k;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = err ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (!err && fd < 0)
		err = -errno;
	if (!err) {
		w = rc_writer__new(fd, &m, NULL);
		e = rc_ftenc__new(0, stored, seed_task, NULL);
		err = w && e ? 0 : -errno;
	}
	err = err ?: add_ft_chunks(w, e) ?: rc_writer__finish(w);
	rc_ftenc__free(e);
	rc_writer__free(w);
	if (fd >= 0)
		close(fd);
	rc_schema__free(s);
	return err;
}

/* ---- a record --bpf struct beside built-in events ----------------------- */

#define BPF_U(nm, off, sz)                                                                         \
	{                                                                                          \
		.name = nm, .offset = off, .size = sz, .count = 1, .kind = RC_FIELD_UINT           \
	}

/*
 * Events as record --bpf describes a struct (format 1.5): field names that
 * nest in JSON, and flags for what the records do not know.
 */
static int add_bpf_events(struct rc_schema *s)
{
	static const struct rc_field nest[] = {
		BPF_U("seq", 40, 8),
		BPF_U("inner.a", 48, 4),
		BPF_U("inner.deep.x", 52, 2),
		BPF_U("inner.a|b", 54, 1),
		BPF_U("pairs[0].x", 55, 1),
		BPF_U("pairs[1].x", 56, 1),
		BPF_U("m[0][0].v", 57, 1),
		BPF_U("m[0][1].v", 58, 1),
		{ .name = "names[0]", .offset = 59, .size = 2, .count = 1, .kind = RC_FIELD_STR },
		{ .name = "names[1]", .offset = 61, .size = 3, .count = 1, .kind = RC_FIELD_STR },
	};
	static const struct rc_field clash[] = { BPF_U("x", 40, 4), BPF_U("x.y", 44, 4) };
	const struct rc_event_desc evs[] = {
		{ 256, 64, "bpf:nest", ARRAY_SIZE(nest), nest,
		  RC_EVENT_NO_PID | RC_EVENT_NO_TID | RC_EVENT_NO_CPU | RC_EVENT_NO_COMM },
		{ 257, 48, "bpf:clash", ARRAY_SIZE(clash), clash,
		  RC_EVENT_NO_PID | RC_EVENT_NO_TID | RC_EVENT_NO_COMM },
	};
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(evs) && !err; i++)
		err = rc_schema__add_event(s, &evs[i]);
	return err;
}

static int add_bpf_records(struct rc_writer *w, unsigned int n)
{
	unsigned char rec[64];
	unsigned int i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		struct rc_rec_hdr *h = (void *)rec;
		uint64_t seq = i;

		memset(rec, 0, sizeof(rec));
		h->ts = 1005 + 100 * i;
		h->type = i % 2 ? 257 : 256;
		h->size = i % 2 ? 48 : 64;
		h->cpu = i % 2; /* 256: no CPU, stored as 0 */
		memcpy(rec + 40, &seq, sizeof(seq));
		memset(rec + 48, 0x41 + i, 16);
		err = rc_writer__add(w, rec, h->size);
	}
	return err;
}

static int write_bpf_seed(const char *dir, const char *name)
{
	struct rc_stat_entry se[2] = {
		{ .cpu = 0, .type = RC_EV_SYSCALL, .made = 4, .captured = 4 },
		{ .cpu = 0xffffffffu, .type = 256, .made = 2, .captured = 2 },
	};
	struct rc_stats st = { .ts = 5000, .ring_size = 4096, .nentries = 2, .entries = se };
	struct rc_meta m = { .clock_id = 7,
			     .ncpus = 2,
			     .page_size = 4096,
			     .transport = RC_TRANSPORT_RINGBUF,
			     .start_ts = 900,
			     .host = "seed",
			     .kernel = "6.18",
			     .arch = "x86_64",
			     .cmdline = "ringcap record --bpf seed.bpf.o" };
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 1024, .reorder_ns = 1 };
	struct rc_writer *w = NULL;
	struct rc_schema *s;
	char path[4096];
	int fd = -1, err;

	s = rc_schema__new(rc_builtin_schema());
	if (!s)
		return -errno;
	m.schema = s;
	err = add_bpf_events(s);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = err ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (!err && fd < 0)
		err = -errno;
	if (!err) {
		w = rc_writer__new(fd, &m, &wo);
		err = w ? 0 : -errno;
	}
	err = err ?: add_all(w, 4) ?: add_bpf_records(w, 4);
	err = err ?: rc_writer__add_stats(w, &st) ?: rc_writer__finish(w);
	rc_writer__free(w);
	if (fd >= 0)
		close(fd);
	rc_schema__free(s);
	return err;
}

/* ---- STACKS blocks and the samples that use them ---------------------- */

/* A STACKS payload: symbols @first and @first + 1, stack @first of two frames. */
static size_t stacks_payload(unsigned char *p, uint32_t first)
{
	struct rc_disk_stacks ds = { .nsyms = 2, .nstacks = 1 };
	struct rc_disk_sym sy = { .id = first, .name_len = 4, .dso_len = 4 };
	struct rc_disk_stack dk = { .id = first, .pid = 7, .nkernel = 1, .nuser = 1 };
	struct rc_disk_frame fr[2] = { { 0xffffffff81000010, first, 16 },
				       { 0x401000, first + 1, 0 } };
	size_t len = 0;

	memcpy(p + len, &ds, sizeof(ds));
	len += sizeof(ds);
	memcpy(p + len, &sy, sizeof(sy));
	memcpy(p + len + sizeof(sy), "kfun[kk]", 8);
	len += 16;
	sy.id = first + 1;
	memcpy(p + len, &sy, sizeof(sy));
	memcpy(p + len + sizeof(sy), "ufun/bin", 8);
	len += 16;
	memcpy(p + len, &dk, sizeof(dk));
	len += sizeof(dk);
	memcpy(p + len, fr, sizeof(fr));
	return len + sizeof(fr);
}

/* A LINES payload for stack @first: a function inlined into its user frame, and lines. */
static size_t lines_payload(unsigned char *p, uint32_t first)
{
	struct rc_disk_lines dl = { .nfiles = 1, .nlocs = 1, .nstacks = 1 };
	struct rc_disk_srcfile sf = { .id = first, .len = 7 };
	struct rc_disk_loc loc = { .id = first, .nframes = 2 };
	struct rc_disk_locframe lf[2] = { { .sym = first, .file = first, .line = 10 },
					  { .sym = 0, .file = first, .line = 20 } };
	struct rc_disk_stacklines sl = { .id = first, .nframes = 2 };
	uint32_t locs[2] = { 0, first };
	size_t len = 0;

	memcpy(p + len, &dl, sizeof(dl));
	len += sizeof(dl);
	memcpy(p + len, &sf, sizeof(sf));
	memcpy(p + len + sizeof(sf), "src/a.c\0", 8);
	len += 16;
	memcpy(p + len, &loc, sizeof(loc));
	len += sizeof(loc);
	memcpy(p + len, lf, sizeof(lf));
	len += sizeof(lf);
	memcpy(p + len, &sl, sizeof(sl));
	len += sizeof(sl);
	memcpy(p + len, locs, sizeof(locs));
	return len + sizeof(locs);
}

/* A BUILDIDS payload: the build-ids of the two files the symbols name, "/bin" and "[kk]". */
static size_t bids_payload(unsigned char *p, uint32_t first)
{
	struct rc_disk_buildids dh = { .n = 2 };
	struct rc_disk_buildid db = { .file_len = 4, .id_len = 20 };
	size_t k;

	memset(p, 0, 56);
	memcpy(p, &dh, sizeof(dh));
	memcpy(p + 8, &db, sizeof(db)); /* 8 + 4 + 20: 32 bytes */
	memcpy(p + 16, "/bin", 4);
	for (k = 0; k < 20; k++)
		p[20 + k] = (unsigned char)(first + k);
	db.id_len = 3; /* 8 + 4 + 3, to 16 */
	memcpy(p + 40, &db, sizeof(db));
	memcpy(p + 48, "[kk]\x01\x02\x03", 7);
	return 56;
}

static int write_stacks_seed(const char *dir, const char *name)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 512, .reorder_ns = 1 };
	struct rc_meta m = { .clock_id = 7, .ncpus = 2, .page_size = 4096, .recorder_pid = 1,
			     .transport = RC_TRANSPORT_RINGBUF, .start_ts = 900,
			     .ringbuf_size = 4096, .host = "seed", .kernel = "6.18",
			     .arch = "x86_64", .cmdline = "ringcap record -F 99 -g" };
	unsigned char p[256];
	struct rc_writer *w;
	char path[4096];
	uint32_t i, id;
	int fd, err = 0;

	m.schema = rc_builtin_schema();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	w = rc_writer__new(fd, &m, &wo);
	if (!w) {
		close(fd);
		return -errno;
	}
	for (id = 1; !err && id <= 5; id += 2) {
		err = rc_writer__add_stacks(w, p, stacks_payload(p, id));
		err = err ?: rc_writer__add_lines(w, p, lines_payload(p, id));
		err = err ?: rc_writer__add_buildids(w, p, bids_payload(p, id));
		for (i = 0; !err && i < 12; i++) {
			struct rc_ev_sample e = { .ip = 0x401000, .period = 1000, .stack_id = id };

			hdr(&e.hdr, RC_EV_SAMPLE, sizeof(e), 1000 + id * 100 + i);
			err = rc_writer__add(w, &e, sizeof(e)) ?: rc_writer__flush(w, true);
		}
	}
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	close(fd);
	return err;
}

/* A rotated run's second file (v1.9): the RUN section, a BASE block, in_flight counts. */
static int write_run_seed(const char *dir, const char *name)
{
	struct rc_stat_entry be = {
		.type = RC_EV_SYSCALL, .made = 50, .captured = 40, .in_flight = 10
	};
	struct rc_stat_entry ee = {
		.type = RC_EV_SYSCALL, .made = 70, .captured = 58, .dropped = 1, .in_flight = 11
	};
	struct rc_stats base = { .ts = 950, .nentries = 1, .entries = &be };
	struct rc_stats end = { .ts = 2000, .nentries = 1, .entries = &ee };
	struct rc_meta m = {
		.clock_id = 7,
		.ncpus = 2,
		.page_size = 4096,
		.recorder_pid = 1,
		.transport = RC_TRANSPORT_RINGBUF,
		.start_ts = 950,
		.ringbuf_size = 4096,
		.host = "seed",
		.kernel = "6.18",
		.arch = "x86_64",
		.cmdline = "ringcap record --switch-output=1M",
		.run = { .id = { 1, 2, 3 }, .seq = 2, .flags = RC_RUN_F_ROTATING, .start_ts = 900 }
	};
	struct rc_writer *w;
	char path[4096];
	uint32_t i;
	int fd, err = 0;

	m.schema = rc_builtin_schema();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	w = rc_writer__new(fd, &m, NULL);
	if (!w) {
		close(fd);
		return -errno;
	}
	err = rc_writer__add_base(w, &base);
	for (i = 0; !err && i < 18; i++) {
		struct rc_ev_syscall e = { .nr = 39 };

		hdr(&e.hdr, RC_EV_SYSCALL, sizeof(e), 1000 + i);
		err = rc_writer__add(w, &e, sizeof(e));
	}
	err = err ?: rc_writer__add_stats(w, &end);
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	close(fd);
	return err;
}

int main(int argc, char **argv)
{
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	err = write_seed(argv[1], "one.rcap", 1, 4096, WHOLE, SHUFFLED) ?:
	      write_seed(argv[1], "chunks.rcap", 8, 1024, WHOLE, SHUFFLED) ?:
	      write_seed(argv[1], "runs.rcap", 40, 4096, WHOLE, SHUFFLED) ?:
	      write_seed(argv[1], "long_runs.rcap", 40, 4096, WHOLE, SHUFFLED_RUNS) ?:
	      write_seed(argv[1], "plain.rcap", 8, 1024, WHOLE, PLAIN) ?:
	      write_seed(argv[1], "stored.rcap", 8, 1024, WHOLE, STORED) ?:
	      write_seed(argv[1], "truncated.rcap", 8, 1024, CUT, SHUFFLED) ?:
	      write_seed(argv[1], "damaged.rcap", 8, 1024, DAMAGED, SHUFFLED) ?:
	      write_seed(argv[1], "empty.rcap", 0, 4096, WHOLE, SHUFFLED) ?:
	      write_ftrace_seed(argv[1], "ftrace.rcap", false) ?:
	      write_ftrace_seed(argv[1], "ftrace_stored.rcap", true) ?:
	      write_bpf_seed(argv[1], "bpf.rcap") ?: write_stacks_seed(argv[1], "stacks.rcap") ?:
	      write_run_seed(argv[1], "run.rcap");
	if (err)
		fprintf(stderr, "gen_seeds: %s\n", strerror(-err));
	return err ? 1 : 0;
}
