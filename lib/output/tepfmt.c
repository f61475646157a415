// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracepoint records rendered by the kernel's print format through
 * libtraceevent (tepfmt.h), as perf script renders them: each source gets
 * a tep handle, fed the format notes of its events as their records come.
 *
 * libtraceevent trusts what it reads: a __data_loc's offset and length, a
 * field's offset, the length __print_hex() is given. Everything here comes
 * from a file, so before a record goes to it: the print format's arguments
 * are walked once, and a format whose reads cannot be bounded (a length or
 * an index taken from the record) is not used; each record's fields and
 * locations must lie inside it; and the record is copied into a buffer
 * with RC_TEP_PAD zero bytes after it, more than any bounded read can
 * reach past a field, so that strings end and lengths of up to 64 KiB stay
 * inside.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/tepfmt.h"

#ifdef HAVE_LIBTRACEEVENT
#include <event-parse.h>
#include <trace-seq.h>
#include "symbol/ksym.h"

#define RC_TEP_PAD     (1u << 20) /* zeros after a record: a bounded read's reach */
#define RC_TEP_MAX_LEN 65536u	  /* the largest constant length or count taken */
#define RC_TEP_DEPTH   32	  /* nesting of print arguments walked */
#define RC_TEP_NOTE_MAX 65536u	  /* a format note's length: the kernel's are a few KiB */
#define RC_TEP_NEST    64	  /* brackets nested in a print fmt: libtraceevent recurses */
#define RC_TEP_COMMON  8	  /* the common fields' bytes, as COMMON_FMT has them */

/*
 * The kernel's common fields. libtraceevent reads every record's type and
 * pid at the offsets of its first event's (the lowest ID parsed), found on
 * first use and kept: this format, of ID 0, is parsed first and those
 * offsets read once on a zeroed record, so that no format from the file
 * decides them; event_of() takes only formats whose common fields match.
 */
static const char COMMON_FMT[] =
	"name: ringcap_common\n"
	"ID: 0\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"type=%u\", REC->common_type\n";

static const struct {
	const char *name;
	int offset, size;
} COMMON_FIELDS[] = {
	{ "common_type", 0, 2 },
	{ "common_flags", 2, 1 },
	{ "common_preempt_count", 3, 1 },
	{ "common_pid", 4, 4 },
};

enum ev_state { EV_UNTRIED = 0, EV_READY, EV_NONE };

struct tep_src {
	const struct rc_meta *m; /* what the handle was made for */
	struct tep_handle *tep;
	uint32_t nevents; /* of m->schema, by index */
	struct tep_event **evs;
	uint8_t *state; /* enum ev_state */
	bool ksyms_tried;
	struct rc_ksyms *ksyms; /* this boot's, when the capture is of it */
};

struct rc_tepfmt {
	size_t nsrcs;
	struct tep_src *srcs;
	unsigned char *buf; /* a record's raw bytes, then zeros */
	size_t buf_cap;
	struct trace_seq seq;
};

struct rc_tepfmt *rc_tepfmt__new(size_t nsrcs)
{
	struct rc_tepfmt *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->srcs = calloc(nsrcs ? nsrcs : 1, sizeof(*t->srcs));
	if (!t->srcs) {
		free(t);
		return NULL;
	}
	t->nsrcs = nsrcs;
	trace_seq_init(&t->seq);
	/* lib/ prints nothing: libtraceevent's parse warnings would go to stderr */
	tep_set_loglevel(TEP_LOG_NONE);
	return t;
}

static void src_clear(struct tep_src *s)
{
	if (s->tep)
		tep_free(s->tep);
	free(s->evs);
	free(s->state);
	rc_ksyms__free(s->ksyms);
	memset(s, 0, sizeof(*s));
}

void rc_tepfmt__free(struct rc_tepfmt *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nsrcs; i++)
		src_clear(&t->srcs[i]);
	free(t->srcs);
	free(t->buf);
	trace_seq_destroy(&t->seq);
	free(t);
}

/* Whether @m was recorded in this boot: its boot id is this kernel's. */
static bool this_boot(const struct rc_meta *m)
{
	static const uint8_t zero[16];
	uint8_t id[16];
	char text[64], *p = text;
	FILE *f;
	int i;

	if (!m->has_run || !memcmp(m->run.boot_id, zero, sizeof(zero)))
		return false;
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (!f)
		return false;
	p = fgets(text, sizeof(text), f);
	fclose(f);
	for (i = 0; p && i < 16; i++) {
		unsigned int byte;

		if (*p == '-')
			p++;
		if (sscanf(p, "%2x", &byte) != 1)
			return false;
		id[i] = (uint8_t)byte;
		p += 2;
	}
	return p && !memcmp(id, m->run.boot_id, sizeof(id));
}

/* libtraceevent's function resolver (%ps, %pS): this boot's kallsyms */
static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct tep_src *s = priv;
	const struct rc_ksym *k;
	uint64_t off;

	if (!s->ksyms_tried) {
		s->ksyms_tried = true;
		if (this_boot(s->m))
			s->ksyms = rc_ksyms__load(NULL);
	}
	k = s->ksyms ? rc_ksyms__find(s->ksyms, *addrp, &off) : NULL;
	/* past the last symbol of a region: not a function (no sizes kept) */
	if (!k || off >= (1u << 20))
		return NULL;
	*addrp = k->addr;
	if (modp)
		*modp = k->dso && strcmp(k->dso, "[kernel.kallsyms]") ? (char *)k->dso : NULL;
	return (char *)k->name;
}

/* COMMON_FMT parsed, and the handle's common field offsets read from it for good. */
static bool common_prime(struct tep_handle *tep)
{
	static unsigned char zero[RC_TEP_COMMON];
	struct tep_record r = { .data = zero, .size = sizeof(zero) };
	struct tep_event *e = NULL;

	if (tep_parse_format(tep, &e, COMMON_FMT, sizeof(COMMON_FMT) - 1, "ringcap") || !e)
		return false;
	/* each caches its field's offset and size on first use: 0 when read */
	return tep_data_type(tep, &r) == 0 && tep_data_pid(tep, &r) == 0 &&
	       tep_data_flags(tep, &r) == 0 && tep_data_preempt_count(tep, &r) == 0;
}

/* Whether @e's common fields are COMMON_FMT's, where the handle reads them. */
static bool common_ok(struct tep_event *e)
{
	size_t i;

	for (i = 0; i < sizeof(COMMON_FIELDS) / sizeof(COMMON_FIELDS[0]); i++) {
		const struct tep_format_field *f = tep_find_common_field(e, COMMON_FIELDS[i].name);

		if (!f || f->offset != COMMON_FIELDS[i].offset ||
		    f->size != COMMON_FIELDS[i].size)
			return false;
	}
	return true;
}

/* a byte a format file of tracefs has: printable ASCII, a tab or a newline */
static bool text_byte(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n';
}

/*
 * Whether a format note is one libtraceevent can parse without crashing or
 * running out of stack: at most RC_TEP_NOTE_MAX bytes; text, but in the
 * print fmt's double-quoted strings (libtraceevent 1.7's tokenizer makes
 * a token with no string of another byte, which it then strcmp()s: a
 * field's type of "char[\x1d" crashed it, as the fuzzer found); and the
 * print fmt's brackets, '(' and '[' outside those strings, nested at most
 * RC_TEP_NEST deep.
 */
static bool note_ok(const char *text, size_t len)
{
	static const char key[] = "print fmt:";
	const char *p = NULL, *end = text + len;
	bool quoted = false;
	int depth = 0;
	size_t i;

	if (len > RC_TEP_NOTE_MAX)
		return false;
	for (i = 0; i + sizeof(key) - 1 <= len; i++)
		if (!memcmp(text + i, key, sizeof(key) - 1)) {
			p = text + i + sizeof(key) - 1;
			break;
		}
	for (i = 0; i < (size_t)((p ? p : end) - text); i++)
		if (!text_byte((unsigned char)text[i]))
			return false;
	for (; p && p < end; p++) {
		if (quoted) {
			if (*p == '\\' && p + 1 < end)
				p++;
			else if (*p == '"')
				quoted = false;
		} else if (!text_byte((unsigned char)*p)) {
			return false;
		} else if (*p == '"') {
			quoted = true;
		} else if (*p == '(' || *p == '[') {
			if (++depth > RC_TEP_NEST)
				return false;
		} else if ((*p == ')' || *p == ']') && depth) {
			depth--;
		}
	}
	return true;
}

/* Whether @fmt has no '*' width or precision, a length taken from the record. */
static bool fmt_ok(const char *fmt)
{
	const char *p;

	for (p = fmt ? strchr(fmt, '%') : NULL; p; p = strchr(p, '%')) {
		p++;
		if (*p == '%') {
			p++;
			continue;
		}
		for (; *p && strchr("-+ #0123456789.*lhzjtLq", *p); p++)
			if (*p == '*')
				return false;
	}
	return true;
}

static bool src_open(struct tep_src *s, const struct rc_meta *m)
{
	const char *arch = m->arch ? m->arch : "";

	src_clear(s);
	s->m = m;
	s->tep = tep_alloc();
	s->nevents = m->schema->nevents;
	s->evs = calloc(s->nevents ? s->nevents : 1, sizeof(*s->evs));
	s->state = calloc(s->nevents ? s->nevents : 1, sizeof(*s->state));
	if (!s->tep || !s->evs || !s->state) {
		src_clear(s);
		return false;
	}
	/* the capture's machine: longs of 8 bytes but on 32-bit ones; little-endian (format.h) */
	tep_set_long_size(s->tep, strstr(arch, "64") || !strcmp(arch, "s390x") || !arch[0] ? 8 : 4);
	tep_set_file_bigendian(s->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(s->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									       : TEP_LITTLE_ENDIAN);
	tep_set_function_resolver(s->tep, resolve, s);
	if (!common_prime(s->tep)) {
		src_clear(s);
		return false;
	}
	return true;
}

static bool arg_ok(const struct tep_print_arg *a, int depth);

/* A print argument's list (a function's arguments), each bounded. */
static bool args_ok(const struct tep_print_arg *a, int depth)
{
	for (; a; a = a->next)
		if (!arg_ok(a, depth))
			return false;
	return true;
}

/* A constant that is not 0: what '/' and '%' may divide by. */
static bool atom_nonzero(const struct tep_print_arg *a)
{
	return a && a->type == TEP_PRINT_ATOM && a->atom.atom &&
	       strtoull(a->atom.atom, NULL, 0) != 0;
}

/* A dynamic array or a field, whole: what __print_hex() and __print_array() read. */
static bool array_ok(const struct tep_print_arg *a)
{
	return a && (a->type == TEP_PRINT_FIELD ||
		     (a->type == TEP_PRINT_DYNAMIC_ARRAY && !a->dynarray.index));
}

/* A constant of at most @max. */
static bool atom_le(const struct tep_print_arg *a, unsigned long max)
{
	char *end;
	unsigned long v;

	if (!a || a->type != TEP_PRINT_ATOM || !a->atom.atom)
		return false;
	v = strtoul(a->atom.atom, &end, 0);
	return end != a->atom.atom && v <= max;
}

/*
 * A length or count whose value is bounded: a constant, a dynamic array's
 * length (checked against the record), or either divided by a constant.
 */
static bool len_ok(const struct tep_print_arg *a, int depth)
{
	if (!a || depth > RC_TEP_DEPTH)
		return false;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		return atom_le(a, RC_TEP_MAX_LEN);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return true;
	case TEP_PRINT_TYPE:
		return len_ok(a->typecast.item, depth + 1);
	case TEP_PRINT_OP:
		return a->op.op && !strcmp(a->op.op, "/") && len_ok(a->op.left, depth + 1) &&
		       atom_nonzero(a->op.right);
	default:
		return false;
	}
}

/* Whether what @a reads is bounded, for the checks of rc_tepfmt__render(). */
static bool arg_ok(const struct tep_print_arg *a, int depth)
{
	if (!a)
		return true;
	if (depth > RC_TEP_DEPTH)
		return false;
	switch (a->type) {
	case TEP_PRINT_NULL:
	case TEP_PRINT_ATOM:
	case TEP_PRINT_FIELD:
	case TEP_PRINT_STRING:
	case TEP_PRINT_BSTRING:
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return true; /* a field's bytes, or a location's: checked a record at a time */
	case TEP_PRINT_DYNAMIC_ARRAY:
		return !a->dynarray.index;
	case TEP_PRINT_FLAGS:
		return arg_ok(a->flags.field, depth + 1);
	case TEP_PRINT_SYMBOL:
		return arg_ok(a->symbol.field, depth + 1);
	case TEP_PRINT_TYPE:
		return arg_ok(a->typecast.item, depth + 1);
	case TEP_PRINT_OP:
		if (a->op.op && !strcmp(a->op.op, "[")) /* REC->array[N]: N a small constant */
			return a->op.left && a->op.left->type == TEP_PRINT_FIELD &&
			       atom_le(a->op.right, RC_TEP_MAX_LEN / 8);
		/* libtraceevent divides with no check: by a constant that is not 0 */
		if (a->op.op && (!strcmp(a->op.op, "/") || !strcmp(a->op.op, "%")) &&
		    !atom_nonzero(a->op.right))
			return false;
		return arg_ok(a->op.left, depth + 1) && arg_ok(a->op.right, depth + 1);
	case TEP_PRINT_FUNC:
		return args_ok(a->func.args, depth + 1);
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		return array_ok(a->hex.field) && len_ok(a->hex.size, depth + 1);
	case TEP_PRINT_INT_ARRAY:
		return array_ok(a->int_array.field) &&
		       len_ok(a->int_array.count, depth + 1) && atom_le(a->int_array.el_size, 8);
	default:
		return false;
	}
}

/* The event of @ev parsed from its format note; NULL: none, or not usable. */
static struct tep_event *event_of(struct tep_src *s, const struct rc_event_desc *ev)
{
	size_t i = (size_t)(ev - s->m->schema->events);
	const struct rc_note *note;
	struct tep_event *e = NULL;
	char sys[128];
	size_t n;

	if (i >= s->nevents)
		return NULL;
	if (s->state[i] != EV_UNTRIED)
		return s->evs[i];
	s->state[i] = EV_NONE;
	note = rc_meta__note(s->m, ev->id, "format");
	n = strcspn(ev->name, ":");
	if (!note || !note->len || !ev->name[n] || n >= sizeof(sys) ||
	    !note_ok(note->data, note->len))
		return NULL;
	memcpy(sys, ev->name, n);
	sys[n] = '\0';
	if (tep_parse_format(s->tep, &e, note->data, note->len, sys) || !e ||
	    (e->flags & TEP_EVENT_FL_FAILED) || !common_ok(e) || !fmt_ok(e->print_fmt.format) ||
	    !args_ok(e->print_fmt.args, 0))
		return NULL;
	s->evs[i] = e;
	s->state[i] = EV_READY;
	return e;
}

/* Every field of @list inside @size bytes of @data, and the data its locations name. */
static bool fields_in(const struct tep_format_field *f, const unsigned char *data, size_t size)
{
	for (; f; f = f->next) {
		uint32_t loc, off, len;

		if (f->offset < 0 || f->size < 0 || (size_t)f->offset + (size_t)f->size > size)
			return false;
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		if (f->size < (int)sizeof(loc))
			return false;
		memcpy(&loc, data + f->offset, sizeof(loc));
		loc = le32toh(loc); /* the file's order, as libtraceevent reads it */
		off = loc & 0xffff;
		len = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (uint32_t)f->offset + (uint32_t)f->size;
		if ((size_t)off + len > size)
			return false;
	}
	return true;
}

bool rc_tepfmt__render(struct rc_tepfmt *t, size_t src, const struct rc_meta *m,
		       const struct rc_event_desc *ev, const struct rc_rec_hdr *rec,
		       struct rc_strbuf *sb)
{
	struct tep_record r = { 0 };
	struct tep_src *s;
	struct tep_event *e;
	size_t size;
	bool ok;

	if (!t || src >= t->nsrcs || rec->size <= sizeof(*rec))
		return false;
	s = &t->srcs[src];
	if (s->m != m && !src_open(s, m))
		return false;
	e = event_of(s, ev);
	if (!e)
		return false;
	size = rec->size - sizeof(*rec);
	if (!t->buf) {
		t->buf_cap = RC_REC_MAX + RC_TEP_PAD;
		t->buf = calloc(1, t->buf_cap);
		if (!t->buf)
			return false;
	}
	if (size > RC_REC_MAX)
		return false;
	memcpy(t->buf, (const unsigned char *)rec + sizeof(*rec), size);
	r.data = t->buf;
	r.size = (int)size;
	r.cpu = rec->cpu;
	r.ts = rec->ts;
	ok = size >= RC_TEP_COMMON && fields_in(e->format.common_fields, t->buf, size) &&
	     fields_in(e->format.fields, t->buf, size) && tep_find_event_by_record(s->tep, &r) == e;
	if (ok) {
		trace_seq_reset(&t->seq);
		tep_print_event(s->tep, &t->seq, &r, "%s", TEP_PRINT_INFO);
		ok = t->seq.state == TRACE_SEQ__GOOD && t->seq.len;
		if (ok)
			rc_strbuf__put(sb, t->seq.buffer, t->seq.len);
	}
	memset(t->buf, 0, size); /* zeros again after the next, shorter, record */
	return ok;
}

#else /* !HAVE_LIBTRACEEVENT */

struct rc_tepfmt *rc_tepfmt__new(size_t nsrcs)
{
	errno = EOPNOTSUPP;
	return NULL;
}

bool rc_tepfmt__render(struct rc_tepfmt *t, size_t src, const struct rc_meta *m,
		       const struct rc_event_desc *ev, const struct rc_rec_hdr *rec,
		       struct rc_strbuf *sb)
{
	return false;
}

void rc_tepfmt__free(struct rc_tepfmt *t)
{
}

#endif /* HAVE_LIBTRACEEVENT */
