// SPDX-License-Identifier: GPL-2.0-only
/*
 * A profile as pprof's profile.proto, gzipped (output/pprof.h). The
 * schema's field numbers, from github.com/google/pprof proto/profile.proto:
 *
 *   Profile   sample_type 1, sample 2, mapping 3, location 4, function 5,
 *             string_table 6, time_nanos 9, duration_nanos 10,
 *             period_type 11, period 12
 *   ValueType type 1, unit 2 (strings' indices)
 *   Sample    location_id 1 (packed, leaf first), value 2 (packed), label 3
 *   Label     key 1, str 2, num 3
 *   Mapping   id 1, memory_start 2, memory_limit 3, file_offset 4,
 *             filename 5, build_id 6 (hex), has_functions 7,
 *             has_filenames 8, has_line_numbers 9, has_inline_frames 10
 *   Location  id 1, mapping_id 2, address 3, line 4 (innermost first)
 *   Line      function_id 1, line 2
 *   Function  id 1, name 2, system_name 3, filename 4
 *
 * The string table's first string is "". A message's fields may come in
 * any order, and a repeated field's elements need not be together: the
 * samples are written first, as they are made, and what they name
 * (locations, functions, mappings, strings) after them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "decode/profile.h"
#include "format/format.h"
#include "output/pprof.h"
#include "util/keymap.h"
#include "util/mem.h"
#include "util/pb.h"
#include "util/strbuf.h"

#define FLUSH_AT   (64 * 1024) /* bytes of samples encoded before they go through zlib */
#define FRAME_NAME 512

enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	MAPPING_ID = 1,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

/* A row: the records of one file, kind, stack and label values. */
struct row_key {
	uint32_t src;
	uint32_t kind;
	uint32_t stack_id;
	uint32_t pid, tid, cpu; /* 0 when not a label */
	char comm[16];		/* zeroed when not a label */
};

struct row {
	struct row_key k;
	uint64_t samples;
	uint64_t value; /* the periods summed (samples), or ns blocked (off-CPU) */
};

/* A mapping: a file frames were in, and what its frames told of it. */
struct mapping {
	uint32_t name;
	uint32_t build_id; /* its string; 0: none known */
	bool files, lines, inlines;
};

struct rc_pprof {
	unsigned int labels;
	struct rc_keymap index; /* rows by key */
	struct row *rows;
	size_t nrows, cap;
	/* rc_pprof__write()'s */
	struct rc_keymap strs; /* each string's index in @table */
	struct rc_strbuf table; /* each string with its NUL, in the order added */
	uint32_t nstrs;
	const struct rc_profile_src *ps; /* the captures, for their files' build-ids */
	size_t nps;
	struct rc_keymap funcs, locs, maps;
	uint32_t nfuncs, nlocs;
	struct mapping *mappings;
	size_t nmaps, maps_cap;
	struct rc_pb fn, loc; /* the Function and Location fields, as made */
	struct rc_pb out;     /* the Profile's fields waiting for zlib */
	uint64_t *ids;	      /* a sample's locations */
	size_t ids_cap;
	struct rc_strbuf key;
	z_stream z;
	bool z_open;
	FILE *f;
};

static const struct {
	const char *name;
	unsigned int flag;
} label_names[] = {
	{ "pid", RC_PPROF_L_PID }, { "tid", RC_PPROF_L_TID },	{ "comm", RC_PPROF_L_COMM },
	{ "cpu", RC_PPROF_L_CPU }, { "host", RC_PPROF_L_HOST },
};

int rc_pprof__parse_labels(const char *s, unsigned int *labels)
{
	const char *p = s, *end;
	size_t i, n;

	*labels = 0;
	if (!strcmp(s, "none"))
		return 0;
	if (!strcmp(s, "all")) {
		for (i = 0; i < sizeof(label_names) / sizeof(label_names[0]); i++)
			*labels |= label_names[i].flag;
		return 0;
	}
	for (;;) {
		end = strchr(p, ',');
		n = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < sizeof(label_names) / sizeof(label_names[0]); i++)
			if (strlen(label_names[i].name) == n && !strncmp(label_names[i].name, p, n))
				break;
		if (i == sizeof(label_names) / sizeof(label_names[0]))
			return -EINVAL;
		*labels |= label_names[i].flag;
		if (!end)
			return 0;
		p = end + 1;
	}
}

struct rc_pprof *rc_pprof__new(unsigned int labels)
{
	struct rc_pprof *pp = calloc(1, sizeof(*pp));

	if (!pp)
		return NULL;
	pp->labels = labels;
	return pp;
}

int rc_pprof__add(struct rc_pprof *pp, uint32_t src, const struct rc_meta *m,
		  const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(m->schema, rec->type);
	const struct rc_field *f, *weight = NULL;
	struct row_key k = { .src = src };
	uint32_t idx;
	int added;

	if (!ev || rec->type >= RC_FIRST_DYN_ID)
		return 0;
	if (!strcmp(ev->name, "sample")) {
		k.kind = RC_PROFILE_CPU;
		weight = rc_event__field(ev, "period");
	} else if (!strcmp(ev->name, "offcpu")) {
		k.kind = RC_PROFILE_OFFCPU;
		weight = rc_event__field(ev, "blocked");
	} else if (!strcmp(ev->name, "stack")) {
		k.kind = RC_PROFILE_EVENTS;
	} else {
		return 0;
	}
	f = rc_event__field(ev, "stack_id");
	k.stack_id = f ? (uint32_t)rc_field__u64(f, rec, 0) : 0;
	if (pp->labels & RC_PPROF_L_PID)
		k.pid = rec->pid;
	if (pp->labels & RC_PPROF_L_TID)
		k.tid = rec->tid;
	if (pp->labels & RC_PPROF_L_CPU)
		k.cpu = rec->cpu;
	if (pp->labels & RC_PPROF_L_COMM)
		memcpy(k.comm, rec->comm, sizeof(k.comm));
	if (pp->nrows == UINT32_MAX)
		return -E2BIG;
	added = rc_keymap__intern(&pp->index, &k, sizeof(k), pp->nrows, &idx);
	if (added < 0)
		return added;
	if (added) {
		if (rc_ensure_arr(&pp->rows, &pp->cap, pp->nrows + 1, 256))
			return -ENOMEM;
		pp->rows[idx] = (struct row){ .k = k };
		pp->nrows++;
	}
	pp->rows[idx].samples++;
	pp->rows[idx].value += weight ? rc_field__u64(weight, rec, 0) : 0;
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

/* The index of string @s in the table, added when new; 0 on an error (the empty string's). */
static uint32_t str(struct rc_pprof *pp, const char *s, int *err)
{
	uint32_t id;
	int added;

	if (*err)
		return 0;
	added = rc_keymap__intern(&pp->strs, s, strlen(s) + 1, pp->nstrs, &id);
	if (added > 0 && rc_strbuf__append(&pp->table, s, strlen(s) + 1))
		added = -ENOMEM;
	if (added < 0) {
		*err = added;
		return 0;
	}
	pp->nstrs += added;
	return id;
}

/* Through zlib to the file; @flush: Z_NO_FLUSH, or Z_FINISH at the end (zlib's zpipe.c loop). */
static int deflate_out(struct rc_pprof *pp, const void *data, size_t len, int flush)
{
	unsigned char buf[16384];
	size_t n;
	int zr;

	pp->z.next_in = (unsigned char *)data;
	do {
		/* avail_in is an unsigned int: a larger input goes in parts */
		pp->z.avail_in = len > (1u << 30) ? 1u << 30 : (unsigned int)len;
		len -= pp->z.avail_in;
		do {
			pp->z.next_out = buf;
			pp->z.avail_out = sizeof(buf);
			zr = deflate(&pp->z, len ? Z_NO_FLUSH : flush);
			if (zr == Z_STREAM_ERROR)
				return -EINVAL;
			n = sizeof(buf) - pp->z.avail_out;
			if (n && fwrite(buf, 1, n, pp->f) != n)
				return -EIO;
		} while (!pp->z.avail_out);
	} while (len);
	return 0;
}

/* The Profile's fields encoded so far, out; the encoder emptied. */
static int flush_out(struct rc_pprof *pp, struct rc_pb *pb)
{
	int err = pb->err ?: deflate_out(pp, pb->buf, pb->len, Z_NO_FLUSH);

	rc_pb__reset(pb);
	return err;
}

static uint32_t mapping(struct rc_pprof *pp, const char *dso, int *err)
{
	uint32_t id;
	int added;

	if (*err || !dso || !strcmp(dso, "[unknown]"))
		return 0;
	added = rc_keymap__intern(&pp->maps, dso, strlen(dso) + 1, pp->nmaps + 1, &id);
	if (added < 0) {
		*err = added;
		return 0;
	}
	if (added) {
		if (rc_ensure_arr(&pp->mappings, &pp->maps_cap, pp->nmaps + 1, 32)) {
			*err = -ENOMEM;
			return 0;
		}
		const char *bid = NULL;
		size_t i;

		for (i = 0; !bid && i < pp->nps; i++)
			bid = rc_reader__build_id(pp->ps[i].r, dso);
		pp->mappings[pp->nmaps++] = (struct mapping){
			.name = str(pp, dso, err),
			.build_id = bid ? str(pp, bid, err) : 0,
		};
	}
	return id;
}

static uint32_t function(struct rc_pprof *pp, const char *name, const char *file, int *err)
{
	uint32_t k[2], id;
	int added;

	k[0] = str(pp, name, err);
	k[1] = str(pp, file ? file : "", err);
	if (*err)
		return 0;
	added = rc_keymap__intern(&pp->funcs, k, sizeof(k), pp->nfuncs + 1, &id);
	if (added < 0) {
		*err = added;
		return 0;
	}
	if (added) {
		pp->nfuncs++;
		rc_pb__begin(&pp->fn, PROFILE_FUNCTION);
		rc_pb__uint(&pp->fn, FUNCTION_ID, id);
		rc_pb__uint(&pp->fn, FUNCTION_NAME, k[0]);
		rc_pb__uint(&pp->fn, FUNCTION_SYSTEM_NAME, k[0]);
		if (k[1])
			rc_pb__uint(&pp->fn, FUNCTION_FILENAME, k[1]);
		*err = rc_pb__end(&pp->fn);
	}
	return id;
}

/*
 * The location of frames @fr[0..n): functions inlined into the last one,
 * innermost first, then the last, all at one address. Its key: the
 * mapping, the address and each line's function and line.
 */
static uint32_t location(struct rc_pprof *pp, const struct rc_frame *fr, size_t n, int *err)
{
	uint32_t map = mapping(pp, fr[n - 1].dso, err), fn[RC_MAX_LOC_FRAMES * 2], id;
	char name[FRAME_NAME];
	size_t i;
	int added;

	if (n > RC_MAX_LOC_FRAMES)
		n = RC_MAX_LOC_FRAMES; /* a reader takes no more */
	for (i = 0; i < n; i++) {
		fn[2 * i] =
		    function(pp, rc_frame__name(&fr[i], name, sizeof(name)), fr[i].file, err);
		fn[2 * i + 1] = fr[i].line;
	}
	if (*err)
		return 0;
	pp->key.len = 0;
	*err = rc_strbuf__append(&pp->key, &map, sizeof(map)) ?:
	       rc_strbuf__append(&pp->key, &fr[n - 1].addr, sizeof(fr[n - 1].addr)) ?:
	       rc_strbuf__append(&pp->key, fn, n * 2 * sizeof(fn[0]));
	if (*err)
		return 0;
	added = rc_keymap__intern(&pp->locs, pp->key.buf, pp->key.len, pp->nlocs + 1, &id);
	if (added <= 0) {
		*err = added < 0 ? added : 0;
		return id;
	}
	pp->nlocs++;
	if (map) {
		struct mapping *mp = &pp->mappings[map - 1];

		for (i = 0; i < n; i++) {
			mp->files |= fr[i].file != NULL;
			mp->lines |= fr[i].line != 0;
		}
		mp->inlines |= n > 1;
	}
	rc_pb__begin(&pp->loc, PROFILE_LOCATION);
	rc_pb__uint(&pp->loc, LOCATION_ID, id);
	if (map)
		rc_pb__uint(&pp->loc, LOCATION_MAPPING_ID, map);
	rc_pb__uint(&pp->loc, LOCATION_ADDRESS, fr[n - 1].addr);
	for (i = 0; i < n; i++) {
		rc_pb__begin(&pp->loc, LOCATION_LINE);
		rc_pb__uint(&pp->loc, LINE_FUNCTION_ID, fn[2 * i]);
		if (fn[2 * i + 1])
			rc_pb__uint(&pp->loc, LINE_LINE, fn[2 * i + 1]);
		rc_pb__end(&pp->loc);
	}
	*err = rc_pb__end(&pp->loc);
	return id;
}

/* A row's locations, leaf first: the kernel's innermost first, then the user's. */
static int row_locations(struct rc_pprof *pp, const struct rc_stack *st, size_t *n)
{
	static const struct rc_frame unknown = { .sym = "[unknown]" };
	size_t i, j, side, nf = st ? (size_t)st->nkernel + st->nuser : 0;
	int err = 0;

	*n = 0;
	if (rc_ensure_arr(&pp->ids, &pp->ids_cap, nf ? nf : 1, 64))
		return -ENOMEM;
	if (!nf) {
		pp->ids[(*n)++] = location(pp, &unknown, 1, &err);
		return err;
	}
	for (i = 0; !err && i < nf; i = j + 1) {
		/* inlined frames go with the frame after them, on the same side */
		side = i < st->nkernel ? st->nkernel : nf;
		for (j = i; j + 1 < side && (st->frames[j].flags & RC_FRAME_F_INLINE); j++)
			;
		pp->ids[(*n)++] = location(pp, &st->frames[i], j - i + 1, &err);
	}
	return err;
}

static void label_num(struct rc_pb *pb, uint32_t key, uint64_t v)
{
	rc_pb__begin(pb, SAMPLE_LABEL);
	rc_pb__uint(pb, LABEL_KEY, key);
	rc_pb__uint(pb, LABEL_NUM, v);
	rc_pb__end(pb);
}

static void label_str(struct rc_pb *pb, uint32_t key, uint32_t s)
{
	rc_pb__begin(pb, SAMPLE_LABEL);
	rc_pb__uint(pb, LABEL_KEY, key);
	rc_pb__uint(pb, LABEL_STR, s);
	rc_pb__end(pb);
}

/* Whether @dso looks like a shared library or the kernel's: "[...]", "lib*.so*", "*.so*". */
static bool library(const char *dso)
{
	const char *base = strrchr(dso, '/');

	base = base ? base + 1 : dso;
	return dso[0] == '[' || strstr(base, ".so") || !strncmp(base, "lib", 3);
}

/*
 * The main program's mapping first: pprof names a profile by it ("File:").
 * It is the file of the outermost user frame not in a library, of the row
 * with the most samples that has one.
 */
static void main_mapping(struct rc_pprof *pp, const struct rc_profile_src *ps,
			 enum rc_profile_kind kind, int *err)
{
	const char *best = NULL;
	uint64_t most = 0;
	size_t i, k;

	for (i = 0; i < pp->nrows; i++) {
		const struct row *row = &pp->rows[i];
		const struct rc_stack *st;

		if (row->k.kind != kind || row->samples <= most)
			continue;
		st = rc_reader__stack(ps[row->k.src].r, row->k.stack_id);
		for (k = st ? (size_t)st->nkernel + st->nuser : 0; st && k-- > st->nkernel;) {
			const char *dso = st->frames[k].dso;

			if (dso && !library(dso)) {
				best = dso;
				most = row->samples;
				break;
			}
		}
	}
	if (best)
		mapping(pp, best, err);
}

enum unit { UNIT_NONE, UNIT_NS, UNIT_CYCLES };

/* What a file's sample periods count: ns for cpu-clock, cycles for cycles (the "sampling" note). */
static enum unit sampling_unit(const struct rc_reader *r)
{
	const struct rc_note *n = rc_meta__note(rc_reader__meta(r), 0, "sampling");

	if (n && n->len == 9 && !memcmp(n->data, "cpu-clock", 9))
		return UNIT_NS;
	if (n && n->len == 6 && !memcmp(n->data, "cycles", 6))
		return UNIT_CYCLES;
	return UNIT_NONE;
}

static void value_type(struct rc_pb *pb, uint32_t field, uint32_t type, uint32_t unit)
{
	rc_pb__begin(pb, field);
	rc_pb__uint(pb, VALUE_TYPE_TYPE, type);
	rc_pb__uint(pb, VALUE_TYPE_UNIT, unit);
	rc_pb__end(pb);
}

/* The string table in the order added, each string ending in its NUL. */
static int write_strings(struct rc_pprof *pp)
{
	const char *s = pp->table.buf, *end = s + pp->table.len;
	int err = 0;

	for (; !err && s < end; s += strlen(s) + 1) {
		rc_pb__string(&pp->out, PROFILE_STRING_TABLE, s);
		if (pp->out.len >= FLUSH_AT)
			err = flush_out(pp, &pp->out);
	}
	return err ?: flush_out(pp, &pp->out);
}

int rc_pprof__write(struct rc_pprof *pp, const struct rc_profile_src *ps, size_t nps,
		    enum rc_profile_kind kind, const struct rc_pprof_span *span, FILE *f)
{
	uint32_t s_samples, s_count, s_type = 0, s_unit = 0, k_pid, k_tid, k_comm, k_cpu, k_host;
	uint64_t nsamples = 0, total = 0;
	enum unit unit = UNIT_NONE;
	bool first = true, two;
	size_t i, k, n;
	char comm[17], num[16];
	int err = 0;

	pp->ps = ps;
	pp->nps = nps;
	for (i = 0; i < pp->nrows; i++) {
		const struct row *row = &pp->rows[i];

		if (row->k.kind != kind || row->k.src >= nps)
			continue;
		if (kind == RC_PROFILE_CPU) {
			enum unit u = sampling_unit(ps[row->k.src].r);

			unit = first || u == unit ? u : UNIT_NONE;
		}
		first = false;
		nsamples += row->samples;
		total += row->value;
	}
	if (first)
		return -ENODATA;
	two = kind == RC_PROFILE_OFFCPU || (kind == RC_PROFILE_CPU && unit != UNIT_NONE);
	pp->f = f;
	if (deflateInit2(&pp->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	pp->z_open = true;

	str(pp, "", &err); /* index 0 */
	s_samples = str(pp, kind == RC_PROFILE_EVENTS ? "events" : "samples", &err);
	s_count = str(pp, "count", &err);
	if (kind == RC_PROFILE_OFFCPU) {
		s_type = str(pp, "off_cpu", &err);
		s_unit = str(pp, "nanoseconds", &err);
	} else if (unit == UNIT_NS) {
		s_type = str(pp, "cpu", &err);
		s_unit = str(pp, "nanoseconds", &err);
	} else if (unit == UNIT_CYCLES) {
		s_type = str(pp, "cycles", &err);
		s_unit = s_count;
	}
	main_mapping(pp, ps, kind, &err);
	k_pid = str(pp, "pid", &err);
	k_tid = str(pp, "tid", &err);
	k_comm = str(pp, "comm", &err);
	k_cpu = str(pp, "cpu", &err);
	k_host = str(pp, "host", &err);
	if (err)
		goto out;

	value_type(&pp->out, PROFILE_SAMPLE_TYPE, s_samples, s_count);
	if (two) {
		value_type(&pp->out, PROFILE_SAMPLE_TYPE, s_type, s_unit);
		value_type(&pp->out, PROFILE_PERIOD_TYPE, s_type, s_unit);
		if (kind == RC_PROFILE_CPU && nsamples)
			rc_pb__uint(&pp->out, PROFILE_PERIOD, total / nsamples);
	} else {
		value_type(&pp->out, PROFILE_PERIOD_TYPE, s_samples, s_count);
		rc_pb__uint(&pp->out, PROFILE_PERIOD, 1);
	}
	if (span->time_ns)
		rc_pb__uint(&pp->out, PROFILE_TIME_NANOS, (uint64_t)span->time_ns);
	rc_pb__uint(&pp->out, PROFILE_DURATION_NANOS, (uint64_t)span->duration_ns);

	for (i = 0; !err && i < pp->nrows; i++) {
		const struct row *row = &pp->rows[i];
		const struct rc_reader *r;

		if (row->k.kind != kind || row->k.src >= nps)
			continue;
		r = ps[row->k.src].r;
		err = row_locations(pp, rc_reader__stack(r, row->k.stack_id), &n);
		if (err)
			break;
		rc_pb__begin(&pp->out, PROFILE_SAMPLE);
		rc_pb__begin(&pp->out, SAMPLE_LOCATION_ID);
		for (k = 0; k < n; k++)
			rc_pb__raw_varint(&pp->out, pp->ids[k]);
		rc_pb__end(&pp->out);
		rc_pb__begin(&pp->out, SAMPLE_VALUE);
		rc_pb__raw_varint(&pp->out, row->samples);
		if (two)
			rc_pb__raw_varint(&pp->out, row->value);
		rc_pb__end(&pp->out);
		if (pp->labels & RC_PPROF_L_PID)
			label_num(&pp->out, k_pid, row->k.pid);
		if (pp->labels & RC_PPROF_L_TID)
			label_num(&pp->out, k_tid, row->k.tid);
		snprintf(comm, sizeof(comm), "%.16s", row->k.comm);
		if ((pp->labels & RC_PPROF_L_COMM) && comm[0])
			label_str(&pp->out, k_comm, str(pp, comm, &err));
		if (pp->labels & RC_PPROF_L_CPU) {
			snprintf(num, sizeof(num), "%u", row->k.cpu);
			label_str(&pp->out, k_cpu, str(pp, num, &err));
		}
		if ((pp->labels & RC_PPROF_L_HOST) && rc_reader__meta(r)->host)
			label_str(&pp->out, k_host, str(pp, rc_reader__meta(r)->host, &err));
		err = err ?: rc_pb__end(&pp->out);
		if (!err && pp->out.len >= FLUSH_AT)
			err = flush_out(pp, &pp->out);
	}
	err = err ?: flush_out(pp, &pp->out);
	for (i = 0; !err && i < pp->nmaps; i++) {
		const struct mapping *mp = &pp->mappings[i];

		rc_pb__begin(&pp->out, PROFILE_MAPPING);
		rc_pb__uint(&pp->out, MAPPING_ID, i + 1);
		rc_pb__uint(&pp->out, MAPPING_FILENAME, mp->name);
		if (mp->build_id)
			rc_pb__uint(&pp->out, MAPPING_BUILD_ID, mp->build_id);
		rc_pb__uint(&pp->out, MAPPING_HAS_FUNCTIONS, 1);
		if (mp->files)
			rc_pb__uint(&pp->out, MAPPING_HAS_FILENAMES, 1);
		if (mp->lines)
			rc_pb__uint(&pp->out, MAPPING_HAS_LINE_NUMBERS, 1);
		if (mp->inlines)
			rc_pb__uint(&pp->out, MAPPING_HAS_INLINE_FRAMES, 1);
		err = rc_pb__end(&pp->out);
		if (!err && pp->out.len >= FLUSH_AT)
			err = flush_out(pp, &pp->out);
	}
	err = err ?: flush_out(pp, &pp->out) ?: flush_out(pp, &pp->loc) ?: flush_out(pp, &pp->fn);
	err = err ?: write_strings(pp);
	err = err ?: deflate_out(pp, NULL, 0, Z_FINISH);
out:
	deflateEnd(&pp->z);
	pp->z_open = false;
	return err;
}

void rc_pprof__free(struct rc_pprof *pp)
{
	if (!pp)
		return;
	if (pp->z_open)
		deflateEnd(&pp->z);
	rc_keymap__free(&pp->index);
	rc_keymap__free(&pp->strs);
	rc_strbuf__free(&pp->table);
	rc_keymap__free(&pp->funcs);
	rc_keymap__free(&pp->locs);
	rc_keymap__free(&pp->maps);
	rc_pb__free(&pp->fn);
	rc_pb__free(&pp->loc);
	rc_pb__free(&pp->out);
	rc_strbuf__free(&pp->key);
	free(pp->mappings);
	free(pp->rows);
	free(pp->ids);
	free(pp);
}
