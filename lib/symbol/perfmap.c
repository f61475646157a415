// SPDX-License-Identifier: GPL-2.0-only
/* perf maps, parsed as perf's dso__load_perf_map() does, and stricter. */
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "symbol/perfmap.h"

/* Lines longer than this are skipped: no JIT names a function so. */
#define LINE_MAX_LEN (64 * 1024)

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number at *@p, "0x" optional, at most 64 bits; *@p moved past it. */
static bool parse_hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int d, n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; (d = hexval(*s)) >= 0; s++, n++) {
		if (x >> 60)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	if (!n)
		return false;
	*p = s;
	*v = x;
	return true;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

int rc_perfmap__read(FILE *f, struct rc_symtab *t)
{
	struct rc_symtab_builder b = { .prefer_later = true };
	uint64_t start, size;
	const char *p, *name;
	size_t cap = 0;
	char *line = NULL;
	ssize_t len;
	int err = 0;

	while ((len = getline(&line, &cap, f)) > 0) {
		if (len > LINE_MAX_LEN)
			continue;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		p = skip_blanks(line);
		if (!parse_hex(&p, &start) || (*p != ' ' && *p != '\t'))
			continue;
		p = skip_blanks(p);
		if (!parse_hex(&p, &size) || (*p != ' ' && *p != '\t'))
			continue;
		name = skip_blanks(p);
		/* a NUL inside the line ends the name early; an empty one is no name */
		if (!*name)
			continue;
		if (b.cnt >= RC_PERFMAP_MAX) {
			pr_debug("usym: perf map: more than %u entries, the rest ignored\n",
				 RC_PERFMAP_MAX);
			break;
		}
		err = rc_symtab_builder__add(&b, start, size, 0, name,
					     RC_SYM_FUNC | RC_SYM_STRONG | RC_SYM_GLOBAL);
		if (err == -E2BIG) {
			/* 4 GiB of names: keep those */
			err = 0;
			break;
		}
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	err = err ?: rc_symtab_builder__finish(&b, t);
	rc_symtab_builder__free(&b);
	return err;
}
