// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <string.h>
#include "output/json.h"

/* Length of the valid UTF-8 sequence at @p, ending by @end (not overlong, no surrogates), or 0. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
	uint32_t c;
	int n, i;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		n = 2;
		c = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3;
		c = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 4;
		c = p[0] & 0x07;
	} else {
		return 0;
	}
	if (end - p < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

void rc_json__escape(struct rc_strbuf *sb, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strnlen(s, max), *q;
	char esc[8];
	int n;

	rc_strbuf__put(sb, "\"", 1);
	while (p < end) {
		/* a run of printable ASCII that needs no escape, at once */
		for (q = p; q < end && *q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\'; q++)
			;
		if (q > p) {
			rc_strbuf__put(sb, p, q - p);
			p = q;
			continue;
		}
		n = utf8_len(p, end);
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = *p;
			rc_strbuf__put(sb, esc, 2);
		} else if (*p < 0x20 || *p == 0x7f || !n) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			rc_strbuf__put(sb, esc, 6);
		} else {
			rc_strbuf__put(sb, p, n);
			p += n;
			continue;
		}
		p++;
	}
	rc_strbuf__put(sb, "\"", 1);
}

/* Valid UTF-8 passes through; any other byte is shown as \u00XX (Latin-1). */
static void put_string(FILE *f, const char *s)
{
	struct rc_strbuf sb = {};

	rc_json__escape(&sb, s, SIZE_MAX);
	if (sb.buf)
		fputs(sb.buf, f);
	rc_strbuf__free(&sb);
}

/*
 * Nesting past RC_JSON_MAX_DEPTH is not kept (ringcap's writers nest at
 * most four deep): no array index past its end, whatever a caller does.
 */
static void sep(struct rc_json *j, const char *key)
{
	if (j->depth > 0 && j->depth <= RC_JSON_MAX_DEPTH) {
		if (!j->first[j->depth - 1])
			fputc(',', j->f);
		j->first[j->depth - 1] = false;
	}
	if (key) {
		put_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open_(struct rc_json *j, const char *key, char c)
{
	sep(j, key);
	fputc(c, j->f);
	if (j->depth < RC_JSON_MAX_DEPTH)
		j->first[j->depth] = true;
	j->depth++;
}

static void close_(struct rc_json *j, char c)
{
	fputc(c, j->f);
	j->depth--;
	if (!j->depth)
		fputc('\n', j->f);
}

void rc_json__begin_object(struct rc_json *j, const char *key)
{
	open_(j, key, '{');
}

void rc_json__end_object(struct rc_json *j)
{
	close_(j, '}');
}

void rc_json__begin_array(struct rc_json *j, const char *key)
{
	open_(j, key, '[');
}

void rc_json__end_array(struct rc_json *j)
{
	close_(j, ']');
}

void rc_json__put_u64(struct rc_strbuf *sb, uint64_t v)
{
	if (v <= RC_JSON_SAFE_INT) {
		rc_strbuf__put_u64(sb, v);
		return;
	}
	rc_strbuf__put(sb, "\"", 1);
	rc_strbuf__put_u64(sb, v);
	rc_strbuf__put(sb, "\"", 1);
}

void rc_json__put_s64(struct rc_strbuf *sb, int64_t v)
{
	if (v >= -(int64_t)RC_JSON_SAFE_INT && v <= (int64_t)RC_JSON_SAFE_INT) {
		rc_strbuf__put_s64(sb, v);
		return;
	}
	rc_strbuf__put(sb, "\"", 1);
	rc_strbuf__put_s64(sb, v);
	rc_strbuf__put(sb, "\"", 1);
}

void rc_json__u64(struct rc_json *j, const char *key, uint64_t v)
{
	sep(j, key);
	fprintf(j->f, v <= RC_JSON_SAFE_INT ? "%llu" : "\"%llu\"", (unsigned long long)v);
}

void rc_json__fixed(struct rc_json *j, const char *key, double v, int places)
{
	sep(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*f", places, v);
	else
		fputs("null", j->f);
}

void rc_json__seconds(struct rc_json *j, const char *key, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	sep(j, key);
	fprintf(j->f, "%s%llu.%09llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000000000),
		(unsigned long long)(a % 1000000000));
}

void rc_json__bool(struct rc_json *j, const char *key, bool v)
{
	sep(j, key);
	fputs(v ? "true" : "false", j->f);
}

void rc_json__string(struct rc_json *j, const char *key, const char *s)
{
	sep(j, key);
	put_string(j->f, s ? s : "");
}
