// SPDX-License-Identifier: GPL-2.0-only
/*
 * The user-space symbolizer's timeline from perf's side-band records: each
 * process's images (an exec's, a fork's) and the mappings made in them,
 * by time, so that an address is resolved through the image it had when
 * the sample was taken, and the file lists at a time.
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

/* A mapping the side-band saw made, at @ts. */
struct usym_sbmap {
	uint64_t ts;
	struct usym_map m;
};

/* An image of a process: begun by an exec or a fork at @since, or (since 0) before any seen. */
struct usym_sbimg {
	uint64_t since;
	int parent; /* forked from; 0: an exec's, or the image before any seen */
	bool exec;
	struct usym_sbmap *maps;
	size_t nr_maps, maps_cap;
};

struct usym_sbproc {
	int tgid;
	struct usym_sbimg *imgs; /* by @since, ascending; the first since 0 */
	size_t nr_imgs, imgs_cap;
};

/* ---- what the side-band saw --------------------------------------------- */

static struct usym_sbproc *sbproc_find(const struct rc_usym *u, int tgid)
{
	const uint64_t *v = rc_idmap__find(&u->sbprocs, (uint32_t)tgid);

	return v ? (struct usym_sbproc *)(uintptr_t)*v : NULL;
}

static void sbimg_free(struct usym_sbimg *img)
{
	size_t i;

	for (i = 0; i < img->nr_maps; i++)
		free(img->maps[i].m.own_name);
	free(img->maps);
}

void rc_usym__sb_free(struct rc_usym *u)
{
	uint64_t key, *v;
	size_t pos = 0, k;

	while ((v = rc_idmap__each(&u->sbprocs, &pos, &key))) {
		struct usym_sbproc *p = (struct usym_sbproc *)(uintptr_t)*v;

		for (k = 0; k < p->nr_imgs; k++)
			sbimg_free(&p->imgs[k]);
		free(p->imgs);
		free(p);
	}
	rc_idmap__free(&u->sbprocs);
}

/* The side-band's record of @tgid, made with its first image (since 0) when new. */
static struct usym_sbproc *sbproc_get(struct rc_usym *u, int tgid)
{
	struct usym_sbproc *p = sbproc_find(u, tgid);
	uint64_t *v;

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	if (rc_ensure_arr(&p->imgs, &p->imgs_cap, 1, 2) ||
	    !(v = rc_idmap__get(&u->sbprocs, (uint32_t)tgid, NULL))) {
		free(p->imgs);
		free(p);
		return NULL;
	}
	*v = (uintptr_t)p;
	memset(&p->imgs[0], 0, sizeof(p->imgs[0]));
	p->nr_imgs = 1;
	return p;
}

/* The image current at @ts: the last begun at or before it. */
static size_t sbimg_at(const struct usym_sbproc *p, uint64_t ts)
{
	size_t i = p->nr_imgs;

	while (i > 1 && p->imgs[i - 1].since > ts)
		i--;
	return i - 1;
}

int rc_usym__note_image(struct rc_usym *u, int tgid, uint64_t ts, int parent)
{
	struct usym_sbimg *prev, *img;
	struct usym_sbproc *p;
	size_t at, i, k;

	if (tgid < 0 || parent < 0)
		return -EINVAL;
	p = sbproc_get(u, tgid);
	if (!p || rc_ensure_arr(&p->imgs, &p->imgs_cap, p->nr_imgs + 1, 4))
		return -ENOMEM;
	at = sbimg_at(p, ts) + 1;
	memmove(&p->imgs[at + 1], &p->imgs[at], (p->nr_imgs - at) * sizeof(*p->imgs));
	p->nr_imgs++;
	img = &p->imgs[at];
	memset(img, 0, sizeof(*img));
	img->since = ts;
	img->parent = parent;
	img->exec = !parent;
	/* mappings noted before their image (read out of order across CPUs) move to it */
	prev = &p->imgs[at - 1];
	for (i = k = 0; i < prev->nr_maps; i++) {
		if (prev->maps[i].ts < ts) {
			prev->maps[k++] = prev->maps[i];
			continue;
		}
		if (rc_ensure_arr(&img->maps, &img->maps_cap, img->nr_maps + 1, 16)) {
			/* kept where it was: the order of prev's maps is unchanged from k on */
			memmove(&prev->maps[k], &prev->maps[i],
				(prev->nr_maps - i) * sizeof(*prev->maps));
			prev->nr_maps = k + prev->nr_maps - i;
			return -ENOMEM;
		}
		img->maps[img->nr_maps++] = prev->maps[i];
	}
	prev->nr_maps = k;
	return 0;
}

static void bytes_hex(const unsigned char *b, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* A file's dso: found by its identity, else opened from @fd (taken either way). */
static int sb_file_dso(struct rc_usym *u, int tgid, struct rc_usym_mapping *mp, struct rc_dso **out)
{
	struct rc_dso_where where;
	struct dso_key key = { 0 };
	char root[32];
	int fd;

	*out = NULL;
	if (!mp->has_st && mp->fd >= 0 && !fstat(mp->fd, &mp->st))
		mp->has_st = true;
	if (mp->has_st && S_ISREG(mp->st.st_mode)) {
		key.st = &mp->st;
		*out = rc_usym__dso_find(u, &key);
	}
	if (*out || mp->fd < 0 || !mp->has_st || !S_ISREG(mp->st.st_mode)) {
		if (mp->fd >= 0)
			close(mp->fd);
		mp->fd = -1;
		return 0;
	}
	where = rc_usym__where_of(u, tgid, root);
	fd = mp->fd;
	mp->fd = -1;
	return rc_usym__file_dso(u, fd, mp->path, &where, out);
}

/* Does the kernel's build-id for the mapping contradict the file's? */
static bool build_id_differs(const struct rc_usym_mapping *mp, const struct rc_dso *d)
{
	char hex[2 * sizeof(mp->build_id) + 1];

	if (!mp->build_id_size || !d->build_id)
		return false;
	bytes_hex(mp->build_id, mp->build_id_size, hex);
	return strcmp(hex, d->build_id) != 0;
}

/* The [vdso] of a process gone: one of the same size already read (the kernel's one image). */
static struct rc_dso *vdso_like(const struct rc_usym *u, size_t len)
{
	uint64_t key, *v;
	size_t pos = 0;

	while ((v = rc_idmap__each(&u->dsos, &pos, &key))) {
		struct rc_dso *d = (struct rc_dso *)(uintptr_t)*v;

		if (d->img_len == len && !strcmp(d->name, "[vdso]"))
			return d;
	}
	return NULL;
}

/* Fill @m for mapping @mp of @tgid: its file's dso, or its name alone. */
static int sb_fill_map(struct rc_usym *u, int tgid, struct rc_usym_mapping *mp, struct usym_map *m)
{
	static const char deleted[] = " (deleted)";
	const char *path = mp->path;
	size_t len = strlen(path);
	int err;

	if (!strcmp(path, "[vdso]")) {
		if (mp->fd >= 0)
			close(mp->fd);
		err = rc_usym__snap_add_vdso(u, tgid, m);
		if (!err && !m->dso && (m->dso = vdso_like(u, m->end - m->start)))
			m->name = m->dso->name;
		return err;
	}
	if (path[0] != '/') {
		/* //anon, [vsyscall], [uprobes] and the like: anonymous, named */
		if (mp->fd >= 0)
			close(mp->fd);
		if (!strcmp(path, ANON_NAME) || !*path) {
			m->name = ANON_NAME;
			return 0;
		}
		m->own_name = strdup(path);
		m->name = m->own_name;
		return m->own_name ? 0 : -ENOMEM;
	}
	m->file = true;
	err = sb_file_dso(u, tgid, mp, &m->dso);
	if (err)
		return err;
	if (m->dso && build_id_differs(mp, m->dso)) {
		pr_debug("usym: %d: '%s' is not the file it mapped (build-id %s)\n", tgid, path,
			 m->dso->build_id);
		m->dso = NULL;
	}
	if (len > sizeof(deleted) - 1 && !strcmp(path + len - (sizeof(deleted) - 1), deleted))
		len -= sizeof(deleted) - 1;
	if (m->dso && strlen(m->dso->name) == len && !strncmp(m->dso->name, path, len)) {
		m->name = m->dso->name;
		return 0;
	}
	m->own_name = strndup(path, len);
	m->name = m->own_name;
	return m->own_name ? 0 : -ENOMEM;
}

int rc_usym__note_map(struct rc_usym *u, int tgid, uint64_t ts, struct rc_usym_mapping *mp)
{
	struct usym_sbmap sm = { .ts = ts };
	struct usym_sbproc *p;
	struct usym_sbimg *img;
	int err;

	if (tgid < 0 || mp->start >= mp->end || !mp->path) {
		if (mp->fd >= 0)
			close(mp->fd);
		mp->fd = -1;
		return -EINVAL;
	}
	p = sbproc_get(u, tgid);
	if (!p) {
		if (mp->fd >= 0)
			close(mp->fd);
		mp->fd = -1;
		return -ENOMEM;
	}
	img = &p->imgs[sbimg_at(p, ts)];
	sm.m.start = mp->start;
	sm.m.end = mp->end;
	sm.m.pgoff = mp->pgoff;
	err = sb_fill_map(u, tgid, mp, &sm.m);
	mp->fd = -1;
	if (!err && rc_ensure_arr(&img->maps, &img->maps_cap, img->nr_maps + 1, 16))
		err = -ENOMEM;
	if (err) {
		free(sm.m.own_name);
		return err;
	}
	img->maps[img->nr_maps++] = sm;
	return 0;
}

/* In @img, the mapping of @addr made last at or before @ts. */
static const struct usym_map *sbimg_find(const struct usym_sbimg *img, uint64_t ts, uint64_t addr)
{
	const struct usym_sbmap *best = NULL;
	size_t i;

	for (i = 0; i < img->nr_maps; i++) {
		const struct usym_sbmap *sm = &img->maps[i];

		if (sm->ts <= ts && addr >= sm->m.start && addr < sm->m.end &&
		    (!best || sm->ts >= best->ts))
			best = sm;
	}
	return best ? &best->m : NULL;
}

/* @addr through mapping @m, as rc_usym__resolve() does. */
static int map_hit(struct rc_usym *u, const struct usym_map *m, uint64_t addr,
		   struct rc_usym_hit *out)
{
	out->dso = m->name;
	out->file_off = addr - m->start + (m->file || m->dso ? m->pgoff : 0);
	return m->dso ? rc_usym__dso_hit(u, m->dso, out) : 1;
}

static int resolve_at(struct rc_usym *u, int tgid, uint64_t ts, uint64_t addr,
		      struct rc_usym_hit *out, int depth)
{
	const struct usym_sbimg *img = NULL;
	const struct usym_sbproc *p;
	const struct usym_proc *sp;
	const struct usym_map *m;
	bool snap_other = false;
	size_t at;
	int ret;

	memset(out, 0, sizeof(*out));
	p = sbproc_find(u, tgid);
	if (p) {
		at = sbimg_at(p, ts);
		img = &p->imgs[at];
		m = sbimg_find(img, ts, addr);
		if (m)
			return map_hit(u, m, addr, out);
		/* an exec the side-band saw the mappings of: a snapshot may be another image's */
		if (img->exec && img->nr_maps)
			return -ENOENT;
		/*
		 * The snapshot is of the image the process had while /proc was
		 * read: another than @ts's (an exec or a fork of a reused pid
		 * between them), its addresses mean other things.
		 */
		sp = rc_usym__proc(u, tgid);
		if (sp && (sbimg_at(p, sp->snap->taken[0]) != at ||
			   sbimg_at(p, sp->snap->taken[1]) != at))
			snap_other = true;
	}
	ret = snap_other ? -ENOENT : rc_usym__resolve(u, tgid, addr, out);
	if (ret != -ENOENT || !img || !img->parent || depth >= 8)
		return ret;
	return resolve_at(u, img->parent, img->since, addr, out, depth + 1);
}

int rc_usym__resolve_at(struct rc_usym *u, int tgid, uint64_t ts, uint64_t addr,
			struct rc_usym_hit *out)
{
	return resolve_at(u, tgid, ts, addr, out, 0);
}

/* As resolve_at() chooses mappings: the side-band's image at @ts, the snapshot, the parent's. */
static int files_at(const struct rc_usym *u, int tgid, uint64_t ts,
		    int (*fn)(const struct rc_usym_map *m, void *arg), void *arg, int depth)
{
	const struct usym_sbimg *img = NULL;
	const struct usym_sbproc *p = sbproc_find(u, tgid);
	const struct usym_proc *sp = rc_usym__proc(u, tgid);
	bool snap_other = false;
	int ret, n = 0;
	size_t at, i;

	if (p) {
		at = sbimg_at(p, ts);
		img = &p->imgs[at];
		for (i = 0; i < img->nr_maps; i++) {
			if (img->maps[i].ts > ts)
				continue;
			ret = rc_usym__file_map_out(&img->maps[i].m, fn, arg);
			if (ret < 0)
				return ret;
			n += ret;
		}
		if (img->exec && img->nr_maps)
			return n;
		if (sp && (sbimg_at(p, sp->snap->taken[0]) != at ||
			   sbimg_at(p, sp->snap->taken[1]) != at))
			snap_other = true;
	}
	if (sp && !snap_other) {
		ret = rc_usym__snap_files(sp->snap, fn, arg);
		if (ret < 0)
			return ret;
		n += ret;
	}
	if (n || !img || !img->parent || depth >= 8)
		return n;
	return files_at(u, img->parent, img->since, fn, arg, depth + 1);
}

int rc_usym__for_each_file_at(const struct rc_usym *u, int tgid, uint64_t ts,
			      int (*fn)(const struct rc_usym_map *m, void *arg), void *arg)
{
	return files_at(u, tgid, ts, fn, arg, 0);
}
