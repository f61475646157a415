// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/capture/bpf/btfdesc.c: a BTF struct as an event schema (BTF built in
 * memory), and const volatile globals set in a real object
 * (tests/bpf/globals.bpf.c, built into $RC_TEST_BPF_DIR, by default tests/bpf/
 * of the build directory).
 */
#include <errno.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "capture/bpf/btfdesc.h"
#include "capture_util.h"
#include "run_util.h"
#include "test_progs.h"

#define HDR	((uint16_t)sizeof(struct rc_rec_hdr))
#define ENUM0	10
#define EV_SIZE 168
#define EV_ID	100
#define F_UINT	RC_FIELD_UINT
#define F_SINT	RC_FIELD_SINT
#define F_STR	RC_FIELD_STR
#define H_NONE	RC_HINT_NONE
#define H_HEX	RC_HINT_HEX
#define H_ENUM	RC_HINT_ENUM

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * struct inner { __u32 a; short b; };
 * struct pt { __u16 x, y; };
 * enum color { RED, GREEN, BLUE };
 * enum errs { E_OK = 0, E_BIG = 7, E_NEG = -5 };
 * typedef unsigned long long ts_t;
 * struct ev {
 *	struct inner in;		  0
 *	__u32 vals[4];			  8
 *	char name[16];			 24
 *	enum color col;			 40
 *	_Bool flag;			 44
 *	__u8 bytes[3];			 45
 *	void *ptr;			 48
 *	struct pt pts[2];		 56
 *	int sv;				 64
 *	const volatile __u32 cv;	 68
 *	ts_t ts;			 72
 *	float fl;			 80
 *	__u32 f1 : 3, f2 : 5, f3 : 8, f4 : 4;	 84
 *	union { __u32 ua; __u16 ub; };	 88
 *	union un { __u64 x; __u32 y; } un;	 96
 *	enum errs e2;			104
 *	enum color col2;		108
 *	char grid[2][4];		112
 *	__u16 mat[2][3];		120
 *	unsigned __int128 big;		144
 *	struct { __u32 anon_a; };	160
 * };					168
 */
static struct btf *make_btf(void)
{
	int u32, s16, chr, bln, uchar, u8, s32, u64, ts_t, u16, flt, i128, ptr, cv, color, errs;
	int inner, pt, anon_u, un, anon_s, a_vals, a_name, a_bytes, a_pts, a_grid1, a_grid, a_mat1,
	    a_mat, ev, err = 0;
	struct btf *btf = btf__new_empty();

	if (!btf)
		return NULL;
	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	s16 = btf__add_int(btf, "short", 2, BTF_INT_SIGNED);
	chr = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	bln = btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL);
	uchar = btf__add_int(btf, "unsigned char", 1, 0);
	u8 = btf__add_typedef(btf, "__u8", uchar);
	s32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	u64 = btf__add_int(btf, "unsigned long long", 8, 0);
	ts_t = btf__add_typedef(btf, "ts_t", u64);
	u16 = btf__add_int(btf, "unsigned short", 2, 0);
	flt = btf__add_float(btf, "float", 4);
	i128 = btf__add_int(btf, "unsigned __int128", 16, 0);
	ptr = btf__add_ptr(btf, 0);
	cv = btf__add_const(btf, btf__add_volatile(btf, u32));

	color = btf__add_enum(btf, "color", 4);
	err = err ?: btf__add_enum_value(btf, "RED", 0);
	err = err ?: btf__add_enum_value(btf, "GREEN", 1);
	err = err ?: btf__add_enum_value(btf, "BLUE", 2);
	errs = btf__add_enum(btf, "errs", 4);
	err = err ?: btf__add_enum_value(btf, "E_OK", 0);
	err = err ?: btf__add_enum_value(btf, "E_BIG", 7);
	err = err ?: btf__add_enum_value(btf, "E_NEG", -5);

	inner = btf__add_struct(btf, "inner", 8);
	err = err ?: btf__add_field(btf, "a", u32, 0, 0);
	err = err ?: btf__add_field(btf, "b", s16, 32, 0);
	pt = btf__add_struct(btf, "pt", 4);
	err = err ?: btf__add_field(btf, "x", u16, 0, 0);
	err = err ?: btf__add_field(btf, "y", u16, 16, 0);
	anon_u = btf__add_union(btf, NULL, 4);
	err = err ?: btf__add_field(btf, "ua", u32, 0, 0);
	err = err ?: btf__add_field(btf, "ub", u16, 0, 0);
	un = btf__add_union(btf, "un", 8);
	err = err ?: btf__add_field(btf, "x", u64, 0, 0);
	err = err ?: btf__add_field(btf, "y", u32, 0, 0);
	anon_s = btf__add_struct(btf, NULL, 4);
	err = err ?: btf__add_field(btf, "anon_a", u32, 0, 0);

	a_vals = btf__add_array(btf, u32, u32, 4);
	a_name = btf__add_array(btf, u32, chr, 16);
	a_bytes = btf__add_array(btf, u32, u8, 3);
	a_pts = btf__add_array(btf, u32, pt, 2);
	a_grid1 = btf__add_array(btf, u32, chr, 4);
	a_grid = btf__add_array(btf, u32, a_grid1, 2);
	a_mat1 = btf__add_array(btf, u32, u16, 3);
	a_mat = btf__add_array(btf, u32, a_mat1, 2);

	ev = btf__add_struct(btf, "ev", EV_SIZE);
	err = err ?: btf__add_field(btf, "in", inner, 0, 0);
	err = err ?: btf__add_field(btf, "vals", a_vals, 8 * 8, 0);
	err = err ?: btf__add_field(btf, "name", a_name, 24 * 8, 0);
	err = err ?: btf__add_field(btf, "col", color, 40 * 8, 0);
	err = err ?: btf__add_field(btf, "flag", bln, 44 * 8, 0);
	err = err ?: btf__add_field(btf, "bytes", a_bytes, 45 * 8, 0);
	err = err ?: btf__add_field(btf, "ptr", ptr, 48 * 8, 0);
	err = err ?: btf__add_field(btf, "pts", a_pts, 56 * 8, 0);
	err = err ?: btf__add_field(btf, "sv", s32, 64 * 8, 0);
	err = err ?: btf__add_field(btf, "cv", cv, 68 * 8, 0);
	err = err ?: btf__add_field(btf, "ts", ts_t, 72 * 8, 0);
	err = err ?: btf__add_field(btf, "fl", flt, 80 * 8, 0);
	err = err ?: btf__add_field(btf, "f1", u32, 84 * 8, 3);
	err = err ?: btf__add_field(btf, "f2", u32, 84 * 8 + 3, 5);
	err = err ?: btf__add_field(btf, "f3", u32, 85 * 8, 8);
	err = err ?: btf__add_field(btf, "f4", u32, 86 * 8, 4);
	err = err ?: btf__add_field(btf, NULL, anon_u, 88 * 8, 0);
	err = err ?: btf__add_field(btf, "un", un, 96 * 8, 0);
	err = err ?: btf__add_field(btf, "e2", errs, 104 * 8, 0);
	err = err ?: btf__add_field(btf, "col2", color, 108 * 8, 0);
	err = err ?: btf__add_field(btf, "grid", a_grid, 112 * 8, 0);
	err = err ?: btf__add_field(btf, "mat", a_mat, 120 * 8, 0);
	err = err ?: btf__add_field(btf, "big", i128, 144 * 8, 0);
	err = err ?: btf__add_field(btf, NULL, anon_s, 160 * 8, 0);
	err = err ?: btf__add_typedef(btf, "ev_t", ev) < 0;
	err = err ?: btf__add_union(btf, "just_a_union", 4) < 0;
	if (err || s32 < 0 || u64 < 0 || i128 < 0 || ptr < 0 || cv < 0 || flt < 0 || ev < 0) {
		btf__free(btf);
		errno = EINVAL;
		return NULL;
	}
	return btf;
}

struct want {
	const char *name;
	uint16_t offset, size, count;
	uint8_t kind, hint;
	uint16_t enum_id;
};

static const struct want want_fields[] = {
	{ "in.a", HDR + 0, 4, 1, F_UINT, H_NONE, 0 },
	{ "in.b", HDR + 4, 2, 1, F_SINT, H_NONE, 0 },
	{ "vals", HDR + 8, 4, 4, F_UINT, H_NONE, 0 },
	{ "name", HDR + 24, 16, 1, F_STR, H_NONE, 0 },
	{ "col", HDR + 40, 4, 1, F_UINT, H_ENUM, ENUM0 },
	{ "flag", HDR + 44, 1, 1, F_UINT, H_NONE, 0 },
	{ "bytes", HDR + 45, 1, 3, F_UINT, H_NONE, 0 }, /* __u8[]: bytes, not text */
	{ "ptr", HDR + 48, 8, 1, F_UINT, H_HEX, 0 },
	{ "pts[0].x", HDR + 56, 2, 1, F_UINT, H_NONE, 0 },
	{ "pts[0].y", HDR + 58, 2, 1, F_UINT, H_NONE, 0 },
	{ "pts[1].x", HDR + 60, 2, 1, F_UINT, H_NONE, 0 },
	{ "pts[1].y", HDR + 62, 2, 1, F_UINT, H_NONE, 0 },
	{ "sv", HDR + 64, 4, 1, F_SINT, H_NONE, 0 },
	{ "cv", HDR + 68, 4, 1, F_UINT, H_NONE, 0 },
	{ "ts", HDR + 72, 8, 1, F_UINT, H_NONE, 0 },
	{ "fl", HDR + 80, 1, 4, F_UINT, H_HEX, 0 },
	{ "f1|f2", HDR + 84, 1, 1, F_UINT, H_HEX, 0 },
	{ "f3", HDR + 85, 1, 1, F_UINT, H_NONE, 0 }, /* a whole byte: a u8 */
	{ "f4", HDR + 86, 1, 1, F_UINT, H_HEX, 0 },
	{ "ua", HDR + 88, 4, 1, F_UINT, H_NONE, 0 },
	{ "ub", HDR + 88, 2, 1, F_UINT, H_NONE, 0 },
	{ "un", HDR + 96, 1, 8, F_UINT, H_HEX, 0 },
	{ "e2", HDR + 104, 4, 1, F_SINT, H_ENUM, ENUM0 + 1 },
	{ "col2", HDR + 108, 4, 1, F_UINT, H_ENUM, ENUM0 },
	{ "grid[0]", HDR + 112, 4, 1, F_STR, H_NONE, 0 },
	{ "grid[1]", HDR + 116, 4, 1, F_STR, H_NONE, 0 },
	{ "mat", HDR + 120, 2, 6, F_UINT, H_NONE, 0 },
	{ "big", HDR + 144, 1, 16, F_UINT, H_HEX, 0 },
	{ "anon_a", HDR + 160, 4, 1, F_UINT, H_NONE, 0 },
};

static void check_fields(const struct rc_btf_desc *d)
{
	unsigned int i;

	ASSERT_EQ(d->size, EV_SIZE, "size");
	if (!ASSERT_EQ(d->nfields, ARRAY_SIZE(want_fields), "nfields")) {
		for (i = 0; i < d->nfields; i++)
			printf("    got %s @%u\n", d->fields[i].name, d->fields[i].offset);
		return;
	}
	for (i = 0; i < d->nfields; i++) {
		const struct rc_field *f = &d->fields[i];
		const struct want *w = &want_fields[i];

		if (!ASSERT_STREQ(f->name, w->name, "name"))
			continue;
		ASSERT_EQ(f->offset, w->offset, w->name);
		ASSERT_EQ(f->size, w->size, w->name);
		ASSERT_EQ(f->count, w->count, w->name);
		ASSERT_EQ(f->kind, w->kind, w->name);
		ASSERT_EQ(f->hint, w->hint, w->name);
		ASSERT_EQ(f->enum_id, w->enum_id, w->name);
	}
}

static void check_enums(const struct rc_btf_desc *d)
{
	const struct rc_enum *e;

	if (!ASSERT_EQ(d->nenums, 2, "nenums"))
		return;
	e = &d->enums[0];
	ASSERT_EQ(e->id, ENUM0, "color id");
	ASSERT_STREQ(e->name, "color", "color name");
	if (ASSERT_EQ(e->cnt, 3, "color cnt")) {
		ASSERT_EQ(e->entries[0].value, 0, "RED");
		ASSERT_STREQ(e->entries[0].name, "RED", "RED");
		ASSERT_EQ(e->entries[1].value, 1, "GREEN");
		ASSERT_STREQ(e->entries[1].name, "GREEN", "GREEN");
		ASSERT_EQ(e->entries[2].value, 2, "BLUE");
		ASSERT_STREQ(e->entries[2].name, "BLUE", "BLUE");
	}
	e = &d->enums[1];
	ASSERT_EQ(e->id, ENUM0 + 1, "errs id");
	ASSERT_STREQ(e->name, "errs", "errs name");
	if (ASSERT_EQ(e->cnt, 3, "errs cnt")) { /* sorted by value */
		ASSERT_EQ(e->entries[0].value, -5, "E_NEG");
		ASSERT_STREQ(e->entries[0].name, "E_NEG", "E_NEG");
		ASSERT_EQ(e->entries[1].value, 0, "E_OK");
		ASSERT_STREQ(e->entries[1].name, "E_OK", "E_OK");
		ASSERT_EQ(e->entries[2].value, 7, "E_BIG");
		ASSERT_STREQ(e->entries[2].name, "E_BIG", "E_BIG");
	}
}

void test_btfdesc_struct(void)
{
	struct rc_btf_desc d = {};
	struct btf *btf = make_btf();
	char err[256] = "";

	if (!ASSERT_OK_PTR(btf, "make_btf"))
		return;
	if (ASSERT_OK(rc_btf__describe(btf, "ev", HDR, ENUM0, &d, err, sizeof(err)), err)) {
		check_fields(&d);
		check_enums(&d);
	}
	rc_btf_desc__free(&d);
	ASSERT_EQ(d.nfields, 0, "freed");
	/* the same struct through a typedef, and spelled "struct ev" */
	if (ASSERT_OK(rc_btf__describe(btf, "ev_t", 0, 1, &d, err, sizeof(err)), err)) {
		ASSERT_EQ(d.nfields, ARRAY_SIZE(want_fields), "typedef nfields");
		ASSERT_EQ(d.fields[0].offset, 0, "base 0");
		ASSERT_EQ(d.enums[0].id, 1, "first enum id");
	}
	rc_btf_desc__free(&d);
	ASSERT_OK(rc_btf__describe(btf, "struct ev", HDR, ENUM0, &d, err, sizeof(err)), err);
	rc_btf_desc__free(&d);
	rc_btf_desc__free(NULL);
	btf__free(btf);
}

/* The schema made is one the capture reader takes, and decodes by name. */
void test_btfdesc_roundtrip(void)
{
	unsigned char rec[HDR + EV_SIZE] = {};
	struct rc_rec_hdr *h = (void *)rec;
	unsigned char *p = rec + HDR;
	const struct rc_rec_hdr *got;
	struct rc_event_desc ev = {};
	struct rc_schema schema = {};
	struct rc_btf_desc d = {};
	struct mem_capture mc = {};
	struct rc_reader *r = NULL;
	struct rc_writer *w = NULL;
	struct rc_strbuf sb = {};
	struct btf *btf = make_btf();
	struct rc_meta m;
	char err[256] = "", path[64];
	int fd = -1, ret;
	uint32_t u;
	int32_t s;

	if (!ASSERT_OK_PTR(btf, "make_btf"))
		return;
	if (!ASSERT_OK(rc_btf__describe(btf, "ev", HDR, ENUM0, &d, err, sizeof(err)), err))
		goto out;
	ev = (struct rc_event_desc){ .id = EV_ID,
				     .size = HDR + d.size,
				     .name = "user:ev",
				     .nfields = d.nfields,
				     .fields = d.fields };
	schema =
	    (struct rc_schema){ .nevents = 1, .events = &ev, .nenums = d.nenums, .enums = d.enums };
	test_meta(&m);
	m.schema = &schema;

	h->ts = 2000;
	h->type = EV_ID;
	h->size = sizeof(rec);
	strcpy(h->comm, "unit");
	u = 0xdeadbeef;
	memcpy(p + 0, &u, 4);		 /* in.a */
	strcpy((char *)p + 24, "hello"); /* name */
	u = 1;
	memcpy(p + 40, &u, 4); /* col = GREEN */
	p[44] = 1;	       /* flag */
	s = -5;
	memcpy(p + 104, &s, 4); /* e2 = E_NEG */
	u = 2;
	memcpy(p + 108, &u, 4);	       /* col2 = BLUE */
	strcpy((char *)p + 116, "ab"); /* grid[1] */
	p[84] = 0x2d;		       /* f1|f2 */

	fd = memfd_create("btfdesc", 0);
	if (!ASSERT_TRUE(fd >= 0, "memfd"))
		goto out;
	w = rc_writer__new(fd, &m, NULL);
	if (!ASSERT_OK_PTR(w, "writer"))
		goto out;
	ret = rc_writer__add(w, rec, sizeof(rec));
	ret = ret ?: rc_writer__finish(w);
	if (!ASSERT_OK(ret, "write"))
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!ASSERT_OK(slurp(path, &mc), "slurp"))
		goto out;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "reader takes the schema"))
		goto out;
	ret = rc_reader__next(r, &got);
	if (!ASSERT_EQ(ret, 1, rc_reader__error(r)))
		goto out;
	if (!ASSERT_OK(rc_decode__text(&sb, rc_reader__meta(r), got, 0), "decode"))
		goto out;
	ASSERT_HAS(sb.buf, "user:ev:", "event name");
	ASSERT_HAS(sb.buf, "in.a=3735928559", "in.a");
	ASSERT_HAS(sb.buf, "name=hello", "name");
	ASSERT_HAS(sb.buf, "col=GREEN", "col");
	ASSERT_HAS(sb.buf, "e2=E_NEG", "e2");
	ASSERT_HAS(sb.buf, "col2=BLUE", "col2");
	ASSERT_HAS(sb.buf, "grid[1]=ab", "grid");
	ASSERT_HAS(sb.buf, "f1|f2=0x2d", "bitfields");
	ASSERT_HAS(sb.buf, "ptr=0x0", "ptr");
out:
	rc_strbuf__free(&sb);
	rc_reader__free(r);
	rc_writer__free(w);
	free(mc.buf);
	if (fd >= 0)
		close(fd);
	rc_btf_desc__free(&d);
	btf__free(btf);
}

void test_btfdesc_errors(void)
{
	struct rc_btf_desc d = {};
	struct btf *btf = make_btf();
	char err[256] = "";
	int u8, big, ret, i;

	if (!ASSERT_OK_PTR(btf, "make_btf"))
		return;
	ret = rc_btf__describe(btf, "nosuch", HDR, ENUM0, &d, err, sizeof(err));
	ASSERT_EQ(ret, -ENOENT, "no such struct");
	ASSERT_HAS(err, "no struct nosuch", "message");
	ASSERT_HAS(err, "inner", "lists structs");
	ASSERT_HAS(err, "ev", "lists structs");
	ASSERT_HAS(err, "only if a global of its type is", "says why a struct may be missing");
	ASSERT_EQ(d.nfields, 0, "out zeroed");

	ret = rc_btf__describe(btf, "just_a_union", HDR, ENUM0, &d, err, sizeof(err));
	ASSERT_EQ(ret, -ENOENT, "union");
	ASSERT_HAS(err, "union", "union message");

	ret = rc_btf__describe(btf, "ev", HDR, 0, &d, err, sizeof(err));
	ASSERT_EQ(ret, -EINVAL, "enum id 0");

	/* 168 bytes from 65400: beyond the largest record */
	ret = rc_btf__describe(btf, "ev", 65400, ENUM0, &d, err, sizeof(err));
	ASSERT_EQ(ret, -E2BIG, "past 65535");
	ASSERT_HAS(err, "65568", "message says where it ends");
	ASSERT_EQ(d.nfields, 0, "out zeroed");
	ASSERT_OK(rc_btf__describe(btf, "ev", RC_REC_MAX - EV_SIZE, ENUM0, &d, err, sizeof(err)),
		  "just fits");
	rc_btf_desc__free(&d);

	/* a struct of 300 members */
	u8 = btf__find_by_name_kind(btf, "unsigned char", BTF_KIND_INT);
	big = btf__add_struct(btf, "wide", 300);
	for (i = 0; i < 300 && big > 0; i++) {
		char name[16];

		snprintf(name, sizeof(name), "m%d", i);
		if (!ASSERT_OK(btf__add_field(btf, name, u8, i * 8, 0), "add_field"))
			break;
	}
	ret = rc_btf__describe(btf, "wide", HDR, ENUM0, &d, err, sizeof(err));
	ASSERT_EQ(ret, -E2BIG, "300 fields");
	ASSERT_HAS(err, "more than 256 fields", "message");
	ASSERT_EQ(d.nfields, 0, "out zeroed");
	rc_btf_desc__free(&d);
	btf__free(btf);
}

/* ---- rc_btf__set_global() on tests/bpf/globals.bpf.c ------------------ */

static struct bpf_object *open_globals(void)
{
	const char *dir = getenv("RC_TEST_BPF_DIR");
	struct bpf_object *obj;
	char path[4096], why[4200];

	if (dir && *dir)
		snprintf(path, sizeof(path), "%s/globals.bpf.o", dir);
	else
		snprintf(path, sizeof(path), "%s/tests/bpf/globals.bpf.o", test__bindir());
	if (access(path, R_OK)) {
		snprintf(why, sizeof(why),
			 "%s missing: build tests/bpf/globals.bpf.c there, or set RC_TEST_BPF_DIR",
			 path);
		test__skip(why);
		return NULL;
	}
	obj = bpf_object__open_file(path, NULL);
	ASSERT_OK_PTR(obj, path);
	return obj;
}

/* The bytes of .rodata variable @name, as libbpf will load them. */
static const void *rodata_var(struct bpf_object *obj, const char *name, size_t *size)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vsi;
	const struct btf_type *sec;
	struct bpf_map *map;
	const char *data;
	size_t sz;
	int id, i;

	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (id < 0)
		return NULL;
	sec = btf__type_by_id(btf, id);
	bpf_object__for_each_map(map, obj)
	{
		if (strstr(bpf_map__name(map), ".rodata"))
			break;
	}
	data = map ? bpf_map__initial_value(map, &sz) : NULL;
	if (!data)
		return NULL;
	vsi = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++) {
		const struct btf_type *v = btf__type_by_id(btf, vsi[i].type);

		if (!strcmp(btf__name_by_offset(btf, v->name_off), name)) {
			*size = vsi[i].size;
			return data + vsi[i].offset;
		}
	}
	return NULL;
}

/* Set @assign; on success the variable's bytes are @want. */
static void set_ok(struct bpf_object *obj, const char *assign, const void *want, size_t len)
{
	char err[256] = "", name[64];
	const void *p;
	size_t sz = 0;

	snprintf(name, sizeof(name), "%.*s", (int)(strchr(assign, '=') - assign), assign);
	if (!ASSERT_OK(rc_btf__set_global(obj, assign, err, sizeof(err)), assign)) {
		printf("    %s\n", err);
		return;
	}
	p = rodata_var(obj, name, &sz);
	if (!ASSERT_OK_PTR(p, name) || !ASSERT_EQ(sz, len, name))
		return;
	ASSERT_TRUE(!memcmp(p, want, len), assign);
}

/* Setting @assign fails with @ret, @err saying @says; the value stays. */
static void set_bad(struct bpf_object *obj, const char *assign, int ret, const char *says)
{
	char err[256] = "", name[64];
	unsigned char before[64];
	const void *p;
	size_t sz = 0;

	snprintf(name, sizeof(name), "%.*s",
		 strchr(assign, '=') ? (int)(strchr(assign, '=') - assign) : 0, assign);
	p = rodata_var(obj, name, &sz);
	if (p && sz <= sizeof(before))
		memcpy(before, p, sz);
	ASSERT_EQ(rc_btf__set_global(obj, assign, err, sizeof(err)), ret, assign);
	ASSERT_HAS(err, says, assign);
	if (p && sz <= sizeof(before))
		ASSERT_TRUE(!memcmp(p, before, sz), "value unchanged");
}

void test_btfdesc_set_global(void)
{
	struct bpf_object *obj = open_globals();
	char name16[16] = "hello";
	uint64_t u64 = UINT64_MAX;
	uint8_t u8 = 255, t = 1, f = 0;
	int32_t i32 = -42, lvl = 9;
	char err[256] = "";

	if (!obj)
		return;
	if (test__start_subtest("int")) {
		set_ok(obj, "knob_int=-42", &i32, 4);
		i32 = 0x7fffffff;
		set_ok(obj, "knob_int=0x7fffffff", &i32, 4);
		set_bad(obj, "knob_int=2147483648", -EINVAL, "2147483648 does not fit in knob_int");
		set_bad(obj, "knob_int=-2147483649", -EINVAL, "s32");
		set_bad(obj, "knob_int=12abc", -EINVAL, "not a number");
		set_bad(obj, "knob_int=", -EINVAL, "not a number");
	}
	if (test__start_subtest("u8")) {
		set_ok(obj, "knob_u8=255", &u8, 1);
		u8 = 0x10;
		set_ok(obj, "knob_u8=0x10", &u8, 1);
		set_bad(obj, "knob_u8=300", -EINVAL, "300 does not fit in knob_u8 (u8: 0 to 255)");
		set_bad(obj, "knob_u8=-1", -EINVAL, "does not fit");
	}
	if (test__start_subtest("u64")) {
		set_ok(obj, "knob_u64=0xffffffffffffffff", &u64, 8);
		u64 = 18446744073709551615ull;
		set_ok(obj, "knob_u64=18446744073709551615", &u64, 8);
		set_bad(obj, "knob_u64=18446744073709551616", -EINVAL, "does not fit");
	}
	if (test__start_subtest("bool")) {
		set_ok(obj, "knob_bool=true", &t, 1);
		set_ok(obj, "knob_bool=0", &f, 1);
		set_ok(obj, "knob_bool=1", &t, 1);
		set_ok(obj, "knob_bool=false", &f, 1);
		set_bad(obj, "knob_bool=yes", -EINVAL, "'yes' is not a bool");
	}
	if (test__start_subtest("enum")) {
		set_ok(obj, "knob_level=RC_TEST_HIGH", &lvl, 4);
		lvl = 5;
		set_ok(obj, "knob_level=5", &lvl, 4);
		set_bad(obj, "knob_level=RC_TEST_HUGE", -EINVAL,
			"expected RC_TEST_LOW, RC_TEST_MID, RC_TEST_HIGH or a number");
		set_bad(obj, "knob_level=RC_TEST_HUGE", -EINVAL, "enum rc_test_level");
	}
	if (test__start_subtest("string")) {
		set_ok(obj, "knob_name=hello", name16, 16);
		memcpy(name16, "123456789012345", 16);
		set_ok(obj, "knob_name=123456789012345", name16, 16);
		memset(name16, 0, sizeof(name16));
		set_ok(obj, "knob_name=", name16, 16);
		set_bad(obj, "knob_name=1234567890123456", -EINVAL, "at most 15");
	}
	if (test__start_subtest("not_settable")) {
		set_bad(obj, "no_such_knob=1", -ENOENT, "no global no_such_knob");
		set_bad(obj, "no_such_knob=1", -ENOENT, "knob_int");
		set_bad(obj, "no_such_knob=1", -ENOENT, "knob_name");
		ASSERT_EQ(rc_btf__set_global(obj, "no_such_knob=1", err, sizeof(err)), -ENOENT,
			  "unknown");
		ASSERT_TRUE(!strstr(err, "knob_data") && !strstr(err, "knob_const"),
			    "only settable ones listed");
		set_bad(obj, "knob_data=2", -EINVAL, "in .data, not a const volatile");
		set_bad(obj, "knob_bss=2", -EINVAL, "in .bss, not a const volatile");
		set_bad(obj, "knob_const=2", -EINVAL, "const but not volatile");
		set_bad(obj, "knob_arr=1", -EINVAL, "knob_arr (2-element array) cannot be set");
		set_bad(obj, "knob_int", -EINVAL, "expected NAME=VALUE");
		set_bad(obj, "=3", -EINVAL, "expected NAME=VALUE");
	}
	bpf_object__close(obj);
}

/* A struct as clang describes it: plain char is "char" with no CHAR bit, enums unsigned. */
void test_btfdesc_clang(void)
{
	struct bpf_object *obj = open_globals();
	static const struct want want[] = {
		{ "pid", HDR + 0, 4, 1, F_UINT, H_NONE, 0 },
		{ "comm", HDR + 4, 16, 1, F_STR, H_NONE, 0 },
		{ "level", HDR + 20, 4, 1, F_UINT, H_ENUM, ENUM0 },
		{ "ts", HDR + 24, 8, 1, F_UINT, H_NONE, 0 },
		{ "addr", HDR + 32, 1, 4, F_UINT, H_NONE, 0 },
		{ "flags|kind", HDR + 36, 1, 1, F_UINT, H_HEX, 0 },
	};
	struct rc_btf_desc d = {};
	char err[256] = "";
	unsigned int i;

	if (!obj)
		return;
	if (!ASSERT_OK(rc_btf__describe(bpf_object__btf(obj), "rc_test_event", HDR, ENUM0, &d, err,
					sizeof(err)),
		       err))
		goto out;
	ASSERT_EQ(d.size, 40, "size");
	if (!ASSERT_EQ(d.nfields, ARRAY_SIZE(want), "nfields"))
		goto out;
	for (i = 0; i < d.nfields; i++) {
		ASSERT_STREQ(d.fields[i].name, want[i].name, "name");
		ASSERT_EQ(d.fields[i].offset, want[i].offset, want[i].name);
		ASSERT_EQ(d.fields[i].size, want[i].size, want[i].name);
		ASSERT_EQ(d.fields[i].count, want[i].count, want[i].name);
		ASSERT_EQ(d.fields[i].kind, want[i].kind, want[i].name);
		ASSERT_EQ(d.fields[i].hint, want[i].hint, want[i].name);
	}
	if (ASSERT_EQ(d.nenums, 1, "nenums") && ASSERT_EQ(d.enums[0].cnt, 3, "entries")) {
		ASSERT_STREQ(d.enums[0].name, "rc_test_level", "enum name");
		ASSERT_STREQ(d.enums[0].entries[2].name, "RC_TEST_HIGH", "RC_TEST_HIGH");
		ASSERT_EQ(d.enums[0].entries[2].value, 9, "RC_TEST_HIGH");
	}
out:
	rc_btf_desc__free(&d);
	bpf_object__close(obj);
}

/* Once loaded, .rodata is frozen: setting fails, and says why. */
void test_btfdesc_set_loaded(void)
{
	struct bpf_object *obj = open_globals();
	char err[256] = "";

	if (!obj)
		return;
	if (!need_root())
		goto out;
	if (!ASSERT_OK(bpf_object__load(obj), "the test object loads"))
		goto out;
	ASSERT_EQ(rc_btf__set_global(obj, "knob_int=1", err, sizeof(err)), -EBUSY, "loaded");
	ASSERT_HAS(err, "loaded already", "message");
out:
	bpf_object__close(obj);
}

/*
 * typedef enum { ON = 1, OFF = 2 } state_t;
 * enum big64 { NEG = -1, HUGE = 1ll << 40 };	(signed enum64)
 * struct edge {
 *	state_t st;			 0
 *	enum big64 b;			 8
 *	struct pt { __u16 x, y; } grid[2][2];	16
 *	__u32 flex[];			32
 * };					32
 * struct bits { __u32 a_rather_long_flag_name_number_00 : 3, ..., _07 : 3; };	4
 * struct flags { __u16 f0 : 1, ..., f15 : 1; };		2
 * struct deep { struct { __u32 bbbbbbbbbb; } aaaa...(250); };
 */
void test_btfdesc_edges(void)
{
	int u32, u16, anon, st, big, pt, row, grid, flex, ret, deep_in, i, err = 0;
	struct btf *btf = btf__new_empty();
	struct rc_btf_desc d = {};
	char msg[256] = "", name[256];

	if (!ASSERT_OK_PTR(btf, "btf"))
		return;
	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	u16 = btf__add_int(btf, "unsigned short", 2, 0);
	anon = btf__add_enum(btf, NULL, 4);
	err = err ?: btf__add_enum_value(btf, "ON", 1);
	err = err ?: btf__add_enum_value(btf, "OFF", 2);
	st = btf__add_typedef(btf, "state_t", anon);
	big = btf__add_enum64(btf, "big64", 8, true);
	err = err ?: btf__add_enum64_value(btf, "NEG", (__u64)-1ll);
	err = err ?: btf__add_enum64_value(btf, "HUGE", 1ull << 40);
	pt = btf__add_struct(btf, "pt", 4);
	err = err ?: btf__add_field(btf, "x", u16, 0, 0);
	err = err ?: btf__add_field(btf, "y", u16, 16, 0);
	row = btf__add_array(btf, u32, pt, 2);
	grid = btf__add_array(btf, u32, row, 2);
	flex = btf__add_array(btf, u32, u32, 0);
	err = err ?: btf__add_struct(btf, "edge", 32) < 0;
	err = err ?: btf__add_field(btf, "st", st, 0, 0);
	err = err ?: btf__add_field(btf, "b", big, 64, 0);
	err = err ?: btf__add_field(btf, "grid", grid, 128, 0);
	err = err ?: btf__add_field(btf, "flex", flex, 256, 0);
	err = err ?: btf__add_struct(btf, "bits", 4) < 0;
	for (i = 0; i < 8 && !err; i++) {
		snprintf(name, sizeof(name), "a_rather_long_flag_name_number_%02d", i);
		err = btf__add_field(btf, name, u32, i * 3, 3);
	}
	err = err ?: btf__add_struct(btf, "flags", 2) < 0;
	for (i = 0; i < 16 && !err; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		err = btf__add_field(btf, name, u16, i, 1);
	}
	deep_in = btf__add_struct(btf, NULL, 4);
	err = err ?: btf__add_field(btf, "bbbbbbbbbb", u32, 0, 0);
	memset(name, 'a', 250);
	name[250] = '\0';
	err = err ?: btf__add_struct(btf, "deep", 4) < 0;
	err = err ?: btf__add_field(btf, name, deep_in, 0, 0);
	if (!ASSERT_OK(err, "build btf") || !ASSERT_TRUE(u16 > 0 && big > 0 && flex > 0, "types"))
		goto out;

	ret = rc_btf__describe(btf, "edge", 0, 1, &d, msg, sizeof(msg));
	if (ASSERT_OK(ret, msg) && ASSERT_EQ(d.nfields, 10, "edge nfields")) {
		/* an anonymous enum is named by its typedef */
		ASSERT_STREQ(d.fields[0].name, "st", "st");
		ASSERT_EQ(d.fields[0].hint, RC_HINT_ENUM, "st enum");
		ASSERT_EQ(d.fields[0].kind, RC_FIELD_UINT, "st unsigned");
		ASSERT_STREQ(d.enums[0].name, "state_t", "typedef names the enum");
		/* enum64, signed */
		ASSERT_STREQ(d.fields[1].name, "b", "b");
		ASSERT_EQ(d.fields[1].kind, RC_FIELD_SINT, "b signed");
		ASSERT_EQ(d.fields[1].size, 8, "b size");
		ASSERT_EQ(d.fields[1].enum_id, 2, "b enum");
		if (ASSERT_EQ(d.enums[1].cnt, 2, "big64 cnt")) {
			ASSERT_EQ(d.enums[1].entries[0].value, -1, "NEG");
			ASSERT_EQ(d.enums[1].entries[1].value, 1ll << 40, "HUGE");
		}
		/* an array of arrays of structs, row by row; nothing for the flexible array */
		ASSERT_STREQ(d.fields[2].name, "grid[0][0].x", "grid first");
		ASSERT_EQ(d.fields[2].offset, 16, "grid first offset");
		ASSERT_STREQ(d.fields[5].name, "grid[0][1].y", "grid[0][1].y");
		ASSERT_EQ(d.fields[5].offset, 22, "grid[0][1].y offset");
		ASSERT_STREQ(d.fields[9].name, "grid[1][1].y", "grid last");
		ASSERT_EQ(d.fields[9].offset, 30, "grid last offset");
	}
	rc_btf_desc__free(&d);

	/*
	 * 8 three-bit fields, each sharing a byte with the next: one field of 3
	 * bytes, its name (279 bytes for all) made of the first and the last
	 */
	ret = rc_btf__describe(btf, "bits", 0, 1, &d, msg, sizeof(msg));
	if (ASSERT_OK(ret, msg) && ASSERT_EQ(d.nfields, 1, "bits nfields")) {
		ASSERT_STREQ(
		    d.fields[0].name,
		    "a_rather_long_flag_name_number_00|...|a_rather_long_flag_name_number_07",
		    "bits name");
		ASSERT_EQ(d.fields[0].count, 3, "bits bytes");
		ASSERT_EQ(d.fields[0].size, 1, "bits size");
		ASSERT_EQ(d.fields[0].hint, RC_HINT_HEX, "bits hex");
	}
	rc_btf_desc__free(&d);

	/* 16 one-bit flags: a byte of 8 flags, then the next byte */
	ret = rc_btf__describe(btf, "flags", 0, 1, &d, msg, sizeof(msg));
	if (ASSERT_OK(ret, msg) && ASSERT_EQ(d.nfields, 2, "flags nfields")) {
		ASSERT_STREQ(d.fields[0].name, "f0|f1|f2|f3|f4|f5|f6|f7", "first byte");
		ASSERT_EQ(d.fields[0].offset, 0, "first byte offset");
		ASSERT_EQ(d.fields[0].count, 1, "first byte count");
		ASSERT_STREQ(d.fields[1].name, "f8|f9|f10|f11|f12|f13|f14|f15", "second byte");
		ASSERT_EQ(d.fields[1].offset, 1, "second byte offset");
	}
	rc_btf_desc__free(&d);

	ret = rc_btf__describe(btf, "deep", 0, 1, &d, msg, sizeof(msg));
	ASSERT_EQ(ret, -ENAMETOOLONG, "name of 261 bytes");
	ASSERT_HAS(msg, "longer than 255", "message");
out:
	rc_btf_desc__free(&d);
	btf__free(btf);
}
