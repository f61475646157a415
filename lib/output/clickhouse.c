// SPDX-License-Identifier: GPL-2.0-only
/*
 * Captures into ClickHouse (clickhouse.h): the tables, defined once here
 * for both the DDL and the inserts' column lists; each file's records
 * encoded as RowBinary into a batch a table, posted when a few MiB; the
 * ledger and stacks after them, the manifest row last.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "decode/decode.h"
#include "decode/ledger.h"
#include "decode/value.h"
#include "format/format.h"
#include "format/reader.h"
#include "format/schema.h"
#include "output/clickhouse.h"
#include "output/clickhouse_int.h"
#include "util/log.h"
#include "util/util.h"


struct ch_col {
	const char *name, *type;
};

/* the columns of every event table, in their order */
#define CH_FILE_COLS                                                                               \
	{ "load_id", "UInt64" }, { "host", "String" }, { "boot_id", "String" },                    \
		{ "run_id", "String" }, { "file_seq", "UInt32" }
#define CH_EVENT_COLS                                                                              \
	CH_FILE_COLS, { "time_ns", "UInt64" }, { "wall", "DateTime" }, { "wall_ns", "Int64" },     \
		{ "cpu", "UInt16" }, { "pid", "UInt32" }, { "tid", "UInt32" },                     \
		{ "comm", "String" }, { "event", "String" }

static const struct ch_col syscalls_cols[] = {
	CH_EVENT_COLS,		       { "nr", "UInt32" },	 { "name", "String" },
	{ "ret", "Int64" },	       { "duration_ns", "UInt64" }, { "returned", "UInt8" },
	{ "args", "Array(UInt64)" },
};
static const struct ch_col sched_cols[] = {
	CH_EVENT_COLS,		    { "prev_state", "UInt32" }, { "prio", "Int32" },
	{ "other_pid", "UInt32" },  { "other_tid", "UInt32" },	{ "other_comm", "String" },
	{ "other_prio", "Int32" },  { "target_cpu", "UInt32" }, { "filename", "String" },
	{ "exit_code", "Int32" },   { "group_dead", "UInt8" },
};
static const struct ch_col events_cols[] = {
	CH_EVENT_COLS,
	{ "keys", "Array(String)" },
	{ "values", "Array(String)" },
};
static const struct ch_col samples_cols[] = {
	CH_EVENT_COLS,	      { "ip", "UInt64" },     { "period", "UInt64" },
	{ "stack_id", "UInt32" }, { "user", "UInt8" },
};
static const struct ch_col stacks_cols[] = {
	CH_FILE_COLS,
	{ "stack_id", "UInt32" },
	{ "pid", "UInt32" },
	{ "kernel", "Array(String)" },
	{ "user", "Array(String)" },
};
#define CH_LEDGER_COL(name) { #name, "UInt64" },
static const struct ch_col ledger_cols[] = {
	CH_FILE_COLS,
	{ "file", "String" },
	{ "scope", "String" }, /* event, cpu, total */
	{ "event", "String" },
	{ "cpu", "Int32" }, /* -1 but for scope cpu */
	RC_COUNTERS_SHOWN(CH_LEDGER_COL){ "in_file", "UInt64" },
	{ "missing", "UInt64" },
	{ "damaged", "UInt8" },
	{ "truncated", "UInt8" },
	{ "corrupt_chunks", "UInt64" },
	{ "corrupt_records", "UInt64" },
	{ "corrupt_bytes", "UInt64" },
	{ "cut_short", "UInt64" },
	{ "lost", "UInt64" },
	{ "start", "DateTime" }, /* the file's span, wall clock: for drops by the hour */
	{ "end", "DateTime" },
};
static const struct ch_col manifest_cols[] = {
	CH_FILE_COLS,	      { "file_key", "String" },	 { "file", "String" },
	{ "records", "UInt64" }, { "damaged", "UInt8" }, { "truncated", "UInt8" },
	{ "loaded", "DateTime" },
};

struct ch_table {
	const char *name; /* the view's; the rows' table is NAME_rows */
	const struct ch_col *cols;
	size_t ncols;
	const char *order; /* ORDER BY */
	bool by_month;	   /* partitioned by toYYYYMM(wall) */
};

#define CH_TABLE(n, o, m) { #n, n##_cols, sizeof(n##_cols) / sizeof(n##_cols[0]), o, m }
enum { T_SYSCALLS, T_SCHED, T_EVENTS, T_SAMPLES, T_STACKS, T_LEDGER, T_NTABLES };
static const struct ch_table tables[T_NTABLES] = {
	CH_TABLE(syscalls, "(host, name, time_ns)", true),
	CH_TABLE(sched, "(host, time_ns)", true),
	CH_TABLE(events, "(host, event, time_ns)", true),
	CH_TABLE(samples, "(host, time_ns)", true),
	CH_TABLE(stacks, "(host, load_id, stack_id)", false),
	CH_TABLE(ledger, "(host, load_id)", false),
};
static const struct ch_table manifest =
	CH_TABLE(manifest, "(host, file_key, load_id)", false);

static void ddl_cols(struct rc_strbuf *sb, const struct ch_table *t)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		rc_strbuf__printf(sb, "%s\n\t%s %s", i ? "," : "", t->cols[i].name,
				  t->cols[i].type);
}

/* CREATE TABLE of @t named @name: a MergeTree, or Distributed over @local */
static void ddl_table(struct rc_strbuf *sb, const char *db, const struct ch_table *t,
		      const char *name, const char *cluster, const char *local)
{
	rc_strbuf__printf(sb, "CREATE TABLE IF NOT EXISTS %s.%s (", db, name);
	ddl_cols(sb, t);
	if (local)
		rc_strbuf__printf(sb, "\n) ENGINE = Distributed(%s, %s, %s, sipHash64(host));\n",
				  cluster, db, local);
	else
		rc_strbuf__printf(sb, "\n) ENGINE = MergeTree()%s ORDER BY %s;\n",
				  t->by_month ? " PARTITION BY toYYYYMM(wall)" : "", t->order);
}

/*
 * the rows of one load of each file: of its manifest's rows, one with the
 * most records, so that a file loaded while being written or cut short,
 * then whole, counts whole (ties: any one, one only)
 */
#define CH_LOADED "SELECT argMax(load_id, records) FROM %s.manifest GROUP BY file_key"

bool rc_clickhouse__name_ok(const char *name)
{
	size_t i;

	if (!name || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
		return false;
	for (i = 1; name[i]; i++)
		if (i >= 64 || !(isalnum((unsigned char)name[i]) || name[i] == '_'))
			return false;
	return true;
}

int rc_clickhouse__schema(struct rc_strbuf *sb, const char *db, const char *cluster)
{
	char name[64], local[80];
	size_t start = sb->len, i;

	db = db ?: "ringcap";
	if (!rc_clickhouse__name_ok(db) || (cluster && !rc_clickhouse__name_ok(cluster)))
		return -EINVAL;
	rc_strbuf__printf(sb, "CREATE DATABASE IF NOT EXISTS %s;\n", db);
	for (i = 0; i <= T_NTABLES; i++) {
		const struct ch_table *t = i < T_NTABLES ? &tables[i] : &manifest;

		snprintf(name, sizeof(name), i < T_NTABLES ? "%s_rows" : "%s", t->name);
		if (cluster) {
			snprintf(local, sizeof(local), "%s_local", name);
			ddl_table(sb, db, t, local, NULL, NULL);
			ddl_table(sb, db, t, name, cluster, local);
		} else {
			ddl_table(sb, db, t, name, NULL, NULL);
		}
	}
	/* GLOBAL IN: over Distributed tables, the manifest is read once, on the server asked */
	for (i = 0; i < T_NTABLES; i++)
		rc_strbuf__printf(sb,
				  "CREATE VIEW IF NOT EXISTS %s.%s AS SELECT * FROM %s.%s_rows "
				  "WHERE load_id GLOBAL IN (" CH_LOADED ");\n",
				  db, tables[i].name, db, tables[i].name, db);
	if (!sb->buf || sb->len == start)
		return -ENOMEM;
	return 0;
}

/* ---- RowBinary ------------------------------------------------------ */

static void rb_u8(struct rc_strbuf *sb, uint8_t v)
{
	rc_strbuf__put(sb, &v, 1);
}

/* fixed-width integers: little-endian, as this host's (x86-64, arm64) */
static void rb_u16(struct rc_strbuf *sb, uint16_t v)
{
	rc_strbuf__put(sb, &v, 2);
}

static void rb_u32(struct rc_strbuf *sb, uint32_t v)
{
	rc_strbuf__put(sb, &v, 4);
}

static void rb_u64(struct rc_strbuf *sb, uint64_t v)
{
	rc_strbuf__put(sb, &v, 8);
}

static void rb_varint(struct rc_strbuf *sb, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	rc_strbuf__put(sb, b, n);
}

static void rb_bytes(struct rc_strbuf *sb, const char *s, size_t n)
{
	rb_varint(sb, n);
	rc_strbuf__put(sb, s, n);
}

/* a string of at most @max bytes, to its NUL: a record's fixed char array */
static void rb_str(struct rc_strbuf *sb, const char *s, size_t max)
{
	rb_bytes(sb, s, s ? strnlen(s, max) : 0);
}

static void rb_cstr(struct rc_strbuf *sb, const char *s)
{
	rb_bytes(sb, s, s ? strlen(s) : 0);
}

/* ---- the export ------------------------------------------------------ */

struct rc_clickhouse {
	struct rc_ch_http *http;
	char *db, *url;
	bool cluster;
	size_t batch_max; /* bytes of a table's rows sent at once */
	char err[RC_CH_ERR_LEN];
	struct rc_strbuf batch[T_NTABLES];
	struct rc_strbuf query, answer, text;
	uint64_t sent;
	/* the file being loaded */
	const struct rc_meta *m;
	uint64_t load_id;
	char boot[33], run[33];
	/*
	 * the stack ids met in samples and other records' stack_id fields: a
	 * bit an id (512 KiB), however many records name them
	 */
	uint64_t *stack_seen;
	bool any_stack;
};

static __thread char last_error[RC_CH_ERR_LEN];

const char *rc_clickhouse__last_error(void)
{
	return last_error;
}

const char *rc_clickhouse__error(const struct rc_clickhouse *c)
{
	return c->err;
}

static int ch_post(struct rc_clickhouse *c, const char *query, const void *body, size_t len,
		   struct rc_strbuf *answer)
{
	return rc_ch_http__post(c->http, query, c->cluster ? "insert_distributed_sync=1" : NULL,
				body, len, answer, c->err, sizeof(c->err));
}

struct rc_clickhouse *rc_clickhouse__new(const struct rc_clickhouse_opts *o)
{
	struct rc_clickhouse *c = calloc(1, sizeof(*c));
	struct rc_strbuf ddl = {};
	char *stmt, *end;
	int err;

	last_error[0] = '\0';
	if (c && (!rc_clickhouse__name_ok(o->database ?: "ringcap") ||
		  (o->cluster && !rc_clickhouse__name_ok(o->cluster)))) {
		snprintf(c->err, sizeof(c->err), "a database or cluster name is made of %s",
			 RC_CLICKHOUSE_NAME_RULE);
		err = -EINVAL;
		goto fail;
	}
	if (!c || !(c->db = strdup(o->database ?: "ringcap")) || !(c->url = strdup(o->url))) {
		err = -ENOMEM;
		goto fail;
	}
	c->cluster = o->cluster;
	c->batch_max = o->batch ?: RC_CLICKHOUSE_BATCH;
	c->http = rc_ch_http__new(o->url, o->timeout_s, c->err, sizeof(c->err));
	if (!c->http) {
		err = -errno;
		goto fail;
	}
	err = rc_clickhouse__schema(&ddl, c->db, o->cluster);
	/* a statement a request: the HTTP interface takes one at a time */
	for (stmt = ddl.buf; !err && stmt && *stmt; stmt = end + 2) {
		end = strstr(stmt, ";\n");
		if (!end)
			break;
		*end = '\0';
		err = ch_post(c, NULL, stmt, end - stmt, NULL);
	}
	rc_strbuf__free(&ddl);
	if (err)
		goto fail;
	return c;
fail:
	snprintf(last_error, sizeof(last_error), "%s",
		 c && c->err[0] ? c->err : strerror(-err));
	rc_clickhouse__free(c);
	errno = -err;
	return NULL;
}

void rc_clickhouse__free(struct rc_clickhouse *c)
{
	size_t i;

	if (!c)
		return;
	rc_ch_http__free(c->http);
	for (i = 0; i < T_NTABLES; i++)
		rc_strbuf__free(&c->batch[i]);
	rc_strbuf__free(&c->query);
	rc_strbuf__free(&c->answer);
	rc_strbuf__free(&c->text);
	free(c->stack_seen);
	free(c->db);
	free(c->url);
	free(c);
}

/* INSERT INTO db.T_rows (cols) FORMAT RowBinary, and the batch */
static int ch_send(struct rc_clickhouse *c, int t, const struct ch_table *tab, bool rows)
{
	struct rc_strbuf *b = &c->batch[t];
	size_t i;
	int err;

	if (!b->len)
		return 0;
	c->query.len = 0;
	rc_strbuf__printf(&c->query, "INSERT INTO %s.%s%s (", c->db, tab->name,
			  rows ? "_rows" : "");
	for (i = 0; i < tab->ncols; i++)
		rc_strbuf__printf(&c->query, "%s%s", i ? ", " : "", tab->cols[i].name);
	if (rc_strbuf__printf(&c->query, ") FORMAT RowBinary"))
		return -ENOMEM;
	err = ch_post(c, c->query.buf, b->buf, b->len, NULL);
	c->sent += b->len;
	b->len = 0;
	return err;
}

static int ch_flush(struct rc_clickhouse *c, int t)
{
	return ch_send(c, t, &tables[t], true);
}

static void hex16(char *out, const uint8_t *id)
{
	static const char x[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 16; i++) {
		out[2 * i] = x[id[i] >> 4];
		out[2 * i + 1] = x[id[i] & 15];
	}
	out[32] = '\0';
}

static void put_file_cols(struct rc_clickhouse *c, struct rc_strbuf *sb)
{
	rb_u64(sb, c->load_id);
	rb_cstr(sb, c->m->host ?: "");
	rb_cstr(sb, c->boot);
	rb_cstr(sb, c->run);
	rb_u32(sb, c->m->has_run ? c->m->run.seq : 0);
}

static void put_event_cols(struct rc_clickhouse *c, struct rc_strbuf *sb,
			   const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	unsigned int no = ev->flags;
	int64_t wall = 0;

	put_file_cols(c, sb);
	rb_u64(sb, rec->ts);
	rc_meta__wall_ns(c->m, rec->ts, &wall);
	rb_u32(sb, wall > 0 ? (uint32_t)(wall / 1000000000) : 0);
	rb_u64(sb, (uint64_t)wall);
	rb_u16(sb, no & RC_EVENT_NO_CPU ? 0 : rec->cpu);
	rb_u32(sb, no & RC_EVENT_NO_PID ? 0 : rec->pid);
	rb_u32(sb, no & RC_EVENT_NO_TID ? 0 : rec->tid);
	rb_str(sb, no & RC_EVENT_NO_COMM ? "" : rec->comm, sizeof(rec->comm));
	rb_cstr(sb, ev->name);
}

#define CH_STACK_WORDS (RC_MAX_STACK_ID / 64)

/* an id past the format's bound names no stack the reader has: not noted */
static int note_stack(struct rc_clickhouse *c, uint32_t id)
{
	if (!id || id >= RC_MAX_STACK_ID)
		return 0;
	if (!c->stack_seen && !(c->stack_seen = calloc(CH_STACK_WORDS, sizeof(uint64_t))))
		return -ENOMEM;
	c->stack_seen[id / 64] |= 1ull << (id % 64);
	c->any_stack = true;
	return 0;
}

static void put_syscall(struct rc_clickhouse *c, struct rc_strbuf *sb,
			const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	const struct rc_ev_syscall *s = (const void *)rec;
	const struct rc_field *nr = rc_event__field(ev, "nr");
	struct rc_value v = { .name = NULL };
	char num[24];
	int i;

	put_event_cols(c, sb, ev, rec);
	rb_u32(sb, s->nr);
	if (nr)
		rc_field__value(c->m->schema, nr, rec, 0, &v);
	if (!v.name)
		snprintf(num, sizeof(num), "%u", s->nr);
	rb_cstr(sb, v.name ?: num);
	rb_u64(sb, (uint64_t)s->ret);
	rb_u64(sb, s->duration);
	rb_u8(sb, !(rec->flags & RC_SYSCALL_F_NORETURN));
	rb_varint(sb, RC_SYSCALL_NARGS);
	for (i = 0; i < RC_SYSCALL_NARGS; i++)
		rb_u64(sb, s->args[i]);
}

/* sched's columns, those an event has not left at their zero */
struct sched_row {
	uint32_t prev_state, other_pid, other_tid, target_cpu;
	int32_t prio, other_prio, exit_code;
	const char *other_comm, *filename;
	uint8_t group_dead;
};

static void put_sched(struct rc_clickhouse *c, struct rc_strbuf *sb,
		      const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	struct sched_row r = {};

	switch (rec->type) {
	case RC_EV_SCHED_SWITCH: {
		const struct rc_ev_switch *e = (const void *)rec;

		r = (struct sched_row){ .prev_state = e->prev_state, .prio = e->prev_prio,
					.other_pid = e->next_pid, .other_tid = e->next_tid,
					.other_prio = e->next_prio, .other_comm = e->next_comm };
		break;
	}
	case RC_EV_SCHED_WAKEUP: {
		const struct rc_ev_wakeup *e = (const void *)rec;

		r = (struct sched_row){ .other_pid = e->pid, .other_tid = e->tid,
					.other_prio = e->prio, .target_cpu = e->target_cpu,
					.other_comm = e->wakee_comm };
		break;
	}
	case RC_EV_SCHED_FORK: {
		const struct rc_ev_fork *e = (const void *)rec;

		r = (struct sched_row){ .other_pid = e->child_pid, .other_tid = e->child_tid,
					.other_comm = e->child_comm };
		break;
	}
	case RC_EV_SCHED_EXEC: {
		const struct rc_ev_exec *e = (const void *)rec;

		r = (struct sched_row){ .other_tid = e->old_tid, .filename = e->filename };
		break;
	}
	case RC_EV_SCHED_EXIT: {
		const struct rc_ev_exit *e = (const void *)rec;

		r = (struct sched_row){ .exit_code = e->exit_code, .group_dead = !!e->group_dead };
		break;
	}
	}
	put_event_cols(c, sb, ev, rec);
	rb_u32(sb, r.prev_state);
	rb_u32(sb, (uint32_t)r.prio);
	rb_u32(sb, r.other_pid);
	rb_u32(sb, r.other_tid);
	rb_str(sb, r.other_comm, RC_COMM_LEN);
	rb_u32(sb, (uint32_t)r.other_prio);
	rb_u32(sb, r.target_cpu);
	rb_str(sb, r.filename, RC_FILENAME_LEN);
	rb_u32(sb, (uint32_t)r.exit_code);
	rb_u8(sb, r.group_dead);
}

static int put_sample(struct rc_clickhouse *c, struct rc_strbuf *sb,
		      const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	const struct rc_ev_sample *s = (const void *)rec;

	put_event_cols(c, sb, ev, rec);
	rb_u64(sb, s->ip);
	rb_u64(sb, s->period);
	rb_u32(sb, s->stack_id);
	rb_u8(sb, !!(rec->flags & RC_SAMPLE_F_USER));
	return note_stack(c, s->stack_id);
}

/* Any event: its fields' names and values as text, as report shows them. */
static int put_generic(struct rc_clickhouse *c, struct rc_strbuf *sb,
		       const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	uint16_t f;
	int err = 0;

	put_event_cols(c, sb, ev, rec);
	rb_varint(sb, ev->nfields);
	for (f = 0; f < ev->nfields; f++)
		rb_cstr(sb, ev->fields[f].name);
	rb_varint(sb, ev->nfields);
	for (f = 0; f < ev->nfields; f++) {
		const struct rc_field *fld = &ev->fields[f];

		c->text.len = 0;
		err = err ?: rc_decode__field(&c->text, c->m->schema, fld, rec);
		rb_bytes(sb, c->text.len ? c->text.buf : "", c->text.len);
		if (!strcmp(fld->name, "stack_id") && fld->kind != RC_FIELD_STR &&
		    fld->size <= 8 && fld->count == 1)
			err = err ?: note_stack(c, (uint32_t)rc_field__u64(fld, rec, 0));
	}
	return err;
}

static bool is_builtin(const struct rc_event_desc *ev, const struct rc_rec_hdr *rec,
		       uint16_t type, const char *name, size_t size)
{
	return rec->type == type && !strcmp(ev->name, name) && rec->size >= size;
}

static int put_record(struct rc_clickhouse *c, const struct rc_rec_hdr *rec,
		      struct rc_clickhouse_load *res)
{
	const struct rc_event_desc *ev = rc_schema__event(c->m->schema, rec->type);
	int t = T_EVENTS, err = 0;
	struct rc_strbuf *sb;

	if (!ev)
		return 0; /* the reader checked every type: not reached */
	if (is_builtin(ev, rec, RC_EV_SYSCALL, "syscall", sizeof(struct rc_ev_syscall))) {
		t = T_SYSCALLS;
		put_syscall(c, &c->batch[t], ev, rec);
		res->syscalls++;
	} else if (rec->type >= RC_EV_SCHED_SWITCH && rec->type <= RC_EV_SCHED_EXIT &&
		   !strncmp(ev->name, "sched:", 6) &&
		   rec->size >= sizeof(struct rc_ev_exit)) {
		static const size_t sizes[] = { [RC_EV_SCHED_SWITCH] = sizeof(struct rc_ev_switch),
						[RC_EV_SCHED_WAKEUP] = sizeof(struct rc_ev_wakeup),
						[RC_EV_SCHED_FORK] = sizeof(struct rc_ev_fork),
						[RC_EV_SCHED_EXEC] = sizeof(struct rc_ev_exec),
						[RC_EV_SCHED_EXIT] = sizeof(struct rc_ev_exit) };

		if (rec->size < sizes[rec->type])
			goto generic;
		t = T_SCHED;
		put_sched(c, &c->batch[t], ev, rec);
	} else if (is_builtin(ev, rec, RC_EV_SAMPLE, "sample", sizeof(struct rc_ev_sample))) {
		t = T_SAMPLES;
		err = put_sample(c, &c->batch[t], ev, rec);
	} else {
generic:
		t = T_EVENTS;
		err = put_generic(c, &c->batch[t], ev, rec);
	}
	res->events++;
	sb = &c->batch[t];
	if (!sb->buf)
		return -ENOMEM;
	if (!err && sb->len >= c->batch_max)
		err = ch_flush(c, t);
	return err;
}

static void put_frames(struct rc_strbuf *sb, const struct rc_frame *f, size_t n)
{
	char name[40];
	size_t i;

	rb_varint(sb, n);
	for (i = 0; i < n; i++) {
		if (f[i].sym) {
			rb_cstr(sb, f[i].sym);
		} else {
			snprintf(name, sizeof(name), "0x%" PRIx64, f[i].addr);
			rb_cstr(sb, name);
		}
	}
}

/* the stacks the file's records named, each once, by id */
static int put_stacks(struct rc_clickhouse *c, const struct rc_reader *r)
{
	struct rc_strbuf *sb = &c->batch[T_STACKS];
	size_t w;
	int err = 0;

	for (w = 0; c->any_stack && w < CH_STACK_WORDS && !err; w++) {
		uint64_t bits = c->stack_seen[w];

		for (; bits && !err; bits &= bits - 1) {
			const struct rc_stack *st =
				rc_reader__stack(r, (uint32_t)(w * 64 + __builtin_ctzll(bits)));

			if (!st)
				continue;
			put_file_cols(c, sb);
			rb_u32(sb, st->id);
			rb_u32(sb, st->pid);
			put_frames(sb, st->frames, st->nkernel);
			put_frames(sb, st->frames + st->nkernel, st->nuser);
			if (!sb->buf)
				return -ENOMEM;
			if (sb->len >= c->batch_max)
				err = ch_flush(c, T_STACKS);
		}
	}
	return err ?: ch_flush(c, T_STACKS);
}

/* @ts of the capture @m as DateTime: seconds since the epoch, 0 when unknown */
static uint32_t wall_s(const struct rc_meta *m, uint64_t ts)
{
	int64_t wall;

	if (!m || !rc_meta__wall_ns(m, ts, &wall) || wall < 0 || wall / 1000000000 > UINT32_MAX)
		return 0;
	return (uint32_t)(wall / 1000000000);
}

static void put_ledger_row(struct rc_clickhouse *c, const struct rc_ledger_file *f,
			   const char *path, const char *scope, const char *event, int32_t cpu,
			   const struct rc_ledger_row *r)
{
	struct rc_strbuf *sb = &c->batch[T_LEDGER];
	const struct rc_ledger *l = &f->led;
	bool total = !strcmp(scope, "total");

	put_file_cols(c, sb);
	rb_cstr(sb, path);
	rb_cstr(sb, scope);
	rb_cstr(sb, event);
	rb_u32(sb, (uint32_t)cpu);
#define CH_LEDGER_PUT(name) rb_u64(sb, r->name);
	RC_COUNTERS_SHOWN(CH_LEDGER_PUT)
#undef CH_LEDGER_PUT
	rb_u64(sb, r->in_file);
	rb_u64(sb, rc_ledger__missing(l, r));
	/* the file's damage: on its total row */
	rb_u8(sb, total && f->damaged);
	rb_u8(sb, total && f->truncated);
	rb_u64(sb, total ? l->corrupt_chunks : 0);
	rb_u64(sb, total ? l->corrupt_records : 0);
	rb_u64(sb, total ? l->corrupt_bytes : 0);
	rb_u64(sb, total ? rc_ledger__cut_short(l) : 0);
	rb_u64(sb, total ? rc_ledger__lost(l) : 0);
	rb_u32(sb, wall_s(f->m, f->m ? f->m->start_ts : 0));
	rb_u32(sb, wall_s(f->m, f->last));
}

static bool row_used(const struct rc_ledger_row *r)
{
	return r->made || r->in_file || r->filtered || r->missed || r->not_run || r->throttled;
}

/* the file's ledger: a row an event and a CPU that stat shows (its row_used()), and the total */
static int put_ledger(struct rc_clickhouse *c, const char *path, struct rc_clickhouse_load *res)
{
	struct rc_ledger_file f = {};
	struct rc_reader *r;
	char cpu[16];
	uint32_t i;
	int err;

	r = rc_reader__open(path);
	if (!r) {
		snprintf(c->err, sizeof(c->err), "'%s': %s", path, strerror(errno));
		return -errno;
	}
	err = rc_ledger_file__read(&f, r, path);
	if (err && !f.led.by_event) {
		snprintf(c->err, sizeof(c->err), "'%s': %s", path, strerror(-err));
		goto out;
	}
	err = 0;
	for (i = 0; i < RC_LEDGER_EVENTS; i++) {
		const struct rc_event_desc *ev;

		if (!row_used(&f.led.by_event[i]))
			continue;
		ev = rc_schema__event(f.schema, i);
		snprintf(cpu, sizeof(cpu), "#%u", i);
		put_ledger_row(c, &f, path, "event", ev ? ev->name : cpu, -1, &f.led.by_event[i]);
	}
	for (i = 0; i < f.led.ncpus; i++)
		if (row_used(&f.led.by_cpu[i]))
			put_ledger_row(c, &f, path, "cpu", "", (int32_t)i, &f.led.by_cpu[i]);
	put_ledger_row(c, &f, path, "total", "", -1, &f.led.total);
	res->damaged = f.damaged;
	res->truncated = f.truncated;
	err = c->batch[T_LEDGER].buf ? ch_flush(c, T_LEDGER) : -ENOMEM;
out:
	rc_ledger_file__free(&f);
	rc_reader__free(r);
	return err;
}

/* "RUNID/SEQ": a run's file is known by its run id and seq; older files by host and start */
static void file_key(const struct rc_clickhouse *c, char *key, size_t len)
{
	char *p;

	if (c->m->has_run)
		snprintf(key, len, "%s/%u", c->run, c->m->run.seq);
	else
		snprintf(key, len, "%s/%" PRIu64 "/%u", c->m->host ?: "", c->m->start_ts,
			 c->m->recorder_pid);
	/* into a query's quotes: a file's host name is the file's to say */
	for (p = key; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._:/-", *p))
			*p = '_';
}

/*
 * whether the manifest has a row of @key not cut short: the file is loaded
 * whole. A file still being written (no trailer yet) or cut is loaded
 * again, the views keeping the load with the most records.
 */
static int loaded_already(struct rc_clickhouse *c, const char *key)
{
	int err;

	c->query.len = 0;
	if (rc_strbuf__printf(&c->query,
			      "SELECT count() FROM %s.manifest WHERE file_key = '%s' AND "
			      "truncated = 0 FORMAT TabSeparated",
			      c->db, key))
		return -ENOMEM;
	err = ch_post(c, NULL, c->query.buf, c->query.len, &c->answer);
	if (err)
		return err;
	if (rc_strbuf__put(&c->answer, "", 1))
		return -ENOMEM;
	return strtoull(c->answer.buf, NULL, 10) > 0;
}

static int put_manifest(struct rc_clickhouse *c, const char *path, const char *key,
			const struct rc_clickhouse_load *res)
{
	struct rc_strbuf *sb = &c->batch[T_LEDGER]; /* flushed: borrowed */

	put_file_cols(c, sb);
	rb_cstr(sb, key);
	rb_cstr(sb, path);
	rb_u64(sb, res->events);
	rb_u8(sb, res->damaged);
	rb_u8(sb, res->truncated);
	rb_u32(sb, (uint32_t)time(NULL));
	if (!sb->buf)
		return -ENOMEM;
	return ch_send(c, T_LEDGER, &manifest, false);
}

int rc_clickhouse__export(struct rc_clickhouse *c, const char *path,
			  struct rc_clickhouse_load *res)
{
	const struct rc_rec_hdr *rec;
	struct rc_reader *r;
	char key[128];
	size_t i;
	int err, n = 0;

	memset(res, 0, sizeof(*res));
	c->err[0] = '\0';
	c->sent = 0;
	if (c->any_stack) /* a load that failed midway left its ids */
		memset(c->stack_seen, 0, CH_STACK_WORDS * sizeof(uint64_t));
	c->any_stack = false;
	for (i = 0; i < T_NTABLES; i++)
		c->batch[i].len = 0;
	r = rc_reader__open(path);
	if (!r) {
		const char *why = rc_reader__open_error();

		snprintf(c->err, sizeof(c->err), "'%s' is not a capture file: %s", path,
			 why && *why ? why : strerror(errno));
		return errno == ENOMEM ? -ENOMEM : -ENOEXEC;
	}
	c->m = rc_reader__meta(r);
	hex16(c->boot, c->m->run.boot_id);
	hex16(c->run, c->m->run.id);
	file_key(c, key, sizeof(key));
	err = loaded_already(c, key);
	if (err) {
		res->skipped = err > 0;
		err = err > 0 ? 0 : err;
		goto out;
	}
	do {
		if (getrandom(&c->load_id, sizeof(c->load_id), 0) != sizeof(c->load_id)) {
			err = -errno;
			snprintf(c->err, sizeof(c->err), "no random load id: %s", strerror(errno));
			goto out;
		}
	} while (!c->load_id);
	res->load_id = c->load_id;
	err = put_ledger(c, path, res);
	while (!err && (n = rc_reader__next(r, &rec)) > 0)
		err = put_record(c, rec, res);
	if (!err && n < 0 && n != -EBADMSG && n != -EIO)
		err = n; /* -ENOMEM; a file that stops making sense loads what was read */
	if (!err && n < 0)
		pr_warn("'%s': %s: loading what was read\n", path, rc_reader__error(r));
	for (i = 0; !err && i < T_NTABLES; i++)
		if (i != T_STACKS && i != T_LEDGER)
			err = ch_flush(c, i);
	err = err ?: put_stacks(c, r);
	/* last: the load counts once every row is in */
	err = err ?: put_manifest(c, path, key, res);
	res->bytes = c->sent;
out:
	if (err == -ENOMEM && !c->err[0])
		snprintf(c->err, sizeof(c->err), "out of memory");
	c->m = NULL;
	rc_reader__free(r);
	return err;
}
