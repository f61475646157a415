// SPDX-License-Identifier: GPL-2.0-only
/*
 * The user-space symbolizer: the processes and the objects they map,
 * shared between them (dso.c), and the lookup of an address through its
 * mapping, as perf's map__map_ip() and dso__find_symbol() do. The
 * snapshots of /proc/PID/maps are usym_proc.c's, the side-band's timeline
 * of images and mappings usym_sb.c's (usym_int.h).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/util.h"
#include "symbol/usym_int.h"
#include "util/file.h"
#include "util/mem.h"

/* ---- processes and objects --------------------------------------------- */

struct usym_proc *rc_usym__proc(const struct rc_usym *u, int tgid)
{
	const uint64_t *v = rc_idmap__find(&u->procs, (uint32_t)tgid);

	return v ? (struct usym_proc *)(uintptr_t)*v : NULL;
}

int rc_usym__proc_add(struct rc_usym *u, int tgid, struct usym_proc *p)
{
	uint64_t *v = rc_idmap__get(&u->procs, (uint32_t)tgid, NULL);

	if (!v)
		return -ENOMEM;
	*v = (uintptr_t)p;
	return 0;
}

/* The hash of a dso's identity: never 0, an empty slot. */
static uint64_t dso_key_hash(const struct dso_key *k)
{
	uint64_t h;

	if (!k->st)
		return mix64(k->img_hash ^ mix64(k->img_len)) | 1;
	h = mix64((uint64_t)k->st->st_ino ^ mix64((uint64_t)k->st->st_size));
	return mix64((uint64_t)k->st->st_dev ^ h) | 1;
}

static bool dso_eq(const struct rc_dso *d, const struct dso_key *k)
{
	if (!k->st)
		return d->img_len == k->img_len && d->img_hash == k->img_hash;
	/*
	 * Size and times too: an inode number is reused once the file is freed
	 * (after its symbols are read, we hold it no more), and cp -p keeps the
	 * mtime but nothing keeps the ctime. An unlink changes the ctime: a
	 * deleted file seen again gets a dso of its own, which costs memory only.
	 */
	return !d->img_len && d->st.st_dev == k->st->st_dev && d->st.st_ino == k->st->st_ino &&
	       d->st.st_size == k->st->st_size && d->st.st_mtim.tv_sec == k->st->st_mtim.tv_sec &&
	       d->st.st_mtim.tv_nsec == k->st->st_mtim.tv_nsec &&
	       d->st.st_ctim.tv_sec == k->st->st_ctim.tv_sec &&
	       d->st.st_ctim.tv_nsec == k->st->st_ctim.tv_nsec;
}

struct rc_dso *rc_usym__dso_find(const struct rc_usym *u, const struct dso_key *k)
{
	uint64_t h = dso_key_hash(k), *v;
	size_t pos = RC_IDMAP_START;

	while ((v = rc_idmap__next(&u->dsos, h, &pos)))
		if (dso_eq((struct rc_dso *)(uintptr_t)*v, k))
			return (struct rc_dso *)(uintptr_t)*v;
	return NULL;
}

int rc_usym__dso_add(struct rc_usym *u, const struct dso_key *k, struct rc_dso *d)
{
	return rc_idmap__put(&u->dsos, dso_key_hash(k), (uintptr_t)d);
}

void rc_usym__snap_free(struct usym_snap *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_maps; i++)
		free(s->maps[i].own_name);
	free(s->maps);
	rc_symtab__free(&s->perfmap);
	free(s->perfmap_name);
	free(s);
}

/* Read a file's symbols now, if not yet done, and count the files closed. */
void rc_usym__dso_load(struct rc_usym *u, struct rc_dso *d)
{
	if (d->loaded)
		return;
	u->fds -= rc_dso__fds(d);
	rc_dso__load(d);
}

struct rc_usym *rc_usym__new(void)
{
	struct rc_usym *u = calloc(1, sizeof(*u));
	struct rlimit rl;

	if (!u)
		return rc_err_ptr(-ENOMEM);
	u->fd_budget = FD_BUDGET_MAX;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < FD_BUDGET_MAX)
		u->fd_budget = rl.rlim_cur / 4;
	return u;
}

void rc_usym__free(struct rc_usym *u)
{
	struct usym_snap *s, *next;
	size_t pos = 0;
	uint64_t key, *v;

	if (!u)
		return;
	while ((v = rc_idmap__each(&u->procs, &pos, &key))) {
		struct usym_proc *p = (struct usym_proc *)(uintptr_t)*v;

		rc_usym__snap_free(p->snap);
		free(p);
	}
	for (pos = 0; (v = rc_idmap__each(&u->dsos, &pos, &key));)
		rc_dso__free((struct rc_dso *)(uintptr_t)*v);
	for (s = u->replaced; s; s = next) {
		next = s->next;
		rc_usym__snap_free(s);
	}
	rc_usym__sb_free(u);
	rc_idmap__free(&u->procs);
	rc_idmap__free(&u->dsos);
	free(u);
}

void rc_usym__set_lines(struct rc_usym *u, bool on)
{
	u->lines = on;
}

bool rc_usym__has(const struct rc_usym *u, int tgid)
{
	return rc_usym__proc(u, tgid) != NULL;
}

/* ---- resolving --------------------------------------------------------- */

static const struct usym_map *snap_find(const struct usym_snap *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr_maps, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < s->maps[mid].start)
			hi = mid;
		else if (addr >= s->maps[mid].end)
			lo = mid + 1;
		else
			return &s->maps[mid];
	}
	return NULL;
}

int rc_usym__dso_hit(struct rc_usym *u, struct rc_dso *dso, struct rc_usym_hit *out)
{
	uint64_t vaddr;

	out->build_id = dso->build_id;
	rc_usym__dso_load(u, dso);
	if (!rc_dso__vaddr(dso, out->file_off, &vaddr))
		return 1;
	out->lines = dso->lines;
	out->vaddr = vaddr;
	out->sym = rc_symtab__find(&dso->syms, vaddr, &out->sym_off);
	return out->sym ? 0 : 1;
}

int rc_usym__resolve(struct rc_usym *u, int tgid, uint64_t addr, struct rc_usym_hit *out)
{
	const struct usym_map *m;
	const struct usym_proc *p;
	const struct usym_snap *s;
	uint64_t off;
	const char *name;

	memset(out, 0, sizeof(*out));
	p = rc_usym__proc(u, tgid);
	if (!p)
		return -ENOENT;
	s = p->snap;
	m = snap_find(s, addr);
	if (m && m->dso) {
		out->dso = m->name;
		out->file_off = addr - m->start + m->pgoff;
		return rc_usym__dso_hit(u, m->dso, out);
	}
	if (m && m->file) {
		out->dso = m->name;
		out->file_off = addr - m->start + m->pgoff;
		return 1;
	}
	/* anonymous code, or code mapped since the snapshot: the JIT's perf map */
	if (s->perfmap_name && (name = rc_symtab__find(&s->perfmap, addr, &off))) {
		out->sym = name;
		out->sym_off = off;
		out->dso = s->perfmap_name;
		out->file_off = addr;
		return 0;
	}
	if (!m)
		return -ENOENT;
	out->dso = m->name;
	out->file_off = addr - m->start;
	return 1;
}

/* @fn of @m when it maps an ELF file's bytes: 0 when it does not; else @fn's return, or 1. */
int rc_usym__file_map_out(const struct usym_map *m,
			  int (*fn)(const struct rc_usym_map *m, void *arg), void *arg)
{
	struct rc_usym_map out;
	size_t k;

	if (!m->dso || (!m->file && !m->dso->img) || (m->file && m->dso->img_len))
		return 0;
	/* the segment whose file bytes the mapping holds */
	for (k = 0; k < m->dso->nr_segs; k++) {
		const struct rc_dso_seg *g = &m->dso->segs[k];

		if (g->off < m->pgoff + (m->end - m->start) && m->pgoff < g->off + g->filesz)
			break;
	}
	if (k == m->dso->nr_segs)
		return 0;
	out = (struct rc_usym_map){
		.start = m->start,
		.end = m->end,
		.pgoff = m->pgoff,
		.path = m->name,
		.bias = m->start - m->pgoff + m->dso->segs[k].off - m->dso->segs[k].vaddr,
		.image = m->dso->img,
		.image_len = m->dso->img_len,
	};
	return fn(&out, arg) ?: 1;
}

/* The snapshot's file mappings to @fn: how many, or @fn's error. */
int rc_usym__snap_files(const struct usym_snap *s,
			int (*fn)(const struct rc_usym_map *m, void *arg), void *arg)
{
	int ret, n = 0;
	size_t i;

	for (i = 0; i < s->nr_maps; i++) {
		ret = rc_usym__file_map_out(&s->maps[i], fn, arg);
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n;
}

int rc_usym__for_each_file(const struct rc_usym *u, int tgid,
			   int (*fn)(const struct rc_usym_map *m, void *arg), void *arg)
{
	const struct usym_proc *p = rc_usym__proc(u, tgid);
	int ret;

	if (!p)
		return -ENOENT;
	ret = rc_usym__snap_files(p->snap, fn, arg);
	return ret < 0 ? ret : 0;
}
