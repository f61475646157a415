// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ftrace transport (ftrace.h).
 *
 * ringcap makes a tracefs instance of its own, instances/ringcap-PID, and
 * sets everything there: buffer size, clock, pid filter, comm filters,
 * event enables. Nothing outside it is written. Each CPU's trace_pipe_raw
 * is mapped (Documentation/trace/ring-buffer-map.rst): a meta page, then
 * the ring's sub-buffers. TRACE_MMAP_IOCTL_GET_READER hands user space the
 * next sub-buffer, the reader page, which the kernel no longer writes once
 * its events are all committed; the kernel counts what it hands out as
 * read. Events are taken from the reader page in place: their bytes go to
 * zstd as the kernel wrote them (ftpage.h), with no copy of ours.
 *
 * Order: a pass takes every CPU's events up to a watermark (order.h). A
 * chunk ends only between passes, so chunks follow each other in time, and
 * the reader merges the CPUs' events within each chunk.
 *
 * Losses: the instance overwrites its oldest events when a ring is full,
 * as ftrace does by default; the meta page's overrun counts them per CPU,
 * and each increase becomes a ringcap:lost record at the reader page that
 * follows the gap.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/types.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "events.h"
#include "capture/dyn.h"
#include "format/format.h"
#include "format/ftpage.h"
#include "capture/backend.h"
#include "capture/ftrace/ftrace.h"
#include "capture/ftrace/order.h"

/* include/uapi/linux/trace_mmap.h, Linux 6.10; Debian 12's headers predate it */
struct trace_buffer_meta {
	__u32 meta_page_size;
	__u32 meta_struct_len;
	__u32 subbuf_size;
	__u32 nr_subbufs;
	struct {
		__u64 lost_events;
		__u32 id;
		__u32 read;
	} reader;
	__u64 flags;
	__u64 entries;
	__u64 overrun;
	__u64 read;
	__u64 reserved1;
	__u64 reserved2;
};

#define TRACE_MMAP_IOCTL_GET_READER _IO('R', 0x20)

/* The meta page must hold the fields read here: up to `read`. */
#define META_NEEDED (offsetof(struct trace_buffer_meta, read) + sizeof(__u64))

#define SUBBUF_HDR    16	 /* u64 time_stamp, local_t commit: events/header_page */
#define COMMIT_FLAGS  (3u << 30) /* RB_MISSED_EVENTS, RB_MISSED_STORED */
#define NO_SUBBUF     UINT32_MAX /* no reader sub-buffer taken yet */
#define CHUNK_RAW     (1u << 20) /* decoded bytes a chunk holds before it is written */
#define FT_LEVEL      3 /* zstd's: events as the kernel wrote them, not shuffled, gain from it */
#define DEFAULT_BUF   (8u << 20)      /* each CPU's ring */
#define WAKE_PERCENT  50	      /* poll wakes when a ring is this full */
#define MIN_KERNEL    ((6 << 8) | 10) /* tracefs ring-buffer mapping: Linux 6.10 */
#define INSTANCE_NAME "ringcap-"

struct ft_cpu {
	int cpu;
	int fd; /* per_cpu/cpuN/trace_pipe_raw */
	volatile struct trace_buffer_meta *meta;
	size_t meta_len;
	unsigned char *data; /* the sub-buffers */
	size_t data_len;
	uint32_t subbuf_size, nr_subbufs;
	uint32_t id;		 /* the reader sub-buffer c->cur walks, or NO_SUBBUF */
	uint64_t page_ts;	 /* its time stamp: its first event's time */
	uint64_t ring_ns;	 /* the ring fills in this, at its last full sub-buffer's rate */
	struct rc_ft_cursor cur; /* its events; cur.len grows while the kernel commits */
	uint64_t overrun;	 /* what the kernel overwrote, as last written to the file */
	uint64_t lost_pending;	 /* overwritten, not yet written: */
	uint64_t lost_ts;	 /* ... at the reader page starting then */
	uint64_t extra_lost;	 /* commit overruns and dropped events, from per_cpu stats */
	uint64_t captured;
	uint64_t skipped; /* entries of no event ringcap enabled (trace_marker writes) */
	bool dry;	  /* the ring had nothing more at this process()'s last look */
	uint64_t bound;	  /* the earliest time this CPU may still produce */
};

struct task_slot {
	uint32_t tid; /* 0: free (tid 0, the idle task, is never looked up) */
	struct rc_disk_task t;
};

struct rc_ftrace {
	struct rc_capture c; /* first: the engine frees the struct through it */
	char inst[PATH_MAX]; /* the instance's directory */
	bool inst_made;
	struct ft_cpu *cpus;
	int ncpus;	 /* CPUs with a ring */
	size_t buf_size; /* each CPU's ring */
	struct rc_ftenc *enc;
	struct rc_ft_id *ids; /* ftrace id -> event id, for the encoder */
	struct rc_ft_idmap idmap;
	struct rc_ft_order order; /* the watermark, the hold, what was written, late */
	int werr;
	struct pollfd *pfds;
	struct task_slot *tasks; /* an open-addressing table of tids seen */
	size_t tasks_cap, tasks_used;
	uint64_t mark;	    /* the watermark of the last pass: what was taken is up to it */
	uint64_t hold;	    /* the hold of this pass (Order, above) */
	uint64_t malformed; /* sub-buffers whose rest was not events */
	uint64_t passes;
	char *cmdlines; /* saved_cmdlines, as read at pass cmdlines_pass */
	uint64_t cmdlines_pass;
	bool tracing;
};

/* ---- tracefs files ----------------------------------------------------- */

static int inst_path(const struct rc_ftrace *f, char *out, size_t len, const char *file)
{
	if (snprintf(out, len, "%s/%s", f->inst, file) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* Write @val to the instance's @file (O_APPEND: add to a list, as >> does). */
static int inst_write(const struct rc_ftrace *f, const char *file, const char *val, bool append)
{
	char path[PATH_MAX];
	size_t len = strlen(val);
	ssize_t n;
	int fd, err;

	err = inst_path(f, path, sizeof(path), file);
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0) {
		err = -errno;
		pr_warn("cannot open %s: %s\n", path, strerror(errno));
		return err;
	}
	n = write(fd, val, len);
	err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	if (err)
		pr_warn("cannot write '%s' to %s: %s\n", val, path, strerror(-err));
	return err;
}

/* Read a small tracefs file into a new string. */
static int read_text(const char *path, char **out)
{
	char buf[4096];
	struct rc_strbuf sb = {};
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		err = rc_strbuf__append(&sb, buf, n);
		if (err)
			break;
	}
	if (n < 0)
		err = -errno;
	close(fd);
	err = err ?: rc_strbuf__append(&sb, "", 1);
	if (err) {
		rc_strbuf__free(&sb);
		return err;
	}
	*out = sb.buf;
	return 0;
}

/* ---- the instance ------------------------------------------------------ */

static bool pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno != ESRCH;
}

static int instances_dir(char *out, size_t len)
{
	const char *tfs = rc_tracefs();

	if (!tfs)
		return -errno;
	if (snprintf(out, len, "%s/instances", tfs) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int rc_ftrace__clean_stale(void)
{
	char dir[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (instances_dir(dir, sizeof(dir)))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, INSTANCE_NAME, strlen(INSTANCE_NAME)))
			continue;
		errno = 0;
		pid = strtol(de->d_name + strlen(INSTANCE_NAME), &end, 10);
		if (errno || *end || pid <= 0 || pid > INT_MAX || pid_alive(pid))
			continue;
		if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR)) {
			pr_warn("cannot remove %s/%s, left by ringcap process %ld, which is gone: "
				"%s\n",
				dir, de->d_name, pid, strerror(errno));
			continue;
		}
		pr_info("removed %s/%s, left by ringcap process %ld, which is gone\n", dir,
			de->d_name, pid);
		n++;
	}
	closedir(d);
	return n;
}

static int make_instance(struct rc_ftrace *f)
{
	char dir[PATH_MAX];
	int err = instances_dir(dir, sizeof(dir));

	if (err)
		return err;
	if (snprintf(f->inst, sizeof(f->inst), "%s/%s%d", dir, INSTANCE_NAME, (int)getpid()) >=
	    (int)sizeof(f->inst))
		return -ENAMETOOLONG;
	err = mkdir(f->inst, 0700) ? -errno : 0;
	if (err == -EEXIST) /* left by an earlier ringcap that had our pid */
		err = rmdir(f->inst) || mkdir(f->inst, 0700) ? -errno : 0;
	if (err) {
		pr_warn("cannot create the tracefs instance %s: %s%s\n", f->inst, strerror(-err),
			err == -EACCES || err == -EPERM ? " (recording needs root)" : "");
		return err;
	}
	f->inst_made = true;
	return 0;
}

static void remove_instance(struct rc_ftrace *f)
{
	if (!f->inst_made)
		return;
	if (rmdir(f->inst))
		pr_warn("cannot remove the tracefs instance %s: %s (remove it with rmdir)\n",
			f->inst, strerror(errno));
	f->inst_made = false;
}

/* Refuse kernels without the ring-buffer mapping before touching tracefs. */
static int check_kernel(struct rc_ftrace *f)
{
	unsigned int major = 0, minor = 0;

	if (uname(&f->c.uts))
		return -errno;
	if (sscanf(f->c.uts.release, "%u.%u", &major, &minor) == 2 &&
	    ((major << 8) | minor) >= MIN_KERNEL)
		return 0;
	pr_warn("--transport ftrace maps the kernel's ftrace ring buffer, which needs Linux 6.10 "
		"or later; this is %s: use --transport ringbuf\n",
		f->c.uts.release);
	return -EOPNOTSUPP;
}

/* The sub-buffer layout this file reads: the 64-bit one. */
static int check_header_page(const char *text)
{
	if (strstr(text, "local_t commit;\toffset:8;\tsize:8;") &&
	    strstr(text, "u64 timestamp;\toffset:0;\tsize:8;") &&
	    strstr(text, "char data;\toffset:16;"))
		return 0;
	pr_warn("this kernel's ring-buffer sub-buffer layout (events/header_page) is not the "
		"64-bit one ringcap reads: use --transport ringbuf\n");
	return -EOPNOTSUPP;
}

/* Store events/header_page and header_event, the layout of what the file holds. */
static int note_headers(struct rc_ftrace *f)
{
	static const char *const keys[] = { "header_page", "header_event" };
	const char *tfs = rc_tracefs();
	char path[PATH_MAX];
	size_t i;
	int err;

	if (!tfs)
		return -errno;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		char *text = NULL;

		snprintf(path, sizeof(path), "%s/events/%s", tfs, keys[i]);
		err = read_text(path, &text);
		if (err) {
			pr_warn("cannot read %s: %s\n", path, strerror(-err));
			return err;
		}
		err = i == 0 ? check_header_page(text) : 0;
		err = err ?: rc_dyn__note(&f->c.dset, 0, keys[i], text, strlen(text));
		free(text);
		if (err)
			return err;
	}
	return 0;
}

static int describe_events(struct rc_ftrace *f)
{
	size_t i;
	int err;

	for (i = 0; i < f->c.opts.ntracepoints; i++) {
		err = rc_dyn__add_tracepoints(&f->c.dset, f->c.opts.tracepoints[i]);
		if (err)
			return err;
	}
	if (!f->c.dset.n) {
		pr_warn("--transport ftrace records tracepoints: give them with -e, like -e "
			"'sched:sched_switch' or -e 'syscalls:sys_enter_*'\n");
		return -EINVAL;
	}
	for (i = 0; i < f->c.dset.n; i++) {
		const struct rc_dyn_event *e = &f->c.dset.ev[i];
		uint32_t id = e->tp.id;

		err = rc_dyn__note(&f->c.dset, e->id, "ftrace_id", &id, sizeof(id));
		if (err)
			return err;
	}
	f->c.schema = rc_schema__new(rc_builtin_schema());
	if (!f->c.schema)
		return -errno;
	err = rc_dyn__describe(&f->c.dset, f->c.schema);
	return err ?: note_headers(f);
}

/* The comm filter: the generic COMM field, which events' own "comm" fields do not shadow. */
static int set_filters(struct rc_ftrace *f)
{
	char file[600], filter[64];
	size_t i;
	int err;

	if (!f->c.opts.comm)
		return 0;
	if (strpbrk(f->c.opts.comm, "\"\\")) {
		pr_warn("--comm '%s': a command name with a quote or backslash cannot be filtered "
			"by ftrace\n",
			f->c.opts.comm);
		return -EINVAL;
	}
	snprintf(filter, sizeof(filter), "COMM == \"%s\"", f->c.opts.comm);
	for (i = 0; i < f->c.dset.n; i++) {
		const struct rc_tpformat *tp = &f->c.dset.ev[i].tp;

		snprintf(file, sizeof(file), "events/%s/%s/filter", tp->system, tp->name);
		err = inst_write(f, file, filter, false);
		if (err)
			return err;
	}
	return 0;
}

static int enable_events(struct rc_ftrace *f, const char *val)
{
	char file[600];
	size_t i;
	int err;

	for (i = 0; i < f->c.dset.n; i++) {
		const struct rc_tpformat *tp = &f->c.dset.ev[i].tp;

		snprintf(file, sizeof(file), "events/%s/%s/enable", tp->system, tp->name);
		err = inst_write(f, file, val, false);
		if (err)
			return err;
	}
	return 0;
}

static int configure(struct rc_ftrace *f)
{
	char v[64];
	int err;

	err = inst_write(f, "tracing_on", "0", false);
	snprintf(v, sizeof(v), "%zu", f->buf_size >> 10);
	err = err ?: inst_write(f, "buffer_size_kb", v, false);
	/* the capture clock, CLOCK_BOOTTIME, as the BPF transports' bpf_ktime_get_boot_ns() */
	err = err ?: inst_write(f, "trace_clock", "boot", false);
	err = err ?: inst_write(f, "options/overwrite", "1", false);
	snprintf(v, sizeof(v), "%d", WAKE_PERCENT);
	err = err ?: inst_write(f, "buffer_percent", v, false);
	err = err
		  ?: inst_write(f, "options/event-fork",
				f->c.opts.follow_forks || f->c.opts.npids ? "1" : "0", false);
	if (!err && !f->c.opts.npids && !f->c.opts.follow_forks) {
		/* system-wide: not the recorder's own events, which would feed themselves */
		snprintf(v, sizeof(v), "%d", (int)getpid());
		err = inst_write(f, "set_event_notrace_pid", v, false);
	}
	err = err ?: set_filters(f);
	return err ?: enable_events(f, "1");
}

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
			"later, with tracefs mmap support: use --transport ringbuf\n",
			path, strerror(-err));
	return err;
}

static int map_cpu(struct rc_ftrace *f, struct ft_cpu *c)
{
	long page = sysconf(_SC_PAGESIZE);
	char file[64], path[PATH_MAX];
	struct trace_buffer_meta m;
	void *p;
	int err;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	err = inst_path(f, path, sizeof(path), file);
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

static void unmap_cpu(struct ft_cpu *c)
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
	if (read_text(path, &text))
		return access(path, F_OK) != 0; /* no such file: a CPU that cannot go offline */
	on = text[0] != '0';
	free(text);
	return on;
}

/* The CPUs with a ring in the instance: per_cpu/cpuN of the online ones. */
static int map_cpus(struct rc_ftrace *f)
{
	char path[PATH_MAX];
	int i, err;

	f->cpus = calloc(f->c.ncpus, sizeof(*f->cpus));
	f->pfds = calloc(f->c.ncpus, sizeof(*f->pfds));
	if (!f->cpus || !f->pfds)
		return -ENOMEM;
	for (i = 0; i < f->c.ncpus; i++) {
		struct ft_cpu *c = &f->cpus[f->ncpus];
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%d", i);
		err = inst_path(f, path, sizeof(path), file);
		if (err)
			return err;
		if (access(path, F_OK) || !cpu_online(i))
			continue;
		c->cpu = i;
		c->fd = -1;
		f->ncpus++;
		err = map_cpu(f, c);
		if (err)
			return err;
		f->pfds[f->ncpus - 1] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
	}
	return f->ncpus ? 0 : -ENODEV;
}

static const unsigned char *subbuf(const struct ft_cpu *c, uint32_t id)
{
	return c->data + (size_t)id * c->subbuf_size;
}

/* The bytes of events the kernel has committed to a sub-buffer. */
static uint32_t committed(const struct ft_cpu *c, const unsigned char *sb)
{
	/*
	 * local_t, but the kernel reads it as an unsigned int (rb_page_commit())
	 * and sets RB_MISSED_EVENTS with an int's sign: bits 32-63 then too.
	 */
	uint32_t commit = __atomic_load_n((const uint64_t *)(sb + 8), __ATOMIC_ACQUIRE);
	uint32_t len = commit & ~COMMIT_FLAGS;

	return len > c->subbuf_size - SUBBUF_HDR ? c->subbuf_size - SUBBUF_HDR : len;
}

/* The kernel overwrote events since the last look: owed as a ringcap:lost record. */
static void note_overrun(struct ft_cpu *c, uint64_t ts)
{
	uint64_t o = c->meta->overrun;

	if (o <= c->overrun + c->lost_pending)
		return;
	if (!c->lost_pending)
		c->lost_ts = ts;
	c->lost_pending = o - c->overrun;
}

/*
 * The reader sub-buffer is done with: if it was at least half full, the
 * time its events took says how long the whole ring takes to fill.
 */
static void note_rate(struct ft_cpu *c)
{
	uint32_t data = c->subbuf_size - SUBBUF_HDR;

	if (c->id == NO_SUBBUF || c->cur.len < data / 2 || c->cur.ts <= c->page_ts)
		return;
	c->ring_ns = rc_ft_ring_ns(c->cur.ts - c->page_ts, c->cur.len, data, c->nr_subbufs);
}

/* The hold of a pass: RC_FT_HOLD_NS, or less when a ring fills faster (order.h). */
static uint64_t hold_ns(const struct rc_ftrace *f)
{
	uint64_t hold = RC_FT_HOLD_NS;
	int i;

	for (i = 0; i < f->ncpus; i++)
		hold = rc_ft_hold(hold, f->cpus[i].ring_ns);
	return hold;
}

/*
 * Ask the kernel for the reader sub-buffer and point c->cur at what it
 * holds. 1 when an event is waiting, 0 when none is, or -errno.
 */
static int get_reader(struct ft_cpu *c)
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
		note_rate(c);
		c->id = id;
		c->cur = (struct rc_ft_cursor){
			.buf = sb + SUBBUF_HDR,
			.len = committed(c, sb),
			.ts = __atomic_load_n((const uint64_t *)sb, __ATOMIC_RELAXED),
		};
		c->page_ts = c->cur.ts;
	} else {
		c->cur.len = committed(c, sb);
	}
	note_overrun(c, c->cur.ts);
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
static int refill(struct ft_cpu *c)
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

/* The rest of a sub-buffer that is not events: skipped, and said once. */
static void skip_malformed(struct rc_ftrace *f, struct ft_cpu *c)
{
	if (!f->malformed++)
		pr_warn("cpu %d: a ring sub-buffer holds bytes that are not events: skipped\n",
			c->cpu);
	c->cur.pos = c->cur.len;
}

static int put_lost(struct rc_ftrace *f, struct ft_cpu *c)
{
	struct rc_rec_lost l = {
		.hdr = { .ts = c->lost_ts > f->order.written_ts ? c->lost_ts : f->order.written_ts,
			 .type = RC_REC_LOST,
			 .size = sizeof(l),
			 .cpu = c->cpu },
		.lost = c->lost_pending,
	};
	int err = rc_ftenc__records(f->enc, &l, sizeof(l));

	if (err)
		return err;
	c->overrun += c->lost_pending;
	c->lost_pending = 0;
	return 0;
}

/* Where this CPU stands: the earliest time it may still produce an event at. */
static int look(struct rc_ftrace *f, struct ft_cpu *c, uint64_t now, bool final)
{
	/* with nothing waiting, it may still be committing an event up to the hold old */
	uint64_t idle = rc_ft_idle_bound(&f->order, now, final), last;
	long n;
	int r;

	if (c->dry)
		return 0; /* empty at its last look in this process(): bound as then */
	r = refill(c);
	if (r < 0)
		return r;
	last = c->cur.ts;
	if (r == 0) {
		/* no more ioctls for it until the next process() */
		c->dry = !final;
		c->bound = idle;
		return 0;
	}
	n = rc_ft_peek(&c->cur, &last);
	if (n < 0) {
		skip_malformed(f, c);
		return look(f, c, now, final);
	}
	c->bound = n ? last : idle;
	return 1;
}

static int end_chunk(struct rc_ftrace *f);

/*
 * Events about to be taken that are earlier than a record of a chunk
 * already written: more than the hold between their time and their commit.
 * They land out of order; counted, as the trailer's late.
 */
static void count_late(struct rc_ftrace *f, const struct ft_cpu *c, uint64_t w)
{
	struct rc_ft_cursor k = c->cur;
	struct rc_ft_event ev;

	while (rc_ft_next(&k, &ev) > 0 && rc_ft_is_late(&f->order, ev.ts, w))
		f->order.late++;
}

/*
 * One pass: every CPU's events up to the watermark into the chunk. Returns
 * the events taken, or -errno.
 */
static long pass(struct rc_ftrace *f, bool final, bool *moved)
{
	uint64_t now = rc_now_ns(CLOCK_BOOTTIME), w = UINT64_MAX;
	long total = 0;
	int i, r;

	f->passes++;
	f->order.hold = hold_ns(f);
	for (i = 0; i < f->ncpus; i++) {
		struct ft_cpu *c = &f->cpus[i];
		uint32_t id = c->id, pos = c->cur.pos;

		r = look(f, c, now, final);
		/* a sub-buffer swapped in, or padding passed: progress without events */
		*moved |= c->id != id || c->cur.pos != pos;
		if (r < 0)
			return r;
		if (f->cpus[i].bound < w)
			w = f->cpus[i].bound;
	}
	w = rc_ft_advance(&f->order, w);
	for (i = 0; i < f->ncpus; i++) {
		struct ft_cpu *c = &f->cpus[i];
		uint64_t skipped;
		uint32_t pos;
		long n;

		if (c->lost_pending && c->lost_ts <= w) {
			r = put_lost(f, c);
			if (r)
				return r;
		}
		count_late(f, c, w);
		skipped = rc_ftenc__skipped(f->enc);
		pos = c->cur.pos;
		n = rc_ftenc__take(f->enc, c->cpu, &c->cur, w);
		*moved |= c->cur.pos != pos;
		c->skipped += rc_ftenc__skipped(f->enc) - skipped;
		if (n == 0 && rc_ftenc__raw_size(f->enc) >= RC_MAX_CHUNK_RAW / 2) {
			/* the chunk is full (not with sub-buffers of the usual size) */
			r = end_chunk(f);
			n = r ? r : rc_ftenc__take(f->enc, c->cpu, &c->cur, w);
		}
		if (n == -EBADMSG) {
			skip_malformed(f, c);
			continue;
		}
		if (n < 0)
			return n;
		c->captured += n;
		total += n;
	}
	return total;
}

/* ---- the file ---------------------------------------------------------- */

/* Write the chunk being built, if it holds anything. */
static int end_chunk(struct rc_ftrace *f)
{
	struct rc_disk_chunk dc;
	const void *data;
	int err;

	if (!rc_ftenc__nrec(f->enc))
		return 0;
	err = rc_ftenc__end(f->enc, &dc, &data);
	if (err)
		return err;
	if (!f->c.w) {
		rc_ft_written(&f->order, dc.last_ts);
		return 0; /* counting only */
	}
	if (f->werr)
		return f->werr;
	err = rc_writer__add_chunk(f->c.w, &dc, data);
	if (err) {
		f->werr = err;
		return err;
	}
	f->c.nrec_written += dc.nrec;
	rc_ft_written(&f->order, dc.last_ts);
	f->c.raw_written += dc.raw_size;
	f->c.written = rc_writer__bytes(f->c.w);
	return 0;
}

/*
 * Passes until nothing more is ready, or until @until (CLOCK_MONOTONIC):
 * under a load it cannot keep up with, the drain still gets back to its
 * clock. A chunk ends between passes once full.
 */
static long process(struct rc_ftrace *f, bool final, uint64_t until)
{
	long total = 0, n;
	int err, i;

	for (i = 0; i < f->ncpus; i++)
		f->cpus[i].dry = false;
	do {
		bool moved = false;

		n = pass(f, final, &moved);
		if (n < 0)
			return n;
		total += n;
		if (rc_ftenc__raw_size(f->enc) >= CHUNK_RAW) {
			err = end_chunk(f);
			if (err)
				return err;
		}
		if (!n && !moved)
			break;
	} while (final || rc_now_ns(CLOCK_MONOTONIC) < until);
	return total;
}

static uint64_t stat_value(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/*
 * per_cpu/cpuN/stats: what the meta page does not count (events lost to
 * commit overruns, or dropped), and the bytes waiting in the ring.
 */
static void read_cpu_stats(const struct rc_ftrace *f, struct ft_cpu *c, uint64_t *pending)
{
	char file[64], path[PATH_MAX], *text = NULL;

	*pending = 0;
	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c->cpu);
	if (inst_path(f, path, sizeof(path), file) || read_text(path, &text))
		return;
	c->extra_lost = stat_value(text, "commit overrun:") + stat_value(text, "dropped events:");
	*pending = stat_value(text, "\nbytes:");
	free(text);
}

static int take_stats(struct rc_ftrace *f)
{
	struct rc_stats *st = &f->c.last;
	int i;

	if (!st->entries) {
		st->entries = calloc(f->ncpus, sizeof(*st->entries));
		if (!st->entries)
			return -ENOMEM;
	}
	st->ts = rc_now_ns(CLOCK_BOOTTIME);
	st->ring_size = f->buf_size;
	st->ring_pending = 0;
	st->nentries = f->ncpus;
	for (i = 0; i < f->ncpus; i++) {
		struct ft_cpu *c = &f->cpus[i];
		uint64_t overrun = c->meta->overrun, pending;

		read_cpu_stats(f, c, &pending);
		/* as for the perf buffer: the fullest ring's */
		if (pending > st->ring_pending)
			st->ring_pending = pending;
		if (pending > st->ring_hwm)
			st->ring_hwm = pending;
		st->entries[i] = (struct rc_stat_entry){
			.cpu = c->cpu,
			.type = RC_TYPE_ALL,
			.made = c->meta->entries + c->extra_lost - c->skipped,
			.filtered = c->skipped,
			.dropped = overrun + c->extra_lost,
			.captured = c->captured,
		};
	}
	return 0;
}

static int write_stats(struct rc_ftrace *f)
{
	int err = take_stats(f);

	f->c.last_stats = rc_now_ns(CLOCK_MONOTONIC);
	if (err || !f->c.w)
		return err;
	err = f->werr ?: rc_writer__add_stats(f->c.w, &f->c.last);
	if (err)
		f->werr = err;
	f->c.written = rc_writer__bytes(f->c.w);
	return err;
}

/* ---- the session ------------------------------------------------------- */

static int task_lookup(void *ctx, uint32_t tid, struct rc_disk_task *t);

static int cmp_id(const void *a, const void *b)
{
	const struct rc_ft_id *x = a, *y = b;

	return x->ftrace_id < y->ftrace_id ? -1 : x->ftrace_id > y->ftrace_id;
}

/* The events' ftrace ids: what the encoder takes, and nothing else. */
static int make_idmap(struct rc_ftrace *f)
{
	size_t i;

	f->ids = calloc(f->c.dset.n, sizeof(*f->ids));
	if (!f->ids)
		return -ENOMEM;
	for (i = 0; i < f->c.dset.n; i++)
		f->ids[i] = (struct rc_ft_id){ .ftrace_id = f->c.dset.ev[i].tp.id,
					       .rc_id = f->c.dset.ev[i].id };
	qsort(f->ids, f->c.dset.n, sizeof(*f->ids), cmp_id);
	f->idmap = (struct rc_ft_idmap){ .ids = f->ids, .n = f->c.dset.n };
	return 0;
}

static void ft_teardown(struct rc_capture *c);

struct rc_capture *rc_ftrace__open(const struct rc_record_opts *opts)
{
	struct rc_ftrace *f;
	int err;

	f = calloc(1, sizeof(*f));
	if (!f)
		return rc_err_ptr(-ENOMEM);
	rc_capture__init(&f->c, opts);
	f->c.transport = RC_TRANSPORT_FTRACE;
	f->buf_size = f->c.opts.ringbuf_size ?: DEFAULT_BUF;
	f->c.opts.ringbuf_size = f->buf_size; /* the header says it */
	f->c.ncpus = sysconf(_SC_NPROCESSORS_CONF);
	err = check_kernel(f);
	if (err)
		goto err_out;
	if (f->c.opts.nuprobes || f->c.opts.bpf_object || f->c.opts.events || f->c.opts.overwrite) {
		pr_warn("--transport ftrace records tracepoints by name (-e SYSTEM:NAME), "
			"without BPF: ringcap's own events, uprobes, --bpf and --overwrite need "
			"--transport ringbuf or perfbuf\n");
		err = -EINVAL;
		goto err_out;
	}
	err = describe_events(f);
	if (err)
		goto err_out;
	rc_ftrace__clean_stale();
	err = make_instance(f);
	err = err ?: configure(f);
	err = err ?: map_cpus(f);
	if (err)
		goto err_out;
	f->enc = rc_ftenc__new(f->c.opts.compress_level ?: FT_LEVEL, f->c.opts.no_compress,
			       task_lookup, f);
	if (!f->enc) {
		err = -errno;
		goto err_out;
	}
	err = make_idmap(f);
	if (err)
		goto err_out;
	rc_ftenc__set_ids(f->enc, &f->idmap);
	return &f->c;

err_out:
	ft_teardown(&f->c);
	rc_capture__release(&f->c);
	free(f);
	return rc_err_ptr(err);
}

/* A process's threads, all: set_event_pid matches threads, not processes. */
static struct rc_ftrace *to_ft(struct rc_capture *c)
{
	return (struct rc_ftrace *)c;
}

static int ft_add_target(struct rc_capture *c, pid_t pid)
{
	struct rc_ftrace *f = to_ft(c);
	char dir[64], v[32];
	struct dirent *de;
	int err = 0;
	DIR *d;

	snprintf(v, sizeof(v), "%d", (int)pid);
	err = inst_write(f, "set_event_pid", v, true);
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return err;
	while (!err && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]) || atoi(de->d_name) == pid)
			continue;
		err = inst_write(f, "set_event_pid", de->d_name, true);
	}
	closedir(d);
	return err;
}

static int ft_start(struct rc_capture *c, int fd)
{
	struct rc_ftrace *f = to_ft(c);
	struct rc_writer_opts wo = { .sz = sizeof(wo),
				     .compress_level = f->c.opts.compress_level,
				     .no_compress = f->c.opts.no_compress };
	int err;

	err = inst_write(f, "tracing_on", "1", false);
	if (err)
		return err;
	f->tracing = true;
	if (fd < 0)
		return 0;
	f->c.w = rc_writer__new(fd, &f->c.meta, &wo);
	return f->c.w ? 0 : -errno;
}

static int wait_rings(struct rc_ftrace *f, int ms)
{
	int i, n = poll(f->pfds, f->ncpus, ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < f->ncpus; i++) {
		if (f->pfds[i].revents & (POLLERR | POLLNVAL))
			return -EIO;
	}
	return n;
}

static long ft_read(struct rc_capture *c, uint64_t end)
{
	return process(to_ft(c), false, end);
}

static int ft_wait(struct rc_capture *c, int ms)
{
	return wait_rings(to_ft(c), ms);
}

static int ft_push_stats(struct rc_capture *c)
{
	return write_stats(to_ft(c));
}

static int ft_flush(struct rc_capture *c)
{
	return end_chunk(to_ft(c));
}

static int ft_sample(struct rc_capture *c)
{
	return take_stats(to_ft(c));
}

static int ft_stop(struct rc_capture *cap)
{
	struct rc_ftrace *f = to_ft(cap);
	long n;
	int err, i;

	err = inst_write(f, "tracing_on", "0", false);
	f->tracing = false;
	n = err ? err : process(f, true, 0);
	err = n < 0 ? (int)n : 0;
	for (i = 0; !err && i < f->ncpus; i++) {
		struct ft_cpu *c = &f->cpus[i];

		note_overrun(c, c->cur.ts);
		if (c->lost_pending)
			err = put_lost(f, c);
		if (!err && c->captured + c->overrun + c->skipped != c->meta->entries)
			pr_warn("cpu %d: the kernel wrote %llu events; %llu were read and %llu "
				"overwritten\n",
				c->cpu, (unsigned long long)c->meta->entries,
				(unsigned long long)c->captured, (unsigned long long)c->overrun);
	}
	err = err ?: end_chunk(f);
	err = err ?: write_stats(f);
	if (f->malformed)
		pr_warn("%llu ring sub-buffers held bytes that were not events\n",
			(unsigned long long)f->malformed);
	if (rc_ftenc__skipped(f->enc))
		pr_warn("%llu entries in the ring were of no event recorded (a write to the "
			"instance's trace_marker?): skipped, counted as filtered\n",
			(unsigned long long)rc_ftenc__skipped(f->enc));
	if (f->order.late)
		pr_warn("%llu events reached their ring after events of a later time were "
			"written: they are out of order in the file\n",
			(unsigned long long)f->order.late);
	if (f->c.w)
		rc_writer__add_late(f->c.w, f->order.late);
	if (!f->c.w)
		return err;
	if (!err && !f->werr)
		err = rc_writer__finish(f->c.w);
	f->c.written = rc_writer__bytes(f->c.w);
	return err ?: f->werr;
}

static void ft_teardown(struct rc_capture *cap)
{
	struct rc_ftrace *f = to_ft(cap);
	int i;

	if (f->tracing)
		inst_write(f, "tracing_on", "0", false);
	for (i = 0; f->cpus && i < f->ncpus; i++)
		unmap_cpu(&f->cpus[i]);
	remove_instance(f);
	rc_ftenc__free(f->enc);
	free(f->cpus);
	free(f->pfds);
	free(f->tasks);
	free(f->ids);
	free(f->cmdlines);
}

const struct rc_backend_ops rc_ftrace_ops = {
	.name = "ftrace",
	.add_target = ft_add_target,
	.start = ft_start,
	.read = ft_read,
	.wait = ft_wait,
	.push_stats = ft_push_stats,
	.flush = ft_flush,
	.sample = ft_sample,
	.stop = ft_stop,
	.teardown = ft_teardown,
};

/* ---- tasks ------------------------------------------------------------- */

/* A thread's process and name, from /proc while it lives. */
static bool proc_task(uint32_t tid, struct rc_disk_task *t)
{
	char path[64], *text = NULL, *p;

	t->tid = tid;
	t->tgid = tid;
	snprintf(t->comm, sizeof(t->comm), "<...>");
	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	if (read_text(path, &text))
		return false;
	if ((p = strstr(text, "Name:\t"))) {
		size_t n = strcspn(p + 6, "\n");

		memset(t->comm, 0, sizeof(t->comm));
		memcpy(t->comm, p + 6, n < sizeof(t->comm) - 1 ? n : sizeof(t->comm) - 1);
	}
	if ((p = strstr(text, "\nTgid:\t")))
		t->tgid = strtoul(p + 7, NULL, 10);
	free(text);
	return true;
}

/*
 * A thread gone before it was looked up: its name as ftrace saved it at a
 * context switch (saved_cmdlines, read only; re-read at most once a pass).
 */
static void saved_comm(struct rc_ftrace *f, uint32_t tid, struct rc_disk_task *t)
{
	const char *tfs = rc_tracefs();
	char path[PATH_MAX], pat[32], *p;
	size_t n;

	if (f->cmdlines_pass != f->passes || !f->cmdlines) {
		free(f->cmdlines);
		f->cmdlines = NULL;
		f->cmdlines_pass = f->passes;
		snprintf(path, sizeof(path), "%s/saved_cmdlines", tfs ? tfs : "");
		if (!tfs || read_text(path, &f->cmdlines))
			return;
	}
	snprintf(pat, sizeof(pat), "\n%u ", tid);
	p = strstr(f->cmdlines, pat + 1) == f->cmdlines ? f->cmdlines : strstr(f->cmdlines, pat);
	if (!p)
		return;
	p = strchr(p + 1, ' ') + 1;
	n = strcspn(p, "\n");
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, p, n < sizeof(t->comm) - 1 ? n : sizeof(t->comm) - 1);
}

static int grow_tasks(struct rc_ftrace *f)
{
	size_t cap = f->tasks_cap ? f->tasks_cap * 2 : 1024, i;
	struct task_slot *old = f->tasks, *t;

	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	f->tasks = t;
	f->tasks_cap = cap;
	for (i = 0; old && i < cap / 2; i++) {
		struct task_slot *s;
		size_t h;

		if (!old[i].tid)
			continue;
		for (h = old[i].tid * 2654435761u; (s = &t[h & (cap - 1)])->tid; h++)
			;
		*s = old[i];
	}
	free(old);
	return 0;
}

/* The encoder meets a thread first in a chunk: who it is, looked up once a capture. */
static int task_lookup(void *ctx, uint32_t tid, struct rc_disk_task *t)
{
	struct rc_ftrace *f = ctx;
	struct task_slot *s;
	size_t h;
	int err;

	if (!tid) {
		*t = (struct rc_disk_task){ .tid = 0, .tgid = 0, .comm = "<idle>" };
		return 0;
	}
	if (f->tasks_used * 2 >= f->tasks_cap) {
		err = grow_tasks(f);
		if (err)
			return err;
	}
	for (h = tid * 2654435761u; (s = &f->tasks[h & (f->tasks_cap - 1)])->tid; h++)
		if (s->tid == tid)
			break;
	/* looked up again each chunk (exec renames, pids are reused); kept once gone */
	if (proc_task(tid, t)) {
		f->tasks_used += !s->tid;
		s->tid = tid;
		s->t = *t;
		return 0;
	}
	if (!s->tid) {
		saved_comm(f, tid, t);
		s->tid = tid;
		s->t = *t;
		f->tasks_used++;
	}
	*t = s->t;
	return 0;
}
