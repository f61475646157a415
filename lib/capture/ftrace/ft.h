/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ftrace backend's own state, shared by its files: instance.c (the
 * tracefs instance configured; made and removed by tracefs/instance.c), rings.c (what both ring
 * readers share, and the mapped rings with their reader sub-buffers), splice.c (the rings read as
 * whole pages spliced from trace_pipe_raw, the default), tasks.c (a tid's process and name),
 * order.c (time order across CPUs) and ftrace.c (passes, chunks, counters, the backend's
 * operations).
 */
#ifndef RINGCAP_CAPTURE_FTRACE_FT_H
#define RINGCAP_CAPTURE_FTRACE_FT_H

#include <limits.h>
#include <linux/types.h>
#include <poll.h>
#include "events.h"
#include "capture/backend.h"
#include "capture/dyn.h"
#include "capture/ftrace/order.h"
#include "format/format.h"
#include "format/ftpage.h"
#include "tracefs/instance.h"
#include "util/idmap.h"

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
#define MISSED_EVENTS (1u << 31) /* events were lost before this sub-buffer */
#define MISSED_STORED (1u << 30) /* ... and their count follows its data, a u64 */
#define NO_SUBBUF     UINT32_MAX /* no reader sub-buffer taken yet */
#define CHUNK_RAW     (1u << 20) /* decoded bytes a chunk holds before it is written */
#define DEFAULT_BUF   (8u << 20)      /* each CPU's ring */
#define WAKE_PERCENT  50	      /* poll wakes when a ring is this full */
#define SPLICE_PAGES  16	      /* pages a splice moves at most: a pipe's default */

struct rc_ftrace_cpu {
	int cpu;
	int fd; /* per_cpu/cpuN/trace_pipe_raw */
	volatile struct trace_buffer_meta *meta;
	size_t meta_len;
	unsigned char *data; /* the sub-buffers */
	size_t data_len;
	uint32_t subbuf_size, nr_subbufs;
	uint32_t id;		 /* mmap: the reader sub-buffer c->cur walks, or NO_SUBBUF */
	uint64_t taken;		 /* sub-buffers c->cur walked so far, this one included */
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
	/* splice: */
	int pipe[2];	      /* the pipe pages are spliced through */
	unsigned char *pages; /* pages spliced or read, SPLICE_PAGES of subbuf_size */
	uint32_t npages;      /* held */
	uint32_t next;	      /* the next to walk */
};

/*
 * A CPU's counters, from per_cpu/cpuN/stats (and, mapped, the meta page):
 * every event the kernel wrote to the ring, those it overwrote, those
 * lost otherwise (commit overruns, dropped events), and the bytes waiting.
 */
struct rc_ftrace_kstats {
	uint64_t written, overrun, extra_lost, pending;
};

struct rc_ftrace;

/*
 * How the rings are read: mapped (Linux 6.10; rings.c) or spliced from
 * trace_pipe_raw (splice.c). Both leave c->cur on the events of one
 * sub-buffer of the ring, as the kernel wrote them.
 * @open_cpu: open c->fd (per_cpu/cpuN/trace_pipe_raw, polled) and what
 *	else reading it takes
 * @close_cpu: undo it; also after a failed or partial @open_cpu
 * @refill: have c->cur cover events not yet taken: 1 when one is waiting,
 *	0 when none is, or -errno
 * @counters: the kernel's counts of @c's ring into @k, over what the
 *	stats file said (optional)
 */
struct rc_ftrace_reader {
	const char *name;
	int (*open_cpu)(struct rc_ftrace *f, struct rc_ftrace_cpu *c);
	void (*close_cpu)(struct rc_ftrace_cpu *c);
	int (*refill)(struct rc_ftrace *f, struct rc_ftrace_cpu *c);
	void (*counters)(const struct rc_ftrace_cpu *c, struct rc_ftrace_kstats *k);
};

struct rc_ftrace {
	struct rc_capture c; /* first: the engine frees the struct through it */
	struct rc_tracefs_instance inst; /* instances/ringcap-PID */
	struct rc_ftrace_cpu *cpus;
	int ncpus;	 /* CPUs with a ring */
	size_t buf_size; /* each CPU's ring */
	struct rc_ftenc *enc;
	struct rc_ft_id *ids; /* ftrace id -> event id, for the encoder */
	struct rc_ft_idmap idmap;
	struct rc_ftrace_order order; /* the watermark, the hold, what was written, late */
	int werr;
	struct pollfd *pfds;
	struct rc_idmap task_ids;   /* tids seen: their index in tasks */
	struct rc_disk_task *tasks; /* who each was */
	size_t ntasks, tasks_cap;
	uint64_t mark;	    /* the watermark of the last pass: what was taken is up to it */
	uint64_t hold;	    /* the hold of this pass (Order, above) */
	uint64_t malformed; /* sub-buffers whose rest was not events */
	uint64_t passes;
	char *cmdlines; /* saved_cmdlines, as read at pass cmdlines_pass */
	uint64_t cmdlines_pass;
	bool tracing;
	const struct rc_ftrace_reader *rd;
	enum rc_ftrace_read read_mode; /* RC_FTRACE_READ_MMAP or _SPLICE */
};

/* instance.c */
int rc_ftrace__choose_reader(struct rc_ftrace *f);
int rc_ftrace__describe_events(struct rc_ftrace *f);
int rc_ftrace__configure(struct rc_ftrace *f);

/* rings.c */
extern const struct rc_ftrace_reader rc_ftrace_mmap_reader;
int rc_ftrace__open_cpus(struct rc_ftrace *f);
void rc_ftrace__close_cpus(struct rc_ftrace *f);
void rc_ftrace__note_rate(struct rc_ftrace_cpu *c);
void rc_ftrace__owe_overrun(struct rc_ftrace_cpu *c, uint64_t overrun, uint64_t ts);
uint64_t rc_ftrace__stat_value(const char *text, const char *key);
int rc_ftrace__read_kstats(const struct rc_ftrace *f, struct rc_ftrace_cpu *c,
			   struct rc_ftrace_kstats *k);

/* splice.c */
extern const struct rc_ftrace_reader rc_ftrace_splice_reader;

/* tasks.c */
int rc_ftrace__task_lookup(void *ctx, uint32_t tid, struct rc_disk_task *t);

#endif /* RINGCAP_CAPTURE_FTRACE_FT_H */
