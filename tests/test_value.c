// SPDX-License-Identifier: GPL-2.0-only
/*
 * The value formatter (lib/decode/value.h): a field's kind, number and
 * names, read once, as text, JSON and CSV all show them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "decode/decode.h"
#include "decode/value.h"
#include "test_progs.h"

struct value_rec {
	struct rc_rec_hdr h;
	int64_t ret;
	uint32_t nr;
	uint32_t flags[2];
	char name[8];
};

static const struct rc_enum_entry errnos[] = { { 2, "ENOENT" } };
static const struct rc_enum_entry calls[] = { { 0, "read" }, { 1, "write" } };
static const struct rc_enum enums[] = {
	{ .id = 1, .name = "errno", .cnt = 1, .entries = errnos },
	{ .id = 2, .name = "syscall", .cnt = 2, .entries = calls },
};
static const struct rc_field fields[] = {
	{ "ret", offsetof(struct value_rec, ret), 8, 1, RC_FIELD_SINT, RC_HINT_ERRNO, 1 },
	{ "nr", offsetof(struct value_rec, nr), 4, 1, RC_FIELD_UINT, RC_HINT_ENUM, 2 },
	{ "flags", offsetof(struct value_rec, flags), 4, 2, RC_FIELD_UINT, RC_HINT_HEX, 0 },
	{ "name", offsetof(struct value_rec, name), 8, 1, RC_FIELD_STR, RC_HINT_NONE, 0 },
};
static const struct rc_event_desc events[] = {
	{ .id = 300,
	  .size = sizeof(struct value_rec),
	  .name = "v",
	  .nfields = 4,
	  .fields = fields },
};
static const struct rc_schema schema = { 1, events, 2, enums };

static void field_text(const struct value_rec *r, int f, const char *want, const char *name)
{
	struct rc_strbuf sb = {};

	ASSERT_OK(rc_decode__field(&sb, &schema, &fields[f], r), "rc_decode__field");
	ASSERT_STREQ(sb.buf ? sb.buf : "", want, name);
	rc_strbuf__free(&sb);
}

void test_decode_value(void)
{
	struct value_rec r = { .h = { .type = 300, .size = sizeof(r) },
			       .ret = -2,
			       .nr = 1,
			       .flags = { 0x10, 0xff },
			       .name = "cat" };
	struct rc_value v;

	rc_field__value(&schema, &fields[0], &r, 0, &v);
	ASSERT_EQ(v.kind, RC_FIELD_SINT, "errno kind");
	ASSERT_EQ(v.s, -2, "errno value");
	ASSERT_STREQ(v.err ? v.err : "", "ENOENT", "errno name");
	ASSERT_TRUE(!v.name, "errno is no enum name");
	rc_field__value(&schema, &fields[1], &r, 0, &v);
	ASSERT_EQ(v.u, 1, "enum value");
	ASSERT_STREQ(v.name ? v.name : "", "write", "enum name");
	rc_field__value(&schema, &fields[2], &r, 1, &v);
	ASSERT_EQ(v.u, 0xff, "array element");
	ASSERT_TRUE(!v.name && !v.err, "hex has no names");
	rc_field__value(&schema, &fields[3], &r, 0, &v);
	ASSERT_EQ(v.kind, RC_FIELD_STR, "string kind");
	ASSERT_EQ(v.len, 8, "string size");
	ASSERT_STREQ(v.str, "cat", "string");
	/* as text: the one formatter behind each */
	field_text(&r, 0, "-ENOENT", "text errno");
	field_text(&r, 1, "write", "text enum");
	field_text(&r, 2, "[0x10,0xff]", "text hex array");
	field_text(&r, 3, "cat", "text string");
	r.ret = 5; /* a success: a number, no name */
	rc_field__value(&schema, &fields[0], &r, 0, &v);
	ASSERT_TRUE(!v.err, "no errno name for 5");
	field_text(&r, 0, "5", "text success");
	r.nr = 7; /* a value its enum does not name */
	rc_field__value(&schema, &fields[1], &r, 0, &v);
	ASSERT_TRUE(!v.name, "unnamed enum value");
	field_text(&r, 1, "7", "text unnamed");
}

/*
 * The inline read (value.h) reads what rc_field__u64() and rc_field__s64()
 * read, for every size and kind, high bits set or not, and each element
 * of an array.
 */
void test_decode_value_read(void)
{
	static const uint8_t kinds[] = { RC_FIELD_UINT, RC_FIELD_SINT, RC_FIELD_DATA_LOC,
					 RC_FIELD_REL_LOC };
	unsigned char rec[sizeof(struct rc_rec_hdr) + 64];
	unsigned int size, k, idx, i, pat;
	char name[64];

	for (pat = 0; pat < 3; pat++) {
		for (i = 0; i < sizeof(rec); i++) /* 0x80.., 0x7f.., mixed */
			rec[i] = pat == 0 ? 0x80 | i : pat == 1 ? 0x7f : (uint8_t)(i * 37 + 1);
		for (k = 0; k < sizeof(kinds); k++) {
			for (size = 0; size <= 9; size++) {
				for (idx = 0; idx < 3; idx++) {
					struct rc_field f = { "x", sizeof(struct rc_rec_hdr), size,
							      3, kinds[k], RC_HINT_NONE, 0 };
					struct rc_value v;

					rc_field__value(&schema, &f, rec, idx, &v);
					snprintf(name, sizeof(name), "pat %u kind %u size %u idx %u",
						 pat, kinds[k], size, idx);
					if (!ASSERT_EQ(v.u, rc_field__u64(&f, rec, idx), name) ||
					    !ASSERT_EQ(v.s, rc_field__s64(&f, rec, idx), name))
						return;
					ASSERT_TRUE(v.kind == kinds[k] && !v.name && !v.err &&
							!v.str && !v.len,
						    name);
				}
			}
		}
	}
}
