/* SPDX-License-Identifier: GPL-2.0-only */
/* A small streaming JSON writer: keys in order, strings always escaped. */
#ifndef RINGCAP_JSON_H
#define RINGCAP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "ringcap.h"

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
};

/* @key is NULL for a value in an array or the top-level value. */
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
/* @v with @places decimals, never in exponent form: a time in seconds from ns takes 9 */
void json_fixed(struct json *j, const char *key, double v, int places);
/* @ns nanoseconds as seconds with 9 decimals, exactly: a wall time too */
void json_seconds(struct json *j, const char *key, int64_t ns);
void json_bool(struct json *j, const char *key, bool v);
void json_string(struct json *j, const char *key, const char *s);
/* Append @s (at most @max bytes, or to its NUL) to @sb as a JSON string. */
void json_escape(struct rc_strbuf *sb, const char *s, size_t max);

#endif
