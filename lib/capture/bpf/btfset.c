// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --set NAME=VALUE: a user's const volatile knob set in the
 * object's .rodata before it is loaded, checked against its BTF type
 * (btfdesc.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "capture/bpf/btfdesc.h"
#include "capture/bpf/btf_int.h"
#include "util/util.h"

/* ---- setting a global ------------------------------------------------- */

/* A variable of the object's BTF, and the section it is in. */
struct global {
	const char *sec;
	const struct btf_var_secinfo *vsi;
	const struct btf_type *type; /* resolved */
	__u32 type_id;
	const char *tdname;
	bool is_volatile;
};

/* Volatile anywhere on the way to a scalar (an array's elements carry it). */
static bool var_is_volatile(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;
	bool vol = false;
	int i;

	for (i = 0; i < MAX_DEPTH; i++) {
		t = resolve(btf, id, NULL, NULL, &vol);
		if (vol || !t || !btf_is_array(t))
			return vol;
		id = btf_array(t)->type;
	}
	return false;
}

static bool is_rodata(const char *sec)
{
	return !strcmp(sec, RODATA_SEC);
}

/* Find the global @name: in .rodata first, else in any section. 0 or -ENOENT. */
static int find_global(const struct btf *btf, const char *name, struct global *g)
{
	__u32 i, j, n = btf__type_cnt(btf);
	bool found = false;

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const struct btf_var_secinfo *vsi;
		const char *sec;

		if (!btf_is_datasec(t))
			continue;
		sec = name_of(btf, t);
		vsi = btf_var_secinfos(t);
		for (j = 0; j < btf_vlen(t); j++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi[j].type);

			if (!v || !btf_is_var(v) || strcmp(name_of(btf, v), name))
				continue;
			if (found && !is_rodata(sec))
				continue;
			g->sec = sec;
			g->vsi = &vsi[j];
			g->type_id = v->type;
			found = true;
			if (is_rodata(sec))
				goto out;
		}
	}
	if (!found)
		return -ENOENT;
out:
	g->tdname = NULL;
	g->is_volatile = var_is_volatile(btf, g->type_id);
	g->type = resolve(btf, g->type_id, &g->type_id, &g->tdname, NULL);
	return 0;
}

/* The globals that can be set, "a, b, c", into @sb; returns how many. */
static unsigned int list_settable(const struct btf *btf, struct rc_strbuf *sb)
{
	__u32 i, j, n = btf__type_cnt(btf);
	unsigned int shown = 0;

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const struct btf_var_secinfo *vsi;

		if (!btf_is_datasec(t) || !is_rodata(name_of(btf, t)))
			continue;
		vsi = btf_var_secinfos(t);
		for (j = 0; j < btf_vlen(t); j++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi[j].type);

			if (!v || !btf_is_var(v) || !var_is_volatile(btf, v->type))
				continue;
			rc_strbuf__printf(sb, "%s%s", shown++ ? ", " : "", name_of(btf, v));
		}
	}
	return shown;
}

/* "u8", "s32", "bool", "enum level", "16-element array": a type, in a message. */
static void type_desc(const struct btf *btf, const struct global *g, char *buf, size_t len)
{
	const struct btf_type *t = g->type;
	const char *nm = name_of(btf, t);

	if (is_bool(btf, t))
		snprintf(buf, len, "bool");
	else if (btf_is_int(t))
		snprintf(buf, len, "%c%u", (btf_int_encoding(t) & BTF_INT_SIGNED) ? 's' : 'u',
			 t->size * 8);
	else if (btf_is_any_enum(t))
		snprintf(buf, len, "enum %s", *nm ? nm : g->tdname ? g->tdname : "(anonymous)");
	else if (btf_is_array(t))
		snprintf(buf, len, "%u-element array", btf_array(t)->nelems);
	else if (btf_is_ptr(t))
		snprintf(buf, len, "pointer");
	else if (btf_is_struct(t))
		snprintf(buf, len, "struct %s", nm);
	else if (btf_is_union(t))
		snprintf(buf, len, "union %s", nm);
	else if (btf_is_float(t))
		snprintf(buf, len, "float");
	else
		snprintf(buf, len, "kind %u", btf_kind(t));
}

/*
 * Parse @s as an integer for @size bytes: decimal or 0x hex, '-' allowed.
 * @lo_signed: the range is that of a signed type (else unsigned); @both:
 * either range (an enum: C leaves its signedness to the compiler).
 */
static int parse_int(const char *s, __u32 size, bool lo_signed, bool both, uint64_t *out,
		     const char *name, const char *tdesc, char *err, size_t errlen)
{
	unsigned int bits = size * 8;
	uint64_t umax = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	uint64_t smax = umax >> 1, v;
	bool neg = *s == '-';
	const char *p = s + neg;
	char *end;
	int base = 10;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!(base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
		goto invalid;
	errno = 0;
	v = strtoull(p, &end, base);
	if (*end)
		goto invalid;
	if (errno == ERANGE)
		goto range;
	if (neg) {
		if ((!lo_signed && !both && v) || v > smax + 1)
			goto range;
		*out = -v;
	} else {
		if (v > (lo_signed && !both ? smax : umax))
			goto range;
		*out = v;
	}
	return 0;

invalid:
	set_err(err, errlen, "'%s' is not a number for %s (%s: decimal or 0x hex%s)", s, name,
		tdesc, lo_signed || both ? ", '-' for negative" : "");
	return -EINVAL;
range:
	if (both)
		set_err(err, errlen, "%s does not fit in %s (%s of %u bytes: %lld to %llu)", s,
			name, tdesc, size, -(long long)smax - 1, (unsigned long long)umax);
	else if (lo_signed)
		set_err(err, errlen, "%s does not fit in %s (%s: %lld to %lld)", s, name, tdesc,
			-(long long)smax - 1, (long long)smax);
	else
		set_err(err, errlen, "%s does not fit in %s (%s: 0 to %llu)", s, name, tdesc,
			(unsigned long long)umax);
	return -EINVAL;
}

static int parse_enum(const struct btf *btf, const struct global *g, const char *s,
		      const char *name, const char *tdesc, uint64_t *out, char *err, size_t errlen)
{
	const struct btf_type *t = g->type;
	struct rc_strbuf sb = {};
	__u16 i, n = btf_vlen(t);

	for (i = 0; i < n; i++) {
		if (btf_is_enum64(t)) {
			const struct btf_enum64 *ev = btf_enum64(t) + i;

			if (!strcmp(btf__name_by_offset(btf, ((const __u32 *)ev)[0]), s)) {
				*out = btf_enum64_value(ev);
				return 0;
			}
		} else if (!strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off), s)) {
			*out = (uint64_t)(int64_t)btf_enum(t)[i].val;
			return 0;
		}
	}
	if (isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1])))
		return parse_int(s, t->size, false, true, out, name, tdesc, err, errlen);
	for (i = 0; i < n && i < 16; i++) {
		__u32 off = btf_is_enum64(t) ? ((const __u32 *)(btf_enum64(t) + i))[0]
					     : btf_enum(t)[i].name_off;

		rc_strbuf__printf(&sb, "%s%s", i ? ", " : "", btf__name_by_offset(btf, off));
	}
	set_err(err, errlen, "'%s' is not a value of %s (%s): expected %s%s or a number", s, name,
		tdesc, sb.buf ? sb.buf : "", n > 16 ? ", ..." : "");
	rc_strbuf__free(&sb);
	return -EINVAL;
}

/* The internal map of the object's .rodata. */
static struct bpf_map *rodata_map(struct bpf_object *obj)
{
	size_t sfx = strlen(RODATA_SEC);
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
	{
		const char *nm = bpf_map__name(map);
		size_t len = nm ? strlen(nm) : 0;

		if (bpf_map__is_internal(map) && len >= sfx && !strcmp(nm + len - sfx, RODATA_SEC))
			return map;
	}
	return NULL;
}

/* Parse @value for global @g into @buf (@g->vsi->size bytes). */
static int parse_value(const struct btf *btf, const struct global *g, const char *name,
		       const char *value, unsigned char *buf, char *err, size_t errlen)
{
	const struct btf_type *t = g->type;
	__u32 size = g->vsi->size;
	uint64_t v = 0;
	char tdesc[128];
	int ret;

	type_desc(btf, g, tdesc, sizeof(tdesc));
	if (is_bool(btf, t) && is_int_size(size)) {
		if (!strcasecmp(value, "true") || !strcmp(value, "1"))
			v = 1;
		else if (strcasecmp(value, "false") && strcmp(value, "0")) {
			set_err(err, errlen, "'%s' is not a bool: %s takes true, false, 1 or 0",
				value, name);
			return -EINVAL;
		}
	} else if (btf_is_int(t) && is_plain_int(t) && is_int_size(size) && size == t->size) {
		ret = parse_int(value, size, btf_int_encoding(t) & BTF_INT_SIGNED, false, &v, name,
				tdesc, err, errlen);
		if (ret)
			return ret;
	} else if (btf_is_any_enum(t) && is_int_size(size) && size == t->size) {
		ret = parse_enum(btf, g, value, name, tdesc, &v, err, errlen);
		if (ret)
			return ret;
	} else if (btf_is_array(t)) {
		const struct btf_type *et = resolve(btf, btf_array(t)->type, NULL, NULL, NULL);
		size_t len = strlen(value);

		if (!et || !btf_is_int(et) || et->size != 1 || is_bool(btf, et) ||
		    btf_array(t)->nelems != size)
			goto unsupported;
		if (len + 1 > size) {
			set_err(err, errlen,
				"'%s' is %zu bytes: %s (char[%u]) holds a string of at most %u "
				"and its NUL",
				value, len, name, size, size - 1);
			return -EINVAL;
		}
		memset(buf, 0, size);
		memcpy(buf, value, len);
		return 0;
	} else {
		goto unsupported;
	}
	memcpy(buf, &v, size); /* little-endian (format/format.h): the low bytes */
	return 0;

unsupported:
	set_err(err, errlen,
		"%s (%s) cannot be set: only integers, bools, enums and char arrays can", name,
		tdesc);
	return -EINVAL;
}

/* Global @name of @btf, if it is one --set may set: a const volatile of .rodata. */
static int find_settable(const struct btf *btf, const char *name, struct global *g, char *err,
			 size_t errlen)
{
	struct rc_strbuf sb = {};
	int ret = find_global(btf, name, g);

	if (ret) {
		if (list_settable(btf, &sb))
			set_err(err, errlen,
				"no global %s in the object; const volatile globals: %s", name,
				sb.buf);
		else
			set_err(err, errlen,
				"no global %s in the object, which has no const volatile globals",
				name);
		rc_strbuf__free(&sb);
		return ret;
	}
	if (!strncmp(g->sec, RODATA_SEC ".", strlen(RODATA_SEC) + 1)) {
		set_err(err, errlen, "%s is in section %s: only globals of .rodata can be set",
			name, g->sec);
		return -EINVAL;
	}
	if (!is_rodata(g->sec)) {
		set_err(err, errlen,
			"%s is a global in %s, not a const volatile one: only those (in .rodata) "
			"can be set",
			name, g->sec);
		return -EINVAL;
	}
	if (!g->is_volatile) {
		set_err(err, errlen,
			"%s is const but not volatile: the compiler may have used its value "
			"already; declare it const volatile",
			name);
		return -EINVAL;
	}
	if (!g->type) {
		set_err(err, errlen, "%s: malformed BTF type", name);
		return -EINVAL;
	}
	return 0;
}

/* Parse @text as @g's type and put it into the object's .rodata, before load. */
static int write_value(struct bpf_object *obj, const struct btf *btf, const struct global *g,
		       const char *name, const char *text, char *err, size_t errlen)
{
	struct bpf_map *map = rodata_map(obj);
	unsigned char *val = NULL, *data = NULL;
	const void *init;
	size_t sz;
	int ret;

	/* loaded: the map exists, its memory is read-only, the programs have the old value */
	if (map && bpf_map__fd(map) >= 0) {
		set_err(err, errlen, "cannot set %s: the object is loaded already", name);
		return -EBUSY;
	}
	init = map ? bpf_map__initial_value(map, &sz) : NULL;
	if (!init || (uint64_t)g->vsi->offset + g->vsi->size > sz) {
		set_err(err, errlen, "cannot set %s: the object's .rodata map is missing or short",
			name);
		return -ENOENT;
	}
	val = malloc(g->vsi->size ? g->vsi->size : 1);
	data = malloc(sz);
	if (!val || !data) {
		ret = -ENOMEM;
		goto out;
	}
	ret = parse_value(btf, g, name, text, val, err, errlen);
	if (ret)
		goto out;
	/* through libbpf, which refuses what it cannot take, rather than into its memory */
	memcpy(data, init, sz);
	memcpy(data + g->vsi->offset, val, g->vsi->size);
	ret = bpf_map__set_initial_value(map, data, sz);
	if (ret)
		set_err(err, errlen, "cannot set %s: %s", name, strerror(-ret));
out:
	free(data);
	free(val);
	return ret;
}

int rc_btf__set_global(struct bpf_object *obj, const char *assignment, char *err, size_t errlen)
{
	const char *eq = assignment ? strchr(assignment, '=') : NULL;
	struct global g = {};
	struct btf *btf;
	char *name;
	int ret;

	if (!obj || !eq || eq == assignment) {
		set_err(err, errlen, "'%s': expected NAME=VALUE", assignment ? assignment : "");
		return -EINVAL;
	}
	name = strndup(assignment, eq - assignment);
	if (!name)
		return -ENOMEM;
	btf = bpf_object__btf(obj);
	if (!btf) {
		set_err(err, errlen,
			"cannot set %s: the object has no BTF (build it with clang -g)", name);
		ret = -ENOENT;
		goto out;
	}
	ret = find_settable(btf, name, &g, err, errlen);
	ret = ret ?: write_value(obj, btf, &g, name, eq + 1, err, errlen);
	if (!ret)
		pr_debug("btf: set %s (%u bytes at .rodata+%u) to %s\n", name, g.vsi->size,
			 g.vsi->offset, eq + 1);
out:
	free(name);
	return ret;
}
