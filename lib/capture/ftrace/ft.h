/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ftrace backend's own state, shared by its files: instance.c (the
 * tracefs instance), rings.c (the mapped rings and their reader
 * sub-buffers), tasks.c (a tid's process and name), order.c (time order
 * across CPUs) and ftrace.c (passes, chunks, counters, the backend's
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

/* instance.c */
int ft_inst_path(const struct rc_ftrace *f, char *out, size_t len, const char *file);
int ft_inst_write(const struct rc_ftrace *f, const char *file, const char *val, bool append);
int ft_read_text(const char *path, char **out);
int ft_check_kernel(struct rc_ftrace *f);
int ft_describe_events(struct rc_ftrace *f);
int ft_make_instance(struct rc_ftrace *f);
int ft_configure(struct rc_ftrace *f);
void ft_remove_instance(struct rc_ftrace *f);

/* rings.c */
int ft_map_cpus(struct rc_ftrace *f);
void ft_unmap_cpu(struct ft_cpu *c);
int ft_refill(struct ft_cpu *c);
void ft_note_overrun(struct ft_cpu *c, uint64_t ts);

/* tasks.c */
int ft_task_lookup(void *ctx, uint32_t tid, struct rc_disk_task *t);

#endif /* RINGCAP_CAPTURE_FTRACE_FT_H */
