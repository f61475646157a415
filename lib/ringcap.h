/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libringcap: capture engine, capture file format and decoding.
 *
 * Conventions (libbpf's): functions return 0, a count, or a negative errno;
 * constructors return NULL and set errno. The library never writes to
 * stdout and never exits; it logs through the callback set with
 * rc_set_print().
 */
#ifndef RINGCAP_H
#define RINGCAP_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ---- logging ---------------------------------------------------------- */

enum rc_print_level {
	RC_WARN,
	RC_INFO,
	RC_DEBUG,
};

typedef int (*rc_print_fn_t)(enum rc_print_level level, const char *fmt, va_list ap);

/* Set the log callback (NULL: silence); returns the previous one. */
rc_print_fn_t rc_set_print(rc_print_fn_t fn);

/* ---- event schema ----------------------------------------------------- */

enum rc_field_kind {
	RC_FIELD_UINT = 1,
	RC_FIELD_SINT = 2,
	RC_FIELD_STR = 3, /* char array, NUL-padded */
	/*
	 * Variable-length data elsewhere in the record, found through a u32 at
	 * the field's offset: low 16 bits the data's offset, high 16 its length
	 * in bytes. DATA_LOC: the offset counts from the end of the record
	 * header (the start of a tracepoint's raw record); REL_LOC: from the end
	 * of the u32. size is of one element: 1 with no hint, a string; else an
	 * array of integers (hint HEX: printed as hex). v1.3.
	 */
	RC_FIELD_DATA_LOC = 4,
	RC_FIELD_REL_LOC = 5,
};

enum rc_field_hint {
	RC_HINT_NONE = 0,
	RC_HINT_HEX = 1,
	RC_HINT_ENUM = 2,  /* value named by enum_id */
	RC_HINT_ERRNO = 3, /* -1..-4095 named by enum_id, as -ENAME */
	RC_HINT_NSEC = 4,  /* a duration in nanoseconds */
};

struct rc_field {
	const char *name;
	uint16_t offset; /* from the start of the record, header included */
	uint16_t size;	 /* of one element */
	uint16_t count;	 /* elements: 1, or an array */
	uint8_t kind;
	uint8_t hint;
	uint16_t enum_id;
};

struct rc_enum_entry {
	int64_t value;
	const char *name;
};

struct rc_enum {
	uint16_t id;
	const char *name;
	uint32_t cnt;
	const struct rc_enum_entry *entries; /* sorted by value */
};

struct rc_event_desc {
	uint16_t id;
	uint16_t size; /* smallest valid record, header included */
	const char *name;
	uint16_t nfields;
	const struct rc_field *fields;
};

struct rc_schema {
	uint32_t nevents;
	const struct rc_event_desc *events;
	uint32_t nenums;
	const struct rc_enum *enums;
};

/* The events and enums of ringcap's built-in sources. */
const struct rc_schema *rc_builtin_schema(void);
/* A schema of one's own, a deep copy of @base (NULL: empty), to add events and enums to. */
struct rc_schema *rc_schema__new(const struct rc_schema *base);
/* Add a deep copy of @ev: -EEXIST when its id is taken. */
int rc_schema__add_event(struct rc_schema *s, const struct rc_event_desc *ev);
void rc_schema__free(struct rc_schema *s);
const struct rc_event_desc *rc_schema__event(const struct rc_schema *s, uint16_t id);
const struct rc_event_desc *rc_schema__event_by_name(const struct rc_schema *s, const char *name);
const struct rc_enum *rc_schema__enum(const struct rc_schema *s, uint16_t id);
/* The field of @ev named @name, or NULL (also when @ev is NULL). */
const struct rc_field *rc_event__field(const struct rc_event_desc *ev, const char *name);
const char *rc_enum__name(const struct rc_enum *e, int64_t value);

/* ---- records ---------------------------------------------------------- */

/* The header every record in a capture starts with (ringcap-file(5)). */
struct rc_rec_hdr {
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint16_t type;
	uint16_t size;
	uint16_t cpu;
	uint16_t flags;
	char comm[16];
};

#define RC_REC_ALIGN 8
#define RC_REC_MAX   65528 /* largest record size */

/*
 * A DATA_LOC or REL_LOC field of @rec as the plain field its data makes:
 * a STR of the data's length, or an array of its elements (count may be
 * 0). Other fields are copied as they are. -EBADMSG when the data lies
 * outside the record or its length is not whole elements.
 */
int rc_field__resolve(const struct rc_field *f, const struct rc_rec_hdr *rec, struct rc_field *out);

/* Read field @f (element @idx) of @rec as an integer. */
uint64_t rc_field__u64(const struct rc_field *f, const void *rec, unsigned int idx);
int64_t rc_field__s64(const struct rc_field *f, const void *rec, unsigned int idx);

/* ---- capture metadata and counters ------------------------------------ */

/*
 * A note in the capture header about an event (event_id) or the capture
 * (0): a tracepoint's format text, a uprobe's binary and build-id, a BPF
 * object's BTF. Keys are short names ("format", "path", "build_id", "btf").
 */
struct rc_note {
	uint16_t event_id;
	const char *key;
	const void *data;
	uint32_t len;
};

struct rc_meta {
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t clock_id; /* CLOCK_BOOTTIME */
	uint32_t ncpus;	   /* possible CPUs */
	uint32_t page_size;
	uint32_t recorder_pid;
	uint32_t transport;	/* RC_TRANSPORT_* */
	uint32_t flags;		/* RC_META_* */
	uint64_t start_ts;	/* capture clock at start, ns */
	int64_t wall_offset_ns; /* CLOCK_REALTIME - capture clock */
	uint64_t ringbuf_size;	/* perfbuf: each CPU's ring */
	const char *host;
	const char *kernel;
	const char *arch;
	const char *cmdline;
	const struct rc_schema *schema;
	uint32_t nnotes;
	const struct rc_note *notes;
};

/* The note @key about @event_id, or NULL. */
const struct rc_note *rc_meta__note(const struct rc_meta *m, uint16_t event_id, const char *key);

enum rc_transport {
	RC_TRANSPORT_AUTO = 0, /* ringbuf where the kernel has it, else perfbuf */
	RC_TRANSPORT_RINGBUF = 1,
	RC_TRANSPORT_PERFBUF = 2,
	/* tracepoints by ftrace into a tracefs instance, its rings mapped: no BPF (v1.4) */
	RC_TRANSPORT_FTRACE = 3,
};

/* rc_meta.flags */
#define RC_META_OVERWRITE 0x1 /* flight recorder: records come in snapshots */

struct rc_stat_entry {
	uint32_t cpu;
	uint32_t type;
	uint64_t made;	   /* events in scope the BPF program tried to emit */
	uint64_t dropped;  /* ring full: reservation failed */
	uint64_t filtered; /* events out of scope: not made, not dropped */
	uint64_t captured; /* records read by user space */
	uint64_t missed;   /* the kernel did not run the program (recursion) */
};

/* The cpu of an entry counted for all CPUs together (missed). */
#define RC_CPU_ANY UINT32_MAX
/* The type of an entry about following a command's children, not an event. */
#define RC_TYPE_FOLLOW 0
/* The type of an entry counting a CPU's every event: ftrace counts per CPU, not per event. */
#define RC_TYPE_ALL UINT32_MAX

/* Counters at one moment, cumulative since the start. */
struct rc_stats {
	uint64_t ts;
	uint64_t ring_size;	 /* perfbuf: of one CPU's ring, and these of the fullest */
	uint64_t ring_hwm;	 /* most bytes ever pending in the ring */
	uint64_t ring_pending;	 /* bytes pending when the counters were taken */
	uint64_t user_dropped;	 /* read from the ring, not written: malformed */
	uint64_t writer_wait_ns; /* time the drain waited for the writer */
	uint32_t nentries;
	struct rc_stat_entry *entries;
};

/* The totals of one stats block, for rates over time. */
struct rc_stats_point {
	uint64_t ts;
	uint64_t made;
	uint64_t dropped;
	uint64_t filtered;
	uint64_t captured;
	uint64_t missed;
	uint64_t ring_hwm;
	uint64_t ring_pending;
};

struct rc_chunk_index {
	uint64_t offset;
	uint64_t first_ts;
	uint64_t last_ts;
	uint32_t nrec;
};

struct rc_trailer {
	uint64_t nrec;
	uint64_t nchunks;
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t raw_bytes;
	uint64_t late; /* records written after a later one: out of order */
	uint32_t nindex;
	struct rc_chunk_index *index;
};

/* Sum the entries of @st into @pt (ts and ring fields copied). */
void rc_stats__totals(const struct rc_stats *st, struct rc_stats_point *pt);

/* ---- writer ----------------------------------------------------------- */

struct rc_writer_opts {
	size_t sz;	     /* sizeof(struct rc_writer_opts) */
	int compress_level;  /* zstd level; 0: default (1) */
	size_t chunk_size;   /* raw bytes per chunk; 0: 1 MiB */
	uint64_t reorder_ns; /* hold records this long to sort them; 0: 20 ms */
	bool no_compress;    /* chunks stored in zstd frames, not compressed */
	bool no_shuffle;     /* compressed as they are, not shuffled (RC_CODEC_ZSTD) */
};

struct rc_writer;

/* Write the file header to @fd; records, stats and trailer follow. */
struct rc_writer *rc_writer__new(int fd, const struct rc_meta *meta,
				 const struct rc_writer_opts *opts);
/* Add whole records (each starting with struct rc_rec_hdr), in any order. */
int rc_writer__add(struct rc_writer *w, const void *recs, size_t len);
/* Write every held record old enough to be in order; @all: every one. */
int rc_writer__flush(struct rc_writer *w, bool all);
int rc_writer__add_stats(struct rc_writer *w, const struct rc_stats *st);
/* Flush everything and write the trailer. The fd stays open. */
int rc_writer__finish(struct rc_writer *w);
void rc_writer__free(struct rc_writer *w);

/* ---- reader ----------------------------------------------------------- */

struct rc_reader;

/* Open a capture ("-": standard input) and read its header. */
struct rc_reader *rc_reader__open(const char *path);
struct rc_reader *rc_reader__open_mem(const void *buf, size_t len);
const struct rc_meta *rc_reader__meta(const struct rc_reader *r);
/*
 * Next record, validated against the schema: 1 and *rec set, 0 at the end
 * of the file (complete or truncated), or -errno for a corrupt file, with
 * the reason in rc_reader__error().
 */
int rc_reader__next(struct rc_reader *r, const struct rc_rec_hdr **rec);
/*
 * Only records from @since to @until are wanted (capture clock): chunks
 * outside are skipped without being decompressed, and on a seekable file
 * the trailer's index finds the first. Call before the first
 * rc_reader__next().
 */
void rc_reader__set_range(struct rc_reader *r, uint64_t since, uint64_t until);
/* After the end: true when the file stops before its trailer. */
bool rc_reader__truncated(const struct rc_reader *r);
const char *rc_reader__error(const struct rc_reader *r);
/* The most recent counters read so far (cumulative), or NULL. */
const struct rc_stats *rc_reader__stats(const struct rc_reader *r);
/* The totals of every stats block read so far, in file order. */
const struct rc_stats_point *rc_reader__history(const struct rc_reader *r, size_t *n);
/* The trailer, once the end was reached, or NULL. */
const struct rc_trailer *rc_reader__trailer(const struct rc_reader *r);
/* Bytes of the file consumed so far, and records in complete chunks. */
uint64_t rc_reader__offset(const struct rc_reader *r);
uint64_t rc_reader__chunks(const struct rc_reader *r);
/* Bytes of records in the complete chunks read so far, decompressed. */
uint64_t rc_reader__raw_bytes(const struct rc_reader *r);
void rc_reader__free(struct rc_reader *r);

/* ---- decoding --------------------------------------------------------- */

struct rc_strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

int rc_strbuf__printf(struct rc_strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int rc_strbuf__append(struct rc_strbuf *sb, const void *data, size_t len);
void rc_strbuf__free(struct rc_strbuf *sb);

#define RC_FMT_WALL 0x1 /* wall-clock time instead of seconds from start */

/* Append one perf-script-like line (no newline) for @rec to @sb. */
int rc_decode__text(struct rc_strbuf *sb, const struct rc_meta *m, const struct rc_rec_hdr *rec,
		    unsigned int flags);
/* Append @f of @rec, decoded as text, to @sb. */
int rc_decode__field(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *f,
		     const void *rec);

/* ---- summary ---------------------------------------------------------- */

struct rc_sum_count {
	uint64_t key; /* event id, pid, or syscall number */
	char comm[16];
	uint64_t count;
	uint64_t errors;
	uint64_t total_ns;
	uint64_t max_ns;
};

struct rc_summary {
	uint64_t nrec;
	uint64_t first_ts;
	uint64_t last_ts;
	size_t nevents, nprocs, nsyscalls;
	struct rc_sum_count *events, *procs, *syscalls;
	size_t cap_events, cap_procs, cap_syscalls;
};

int rc_summary__add(struct rc_summary *s, const struct rc_meta *m, const struct rc_rec_hdr *rec);
/* Sort each table by count, largest first. */
void rc_summary__sort(struct rc_summary *s);
void rc_summary__free(struct rc_summary *s);

/* ---- filters ---------------------------------------------------------- */

#define RC_MAX_EVENT_ID_API 4095 /* event ids are 1 to this (ringcap-file(5)) */
#define RC_FIRST_DYN_ID	    256	 /* ids from here: events described at record time */

/* Lists are empty for "any"; since/until in the capture clock (0, UINT64_MAX: any). */
struct rc_filter {
	const uint32_t *pids, *tids, *cpus;
	size_t npids, ntids, ncpus;
	const char *comm;
	uint8_t *events; /* NULL: any; else indexed by event id */
	uint64_t since, until;
};

bool rc_filter__match(const struct rc_filter *f, const struct rc_rec_hdr *rec);
/* Add an event of @s by name or group ("sched", "syscalls"); -ENOENT if none matches. */
int rc_filter__add_event(struct rc_filter *f, const struct rc_schema *s, const char *name);
void rc_filter__free(struct rc_filter *f);

/* ---- histograms ------------------------------------------------------- */

/* slots[i] counts values in [2^i, 2^(i+1)), slot 0 also 0 */
struct rc_hist {
	uint64_t slots[64];
	uint64_t count, total, min, max;
};

void rc_hist__add(struct rc_hist *h, uint64_t v);

/* Run-queue latency: from a task's sched_wakeup to the sched_switch that runs it. */
struct rc_runq {
	struct rc_hist hist; /* in units of div ns */
	unsigned int div;    /* 1000: microseconds; 0 or 1: nanoseconds */
	uint64_t *keys, *vals;
	size_t cap, used;
};

int rc_runq__add(struct rc_runq *q, const struct rc_meta *m, const struct rc_rec_hdr *rec);
void rc_runq__free(struct rc_runq *q);

/* ---- recording -------------------------------------------------------- */

enum rc_drain_mode {
	RC_DRAIN_POLL,
	RC_DRAIN_BUSY,
};

#define RC_EVENT_BIT(type) (1u << (type))

/*
 * Parse "syscalls,sched" or event names ("sched:sched_switch") into a mask
 * of RC_EVENT_BIT()s. -EINVAL for an unknown name, with @bad pointing to it.
 */
int rc_parse_events(const char *spec, uint32_t *mask, char *bad, size_t badlen);

/**
 * struct rc_features - what this kernel can do, as record uses it
 *
 * Probed by loading trivial BPF objects (map types, helpers) and by
 * reading the kernel's BTF (tracepoint prototypes), never from the version
 * number; the one exception is @ftrace_mmap, which has no other probe short
 * of making a tracefs instance.
 */
struct rc_features {
	char release[65];	 /* uname -r */
	char preempt[16];	 /* "rt", "full", "voluntary", "none", "dynamic", or "" */
	bool bpf;		 /* a tracepoint program loads */
	bool btf;		 /* /sys/kernel/btf/vmlinux */
	bool tp_btf;		 /* every BTF tracepoint the built-in sources use */
	char tp_btf_missing[32]; /* the first one missing, when !tp_btf */
	bool exit_group_dead;	 /* sched_process_exit passes group_dead (after 6.12) */
	bool ringbuf;		 /* BPF_MAP_TYPE_RINGBUF (5.8) */
	bool perf_event_array;
	bool task_storage;     /* BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	bool current_task_btf; /* bpf_get_current_task_btf (5.11) */
	bool ktime_boot;       /* bpf_ktime_get_boot_ns (5.8) */
	bool attach_cookie;    /* bpf_get_attach_cookie in tracepoints (5.15) */
	bool uprobes;	       /* the uprobe perf PMU */
	bool tracefs;
	bool ftrace_mmap; /* tracefs ring-buffer mapping (6.10) */
};

/* What record is about to use, for rc_features__missing(). */
enum rc_feature_need {
	RC_NEED_SYSCALLS,    /* the built-in syscalls source */
	RC_NEED_SCHED,	     /* the built-in sched source */
	RC_NEED_FOLLOW,	     /* following a command's children */
	RC_NEED_TRACEPOINTS, /* -e SYSTEM:NAME */
	RC_NEED_UPROBES,     /* -e uprobe:... */
};

/**
 * rc_features__probe() - probe this kernel
 * @f: filled in
 *
 * Needs the privileges record needs for the BPF answers; without them
 * every BPF feature reads as missing. Return: 0.
 */
int rc_features__probe(struct rc_features *f);

/**
 * rc_features__missing() - the first feature @need lacks on this kernel
 * @f: from rc_features__probe()
 * @need: what is about to be loaded
 *
 * Return: NULL when nothing is missing, else the feature's name with the
 * kernel version that added it, for a one-line refusal.
 */
const char *rc_features__missing(const struct rc_features *f, enum rc_feature_need need);

struct rc_record_opts {
	size_t sz; /* sizeof(struct rc_record_opts) */
	uint32_t events;
	const pid_t *pids; /* only these processes (tgids) */
	size_t npids;
	bool follow_forks;	/* children of targets become targets */
	const char *comm;	/* only tasks with this comm */
	size_t ringbuf_size;	/* ringbuf: the ring; perfbuf, ftrace: each CPU's, 2^n pages */
	uint64_t wakeup_bytes;	/* wake the reader when this much is pending; 0: default */
	uint32_t wakeup_events; /* perfbuf: or every this many records */
	enum rc_transport transport;
	bool time_order_only; /* perfbuf: never empty the fullest ring first (for measuring) */
	bool overwrite;	      /* perfbuf flight recorder: write only snapshots */
	uint32_t snap_type;   /* overwrite: snapshot when a record of this type is made, */
	int32_t snap_nr;      /* ... for syscalls of this number (-1: any) */
	enum rc_drain_mode drain;
	int compress_level;
	const char *cmdline;
	unsigned int flush_ms;	/* the longest a record waits to be written; 0: 1000 */
	unsigned int wakeup_ms; /* read the ring at least this often; 0: every flush_ms */
	bool no_compress;	/* chunks stored uncompressed (still zstd frames) */
	/* tracepoints by name: "SYSTEM:NAME", globs allowed ("block:*") */
	const char *const *tracepoints;
	size_t ntracepoints;
	/* "uprobe:PATH:FUNCTION" or "uretprobe:PATH:FUNCTION" */
	const char *const *uprobes;
	size_t nuprobes;
	/*
	 * A user's BPF object to record instead of ringcap's programs: its
	 * ring (bpf_map, or the only one) drained, its records decoded as
	 * struct event_type (NULL: kept raw), its const volatile globals set
	 * by "NAME=VALUE" assignments.
	 */
	const char *bpf_object;
	const char *bpf_map;
	const char *event_type;
	const char *const *bpf_sets;
	size_t nbpf_sets;
};

/*
 * Call @fn for each tracepoint "SYSTEM:NAME" that @pattern matches (globs;
 * NULL: every one), in order. Returns the number of matches, or -errno.
 */
int rc_list_tracepoints(const char *pattern,
			int (*fn)(const char *system, const char *name, void *ctx), void *ctx);

struct rc_session;

/* Check privileges, open and load the BPF programs. Nothing is traced yet. */
struct rc_session *rc_session__open(const struct rc_record_opts *opts);
int rc_session__add_target(struct rc_session *s, pid_t pid);
/*
 * Attach the programs, then write the capture header to @fd and start the
 * writer: once the file is not empty, tracing is on. With @fd < 0 nothing
 * is written: records are read, counted and discarded (live counters).
 */
int rc_session__start(struct rc_session *s, int fd);
/* Drain the ring for up to @ms milliseconds; returns records read or -errno. */
int rc_session__drain(struct rc_session *s, int ms);
/* Detach, drain what is left, write the counters and the trailer. */
int rc_session__stop(struct rc_session *s);
/* Why a snapshot was taken (the ringcap:snapshot record's reason). */
enum rc_snapshot_why {
	RC_SNAPSHOT_SIGNAL = 1, /* SIGUSR2 */
	RC_SNAPSHOT_EXIT = 2,	/* the end of the capture */
	RC_SNAPSHOT_EVENT = 3,	/* --snapshot-on */
};

/* Flight recorder (overwrite): write what the rings hold now; returns records written. */
long rc_session__snapshot(struct rc_session *s, enum rc_snapshot_why why);
/* The transport chosen at open (RC_TRANSPORT_RINGBUF or _PERFBUF). */
enum rc_transport rc_session__transport(const struct rc_session *s);
/* Take the counters now (a BPF map read); NULL and errno on failure. */
const struct rc_stats *rc_session__sample(struct rc_session *s);
/* The counters last taken: each second, and final after rc_session__stop(). */
const struct rc_stats *rc_session__stats(const struct rc_session *s);
/* What the capture header says (host, CPUs, schema), once started. */
const struct rc_meta *rc_session__meta(const struct rc_session *s);
/* Records in the complete chunks written so far. */
uint64_t rc_session__records_written(const struct rc_session *s);
/* Bytes written to the file so far, and (@raw) records' bytes before compression. */
uint64_t rc_session__bytes(const struct rc_session *s, uint64_t *raw);
void rc_session__free(struct rc_session *s);

#endif /* RINGCAP_H */
