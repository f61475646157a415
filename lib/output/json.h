/* SPDX-License-Identifier: GPL-2.0-only */
/* A small streaming JSON writer: keys in order, strings always escaped. */
#ifndef RINGCAP_OUTPUT_JSON_H
#define RINGCAP_OUTPUT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "util/strbuf.h"

#define RC_JSON_MAX_DEPTH 16

struct rc_json {
	FILE *f;
	int depth;
	bool first[RC_JSON_MAX_DEPTH];
};

/* @key is NULL for a value in an array or the top-level value. */
void rc_json__begin_object(struct rc_json *j, const char *key);
void rc_json__end_object(struct rc_json *j);
void rc_json__begin_array(struct rc_json *j, const char *key);
void rc_json__end_array(struct rc_json *j);
void rc_json__u64(struct rc_json *j, const char *key, uint64_t v);
/* @v with @places decimals, never in exponent form: a time in seconds from ns takes 9 */
void rc_json__fixed(struct rc_json *j, const char *key, double v, int places);
/* @ns nanoseconds as seconds with 9 decimals, exactly: a wall time too */
void rc_json__seconds(struct rc_json *j, const char *key, int64_t ns);
void rc_json__bool(struct rc_json *j, const char *key, bool v);
void rc_json__string(struct rc_json *j, const char *key, const char *s);
/* Append @s (at most @max bytes, or to its NUL) to @sb as a JSON string. */
void rc_json__escape(struct rc_strbuf *sb, const char *s, size_t max);

#endif
