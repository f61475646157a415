// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracepoint formats (tracefs.c finds and reads them). A format file reads
 *
 *	name: irq_handler_entry
 *	ID: 225
 *	format:
 *		field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *		...
 *		field:int irq;	offset:8;	size:4;	signed:1;
 *		field:__data_loc char[] name;	offset:12;	size:4;	signed:0;
 *
 *	print fmt: "irq=%d name=%s", REC->irq, __get_str(name)
 *
 * and the offset and size of each field are the kernel's word: the type is
 * read only to choose how to show the bytes (libtraceevent's
 * event-parse.c reads it the same way).
 */
#include <ctype.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format/format.h"
#include "util/util.h"
#include "tracefs/tpformat.h"
#include "util/mem.h"

/* The longest field line taken: a 255-byte name and a long type fit. */
#define MAX_FIELD_LINE 1024

struct parser {
	struct rc_tpformat *f;
	uint16_t base;
	size_t cap; /* of f->fields */
	unsigned int line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, int ret, const char *fmt,
						      ...)
{
	va_list ap;
	int n = 0;

	if (!p->err || !p->errlen)
		return ret;
	if (p->line)
		n = snprintf(p->err, p->errlen, "line %u: ", p->line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A decimal number alone, at most @max. */
static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > (max - (*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (*s - '0');
	}
	if (*s)
		return -EINVAL;
	*out = v;
	return 0;
}

/* ---- types ------------------------------------------------------------ */

struct ctype {
	const char *name;
	uint8_t size;
	bool is_signed;
};

#define LONG_SZ sizeof(long)

/* The integer types of format files, by size (this machine's ABI is the kernel's). */
static const struct ctype ctypes[] = {
	{ "char", 1, true },
	{ "signed char", 1, true },
	{ "unsigned char", 1, false },
	{ "bool", 1, false },
	{ "_Bool", 1, false },
	{ "u8", 1, false },
	{ "s8", 1, true },
	{ "__u8", 1, false },
	{ "__s8", 1, true },
	{ "uint8_t", 1, false },
	{ "int8_t", 1, true },
	{ "short", 2, true },
	{ "short int", 2, true },
	{ "signed short", 2, true },
	{ "unsigned short", 2, false },
	{ "unsigned short int", 2, false },
	{ "u16", 2, false },
	{ "s16", 2, true },
	{ "__u16", 2, false },
	{ "__s16", 2, true },
	{ "uint16_t", 2, false },
	{ "int16_t", 2, true },
	{ "__le16", 2, false },
	{ "__be16", 2, false },
	{ "int", 4, true },
	{ "signed", 4, true },
	{ "signed int", 4, true },
	{ "unsigned", 4, false },
	{ "unsigned int", 4, false },
	{ "u32", 4, false },
	{ "s32", 4, true },
	{ "__u32", 4, false },
	{ "__s32", 4, true },
	{ "uint32_t", 4, false },
	{ "int32_t", 4, true },
	{ "__le32", 4, false },
	{ "__be32", 4, false },
	{ "pid_t", 4, true },
	{ "long", LONG_SZ, true },
	{ "long int", LONG_SZ, true },
	{ "signed long", LONG_SZ, true },
	{ "unsigned long", LONG_SZ, false },
	{ "unsigned long int", LONG_SZ, false },
	{ "size_t", LONG_SZ, false },
	{ "ssize_t", LONG_SZ, true },
	{ "long long", 8, true },
	{ "long long int", 8, true },
	{ "unsigned long long", 8, false },
	{ "unsigned long long int", 8, false },
	{ "u64", 8, false },
	{ "s64", 8, true },
	{ "__u64", 8, false },
	{ "__s64", 8, true },
	{ "uint64_t", 8, false },
	{ "int64_t", 8, true },
	{ "__le64", 8, false },
	{ "__be64", 8, false },
	{ "loff_t", 8, true },
};

#undef LONG_SZ

static const struct ctype *ctype_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ctypes); i++)
		if (!strcmp(ctypes[i].name, name))
			return &ctypes[i];
	return NULL;
}

/* Words of a type that do not change its layout. */
static bool is_qualifier(const char *w, size_t n)
{
	static const char *const quals[] = { "const",	 "volatile", "restrict", "__user",
					     "__rcu",	 "__percpu", "__iomem",	 "__seg_gs",
					     "__seg_fs", "__force" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(quals); i++)
		if (strlen(quals[i]) == n && !strncmp(quals[i], w, n))
			return true;
	return false;
}

/* A field's declaration, taken apart. */
struct decl {
	char type[128];	  /* the type's words without qualifiers or '*': "unsigned char" */
	const char *name; /* in the line */
	const char *dim;  /* an array's length as written ("16", "TASK_COMM_LEN", ""), or NULL */
	bool ptr;	  /* the type (or the element type) is a pointer */
	bool odd;	  /* a bitfield or an array of arrays: shown as bytes */
	uint8_t loc;	  /* RC_FIELD_DATA_LOC, RC_FIELD_REL_LOC or 0 */
};

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* Qualifiers and '*' dropped, words joined by one space; false if it does not fit. */
static bool normalize_type(struct decl *d, const char *t, size_t tlen)
{
	const char *e = t + tlen;
	size_t len = 0, n;

	d->type[0] = '\0';
	while (t < e) {
		if (isspace((unsigned char)*t)) {
			t++;
			continue;
		}
		if (*t == '*') {
			d->ptr = true;
			t++;
			continue;
		}
		for (n = 0; t + n < e && !isspace((unsigned char)t[n]) && t[n] != '*'; n++)
			;
		if (!is_qualifier(t, n)) {
			if (len + !!len + n >= sizeof(d->type))
				return false;
			if (len)
				d->type[len++] = ' ';
			memcpy(d->type + len, t, n);
			len += n;
			d->type[len] = '\0';
		}
		t += n;
	}
	return true;
}

static size_t trim_len(const char *s, size_t len)
{
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return len;
}

static bool starts_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n) && isspace((unsigned char)s[n]);
}

/*
 * "TYPE NAME", "TYPE NAME[N]", "__data_loc TYPE[] NAME" or "__rel_loc TYPE[]
 * NAME", taken apart in place.
 */
static int parse_decl(struct parser *p, char *s, struct decl *d)
{
	char *name, *br, *rb, *colon;
	size_t len, tlen;

	memset(d, 0, sizeof(*d));
	s = trim(s);
	if (starts_word(s, "__data_loc")) {
		d->loc = RC_FIELD_DATA_LOC;
		s += strlen("__data_loc");
	} else if (starts_word(s, "__rel_loc")) {
		d->loc = RC_FIELD_REL_LOC;
		s += strlen("__rel_loc");
	} else if ((br = strchr(s, '['))) {
		rb = strchr(br, ']');
		if (!rb || (rb[1] && rb[1] != '['))
			return fail(p, -EINVAL, "malformed array in '%s'", s);
		if (rb[1]) /* "x[2][3]" */
			d->odd = true;
		*br = '\0';
		*rb = '\0';
		d->dim = trim(br + 1);
	}
	colon = strchr(s, ':');
	if (colon) { /* a bitfield: "int x:3" */
		*colon = '\0';
		d->odd = true;
	}
	len = trim_len(s, strlen(s));
	if (d->loc && len >= 2 && !strncmp(s + len - 2, "[]", 2)) /* "__data_loc char name[]" */
		len = trim_len(s, len - 2);
	s[len] = '\0';
	name = s + len;
	while (name > s && is_ident((unsigned char)name[-1]))
		name--;
	if (!*name || isdigit((unsigned char)*name))
		return fail(p, -EINVAL, "no field name in '%s'", s);
	if (strlen(name) > RC_MAX_NAME)
		return fail(p, -EINVAL, "field name longer than %d bytes", RC_MAX_NAME);
	d->name = name;
	tlen = trim_len(s, name - s);
	if (d->loc && tlen >= 2 && !strncmp(s + tlen - 2, "[]", 2))
		tlen -= 2;
	if (!normalize_type(d, s, tlen))
		d->odd = true; /* a type longer than any known: shown as bytes */
	else if (!d->type[0])
		return fail(p, -EINVAL, "field '%s' has no type", name);
	return 0;
}

/* ---- fields ----------------------------------------------------------- */

static bool is_int_size(unsigned long size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* What cannot be shown otherwise: @size bytes, in hex. */
static void as_bytes(struct rc_field *fld, unsigned long size)
{
	fld->kind = RC_FIELD_UINT;
	fld->size = 1;
	fld->count = size;
	fld->hint = RC_HINT_HEX;
}

static bool is_aggregate(const char *type)
{
	return !strncmp(type, "struct ", 7) || !strncmp(type, "union ", 6);
}

/* Bytes, or integers of a known type, that a hex dump shows best. */
static bool is_byte_type(const char *type)
{
	return !strcmp(type, "unsigned char") || !strcmp(type, "u8") || !strcmp(type, "__u8") ||
	       !strcmp(type, "uint8_t");
}

/* The element of a __data_loc or __rel_loc array: a string, integers or bytes. */
static void describe_loc(struct rc_field *fld, const struct decl *d)
{
	const struct ctype *ct = ctype_find(d->type);

	fld->kind = d->loc;
	fld->size = 1;
	fld->count = 1;
	fld->hint = RC_HINT_HEX;
	if (d->ptr) {
		fld->size = sizeof(void *);
	} else if (!strcmp(d->type, "char")) {
		fld->hint = RC_HINT_NONE; /* a string */
	} else if (!strcmp(d->type, "cpumask_t")) {
		fld->size = sizeof(long); /* __cpumask(): a bitmap, in unsigned longs */
	} else if (ct && !d->odd) {
		fld->size = ct->size;
		/* one byte with no hint is a string: signed bytes are shown in hex too */
		if (ct->is_signed && ct->size > 1)
			fld->hint = RC_HINT_NONE;
	}
	/* void, structs, unknown types: bytes */
}

/*
 * @fld for a field of @size bytes declared as @d; the kernel's size is
 * right whatever the type says.
 */
static void describe(struct rc_field *fld, const struct decl *d, unsigned long size, bool sgn)
{
	const struct ctype *ct = ctype_find(d->type);
	unsigned long n, elem;

	fld->count = 1;
	if (d->odd || (is_aggregate(d->type) && !d->ptr))
		return as_bytes(fld, size);
	if (!d->dim) {
		if (!is_int_size(size))
			return as_bytes(fld, size);
		fld->size = size;
		fld->kind =
		    sgn && !d->ptr && strcmp(d->type, "bool") ? RC_FIELD_SINT : RC_FIELD_UINT;
		fld->hint = d->ptr ? RC_HINT_HEX : RC_HINT_NONE;
		return;
	}
	if (!d->ptr && !strcmp(d->type, "char")) {
		fld->kind = RC_FIELD_STR;
		fld->size = size;
		return;
	}
	if (!parse_uint(d->dim, RC_REC_MAX, &n)) {
		elem = n && size % n == 0 ? size / n : 0;
	} else {
		/* a length the kernel printed as a macro: the type's size decides */
		elem = d->ptr ? sizeof(void *) : ct ? ct->size : 0;
		if (elem && size % elem)
			elem = 0;
	}
	if (!is_int_size(elem))
		return as_bytes(fld, size);
	fld->size = elem;
	fld->count = size / elem;
	fld->kind = sgn && !d->ptr && strcmp(d->type, "bool") ? RC_FIELD_SINT : RC_FIELD_UINT;
	fld->hint = d->ptr || is_byte_type(d->type) ? RC_HINT_HEX : RC_HINT_NONE;
}

static int add_field(struct parser *p, const struct decl *d, unsigned long off, unsigned long size,
		     bool sgn)
{
	struct rc_tpformat *f = p->f;
	struct rc_field *fld;
	uint16_t i;
	int err;

	for (i = 0; i < f->nfields; i++)
		if (!strcmp(f->fields[i].name, d->name))
			return fail(p, -EINVAL, "field '%s' named twice", d->name);
	if (f->nfields >= RC_MAX_FIELDS)
		return fail(p, -E2BIG, "more than %d fields", RC_MAX_FIELDS);
	err = rc_ensure_arr(&f->fields, &p->cap, f->nfields + 1, 16);
	if (err)
		return err;
	fld = &f->fields[f->nfields];
	memset(fld, 0, sizeof(*fld));
	fld->name = strdup(d->name);
	if (!fld->name)
		return -ENOMEM;
	f->nfields++;
	fld->offset = off + p->base;

	if (d->loc && size == 4 && f->nlocs < RC_TP_MAX_LOCS) {
		describe_loc(fld, d);
		f->loc_off[f->nlocs] = off;
		f->loc_rel[f->nlocs] = d->loc == RC_FIELD_REL_LOC;
		f->nlocs++;
	} else if (d->loc && size == 4) {
		/* the BPF program copies RC_TP_MAX_LOCS at most: show the others' loc word */
		pr_debug("tracepoint %s: more than %d variable-length fields, '%s' shown as its "
			 "location\n",
			 f->name ? f->name : "?", RC_TP_MAX_LOCS, d->name);
		fld->kind = RC_FIELD_UINT;
		fld->size = 4;
		fld->count = 1;
		fld->hint = RC_HINT_HEX;
	} else if (d->loc) {
		as_bytes(fld, size);
	} else {
		describe(fld, d, size, sgn);
	}
	return 0;
}

/* "field:DECL;	offset:O;	size:S;	signed:X;" */
static int parse_field(struct parser *p, const char *line, size_t len)
{
	unsigned long off = ULONG_MAX, size = ULONG_MAX, sgn = 0, v;
	char buf[MAX_FIELD_LINE], *decl, *part, *save = NULL;
	struct decl d;
	int err;

	if (len >= sizeof(buf))
		return fail(p, -EINVAL, "field line longer than %d bytes", MAX_FIELD_LINE - 1);
	memcpy(buf, line, len);
	buf[len] = '\0';
	decl = strtok_r(buf, ";", &save);
	decl = strchr(decl, ':') + 1; /* the caller saw "field:" or "field special:" */
	while ((part = strtok_r(NULL, ";", &save))) {
		unsigned long *to = NULL;
		char *val;

		part = trim(part);
		if (!*part)
			continue;
		val = strchr(part, ':');
		if (!val)
			return fail(p, -EINVAL, "'%s' is not 'key:value'", part);
		*val++ = '\0';
		if (!strcmp(part, "offset"))
			to = &off;
		else if (!strcmp(part, "size"))
			to = &size;
		else if (!strcmp(part, "signed"))
			to = &sgn;
		else
			continue; /* a key of a later kernel */
		if (parse_uint(trim(val), UINT32_MAX, &v))
			return fail(p, -EINVAL, "%s '%s' is not a number", part, trim(val));
		*to = v;
	}
	if (off == ULONG_MAX || size == ULONG_MAX)
		return fail(p, -EINVAL, "field without an offset and a size");
	err = parse_decl(p, decl, &d);
	if (err)
		return err;
	if (off + size > (unsigned long)RC_REC_MAX - p->base)
		return fail(
		    p, -EINVAL,
		    "field '%s' ends at %lu, beyond a record's %u bytes after a %u-byte header",
		    d.name, off + size, RC_REC_MAX - p->base, p->base);
	if (off + size > p->f->size)
		p->f->size = off + size;
	if (!strncmp(d.name, "common_", 7))
		return 0; /* the raw record's header */
	if (!size) {
		/* a flexible array ("unsigned long args[]"): nothing in the fixed part */
		pr_debug("field '%s' of no size left out\n", d.name);
		return 0;
	}
	return add_field(p, &d, off, size, sgn);
}

/* The text after "@key:" at the start of @line, trimmed, into @buf. */
static int line_value(struct parser *p, const char *line, size_t len, const char *key, char *buf,
		      size_t bufsz)
{
	size_t klen = strlen(key);
	char *v;

	if (len - klen >= bufsz)
		return fail(p, -EINVAL, "%s line too long", key);
	memcpy(buf, line + klen, len - klen);
	buf[len - klen] = '\0';
	v = trim(buf);
	memmove(buf, v, strlen(v) + 1);
	if (!*buf)
		return fail(p, -EINVAL, "empty %s line", key);
	return 0;
}

static bool has_prefix(const char *s, size_t len, const char *pfx)
{
	size_t n = strlen(pfx);

	return len >= n && !strncmp(s, pfx, n);
}

static int parse_text(struct parser *p, const char *text)
{
	struct rc_tpformat *f = p->f;
	bool in_format = false, seen_id = false;
	char buf[RC_MAX_NAME + 2];
	unsigned long id;
	const char *s, *e;
	size_t len;
	int err;

	for (s = text; *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, '\n');
		p->line++;
		while (s < e && isspace((unsigned char)*s))
			s++;
		len = trim_len(s, e - s);
		if (!len)
			continue;
		if (has_prefix(s, len, "print fmt:"))
			break;
		if (has_prefix(s, len, "field:") || has_prefix(s, len, "field special:")) {
			if (!in_format)
				return fail(p, -EINVAL, "field before the 'format:' line");
			err = parse_field(p, s, len);
			if (err)
				return err;
		} else if (in_format) {
			return fail(p, -EINVAL, "'%.*s' is not a field", (int)(len < 40 ? len : 40),
				    s);
		} else if (has_prefix(s, len, "name:")) {
			if (f->name)
				return fail(p, -EINVAL, "second name line");
			err = line_value(p, s, len, "name:", buf, sizeof(buf));
			if (err)
				return err;
			if (strlen(buf) > RC_MAX_NAME)
				return fail(p, -EINVAL, "name longer than %d bytes", RC_MAX_NAME);
			f->name = strdup(buf);
			if (!f->name)
				return -ENOMEM;
		} else if (has_prefix(s, len, "ID:")) {
			if (seen_id)
				return fail(p, -EINVAL, "second ID line");
			err = line_value(p, s, len, "ID:", buf, sizeof(buf));
			if (err)
				return err;
			if (parse_uint(buf, UINT32_MAX, &id) || !id)
				return fail(p, -EINVAL, "ID '%s' is not a number from 1", buf);
			f->id = id;
			seen_id = true;
		} else if (has_prefix(s, len, "format:")) {
			in_format = true;
		}
		/* other lines before the fields: not ours to read */
	}
	p->line = 0;
	if (!f->name)
		return fail(p, -EINVAL, "no 'name:' line: not a tracepoint format");
	if (!seen_id)
		return fail(p, -EINVAL, "no 'ID:' line: not a tracepoint format");
	if (!in_format)
		return fail(p, -EINVAL, "no 'format:' line: not a tracepoint format");
	return 0;
}

int rc_tpformat__parse(struct rc_tpformat *f, const char *text, uint16_t base, char *err,
		       size_t errlen)
{
	struct parser p = { .f = f, .base = base, .err = err, .errlen = errlen };
	size_t len = strnlen(text, RC_TP_MAX_TEXT + 1);
	int ret;

	memset(f, 0, sizeof(*f));
	if (err && errlen)
		err[0] = '\0';
	if (len > RC_TP_MAX_TEXT)
		return fail(&p, -E2BIG, "format text longer than %u bytes", RC_TP_MAX_TEXT);
	if (base > RC_REC_MAX)
		return fail(&p, -EINVAL, "a %u-byte header leaves no room in a record", base);
	ret = parse_text(&p, text);
	if (!ret) {
		f->text = strdup(text);
		if (!f->text)
			ret = -ENOMEM;
	}
	if (ret == -ENOMEM)
		fail(&p, ret, "out of memory");
	if (ret)
		rc_tpformat__free(f);
	return ret;
}

void rc_tpformat__free(struct rc_tpformat *f)
{
	uint16_t i;

	if (!f)
		return;
	for (i = 0; i < f->nfields; i++)
		free((char *)f->fields[i].name);
	free(f->fields);
	free(f->system);
	free(f->name);
	free(f->text);
	memset(f, 0, sizeof(*f));
}

int rc_tpformat__syscall_nargs(const char *text)
{
	const char *p = strstr(text, " __syscall_nr;");
	unsigned int off, size;
	int n = 0;

	/* the fields end at the print fmt: a text cut before it is not counted */
	if (!p || !strstr(p, "\nprint fmt:"))
		return -1;
	for (p = strchr(p, '\n'); p && !strncmp(p, "\n\tfield:", 8); p = strchr(p + 1, '\n')) {
		const char *type = p + 8, *semi = strchr(type, ';');

		/* "TYPE NAME;\toffset:O;\tsize:S;": a register's 8 bytes, next in line */
		if (!semi || !strncmp(type, "__data_loc", 10) || !strncmp(type, "__rel_loc", 9) ||
		    sscanf(semi, ";\toffset:%u;\tsize:%u;", &off, &size) != 2 || size != 8 ||
		    off != 16 + 8u * (unsigned int)n)
			break;
		if (++n > 6)
			return -1;
	}
	return n;
}
