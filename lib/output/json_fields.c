// SPDX-License-Identifier: GPL-2.0-only
/*
 * A record's fields as a JSON object (json_fields.h). The schema names a
 * struct's fields flat, "outer.inner" and "arr[0].x" (btfdesc.c): each
 * event's names are read once into a tree of objects, arrays and fields,
 * and each record is written by walking it.
 *
 * A name is parts joined by '.', each a C identifier with optional
 * indices "[N]"; the last part may be anything ("a|b|c", bitfields that
 * share bytes). An event whose names do not make a tree (a field and an
 * object of one name, an array with a gap) is written flat, by full names.
 */
#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "output/json.h"
#include "output/json_fields.h"
#include "decode/value.h"

#define APPEND_LIT(sb, lit) rc_strbuf__put(sb, lit, sizeof(lit) - 1)
#define MAX_DIMS	    8 /* indices of one part: btfdesc's arrays have fewer */

enum node_kind {
	NODE_FIELD,
	NODE_OBJECT,
	NODE_ARRAY,
};

/* A string escaped once, for every record: a key with its quotes and colon. */
struct jstr {
	char *s;
	size_t len;
};

struct node {
	const char *key; /* a part of a field's name, not NUL-terminated; NULL in an array */
	size_t keylen;
	struct jstr jkey; /* in an object: "KEY": */
	struct jstr jerr; /* an RC_HINT_ERRNO field in an object: ,"KEY_errno": */
	enum node_kind kind;
	uint16_t field; /* NODE_FIELD: the event's field */
	struct node *kids;
	size_t nkids, cap;
};

struct rc_json_fields {
	const struct rc_schema *s;
	struct node *roots;  /* an object per event, in the schema's order */
	struct jstr *names; /* each event's name, a JSON string */
};

/* One part of a name: "name[i][j]", and whether it is the last. */
struct part {
	const char *name;
	size_t len;
	uint32_t idx[MAX_DIMS];
	int nidx;
	bool last;
};

static const char *ident_end(const char *p)
{
	if (!isalpha((unsigned char)*p) && *p != '_')
		return p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	return p;
}

/* The part at @p into @pt: the next part's start, or NULL when it is the last. */
static const char *next_part(const char *p, struct part *pt)
{
	const char *r = ident_end(p);
	char *e;

	memset(pt, 0, sizeof(*pt));
	pt->name = p;
	pt->len = r - p;
	while (pt->len && *r == '[' && pt->nidx < MAX_DIMS && isdigit((unsigned char)r[1])) {
		unsigned long v = strtoul(r + 1, &e, 10);

		if (*e != ']' || v > UINT16_MAX)
			break;
		pt->idx[pt->nidx++] = v;
		r = e + 1;
	}
	if (pt->len && *r == '.' && r[1])
		return r + 1;
	pt->last = true;
	if (!pt->len || *r) { /* not "ident[N]...": the rest, whole, is a field's key */
		pt->len = strlen(p);
		pt->nidx = 0;
	}
	return NULL;
}

static void node_free(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++)
		node_free(&n->kids[i]);
	free(n->kids);
	free(n->jkey.s);
	free(n->jerr.s);
	memset(n, 0, sizeof(*n));
}

static struct node *add_kid(struct node *n, const char *key, size_t keylen, enum node_kind kind,
			    uint16_t field)
{
	if (n->nkids == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		struct node *k = realloc(n->kids, cap * sizeof(*k));

		if (!k)
			return NULL;
		n->kids = k;
		n->cap = cap;
	}
	n->kids[n->nkids] =
	    (struct node){ .key = key, .keylen = keylen, .kind = kind, .field = field };
	return &n->kids[n->nkids++];
}

static struct node *find_kid(const struct node *n, const char *key, size_t keylen)
{
	size_t i;

	for (i = 0; i < n->nkids; i++)
		if (n->kids[i].keylen == keylen && !memcmp(n->kids[i].key, key, keylen))
			return &n->kids[i];
	return NULL;
}

/* Element @idx of array @a, of @kind: the one there, or a new one at the end. */
static int element(struct node **a, uint32_t idx, enum node_kind kind, uint16_t field)
{
	struct node *n = *a;

	if (idx < n->nkids) {
		n = &n->kids[idx];
		if (n->kind != kind || kind == NODE_FIELD)
			return -EEXIST;
	} else if (idx == n->nkids) {
		n = add_kid(n, NULL, 0, kind, field);
		if (!n)
			return -ENOMEM;
	} else {
		return -EEXIST; /* a gap: not the arrays btfdesc makes */
	}
	*a = n;
	return 0;
}

/*
 * Part @pt of the name of field @field, in object *@np: *@np becomes the
 * object the next part goes in. -EEXIST when it does not fit the tree.
 */
static int place(struct node **np, const struct part *pt, uint16_t field)
{
	enum node_kind kind = pt->last ? NODE_FIELD : NODE_OBJECT;
	struct node *k = find_kid(*np, pt->name, pt->len);
	int i, err = 0;

	if (!pt->nidx) {
		if (k && (k->kind != kind || kind == NODE_FIELD))
			return -EEXIST;
		k = k ?: add_kid(*np, pt->name, pt->len, kind, field);
		*np = k;
		return k ? 0 : -ENOMEM;
	}
	if (k && k->kind != NODE_ARRAY)
		return -EEXIST;
	k = k ?: add_kid(*np, pt->name, pt->len, NODE_ARRAY, 0);
	if (!k)
		return -ENOMEM;
	for (i = 0; i < pt->nidx && !err; i++)
		err = element(&k, pt->idx[i], i + 1 < pt->nidx ? NODE_ARRAY : kind, field);
	*np = k;
	return err;
}

/* The fields of @ev into @root, nested by their names; -EEXIST when they do not nest. */
static int build(struct node *root, const struct rc_event_desc *ev)
{
	uint16_t f;
	int err = 0;

	root->kind = NODE_OBJECT;
	for (f = 0; f < ev->nfields && !err; f++) {
		const char *p = ev->fields[f].name;
		struct node *n = root;
		struct part pt;

		do {
			p = next_part(p, &pt);
			err = place(&n, &pt, f);
		} while (p && !err);
	}
	return err;
}

/* The fields of @ev into @root by their full names, as they were before nesting. */
static int build_flat(struct node *root, const struct rc_event_desc *ev)
{
	uint16_t f;

	root->kind = NODE_OBJECT;
	for (f = 0; f < ev->nfields; f++)
		if (!add_kid(root, ev->fields[f].name, strlen(ev->fields[f].name), NODE_FIELD, f))
			return -ENOMEM;
	return 0;
}

/* @pre, then @key (at most @keylen bytes) as a JSON string, then @post, into @js. */
static int escape_once(struct jstr *js, const char *pre, const char *key, size_t keylen,
		       const char *post)
{
	struct rc_strbuf sb = {};
	int err;

	err = rc_strbuf__put(&sb, pre, strlen(pre));
	if (!err) {
		rc_json__escape(&sb, key, keylen);
		err = rc_strbuf__put(&sb, post, strlen(post));
	}
	if (err || !sb.buf) {
		rc_strbuf__free(&sb);
		return -ENOMEM;
	}
	js->s = sb.buf;
	js->len = sb.len;
	return 0;
}

/* The keys of the objects under @n escaped once: "KEY":, and ,"KEY_errno": for errno fields. */
static int escape_keys(struct node *n, const struct rc_event_desc *ev)
{
	char *ek;
	size_t i;
	int err = 0;

	for (i = 0; i < n->nkids && !err; i++) {
		struct node *k = &n->kids[i];

		err = escape_keys(k, ev);
		if (err || n->kind != NODE_OBJECT)
			continue;
		err = escape_once(&k->jkey, "", k->key, k->keylen, ":");
		if (err || k->kind != NODE_FIELD || ev->fields[k->field].hint != RC_HINT_ERRNO)
			continue;
		if (asprintf(&ek, "%.*s_errno", (int)k->keylen, k->key) < 0)
			return -ENOMEM;
		err = escape_once(&k->jerr, ",", ek, SIZE_MAX, ":");
		free(ek);
	}
	return err;
}

struct rc_json_fields *rc_json_fields__new(const struct rc_schema *s)
{
	struct rc_json_fields *jf = calloc(1, sizeof(*jf));
	uint32_t e;
	int err = 0;

	if (!jf)
		return NULL;
	jf->s = s;
	jf->roots = calloc(s->nevents ? s->nevents : 1, sizeof(*jf->roots));
	jf->names = calloc(s->nevents ? s->nevents : 1, sizeof(*jf->names));
	if (!jf->roots || !jf->names) {
		free(jf->roots);
		free(jf->names);
		free(jf);
		return NULL;
	}
	for (e = 0; e < s->nevents && !err; e++) {
		err = build(&jf->roots[e], &s->events[e]);
		if (err == -EEXIST) {
			node_free(&jf->roots[e]);
			err = build_flat(&jf->roots[e], &s->events[e]);
		}
		err = err ?: escape_keys(&jf->roots[e], &s->events[e]);
		err = err ?: escape_once(&jf->names[e], "", s->events[e].name, SIZE_MAX, "");
	}
	if (err) {
		rc_json_fields__free(jf);
		errno = -err;
		return NULL;
	}
	return jf;
}

void rc_json_fields__free(struct rc_json_fields *jf)
{
	uint32_t e;

	if (!jf)
		return;
	for (e = 0; e < jf->s->nevents; e++) {
		node_free(&jf->roots[e]);
		free(jf->names[e].s);
	}
	free(jf->roots);
	free(jf->names);
	free(jf);
}

/* ---- writing a record ------------------------------------------------- */

static void put_value(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *f,
		      const void *rec, unsigned int i)
{
	struct rc_value v;

	rc_field__value(s, f, rec, i, &v);
	if (v.name)
		rc_json__escape(sb, v.name, SIZE_MAX);
	else if (v.kind == RC_FIELD_SINT)
		rc_json__put_s64(sb, v.s);
	else
		rc_json__put_u64(sb, v.u);
}

/* Field @fld of @rec: a string, a number, an enum's name, an array; null when out of the record. */
static void put_field(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *fld,
		      const struct rc_rec_hdr *rec)
{
	const struct rc_field *f = fld;
	struct rc_field plain;
	struct rc_value v;
	uint16_t k;

	if (fld->kind == RC_FIELD_DATA_LOC || fld->kind == RC_FIELD_REL_LOC) {
		if (rc_field__resolve(fld, rec, &plain)) {
			APPEND_LIT(sb, "null");
			return;
		}
		f = &plain;
	}
	if (f->kind == RC_FIELD_STR) {
		rc_field__value(s, f, rec, 0, &v);
		rc_json__escape(sb, v.str, v.len);
	} else if (f->count != 1) {
		uint16_t n = rc_field__count(s, f, rec);

		APPEND_LIT(sb, "[");
		for (k = 0; k < n; k++) {
			if (k)
				APPEND_LIT(sb, ",");
			put_value(sb, s, f, rec, k);
		}
		APPEND_LIT(sb, "]");
	} else {
		put_value(sb, s, f, rec, 0);
	}
}

/* A failed return's errno by name, ',"KEY_errno":"ENAME"', beside the number. */
static void put_errno(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *f,
		      const struct rc_rec_hdr *rec, const struct jstr *key)
{
	struct rc_value v;

	rc_field__value(s, f, rec, 0, &v);
	if (!v.err)
		return;
	rc_strbuf__put(sb, key->s, key->len);
	rc_json__escape(sb, v.err, SIZE_MAX);
}

static void put_node(struct rc_strbuf *sb, const struct rc_schema *s,
		     const struct rc_event_desc *ev, const struct rc_rec_hdr *rec,
		     const struct node *n)
{
	size_t i;

	if (n->kind == NODE_FIELD) {
		put_field(sb, s, &ev->fields[n->field], rec);
		return;
	}
	rc_strbuf__put(sb, n->kind == NODE_OBJECT ? "{" : "[", 1);
	for (i = 0; i < n->nkids; i++) {
		const struct node *k = &n->kids[i];

		if (i)
			APPEND_LIT(sb, ",");
		if (n->kind == NODE_OBJECT)
			rc_strbuf__put(sb, k->jkey.s, k->jkey.len);
		put_node(sb, s, ev, rec, k);
		if (k->jerr.s)
			put_errno(sb, s, &ev->fields[k->field], rec, &k->jerr);
	}
	rc_strbuf__put(sb, n->kind == NODE_OBJECT ? "}" : "]", 1);
}

void rc_json_fields__put(const struct rc_json_fields *jf, struct rc_strbuf *sb,
			 const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	put_node(sb, jf->s, ev, rec, &jf->roots[ev - jf->s->events]);
}

const char *rc_json_fields__name(const struct rc_json_fields *jf, const struct rc_event_desc *ev,
				 size_t *len)
{
	const struct jstr *js = &jf->names[ev - jf->s->events];

	*len = js->len;
	return js->s;
}
