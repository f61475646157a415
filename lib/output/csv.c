// SPDX-License-Identifier: GPL-2.0-only
/*
 * CSV (output.h): a header row, the record's columns, then every field of
 * every event of the schema; a record fills the columns of its event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "decode/value.h"
#include "output/output_int.h"

#define CSV_MAX_COLUMNS 4096 /* distinct field names shown; real schemas have dozens */
#define CSV_NO_COLUMN	UINT32_MAX

static const char *const csv_fixed[] = { "time", "ts", "cpu", "pid", "tid", "comm", "event" };
/* the column of an event's field named as a fixed column (a tracepoint's pid) */
static const char *const csv_renamed[] = { "fields.time", "fields.ts",	"fields.cpu",
					   "fields.pid",  "fields.tid", "fields.comm",
					   "fields.event" };

/*
 * The output's CSV state: the union of the sources' field names, the
 * columns; and each source's column of each field of each event.
 */
struct csv {
	const char **cols;
	size_t ncols;
	size_t nfixed; /* the columns before the fields */
	uint32_t ***colmap; /* [source][event index][field] -> column, or CSV_NO_COLUMN */
	uint16_t ***order;  /* [source][event index]: its fields with a column, by column */
	size_t nsrcs;
	char *commas; /* ncols of them: the separators of a run of empty cells at once */
};

/* A cell of at most @max bytes (to a NUL), quoted when it must be (RFC 4180). */
static void csv_cell(struct rc_strbuf *sb, const char *s, size_t max)
{
	size_t n = strnlen(s, max), i;
	bool quote = n && (s[0] == ' ' || s[n - 1] == ' ');

	for (i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) {
		rc_strbuf__put(sb, s, n);
		return;
	}
	APPEND_LIT(sb, "\"");
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			APPEND_LIT(sb, "\"");
		rc_strbuf__put(sb, &s[i], 1);
	}
	APPEND_LIT(sb, "\"");
}

/* The column of @name, a new one if there is room, or CSV_NO_COLUMN. */
static uint32_t csv_column(struct csv *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ncols; i++)
		if (!strcmp(c->cols[i], name))
			return i;
	if (c->ncols == CSV_MAX_COLUMNS)
		return CSV_NO_COLUMN;
	c->cols[c->ncols] = name;
	return c->ncols++;
}

/* The columns of a file's fields: the union's, found or added. */
static int csv_map(struct rc_output *o, struct csv *c, size_t si)
{
	const struct rc_schema *s = o->srcs[si].m->schema;
	uint32_t **colmap;
	size_t i;
	uint32_t e;
	uint16_t f;

	colmap = c->colmap[si] = calloc(s->nevents ? s->nevents : 1, sizeof(*colmap));
	if (!colmap)
		return -ENOMEM;
	for (e = 0; e < s->nevents; e++) {
		colmap[e] = calloc(s->events[e].nfields ? s->events[e].nfields : 1, sizeof(**colmap));
		if (!colmap[e])
			return -ENOMEM;
		for (f = 0; f < s->events[e].nfields; f++) {
			const char *name = s->events[e].fields[f].name;

			for (i = 0; i < sizeof(csv_fixed) / sizeof(csv_fixed[0]); i++)
				if (!strcmp(name, csv_fixed[i]))
					name = csv_renamed[i];
			if (o->hosts && !strcmp(name, "host"))
				name = "fields.host";
			colmap[e][f] = csv_column(c, name);
		}
	}
	return 0;
}

/* Each event's fields that have a column, by column, then by field: the order of the cells. */
static int csv_order(struct rc_output *o, struct csv *c, size_t si)
{
	const struct rc_schema *s = o->srcs[si].m->schema;
	uint32_t **colmap = c->colmap[si];
	uint16_t **order;
	uint32_t e;
	uint16_t f, n, k;

	order = c->order[si] = calloc(s->nevents ? s->nevents : 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (e = 0; e < s->nevents; e++) {
		/* a count first, then the fields */
		order[e] = calloc((size_t)s->events[e].nfields + 1, sizeof(**order));
		if (!order[e])
			return -ENOMEM;
		for (f = n = 0; f < s->events[e].nfields; f++) {
			if (colmap[e][f] == CSV_NO_COLUMN || colmap[e][f] < c->nfixed)
				continue; /* no column, or one before the fields' */
			/* insertion: stable, fields of one column in their order */
			for (k = n; k > 0 && colmap[e][order[e][k]] > colmap[e][f]; k--)
				order[e][k + 1] = order[e][k];
			order[e][k + 1] = f;
			n++;
		}
		order[e][0] = n;
	}
	return 0;
}

static void csv_free(struct rc_output *o)
{
	struct csv *c = o->state;
	size_t i;
	uint32_t e;

	if (!c)
		return;
	for (i = 0; c->colmap && i < c->nsrcs; i++) {
		for (e = 0; c->colmap[i] && e < o->srcs[i].m->schema->nevents; e++)
			free(c->colmap[i][e]);
		free(c->colmap[i]);
	}
	for (i = 0; c->order && i < c->nsrcs; i++) {
		for (e = 0; c->order[i] && e < o->srcs[i].m->schema->nevents; e++)
			free(c->order[i][e]);
		free(c->order[i]);
	}
	free(c->colmap);
	free(c->order);
	free(c->commas);
	free(c->cols);
	free(c);
	o->state = NULL;
}

static int csv_begin(struct rc_output *o)
{
	struct csv *c = calloc(1, sizeof(*c));
	size_t i;
	int err = 0;

	if (!c)
		return -ENOMEM;
	o->state = c;
	c->cols = calloc(CSV_MAX_COLUMNS, sizeof(*c->cols));
	c->colmap = calloc(o->nsrcs ? o->nsrcs : 1, sizeof(*c->colmap));
	c->order = calloc(o->nsrcs ? o->nsrcs : 1, sizeof(*c->order));
	if (!c->cols || !c->colmap || !c->order)
		return -ENOMEM; /* csv_free() frees what there is */
	c->nsrcs = o->nsrcs;
	for (i = 0; i < sizeof(csv_fixed) / sizeof(csv_fixed[0]); i++)
		csv_column(c, csv_fixed[i]);
	if (o->hosts)
		csv_column(c, "host");
	c->nfixed = c->ncols;
	for (i = 0; !err && i < o->nsrcs; i++)
		err = csv_map(o, c, i) ?: csv_order(o, c, i);
	if (err)
		return err;
	c->commas = malloc(c->ncols + 1);
	if (!c->commas)
		return -ENOMEM;
	memset(c->commas, ',', c->ncols);
	for (i = 0; i < c->ncols; i++) {
		if (i)
			APPEND_LIT(&o->buf, ",");
		csv_cell(&o->buf, c->cols[i], SIZE_MAX);
	}
	APPEND_LIT(&o->buf, "\n");
	return 0;
}

/* Whether a cell must be quoted (RFC 4180): csv_cell()'s test. */
static bool csv_quoted(const char *s, size_t n)
{
	size_t i;

	if (n && (s[0] == ' ' || s[n - 1] == ' '))
		return true;
	for (i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
			return true;
	return false;
}

/* One field as CSV text: enum names, numbers, arrays space-separated. */
static void csv_field(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *fld,
		      const struct rc_rec_hdr *rec)
{
	const struct rc_field *f = fld;
	struct rc_field plain;
	bool named = false;
	struct rc_value v;
	size_t start = sb->len;
	unsigned int k, n;
	char *text;

	if (fld->kind == RC_FIELD_DATA_LOC || fld->kind == RC_FIELD_REL_LOC) {
		if (rc_field__resolve(fld, rec, &plain))
			return; /* an empty cell: the data is not in the record */
		f = &plain;
	}
	if (f->kind == RC_FIELD_STR) {
		rc_field__value(s, f, rec, 0, &v);
		csv_cell(sb, v.str, v.len);
		return;
	}
	/* written in place; numbers need no quotes, an enum's name may */
	n = rc_field__count(s, f, rec);
	for (k = 0; k < n; k++) {
		if (k)
			APPEND_LIT(sb, " ");
		rc_field__value(s, f, rec, k, &v);
		if (v.name) {
			rc_strbuf__put(sb, v.name, strlen(v.name));
			named = true;
		} else if (v.kind == RC_FIELD_SINT) {
			rc_strbuf__put_s64(sb, v.s);
		} else {
			rc_strbuf__put_u64(sb, v.u);
		}
	}
	if (!named || !csv_quoted(sb->buf + start, sb->len - start))
		return;
	text = strndup(sb->buf + start, sb->len - start);
	sb->len = start;
	if (text)
		csv_cell(sb, text, SIZE_MAX);
	free(text);
}

/* V, then a comma; an empty cell when the record does not know it */
static void csv_known(struct rc_strbuf *sb, uint32_t v, bool unknown)
{
	if (!unknown)
		rc_strbuf__put_u64(sb, v);
	APPEND_LIT(sb, ",");
}

static void csv_event(struct rc_output *o, const struct rc_rec_hdr *rec)
{
	const struct rc_schema *s = o->m->schema;
	const struct rc_event_desc *ev = rc_output__ev(o, rec->type);
	const struct csv *cs = o->state;
	size_t evi = ev - s->events, c = cs->nfixed, col;
	const uint32_t *colmap = cs->colmap[o->cur][evi];
	const uint16_t *order = cs->order[o->cur][evi];
	struct rc_strbuf *sb = &o->buf;
	unsigned int no = ev->flags;
	uint16_t i;

	rc_output__put_seconds(sb, o->m, rec->ts);
	APPEND_LIT(sb, ",");
	rc_strbuf__put_u64(sb, rec->ts);
	APPEND_LIT(sb, ",");
	csv_known(sb, rec->cpu, no & RC_EVENT_NO_CPU);
	csv_known(sb, rec->pid, no & RC_EVENT_NO_PID);
	csv_known(sb, rec->tid, no & RC_EVENT_NO_TID);
	if (!(no & RC_EVENT_NO_COMM))
		csv_cell(sb, rec->comm, sizeof(rec->comm));
	APPEND_LIT(sb, ",");
	csv_cell(sb, ev->name, SIZE_MAX);
	if (o->hosts) {
		APPEND_LIT(sb, ",");
		csv_cell(sb, o->m->host ? o->m->host : "", SIZE_MAX);
	}
	/* each column its comma, then its fields: the event's, in column order */
	for (i = 1; i <= order[0]; i++) {
		col = colmap[order[i]];
		if (col >= c) {
			rc_strbuf__put(sb, cs->commas, col + 1 - c);
			c = col + 1;
		}
		csv_field(sb, s, &ev->fields[order[i]], rec);
	}
	rc_strbuf__put(sb, cs->commas, cs->ncols - c);
	APPEND_LIT(sb, "\n");
}

const struct rc_output_ops rc_output_csv = {
	.name = "csv",
	.begin = csv_begin,
	.event = csv_event,
	.free = csv_free,
};
