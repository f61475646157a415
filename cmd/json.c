// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include "json.h"

static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p); /* bytes as Latin-1: always valid JSON */
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void sep(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth - 1])
			fputc(',', j->f);
		j->first[j->depth - 1] = false;
	}
	if (key) {
		put_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	sep(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH)
		j->first[j->depth] = true;
	j->depth++;
}

static void close_(struct json *j, char c)
{
	fputc(c, j->f);
	j->depth--;
	if (!j->depth)
		fputc('\n', j->f);
}

void json_begin_object(struct json *j, const char *key)
{
	open_(j, key, '{');
}

void json_end_object(struct json *j)
{
	close_(j, '}');
}

void json_begin_array(struct json *j, const char *key)
{
	open_(j, key, '[');
}

void json_end_array(struct json *j)
{
	close_(j, ']');
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	sep(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_double(struct json *j, const char *key, double v)
{
	sep(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	sep(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_string(struct json *j, const char *key, const char *s)
{
	sep(j, key);
	put_string(j->f, s ? s : "");
}
