// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's PMU event syntax to a struct perf_event_attr, from sysfs: see
 * pmu.h. Every file is read bounded, every number parsed with its
 * overflow checked, every path built with its length checked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/util.h"
#include "capture/perf/pmu.h"
#include "util/sysfs.h"

#define MAX_TERMS 64  /* terms in one spec */
#define FILE_MAX  256 /* a format, type, caps or events file: they are a line */
#define NAME_MAX_ 128 /* a PMU's or a term's name */

/* The attr fields a format file may name, by their index (config, config1, ...) */
#ifdef PERF_ATTR_SIZE_VER8
#define N_FIELDS 4
#else
#define N_FIELDS 3
#endif

struct term {
	const char *name; /* in the spec's copy, NUL-terminated */
	const char *val;  /* NULL for a bare term */
	uint64_t num;
};

struct fmt {
	int field;     /* 0 for config, 1 for config1, ... */
	uint64_t bits; /* the bits of the field the term owns */
	char text[FILE_MAX];
};

/* Parse a whole string as a u64: decimal, or hex after 0x (@hex: hex with or without 0x). */
static int parse_u64(const char *s, bool hex, uint64_t *v)
{
	unsigned int base = 10, d;
	uint64_t n = 0;

	if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) {
		base = 16;
		s += 2;
	} else if (hex) {
		base = 16;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		if (n > (UINT64_MAX - d) / base)
			return -ERANGE;
		n = n * base + d;
	}
	*v = n;
	return 0;
}

/* Format @fmt into @buf (size @len), at @buf's end; truncated to fit. */
__attribute__((format(printf, 3, 4))) static void msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int path_of(char *buf, const char *root, const char *name, const char *rest)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s%s%s", root, name, rest ? "/" : "", rest ?: "");

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Letters, digits, '_', '-', '.': a name that is safe in a path and not . or .. */
static bool good_name(const char *s, bool dot)
{
	const char *p;

	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || (dot && *p == '.')))
			return false;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's entries (dot ones left out), sorted, joined by ", ", into @sb. */
static int list_dir(const char *path, struct rc_strbuf *sb)
{
	size_t n = 0, cap = 0, i;
	char **names = NULL, **tmp;
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(path);
	if (!d)
		return -errno;
	while ((errno = 0, de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			tmp = cap < SIZE_MAX / sizeof(*names) ? realloc(names, cap * sizeof(*names))
							      : NULL;
			if (!tmp) {
				err = -ENOMEM;
				goto out;
			}
			names = tmp;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			err = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (errno)
		err = -errno;
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n && !err; i++)
		err = rc_strbuf__printf(sb, "%s%s", i ? ", " : "", names[i]);
	if (!err && !n)
		err = rc_strbuf__printf(sb, "none");
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return err;
}

/*
 * The PMU's directory name: @name itself, else the lowest-numbered NAME_N
 * (perf's arm_spe// for arm_spe_0). Return: 0; -ENODEV; -errno.
 */
static int resolve_pmu(const char *root, const char *name, char *out, size_t len)
{
	char path[PATH_MAX];
	size_t nlen = strlen(name);
	uint64_t best = UINT64_MAX, n;
	struct dirent *de;
	DIR *d;
	int err;

	err = path_of(path, root, name, NULL);
	if (err)
		return err;
	if (rc_sysfs__is_dir(path)) {
		snprintf(out, len, "%s", name);
		return 0;
	}
	d = opendir(root);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *suf = de->d_name + nlen + 1;

		if (strncmp(de->d_name, name, nlen) || de->d_name[nlen] != '_')
			continue;
		/* digits only, no sign: parse_u64 would take 0x */
		if (!*suf || strspn(suf, "0123456789") != strlen(suf) || parse_u64(suf, false, &n))
			continue;
		if (n < best && strlen(de->d_name) < len) {
			best = n;
			snprintf(out, len, "%s", de->d_name);
		}
	}
	closedir(d);
	return best == UINT64_MAX ? -ENODEV : 0;
}

/* A format file's text, "config1:0-3,32-35", to its field and bits. */
static int parse_format(const char *text, int *field, uint64_t *bits)
{
	static const char *const names[] = { "config", "config1", "config2", "config3" };
	const char *colon = strchr(text, ':'), *p;
	uint64_t lo, hi, b = 0;
	char num[24], *dash;
	size_t flen, n;
	int i;

	if (!colon)
		return -EINVAL;
	flen = colon - text;
	for (i = 0; i < (int)ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == flen && !strncmp(text, names[i], flen))
			break;
	if (i == ARRAY_SIZE(names))
		return -EINVAL;
	if (i >= N_FIELDS)
		return -EOPNOTSUPP; /* config3, with a linux/perf_event.h without it */
	for (p = colon + 1;; p += n + 1) {
		n = strcspn(p, ",");
		if (!n || n >= sizeof(num))
			return -EINVAL;
		memcpy(num, p, n);
		num[n] = '\0';
		dash = strchr(num, '-');
		if (dash)
			*dash = '\0';
		if (strspn(num, "0123456789") != strlen(num) || parse_u64(num, false, &lo))
			return -EINVAL;
		hi = lo;
		if (dash && (strspn(dash + 1, "0123456789") != strlen(dash + 1) ||
			     parse_u64(dash + 1, false, &hi)))
			return -EINVAL;
		if (hi < lo || hi > 63)
			return -EINVAL;
		/* bits lo..hi, without shifting by 64 */
		b |= (hi - lo == 63 ? UINT64_MAX : ((1ull << (hi - lo + 1)) - 1)) << lo;
		if (!p[n])
			break;
	}
	*field = i;
	*bits = b;
	return 0;
}

static uint64_t *field_of(struct perf_event_attr *attr, int field)
{
	switch (field) {
	case 0:
		return (uint64_t *)&attr->config;
	case 1:
		return (uint64_t *)&attr->config1;
	case 2:
		return (uint64_t *)&attr->config2;
#ifdef PERF_ATTR_SIZE_VER8
	case 3:
		return (uint64_t *)&attr->config3;
#endif
	}
	return NULL;
}

/* Scatter @val's bits, low to high, over @mask's set bits in *@v, clearing the others of @mask. */
static void format_value(uint64_t mask, uint64_t val, uint64_t *v)
{
	unsigned int fbit, vbit = 0;

	for (fbit = 0; fbit < 64; fbit++) {
		if (!(mask & (1ull << fbit)))
			continue;
		if (val & (1ull << vbit))
			*v |= 1ull << fbit;
		else
			*v &= ~(1ull << fbit);
		vbit++;
	}
}

static int weight(uint64_t x)
{
	return __builtin_popcountll(x);
}

/* The context of one parse, for messages */
struct ctx {
	const char *root, *spec, *pmu; /* pmu: the directory's name */
	char dir[PATH_MAX];	       /* ROOT/PMU */
	char *err;
	size_t errlen;
};

/* The message for a term the PMU does not have. */
static int unknown_term(struct ctx *c, const char *term)
{
	struct rc_strbuf sb = {};
	char path[PATH_MAX], ev[FILE_MAX];
	int err;

	err = path_of(path, c->dir, "format", NULL);
	if (!err && !rc_sysfs__is_dir(path)) {
		msg(c->err, c->errlen,
		    "PMU '%s' has no format terms (no %s), so no '%s': give it as %s//", c->pmu,
		    path, term, c->pmu);
		return -EINVAL;
	}
	err = err ?: list_dir(path, &sb);
	if (err) {
		msg(c->err, c->errlen, "PMU '%s' has no term '%s'; failed to list %s: %s", c->pmu,
		    term, path, strerror(-err));
		rc_strbuf__free(&sb);
		return err == -ENOMEM ? err : -EINVAL;
	}
	/* a named event (cpu/cycles/): say what it stands for */
	if (!path_of(path, c->dir, "events", term) && rc_sysfs__read_line(path, ev, sizeof(ev)) > 0)
		msg(c->err, c->errlen,
		    "'%s' is one of PMU '%s''s named events (events/%s: %s), which ringcap does "
		    "not expand: give its terms, %s/%s/; the PMU's terms: %s",
		    term, c->pmu, term, ev, c->pmu, ev, sb.buf);
	else
		msg(c->err, c->errlen, "PMU '%s' has no term '%s'; its terms: %s", c->pmu, term,
		    sb.buf);
	rc_strbuf__free(&sb);
	return -EINVAL;
}

/*
 * Look up a term's format. Return: 0; -ENOENT when the PMU has no such
 * term; -EINVAL with the message for a malformed format file.
 */
static int lookup(struct ctx *c, const char *term, struct fmt *f)
{
	char path[PATH_MAX];
	int err;

	err = path_of(path, c->dir, "format", term);
	if (err)
		return -ENOENT; /* no name that long is a term */
	if (!rc_sysfs__is_file(path))
		return -ENOENT;
	err = rc_sysfs__read_line(path, f->text, sizeof(f->text));
	if (err >= 0)
		err = parse_format(f->text, &f->field, &f->bits);
	if (err == -EOPNOTSUPP) {
		msg(c->err, c->errlen,
		    "term '%s' of PMU '%s' sets %s, a field this ringcap's linux/perf_event.h "
		    "lacks: build ringcap with newer kernel headers",
		    term, c->pmu, f->text);
		return -EINVAL;
	}
	if (err < 0) {
		msg(c->err, c->errlen,
		    "term '%s' of PMU '%s': %s is not FIELD:BITS (such as config:0-7,32): %s", term,
		    c->pmu, path, err == -EINVAL ? "malformed" : strerror(-err));
		return -EINVAL;
	}
	return 0;
}

/* Set a format term's bits in @attr to @val, refusing a value too wide. */
static int apply(struct ctx *c, struct perf_event_attr *attr, const char *term, const struct fmt *f,
		 uint64_t val, bool bare)
{
	int w = weight(f->bits);
	uint64_t max = w == 64 ? UINT64_MAX : (1ull << w) - 1;

	if (bare && w > 1) {
		msg(c->err, c->errlen,
		    "term '%s' of PMU '%s' takes a value (%d bits, %s): give %s=N, N at most %llu",
		    term, c->pmu, w, f->text, term, (unsigned long long)max);
		return -EINVAL;
	}
	if (val > max) {
		msg(c->err, c->errlen,
		    "value %llu too large for term '%s' of PMU '%s' (%d bit%s, %s): at most %llu",
		    (unsigned long long)val, term, c->pmu, w, w == 1 ? "" : "s", f->text,
		    (unsigned long long)max);
		return -EINVAL;
	}
	format_value(f->bits, val, field_of(attr, f->field));
	return 0;
}

/* A caps file of a PMU as a number (hex or not); @def when it is missing or unreadable. */
static uint64_t caps(struct ctx *c, const char *name, bool hex, uint64_t def)
{
	char path[PATH_MAX], buf[FILE_MAX];
	uint64_t v;

	if (path_of(path, c->dir, "caps", name) ||
	    rc_sysfs__read_line(path, buf, sizeof(buf)) <= 0 || parse_u64(buf, hex, &v))
		return def;
	return v;
}

/* perf's intel_pt_pick_bit(): the highest set bit at or below @target, else the lowest. */
static int pick_bit(uint64_t bits, int target)
{
	int pos, pick = -1;

	for (pos = 0; bits && pos < 64; bits >>= 1, pos++) {
		if (!(bits & 1))
			continue;
		if (pos <= target || pick < 0)
			pick = pos;
		if (pos >= target)
			break;
	}
	return pick;
}

/* One default term of intel_pt, where its format file exists; a failure only skips it. */
static void set_default(struct ctx *c, struct perf_event_attr *attr, const char *term, uint64_t val)
{
	struct fmt f;

	if (lookup(c, term, &f) || apply(c, attr, term, &f, val, false))
		pr_debug("%s: default term %s=%llu not applied\n", c->pmu, term,
			 (unsigned long long)val);
	if (c->err && c->errlen)
		c->err[0] = '\0';
}

/* intel_pt's default config, as perf's intel_pt_default_config() builds it (pmu.h). */
static void intel_pt_defaults(struct ctx *c, struct perf_event_attr *attr)
{
	uint64_t mtc_periods = 0, psb_periods;
	char path[PATH_MAX];

	set_default(c, attr, "tsc", 1);
	if (caps(c, "mtc", false, 1)) {
		mtc_periods = caps(c, "mtc_periods", true, 0);
		if (mtc_periods) {
			set_default(c, attr, "mtc", 1);
			set_default(c, attr, "mtc_period", pick_bit(mtc_periods, 3));
		}
	}
	if (caps(c, "psb_cyc", false, 1) && mtc_periods) {
		psb_periods = caps(c, "psb_periods", true, 0);
		if (psb_periods)
			set_default(c, attr, "psb_period", pick_bit(psb_periods, 3));
	}
	if (!path_of(path, c->dir, "format/pt", NULL) && rc_sysfs__is_file(path) &&
	    !path_of(path, c->dir, "format/branch", NULL) && rc_sysfs__is_file(path)) {
		set_default(c, attr, "pt", 1);
		set_default(c, attr, "branch", 1);
	}
}

/* The modifiers, as perf's parse-events.c takes u, k, h, G and H. */
static int modifiers(struct ctx *c, const char *mods, struct perf_event_attr *attr)
{
	bool exclude = false, exclude_gh = false;
	bool eu = false, ek = false, eh = false, eg = false, ehost = false;
	const char *p;

	for (p = mods; *p; p++) {
		switch (*p) {
		case 'u':
		case 'k':
		case 'h':
			if (!exclude)
				exclude = eu = ek = eh = true;
			if (*p == 'u')
				eu = false;
			else if (*p == 'k')
				ek = false;
			else
				eh = false;
			break;
		case 'G':
		case 'H':
			if (!exclude_gh)
				exclude_gh = eg = ehost = true;
			if (*p == 'G')
				eg = false;
			else
				ehost = false;
			break;
		default:
			msg(c->err, c->errlen,
			    "bad modifier '%c' in '%s': ringcap takes u (user), k (kernel), "
			    "h (hypervisor), G (guest), H (host) after the second '/'",
			    *p, c->spec);
			return -EINVAL;
		}
	}
	attr->exclude_user = eu;
	attr->exclude_kernel = ek;
	attr->exclude_hv = eh;
	attr->exclude_guest = eg;
	attr->exclude_host = ehost;
	return 0;
}

/* Split the terms (written over in @buf) into @t; @n their count. */
static int split_terms(struct ctx *c, char *buf, struct term *t, int *n)
{
	char *p = buf, *comma, *eq;
	int j, err;

	*n = 0;
	if (!*buf)
		return 0;
	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (*n == MAX_TERMS) {
			msg(c->err, c->errlen, "more than %d terms in '%s'", MAX_TERMS, c->spec);
			return -EINVAL;
		}
		eq = strchr(p, '=');
		if (eq)
			*eq = '\0';
		if (!*p) {
			msg(c->err, c->errlen,
			    "empty term in '%s': terms are a comma list of TERM or TERM=VALUE",
			    c->spec);
			return -EINVAL;
		}
		if (!good_name(p, false) || strlen(p) >= NAME_MAX_) {
			msg(c->err, c->errlen,
			    "bad term '%s' in '%s': a term's name is at most %d letters, digits, "
			    "'_' and '-'",
			    p, c->spec, NAME_MAX_ - 1);
			return -EINVAL;
		}
		t[*n].name = p;
		t[*n].val = eq ? eq + 1 : NULL;
		t[*n].num = 1;
		if (eq) {
			err = parse_u64(eq + 1, false, &t[*n].num);
			if (err) {
				msg(c->err, c->errlen, "bad value '%s' for term '%s' in '%s': %s",
				    eq + 1, p, c->spec,
				    err == -ERANGE ? "more than 64 bits"
						   : "give a decimal or 0x hex number");
				return -EINVAL;
			}
		}
		for (j = 0; j < *n; j++)
			if (!strcmp(t[j].name, p)) {
				msg(c->err, c->errlen,
				    "term '%s' given twice in '%s': give it once", p, c->spec);
				return -EINVAL;
			}
		(*n)++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

/* config=, config1=, ...: the whole field; -ENOENT for a term that is not one. */
static int raw_field(const char *name)
{
	static const char *const names[] = { "config", "config1", "config2", "config3" };
	int i;

	for (i = 0; i < N_FIELDS; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -ENOENT;
}

bool rc_pmu__is_spec(const char *spec)
{
	const char *s1 = spec ? strchr(spec, '/') : NULL, *s2;

	if (!s1 || s1 == spec || memchr(spec, ':', s1 - spec))
		return false;
	s2 = strchr(s1 + 1, '/');
	return s2 && !strchr(s2 + 1, '/');
}

int rc_pmu__name(const char *spec, char *name, size_t len)
{
	size_t n;

	if (len)
		name[0] = '\0';
	if (!rc_pmu__is_spec(spec))
		return -EINVAL;
	n = strchr(spec, '/') - spec;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(name, spec, n);
	name[n] = '\0';
	return 0;
}

bool rc_pmu__is_aux(const char *name)
{
	const char *suf;

	if (!name)
		return false;
	if (!strcmp(name, "intel_pt") || !strcmp(name, "intel_bts") || !strcmp(name, "cs_etm") ||
	    !strcmp(name, "arm_spe"))
		return true;
	if (strncmp(name, "arm_spe_", 8))
		return false;
	suf = name + 8;
	return *suf && strspn(suf, "0123456789") == strlen(suf);
}

int rc_pmu__parse(const char *root, const char *spec, struct perf_event_attr *attr, char *err,
		  size_t errlen)
{
	char name[NAME_MAX_], pmu[NAME_MAX_ + 24], path[PATH_MAX], line[FILE_MAX];
	struct ctx c = { .spec = spec, .err = err, .errlen = errlen };
	struct term t[MAX_TERMS];
	char *copy = NULL, *terms, *mods;
	struct rc_strbuf sb = {};
	uint64_t type;
	struct fmt f;
	int ret, n, i;

	msg(err, errlen, "%s", "");
	c.root = root = root ?: RC_PMU_ROOT;
	memset(attr, 0, sizeof(*attr));
	if (!rc_pmu__is_spec(spec)) {
		msg(err, errlen, "'%s' is not in the PMU syntax NAME/TERMS/MODS (intel_pt//u)",
		    spec ?: "");
		return -EINVAL;
	}
	ret = rc_pmu__name(spec, name, sizeof(name));
	if (ret || !good_name(name, true)) {
		msg(err, errlen,
		    "bad PMU name in '%s': at most %d letters, digits, '_', '-' and '.'", spec,
		    NAME_MAX_ - 1);
		return -EINVAL;
	}

	ret = resolve_pmu(root, name, pmu, sizeof(pmu));
	if (ret == -ENODEV) {
		ret = list_dir(root, &sb);
		if (ret == -ENOMEM)
			return ret;
		msg(err, errlen, "this machine has no PMU '%s' (none in %s); its PMUs: %s", name,
		    root, ret ? strerror(-ret) : sb.buf);
		rc_strbuf__free(&sb);
		return -ENODEV;
	}
	if (ret) {
		msg(err, errlen, "failed to look for PMU '%s' in %s: %s", name, root,
		    strerror(-ret));
		return ret;
	}
	c.pmu = pmu;
	if (path_of(c.dir, root, pmu, NULL) || path_of(path, root, pmu, "type"))
		return -ENAMETOOLONG;
	ret = rc_sysfs__read_line(path, line, sizeof(line));
	if (ret < 0) {
		msg(err, errlen, "failed to read PMU '%s''s type, %s: %s", pmu, path,
		    strerror(-ret));
		return ret == -EFBIG ? -EINVAL : ret;
	}
	if (strspn(line, "0123456789") != strlen(line) || parse_u64(line, false, &type) ||
	    type > UINT32_MAX) {
		msg(err, errlen, "PMU '%s''s type, %s, is '%s', not a 32-bit number", pmu, path,
		    line);
		return -EINVAL;
	}
	attr->size = sizeof(*attr);
	attr->type = type;

	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	terms = strchr(copy, '/') + 1;
	mods = strchr(terms, '/');
	*mods++ = '\0';
	ret = split_terms(&c, terms, t, &n);
	if (ret)
		goto out;

	/* the base: intel_pt's defaults; then whole fields; then the format terms */
	if (!strcmp(pmu, "intel_pt"))
		intel_pt_defaults(&c, attr);
	for (i = 0; i < n; i++) {
		int fld = raw_field(t[i].name);

		if (fld < 0)
			continue;
		if (!t[i].val) {
			msg(err, errlen, "term '%s' takes a value: give %s=N", t[i].name,
			    t[i].name);
			ret = -EINVAL;
			goto out;
		}
		*field_of(attr, fld) = t[i].num;
	}
	for (i = 0; i < n; i++) {
		if (raw_field(t[i].name) >= 0)
			continue;
		ret = lookup(&c, t[i].name, &f);
		if (ret == -ENOENT)
			ret = unknown_term(&c, t[i].name);
		ret = ret ?: apply(&c, attr, t[i].name, &f, t[i].num, !t[i].val);
		if (ret)
			goto out;
	}
	ret = modifiers(&c, mods, attr);
out:
	free(copy);
	if (ret)
		memset(attr, 0, sizeof(*attr));
	return ret;
}
