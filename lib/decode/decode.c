// SPDX-License-Identifier: GPL-2.0-only
/*
 * Records as text, from the schema stored in the capture: names for enum
 * values, -ENAME for failed returns, durations with units, strings with
 * anything unprintable escaped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
#include "decode/decode.h"
#include "decode/value.h"

static const char hexdig[] = "0123456789abcdef";

/* What a string shows as is: printable ASCII but the backslash. */
static inline bool plain_char(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\';
}

/* At most @max bytes of @s, to a NUL: runs of plain bytes at once, any other as \xNN. */
static int put_escaped(struct rc_strbuf *sb, const char *s, size_t max)
{
	size_t i = 0, j;
	int err = 0;

	while (i < max && s[i] && !err) {
		for (j = i; j < max && s[j] && plain_char(s[j]); j++)
			;
		if (j > i) {
			err = rc_strbuf__put(sb, s + i, j - i);
			i = j;
			continue;
		}
		err = rc_strbuf__put(sb, (char[]){ '\\', 'x', hexdig[(unsigned char)s[i] >> 4],
						      hexdig[s[i] & 0xf] },
					4);
		i++;
	}
	return err;
}

static int put_duration(struct rc_strbuf *sb, uint64_t ns)
{
	if (ns < 1000)
		return rc_strbuf__put_u64(sb, ns) ?: rc_strbuf__put(sb, "ns", 2);
	/*
	 * "%.3f" of ns / 1e3 is exactly the integer's digits: the quotient's
	 * error (2^-53 of it) is far below the half-unit of the 3rd decimal.
	 * Not so for ms and s, whose decimals stop before the ns: printf's
	 * rounding, of the double, stays theirs.
	 */
	if (ns < 1000000)
		return rc_strbuf__put_u64(sb, ns / 1000) ?: rc_strbuf__put(sb, ".", 1) ?:
		       rc_strbuf__put_u64_0(sb, ns % 1000, 3) ?: rc_strbuf__put(sb, "us", 2);
	if (ns < 1000000000)
		return rc_strbuf__printf(sb, "%.3fms", ns / 1e6);
	return rc_strbuf__printf(sb, "%.6fs", ns / 1e9);
}

static int put_value(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *f,
		     const void *rec, unsigned int idx)
{
	struct rc_value v;

	rc_field__value(s, f, rec, idx, &v);
	if (v.kind == RC_FIELD_STR)
		return put_escaped(sb, v.str, v.len);
	if (f->hint == RC_HINT_HEX)
		return rc_strbuf__put(sb, "0x", 2) ?: rc_strbuf__put_hex(sb, v.u);
	if (v.name)
		return rc_strbuf__put(sb, v.name, strlen(v.name));
	if (v.err)
		return rc_strbuf__put(sb, "-", 1) ?: rc_strbuf__put(sb, v.err, strlen(v.err));
	if (f->hint == RC_HINT_NSEC)
		return put_duration(sb, v.u);
	if (v.kind == RC_FIELD_SINT)
		return rc_strbuf__put_s64(sb, v.s);
	return rc_strbuf__put_u64(sb, v.u);
}

int rc_decode__field(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *fld,
		     const void *rec)
{
	const struct rc_field *f = fld;
	struct rc_field plain;
	unsigned int i, n;
	int err;

	if (rc_field__resolve(fld, rec, &plain))
		return rc_strbuf__put(sb, "<bad location>", 14);
	f = &plain;
	if (f->count == 1)
		return put_value(sb, s, f, rec, 0);
	n = rc_field__count(s, f, rec);
	err = rc_strbuf__put(sb, "[", 1);
	for (i = 0; i < n && !err; i++) {
		if (i)
			err = rc_strbuf__put(sb, ",", 1);
		err = err ?: put_value(sb, s, f, rec, i);
	}
	return err ?: rc_strbuf__put(sb, "]", 1);
}

bool rc_meta__wall_ns(const struct rc_meta *m, uint64_t ts, int64_t *wall)
{
	/* both come from the file: any value, so no arithmetic that can overflow */
	return ts <= INT64_MAX && !__builtin_add_overflow((int64_t)ts, m->wall_offset_ns, wall) &&
	       *wall >= 0;
}

bool rc_meta__from_wall_ns(const struct rc_meta *m, int64_t wall, uint64_t *ts)
{
	int64_t t;

	if (__builtin_sub_overflow(wall, m->wall_offset_ns, &t))
		return false;
	*ts = t > 0 ? (uint64_t)t : 0;
	return true;
}

static int put_time(struct rc_strbuf *sb, const struct rc_meta *m, uint64_t ts, unsigned int flags)
{
	int64_t rel = (int64_t)(ts - m->start_ts);
	uint64_t mag = rel < 0 ? -(uint64_t)rel : (uint64_t)rel;
	struct tm tm;
	char buf[32];
	time_t secs;
	int64_t wall;

	/* relative, also when the file's wall-clock offset puts @ts out of range */
	if (!(flags & RC_FMT_WALL) || !rc_meta__wall_ns(m, ts, &wall))
		return (rel < 0 ? rc_strbuf__put(sb, "-", 1) : 0) ?:
		       rc_strbuf__put_u64(sb, mag / 1000000000) ?: rc_strbuf__put(sb, ".", 1) ?:
		       rc_strbuf__put_u64_0(sb, mag % 1000000000, 9);
	secs = wall / 1000000000;
	if (!localtime_r(&secs, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		return rc_strbuf__printf(sb, "%" PRId64, wall);
	return rc_strbuf__printf(sb, "%s.%09" PRId64, buf, wall % 1000000000);
}

/* @s right-aligned in @width columns (or left-aligned: @left), as "%*s" / "%-*s" */
static char *put_col(char *p, const char *s, size_t n, size_t width, bool left)
{
	size_t pad = n < width ? width - n : 0;

	if (!left) {
		memset(p, ' ', pad);
		p += pad;
	}
	memcpy(p, s, n);
	p += n;
	if (left) {
		memset(p, ' ', pad);
		p += pad;
	}
	return p;
}

/*
 * "COMM PID/TID [CPU] ", "-" for what the record does not know (@no:
 * RC_EVENT_NO_*), as "%16s %7s/%-7s [%s] " printed it: comm's unprintable
 * bytes as '?', the CPU as "%03u".
 */
static int put_task(struct rc_strbuf *sb, const struct rc_rec_hdr *rec, unsigned int no)
{
	char comm[sizeof(rec->comm)], num[20], *d, *p;
	size_t n;

	/* 16 + 1 + 10 + 1 + 10 + 2 + 10 + 2 at the most */
	p = rc_strbuf__room(sb, 64);
	if (!p)
		return -ENOMEM;
	for (n = 0; n < sizeof(rec->comm) && rec->comm[n]; n++)
		comm[n] = (unsigned char)rec->comm[n] >= 0x20 && (unsigned char)rec->comm[n] < 0x7f
				  ? rec->comm[n]
				  : '?';
	p = put_col(p, comm, n, 16, false);
	*p++ = ' ';
	if (no & RC_EVENT_NO_PID) {
		p = put_col(p, "-", 1, 7, false);
	} else {
		d = rc_fmt_u64(num + sizeof(num), rec->pid);
		p = put_col(p, d, num + sizeof(num) - d, 7, false);
	}
	*p++ = '/';
	if (no & RC_EVENT_NO_TID) {
		p = put_col(p, "-", 1, 7, true);
	} else {
		d = rc_fmt_u64(num + sizeof(num), rec->tid);
		p = put_col(p, d, num + sizeof(num) - d, 7, true);
	}
	*p++ = ' ';
	*p++ = '[';
	if (no & RC_EVENT_NO_CPU) {
		memcpy(p, "  -", 3);
		p += 3;
	} else {
		d = rc_fmt_u64(num + sizeof(num), rec->cpu);
		while (num + sizeof(num) - d < 3)
			*--d = '0';
		memcpy(p, d, num + sizeof(num) - d);
		p += num + sizeof(num) - d;
	}
	*p++ = ']';
	*p++ = ' ';
	rc_strbuf__commit(sb, p - (sb->buf + sb->len));
	return 0;
}

int rc_decode__event_text(struct rc_strbuf *sb, const struct rc_meta *m,
			  const struct rc_event_desc *ev, const struct rc_rec_hdr *rec,
			  unsigned int flags)
{
	const char *name = ev ? ev->name : "unknown";
	uint16_t i;
	int err;

	err = put_task(sb, rec, ev ? ev->flags : 0);
	err = err ?: put_time(sb, m, rec->ts, flags);
	err = err ?: rc_strbuf__put(sb, ": ", 2);
	err = err ?: rc_strbuf__put(sb, name, strlen(name));
	err = err ?: rc_strbuf__put(sb, ":", 1);
	for (i = 0; ev && i < ev->nfields && !err; i++) {
		const char *fname = ev->fields[i].name;
		size_t n = strlen(fname);
		char *p = rc_strbuf__room(sb, n + 2);

		if (!p)
			return -ENOMEM;
		p[0] = ' ';
		memcpy(p + 1, fname, n);
		p[n + 1] = '=';
		rc_strbuf__commit(sb, n + 2);
		err = rc_decode__field(sb, m->schema, &ev->fields[i], rec);
	}
	return err;
}

int rc_decode__text(struct rc_strbuf *sb, const struct rc_meta *m, const struct rc_rec_hdr *rec,
		    unsigned int flags)
{
	return rc_decode__event_text(sb, m, rc_schema__event(m->schema, rec->type), rec, flags);
}
