/* SPDX-License-Identifier: GPL-2.0-only */
/* A small streaming JSON writer: keys in order, strings always escaped. */
#ifndef RINGCAP_OUTPUT_JSON_H
#define RINGCAP_OUTPUT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "util/strbuf.h"

#define RC_JSON_MAX_DEPTH 16 /* the deepest nesting of objects and arrays it keeps */

/*
 * The largest integer a JSON reader that parses numbers as doubles
 * (JavaScript's JSON.parse, jq) reads back exactly: 2^53 - 1. Integers of
 * a larger magnitude are written as their decimal digits in a string
 * ("18446744071585004935"), so that every reader gets them exactly; see
 * ringcap-report(1), "JSON numbers".
 */
#define RC_JSON_SAFE_INT ((1ULL << 53) - 1)

/**
 * struct rc_json - a JSON document being written to a file
 * @f: where it goes; set it, with the rest zeroed, before the first call
 * @depth: objects and arrays open
 * @first: per level: nothing is in it yet (no comma before the next)
 *
 * Each call writes at once to @f; its errors stay in ferror(@f), for the
 * caller to check at the end. A @key is NULL for a value in an array or
 * for the top-level value; the top-level value ends with a newline.
 */
struct rc_json {
	FILE *f;
	int depth;
	bool first[RC_JSON_MAX_DEPTH];
};

/**
 * rc_json__begin_object() - open an object
 * @j: the document
 * @key: its key in the object around it, or NULL
 */
void rc_json__begin_object(struct rc_json *j, const char *key);

/**
 * rc_json__end_object() - close the object last opened
 * @j: the document
 */
void rc_json__end_object(struct rc_json *j);

/**
 * rc_json__begin_array() - open an array
 * @j: the document
 * @key: its key in the object around it, or NULL
 */
void rc_json__begin_array(struct rc_json *j, const char *key);

/**
 * rc_json__end_array() - close the array last opened
 * @j: the document
 */
void rc_json__end_array(struct rc_json *j);

/**
 * rc_json__u64() - an unsigned number
 * @j: the document
 * @key: its key, or NULL
 * @v: the number; a string of its digits above RC_JSON_SAFE_INT
 */
void rc_json__u64(struct rc_json *j, const char *key, uint64_t v);

/**
 * rc_json__fixed() - a number with a fixed count of decimals
 * @j: the document
 * @key: its key, or NULL
 * @v: the number, never written in exponent form
 * @places: the decimals: a time in seconds from ns takes 9
 */
void rc_json__fixed(struct rc_json *j, const char *key, double v, int places);

/**
 * rc_json__seconds() - nanoseconds as seconds with 9 decimals, exactly
 * @j: the document
 * @key: its key, or NULL
 * @ns: the nanoseconds; a wall time too
 */
void rc_json__seconds(struct rc_json *j, const char *key, int64_t ns);

/**
 * rc_json__bool() - true or false
 * @j: the document
 * @key: its key, or NULL
 * @v: the value
 */
void rc_json__bool(struct rc_json *j, const char *key, bool v);

/**
 * rc_json__string() - a string, escaped
 * @j: the document
 * @key: its key, or NULL
 * @s: the string, to its NUL
 */
void rc_json__string(struct rc_json *j, const char *key, const char *s);

/**
 * rc_json__escape() - append a string to a buffer as a JSON string
 * @sb: the buffer
 * @s: the string
 * @max: at most this many bytes of @s, or to its NUL
 *
 * Quoted; '"' and '\\' escaped, and control characters and bytes that are
 * not valid UTF-8 written as \u00XX (as Latin-1).
 */
void rc_json__escape(struct rc_strbuf *sb, const char *s, size_t max);

/**
 * rc_json__put_u64() - append an unsigned integer to a buffer as JSON
 * @sb: the buffer
 * @v: the integer: a number up to RC_JSON_SAFE_INT, a string of its
 *     decimal digits above it
 */
void rc_json__put_u64(struct rc_strbuf *sb, uint64_t v);

/**
 * rc_json__put_s64() - append a signed integer to a buffer as JSON
 * @sb: the buffer
 * @v: the integer: a number within +-RC_JSON_SAFE_INT, a string of its
 *     decimal digits (with its sign) beyond
 */
void rc_json__put_s64(struct rc_strbuf *sb, int64_t v);

#endif /* RINGCAP_OUTPUT_JSON_H */
