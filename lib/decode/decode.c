// SPDX-License-Identifier: GPL-2.0-only
/*
 * Records as text, from the schema stored in the capture: names for enum
 * values, -ENAME for failed returns, durations with units, strings with
 * anything unprintable escaped.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
#include "decode/decode.h"
#include "decode/value.h"

static int put_escaped(struct rc_strbuf *sb, const char *s, size_t max)
{
	size_t i;
	int err = 0;

	for (i = 0; i < max && s[i] && !err; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			err = rc_strbuf__append(sb, &s[i], 1);
		else
			err = rc_strbuf__printf(sb, "\\x%02x", c);
	}
	return err;
}

static int put_duration(struct rc_strbuf *sb, uint64_t ns)
{
	if (ns < 1000)
		return rc_strbuf__printf(sb, "%" PRIu64 "ns", ns);
	if (ns < 1000000)
		return rc_strbuf__printf(sb, "%.3fus", ns / 1e3);
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
		return rc_strbuf__printf(sb, "0x%" PRIx64, v.u);
	if (v.name)
		return rc_strbuf__printf(sb, "%s", v.name);
	if (v.err)
		return rc_strbuf__printf(sb, "-%s", v.err);
	if (f->hint == RC_HINT_NSEC)
		return put_duration(sb, v.u);
	if (v.kind == RC_FIELD_SINT)
		return rc_strbuf__printf(sb, "%" PRId64, v.s);
	return rc_strbuf__printf(sb, "%" PRIu64, v.u);
}

int rc_decode__field(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *fld,
		     const void *rec)
{
	const struct rc_field *f = fld;
	struct rc_field plain;
	unsigned int i;
	int err;

	if (rc_field__resolve(fld, rec, &plain))
		return rc_strbuf__printf(sb, "<bad location>");
	f = &plain;
	if (f->count == 1)
		return put_value(sb, s, f, rec, 0);
	err = rc_strbuf__append(sb, "[", 1);
	for (i = 0; i < f->count && !err; i++) {
		if (i)
			err = rc_strbuf__append(sb, ",", 1);
		err = err ?: put_value(sb, s, f, rec, i);
	}
	return err ?: rc_strbuf__append(sb, "]", 1);
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
	const char *sign = rel < 0 ? "-" : "";
	uint64_t mag = rel < 0 ? -(uint64_t)rel : (uint64_t)rel;
	struct tm tm;
	char buf[32];
	time_t secs;
	int64_t wall;

	/* relative, also when the file's wall-clock offset puts @ts out of range */
	if (!(flags & RC_FMT_WALL) || !rc_meta__wall_ns(m, ts, &wall))
		return rc_strbuf__printf(sb, "%s%" PRIu64 ".%09" PRIu64, sign, mag / 1000000000,
					 mag % 1000000000);
	secs = wall / 1000000000;
	if (!localtime_r(&secs, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		return rc_strbuf__printf(sb, "%" PRId64, wall);
	return rc_strbuf__printf(sb, "%s.%09" PRId64, buf, wall % 1000000000);
}

/* comm as a column: unprintable bytes shown as '?' */
static void comm_column(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++)
		dst[i] =
		    (unsigned char)src[i] >= 0x20 && (unsigned char)src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

/* "COMM PID/TID [CPU] ", "-" for what the record does not know (@no: RC_EVENT_NO_*) */
static int put_task(struct rc_strbuf *sb, const struct rc_rec_hdr *rec, unsigned int no)
{
	char comm[sizeof(rec->comm) + 1], pid[12] = "-", tid[12] = "-", cpu[8] = "  -";

	comm_column(comm, rec->comm, sizeof(rec->comm));
	if (!(no & RC_EVENT_NO_PID))
		snprintf(pid, sizeof(pid), "%u", rec->pid);
	if (!(no & RC_EVENT_NO_TID))
		snprintf(tid, sizeof(tid), "%u", rec->tid);
	if (!(no & RC_EVENT_NO_CPU))
		snprintf(cpu, sizeof(cpu), "%03u", rec->cpu);
	return rc_strbuf__printf(sb, "%16s %7s/%-7s [%s] ", comm, pid, tid, cpu);
}

int rc_decode__text(struct rc_strbuf *sb, const struct rc_meta *m, const struct rc_rec_hdr *rec,
		    unsigned int flags)
{
	const struct rc_event_desc *ev = rc_schema__event(m->schema, rec->type);
	uint16_t i;
	int err;

	err = put_task(sb, rec, ev ? ev->flags : 0);
	err = err ?: put_time(sb, m, rec->ts, flags);
	err = err ?: rc_strbuf__printf(sb, ": %s:", ev ? ev->name : "unknown");
	for (i = 0; ev && i < ev->nfields && !err; i++) {
		err = rc_strbuf__printf(sb, " %s=", ev->fields[i].name);
		err = err ?: rc_decode__field(sb, m->schema, &ev->fields[i], rec);
	}
	return err;
}
