// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file header block: magic, version, then sections (INFO, HOST,
 * KERNEL, ARCH, CMDLINE, ENUM, EVENT, NOTE, RUN). Serialised by the writer, parsed
 * here for the reader with every length and offset checked before use.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "format/format.h"
#include "format/header.h"
#include "format/schema_int.h"
#include "util/util.h"

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
bool rc_fuzz_check_crc;
#endif

uint32_t rc_block_crc(uint32_t type, const void *payload, size_t len)
{
	uLong crc = crc32(0, (const Bytef *)&type, sizeof(type));

	return crc32(crc, payload, len);
}

int rc_put_str16(struct rc_strbuf *sb, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > UINT16_MAX)
		n = UINT16_MAX;
	return rc_put_u16(sb, n) ?: rc_strbuf__append(sb, s, n);
}

static int begin_section(struct rc_strbuf *sb, uint16_t id, size_t *start)
{
	int err = rc_put_u16(sb, id) ?: rc_put_u16(sb, 0) ?: rc_put_u32(sb, 0);

	*start = sb->len;
	return err;
}

static void end_section(struct rc_strbuf *sb, size_t start)
{
	uint32_t len = sb->len - start;

	memcpy(sb->buf + start - 4, &len, 4);
}

static int put_string_section(struct rc_strbuf *sb, uint16_t id, const char *s)
{
	size_t start;
	int err = begin_section(sb, id, &start);

	err = err ?: rc_strbuf__append(sb, s ? s : "", s ? strlen(s) : 0);
	end_section(sb, start);
	return err;
}

static int put_enum(struct rc_strbuf *sb, const struct rc_enum *e)
{
	size_t start;
	uint32_t i;
	int err = begin_section(sb, RC_SEC_ENUM, &start);

	err = err ?: rc_put_u16(sb, e->id);
	err = err ?: rc_put_str16(sb, e->name);
	err = err ?: rc_put_u32(sb, e->cnt);
	for (i = 0; !err && i < e->cnt; i++)
		err = rc_put_u64(sb, e->entries[i].value) ?: rc_put_str16(sb, e->entries[i].name);
	end_section(sb, start);
	return err;
}

static int put_note(struct rc_strbuf *sb, const struct rc_note *n)
{
	size_t start;
	int err = begin_section(sb, RC_SEC_NOTE, &start);

	err = err ?: rc_put_u16(sb, n->event_id) ?: rc_put_str16(sb, n->key);
	err = err ?: rc_put_u32(sb, n->len) ?: rc_strbuf__append(sb, n->data, n->len);
	end_section(sb, start);
	return err;
}

static int put_event(struct rc_strbuf *sb, const struct rc_event_desc *ev)
{
	size_t start;
	uint16_t i;
	int err = begin_section(sb, RC_SEC_EVENT, &start);

	err = err ?: rc_put_u16(sb, ev->id) ?: rc_put_u16(sb, ev->size);
	err = err ?: rc_put_str16(sb, ev->name) ?: rc_put_u16(sb, ev->nfields);
	for (i = 0; !err && i < ev->nfields; i++) {
		const struct rc_field *f = &ev->fields[i];

		err = rc_put_str16(sb, f->name) ?: rc_put_u16(sb, f->offset) ?:
		      rc_put_u16(sb, f->size) ?: rc_put_u16(sb, f->count);
		err = err ?: rc_strbuf__append(sb, &f->kind, 1) ?: rc_strbuf__append(sb, &f->hint, 1);
		err = err ?: rc_put_u16(sb, f->enum_id);
	}
	err = err ?: rc_put_u16(sb, ev->flags); /* v1.5 */
	end_section(sb, start);
	return err;
}

int rc_format__header(struct rc_strbuf *sb, const struct rc_meta *m)
{
	struct rc_disk_info info = {
		.clock_id = m->clock_id,
		.ncpus = m->ncpus,
		.page_size = m->page_size,
		.recorder_pid = m->recorder_pid,
		.start_ts = m->start_ts,
		.wall_offset_ns = m->wall_offset_ns,
		.ringbuf_size = m->ringbuf_size,
		.transport = m->transport,
		.flags = m->flags,
	};
	struct rc_disk_run run = {
		.seq = m->run.seq ? m->run.seq : 1,
		.flags = m->run.flags,
		.run_start_ts = m->run.start_ts,
	};
	size_t start;
	uint32_t i;
	int err;

	memcpy(run.run_id, m->run.id, sizeof(run.run_id));
	memcpy(run.boot_id, m->run.boot_id, sizeof(run.boot_id));
	err = rc_strbuf__append(sb, RC_FILE_MAGIC, 8);
	err = err ?: rc_put_u16(sb, RC_VERSION_MAJOR) ?: rc_put_u16(sb, RC_VERSION_MINOR);
	err = err ?: rc_put_u32(sb, 0);
	err = err ?: begin_section(sb, RC_SEC_INFO, &start);
	err = err ?: rc_strbuf__append(sb, &info, sizeof(info));
	if (!err)
		end_section(sb, start);
	err = err ?: put_string_section(sb, RC_SEC_HOST, m->host);
	err = err ?: put_string_section(sb, RC_SEC_KERNEL, m->kernel);
	err = err ?: put_string_section(sb, RC_SEC_ARCH, m->arch);
	err = err ?: put_string_section(sb, RC_SEC_CMDLINE, m->cmdline);
	for (i = 0; !err && i < m->schema->nenums; i++)
		err = put_enum(sb, &m->schema->enums[i]);
	for (i = 0; !err && i < m->schema->nevents; i++)
		err = put_event(sb, &m->schema->events[i]);
	for (i = 0; !err && i < m->nnotes; i++)
		err = put_note(sb, &m->notes[i]);
	err = err ?: begin_section(sb, RC_SEC_RUN, &start);
	err = err ?: rc_strbuf__append(sb, &run, sizeof(run));
	if (!err)
		end_section(sb, start);
	return err;
}

/* ---- parsing ---------------------------------------------------------- */

struct cursor {
	const unsigned char *p;
	size_t left;
	char *err;
	size_t errlen;
};

static int bad(struct cursor *c, const char *what)
{
	snprintf(c->err, c->errlen, "corrupt header: %s", what);
	return -EBADMSG;
}

static int take(struct cursor *c, void *dst, size_t n, const char *what)
{
	if (c->left < n)
		return bad(c, what);
	memcpy(dst, c->p, n);
	c->p += n;
	c->left -= n;
	return 0;
}

static int take_u16(struct cursor *c, uint16_t *v, const char *what)
{
	return take(c, v, 2, what);
}

/* A u16-length string, copied into a new NUL-terminated allocation. */
static int take_str16(struct cursor *c, char **out, const char *what)
{
	uint16_t n;
	int err = take_u16(c, &n, what);

	if (err)
		return err;
	if (n > c->left || n > RC_MAX_NAME)
		return bad(c, what);
	*out = strndup((const char *)c->p, n);
	if (!*out)
		return -ENOMEM;
	c->p += n;
	c->left -= n;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct rc_enum_entry *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

static int parse_enum(struct rc_parsed_header *h, struct cursor *c)
{
	struct rc_enum_entry *entries = NULL;
	struct rc_enum *e, *arr;
	uint32_t i, cnt;
	int err;

	if (h->schema.nenums >= 256)
		return bad(c, "too many enums");
	arr = realloc((void *)h->schema.enums, (h->schema.nenums + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	h->schema.enums = arr;
	e = &arr[h->schema.nenums];
	memset(e, 0, sizeof(*e));
	h->schema.nenums++;
	err = take_u16(c, &e->id, "enum id");
	err = err ?: take_str16(c, (char **)&e->name, "enum name");
	err = err ?: take(c, &cnt, 4, "enum count");
	if (err)
		return err;
	/* each entry takes at least 10 bytes: refuse counts the section cannot hold */
	if (cnt > c->left / 10)
		return bad(c, "enum count larger than its section");
	entries = calloc(cnt ? cnt : 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	e->entries = entries;
	for (i = 0; i < cnt; i++) {
		err = take(c, &entries[i].value, 8, "enum value");
		err = err ?: take_str16(c, (char **)&entries[i].name, "enum entry name");
		if (err)
			return err;
		e->cnt++;
	}
	qsort(entries, e->cnt, sizeof(*entries), cmp_entry);
	return 0;
}

static int check_field(struct cursor *c, const struct rc_field *f, uint16_t evsize)
{
	size_t end;

	switch (f->kind) {
	case RC_FIELD_UINT:
	case RC_FIELD_SINT:
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
			return bad(c, "integer field of a size other than 1, 2, 4 or 8");
		break;
	case RC_FIELD_STR:
		if (f->count != 1 || !f->size)
			return bad(c, "string field with a count or no size");
		break;
	case RC_FIELD_DATA_LOC:
	case RC_FIELD_REL_LOC:
		if (f->count != 1 || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			return bad(c, "variable-length field with a count or a bad element size");
		if (f->hint != RC_HINT_NONE && f->hint != RC_HINT_HEX)
			return bad(c, "variable-length field with a hint other than none or hex");
		/*
		 * The record must hold the u32 that locates the data; read as an
		 * integer, such a field is that u32 (rc_field__u64()).
		 */
		if ((size_t)f->offset + 4 > evsize)
			return bad(c, "field beyond the end of its event");
		return 0;
	default:
		return bad(c, "field of unknown kind");
	}
	if (!f->count)
		return bad(c, "field with no elements");
	end = (size_t)f->offset + (size_t)f->size * f->count;
	if (end > evsize)
		return bad(c, "field beyond the end of its event");
	return 0;
}

static int parse_event(struct rc_parsed_header *h, struct cursor *c)
{
	struct rc_event_desc *ev, *arr;
	struct rc_field *fields;
	uint16_t i, n;
	int err;

	if (h->schema.nevents > RC_MAX_EVENT_ID)
		return bad(c, "too many events");
	arr = realloc((void *)h->schema.events, (h->schema.nevents + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	h->schema.events = arr;
	ev = &arr[h->schema.nevents];
	memset(ev, 0, sizeof(*ev));
	h->schema.nevents++;
	err = take_u16(c, &ev->id, "event id") ?: take_u16(c, &ev->size, "event size");
	err = err ?: take_str16(c, (char **)&ev->name, "event name");
	err = err ?: take_u16(c, &n, "field count");
	if (err)
		return err;
	if (!ev->id || ev->id > RC_MAX_EVENT_ID)
		return bad(c, "event id out of range");
	if (h->by_id[ev->id])
		return bad(c, "event id described twice");
	if (ev->size < sizeof(struct rc_rec_hdr) || ev->size > RC_REC_MAX)
		return bad(c, "event size out of range");
	if (n > RC_MAX_FIELDS || n > c->left / 12)
		return bad(c, "field count out of range");
	fields = calloc(n ? n : 1, sizeof(*fields));
	if (!fields)
		return -ENOMEM;
	ev->fields = fields;
	for (i = 0; i < n; i++) {
		struct rc_field *f = &fields[i];

		err = take_str16(c, (char **)&f->name, "field name");
		if (err)
			return err;
		ev->nfields++;
		err =
		    take_u16(c, &f->offset, "field offset") ?: take_u16(c, &f->size, "field size");
		err = err ?: take_u16(c, &f->count, "field count");
		err = err ?: take(c, &f->kind, 1, "field kind") ?: take(c, &f->hint, 1, "field hint");
		err = err ?: take_u16(c, &f->enum_id, "field enum");
		err = err ?: check_field(c, f, ev->size);
		if (err)
			return err;
	}
	/* v1.5: the event's flags; absent before (0), and what follows them is a later minor's */
	if (c->left >= sizeof(ev->flags))
		take_u16(c, &ev->flags, "event flags");
	h->by_id[ev->id] = (uint16_t)h->schema.nevents;
	return 0;
}

static int parse_note(struct rc_parsed_header *h, struct cursor *c)
{
	struct rc_meta *m = &h->meta;
	struct rc_note *arr, *n;
	uint32_t len;
	void *data;
	int err;

	if (m->nnotes >= RC_MAX_NOTES)
		return bad(c, "too many notes");
	arr = realloc((void *)m->notes, (m->nnotes + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	m->notes = arr;
	n = &arr[m->nnotes];
	memset(n, 0, sizeof(*n));
	m->nnotes++;
	err = take_u16(c, &n->event_id, "note event id");
	err = err ?: take_str16(c, (char **)&n->key, "note key");
	err = err ?: take(c, &len, 4, "note length");
	if (err)
		return err;
	if (len > c->left)
		return bad(c, "note longer than its section");
	/* one more byte, a NUL, so that text notes can be used as strings */
	data = malloc((size_t)len + 1);
	if (!data)
		return -ENOMEM;
	memcpy(data, c->p, len);
	((char *)data)[len] = '\0';
	n->data = data;
	n->len = len;
	c->p += len;
	c->left -= len;
	return 0;
}

static int cmp_ft_id(const void *a, const void *b)
{
	const struct rc_ft_id *x = a, *y = b;

	return x->ftrace_id < y->ftrace_id ? -1 : x->ftrace_id > y->ftrace_id;
}

/*
 * The ftrace id of each event the kernel's ring gives (v1.4): "ftrace_id"
 * notes, a u32 each, about events the header describes; sorted for the
 * FTRACE chunk decoder, an ftrace id at most once.
 */
static int build_ft_ids(struct rc_parsed_header *h, struct cursor *c)
{
	const struct rc_meta *m = &h->meta;
	struct rc_ft_id *ids;
	uint32_t i, n = 0;

	for (i = 0; i < m->nnotes; i++)
		n += !strcmp(m->notes[i].key, "ftrace_id");
	if (!n)
		return 0;
	ids = calloc(n, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	h->ft_ids.ids = ids;
	for (i = 0; i < m->nnotes; i++) {
		const struct rc_note *note = &m->notes[i];

		if (strcmp(note->key, "ftrace_id"))
			continue;
		if (note->len != sizeof(uint32_t))
			return bad(c, "ftrace_id note of a size other than 4");
		if (note->event_id > RC_MAX_EVENT_ID || !h->by_id[note->event_id])
			return bad(c, "ftrace_id note about an event the header does not describe");
		memcpy(&ids[h->ft_ids.n].ftrace_id, note->data, sizeof(uint32_t));
		ids[h->ft_ids.n++].rc_id = note->event_id;
	}
	qsort(ids, n, sizeof(*ids), cmp_ft_id);
	for (i = 1; i < n; i++)
		if (ids[i].ftrace_id == ids[i - 1].ftrace_id)
			return bad(c, "ftrace id given to two events");
	return 0;
}

/* NUL-terminated copy of a section; a string of a capture is only shown. */
static int section_string(struct cursor *c, uint32_t len, const char **out)
{
	char *s;

	if (*out)
		return bad(c, "string section repeated");
	s = strndup((const char *)c->p, len);
	if (!s)
		return -ENOMEM;
	*out = s;
	return 0;
}

static int parse_section(struct rc_parsed_header *h, uint16_t id, struct cursor *sc, bool *info)
{
	struct rc_meta *m = &h->meta;
	struct rc_disk_info di;
	struct rc_disk_run dr;

	switch (id) {
	case RC_SEC_INFO:
		if (sc->left < sizeof(di))
			return bad(sc, "INFO section too short");
		memcpy(&di, sc->p, sizeof(di));
		if (!di.ncpus || di.ncpus > RC_MAX_CPUS)
			return bad(sc, "CPU count out of range");
		m->clock_id = di.clock_id;
		m->ncpus = di.ncpus;
		m->page_size = di.page_size;
		m->recorder_pid = di.recorder_pid;
		m->start_ts = di.start_ts;
		m->wall_offset_ns = di.wall_offset_ns;
		m->ringbuf_size = di.ringbuf_size;
		m->transport = di.transport;
		m->flags = di.flags;
		*info = true;
		return 0;
	case RC_SEC_HOST:
		return section_string(sc, sc->left, &m->host);
	case RC_SEC_KERNEL:
		return section_string(sc, sc->left, &m->kernel);
	case RC_SEC_ARCH:
		return section_string(sc, sc->left, &m->arch);
	case RC_SEC_CMDLINE:
		return section_string(sc, sc->left, &m->cmdline);
	case RC_SEC_ENUM:
		return parse_enum(h, sc);
	case RC_SEC_EVENT:
		return parse_event(h, sc);
	case RC_SEC_NOTE:
		return parse_note(h, sc);
	case RC_SEC_RUN:
		if (m->has_run)
			return bad(sc, "RUN section repeated");
		if (sc->left < sizeof(dr))
			return bad(sc, "RUN section too short");
		memcpy(&dr, sc->p, sizeof(dr));
		if (!dr.seq)
			return bad(sc, "RUN section with sequence number 0");
		memcpy(m->run.id, dr.run_id, sizeof(m->run.id));
		memcpy(m->run.boot_id, dr.boot_id, sizeof(m->run.boot_id));
		m->run.seq = dr.seq;
		m->run.flags = dr.flags;
		m->run.start_ts = dr.run_start_ts;
		m->has_run = true;
		return 0; /* what follows is a later minor's */
	default:
		return 0; /* a section a newer minor version added: skip it */
	}
}

int rc_parse_header(struct rc_parsed_header *h, const void *buf, size_t len, char *err,
		    size_t errlen)
{
	struct cursor c = { buf, len, err, errlen };
	uint16_t major, minor;
	bool info = false;
	char magic[8];
	uint32_t flags;
	int ret;

	if (take(&c, magic, 8, "no magic") || memcmp(magic, RC_FILE_MAGIC, 8)) {
		snprintf(err, errlen, "not a ringcap capture (bad magic)");
		return -EBADMSG;
	}
	ret = take_u16(&c, &major, "version") ?: take_u16(&c, &minor, "version");
	ret = ret ?: take(&c, &flags, 4, "flags");
	if (ret)
		return ret;
	if (major != RC_VERSION_MAJOR) {
		snprintf(err, errlen,
			 "capture format version %u.%u is not one this ringcap reads (%u.x): "
			 "use a ringcap that matches the recorder",
			 major, minor, RC_VERSION_MAJOR);
		return -EPROTONOSUPPORT;
	}
	h->meta.version_major = major;
	h->meta.version_minor = minor;
	while (c.left) {
		uint16_t id, rsv;
		uint32_t slen;
		struct cursor sc;

		ret = take_u16(&c, &id, "section id") ?: take_u16(&c, &rsv, "section id");
		ret = ret ?: take(&c, &slen, 4, "section length");
		if (ret)
			return ret;
		if (slen > c.left)
			return bad(&c, "section longer than the header");
		sc = (struct cursor){ c.p, slen, err, errlen };
		ret = parse_section(h, id, &sc, &info);
		if (ret)
			return ret;
		c.p += slen;
		c.left -= slen;
	}
	if (!info)
		return bad(&c, "no INFO section");
	h->meta.schema = &h->schema;
	return build_ft_ids(h, &c);
}

void rc_parsed_header__free(struct rc_parsed_header *h)
{
	uint32_t i;

	rc_schema__clear(&h->schema);
	for (i = 0; i < h->meta.nnotes; i++) {
		free((void *)h->meta.notes[i].key);
		free((void *)h->meta.notes[i].data);
	}
	free((void *)h->meta.notes);
	free((void *)h->meta.host);
	free((void *)h->meta.kernel);
	free((void *)h->meta.arch);
	free((void *)h->meta.cmdline);
	free((void *)h->ft_ids.ids);
	memset(h, 0, sizeof(*h));
}
