// SPDX-License-Identifier: GPL-2.0-only
/*
 * A set of capture files read as one (format/set.h, struct rc_set): files,
 * directories of them and glob patterns, each file read by its own
 * reader, records merged in time order by a heap over the readers' next
 * records. Files of one host share the capture clock and merge by it;
 * files of several hosts (or boots) merge by wall-clock time, each file's
 * times moved by its own wall-clock offset.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format/set.h"
#include "util/util.h"
#include "format.h"
#include "util/mem.h"

#define SET_MAX_FILES 65536

struct set_file {
	char *path;
	struct rc_reader *r;
	const struct rc_meta *m;
	uint64_t off;	/* added to the file's times: the set's time (0, or wall offset) */
	uint64_t start; /* the file's start, in the set's time */
	const struct rc_rec_hdr *rec; /* its next record, in the heap; NULL when none */
	bool done, skipped;
};

struct rc_set {
	uint64_t start; /* the earliest file's start */
	struct set_file *files;
	size_t n, cap;
	size_t *heap; /* file indexes, by their next record's time, then index */
	size_t nheap;
	size_t pending; /* the file whose record was handed out last: read on first */
	bool wall, started;
	uint64_t since, until;
};

static int add_path(struct rc_set *s, const char *path)
{
	struct set_file *f;
	char *p;
	int err;

	if (s->n >= SET_MAX_FILES) {
		pr_warn("too many capture files: at most %d\n", SET_MAX_FILES);
		return -E2BIG;
	}
	err = rc_ensure_arr(&s->files, &s->cap, s->n + 1, 16);
	if (err)
		return err;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	f = &s->files[s->n++];
	memset(f, 0, sizeof(*f));
	f->path = p;
	return 0;
}

/* Whether @path starts as a capture does: a HEADER block holding the magic. */
static bool is_capture(const char *path)
{
	unsigned char b[24];
	uint32_t magic, type;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = pread(fd, b, sizeof(b), 0);
	close(fd);
	if (n != (ssize_t)sizeof(b))
		return false;
	memcpy(&magic, b, 4);
	memcpy(&type, b + 8, 4);
	return magic == RC_FRAME_MAGIC && type == RC_BLOCK_HEADER &&
	       !memcmp(b + 16, RC_FILE_MAGIC, 8);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's capture files, by name; others passed over with a note. */
static int add_dir(struct rc_set *s, const char *dir)
{
	char **names = NULL, *p;
	size_t n = 0, cap = 0, i;
	const char *sep;
	struct dirent *de;
	struct stat st;
	int err = 0;
	DIR *d;

	sep = *dir && dir[strlen(dir) - 1] == '/' ? "" : "/";
	d = opendir(dir);
	if (!d) {
		err = -errno;
		pr_warn("failed to open directory '%s': %s\n", dir, strerror(-err));
		return err;
	}
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		/* "dir/" as given: no second slash */
		if (asprintf(&p, "%s%s%s", dir, sep, de->d_name) < 0) {
			err = -ENOMEM;
			break;
		}
		if (stat(p, &st) || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		if (!is_capture(p)) {
			pr_info("note: '%s' is not a capture file: passed over\n", p);
			free(p);
			continue;
		}
		err = rc_ensure_arr(&names, &cap, n + 1, 64);
		if (err) {
			free(p);
			break;
		}
		names[n++] = p;
	}
	closedir(d);
	if (!err && !n) {
		pr_warn("no capture files in directory '%s'\n", dir);
		err = -ENOENT;
	}
	if (!err)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		err = err ?: add_path(s, names[i]);
		free(names[i]);
	}
	free(names);
	return err;
}

static int add_glob(struct rc_set *s, const char *pattern)
{
	glob_t g = {};
	size_t i;
	int err, rc;

	rc = glob(pattern, GLOB_NOSORT | GLOB_BRACE, NULL, &g); /* sorted below, as a whole */
	if (rc == GLOB_NOMATCH) {
		pr_warn("no file matches '%s'\n", pattern);
		return -ENOENT;
	}
	if (rc) {
		pr_warn("failed to expand '%s'\n", pattern);
		globfree(&g);
		return rc == GLOB_NOSPACE ? -ENOMEM : -EIO;
	}
	qsort(g.gl_pathv, g.gl_pathc, sizeof(*g.gl_pathv), cmp_str);
	for (i = 0, err = 0; !err && i < g.gl_pathc; i++)
		err = add_path(s, g.gl_pathv[i]);
	globfree(&g);
	return err;
}

static int add_arg(struct rc_set *s, const char *arg)
{
	struct stat st;

	if (!strcmp(arg, "-"))
		return add_path(s, arg);
	if (!stat(arg, &st))
		return S_ISDIR(st.st_mode) ? add_dir(s, arg) : add_path(s, arg);
	if (strpbrk(arg, "*?[{"))
		return add_glob(s, arg); /* quoted, so the shell did not expand it */
	/* no such file: the reader says so, naming it */
	return add_path(s, arg);
}

static bool boot_known(const struct rc_meta *m)
{
	static const uint8_t zero[16];

	return m->has_run && memcmp(m->run.boot_id, zero, sizeof(zero));
}

/*
 * Whether two files' times are of one clock: one boot of one host. By the
 * boot id of their RUN sections (v1.9) when both know it; else by the host
 * name.
 */
static bool same_clock(const struct rc_meta *a, const struct rc_meta *b)
{
	const char *ha = a->host ? a->host : "", *hb = b->host ? b->host : "";

	if (boot_known(a) && boot_known(b))
		return !memcmp(a->run.boot_id, b->run.boot_id, sizeof(a->run.boot_id));
	return !strcmp(ha, hb);
}

static int cmp_file(const void *a, const void *b)
{
	const struct set_file *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->m->run.seq != y->m->run.seq)
		return x->m->run.seq < y->m->run.seq ? -1 : 1;
	return strcmp(x->path, y->path);
}

static bool before(const struct rc_set *s, size_t a, size_t b)
{
	uint64_t ka = s->files[a].rec->ts + s->files[a].off;
	uint64_t kb = s->files[b].rec->ts + s->files[b].off;

	return ka < kb || (ka == kb && a < b);
}

static void heap_push(struct rc_set *s, size_t f)
{
	size_t i = s->nheap++, p;

	s->heap[i] = f;
	while (i && before(s, s->heap[i], s->heap[p = (i - 1) / 2])) {
		size_t t = s->heap[i];

		s->heap[i] = s->heap[p];
		s->heap[p] = t;
		i = p;
	}
}

static size_t heap_pop(struct rc_set *s)
{
	size_t top = s->heap[0], i = 0;

	s->heap[0] = s->heap[--s->nheap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i, t;

		if (l < s->nheap && before(s, s->heap[l], s->heap[m]))
			m = l;
		if (r < s->nheap && before(s, s->heap[r], s->heap[m]))
			m = r;
		if (m == i)
			break;
		t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
	return top;
}

/* Why rc_reader__open() failed, in words naming the cause (its own message does not name the file).
 */
static const char *open_error(int err)
{
	switch (err) {
	case -EBADMSG:
		return "not a capture, or its header is corrupt";
	case -ENODATA:
		return "empty, or cut short inside its header";
	case -EPROTONOSUPPORT:
		return "another major version of the format";
	case -EMFILE:
	case -ENFILE:
		return "too many files open at once: raise 'ulimit -n'";
	default:
		return strerror(-err);
	}
}

struct file_id {
	dev_t dev;
	ino_t ino;
	size_t idx;
};

static int cmp_id(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The same file named twice (a directory and a glob) is read once: its first naming kept. */
static int dedupe(struct rc_set *s)
{
	struct file_id *id = calloc(s->n ? s->n : 1, sizeof(*id));
	size_t i, k = 0, nid = 0;
	struct stat st;

	if (!id)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		if (stat(s->files[i].path, &st) || !S_ISREG(st.st_mode))
			continue; /* standard input, or what the reader will refuse */
		id[nid++] = (struct file_id){ st.st_dev, st.st_ino, i };
	}
	qsort(id, nid, sizeof(*id), cmp_id);
	for (i = 1; i < nid; i++) {
		if (id[i].dev != id[i - 1].dev || id[i].ino != id[i - 1].ino)
			continue;
		free(s->files[id[i].idx].path);
		s->files[id[i].idx].path = NULL; /* a repeat: dropped below */
	}
	free(id);
	for (i = 0; i < s->n; i++)
		if (s->files[i].path)
			s->files[k++] = s->files[i];
	s->n = k;
	return 0;
}

struct rc_set *rc_set__open(const char *const *paths, size_t npaths)
{
	struct rc_set *s = calloc(1, sizeof(*s));
	size_t i;
	int err = s ? 0 : -ENOMEM;

	for (i = 0; !err && i < npaths; i++)
		err = add_arg(s, paths[i]);
	if (!err && !s->n) {
		pr_warn("no capture files given\n");
		err = -ENOENT;
	}
	err = err ?: dedupe(s);
	for (i = 0; !err && i < s->n; i++) {
		struct set_file *f = &s->files[i];

		f->r = rc_reader__open(f->path);
		if (!f->r) {
			err = -errno;
			/* the reader said what it met; this names the file */
			pr_warn("failed to read '%s': %s\n", f->path,
				*rc_reader__open_error() ? rc_reader__open_error()
							 : open_error(err));
			break;
		}
		f->m = rc_reader__meta(f->r);
		if (!same_clock(f->m, s->files[0].m))
			s->wall = true;
	}
	if (err)
		goto fail;
	for (i = 0; i < s->n; i++) {
		struct set_file *f = &s->files[i];

		f->off = s->wall ? (uint64_t)f->m->wall_offset_ns : 0;
		f->start = f->m->start_ts + f->off;
		/* from the earliest file read, not its run's start: its first files may be gone */
		s->start = !i || f->start < s->start ? f->start : s->start;
	}
	if (s->n > 1 && strcmp(s->files[0].path, "-"))
		qsort(s->files, s->n, sizeof(*s->files), cmp_file);
	s->heap = calloc(s->n, sizeof(*s->heap));
	if (!s->heap) {
		err = -ENOMEM;
		goto fail;
	}
	s->until = UINT64_MAX;
	s->pending = SIZE_MAX;
	return s;
fail:
	rc_set__free(s);
	return rc_err_ptr(err);
}

size_t rc_set__nfiles(const struct rc_set *s)
{
	return s->n;
}

struct rc_reader *rc_set__reader(const struct rc_set *s, size_t i)
{
	return i < s->n ? s->files[i].r : NULL;
}

const struct rc_meta *rc_set__meta(const struct rc_set *s, size_t i)
{
	return i < s->n ? s->files[i].m : NULL;
}

const char *rc_set__path(const struct rc_set *s, size_t i)
{
	return i < s->n ? s->files[i].path : NULL;
}

bool rc_set__by_wall(const struct rc_set *s)
{
	return s->wall;
}

uint64_t rc_set__time(const struct rc_set *s, size_t i, uint64_t ts)
{
	return i < s->n ? ts + s->files[i].off : ts;
}

uint64_t rc_set__start(const struct rc_set *s)
{
	return s->start;
}

uint64_t rc_set__span(const struct rc_set *s)
{
	uint64_t first = UINT64_MAX, last = 0, t;
	size_t i;

	/* of the files read: one the range passed over counts in neither end */
	for (i = 0; i < s->n; i++) {
		if (s->files[i].skipped)
			continue;
		first = s->files[i].start < first ? s->files[i].start : first;
		t = rc_reader__end(s->files[i].r) + s->files[i].off;
		last = t > last ? t : last;
	}
	first = first > s->since ? first : s->since;
	last = last < s->until ? last : s->until;
	return last > first ? last - first : 0;
}

bool rc_set__skipped(const struct rc_set *s, size_t i)
{
	return i < s->n && s->files[i].skipped;
}

/* A time of the set in a file's clock, clamped to the clock's range. */
static uint64_t file_time(const struct set_file *f, uint64_t t)
{
	int64_t off = (int64_t)f->off;
	uint64_t neg;

	if (off >= 0)
		return t < (uint64_t)off ? 0 : t - (uint64_t)off;
	neg = -(uint64_t)off;
	return t > UINT64_MAX - neg ? UINT64_MAX : t + neg;
}

void rc_set__set_range(struct rc_set *s, uint64_t since, uint64_t until)
{
	size_t i;

	if (s->started)
		return;
	s->since = since;
	s->until = until;
	for (i = 0; i < s->n; i++) {
		struct set_file *f = &s->files[i];
		uint64_t fs = since ? file_time(f, since) : 0;
		uint64_t fu = until == UINT64_MAX ? UINT64_MAX : file_time(f, until);
		uint64_t first, last, nrec;

		/* a whole file outside: its trailer says so, nothing else of it is read */
		if ((since || until != UINT64_MAX) && rc_reader__span(f->r, &first, &last, &nrec) &&
		    (!nrec || first > fu || last < fs)) {
			f->skipped = true;
			pr_info(
			    "note: '%s' is outside the range: only its header and trailer read\n",
			    f->path);
			continue;
		}
		rc_reader__set_range(f->r, fs, fu);
	}
}

/* Read file @i's next record into the heap, or mark it done. */
static int advance(struct rc_set *s, size_t i)
{
	struct set_file *f = &s->files[i];
	int err;

	err = rc_reader__next(f->r, &f->rec);
	if (err <= 0) {
		f->rec = NULL;
		f->done = true;
		return err;
	}
	heap_push(s, i);
	return 0;
}

int rc_set__next(struct rc_set *s, const struct rc_rec_hdr **rec, size_t *file)
{
	size_t i;
	int err;

	if (!s->started) {
		s->started = true;
		for (i = 0; i < s->n; i++) {
			if (s->files[i].skipped) {
				s->files[i].done = true;
				continue;
			}
			err = advance(s, i);
			if (err < 0) {
				*file = i;
				return err;
			}
		}
	}
	if (s->pending != SIZE_MAX) {
		i = s->pending;
		s->pending = SIZE_MAX;
		err = advance(s, i);
		if (err < 0) {
			*file = i;
			return err;
		}
	}
	if (!s->nheap)
		return 0;
	i = heap_pop(s);
	s->pending = i;
	*rec = s->files[i].rec;
	*file = i;
	return 1;
}

void rc_set__free(struct rc_set *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		rc_reader__free(s->files[i].r);
		free(s->files[i].path);
	}
	free(s->files);
	free(s->heap);
	free(s);
}
