// SPDX-License-Identifier: GPL-2.0-only
/*
 * Events described at record time (dyn.h): tracepoints found by glob and
 * described by their tracefs format, uprobes checked against their
 * binary's symbols and named by its build-id.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "events.h"
#include "capture/dyn.h"
#include "capture/session.h"
#include "util/util.h"

static struct rc_dyn_event *new_event(struct rc_dyn_set *d, enum rc_dyn_kind kind, const char *name)
{
	struct rc_dyn_event *arr, *e;

	if (strlen(name) > 255) {
		pr_warn("event name '%.40s...' is longer than the 255 bytes a capture holds\n",
			name);
		return rc_err_ptr(-ENAMETOOLONG);
	}
	if (d->n >= RC_DYN_MAX) {
		pr_warn("too many events: at most %d tracepoints and probes in one capture\n",
			RC_DYN_MAX);
		return rc_err_ptr(-E2BIG);
	}
	arr = realloc(d->ev, (d->n + 1) * sizeof(*arr));
	if (!arr)
		return rc_err_ptr(-ENOMEM);
	d->ev = arr;
	e = &arr[d->n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (!e->name)
		return rc_err_ptr(-ENOMEM);
	e->id = RC_DYN_BASE + d->n;
	e->kind = kind;
	e->desc.id = e->id;
	e->desc.name = e->name;
	d->n++;
	return e;
}

static bool have_name(const struct rc_dyn_set *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->ev[i].name, name))
			return true;
	return false;
}

int rc_dyn__note(struct rc_dyn_set *d, uint16_t id, const char *key, const void *data, uint32_t len)
{
	struct rc_note *arr, *n;
	void *copy;

	arr = realloc(d->notes, (d->nnotes + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	d->notes = arr;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, len);
	n = &arr[d->nnotes++];
	*n = (struct rc_note){ .event_id = id, .key = key, .data = copy, .len = len };
	return 0;
}

struct glob_ctx {
	struct rc_dyn_set *d;
	int err;
};

static int add_tracepoint(const char *system, const char *name, void *arg)
{
	const struct rc_event_desc *own;
	struct glob_ctx *g = arg;
	struct rc_dyn_event *e;
	char full[512], why[256];
	int err;

	snprintf(full, sizeof(full), "%s:%s", system, name);
	if (have_name(g->d, full))
		return 0;
	own = rc_schema__event_by_name(rc_builtin_schema(), full);
	if (own && own->id < 32 && (g->d->builtin_mask & (1u << own->id))) {
		pr_debug("%s: recorded by ringcap's own program\n", full);
		return 0;
	}
	e = new_event(g->d, RC_DYN_TP, full);
	if (!e)
		return -errno;
	err = rc_tpformat__load(&e->tp, system, name, sizeof(struct rc_rec_hdr), why, sizeof(why));
	if (err) {
		pr_warn("cannot record tracepoint %s: %s\n", full, why);
		return err;
	}
	e->desc.size = (sizeof(struct rc_rec_hdr) + e->tp.size + 7) & ~7u;
	e->desc.nfields = e->tp.nfields;
	e->desc.fields = e->tp.fields;
	return rc_dyn__note(g->d, e->id, "format", e->tp.text, strlen(e->tp.text));
}

int rc_dyn__add_tracepoints(struct rc_dyn_set *d, const char *pattern)
{
	struct glob_ctx g = { .d = d };
	int n = rc_tracefs__glob(pattern, add_tracepoint, &g);

	if (n == -EINVAL) {
		pr_warn("invalid event '%s': give SYSTEM:NAME, with globs on either side, like "
			"'block:*'\n",
			pattern);
		return n;
	}
	if (n == 0) {
		pr_warn("unknown event '%s': not one of ringcap's (syscalls, sched, "
			"sched:sched_switch...), and no tracepoint matches it: 'ringcap record -l' "
			"lists them all\n",
			pattern);
		return -ENOENT;
	}
	return n < 0 ? n : 0;
}

/* ---- uprobes ---------------------------------------------------------- */

/*
 * @file as the path of a readable file, into @out (PATH_MAX bytes): as
 * given when it has a '/', else found in $PATH.
 */
static int find_binary(const char *file, char *out)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(file, '/'))
		return realpath(file, out) ? 0 : -errno;
	while (path && *path) {
		size_t n = strcspn(path, ":");

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, file) < (int)sizeof(buf) &&
		    !access(buf, R_OK) && realpath(buf, out))
			return 0;
		path += n + (path[n] == ':');
	}
	return -ENOENT;
}

static int build_id_note(Elf_Data *data, unsigned char *id, size_t max)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz <= max) {
			memcpy(id, (char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return 0;
}

/* Walk @path's sections: its build-id, and whether it defines function @sym. */
static int inspect_elf(const char *path, const char *sym, unsigned char *id, size_t max,
		       bool *found)
{
	Elf_Scn *scn = NULL;
	int fd, n = 0;
	Elf *elf;

	*found = false;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		GElf_Shdr sh;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || !data)
			continue;
		if (sh.sh_type == SHT_NOTE && !n)
			n = build_id_note(data, id, max);
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sym ||
		    !sh.sh_entsize)
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize && !*found; i++) {
			GElf_Sym s;
			const char *nm;

			if (!gelf_getsym(data, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_value)
				continue;
			nm = elf_strptr(elf, sh.sh_link, s.st_name);
			*found = nm && !strcmp(nm, sym);
		}
	}
	elf_end(elf);
	close(fd);
	return n;
}

static bool have_probe(const struct rc_dyn_set *d, bool ret, const char *path, const char *sym)
{
	enum rc_dyn_kind kind = ret ? RC_DYN_URETPROBE : RC_DYN_UPROBE;
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->ev[i].kind == kind && !strcmp(d->ev[i].path, path) &&
		    !strcmp(d->ev[i].symbol, sym))
			return true;
	return false;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int rc_dyn__add_uprobe(struct rc_dyn_set *d, const char *spec)
{
	static const struct rc_field uprobe_fields[] = {
		{ .name = "args",
		  .offset = offsetof(struct rc_ev_uprobe, args),
		  .size = sizeof(__u64),
		  .count = RC_UPROBE_NARGS,
		  .kind = RC_FIELD_UINT,
		  .hint = RC_HINT_HEX },
	};
	static const struct rc_field uretprobe_fields[] = {
		{ .name = "ret",
		  .offset = offsetof(struct rc_ev_uretprobe, ret),
		  .size = sizeof(__u64),
		  .count = 1,
		  .kind = RC_FIELD_UINT,
		  .hint = RC_HINT_HEX },
	};
	bool ret = !strncmp(spec, "uretprobe:", 10), found;
	const char *rest = spec + (ret ? 10 : 7), *colon;
	char path[PATH_MAX], file[PATH_MAX], name[PATH_MAX + 64], hex[2 * RC_BUILD_ID_MAX + 1];
	struct rc_dyn_event *e;
	size_t i;
	int err;

	if (!ret && strncmp(spec, "uprobe:", 7))
		return -EINVAL;
	colon = strrchr(rest, ':');
	if (!colon || colon == rest || !colon[1] || (size_t)(colon - rest) >= sizeof(file)) {
		pr_warn("invalid probe '%s': give %s:/path/to/binary:function\n", spec,
			ret ? "uretprobe" : "uprobe");
		return -EINVAL;
	}
	snprintf(file, sizeof(file), "%.*s", (int)(colon - rest), rest);
	err = find_binary(file, path);
	if (err) {
		pr_warn("probe '%s': cannot find the binary '%s': %s\n", spec, file,
			strerror(-err));
		return err;
	}
	if (have_probe(d, ret, path, colon + 1))
		return 0;
	/* named by the binary's base name, or its whole path when that is taken */
	snprintf(name, sizeof(name), "%s:%s:%s", ret ? "uretprobe" : "uprobe", base_name(path),
		 colon + 1);
	if (have_name(d, name))
		snprintf(name, sizeof(name), "%s:%s:%s", ret ? "uretprobe" : "uprobe", path,
			 colon + 1);
	e = new_event(d, ret ? RC_DYN_URETPROBE : RC_DYN_UPROBE, name);
	if (!e)
		return -errno;
	e->path = strdup(path);
	e->symbol = strdup(colon + 1);
	if (!e->path || !e->symbol)
		return -ENOMEM;
	err = inspect_elf(path, e->symbol, e->build_id, sizeof(e->build_id), &found);
	if (err < 0) {
		pr_warn("probe '%s': '%s' is not an ELF binary ringcap can read: %s\n", spec, path,
			strerror(-err));
		return err;
	}
	e->build_id_len = err;
	if (!found) {
		pr_warn("probe '%s': '%s' defines no function '%s' (a static binary stripped of "
			"its symbols, or a typo?)\n",
			spec, path, e->symbol);
		return -ENOENT;
	}
	e->desc.size = ret ? sizeof(struct rc_ev_uretprobe) : sizeof(struct rc_ev_uprobe);
	e->desc.nfields = 1;
	e->desc.fields = ret ? uretprobe_fields : uprobe_fields;
	for (i = 0; i < e->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", e->build_id[i]);
	hex[2 * e->build_id_len] = '\0';
	err = rc_dyn__note(d, e->id, "path", path, strlen(path));
	err = err ?: rc_dyn__note(d, e->id, "symbol", e->symbol, strlen(e->symbol));
	return err ?: rc_dyn__note(d, e->id, "build_id", hex, strlen(hex));
}

int rc_dyn__add(struct rc_dyn_set *d, enum rc_dyn_kind kind, const char *name,
		const struct rc_event_desc *desc)
{
	struct rc_dyn_event *e = new_event(d, kind, name);

	if (!e)
		return -errno;
	e->desc.size = desc->size;
	e->desc.nfields = desc->nfields;
	e->desc.fields = desc->fields;
	e->desc.flags = desc->flags;
	return e->id;
}

struct rc_dyn_event *rc_dyn__event(const struct rc_dyn_set *d, uint16_t id)
{
	if (id < RC_DYN_BASE || (size_t)(id - RC_DYN_BASE) >= d->n)
		return NULL;
	return &d->ev[id - RC_DYN_BASE];
}

int rc_dyn__describe(const struct rc_dyn_set *d, struct rc_schema *s)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < d->n; i++)
		err = rc_schema__add_event(s, &d->ev[i].desc);
	return err;
}

void rc_dyn__free(struct rc_dyn_set *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		struct rc_dyn_event *e = &d->ev[i];

		bpf_link__destroy(e->link);
		rc_tpformat__free(&e->tp);
		free(e->name);
		free(e->path);
		free(e->symbol);
	}
	for (i = 0; i < d->nnotes; i++)
		free((void *)d->notes[i].data);
	free(d->ev);
	free(d->notes);
	memset(d, 0, sizeof(*d));
}

int rc_list_tracepoints(const char *pattern,
			int (*fn)(const char *system, const char *name, void *ctx), void *ctx)
{
	return rc_tracefs__glob(pattern ? pattern : "*:*", fn, ctx);
}
