// SPDX-License-Identifier: GPL-2.0-only
/*
 * The user-space symbolizer: snapshots of processes' executable mappings
 * (/proc/PID/maps), the objects they map shared between them (dso.c), and
 * the lookup of an address through its mapping, as perf's map__map_ip()
 * and dso__find_symbol() do.
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
#include "symbol/dso.h"
#include "symbol/perfmap.h"
#include "symbol/usym.h"
#include "util/file.h"
#include "util/mem.h"

#define FD_BUDGET_MAX 256	/* files held open for later, at most */
#define VDSO_MAX      (1 << 20) /* bytes; the vdso is a few pages */
#define ANON_NAME     "//anon"	/* perf's name for anonymous memory */

/* An executable mapping of a snapshot. */
struct usym_map {
	uint64_t start, end, pgoff;
	struct rc_dso *dso; /* NULL: not readable, or anonymous */
	const char *name;   /* the dso's name, own_name, or a constant */
	char *own_name;	    /* the process's path when the dso has another, or a [name] */
	bool file;	    /* a file's mapping (dso NULL: the file could not be opened) */
};

/* A process as a snapshot saw it. */
struct usym_snap {
	struct usym_map *maps;
	size_t nr_maps, maps_cap;
	struct rc_symtab perfmap;
	char *perfmap_name;	/* "[perf-PID.map]"; NULL when none was read */
	uint64_t taken[2];	/* CLOCK_BOOTTIME before and after /proc/PID/maps was read */
	struct usym_snap *next; /* in the list of those replaced */
};

struct usym_proc {
	int tgid;
	struct usym_snap *snap;
};

/* Open addressing, linear probing; no deletion. */
struct htab_slot {
	uint64_t hash;
	void *item;
};

struct htab {
	struct htab_slot *v;
	size_t cap, cnt; /* cap: 0 or a power of 2 */
};

struct rc_usym {
	struct htab procs; /* struct usym_proc, by tgid */
	struct htab dsos;  /* struct rc_dso, by file identity or image */
	struct usym_snap *replaced;
	int fds, fd_budget;
	struct htab sbprocs; /* struct usym_sbproc, by tgid: what the side-band saw */
	bool lines; /* read DWARF for source lines (rc_usym__set_lines()) */
};

static void sb_free(struct rc_usym *u);

/* ---- a small hash table ------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
	/* splitmix64's finalizer */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static void *htab_find(const struct htab *h, uint64_t hash, bool (*eq)(const void *, const void *),
		       const void *key)
{
	size_t i;

	if (!h->cap)
		return NULL;
	for (i = hash & (h->cap - 1); h->v[i].item; i = (i + 1) & (h->cap - 1))
		if (h->v[i].hash == hash && eq(h->v[i].item, key))
			return h->v[i].item;
	return NULL;
}

static void htab_put(struct htab_slot *v, size_t cap, uint64_t hash, void *item)
{
	size_t i;

	for (i = hash & (cap - 1); v[i].item; i = (i + 1) & (cap - 1))
		;
	v[i].hash = hash;
	v[i].item = item;
}

static int htab_add(struct htab *h, uint64_t hash, void *item)
{
	struct htab_slot *v;
	size_t i, cap;

	/* at most 3/4 full */
	if ((h->cnt + 1) > h->cap / 4 * 3) {
		cap = h->cap ? h->cap * 2 : 64;
		if (cap > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = calloc(cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (i = 0; i < h->cap; i++)
			if (h->v[i].item)
				htab_put(v, cap, h->v[i].hash, h->v[i].item);
		free(h->v);
		h->v = v;
		h->cap = cap;
	}
	htab_put(h->v, h->cap, hash, item);
	h->cnt++;
	return 0;
}

/* ---- processes and objects --------------------------------------------- */

static bool proc_eq(const void *item, const void *key)
{
	return ((const struct usym_proc *)item)->tgid == *(const int *)key;
}

static struct usym_proc *proc_find(const struct rc_usym *u, int tgid)
{
	return htab_find(&u->procs, mix64((uint32_t)tgid), proc_eq, &tgid);
}

/* What identifies a dso: a file's identity, or an image's bytes. */
struct dso_key {
	const struct stat *st;
	uint64_t img_hash;
	size_t img_len;
};

static uint64_t dso_key_hash(const struct dso_key *k)
{
	if (!k->st)
		return mix64(k->img_hash ^ mix64(k->img_len));
	return mix64((uint64_t)k->st->st_dev ^
		     mix64((uint64_t)k->st->st_ino ^ mix64((uint64_t)k->st->st_size)));
}

static bool dso_eq(const void *item, const void *key)
{
	const struct rc_dso *d = item;
	const struct dso_key *k = key;

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

static uint64_t fnv1a(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void snap_free(struct usym_snap *s)
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
static void dso_load(struct rc_usym *u, struct rc_dso *d)
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
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->procs.cap; i++) {
		struct usym_proc *p = u->procs.v[i].item;

		if (p) {
			snap_free(p->snap);
			free(p);
		}
	}
	for (i = 0; i < u->dsos.cap; i++)
		rc_dso__free(u->dsos.v[i].item);
	for (s = u->replaced; s; s = next) {
		next = s->next;
		snap_free(s);
	}
	sb_free(u);
	free(u->procs.v);
	free(u->dsos.v);
	free(u);
}

void rc_usym__set_lines(struct rc_usym *u, bool on)
{
	u->lines = on;
}

bool rc_usym__has(const struct rc_usym *u, int tgid)
{
	return proc_find(u, tgid) != NULL;
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
static int file_dso(struct rc_usym *u, int fd, const char *path, const struct rc_dso_where *w,
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
	d = htab_find(&u->dsos, dso_key_hash(&key), dso_eq, &key);
	if (d) {
		close(fd);
		*out = d;
		return 0;
	}
	d = rc_dso__open_fd(fd, &st, path, w);
	if (!d)
		return -ENOMEM;
	err = htab_add(&u->dsos, dso_key_hash(&key), d);
	if (err) {
		rc_dso__free(d);
		return err;
	}
	fds = rc_dso__fds(d);
	u->fds += fds;
	/* no more descriptors held: read its symbols now */
	if (fds && u->fds > u->fd_budget)
		dso_load(u, d);
	*out = d;
	return 0;
}

/*
 * Where @tgid's files' debug files are looked for: the debug directory,
 * and, in another mount namespace, under its root (@root, 32 bytes, is
 * filled then), as long as it lives.
 */
static struct rc_dso_where where_of(const struct rc_usym *u, int tgid, char *root)
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
	else if ((err = file_dso(u, fd, path, w, &m->dso)))
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
static int snap_add_vdso(struct rc_usym *u, int tgid, struct usym_map *m)
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
	d = htab_find(&u->dsos, dso_key_hash(&key), dso_eq, &key);
	if (!d) {
		d = rc_dso__from_image(img, len, "[vdso]");
		if (!d) {
			err = -ENOMEM;
			goto out;
		}
		d->img_hash = key.img_hash;
		d->img_len = len;
		err = htab_add(&u->dsos, dso_key_hash(&key), d);
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
		return snap_add_vdso(u, tgid, m);
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
	where = where_of(u, tgid, root);
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
	p = proc_find(u, tgid);
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
	err = htab_add(&u->procs, mix64((uint32_t)tgid), p);
	if (err) {
		free(p);
		goto err_out;
	}
	return 0;
err_out:
	snap_free(s);
	return err;
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

int rc_usym__resolve(struct rc_usym *u, int tgid, uint64_t addr, struct rc_usym_hit *out)
{
	const struct usym_map *m;
	const struct usym_proc *p;
	const struct usym_snap *s;
	uint64_t vaddr, off;
	const char *name;

	memset(out, 0, sizeof(*out));
	p = proc_find(u, tgid);
	if (!p)
		return -ENOENT;
	s = p->snap;
	m = snap_find(s, addr);
	if (m && m->dso) {
		out->dso = m->name;
		out->file_off = addr - m->start + m->pgoff;
		out->build_id = m->dso->build_id;
		dso_load(u, m->dso);
		if (!rc_dso__vaddr(m->dso, out->file_off, &vaddr))
			return 1;
		out->lines = m->dso->lines;
		out->vaddr = vaddr;
		out->sym = rc_symtab__find(&m->dso->syms, vaddr, &out->sym_off);
		return out->sym ? 0 : 1;
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

/* ---- what the side-band saw --------------------------------------------- */

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

static bool sbproc_eq(const void *item, const void *key)
{
	return ((const struct usym_sbproc *)item)->tgid == *(const int *)key;
}

static struct usym_sbproc *sbproc_find(const struct rc_usym *u, int tgid)
{
	return htab_find(&u->sbprocs, mix64((uint32_t)tgid), sbproc_eq, &tgid);
}

static void sbimg_free(struct usym_sbimg *img)
{
	size_t i;

	for (i = 0; i < img->nr_maps; i++)
		free(img->maps[i].m.own_name);
	free(img->maps);
}

static void sb_free(struct rc_usym *u)
{
	size_t i, k;

	for (i = 0; i < u->sbprocs.cap; i++) {
		struct usym_sbproc *p = u->sbprocs.v[i].item;

		if (!p)
			continue;
		for (k = 0; k < p->nr_imgs; k++)
			sbimg_free(&p->imgs[k]);
		free(p->imgs);
		free(p);
	}
	free(u->sbprocs.v);
}

/* The side-band's record of @tgid, made with its first image (since 0) when new. */
static struct usym_sbproc *sbproc_get(struct rc_usym *u, int tgid)
{
	struct usym_sbproc *p = sbproc_find(u, tgid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	if (rc_ensure_arr(&p->imgs, &p->imgs_cap, 1, 2) ||
	    htab_add(&u->sbprocs, mix64((uint32_t)tgid), p)) {
		free(p->imgs);
		free(p);
		return NULL;
	}
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
		*out = htab_find(&u->dsos, dso_key_hash(&key), dso_eq, &key);
	}
	if (*out || mp->fd < 0 || !mp->has_st || !S_ISREG(mp->st.st_mode)) {
		if (mp->fd >= 0)
			close(mp->fd);
		mp->fd = -1;
		return 0;
	}
	where = where_of(u, tgid, root);
	fd = mp->fd;
	mp->fd = -1;
	return file_dso(u, fd, mp->path, &where, out);
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
	size_t i;

	for (i = 0; i < u->dsos.cap; i++) {
		struct rc_dso *d = u->dsos.v[i].item;

		if (d && d->img_len == len && !strcmp(d->name, "[vdso]"))
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
		err = snap_add_vdso(u, tgid, m);
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
	uint64_t vaddr;

	out->dso = m->name;
	out->file_off = addr - m->start + (m->file || m->dso ? m->pgoff : 0);
	if (!m->dso)
		return 1;
	out->build_id = m->dso->build_id;
	dso_load(u, m->dso);
	if (!rc_dso__vaddr(m->dso, out->file_off, &vaddr))
		return 1;
	out->lines = m->dso->lines;
	out->vaddr = vaddr;
	out->sym = rc_symtab__find(&m->dso->syms, vaddr, &out->sym_off);
	return out->sym ? 0 : 1;
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
		sp = proc_find(u, tgid);
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

/* @fn of @m when it maps an ELF file's bytes: 0 when it does not; else @fn's return, or 1. */
static int file_map_out(const struct usym_map *m,
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
static int snap_files(const struct usym_snap *s,
		      int (*fn)(const struct rc_usym_map *m, void *arg), void *arg)
{
	int ret, n = 0;
	size_t i;

	for (i = 0; i < s->nr_maps; i++) {
		ret = file_map_out(&s->maps[i], fn, arg);
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n;
}

int rc_usym__for_each_file(const struct rc_usym *u, int tgid,
			   int (*fn)(const struct rc_usym_map *m, void *arg), void *arg)
{
	const struct usym_proc *p = proc_find(u, tgid);
	int ret;

	if (!p)
		return -ENOENT;
	ret = snap_files(p->snap, fn, arg);
	return ret < 0 ? ret : 0;
}

/* As resolve_at() chooses mappings: the side-band's image at @ts, the snapshot, the parent's. */
static int files_at(const struct rc_usym *u, int tgid, uint64_t ts,
		    int (*fn)(const struct rc_usym_map *m, void *arg), void *arg, int depth)
{
	const struct usym_sbimg *img = NULL;
	const struct usym_sbproc *p = sbproc_find(u, tgid);
	const struct usym_proc *sp = proc_find(u, tgid);
	bool snap_other = false;
	int ret, n = 0;
	size_t at, i;

	if (p) {
		at = sbimg_at(p, ts);
		img = &p->imgs[at];
		for (i = 0; i < img->nr_maps; i++) {
			if (img->maps[i].ts > ts)
				continue;
			ret = file_map_out(&img->maps[i].m, fn, arg);
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
		ret = snap_files(sp->snap, fn, arg);
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
