// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ftrace backend's rings: the CPUs that have one, what both readers
 * share (the fill rate, the overwritten events owed), and the mapped
 * reader: each CPU's trace_pipe_raw mapped (a meta page, then the
 * sub-buffers), and the reader sub-buffer the kernel hands out with
 * TRACE_MMAP_IOCTL_GET_READER (Documentation/trace/ring-buffer-map.rst).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "capture/ftrace/ft.h"
#include "util/util.h"
#include "util/sysfs.h"

/* ---- the rings --------------------------------------------------------- */

static int map_refused(const char *path, int err)
{
	if (err == -ENOMEM)
		pr_warn("cannot map %s: %s: try a smaller --buffer-size\n", path, strerror(-err));
	else if (err == -EBUSY)
		pr_warn("cannot map %s: %s: the ring is being resized or read another way\n", path,
			strerror(-err));
	else
		pr_warn("cannot map %s: %s. Mapping ftrace's ring buffer needs Linux 6.10 or "
			"later, with tracefs mmap support: use --ftrace-read=splice\n",
			path, strerror(-err));
	return err;
}

static int map_cpu(struct rc_ftrace *f, struct rc_ftrace_cpu *c)
{
	long page = sysconf(_SC_PAGESIZE);
	char file[64], path[PATH_MAX];
	struct trace_buffer_meta m;
	void *p;
	int err;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	err = rc_tracefs_instance__path(&f->inst, path, sizeof(path), file);
	if (err)
		return err;
	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		err = -errno;
		pr_warn("cannot open %s: %s\n", path, strerror(errno));
		return err;
	}
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, c->fd, 0);
	if (p == MAP_FAILED)
		return map_refused(path, -errno);
	memcpy(&m, p, sizeof(m) < (size_t)page ? sizeof(m) : (size_t)page);
	munmap(p, page);
	if (m.meta_struct_len < META_NEEDED || m.meta_page_size < m.meta_struct_len ||
	    m.meta_page_size % page || m.subbuf_size <= SUBBUF_HDR || m.subbuf_size % page ||
	    m.nr_subbufs < 2) {
		pr_warn("%s: the kernel's meta page (struct trace_buffer_meta of %u bytes, %u "
			"sub-buffers of %u bytes) is not one ringcap knows: use --transport "
			"ringbuf\n",
			path, m.meta_struct_len, m.nr_subbufs, m.subbuf_size);
		return -EOPNOTSUPP;
	}
	c->meta_len = m.meta_page_size;
	p = mmap(NULL, c->meta_len, PROT_READ, MAP_SHARED, c->fd, 0);
	if (p == MAP_FAILED)
		return map_refused(path, -errno);
	c->meta = p;
	c->subbuf_size = m.subbuf_size;
	c->nr_subbufs = m.nr_subbufs;
	c->data_len = (size_t)m.subbuf_size * m.nr_subbufs;
	p = mmap(NULL, c->data_len, PROT_READ, MAP_SHARED, c->fd, c->meta_len);
	if (p == MAP_FAILED) {
		c->data_len = 0;
		return map_refused(path, -errno);
	}
	c->data = p;
	c->id = NO_SUBBUF;
	return 0;
}

static void unmap_cpu(struct rc_ftrace_cpu *c)
{
	if (c->data)
		munmap(c->data, c->data_len);
	if (c->meta)
		munmap((void *)c->meta, c->meta_len);
	if (c->fd >= 0)
		close(c->fd);
	c->data = NULL;
	c->meta = NULL;
	c->fd = -1;
}

/* The kernel gives an instance no ring for a CPU offline when it was made. */
static bool cpu_online(int cpu)
{
	char path[64], *text = NULL;
	bool on;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	if (rc_sysfs__read(path, SIZE_MAX, &text, NULL))
		return access(path, F_OK) != 0; /* no such file: a CPU that cannot go offline */
	on = text[0] != '0';
	free(text);
	return on;
}

/* The CPUs with a ring in the instance: per_cpu/cpuN of the online ones, opened. */
int rc_ftrace__open_cpus(struct rc_ftrace *f)
{
	char path[PATH_MAX];
	int i, err;

	f->cpus = calloc(f->c.ncpus, sizeof(*f->cpus));
	f->pfds = calloc(f->c.ncpus, sizeof(*f->pfds));
	if (!f->cpus || !f->pfds)
		return -ENOMEM;
	for (i = 0; i < f->c.ncpus; i++) {
		struct rc_ftrace_cpu *c = &f->cpus[f->ncpus];
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%d", i);
		err = rc_tracefs_instance__path(&f->inst, path, sizeof(path), file);
		if (err)
			return err;
		if (access(path, F_OK) || !cpu_online(i))
			continue;
		c->cpu = i;
		c->fd = c->pipe[0] = c->pipe[1] = -1;
		f->ncpus++;
		err = f->rd->open_cpu(f, c);
		if (err)
			return err;
		f->pfds[f->ncpus - 1] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
	}
	return f->ncpus ? 0 : -ENODEV;
}

void rc_ftrace__close_cpus(struct rc_ftrace *f)
{
	int i;

	for (i = 0; f->cpus && i < f->ncpus; i++)
		f->rd->close_cpu(&f->cpus[i]);
}

static const unsigned char *subbuf(const struct rc_ftrace_cpu *c, uint32_t id)
{
	return c->data + (size_t)id * c->subbuf_size;
}

/* The bytes of events the kernel has committed to a sub-buffer. */
static uint32_t committed(const struct rc_ftrace_cpu *c, const unsigned char *sb)
{
	/*
	 * local_t, but the kernel reads it as an unsigned int (rb_page_commit())
	 * and sets RB_MISSED_EVENTS with an int's sign: bits 32-63 then too.
	 */
	uint32_t commit = __atomic_load_n((const uint64_t *)(sb + 8), __ATOMIC_ACQUIRE);
	uint32_t len = commit & ~COMMIT_FLAGS;

	return len > c->subbuf_size - SUBBUF_HDR ? c->subbuf_size - SUBBUF_HDR : len;
}

/*
 * The kernel's count of what it overwrote on @c's ring is @overrun: what
 * is more than was owed so far is owed as a ringcap:lost record, at @ts
 * unless one is already pending.
 */
void rc_ftrace__owe_overrun(struct rc_ftrace_cpu *c, uint64_t overrun, uint64_t ts)
{
	if (overrun <= c->overrun + c->lost_pending)
		return;
	if (!c->lost_pending)
		c->lost_ts = ts;
	c->lost_pending = overrun - c->overrun;
}

/*
 * The sub-buffer c->cur walks is done with: if it was at least half full,
 * the time its events took says how long the whole ring takes to fill.
 */
void rc_ftrace__note_rate(struct rc_ftrace_cpu *c)
{
	uint32_t data = c->subbuf_size - SUBBUF_HDR;

	if (!c->taken || c->cur.len < data / 2 || c->cur.ts <= c->page_ts)
		return;
	c->ring_ns = rc_ftrace__ring_ns(c->cur.ts - c->page_ts, c->cur.len, data, c->nr_subbufs);
}

/*
 * Ask the kernel for the reader sub-buffer and point c->cur at what it
 * holds. 1 when an event is waiting, 0 when none is, or -errno.
 */
static int get_reader(struct rc_ftrace_cpu *c)
{
	const unsigned char *sb;
	uint32_t id;

	if (ioctl(c->fd, TRACE_MMAP_IOCTL_GET_READER) < 0) {
		int err = -errno;

		pr_warn("cpu %d: TRACE_MMAP_IOCTL_GET_READER failed: %s\n", c->cpu,
			strerror(errno));
		return err;
	}
	id = c->meta->reader.id;
	if (id >= c->nr_subbufs) {
		pr_warn("cpu %d: the kernel's reader sub-buffer id %u is beyond its %u\n", c->cpu,
			id, c->nr_subbufs);
		return -EPROTO;
	}
	sb = subbuf(c, id);
	if (id != c->id) {
		/*
		 * The commit word first, with acquire: the page's time stamp is
		 * read after it, so that on a weakly ordered CPU (arm64) it is
		 * not older than the events the commit covers. (An initializer
		 * list's order of evaluation is unspecified.)
		 */
		uint32_t len = committed(c, sb);

		rc_ftrace__note_rate(c);
		c->id = id;
		c->taken++;
		c->cur = (struct rc_ft_cursor){
			.buf = sb + SUBBUF_HDR,
			.len = len,
			.ts = __atomic_load_n((const uint64_t *)sb, __ATOMIC_RELAXED),
		};
		c->page_ts = c->cur.ts;
	} else {
		c->cur.len = committed(c, sb);
	}
	rc_ftrace__owe_overrun(c, c->meta->overrun, c->cur.ts);
	return c->cur.pos < c->cur.len;
}

/*
 * Have c->cur cover every event committed so far: the rest of the reader
 * sub-buffer, or, when all of it was taken, the next one (the ioctl hands
 * the kernel back the one we are done with). 1 when an event is waiting.
 *
 * An ioctl that finds events on the reader sub-buffer the kernel has not
 * yet counted as read (those committed since the last ioctl) counts them
 * and hands back the same sub-buffer, even when the ring holds more: only
 * a second ioctl swaps in the next. Without it a full ring looks empty
 * until the next drain, and its events come too late for their place.
 */
static int map_refill(struct rc_ftrace *f, struct rc_ftrace_cpu *c)
{
	uint32_t id = c->id;
	int r;

	if (id != NO_SUBBUF) {
		uint32_t len = committed(c, subbuf(c, id));

		if (len > c->cur.len)
			c->cur.len = len;
		if (c->cur.pos < c->cur.len)
			return 1;
	}
	r = get_reader(c);
	if (r || c->id != id)
		return r;
	return get_reader(c);
}

/* The meta page counts what the kernel wrote and overwrote, as it hands out sub-buffers. */
static void map_counters(const struct rc_ftrace_cpu *c, struct rc_ftrace_kstats *k)
{
	k->written = c->meta->entries;
	k->overrun = c->meta->overrun;
}

const struct rc_ftrace_reader rc_ftrace_mmap_reader = {
	.name = "mmap",
	.open_cpu = map_cpu,
	.close_cpu = unmap_cpu,
	.refill = map_refill,
	.counters = map_counters,
};

/* The number after "@key:" at the start of a line of @text, or 0 without one. */
uint64_t rc_ftrace__stat_value(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoull(p + len + 1, NULL, 10);
	}
	return 0;
}

/*
 * per_cpu/cpuN/stats: what the kernel wrote to @c's ring (what it holds,
 * overwrote and handed out as read), what it overwrote, what it lost
 * otherwise (commit overruns, dropped events) and the bytes waiting; then
 * the reader's own counters over it. c->extra_lost is set.
 */
int rc_ftrace__read_kstats(const struct rc_ftrace *f, struct rc_ftrace_cpu *c,
			   struct rc_ftrace_kstats *k)
{
	char file[64], path[PATH_MAX], *text = NULL;
	int err;

	*k = (struct rc_ftrace_kstats){};
	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c->cpu);
	err = rc_tracefs_instance__path(&f->inst, path, sizeof(path), file)
		  ?: rc_sysfs__read(path, SIZE_MAX, &text, NULL);
	if (!err) {
		k->overrun = rc_ftrace__stat_value(text, "overrun");
		k->written = rc_ftrace__stat_value(text, "entries") + k->overrun +
			     rc_ftrace__stat_value(text, "read events");
		k->extra_lost = rc_ftrace__stat_value(text, "commit overrun") +
				rc_ftrace__stat_value(text, "dropped events");
		k->pending = rc_ftrace__stat_value(text, "bytes");
		c->extra_lost = k->extra_lost;
		free(text);
	}
	if (f->rd->counters)
		f->rd->counters(c, k);
	return err;
}
