// SPDX-License-Identifier: GPL-2.0-only
/*
 * The user-space symbolizer's snapshots: a process's executable mappings
 * read from /proc/PID/maps, their files opened (or a vdso's or perf map's
 * bytes kept) while it runs, for usym.c to resolve through later.
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

static uint64_t fnv1a(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* ---- the snapshot ------------------------------------------------------ */

static struct usym_map *snap_new_map(struct usym_snap *s, uint64_t start, uint64_t end,
				     uint64_t pgoff)
{
	struct usym_map *m;

	if (rc_ensure_arr(&s->maps, &s->maps_cap, s->nr_maps + 1, 16))
		return NULL;
	m = &s->maps[s->nr_maps++];
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	return m;
}

/*
 * The dso of the file @fd into *@out, shared with the mappings that map it
 * already; @fd taken. NULL for what is not a regular file. Return: 0, -ENOMEM.
 */
int rc_usym__file_dso(struct rc_usym *u, int fd, const char *path, const struct rc_dso_where *w,
		      struct rc_dso **out)
{
	struct dso_key key = { 0 };
	struct rc_dso *d;
	struct stat st;
	int fds, err;

	*out = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	key.st = &st;
	d = rc_usym__dso_find(u, &key);
	if (d) {
		close(fd);
		*out = d;
		return 0;
	}
	d = rc_dso__open_fd(fd, &st, path, w);
	if (!d)
		return -ENOMEM;
	err = rc_usym__dso_add(u, &key, d);
	if (err) {
		rc_dso__free(d);
		return err;
	}
	fds = rc_dso__fds(d);
	u->fds += fds;
	/* no more descriptors held: read its symbols now */
	if (fds && u->fds > u->fd_budget)
		rc_usym__dso_load(u, d);
	*out = d;
	return 0;
}

/*
 * Where @tgid's files' debug files are looked for: the debug directory,
 * and, in another mount namespace, under its root (@root, 32 bytes, is
 * filled then), as long as it lives.
 */
struct rc_dso_where rc_usym__where_of(const struct rc_usym *u, int tgid, char *root)
{
	struct rc_dso_where where = { 0 };
	struct stat st_root, st_slash;
	const char *dir = getenv("RINGCAP_DEBUG_DIR");

	where.debug_dir = dir && *dir ? dir : "/usr/lib/debug";
	where.lines = u->lines;
	snprintf(root, 32, "/proc/%d/root", tgid);
	if (!stat(root, &st_root) && !stat("/", &st_slash) &&
	    (st_root.st_dev != st_slash.st_dev || st_root.st_ino != st_slash.st_ino))
		where.root = root;
	return where;
}

/* A file's executable mapping: the file through map_files, the process's root, or as named. */
static int snap_add_file(struct rc_usym *u, int tgid, struct usym_map *m, char *path,
			 const struct rc_dso_where *w)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(path);
	char buf[PATH_MAX + 64];
	int fd = -1, n, err;

	m->file = true;
	if (len > sizeof(deleted) - 1 && !strcmp(path + len - (sizeof(deleted) - 1), deleted))
		path[len - (sizeof(deleted) - 1)] = '\0';
	n = snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, tgid, m->start,
		     m->end);
	if (n > 0 && (size_t)n < sizeof(buf))
		fd = rc_open_regular(buf);
	if (fd < 0 && w->root) {
		n = snprintf(buf, sizeof(buf), "%s%s", w->root, path);
		if (n > 0 && (size_t)n < sizeof(buf))
			fd = rc_open_regular(buf);
	}
	if (fd < 0)
		fd = rc_open_regular(path);
	if (fd < 0)
		pr_debug("usym: %d: cannot open '%s': %s\n", tgid, path, strerror(errno));
	else if ((err = rc_usym__file_dso(u, fd, path, w, &m->dso)))
		return err;
	if (m->dso && !strcmp(m->dso->name, path)) {
		m->name = m->dso->name;
		return 0;
	}
	m->own_name = strdup(path);
	if (!m->own_name)
		return -ENOMEM;
	m->name = m->own_name;
	return 0;
}

/* The [vdso]: its bytes from the process's memory, parsed now; shared by content. */
int rc_usym__snap_add_vdso(struct rc_usym *u, int tgid, struct usym_map *m)
{
	size_t len = m->end - m->start;
	struct dso_key key = { 0 };
	unsigned char *img;
	struct rc_dso *d;
	char path[64];
	int fd, err = 0;
	ssize_t n;

	/* unread, it is a mapping without symbols */
	m->name = "[vdso]";
	if (len > VDSO_MAX || m->start > INT64_MAX)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/mem", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pr_debug("usym: %d: cannot read its vdso: %s\n", tgid, strerror(errno));
		return 0;
	}
	img = malloc(len);
	if (!img) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, img, len, (off_t)m->start);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (n < 0 || (size_t)n != len) {
		pr_debug("usym: %d: cannot read its vdso: %s\n", tgid,
			 err ? strerror(-err) : "short read");
		free(img);
		return 0;
	}
	err = 0;
	key.img_hash = fnv1a(img, len);
	key.img_len = len;
	d = rc_usym__dso_find(u, &key);
	if (!d) {
		d = rc_dso__from_image(img, len, "[vdso]");
		if (!d) {
			err = -ENOMEM;
			goto out;
		}
		d->img_hash = key.img_hash;
		d->img_len = len;
		err = rc_usym__dso_add(u, &key, d);
		if (err) {
			rc_dso__free(d);
			goto out;
		}
	}
	m->dso = d;
	m->name = d->name;
out:
	free(img);
	return err;
}

/* One line of /proc/PID/maps: "START-END PERMS PGOFF MAJ:MIN INODE [PATH]". */
static int snap_add_line(struct rc_usym *u, struct usym_snap *s, int tgid, char *line,
			 const struct rc_dso_where *w)
{
	unsigned long long ino;
	uint64_t start, end, pgoff;
	unsigned int maj, min;
	struct usym_map *m;
	char perms[5], *path;
	size_t len;
	int n = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %llu %n", &start, &end,
		   perms, &pgoff, &maj, &min, &ino, &n) < 7 ||
	    !n)
		return 0;
	if (strlen(perms) < 3 || perms[2] != 'x' || start >= end)
		return 0;
	path = line + n;
	len = strlen(path);
	while (len && path[len - 1] == '\n')
		path[--len] = '\0';
	m = snap_new_map(s, start, end, pgoff);
	if (!m)
		return -ENOMEM;
	if (!*path) {
		m->name = ANON_NAME;
		return 0;
	}
	if (!strcmp(path, "[vdso]"))
		return rc_usym__snap_add_vdso(u, tgid, m);
	if (path[0] == '[') {
		/* [vsyscall], [anon:NAME] and the like: anonymous, named */
		m->own_name = strdup(path);
		m->name = m->own_name;
		return m->own_name ? 0 : -ENOMEM;
	}
	return snap_add_file(u, tgid, m, path, w);
}

/* The process's PID in its own namespace, the innermost of NSpid; @tgid if unknown. */
static int ns_pid(int tgid)
{
	char path[64], *line = NULL, *p, *end;
	size_t cap = 0;
	int pid = tgid;
	long v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tgid);
	f = fopen(path, "re");
	if (!f)
		return tgid;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		for (p = line + 6;; p = end) {
			v = strtol(p, &end, 10);
			if (end == p)
				break;
			if (v > 0 && v <= INT32_MAX)
				pid = v;
		}
		break;
	}
	free(line);
	fclose(f);
	return pid;
}

/*
 * The perf map of a process, as it names it: /tmp/perf-NSPID.map under its
 * root. Root reads it, so it must be the process's user's (or root's), and
 * a regular file, not a link someone left in /tmp.
 */
static int snap_read_perfmap(struct usym_snap *s, int tgid)
{
	char path[96], dir[32];
	struct stat st, pst;
	int fd, nspid, err;
	FILE *f;

	nspid = ns_pid(tgid);
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", tgid, nspid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && errno != ENOENT && errno != ELOOP && nspid == tgid) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", tgid);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	}
	if (fd < 0)
		return 0;
	snprintf(dir, sizeof(dir), "/proc/%d", tgid);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || stat(dir, &pst) ||
	    (st.st_uid != 0 && st.st_uid != pst.st_uid)) {
		pr_debug("usym: '%s' ignored: not a regular file of the process's user\n", path);
		close(fd);
		return 0;
	}
	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		close(fd);
		return err == -ENOMEM ? err : 0;
	}
	err = rc_perfmap__read(f, &s->perfmap);
	fclose(f);
	if (err) {
		pr_debug("usym: '%s': %s\n", path, strerror(-err));
		return err == -ENOMEM ? err : 0;
	}
	if (asprintf(&s->perfmap_name, "[perf-%d.map]", tgid) < 0) {
		s->perfmap_name = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A process with no mapping: gone, or a zombie, or a kernel thread (not gone). */
static bool proc_gone(int tgid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	/* "PID (COMM) STATE ...", COMM may hold ')' */
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

static int map_cmp(const void *pa, const void *pb)
{
	const struct usym_map *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

int rc_usym__add_process(struct rc_usym *u, int tgid)
{
	struct rc_dso_where where;
	char path[64], root[32];
	struct usym_snap *s;
	struct usym_proc *p;
	size_t cap = 0, lines = 0;
	char *line = NULL;
	int err = 0;
	FILE *f;

	if (tgid < 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	s = calloc(1, sizeof(*s));
	if (!s) {
		fclose(f);
		return -ENOMEM;
	}
	s->taken[0] = rc_now_ns(CLOCK_BOOTTIME);
	where = rc_usym__where_of(u, tgid, root);
	while (!err) {
		errno = 0;
		if (getline(&line, &cap, f) < 0) {
			if (ferror(f))
				err = errno ? -errno : -EIO;
			break;
		}
		lines++;
		err = snap_add_line(u, s, tgid, line, &where);
	}
	free(line);
	fclose(f);
	s->taken[1] = rc_now_ns(CLOCK_BOOTTIME);
	/* a zombie's maps are empty */
	if (!err && !lines && proc_gone(tgid))
		err = -ESRCH;
	err = err ?: snap_read_perfmap(s, tgid);
	if (err)
		goto err_out;
	if (s->nr_maps) /* none (a kernel thread, an exec half done): maps is NULL */
		qsort(s->maps, s->nr_maps, sizeof(*s->maps), map_cmp);
	p = rc_usym__proc(u, tgid);
	if (p) {
		/* names it returned stay valid: the old snapshot is kept aside */
		p->snap->next = u->replaced;
		u->replaced = p->snap;
		p->snap = s;
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		err = -ENOMEM;
		goto err_out;
	}
	p->tgid = tgid;
	p->snap = s;
	err = rc_usym__proc_add(u, tgid, p);
	if (err) {
		free(p);
		goto err_out;
	}
	return 0;
err_out:
	rc_usym__snap_free(s);
	return err;
}
