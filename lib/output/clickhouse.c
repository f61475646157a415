// SPDX-License-Identifier: GPL-2.0-only
/*
 * Captures into ClickHouse (clickhouse.h): the tables, defined once here
 * for both the DDL and the inserts' column lists; each file's records
 * encoded as columns of a Native block, a batch a table, posted at 16 MiB; the
 * ledger and stacks after them, the manifest row last.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#include "decode/decode.h"
#include "decode/ledger.h"
#include "decode/value.h"
#include "format/format.h"
#include "format/reader.h"
#include "format/schema.h"
#include "output/clickhouse.h"
#include "output/clickhouse_int.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/siphash.h"
#include "util/util.h"


/*
 * a column of the rows; @view: what the view shows for it (NULL: the
 * column itself, "": nothing, else that expression in its place)
 */
struct ch_col {
	const char *name, *type, *view;
};

/*
 * the columns every table's rows begin with: the load, and the host's key,
 * sipHash64(host) as the server computes it (rc_siphash24() under the key
 * 0, 0): the cluster's sharding key, each host on the shard sipHash64(host)
 * names, and the first of the sorting key. A file's other columns, the
 * same on each of its rows (CH_MANIFEST_FILE_COLS), are kept once, in its
 * manifest row, and the views join them on by load_id: the host's name
 * too, which as a String column of the rows cost the server its length and
 * bytes a row, and strings compared in the check that a block comes sorted
 * (host led every ORDER BY): host_key in its place, 8-10% less of its CPU
 * time in the INSERTs for a 2-byte name, 21-24% less for a 40-byte one
 * (the man page's figures)
 */
#define CH_COL(name, type)                                                                         \
	{                                                                                          \
		name, type                                                                         \
	}
#define CH_FILE_COLS CH_COL("load_id", "UInt64"), CH_COL("host_key", "UInt64")
#define CH_MANIFEST_FILE_COLS                                                                      \
	CH_COL("host", "String"), CH_COL("boot_id", "String"), CH_COL("run_id", "String"),         \
	    CH_COL("file_seq", "UInt32")
#define CH_NVIEW_FILE_COLS 4 /* CH_MANIFEST_FILE_COLS: after load_id in the views */
/*
 * the columns every event table's rows have. The views have wall_ns after
 * wall, computed of time_ns and the file's wall_offset_ns (the manifest's),
 * and event after comm, a column of the rows but in syscalls and samples,
 * which are of one event (ch_table.event)
 */
#define CH_EVENT_COLS_BASE                                                                         \
	CH_FILE_COLS, CH_COL("time_ns", "UInt64"), CH_COL("wall", "DateTime"),                     \
	    CH_COL("cpu", "UInt16"), CH_COL("pid", "UInt32"), CH_COL("tid", "UInt32"),             \
	    CH_COL("comm", "String")
#define CH_EVENT_COLS CH_EVENT_COLS_BASE, CH_COL("event", "String")
/* rc_meta__wall_ns(), in SQL: a time past INT64_MAX is 0, a sum that overflows wraps */
#define CH_WALL_NS                                                                                 \
	"if(time_ns > 9223372036854775807, toInt64(0), toInt64(time_ns) + wall_offset_ns) "        \
	"AS wall_ns"

/*
 * a syscall's args: as many as its call takes, where the capture says
 * (rc_field__count()), else all six registers; an array in the rows, named
 * apart from 0.2.0's args (six each, always) so that its layout is told
 * from this one (schema_there()). For a call of no argument, the array
 * costs the server its offsets alone: 27% less of its CPU in the INSERTs
 * than six columns of registers, 24% less than six of zeros (getppid, 1M
 * rows). Six columns, as 0.3.0 had, stored every register of every call
 */
static const struct ch_col syscalls_cols[] = {
	CH_EVENT_COLS_BASE,
	{ "nr", "UInt32" },
	{ "name", "String" },
	{ "ret", "Int64" },
	{ "duration_ns", "UInt64" },
	{ "returned", "UInt8" },
	{ "call_args", "Array(UInt64)", "call_args AS args" },
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
	CH_EVENT_COLS_BASE,	  { "ip", "UInt64" },  { "period", "UInt64" },
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
/* a file's row: its host's name, not its key (the views' host is this) */
static const struct ch_col manifest_cols[] = {
	{ "load_id", "UInt64" },
	CH_MANIFEST_FILE_COLS,
	{ "file_key", "String" },
	{ "file", "String" },
	{ "records", "UInt64" },
	{ "damaged", "UInt8" },
	{ "truncated", "UInt8" },
	{ "loaded", "DateTime" },
	{ "wall_offset_ns", "Int64" }, /* the wall clock less time_ns */
	/* what identifies the bytes loaded: file_xxh3 is XXH3_64bits of the first file_size */
	{ "file_size", "UInt64" },
	{ "file_xxh3", "UInt64" },
};

struct ch_table {
	const char *name; /* the view's; the rows' table is NAME_rows */
	const struct ch_col *cols;
	size_t ncols;
	const char *order; /* ORDER BY */
	bool by_month;	   /* an event table, partitioned by toYYYYMM(wall) */
	const char *event; /* the event of every row, the view's: no column of the rows */
};

#define CH_TABLE(n, o, m, e)                                                                       \
	{                                                                                          \
#n, n##_cols, sizeof(n##_cols) / sizeof(n##_cols[0]), o, m, e                      \
	}
enum { T_SYSCALLS, T_SCHED, T_EVENTS, T_SAMPLES, T_STACKS, T_LEDGER, T_NTABLES };
static const struct ch_table tables[T_NTABLES] = {
	CH_TABLE(syscalls, "(host_key, name, time_ns)", true, "syscall"),
	CH_TABLE(sched, "(host_key, time_ns)", true, NULL),
	CH_TABLE(events, "(host_key, event, time_ns)", true, NULL),
	CH_TABLE(samples, "(host_key, time_ns)", true, "sample"),
	CH_TABLE(stacks, "(host_key, load_id, stack_id)", false, NULL),
	CH_TABLE(ledger, "(host_key, load_id)", false, NULL),
};
static const struct ch_table manifest =
    CH_TABLE(manifest, "(host, file_key, load_id)", false, NULL);

static void ddl_cols(struct rc_strbuf *sb, const struct ch_table *t)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		rc_strbuf__printf(sb, "%s\n\t%s %s", i ? "," : "", t->cols[i].name,
				  t->cols[i].type);
}

/*
 * CREATE TABLE of @t named @name: a MergeTree, or Distributed over @local,
 * sharded by the host: the rows by their host_key, the manifest by
 * sipHash64(host), the same number, so that a file's rows and its manifest
 * row are on one shard
 */
static void ddl_table(struct rc_strbuf *sb, const char *db, const struct ch_table *t,
		      const char *name, const char *cluster, const char *local)
{
	rc_strbuf__printf(sb, "CREATE TABLE IF NOT EXISTS %s.%s (", db, name);
	ddl_cols(sb, t);
	if (local)
		rc_strbuf__printf(sb, "\n) ENGINE = Distributed(%s, %s, %s, %s);\n", cluster, db,
				  local, t == &manifest ? "sipHash64(host)" : "host_key");
	else
		rc_strbuf__printf(sb, "\n) ENGINE = MergeTree()%s ORDER BY %s;\n",
				  t->by_month ? " PARTITION BY toYYYYMM(wall)" : "", t->order);
}

/*
 * the one load of each file the views keep, with the file's columns: of its
 * manifest's rows, one with the most records, so that a file loaded while
 * being written or cut short, then whole, counts whole; of as many, one
 * neither damaged nor cut short, so that an intact copy loaded after a
 * damaged one of as many records is the one counted (further ties: any
 * one, one only). A file's rows share its host, boot_id, run_id and file_seq.
 */
#define CH_LOADED                                                                                  \
	"SELECT argMax(load_id, records * 4 + 2 * (damaged = 0) + (truncated = 0)) AS load_id, "   \
	"any(host) AS host, any(boot_id) AS boot_id, "                                             \
	"any(run_id) AS run_id, any(file_seq) AS file_seq, any(wall_offset_ns) AS wall_offset_ns " \
	"FROM %s.manifest GROUP BY file_key"
static const struct ch_col view_file_cols[CH_NVIEW_FILE_COLS] = { CH_MANIFEST_FILE_COLS };

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
	/*
	 * the rows of the loads kept, joined to their file's columns: the rows'
	 * columns in their order, the file's after load_id (host where it was
	 * when the rows had it), host_key last, where no column was. GLOBAL: over
	 * Distributed tables, the manifest is read once, on the server asked.
	 * ALL, not ANY: the right side has one row per load_id, so both keep
	 * every row on 18.16, but from 19.14 ANY keeps one row per key of the
	 * left side too (any_join_distinct_right_table_keys=0)
	 */
	for (i = 0; i < T_NTABLES; i++) {
		const struct ch_table *t = &tables[i];
		size_t k;

		rc_strbuf__printf(sb, "CREATE VIEW IF NOT EXISTS %s.%s AS SELECT", db, t->name);
		for (k = 0; k < t->ncols; k++) {
			const char *col = t->cols[k].name, *view = t->cols[k].view;

			if ((view && !*view) || !strcmp(col, "host_key"))
				continue;
			rc_strbuf__printf(sb, "%s %s", k ? "," : "", view ?: col);
			if (!strcmp(col, "load_id")) {
				size_t f;

				for (f = 0; f < CH_NVIEW_FILE_COLS; f++)
					rc_strbuf__printf(sb, ", %s", view_file_cols[f].name);
			}
			if (t->by_month && !strcmp(col, "wall"))
				rc_strbuf__printf(sb, ", " CH_WALL_NS);
			if (t->event && !strcmp(col, "comm"))
				rc_strbuf__printf(sb, ", '%s' AS event", t->event);
		}
		rc_strbuf__printf(sb, ", host_key");
		rc_strbuf__printf(
		    sb, " FROM %s.%s_rows GLOBAL ALL INNER JOIN (" CH_LOADED ") USING load_id;\n",
		    db, t->name, db);
	}
	if (!sb->buf || sb->len == start)
		return -ENOMEM;
	return 0;
}

/* ---- Native blocks --------------------------------------------------- */

/*
 * A batch is sent as one block of ClickHouse's Native format: the columns
 * one after the other, each whole (a String's values as varint length and
 * bytes, an Array's offsets then its elements), which the server reads in
 * bulk where RowBinary costs it calls a value. A batch's rows are kept in
 * groups by the table's sorting key after host_key (a syscall's name, an
 * event's name: ch_table.group), each group in time order, the groups put
 * in key order: the block comes sorted, and the server, seeing so
 * (MergeTreeDataWriterBlocksAlreadySorted), neither sorts nor permutes it.
 */
#define CH_MAX_COLS 48
#define CH_NCOLS(n) (sizeof(n##_cols) / sizeof(n##_cols[0]))
_Static_assert(CH_NCOLS(syscalls) <= CH_MAX_COLS && CH_NCOLS(sched) <= CH_MAX_COLS &&
		       CH_NCOLS(events) <= CH_MAX_COLS && CH_NCOLS(samples) <= CH_MAX_COLS &&
		       CH_NCOLS(stacks) <= CH_MAX_COLS && CH_NCOLS(ledger) <= CH_MAX_COLS &&
		       CH_NCOLS(manifest) <= CH_MAX_COLS,
	       "a table of more columns than a batch holds");

struct ch_cols {
	struct rc_strbuf col[CH_MAX_COLS];    /* the values; an array's offsets */
	struct rc_strbuf nested[CH_MAX_COLS]; /* an array's elements */
	uint64_t nel[CH_MAX_COLS];	      /* an array's elements so far */
	uint64_t rows;
	/*
	 * rows of a syscall the columns have room for with no check of each
	 * value's (syscall_sure()); 0 whenever their room may have changed
	 */
	uint32_t sure;
};

/*
 * A table's groups' keys, each at its index for the connection's life:
 * a batch's groups are at the same indices, and the caches of
 * put_record() know them by it. A batch is filled, then handed whole to
 * a sender, which posts its columns as they are (ch_body), and the
 * sender's emptied one taken in its place
 */
struct ch_keys {
	char **key;
	size_t n, cap, last;
};

struct ch_batch {
	struct ch_cols *g; /* by key index; ng of them made */
	size_t ng;
	size_t bytes; /* of the values: what --batch-size bounds */
	uint64_t rows;
	bool oom;
};

/*
 * An insert's block as pieces: its own bytes (counts, names and types,
 * in @head) between the groups' columns, which are not copied
 */
struct ch_body {
	struct rc_strbuf head;
	struct iovec *iov;
	size_t n, cap;
	size_t len;
};

/*
 * where the values of a row go: the column @i of @c. @sure: each column
 * known to have room for the row's values (syscall_sure()), none checked
 */
struct ch_w {
	struct ch_cols *c;
	unsigned int i;
	size_t bytes;
	bool oom, sure;
};

/*
 * a value's bytes onto a column: a store where the column has room (its
 * capacity kept from batch to batch), rc_strbuf__put() where not. Inline,
 * its size known where called: the encoding is a few stores a value
 */
static inline __attribute__((always_inline)) void w_raw(struct ch_w *w, struct rc_strbuf *sb,
							const void *p, size_t n)
{
	if (w->sure || __builtin_expect(sb->cap - sb->len > n, 1)) { /* rc_strbuf__room()'s */
		memcpy(sb->buf + sb->len, p, n);
		sb->len += n;
	} else if (rc_strbuf__put(sb, p, n)) {
		w->oom = true;
	}
	w->bytes += n;
}

/* fixed-width integers: little-endian, as this host's (x86-64, arm64) */
static inline __attribute__((always_inline)) void w_u8(struct ch_w *w, uint8_t v)
{
	w_raw(w, &w->c->col[w->i++], &v, 1);
}

static inline __attribute__((always_inline)) void w_u16(struct ch_w *w, uint16_t v)
{
	w_raw(w, &w->c->col[w->i++], &v, 2);
}

static inline __attribute__((always_inline)) void w_u32(struct ch_w *w, uint32_t v)
{
	w_raw(w, &w->c->col[w->i++], &v, 4);
}

static inline __attribute__((always_inline)) void w_u64(struct ch_w *w, uint64_t v)
{
	w_raw(w, &w->c->col[w->i++], &v, 8);
}

static inline __attribute__((always_inline)) void sb_varint(struct ch_w *w, struct rc_strbuf *sb,
							    uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	if (v < 0x80) { /* a string's length, mostly */
		b[0] = (uint8_t)v;
		w_raw(w, sb, b, 1);
		return;
	}
	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	w_raw(w, sb, b, n);
}

static inline __attribute__((always_inline)) void sb_bytes(struct ch_w *w, struct rc_strbuf *sb,
							   const char *s, size_t n)
{
	sb_varint(w, sb, n);
	w_raw(w, sb, s ?: "", n); /* NULL: an empty string (memcpy() is given no NULL) */
}

static inline __attribute__((always_inline)) void w_bytes(struct ch_w *w, const char *s, size_t n)
{
	sb_bytes(w, &w->c->col[w->i++], s, n);
}

/* a string of at most @max bytes, to its NUL: a record's fixed char array */
static inline void w_str(struct ch_w *w, const char *s, size_t max)
{
	w_bytes(w, s, s ? strnlen(s, max) : 0);
}

/*
 * a record's comm, RC_COMM_LEN bytes to its NUL: where the column has room,
 * its length and all RC_COMM_LEN bytes stored at once (the bytes past the
 * NUL overwritten by the next value), no call to copy a few bytes
 */
static inline __attribute__((always_inline)) void w_comm(struct ch_w *w, const char *s)
{
	struct rc_strbuf *sb = &w->c->col[w->i];
	size_t n = strnlen(s, RC_COMM_LEN);

	if (w->sure || __builtin_expect(sb->cap - sb->len > RC_COMM_LEN + 1, 1)) {
		sb->buf[sb->len] = (char)n;
		memcpy(sb->buf + sb->len + 1, s, RC_COMM_LEN);
		sb->len += n + 1;
		w->bytes += n + 1;
		w->i++;
		return;
	}
	w_bytes(w, s, n);
}

/*
 * A String value known before its rows (a syscall's name): its length as
 * varint and its bytes, padded with zeroes to CH_SHORT bytes, so that where
 * the column has room it is stored as CH_SHORT bytes at once, no call to
 * copy a few bytes; len 0: too long for that (w_bytes() then)
 */
#define CH_SHORT 16
struct ch_short {
	char b[CH_SHORT];
	uint8_t len;
};

static void short_set(struct ch_short *sh, const char *s, size_t n)
{
	memset(sh, 0, sizeof(*sh));
	if (n + 1 > CH_SHORT) /* its varint is one byte below 128 */
		return;
	sh->b[0] = (char)n;
	memcpy(sh->b + 1, s, n);
	sh->len = (uint8_t)(n + 1);
}

static inline __attribute__((always_inline)) void w_short(struct ch_w *w, const struct ch_short *sh,
							  const char *s, size_t n)
{
	struct rc_strbuf *sb = &w->c->col[w->i];

	if (sh->len && (w->sure || __builtin_expect(sb->cap - sb->len > CH_SHORT, 1))) {
		memcpy(sb->buf + sb->len, sh->b, CH_SHORT);
		sb->len += sh->len;
		w->bytes += sh->len;
		w->i++;
		return;
	}
	w_bytes(w, s, n);
}

static inline void w_cstr(struct ch_w *w, const char *s)
{
	w_bytes(w, s, s ? strlen(s) : 0);
}

/* an array of @n elements: its offset; the elements into w_elems() */
static struct rc_strbuf *w_array(struct ch_w *w, size_t n)
{
	unsigned int i = w->i++;

	w->c->nel[i] += n;
	w_raw(w, &w->c->col[i], &w->c->nel[i], 8);
	return &w->c->nested[i];
}

static void elem_cstr(struct ch_w *w, struct rc_strbuf *sb, const char *s)
{
	sb_bytes(w, sb, s, s ? strlen(s) : 0);
}

/* the index of @key's group in @k (NULL: the one group), made when new; -1 when out of memory */
static int keys_index(struct ch_keys *k, const char *key)
{
	size_t i;

	key = key ?: "";
	if (k->n && !strcmp(k->key[k->last], key))
		return (int)k->last;
	for (i = 0; i < k->n; i++)
		if (!strcmp(k->key[i], key))
			goto found;
	if (k->n >= INT32_MAX || rc_ensure_arr(&k->key, &k->cap, k->n + 1, 8))
		return -1;
	if (!(k->key[k->n] = strdup(key)))
		return -1;
	i = k->n++;
found:
	k->last = i;
	return (int)i;
}

static void keys_free(struct ch_keys *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->key[i]);
	free(k->key);
	memset(k, 0, sizeof(*k));
}

/* @b with groups up to index @n - 1, the new ones empty */
static int batch_grow(struct ch_batch *b, size_t n)
{
	struct ch_cols *g;

	if (n <= b->ng)
		return 0;
	g = realloc(b->g, n * sizeof(*g));
	if (!g)
		return -ENOMEM;
	memset(g + b->ng, 0, (n - b->ng) * sizeof(*g));
	b->g = g;
	b->ng = n;
	return 0;
}

static void cols_free(struct ch_cols *c)
{
	size_t k;

	for (k = 0; k < CH_MAX_COLS; k++) {
		rc_strbuf__free(&c->col[k]);
		rc_strbuf__free(&c->nested[k]);
	}
	memset(c, 0, sizeof(*c));
}

/* @sb's room cut to @want bytes, when it has more and holds less */
static void col_trim(struct rc_strbuf *sb, size_t want)
{
	char *p;

	if (sb->cap <= want || want <= sb->len)
		return;
	p = realloc(sb->buf, want);
	if (p) { /* else it keeps its room */
		sb->buf = p;
		sb->cap = want;
	}
}

/* @len's share of @keep, as @len is of @used, and 64 bytes: a column's room kept */
static size_t share(size_t len, size_t keep, size_t used)
{
	return (size_t)((double)len * (double)keep / (double)used) + 64;
}

/*
 * @b emptied for its next rows. A group keeps its buffers' room only if it
 * had rows in the batch just sent, and while the room kept is at most
 * @keep: the batches move between tables, and a group once large in one
 * would otherwise hold its room for good, each batch gathering that of
 * every group it ever held. A group is emptied when any of its columns
 * has bytes, rows or not: a row half written (out of memory) is dropped.
 *
 * The room kept is cut first to the batch's own shape: each column its
 * share of @keep by its bytes in the batch just sent, never more than it
 * had. Grown by doubling, a full batch's columns have up to twice the
 * room they used, more than @keep in all, and were freed here: each batch
 * was then made anew, its pages faulted in and zeroed by the kernel, its
 * columns copied as they grew (a sixth of the client's CPU time). Cut to
 * their share, they hold the next batch of the same rows without growing.
 */
static void batch_reset(struct ch_batch *b, size_t keep)
{
	size_t i, k, kept = 0, used = b->bytes ?: 1;

	for (i = 0; i < b->ng; i++) {
		struct ch_cols *c = &b->g[i];
		size_t room = 0;
		bool had = false;

		c->sure = 0; /* its room cut, or its rows gone */
		for (k = 0; k < CH_MAX_COLS; k++)
			had |= c->col[k].len || c->nested[k].len;
		if (c->rows && !b->oom) {
			for (k = 0; k < CH_MAX_COLS; k++) {
				col_trim(&c->col[k], share(c->col[k].len, keep, used));
				col_trim(&c->nested[k], share(c->nested[k].len, keep, used));
			}
		}
		for (k = 0; k < CH_MAX_COLS; k++)
			room += c->col[k].cap + c->nested[k].cap;
		if (!room && !had)
			continue;
		/* the 64 bytes a column past its share: a sixteenth of @keep more */
		if (!c->rows || room > keep + keep / 16 - kept) {
			cols_free(c);
			continue;
		}
		kept += room;
		for (k = 0; k < CH_MAX_COLS; k++) {
			c->col[k].len = 0;
			c->nested[k].len = 0;
			c->nel[k] = 0;
		}
		c->rows = 0;
	}
	b->bytes = 0;
	b->rows = 0;
	b->oom = false;
}

static void batch_free(struct ch_batch *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->ng; i++)
		cols_free(&b->g[i]);
	free(b->g);
	free(b);
}

static bool is_array(const struct ch_col *col)
{
	return !strncmp(col->type, "Array(", 6);
}

/* a piece of @body: @len bytes at @p, or with @p NULL the next @len of its head */
static int body_piece(struct ch_body *body, const void *p, size_t len)
{
	if (!len)
		return 0;
	body->len += len;
	if (!p && body->n && !body->iov[body->n - 1].iov_base) {
		body->iov[body->n - 1].iov_len += len; /* the head's bytes, one piece */
		return 0;
	}
	if (rc_ensure_arr(&body->iov, &body->cap, body->n + 1, 64))
		return -ENOMEM;
	body->iov[body->n++] = (struct iovec){ .iov_base = (void *)p, .iov_len = len };
	return 0;
}

/* the head's own bytes, appended: a piece of @body */
static int body_head(struct ch_body *body, struct ch_w *w, const char *s, size_t n, bool str)
{
	size_t before = body->head.len;

	if (str)
		sb_bytes(w, &body->head, s, n);
	else
		sb_varint(w, &body->head, n);
	return w->oom ? -ENOMEM : body_piece(body, NULL, body->head.len - before);
}

struct ch_ord {
	const char *key;
	size_t g;
};

static int group_cmp(const void *a, const void *b)
{
	/* ClickHouse's order of Strings: bytes, then length; strcmp's for these */
	return strcmp(((const struct ch_ord *)a)->key, ((const struct ch_ord *)b)->key);
}

/*
 * @b's rows as one Native block of @t's columns, in pieces into @body: the
 * groups in key order, an array's offsets counted on from the groups
 * before (rewritten in place: @b is the insert's now)
 */
static int batch_block(struct ch_batch *b, const struct ch_table *t, const struct ch_keys *k,
		       struct ch_body *body)
{
	struct ch_w w = {};
	struct ch_ord *ord;
	size_t i, g, ng = 0, nk = k->n < b->ng ? k->n : b->ng;
	int err = 0;

	body->head.len = 0;
	body->n = 0;
	body->len = 0;
	ord = malloc((nk ?: 1) * sizeof(*ord));
	if (!ord)
		return -ENOMEM;
	for (g = 0; g < nk; g++)
		if (b->g[g].rows)
			ord[ng++] = (struct ch_ord){ .key = k->key[g], .g = g };
	if (ng > 1)
		qsort(ord, ng, sizeof(*ord), group_cmp);
	/* the head's size bounded first: its pieces point into it once it is whole */
	if (rc_strbuf__reserve(&body->head, 32 + 96 * t->ncols)) {
		free(ord);
		return -ENOMEM;
	}
	err =
	    body_head(body, &w, NULL, t->ncols, false) ?: body_head(body, &w, NULL, b->rows, false);
	for (i = 0; !err && i < t->ncols; i++) {
		err = body_head(body, &w, t->cols[i].name, strlen(t->cols[i].name), true)
			  ?: body_head(body, &w, t->cols[i].type, strlen(t->cols[i].type), true);
		for (g = 0; !err && g < ng; g++) {
			struct ch_cols *c = &b->g[ord[g].g];

			err = body_piece(body, c->col[i].buf, c->col[i].len);
		}
		if (err || !is_array(&t->cols[i]))
			continue;
		{
			uint64_t base = 0;

			for (g = 0; g < ng; g++) {
				struct ch_cols *c = &b->g[ord[g].g];
				char *p = c->col[i].buf;
				size_t n = c->col[i].len / 8, e;

				for (e = 0; base && e < n; e++) {
					uint64_t off;

					memcpy(&off, p + 8 * e, 8);
					off += base;
					memcpy(p + 8 * e, &off, 8);
				}
				base += c->nel[i];
			}
		}
		for (g = 0; !err && g < ng; g++) {
			struct ch_cols *c = &b->g[ord[g].g];

			err = body_piece(body, c->nested[i].buf, c->nested[i].len);
		}
	}
	free(ord);
	if (err)
		return err;
	if (w.oom)
		return -ENOMEM;
	/* the head's pieces, in order: where they are now that it is whole */
	{
		size_t at = 0;

		for (i = 0; i < body->n; i++) {
			if (body->iov[i].iov_base)
				continue;
			body->iov[i].iov_base = body->head.buf + at;
			at += body->iov[i].iov_len;
		}
	}
	return 0;
}

static void body_free(struct ch_body *body)
{
	rc_strbuf__free(&body->head);
	free(body->iov);
	memset(body, 0, sizeof(*body));
}

/* ---- the export ------------------------------------------------------ */

/*
 * The inserts are posted by threads of their own, each with its own
 * connection, while the records go on being encoded: RC_CLICKHOUSE_SENDERS
 * inserts in flight, the server working on them at once. A sender's block
 * and query are the caller's to fill while it is idle, its own while busy.
 */
/*
 * A record type's table, known once a file rather than by names compared
 * a record: K_SYSCALL, K_SCHED, K_SAMPLE when its event is that built-in
 * one (a record's size is still checked each time), else K_GENERIC; the
 * group of its rows in K_GENERIC's table (-1: not yet known).
 */
enum { K_UNKNOWN, K_SYSCALL, K_SCHED, K_SAMPLE, K_GENERIC };

struct ch_kind {
	const struct rc_event_desc *ev;
	uint8_t kind;
	int32_t group;
};

/* a syscall number's name (its number when the schema has none) and row group */
#define CH_SYSNAMES 1024
struct ch_sysname {
	const char *name; /* NULL: not yet known */
	uint32_t len;
	int32_t group;
	char num[20]; /* "sys32_" and a u32 */
	struct ch_short enc;
	uint8_t nargs; /* its args shown (rc_field__count()) */
};

struct ch_sender {
	struct rc_clickhouse *c;
	pthread_t tid;
	struct rc_ch_http *http;
	struct rc_strbuf query;
	struct ch_body body;
	struct ch_batch *b; /* the batch being posted; emptied after */
	bool busy;
	char err[RC_CH_ERR_LEN];
};

struct rc_clickhouse {
	struct rc_ch_http *http;
	struct ch_sender snd[RC_CLICKHOUSE_SENDERS];
	unsigned int nsnd; /* started */
	pthread_mutex_t lock;
	pthread_cond_t work, idle;
	bool stop;
	int async_err; /* the first failure of a sender's insert, its message in async_msg */
	char async_msg[RC_CH_ERR_LEN];
	char *db, *url;
	bool cluster;
	size_t batch_max; /* bytes of a table's rows sent at once */
/*
 * the room a batch keeps when emptied, shared among its columns: SIZE and
 * an eighth, and a sixteenth of that more at most (batch_reset()), as the
 * man page says
 */
#define CH_KEEP(c) ((c)->batch_max + (c)->batch_max / 8)
	char err[RC_CH_ERR_LEN];
	struct ch_batch *batch[T_NTABLES + 1]; /* the tables' being filled, the manifest's */
	struct ch_keys keys[T_NTABLES + 1];
	struct ch_body body;
	struct rc_strbuf query, answer, text;
	uint64_t sent;
	/* the file being loaded */
	const struct rc_meta *m;
	uint64_t load_id;
	char boot[33], run[33];
	uint64_t host_key; /* sipHash64(host), as the server computes it */
	/*
	 * the wall clock's second of the capture's times wall_lo to
	 * wall_lo + 999999999 (wall_ok: known), as put_event_cols() computes
	 * it: a second's records are many, and their wall the same
	 */
	uint64_t wall_lo;
	uint32_t wall_s;
	bool wall_ok;
	/* what each event type's records are, known once a file (ch_kind) */
	struct ch_kind kinds[RC_MAX_EVENT_ID + 1];
	/* each syscall number's name and group, known once a file (ch_sysname) */
	struct ch_sysname *sysnames;
	bool sysname_ok; /* the schema's nr is the record's: the cache may be used */
	/*
	 * the stack ids met in samples and other records' stack_id fields: a
	 * bit an id (512 KiB), however many records name them
	 */
	uint64_t *stack_seen;
	bool any_stack;
	/*
	 * the most bytes a syscall's row stores in each column of syscalls_cols
	 * (0: its name's, by the row's group), of their types (syscall_sure());
	 * sys_sure_ok false: a type whose width is not known here, every value
	 * checked
	 */
	uint8_t sys_width[CH_MAX_COLS];
	bool sys_array[CH_MAX_COLS]; /* an array: its elements' room reserved too */
	bool sys_sure_ok;
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

static const char *ch_params(const struct rc_clickhouse *c)
{
	return c->cluster ? "insert_distributed_sync=1" : NULL;
}

static int ch_post(struct rc_clickhouse *c, const char *query, const void *body, size_t len,
		   struct rc_strbuf *answer)
{
	return rc_ch_http__post(c->http, query, ch_params(c), body, len, answer, c->err,
				sizeof(c->err));
}

static void *sender_main(void *arg)
{
	struct ch_sender *s = arg;
	struct rc_clickhouse *c = s->c;
	int err;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!s->busy && !c->stop)
			pthread_cond_wait(&c->work, &c->lock);
		if (!s->busy)
			break;
		pthread_mutex_unlock(&c->lock);
		err = rc_ch_http__postv(s->http, s->query.buf, ch_params(c), s->body.iov, s->body.n,
					s->body.len, NULL, s->err, sizeof(s->err));
		batch_reset(s->b, CH_KEEP(c));
		pthread_mutex_lock(&c->lock);
		if (err && !c->async_err) {
			c->async_err = err;
			snprintf(c->async_msg, sizeof(c->async_msg), "%s",
				 err == -ENOMEM ? "out of memory" : s->err);
		}
		s->busy = false;
		pthread_cond_broadcast(&c->idle);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* the senders, as many as start (none: the inserts are posted by the caller) */
static void senders_start(struct rc_clickhouse *c, const struct rc_clickhouse_opts *o)
{
	char err[RC_CH_ERR_LEN];
	unsigned int i;

	for (i = 0; i < RC_CLICKHOUSE_SENDERS; i++) {
		struct ch_sender *s = &c->snd[i];

		s->c = c;
		s->b = calloc(1, sizeof(*s->b));
		s->http = s->b ? rc_ch_http__new(o->url, o->timeout_s, err, sizeof(err)) : NULL;
		if (!s->http || pthread_create(&s->tid, NULL, sender_main, s)) {
			rc_ch_http__free(s->http);
			s->http = NULL;
			batch_free(s->b);
			s->b = NULL;
			break;
		}
		c->nsnd++;
	}
}

/* the lock held: the senders' first failure since the last call, into c->err */
static int senders_failed(struct rc_clickhouse *c)
{
	int err = c->async_err;

	if (err)
		snprintf(c->err, sizeof(c->err), "%s", c->async_msg);
	c->async_err = 0;
	return err;
}

/* wait for every insert in flight: 0, or the first failure */
static int senders_wait(struct rc_clickhouse *c)
{
	unsigned int i;
	int err;

	if (!c->nsnd)
		return 0;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nsnd; i++)
		while (c->snd[i].busy)
			pthread_cond_wait(&c->idle, &c->lock);
	err = senders_failed(c);
	pthread_mutex_unlock(&c->lock);
	return err;
}

/* an idle sender (NULL: none started), or the failure of an insert before */
static struct ch_sender *sender_idle(struct rc_clickhouse *c, int *err)
{
	struct ch_sender *s = NULL;
	unsigned int i;

	*err = 0;
	if (!c->nsnd)
		return NULL;
	pthread_mutex_lock(&c->lock);
	while (!(*err = senders_failed(c))) {
		for (i = 0; i < c->nsnd && !s; i++)
			if (!c->snd[i].busy)
				s = &c->snd[i];
		if (s)
			break;
		pthread_cond_wait(&c->idle, &c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return *err ? NULL : s;
}

static void senders_stop(struct rc_clickhouse *c)
{
	unsigned int i;

	if (!c->nsnd)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < c->nsnd; i++) {
		pthread_join(c->snd[i].tid, NULL);
		rc_ch_http__free(c->snd[i].http);
		rc_strbuf__free(&c->snd[i].query);
		body_free(&c->snd[i].body);
		batch_free(c->snd[i].b);
	}
	c->nsnd = 0;
}

/* each table's columns, "NAME.COLUMN TYPE" quoted, into @sb: its local table's too */
static void layout_cols(struct rc_strbuf *sb)
{
	size_t i, k, n = 0;
	int local;

	for (i = 0; i <= T_NTABLES; i++) {
		const struct ch_table *t = i < T_NTABLES ? &tables[i] : &manifest;

		for (local = 0; local < 2; local++)
			for (k = 0; k < t->ncols; k++)
				rc_strbuf__printf(sb, "%s'%s%s%s.%s %s'", n++ ? ", " : "", t->name,
						  i < T_NTABLES ? "_rows" : "",
						  local ? "_local" : "", t->cols[k].name,
						  t->cols[k].type);
	}
}

/* the tables' names, quoted ("['a', ...]"), or with @counts their counts of columns */
static void layout_tables(struct rc_strbuf *sb, bool counts)
{
	size_t i;
	int local;

	rc_strbuf__printf(sb, "[");
	for (i = 0; i <= T_NTABLES; i++) {
		const struct ch_table *t = i < T_NTABLES ? &tables[i] : &manifest;

		for (local = 0; local < 2; local++) {
			const char *sep = i || local ? ", " : "";

			if (counts)
				rc_strbuf__printf(sb, "%s%zu", sep, t->ncols);
			else
				rc_strbuf__printf(sb, "%s'%s%s%s'", sep, t->name,
						  i < T_NTABLES ? "_rows" : "",
						  local ? "_local" : "");
		}
	}
	rc_strbuf__printf(sb, "]");
}

/*
 * 1 when every table and view of @ddl is in the database already, asked in
 * one request rather than a CREATE ... IF NOT EXISTS each; 0 when not, or
 * when it cannot tell (the DDL then says); -ENOMEM. -EINVAL when a table
 * there has other columns (names or types) than this ringcap's: an earlier
 * layout's (a file's boot_id in every row, a manifest without file_size and
 * file_xxh3, the host's name in every row where this one has host_key),
 * which this export's inserts or views would not fit
 */
static int schema_there(struct rc_clickhouse *c, const struct rc_strbuf *ddl)
{
	static const char *const creates[] = { "CREATE TABLE IF NOT EXISTS ",
					       "CREATE VIEW IF NOT EXISTS " };
	size_t dblen = strlen(c->db), i;
	unsigned long n = 0, there;
	const char *p;
	char *end;

	c->query.len = 0;
	rc_strbuf__printf(&c->query,
			  "SELECT (SELECT count() FROM system.tables WHERE database = '%s' AND "
			  "name IN (",
			  c->db);
	for (p = ddl->buf; p && (p = strstr(p, "CREATE ")); p++) {
		for (i = 0; i < 2; i++) {
			size_t len = strlen(creates[i]), k;
			const char *name = p + len + dblen + 1;

			if (strncmp(p, creates[i], len))
				continue;
			for (k = 0; isalnum((unsigned char)name[k]) || name[k] == '_'; k++)
				;
			rc_strbuf__printf(&c->query, "%s'%.*s'", n++ ? ", " : "", (int)k, name);
		}
	}
	/*
	 * the layout: the first table there whose columns are not this
	 * ringcap's (of a name or type not its, or fewer), '' when none
	 */
	rc_strbuf__printf(&c->query,
			  ")), (SELECT min(t) FROM (SELECT table AS t FROM system.columns WHERE "
			  "database = '%s' AND has(",
			  c->db);
	layout_tables(&c->query, false);
	rc_strbuf__printf(&c->query, ", table) GROUP BY table HAVING count() != countIf("
				     "concat(table, '.', name, ' ', type) IN (");
	layout_cols(&c->query);
	rc_strbuf__printf(&c->query, ")) OR count() != transform(any(table), ");
	layout_tables(&c->query, false);
	rc_strbuf__printf(&c->query, ", ");
	layout_tables(&c->query, true);
	if (rc_strbuf__printf(&c->query, ", toUInt64(0)))) FORMAT TabSeparated"))
		return -ENOMEM;
	if (!n || ch_post(c, NULL, c->query.buf, c->query.len, &c->answer) ||
	    rc_strbuf__put(&c->answer, "", 1)) {
		c->err[0] = '\0';
		return 0;
	}
	there = strtoul(c->answer.buf, &end, 10);
	if (*end == '\t' && (isalnum((unsigned char)end[1]) || end[1] == '_')) {
		for (i = 1; isalnum((unsigned char)end[i]) || end[i] == '_'; i++)
			;
		snprintf(c->err, sizeof(c->err),
			 "database '%s' has the tables of an earlier ringcap (%.*s: columns other "
			 "than this one's): export into a new --database, or drop its tables and "
			 "views",
			 c->db, (int)(i - 1), end + 1);
		return -EINVAL;
	}
	return there == n;
}

/* the most bytes a value of @col stores (w_*()), 0 when not fixed or not known */
static uint8_t col_width(const struct ch_col *col)
{
	static const struct {
		const char *type;
		uint8_t width;
	} w[] = { { "UInt64", 8 },   { "Int64", 8 },  { "UInt32", 4 }, { "Int32", 4 },
		  { "DateTime", 4 }, { "UInt16", 2 }, { "UInt8", 1 } };
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(col->type, w[i].type))
			return w[i].width;
	return 0;
}

/* c->sys_width of syscalls_cols' types: comm's as w_comm() stores it, name's by the row */
static void sys_widths(struct rc_clickhouse *c)
{
	size_t k;

	c->sys_sure_ok = true;
	for (k = 0; k < CH_NCOLS(syscalls); k++) {
		const struct ch_col *col = &syscalls_cols[k];

		c->sys_width[k] = col_width(col);
		c->sys_array[k] = is_array(col);
		if (!strcmp(col->name, "comm"))
			c->sys_width[k] = RC_COMM_LEN + 1;
		else if (c->sys_array[k] && !strcmp(col->type, "Array(UInt64)"))
			c->sys_width[k] = 8; /* the offset; the elements reserved apart */
		else if (!c->sys_width[k] && strcmp(col->name, "name"))
			c->sys_sure_ok = false;
	}
}

struct rc_clickhouse *rc_clickhouse__new(const struct rc_clickhouse_opts *o)
{
	struct rc_clickhouse *c = calloc(1, sizeof(*c));
	struct rc_strbuf ddl = {};
	char *stmt, *end;
	size_t i;
	int err;

	last_error[0] = '\0';
	if (c) {
		pthread_mutex_init(&c->lock, NULL);
		pthread_cond_init(&c->work, NULL);
		pthread_cond_init(&c->idle, NULL);
	}
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
	sys_widths(c);
	for (i = 0; i <= T_NTABLES; i++) {
		if (!(c->batch[i] = calloc(1, sizeof(*c->batch[i])))) {
			err = -ENOMEM;
			goto fail;
		}
	}
	c->http = rc_ch_http__new(o->url, o->timeout_s, c->err, sizeof(c->err));
	if (!c->http) {
		err = -errno;
		goto fail;
	}
	err = rc_clickhouse__schema(&ddl, c->db, o->cluster);
	err = err ?: schema_there(c, &ddl);
	if (err > 0) { /* every table and view there: no DDL to send */
		ddl.len = 0;
		err = 0;
	}
	/* a statement a request: the HTTP interface takes one at a time */
	for (stmt = ddl.len ? ddl.buf : NULL; !err && stmt && *stmt; stmt = end + 2) {
		end = strstr(stmt, ";\n");
		if (!end)
			break;
		*end = '\0';
		err = ch_post(c, NULL, stmt, end - stmt, NULL);
	}
	rc_strbuf__free(&ddl);
	if (err)
		goto fail;
	senders_start(c, o);
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
	senders_stop(c);
	pthread_cond_destroy(&c->work);
	pthread_cond_destroy(&c->idle);
	pthread_mutex_destroy(&c->lock);
	rc_ch_http__free(c->http);
	for (i = 0; i <= T_NTABLES; i++) {
		batch_free(c->batch[i]);
		keys_free(&c->keys[i]);
	}
	body_free(&c->body);
	rc_strbuf__free(&c->query);
	rc_strbuf__free(&c->answer);
	rc_strbuf__free(&c->text);
	free(c->stack_seen);
	free(c->sysnames);
	free(c->db);
	free(c->url);
	free(c);
}

/*
 * INSERT INTO db.T_rows (cols) FORMAT Native, and the batch as its block:
 * handed to an idle sender (its failure seen by a later call or by
 * senders_wait()), else posted here
 */
static int ch_send(struct rc_clickhouse *c, int t, const struct ch_table *tab, bool rows)
{
	struct ch_batch *b = c->batch[t];
	struct rc_strbuf *query = &c->query;
	struct ch_body *body = &c->body;
	struct ch_sender *s;
	size_t i;
	int err;

	if (b->oom)
		return -ENOMEM;
	if (!b->rows)
		return 0;
	s = sender_idle(c, &err);
	if (err)
		return err;
	if (s) {
		query = &s->query;
		body = &s->body;
	}
	err = batch_block(b, tab, &c->keys[t], body);
	if (err)
		return err;
	query->len = 0;
	rc_strbuf__printf(query, "INSERT INTO %s.%s%s (", c->db, tab->name, rows ? "_rows" : "");
	for (i = 0; i < tab->ncols; i++)
		rc_strbuf__printf(query, "%s%s", i ? ", " : "", tab->cols[i].name);
	if (rc_strbuf__printf(query, ") FORMAT Native"))
		return -ENOMEM;
	c->sent += body->len;
	if (!s) {
		err = rc_ch_http__postv(c->http, query->buf, ch_params(c), body->iov, body->n,
					body->len, NULL, c->err, sizeof(c->err));
		batch_reset(b, CH_KEEP(c));
		return err;
	}
	/* the batch is the sender's now; its emptied one is filled next */
	c->batch[t] = s->b;
	s->b = b;
	pthread_mutex_lock(&c->lock);
	s->busy = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* a row of table @t (the manifest: T_NTABLES) in its group of index @g: its columns into @w */
static inline int row_begin_at(struct rc_clickhouse *c, int t, int g, struct ch_w *w)
{
	struct ch_batch *b = c->batch[t];

	if (g < 0 || ((size_t)g >= b->ng && batch_grow(b, (size_t)g + 1))) {
		b->oom = true;
		return -ENOMEM;
	}
	*w = (struct ch_w){ .c = &b->g[g] };
	return 0;
}

/* a row of table @t in its group @key */
static int row_begin(struct rc_clickhouse *c, int t, const char *key, struct ch_w *w)
{
	return row_begin_at(c, t, keys_index(&c->keys[t], key), w);
}

static inline void row_end(struct rc_clickhouse *c, int t, struct ch_w *w)
{
	struct ch_batch *b = c->batch[t];

	w->c->rows++;
	b->rows++;
	b->bytes += w->bytes;
	b->oom |= w->oom;
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

/* CH_FILE_COLS */
static inline __attribute__((always_inline)) void put_file_cols(struct rc_clickhouse *c,
								struct ch_w *w)
{
	w_u64(w, c->load_id);
	w_u64(w, c->host_key);
}

/*
 * @ts on the wall clock, in s as a DateTime: 0 when it is not past the
 * epoch or past DateTime's 32 bits, as wall_s() gives the ledger's. A
 * range of times known to be of one second is kept: those in it are that
 * second; each time outside it is computed, and its second kept when
 * every time of it is in range
 */
static inline uint32_t event_wall_s(struct rc_clickhouse *c, uint64_t ts)
{
	int64_t wall = 0;
	uint64_t in;

	if (__builtin_expect(c->wall_ok && ts - c->wall_lo < 1000000000ull, 1))
		return c->wall_s;
	if (!rc_meta__wall_ns(c->m, ts, &wall) || wall <= 0 || wall / 1000000000 > UINT32_MAX)
		return 0;
	in = (uint64_t)(wall % 1000000000);
	c->wall_s = (uint32_t)(wall / 1000000000);
	/*
	 * every time of that second maps into it, none past INT64_MAX: no
	 * overflow, each past the epoch but its first, whose second is 0 anyway
	 */
	c->wall_ok = ts >= in && ts - in <= (uint64_t)INT64_MAX - 999999999 &&
		     wall - (int64_t)in <= INT64_MAX - 999999999;
	c->wall_lo = ts - in;
	return c->wall_s;
}

/* @ts of the capture @m as DateTime: seconds since the epoch, 0 when unknown */
static uint32_t wall_s(const struct rc_meta *m, uint64_t ts)
{
	int64_t wall;

	if (!m || !rc_meta__wall_ns(m, ts, &wall) || wall < 0 || wall / 1000000000 > UINT32_MAX)
		return 0;
	return (uint32_t)(wall / 1000000000);
}

/*
 * CH_EVENT_COLS_BASE, and with @event CH_EVENT_COLS' event. Inlined into
 * each table's put_*(), as its columns' writes are: the column index of
 * each write and the bytes of its fixed-width values are then constants
 * of the row, not w->i and w->bytes loaded and stored through memory a
 * value (out of line, called a row: 4-5% more of the export's
 * instructions, callgrind)
 */
static inline __attribute__((always_inline)) void
put_event_cols(struct rc_clickhouse *c, struct ch_w *w, const struct rc_event_desc *ev, bool event,
	       const struct rc_rec_hdr *rec)
{
	unsigned int no = ev->flags;

	put_file_cols(c, w);
	w_u64(w, rec->ts);
	w_u32(w, event_wall_s(c, rec->ts)); /* DateTime's 32 bits: 0 past them, as the ledger's */
	w_u16(w, no & RC_EVENT_NO_CPU ? 0 : rec->cpu);
	w_u32(w, no & RC_EVENT_NO_PID ? 0 : rec->pid);
	w_u32(w, no & RC_EVENT_NO_TID ? 0 : rec->tid);
	_Static_assert(sizeof(rec->comm) == RC_COMM_LEN, "comm");
	if (no & RC_EVENT_NO_COMM)
		w_bytes(w, "", 0);
	else
		w_comm(w, rec->comm);
	if (event)
		w_cstr(w, ev->name);
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

/*
 * a syscall's name, its number when the schema has none, into @sn: the
 * row's group. Numbers below CH_SYSNAMES are looked up once a file
 */
static int syscall_name(struct rc_clickhouse *c, const struct rc_event_desc *ev,
			const struct rc_rec_hdr *rec, struct ch_sysname *sn)
{
	const struct rc_ev_syscall *s = (const void *)rec;
	const struct rc_field *nr = rc_event__field(ev, "nr");
	const struct rc_field *args = rc_event__field(ev, "args");
	struct rc_value v = { .name = NULL };
	uint16_t n = args ? rc_field__count(c->m->schema, args, rec) : RC_SYSCALL_NARGS;

	if (nr)
		rc_field__value(c->m->schema, nr, rec, 0, &v);
	if (v.name) {
		sn->name = v.name;
	} else {
		/* a 32-bit task's: as report --summary names it, apart from an unnamed number */
		snprintf(sn->num, sizeof(sn->num),
			 rec->flags & RC_SYSCALL_F_COMPAT ? "sys32_%u" : "%u", s->nr);
		sn->name = sn->num;
	}
	sn->len = (uint32_t)strlen(sn->name);
	sn->nargs = n < RC_SYSCALL_NARGS ? (uint8_t)n : RC_SYSCALL_NARGS;
	short_set(&sn->enc, sn->name, sn->len);
	sn->group = keys_index(&c->keys[T_SYSCALLS], sn->name);
	return sn->group < 0 ? -ENOMEM : 0;
}

/*
 * A syscall's row, the table's most, with no check of room a value: each
 * column is made room for CH_SURE_ROWS rows of the most bytes a row
 * stores in it (c->sys_width), checked once, and those rows then written
 * unchecked (ch_w.sure), as long as nothing else changes the room
 * (batch_reset() zeroes the count). A check of room and a sum of bytes a
 * value were 9-11% of the export's instructions (callgrind, 1M syscalls);
 * now a check and reserve a column each CH_SURE_ROWS rows. What is
 * written is the same either way: only where the check is made moves.
 */
#define CH_SURE_ROWS 256

/*
 * room in @g's columns for the next rows of a syscall @sn names (each row
 * of a group has its name): as many as the group has had in the batch, 1
 * at its first, CH_SURE_ROWS at most, so that a group's room grows by
 * doubling, as when checked a value: reserving CH_SURE_ROWS rows at a
 * group's first would hold 36 KB for each, and a capture of many syscalls
 * of one call each (a fuzzer's: a group per number) took 8 times the
 * memory (a reviewer: 6.5 GB where 819 MB was, for 100,000 numbers).
 * False when out of memory, the row then written checked, failing as it did.
 */
static bool syscall_room(struct rc_clickhouse *c, struct ch_cols *g, const struct ch_sysname *sn)
{
	/* w_short() stores CH_SHORT bytes; else w_bytes(): a varint of at most 10, the name */
	size_t name = sn->enc.len ? CH_SHORT : 10 + (size_t)sn->len, k;
	uint32_t rows = g->rows < CH_SURE_ROWS ? (uint32_t)g->rows + 1 : CH_SURE_ROWS;

	if (!c->sys_sure_ok)
		return false;
	for (k = 0; k < CH_NCOLS(syscalls); k++) {
		struct rc_strbuf *sb = &g->col[k];
		size_t need = rows * (c->sys_width[k] ?: name);

		/* rc_strbuf__reserve(): room for need bytes and one more, as w_raw() checks */
		if (sb->cap - sb->len <= need && rc_strbuf__reserve(sb, need))
			return false;
		/*
		 * an array's elements (call_args): six a row, the most, not this
		 * row's count: a group's rows are of one name, which two numbers
		 * of a capture's enum may share, each of its own count
		 */
		sb = &g->nested[k];
		need = c->sys_array[k] ? rows * 8 * (size_t)RC_SYSCALL_NARGS : 0;
		if (need && sb->cap - sb->len <= need && rc_strbuf__reserve(sb, need))
			return false;
	}
	g->sure = rows - 1; /* this row's taken */
	return true;
}

/* whether the next syscall's row in @g may be written unchecked */
static inline bool syscall_sure(struct rc_clickhouse *c, struct ch_cols *g,
				const struct ch_sysname *sn)
{
	if (__builtin_expect(g->sure > 0, 1)) {
		g->sure--;
		return true;
	}
	return syscall_room(c, g, sn);
}

/* always inlined: each call's w->sure a constant, its checks folded away or kept */
static inline __attribute__((always_inline)) void
put_syscall(struct rc_clickhouse *c, struct ch_w *w, const struct ch_sysname *sn,
	    const struct ch_kind *k, const struct rc_rec_hdr *rec)
{
	const struct rc_ev_syscall *s = (const void *)rec;
	struct rc_strbuf *el;
	unsigned int i;

	put_event_cols(c, w, k->ev, false, rec); /* the view's event: tables[T_SYSCALLS].event */
	w_u32(w, s->nr);
	w_short(w, &sn->enc, sn->name, sn->len);
	w_u64(w, (uint64_t)s->ret);
	w_u64(w, s->duration);
	w_u8(w, !(rec->flags & RC_SYSCALL_F_NORETURN));
	el = w_array(w, sn->nargs); /* call_args */
	for (i = 0; i < sn->nargs; i++)
		w_raw(w, el, &s->args[i], 8);
}

/* sched's columns, those an event has not left at their zero */
struct sched_row {
	uint32_t prev_state, other_pid, other_tid, target_cpu;
	int32_t prio, other_prio, exit_code;
	const char *other_comm, *filename;
	uint8_t group_dead;
};

static void put_sched(struct rc_clickhouse *c, struct ch_w *w,
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
	put_event_cols(c, w, ev, true, rec);
	w_u32(w, r.prev_state);
	w_u32(w, (uint32_t)r.prio);
	w_u32(w, r.other_pid);
	w_u32(w, r.other_tid);
	w_str(w, r.other_comm, RC_COMM_LEN);
	w_u32(w, (uint32_t)r.other_prio);
	w_u32(w, r.target_cpu);
	w_str(w, r.filename, RC_FILENAME_LEN);
	w_u32(w, (uint32_t)r.exit_code);
	w_u8(w, r.group_dead);
}

static int put_sample(struct rc_clickhouse *c, struct ch_w *w,
		      const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	const struct rc_ev_sample *s = (const void *)rec;

	put_event_cols(c, w, ev, false, rec); /* the view's event: tables[T_SAMPLES].event */
	w_u64(w, s->ip);
	w_u64(w, s->period);
	w_u32(w, s->stack_id);
	w_u8(w, !!(rec->flags & RC_SAMPLE_F_USER));
	return note_stack(c, s->stack_id);
}

/* Any event: its fields' names and values as text, as report shows them. */
static int put_generic(struct rc_clickhouse *c, struct ch_w *w,
		       const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	struct rc_strbuf *keys, *values;
	uint16_t f;
	int err = 0;

	put_event_cols(c, w, ev, true, rec);
	keys = w_array(w, ev->nfields);
	for (f = 0; f < ev->nfields; f++)
		elem_cstr(w, keys, ev->fields[f].name);
	values = w_array(w, ev->nfields);
	for (f = 0; f < ev->nfields; f++) {
		const struct rc_field *fld = &ev->fields[f];

		c->text.len = 0;
		err = err ?: rc_decode__field(&c->text, c->m->schema, fld, rec);
		sb_bytes(w, values, c->text.len ? c->text.buf : "", c->text.len);
		if (!strcmp(fld->name, "stack_id") && fld->kind != RC_FIELD_STR &&
		    fld->size <= 8 && fld->count == 1)
			err = err ?: note_stack(c, (uint32_t)rc_field__u64(fld, rec, 0));
	}
	return err;
}

/* the table of @ev's records, by its name and type (ch_kind) */
static uint8_t event_kind(const struct rc_event_desc *ev, uint16_t type)
{
	if (type == RC_EV_SYSCALL && !strcmp(ev->name, "syscall"))
		return K_SYSCALL;
	if (type >= RC_EV_SCHED_SWITCH && type <= RC_EV_SCHED_EXIT &&
	    !strncmp(ev->name, "sched:", 6))
		return K_SCHED;
	if (type == RC_EV_SAMPLE && !strcmp(ev->name, "sample"))
		return K_SAMPLE;
	return K_GENERIC;
}

/* the kind of @rec's type: looked up in the schema its first time in the file */
static const struct ch_kind *rec_kind(struct rc_clickhouse *c, const struct rc_rec_hdr *rec,
				      struct ch_kind *tmp)
{
	struct ch_kind *k = rec->type <= RC_MAX_EVENT_ID ? &c->kinds[rec->type] : tmp;

	if (k->kind != K_UNKNOWN && k != tmp)
		return k;
	k->ev = rc_schema__event(c->m->schema, rec->type);
	if (!k->ev)
		return NULL; /* the reader checked every type: not reached */
	k->kind = event_kind(k->ev, rec->type);
	k->group = -1;
	return k;
}

static int put_record(struct rc_clickhouse *c, const struct rc_rec_hdr *rec,
		      struct rc_clickhouse_load *res)
{
	static const size_t sched_sizes[] = { [RC_EV_SCHED_SWITCH] = sizeof(struct rc_ev_switch),
					      [RC_EV_SCHED_WAKEUP] = sizeof(struct rc_ev_wakeup),
					      [RC_EV_SCHED_FORK] = sizeof(struct rc_ev_fork),
					      [RC_EV_SCHED_EXEC] = sizeof(struct rc_ev_exec),
					      [RC_EV_SCHED_EXIT] = sizeof(struct rc_ev_exit) };
	struct ch_kind tmp = {}, *kt;
	const struct ch_kind *k = rec_kind(c, rec, &tmp);
	int t = T_EVENTS, err = 0;
	struct ch_w w;

	if (!k)
		return 0;
	switch (k->kind) {
	case K_SYSCALL:
		if (rec->size >= sizeof(struct rc_ev_syscall)) {
			const struct rc_ev_syscall *s = (const void *)rec;
			struct ch_sysname one = {}, *sn = &one;

			/* a 32-bit task's call: its args not cut to the count of another's */
			if (c->sysname_ok && s->nr < CH_SYSNAMES &&
			    !(rec->flags & RC_SYSCALL_F_COMPAT))
				sn = &c->sysnames[s->nr];
			if (!sn->name)
				err = syscall_name(c, k->ev, rec, sn);
			t = T_SYSCALLS;
			err = err ?: row_begin_at(c, t, sn->group, &w);
			if (err)
				goto done;
			if (syscall_sure(c, w.c, sn)) {
				w.sure = true;
				put_syscall(c, &w, sn, k, rec);
			} else {
				put_syscall(c, &w, sn, k, rec);
			}
			res->syscalls++;
			goto done;
		}
		break;
	case K_SCHED:
		if (rec->size >= sizeof(struct rc_ev_exit) && rec->size >= sched_sizes[rec->type]) {
			t = T_SCHED;
			err = row_begin(c, t, NULL, &w);
			if (!err)
				put_sched(c, &w, k->ev, rec);
			goto done;
		}
		break;
	case K_SAMPLE:
		if (rec->size >= sizeof(struct rc_ev_sample)) {
			t = T_SAMPLES;
			err = row_begin(c, t, NULL, &w) ?: put_sample(c, &w, k->ev, rec);
			goto done;
		}
		break;
	}
	/* any other event, or a built-in one's record too short for its struct */
	t = T_EVENTS;
	kt = k == &tmp ? NULL : &c->kinds[rec->type];
	if (!kt || kt->group < 0) {
		int g = keys_index(&c->keys[t], k->ev->name);

		if (kt)
			kt->group = g;
		err = row_begin_at(c, t, g, &w);
	} else {
		err = row_begin_at(c, t, kt->group, &w);
	}
	err = err ?: put_generic(c, &w, k->ev, rec);
done:
	if (err)
		return err;
	row_end(c, t, &w);
	res->events++;
	if (c->batch[t]->oom)
		return -ENOMEM;
	if (c->batch[t]->bytes >= c->batch_max)
		err = ch_flush(c, t);
	return err;
}

static void put_frames(struct ch_w *w, const struct rc_frame *f, size_t n)
{
	struct rc_strbuf *sb = w_array(w, n);
	char name[40];
	size_t i;

	for (i = 0; i < n; i++) {
		if (f[i].sym) {
			elem_cstr(w, sb, f[i].sym);
		} else {
			snprintf(name, sizeof(name), "0x%" PRIx64, f[i].addr);
			elem_cstr(w, sb, name);
		}
	}
}

/* the stacks the file's records named, each once, by id */
static int put_stacks(struct rc_clickhouse *c, const struct rc_reader *r)
{
	size_t word;
	int err = 0;

	for (word = 0; c->any_stack && word < CH_STACK_WORDS && !err; word++) {
		uint64_t bits = c->stack_seen[word];

		for (; bits && !err; bits &= bits - 1) {
			const struct rc_stack *st =
				rc_reader__stack(r, (uint32_t)(word * 64 + __builtin_ctzll(bits)));
			struct ch_w w;

			if (!st)
				continue;
			err = row_begin(c, T_STACKS, NULL, &w);
			if (err)
				return err;
			put_file_cols(c, &w);
			w_u32(&w, st->id);
			w_u32(&w, st->pid);
			put_frames(&w, st->frames, st->nkernel);
			put_frames(&w, st->frames + st->nkernel, st->nuser);
			row_end(c, T_STACKS, &w);
			if (c->batch[T_STACKS]->oom) /* the batch being filled: a flush swaps it */
				return -ENOMEM;
			if (c->batch[T_STACKS]->bytes >= c->batch_max)
				err = ch_flush(c, T_STACKS);
		}
	}
	return err ?: ch_flush(c, T_STACKS);
}

static void put_ledger_row(struct rc_clickhouse *c, const struct rc_ledger_file *f,
			   const char *path, const char *scope, const char *event, int32_t cpu,
			   const struct rc_ledger_row *r)
{
	const struct rc_ledger *l = &f->led;
	bool total = !strcmp(scope, "total");
	struct ch_w w_, *w = &w_;

	if (row_begin(c, T_LEDGER, NULL, w))
		return;
	put_file_cols(c, w);
	w_cstr(w, path);
	w_cstr(w, scope);
	w_cstr(w, event);
	w_u32(w, (uint32_t)cpu);
#define CH_LEDGER_PUT(name) w_u64(w, r->name);
	RC_COUNTERS_SHOWN(CH_LEDGER_PUT)
#undef CH_LEDGER_PUT
	w_u64(w, r->in_file);
	w_u64(w, rc_ledger__missing(l, r));
	/* the file's damage: on its total row */
	w_u8(w, total && f->damaged);
	w_u8(w, total && f->truncated);
	w_u64(w, total ? l->corrupt_chunks : 0);
	w_u64(w, total ? l->corrupt_records : 0);
	w_u64(w, total ? l->corrupt_bytes : 0);
	w_u64(w, total ? rc_ledger__cut_short(l) : 0);
	w_u64(w, total ? rc_ledger__lost(l) : 0);
	w_u32(w, wall_s(f->m, f->m ? f->m->start_ts : 0));
	w_u32(w, wall_s(f->m, f->last));
	row_end(c, T_LEDGER, w);
}

static bool row_used(const struct rc_ledger_row *r)
{
	return r->made || r->in_file || r->filtered || r->missed || r->not_run || r->throttled;
}

/*
 * the file's ledger, counted as its records were loaded: a row an event
 * and a CPU that stat shows (its row_used()), and the total
 */
static int put_ledger(struct rc_clickhouse *c, struct rc_ledger_file *f, const char *path,
		      struct rc_clickhouse_load *res)
{
	char cpu[16];
	uint32_t i;

	for (i = 0; i < RC_LEDGER_EVENTS; i++) {
		const struct rc_event_desc *ev;

		if (!row_used(&f->led.by_event[i]))
			continue;
		ev = rc_schema__event(f->schema, i);
		snprintf(cpu, sizeof(cpu), "#%u", i);
		put_ledger_row(c, f, path, "event", ev ? ev->name : cpu, -1, &f->led.by_event[i]);
	}
	for (i = 0; i < f->led.ncpus; i++)
		if (row_used(&f->led.by_cpu[i]))
			put_ledger_row(c, f, path, "cpu", "", (int32_t)i, &f->led.by_cpu[i]);
	put_ledger_row(c, f, path, "total", "", -1, &f->led.total);
	res->damaged = f->damaged;
	res->truncated = f->truncated;
	return ch_flush(c, T_LEDGER);
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
 * What identifies the bytes a load read: the file's first @size bytes and
 * their XXH3_64bits. They are hashed right behind the reader, by pread()
 * on the reader's own descriptor of what it has just read, from the page
 * cache: the file comes off its disk once. Ahead of it only when the
 * manifest has a load of the file cut short or damaged of the same size,
 * to tell whether it is that one. A file changed while it was loaded
 * (its ctime moved: written in place, copied over) has no print: what was
 * read is not known to be what was hashed, and a later export loads it
 * again.
 */
struct ch_print {
	int fd;
	XXH3_state_t *xxh;
	uint64_t hashed; /* the first bytes hashed */
	char *buf;
	int err;
};

#define CH_PRINT_BUF (1u << 20)

/* @fd: the reader's, not closed here */
static int print_open(struct ch_print *p, int fd)
{
	*p = (struct ch_print){ .fd = fd };
	if (fd < 0)
		return -EBADF;
	p->xxh = XXH3_createState();
	p->buf = malloc(CH_PRINT_BUF);
	if (!p->xxh || !p->buf || XXH3_64bits_reset(p->xxh) == XXH_ERROR)
		return -ENOMEM;
	return 0;
}

/* hash on to byte @end: -EIO when the file is shorter (replaced, cut meanwhile) */
static int print_to(struct ch_print *p, uint64_t end)
{
	while (!p->err && p->hashed < end) {
		size_t n = end - p->hashed < CH_PRINT_BUF ? end - p->hashed : CH_PRINT_BUF;
		ssize_t got = pread(p->fd, p->buf, n, (off_t)p->hashed);

		if (got <= 0)
			p->err = got < 0 ? -errno : -EIO;
		else if (XXH3_64bits_update(p->xxh, p->buf, (size_t)got) == XXH_ERROR)
			p->err = -EIO;
		else
			p->hashed += (uint64_t)got;
	}
	return p->err;
}

/* rc_reader__on_chunk(): the bytes read so far hashed, a MiB or more at a time */
static void print_chunk(void *ctx, const struct rc_reader *r, uint64_t records)
{
	struct ch_print *p = ctx;
	uint64_t at = rc_reader__offset(r);

	(void)records;
	if (at >= p->hashed + CH_PRINT_BUF)
		print_to(p, at);
}

static void print_close(struct ch_print *p)
{
	XXH3_freeState(p->xxh);
	free(p->buf);
}

/*
 * whether the file is loaded already: the manifest has a row of @key
 * neither cut short nor damaged (a whole load, which no copy adds to), or
 * one of the same @size and hash (these very bytes, cut or damaged: loading
 * them again adds nothing but storage). A file still being written (no
 * trailer yet) has grown since, and is loaded again, as is one changed,
 * the views keeping the load with the most records.
 */
static int loaded_already(struct rc_clickhouse *c, const char *key, uint64_t size,
			  struct ch_print *p)
{
	char *at, *end;
	uint64_t hash;
	int err;

	c->query.len = 0;
	if (rc_strbuf__printf(&c->query,
			      "SELECT countIf(truncated = 0 AND damaged = 0), "
			      "arrayStringConcat(arrayMap(h -> toString(h), "
			      "groupUniqArrayIf(file_xxh3, file_size = %" PRIu64 ")), ' ') FROM "
			      "%s.manifest WHERE file_key = '%s' FORMAT TabSeparated",
			      size, c->db, key))
		return -ENOMEM;
	err = ch_post(c, NULL, c->query.buf, c->query.len, &c->answer);
	if (err)
		return err;
	if (rc_strbuf__put(&c->answer, "", 1))
		return -ENOMEM;
	if (strtoull(c->answer.buf, &at, 10) > 0)
		return 1;
	if (*at != '\t' || !isdigit((unsigned char)at[1]))
		return 0; /* none of that size */
	/* these bytes' hash, ahead of the reader: theirs is the same range */
	if (print_to(p, size))
		return 0; /* not what it was a moment ago: loaded, its print unknown */
	hash = XXH3_64bits_digest(p->xxh);
	for (at++; isdigit((unsigned char)*at); at = end + (*end == ' ')) {
		if (strtoull(at, &end, 10) == hash)
			return 1;
	}
	return 0;
}

static int put_manifest(struct rc_clickhouse *c, const char *path, const char *key,
			const struct rc_clickhouse_load *res, uint64_t size, uint64_t hash)
{
	struct ch_w w;
	int err = senders_wait(c) ?: row_begin(c, T_NTABLES, NULL, &w);

	if (err)
		return err;
	w_u64(&w, c->load_id);
	w_cstr(&w, c->m->host);
	w_cstr(&w, c->boot);
	w_cstr(&w, c->run);
	w_u32(&w, c->m->has_run ? c->m->run.seq : 0);
	w_cstr(&w, key);
	w_cstr(&w, path);
	w_u64(&w, res->events);
	w_u8(&w, res->damaged);
	w_u8(&w, res->truncated);
	w_u32(&w, (uint32_t)time(NULL));
	w_u64(&w, (uint64_t)c->m->wall_offset_ns);
	w_u64(&w, size);
	w_u64(&w, hash);
	row_end(c, T_NTABLES, &w);
	return ch_send(c, T_NTABLES, &manifest, false) ?: senders_wait(c);
}

/* the caches of the file's types and syscall names, emptied for a new file */
static int caches_reset(struct rc_clickhouse *c)
{
	const struct rc_event_desc *ev = rc_schema__event(c->m->schema, RC_EV_SYSCALL);
	const struct rc_field *nr = ev ? rc_event__field(ev, "nr") : NULL;

	memset(c->kinds, 0, sizeof(c->kinds));
	if (!c->sysnames && !(c->sysnames = calloc(CH_SYSNAMES, sizeof(*c->sysnames))))
		return -ENOMEM;
	memset(c->sysnames, 0, CH_SYSNAMES * sizeof(*c->sysnames));
	/* a name found by the record's own nr: the same for every record of that nr */
	c->sysname_ok = !nr || (nr->offset == offsetof(struct rc_ev_syscall, nr) && nr->size == 4 &&
				nr->count == 1);
	return 0;
}

int rc_clickhouse__export(struct rc_clickhouse *c, const char *path,
			  struct rc_clickhouse_load *res)
{
	struct ch_print p = { .fd = -1 };
	struct rc_ledger_file f = {};
	const struct rc_rec_hdr *rec;
	uint64_t size = 0, hash = 0;
	struct rc_reader *r;
	struct stat st, st0;
	char key[128];
	size_t i;
	int err, n = 0;

	memset(res, 0, sizeof(*res));
	c->err[0] = '\0';
	c->sent = 0;
	if (c->any_stack) /* a load that failed midway left its ids */
		memset(c->stack_seen, 0, CH_STACK_WORDS * sizeof(uint64_t));
	c->any_stack = false;
	for (i = 0; i <= T_NTABLES; i++)
		batch_reset(c->batch[i], CH_KEEP(c));
	r = rc_reader__open(path);
	if (!r) {
		const char *why = rc_reader__open_error();

		snprintf(c->err, sizeof(c->err), "'%s' is not a capture file: %s", path,
			 why && *why ? why : strerror(errno));
		return errno == ENOMEM ? -ENOMEM : -ENOEXEC;
	}
	c->m = rc_reader__meta(r);
	c->host_key = rc_siphash24(0, 0, c->m->host, c->m->host ? strlen(c->m->host) : 0);
	c->wall_ok = false;
	hex16(c->boot, c->m->run.boot_id);
	hex16(c->run, c->m->run.id);
	file_key(c, key, sizeof(key));
	err = print_open(&p, rc_reader__fd(r));
	if (!err && fstat(p.fd, &st0))
		err = -errno;
	if (err) {
		snprintf(c->err, sizeof(c->err), "'%s': %s", path, strerror(-err));
		goto out;
	}
	st = st0;
	err = loaded_already(c, key, (uint64_t)st0.st_size, &p);
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
	/* one pass: each record into its table and the ledger, the bytes hashed behind */
	rc_reader__on_chunk(r, print_chunk, &p);
	err = caches_reset(c) ?: rc_ledger_file__begin(&f, r, path);
	while (!err && (n = rc_reader__next(r, &rec)) > 0) {
		rc_ledger_file__add(&f, rec);
		err = put_record(c, rec, res);
	}
	if (!err && n < 0 && n != -EBADMSG && n != -EIO)
		err = n; /* -ENOMEM; a file that stops making sense loads what was read */
	if (!err && n < 0)
		pr_warn("'%s': %s: loading what was read\n", path, rc_reader__error(r));
	if (!err && rc_ledger_file__end(&f, r) == -ENOMEM)
		err = -ENOMEM;
	if (!err && fstat(p.fd, &st))
		st.st_size = 0;
	if (!err && n < 0) {
		/* the reader gave up: damaged, from the block it stopped at to the file's end */
		uint64_t at = rc_reader__stopped_at(r);

		f.damaged = true;
		f.damage = rc_reader__error(r);
		if ((uint64_t)st.st_size > at)
			rc_ledger__add_corrupt(&f.led, 0, 0, (uint64_t)st.st_size - at);
		res->unreadable = true;
	}
	/*
	 * the bytes loaded: of a file cut short, those to where the reader
	 * found its end (more may have come since: a later export loads them);
	 * else the file's, whose bytes past where the reader stopped (an end
	 * block, damage it gave up on) would load nothing more. A failed read
	 * is no print: the file is loaded again
	 */
	if (!err && n != -EIO) {
		size = f.truncated ? rc_reader__offset(r) : (uint64_t)st.st_size;
		if (size >= p.hashed && !print_to(&p, size) && !fstat(p.fd, &st) &&
		    st.st_ctim.tv_sec == st0.st_ctim.tv_sec && st.st_ctim.tv_nsec == st0.st_ctim.tv_nsec)
			hash = XXH3_64bits_digest(p.xxh);
		else
			size = 0; /* no print: a later export loads it again */
	}
	for (i = 0; !err && i < T_NTABLES; i++)
		if (i != T_STACKS && i != T_LEDGER)
			err = ch_flush(c, i);
	err = err ?: put_ledger(c, &f, path, res);
	err = err ?: put_stacks(c, r);
	/* last: the load counts once every row is in */
	err = err ?: put_manifest(c, path, key, res, size, hash);
	res->bytes = c->sent;
out:
	if (err) { /* the inserts in flight done with, their failures after this one unsaid */
		char why[RC_CH_ERR_LEN];

		memcpy(why, c->err, sizeof(why));
		senders_wait(c);
		memcpy(c->err, why, sizeof(why));
	}
	if (err == -ENOMEM && !c->err[0])
		snprintf(c->err, sizeof(c->err), "out of memory");
	c->m = NULL;
	print_close(&p);
	rc_ledger_file__free(&f);
	rc_reader__free(r);
	return err;
}
