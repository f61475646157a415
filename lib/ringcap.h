/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libringcap: capture engine, capture file format and decoding.
 *
 * Conventions (libbpf's): functions return 0, a count, or a negative errno;
 * constructors return NULL and set errno. The library never writes to
 * stdout and never exits; it logs through the callback set with
 * rc_set_print().
 *
 * Objects (a writer, a reader, a session, a schema of one's own) are not
 * locked: use each from one thread at a time. What an accessor returns
 * belongs to its object, and lives until the object is freed unless its
 * comment says otherwise.
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

/**
 * rc_set_print() - set the library's log callback
 * @fn: called for every message, of every level; NULL: no messages at all
 *
 * The default prints warnings (RC_WARN) to stderr and drops the rest.
 * The callback is process-wide and may be called
 * from the library's writer thread during a capture: set it before opening
 * a session, not while one runs. errno is kept across a call to @fn.
 *
 * Return: the callback set before.
 */
rc_print_fn_t rc_set_print(rc_print_fn_t fn);

/**
 * rc_set_debuginfod() - look debug files up on debuginfod servers too
 * @on: true to ask the servers of $DEBUGINFOD_URLS (when set and not empty)
 *	for the debug file of a stripped file that has a build-id and whose
 *	debug file is not found locally; false (the default) not to
 *
 * Process-wide, as libdebuginfod's settings (its environment variables)
 * are. The queries are made by the capture's writer thread when it first
 * meets a process's mappings, through libdebuginfod.so.1 loaded with
 * dlopen() (nothing is asked where it is missing, or in a static build):
 * a slow server stalls the writer. $DEBUGINFOD_TIMEOUT bounds a query, a
 * build-id is asked once, and none are asked after the servers could not
 * be reached or after 30 s of queries in all. Said once (RC_WARN) when
 * first asked.
 */
void rc_set_debuginfod(bool on);

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

/**
 * struct rc_field - one field of an event's records
 * @name: unique within its event
 * @offset: from the start of the record, header included
 * @size: of one element, in bytes (1, 2, 4 or 8 for an integer)
 * @count: elements: 1, or an array of them
 * @kind: enum rc_field_kind
 * @hint: enum rc_field_hint, how to print the value
 * @enum_id: the schema's enum that names its values, for RC_HINT_ENUM and
 *	RC_HINT_ERRNO
 */
struct rc_field {
	const char *name;
	uint16_t offset;
	uint16_t size;
	uint16_t count;
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

/**
 * struct rc_event_desc - an event: its records' layout
 * @id: the records' rc_rec_hdr.type
 * @size: the smallest valid record, header included
 * @name: e.g. "sched:sched_switch", "bpf:event"
 * @nfields: entries of @fields
 * @fields: the fields after the record header
 * @flags: RC_EVENT_NO_*: what the header of its records does not know
 *	(v1.5; 0 in older files)
 */
struct rc_event_desc {
	uint16_t id;
	uint16_t size;
	const char *name;
	uint16_t nfields;
	const struct rc_field *fields;
	uint16_t flags;
};

/*
 * rc_event_desc.flags: the records of the event carry no such value (their
 * header holds 0, or NULs for comm), e.g. a record --bpf struct without
 * pid and tid fields, or one that came through a BPF ring buffer, which
 * tells no CPU. Readers show these as unknown, never as 0.
 */
#define RC_EVENT_NO_PID	 0x1
#define RC_EVENT_NO_TID	 0x2
#define RC_EVENT_NO_CPU	 0x4
#define RC_EVENT_NO_COMM 0x8

struct rc_schema {
	uint32_t nevents;
	const struct rc_event_desc *events;
	uint32_t nenums;
	const struct rc_enum *enums;
};

/**
 * rc_builtin_schema() - the events and enums of ringcap's built-in sources
 *
 * The syscall and sched events and ringcap's own (ringcap:lost,
 * ringcap:snapshot), with the syscall, errno, task-state and snapshot-reason
 * enums. Built on the first call; safe to call from several threads. A
 * capture carries its own schema (rc_meta.schema): decode a file with that,
 * not with this one.
 *
 * Return: a static schema, never NULL; not to be freed or added to.
 */
const struct rc_schema *rc_builtin_schema(void);

/**
 * rc_schema__new() - a schema of one's own, to add events to
 * @base: deep-copied into the new schema; NULL: start empty
 *
 * Return: the schema, to free with rc_schema__free(); NULL with errno
 * ENOMEM.
 */
struct rc_schema *rc_schema__new(const struct rc_schema *base);

/**
 * rc_schema__add_event() - add a deep copy of an event to a schema
 * @s: a schema from rc_schema__new()
 * @ev: the event; its name and fields are copied, @ev is not kept
 *
 * @ev is not checked: its fields are taken to lie within its size. Adding
 * may move @s->events, so pointers from rc_schema__event() into @s are
 * stale afterwards. On -ENOMEM part way the event may be in @s with only
 * some of its fields; rc_schema__free() still frees all of it.
 *
 * Return: 0; -EEXIST when @s has an event of @ev's id (nothing added); or
 * -ENOMEM.
 */
int rc_schema__add_event(struct rc_schema *s, const struct rc_event_desc *ev);

/**
 * rc_schema__free() - free a schema and everything it holds
 * @s: from rc_schema__new(), or NULL
 *
 * Not for rc_builtin_schema() nor a capture's schema (rc_meta.schema), which
 * belong to the library and to their reader or session.
 */
void rc_schema__free(struct rc_schema *s);

/**
 * rc_schema__event() - an event of a schema, by id
 * @s: the schema
 * @id: the event's id (rc_rec_hdr.type)
 *
 * Return: the event, or NULL when @s has none of that id.
 */
const struct rc_event_desc *rc_schema__event(const struct rc_schema *s, uint16_t id);

/**
 * rc_schema__event_by_name() - an event of a schema, by its full name
 * @s: the schema
 * @name: as stored, e.g. "sched:sched_switch" or "syscall"; no globs, no
 *	groups
 *
 * Return: the first event of that name, or NULL.
 */
const struct rc_event_desc *rc_schema__event_by_name(const struct rc_schema *s, const char *name);

/**
 * rc_schema__enum() - an enum of a schema, by id
 * @s: the schema
 * @id: the enum's id (rc_field.enum_id)
 *
 * Return: the enum, or NULL when @s has none of that id.
 */
const struct rc_enum *rc_schema__enum(const struct rc_schema *s, uint16_t id);

/**
 * rc_event__field() - a field of an event, by name
 * @ev: the event, or NULL
 * @name: the field's name
 *
 * Return: the field, or NULL when @ev has none of that name or is NULL.
 */
const struct rc_field *rc_event__field(const struct rc_event_desc *ev, const char *name);

/**
 * rc_enum__name() - the name of a value of an enum
 * @e: the enum, or NULL; its entries sorted by value (a binary search)
 * @value: the value
 *
 * Return: the entry's name, or NULL when @e has no entry of @value or is
 * NULL.
 */
const char *rc_enum__name(const struct rc_enum *e, int64_t value);

/* ---- records ---------------------------------------------------------- */

/**
 * struct rc_rec_hdr - the header every record in a capture starts with
 * @ts: the capture clock (rc_meta.clock_id), in ns
 * @pid: the process (thread group id)
 * @tid: the thread
 * @type: the id of the record's event in the capture's schema
 * @size: of the whole record, header included: a multiple of RC_REC_ALIGN,
 *	at least its event's size, at most RC_REC_MAX
 * @cpu: the CPU it was made on
 * @flags: per event; for syscall, 1: recorded at entry, the call did not
 *	return
 * @comm: the thread's name, NUL-padded (not always NUL-terminated)
 *
 * The layout of ringcap-file(5); the event's fields follow.
 */
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

/**
 * rc_field__resolve() - a DATA_LOC or REL_LOC field of a record as a plain one
 * @f: a field of @rec's event
 * @rec: the record; its size bounds the data
 * @out: the plain field: a STR of the data's length (size 1, no hint), else
 *	a UINT array of the data's elements (count may be 0)
 *
 * Fields of other kinds are copied to @out as they are.
 *
 * Return: 0; or -EBADMSG, @out then a copy of @f, when the location lies
 * outside the record, the data's length is not whole elements, or @f's size
 * is 0.
 */
int rc_field__resolve(const struct rc_field *f, const struct rc_rec_hdr *rec, struct rc_field *out);

/**
 * rc_field__u64() - read an element of a field of a record as an integer
 * @f: the field
 * @rec: the record, at least as long as @f's extent; not checked here
 *	(rc_reader__next() checks a record's size against its event's)
 * @idx: the element, below @f->count
 *
 * Reads @f->size little-endian bytes, zero-extended. A DATA_LOC or REL_LOC
 * field reads as its u32 location (element 0; others read 0): resolve it
 * first with rc_field__resolve(). A field larger than 8 bytes reads 0.
 *
 * Return: the value.
 */
uint64_t rc_field__u64(const struct rc_field *f, const void *rec, unsigned int idx);

/**
 * rc_field__s64() - read an element of a field of a record as a signed integer
 * @f: the field
 * @rec: the record, as for rc_field__u64()
 * @idx: the element, below @f->count
 *
 * As rc_field__u64(), sign-extended from @f->size bytes whatever @f's kind.
 *
 * Return: the value.
 */
int64_t rc_field__s64(const struct rc_field *f, const void *rec, unsigned int idx);

/**
 * rc_rec__unknown() - what the header of a record does not know
 * @s: the capture's schema
 * @rec: a record of the capture
 *
 * Return: the RC_EVENT_NO_* flags of @rec's event: its pid, tid, cpu or
 * comm are not values but unknown; 0 for an event @s lacks.
 */
unsigned int rc_rec__unknown(const struct rc_schema *s, const struct rc_rec_hdr *rec);

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

/**
 * struct rc_run - where a file stands in its run of `ringcap record` (v1.9)
 * @id: random, the same in every file of one run
 * @boot_id: the kernel's boot id (/proc/sys/kernel/random/boot_id) as 16
 *	bytes; zeros if unknown
 * @seq: 1 for a run's first file, +1 a file
 * @flags: RC_RUN_F_*
 * @start_ts: capture clock at the run's start (its first file's start_ts)
 */
struct rc_run {
	uint8_t id[16], boot_id[16];
	uint32_t seq, flags;
	uint64_t start_ts;
};

/*
 * The run was asked to switch files when this one began: more may follow.
 * 0 does not say none follows (a SIGHUP switch without --switch-output):
 * a run's files are known by run id and seq.
 */
#define RC_RUN_F_ROTATING 0x1

struct rc_meta {
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t clock_id; /* CLOCK_BOOTTIME */
	uint32_t ncpus;	   /* possible CPUs */
	uint32_t page_size;
	uint32_t recorder_pid;
	uint32_t transport;	/* RC_TRANSPORT_* */
	uint32_t flags;		/* RC_META_* */
	uint64_t start_ts;	/* capture clock at the file's start, ns */
	int64_t wall_offset_ns; /* CLOCK_REALTIME - capture clock, when the file began */
	uint64_t ringbuf_size;	/* perfbuf: each CPU's ring */
	const char *host;
	const char *kernel;
	const char *arch;
	const char *cmdline;
	const struct rc_schema *schema;
	uint32_t nnotes;
	const struct rc_note *notes;
	/* v1.9: the run; a writer writes it as given, a seq of 0 as 1 */
	struct rc_run run;
	bool has_run; /* read from the file: false before v1.9 (run zeroed) */
};

/**
 * rc_meta__note() - a note of the capture header
 * @m: the header
 * @event_id: the event the note is about; 0: the capture's own notes
 * @key: the note's key, e.g. "format"
 *
 * Return: the first note of @event_id and @key, or NULL.
 */
const struct rc_note *rc_meta__note(const struct rc_meta *m, uint16_t event_id, const char *key);

enum rc_transport {
	RC_TRANSPORT_AUTO = 0, /* ringbuf where the kernel has it, else perfbuf */
	RC_TRANSPORT_RINGBUF = 1,
	RC_TRANSPORT_PERFBUF = 2,
	/* tracepoints by ftrace into a tracefs instance, its rings mapped: no BPF (v1.4) */
	RC_TRANSPORT_FTRACE = 3,
};

/* How the ftrace transport reads each CPU's ring (record --ftrace-read). */
enum rc_ftrace_read {
	RC_FTRACE_READ_AUTO = 0, /* mmap where the kernel maps the rings (6.10), else splice */
	RC_FTRACE_READ_MMAP,	 /* the rings mapped: Linux 6.10 */
	RC_FTRACE_READ_SPLICE,	 /* whole pages spliced from trace_pipe_raw, as trace-cmd */
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
	/* sampling events (record -F / -c), estimated from their counts: */
	uint64_t not_run;      /* samples asked for that the program never ran for */
	uint64_t throttled;    /* of those, while the kernel throttled the event */
	uint64_t throttled_ns; /* time throttled */
	uint64_t throttles;    /* times throttled */
	/*
	 * Made (counted in @made) before the counters were taken, and neither
	 * dropped nor read from the ring by then: written after them (v1.9;
	 * 0 in older files and in a run's last counters).
	 */
	uint64_t in_flight;
	/*
	 * Flight recorder: made while a snapshot paused the rings, so that
	 * the kernel refused them (not in @dropped: the rings were not full).
	 * 0 in files before entry_size 96.
	 */
	uint64_t paused;
};

/* The cpu of an entry counted for all CPUs together (missed). */
#define RC_CPU_ANY UINT32_MAX
/* The type of an entry about following a command's children, not an event. */
#define RC_TYPE_FOLLOW 0
/* The type of an entry counting a CPU's every event: ftrace counts per CPU, not per event. */
#define RC_TYPE_ALL UINT32_MAX
/*
 * The type of an entry counting a CPU's AUX bytes (record -e PMU//), not
 * events: made the bytes the PMU wrote as far as known, captured those in
 * the file, dropped those not read (a bad head), missed the data-ring
 * records the kernel lost, throttles the truncations (the area was full:
 * the PMU stopped, and its trace has a gap), not_run the snapshots of a
 * wrapped area (what it overwrote before is not known). v1.10.
 */
#define RC_TYPE_AUX (UINT32_MAX - 1)

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
	uint64_t not_run, throttled; /* samples: struct rc_stat_entry */
	uint64_t paused;	     /* flight recorder: struct rc_stat_entry */
};

/**
 * struct rc_chunk_index - where a chunk is, in the trailer's index
 * @offset: of the chunk's block, in bytes from the start of the file
 * @first_ts: the earliest record's time
 * @last_ts: the latest record's time
 * @nrec: records in the chunk
 */
struct rc_chunk_index {
	uint64_t offset;
	uint64_t first_ts;
	uint64_t last_ts;
	uint32_t nrec;
};

/**
 * struct rc_trailer - the totals at the end of a capture
 * @nrec: records, in all chunks
 * @nchunks: chunks
 * @first_ts: the earliest record's time
 * @last_ts: the latest record's time
 * @raw_bytes: bytes of records, decompressed
 * @late: records written after a record of a later time: out of order
 * @nindex: entries of @index, one a chunk in file order
 * @index: where each chunk is
 */
struct rc_trailer {
	uint64_t nrec;
	uint64_t nchunks;
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t raw_bytes;
	uint64_t late;
	uint32_t nindex;
	struct rc_chunk_index *index;
};

/**
 * rc_stats__totals() - the totals of a set of counters
 * @st: the counters
 * @pt: filled: every entry of @st summed, with @st's ts, ring_hwm and
 *	ring_pending
 */
void rc_stats__totals(const struct rc_stats *st, struct rc_stats_point *pt);

/**
 * rc_stats__span() - the counters of one file of a run: its last less those it began with
 * @end: the file's last counters (rc_reader__stats() at its end)
 * @base: the run's counters when it began (rc_reader__base()); NULL: zeros
 * @out: filled: @end's entries, each less @base's of its CPU and event
 *	(0 when that went back), made being (END.made - BASE.made) +
 *	BASE.in_flight - END.in_flight (ringcap-file(5), RUN); ring sizes as
 *	@end's. Free @out->entries
 *
 * The records in the file are then @out's captured, and the files of a
 * run sum to its totals.
 *
 * Return: 0, or -ENOMEM.
 */
int rc_stats__span(const struct rc_stats *end, const struct rc_stats *base, struct rc_stats *out);

/* ---- the loss ledger -------------------------------------------------- */

#define RC_LEDGER_EVENTS 4096 /* event ids are at most 4095 (ringcap-file(5)) */
#define RC_LEDGER_CPUS	 4096 /* CPUs past this are counted in the totals only */

/**
 * struct rc_ledger_row - one event's, one CPU's or every event's counts
 * @made: made by the programs, or by the kernel's tracer
 * @dropped: made, and not in the ring: it was full
 * @filtered: out of scope (-p, a command, --comm), not made
 * @captured: read from the ring
 * @in_file: records in the file (0 for a live count)
 * @missed: runs of a program the kernel skipped (an upper bound)
 * @not_run: samples asked for (-F, -c) that the program never ran for:
 *	skipped while another BPF program ran on the CPU, throttled, or a
 *	timer late; estimated (rc_sampler__estimate())
 * @throttled: of @not_run, those of the time the kernel throttled the
 *	sampling events: estimated
 * @throttled_ns: time the sampling events were throttled
 * @throttles: times they were throttled
 */
struct rc_ledger_row {
	uint64_t made, dropped, filtered, captured, in_file, missed;
	uint64_t not_run, throttled, throttled_ns, throttles;
	uint64_t paused; /* flight recorder: refused while a snapshot paused the rings */
};

/**
 * struct rc_ledger - a capture's loss ledger: made = in the file + lost
 * @live: counts of a running capture, not of a file: nothing is missing
 * @overwrite: a flight recorder's: the rings kept only the newest
 * @ncpus: rows in @by_cpu
 * @st: the counters counted (NULL: a file cut before its first counters)
 * @by_event: [RC_LEDGER_EVENTS], by event id
 * @by_cpu: [@ncpus]
 * @total: every event's
 * @snapshots: ringcap:snapshot records in the file
 * @lost_in_stream: ringcap:lost records' counts: where the kernel said
 * @lost_at_end: ... and those it never reported, counted at stop
 * @corrupt_chunks: chunks of the file lost to damage (rc_reader__corrupt())
 * @corrupt_records: their records: missing from the file, not dropped
 * @corrupt_bytes: the bytes of the file passed over
 * @worst_at: the start of the second with the most drops, s from the start
 * @worst_dropped: its drops
 * @worst_made: its events made
 *
 * Zero it, rc_ledger__alloc(), then add the file's records and count its
 * counters; rc_ledger__lost() and the rows say what was lost where.
 */
struct rc_ledger {
	bool live, overwrite;
	uint32_t ncpus;
	const struct rc_stats *st;
	struct rc_ledger_row *by_event, *by_cpu, total;
	struct rc_ledger_row aux; /* AUX bytes (RC_TYPE_AUX), apart from the events */
	uint64_t snapshots, lost_in_stream, lost_at_end;
	uint64_t corrupt_chunks, corrupt_records, corrupt_bytes;
	double worst_at;
	uint64_t worst_dropped, worst_made;
};

/**
 * rc_ledger__alloc() - the rows of a ledger
 * @l: zeroed, or with @live and @overwrite set
 * @ncpus: the capture's CPUs (rc_meta.ncpus; at most RC_LEDGER_CPUS are rows)
 *
 * Return: 0, or -ENOMEM (rc_ledger__free() still frees what was made).
 */
int rc_ledger__alloc(struct rc_ledger *l, uint32_t ncpus);

/**
 * rc_ledger__free() - free a ledger's rows; @l itself is the caller's
 * @l: allocated, or zeroed
 */
void rc_ledger__free(struct rc_ledger *l);

/**
 * rc_ledger__add_record() - a record found in the file
 * @l: allocated
 * @m: the capture's header, for its schema: a record whose event does not
 *	know its CPU (RC_EVENT_NO_CPU) is in no CPU's row
 * @rec: an event's record (not the ledger's own: see rc_ledger__add_lost())
 */
void rc_ledger__add_record(struct rc_ledger *l, const struct rc_meta *m,
			   const struct rc_rec_hdr *rec);

/**
 * rc_ledger__add_lost() - a ringcap:lost record's count
 * @l: the ledger
 * @lost: its lost field
 * @at_end: its RC_LOST_F_AT_END flag: drops the kernel never reported
 */
void rc_ledger__add_lost(struct rc_ledger *l, uint64_t lost, bool at_end);

/**
 * rc_ledger__count() - sum a set of counters into the rows, once
 * @l: allocated, its records added
 * @st: the capture's last counters, kept as @l->st (NULL: none)
 */
void rc_ledger__count(struct rc_ledger *l, const struct rc_stats *st);

/**
 * rc_ledger__add_corrupt() - what the file lost to damage
 * @l: the ledger
 * @chunks: chunks lost (struct rc_damage)
 * @records: their records
 * @bytes: bytes passed over
 */
void rc_ledger__add_corrupt(struct rc_ledger *l, uint64_t chunks, uint64_t records, uint64_t bytes);

/**
 * rc_ledger__add() - add one file's ledger to a sum of several
 * @to: allocated: every row, count and loss of @from added; the second
 *	with the most drops kept when @from's dropped more. @to->st is left
 *	to the caller (the counters the sum shows)
 * @from: counted
 */
void rc_ledger__add(struct rc_ledger *to, const struct rc_ledger *from);

/**
 * rc_ledger__missing() - read from the ring but not in the file
 * @l: counted
 * @r: a row of @l
 *
 * The file was cut short, or records were in a damaged chunk: the total's
 * rc_ledger__cut_short() and @l->corrupt_records tell which.
 *
 * Return: the count; 0 for a live ledger.
 */
uint64_t rc_ledger__missing(const struct rc_ledger *l, const struct rc_ledger_row *r);

/**
 * rc_ledger__cut_short() - records missing from the file, but for those of damaged chunks
 * @l: counted
 *
 * Return: rc_ledger__missing() of the total, less @l->corrupt_records; 0
 * when these are as many or more (the last counters were in a damaged
 * block, or the file has none).
 */
uint64_t rc_ledger__cut_short(const struct rc_ledger *l);

/**
 * rc_ledger__lost() - events lost at any layer
 * @l: counted
 *
 * The ring was full, user space dropped, or the file was cut short or
 * damaged: missing from it, or in its damaged chunks, whichever is more.
 * Runs the kernel skipped (missed) are not counted: they are an upper
 * bound, since a skipped run may have been out of scope.
 *
 * Return: the count.
 */
uint64_t rc_ledger__lost(const struct rc_ledger *l);

/**
 * rc_ledger__overwritten() - a flight recorder's events made and in no snapshot
 * @l: counted
 *
 * Return: the count; 0 unless @l->overwrite.
 */
uint64_t rc_ledger__overwritten(const struct rc_ledger *l);

/**
 * rc_ledger__note_interval() - keep the interval from @a to @b if it dropped most
 * @l: the ledger
 * @a: the counters' totals at its start
 * @b: at its end
 * @at: its start, in s from the capture's start
 */
void rc_ledger__note_interval(struct rc_ledger *l, const struct rc_stats_point *a,
			      const struct rc_stats_point *b, double at);

/**
 * rc_ledger__worst_second() - the second with the most drops, from the counters' history
 * @l: the ledger
 * @h: the totals of each counter block, in order (rc_reader__history())
 * @n: blocks in @h
 * @t0: the capture's start (rc_meta.start_ts): the first interval starts there
 */
void rc_ledger__worst_second(struct rc_ledger *l, const struct rc_stats_point *h, size_t n,
			     uint64_t t0);

/* ---- AUX streams -------------------------------------------------------- */

/* rc_aux_chunk.flags */
#define RC_AUX_F_SNAPSHOT 0x1 /* copied from an overwrite ring (record --overwrite) */
#define RC_AUX_F_WRAPPED                                                                           \
	0x2 /* a snapshot of a whole area that had wrapped: older bytes overwritten */

/**
 * struct rc_aux_chunk - a stretch of one CPU's AUX stream (Intel PT, ARM SPE, ...)
 * @cpu: the CPU whose PMU wrote it
 * @flags: RC_AUX_F_*
 * @pmu_type: the perf event's attr.type (/sys/bus/event_source/devices/NAME/type)
 * @pos: the AUX position (aux_head's running count) of the first byte
 * @size: bytes in @data
 * @lost: bytes overwritten before this copy (an overwrite ring)
 * @ts: capture clock when copied
 * @time_zero: the hardware clock's conversion to perf time, from the event's
 *	metadata page: ns = @time_zero + count * @time_mult >> @time_shift
 * @time_mult: see @time_zero
 * @time_shift: see @time_zero
 * @clock_valid: the kernel gave the conversion (cap_user_time_zero)
 * @perf_to_boot: capture clock less perf time, measured at the copy
 *	(0: unknown): a hardware time's capture clock is its perf time plus this
 * @pmu: the PMU's name, as sysfs has it (intel_pt, arm_spe_0, cs_etm)
 * @data: the bytes: valid during the callback (reader), or the caller's (writer)
 */
struct rc_aux_chunk {
	char pmu[16];
	uint32_t cpu;
	uint32_t flags;
	uint32_t pmu_type;
	uint64_t pos, size, lost, ts;
	uint64_t time_zero;
	uint32_t time_mult;
	uint16_t time_shift;
	bool clock_valid;
	int64_t perf_to_boot;
	const void *data;
};

/**
 * rc_aux_chunk__hw_to_ts() - a hardware clock count (a TSC packet's) on the capture clock
 * @ac: the chunk whose stream holds it
 * @count: the count
 *
 * Return: capture-clock ns, or 0 when the chunk's clock is unknown.
 */
uint64_t rc_aux_chunk__hw_to_ts(const struct rc_aux_chunk *ac, uint64_t count);

/* A reader's AUX callback: 0 to go on, or -errno to stop reading with it. */
typedef int (*rc_aux_fn)(void *ctx, const struct rc_aux_chunk *ac);

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

/**
 * rc_writer__new() - start a capture file
 * @fd: where to write; not closed by the writer. The file's offsets (the
 *	trailer's index) count from where the writer starts: the start of a
 *	file, or a pipe
 * @meta: the header: its schema (not NULL) describes every record to be
 *	added; strings may be NULL. Copied into the header at once
 * @opts: NULL for the defaults
 *
 * Writes the file header at once; records, counters and the trailer follow.
 *
 * Return: the writer, to free with rc_writer__free(); NULL with errno
 * EINVAL for a chunk_size over 32 MiB or a compression level zstd refuses,
 * E2BIG for a header over 16 MiB, ENOMEM, or write(2)'s error.
 */
struct rc_writer *rc_writer__new(int fd, const struct rc_meta *meta,
				 const struct rc_writer_opts *opts);

/**
 * rc_writer__add() - add records, in any order
 * @w: the writer
 * @recs: whole records, each starting with struct rc_rec_hdr; copied
 * @len: bytes at @recs
 *
 * The records are held up to the writer's reorder window, sorted by time
 * and written in chunks; a record older than one already written is
 * written all the same, and counted in the trailer's late. Their types are
 * not checked: a reader refuses a chunk with a record of an event the
 * header's schema does not describe. Once two chunks' worth, and at least
 * as much as the last flush kept back, came in since the last flush,
 * writes what is ready (rc_writer__flush()): call that as well, as ringcap
 * record does every second, to bound how long a record waits.
 *
 * Return: 0; -EINVAL, with nothing taken, when @recs is not a run of whole
 * records (a size under the header's, not a multiple of RC_REC_ALIGN, or
 * past @len); -E2BIG when over 4 GiB would be held; -ENOMEM; or an error of
 * writing, which is sticky: every later call returns it.
 */
int rc_writer__add(struct rc_writer *w, const void *recs, size_t len);

/**
 * rc_writer__flush() - write the records held that are old enough
 * @w: the writer
 * @all: every record held, not just those older than the newest by the
 *	reorder window
 *
 * Writes the records as chunks of up to the chunk size; a partial chunk is
 * written too, so each flush can add a small chunk.
 *
 * Return: 0, or an error of writing (-ENOMEM, -EIO from zstd, or
 * write(2)'s), sticky: every later call returns it.
 */
int rc_writer__flush(struct rc_writer *w, bool all);

/**
 * rc_writer__add_stats() - write a block of counters
 * @w: the writer
 * @st: the counters, copied
 *
 * Writes what the reorder window lets go first (rc_writer__flush(@w,
 * false)), so a reader meets the counters after the records they count.
 *
 * Return: 0; -E2BIG for a block over 16 MiB; -ENOMEM; or an error of
 * writing (sticky).
 */
int rc_writer__add_stats(struct rc_writer *w, const struct rc_stats *st);

/**
 * rc_writer__add_base() - write a BASE block: the run's counters when the file began
 * @w: the writer, nothing added to it yet
 * @st: the counters, copied: the last ones written to the run's file before
 *	this one
 *
 * For the second and later files of a run (rc_meta.run.seq > 1): a reader
 * counts the file's span as its last counters less these
 * (ringcap-file(5), ROTATION).
 *
 * Return: 0; -EINVAL once anything but the header was written; -E2BIG;
 * -ENOMEM; or an error of writing (sticky).
 */
int rc_writer__add_base(struct rc_writer *w, const struct rc_stats *st);

/**
 * rc_writer__add_aux() - write a stretch of a CPU's AUX stream: an AUX block
 * @w: the writer
 * @ac: the stretch; @ac->size at most RC_AUX_MAX bytes
 *
 * Compressed with zstd unless the writer stores (--no-compress), or zstd
 * does not make it smaller. AUX blocks are not records: they are not in
 * the chunk index, and rc_reader__next() hands them to rc_reader__on_aux().
 *
 * Return: 0, -E2BIG, or -errno.
 */
int rc_writer__add_aux(struct rc_writer *w, const struct rc_aux_chunk *ac);
#define RC_AUX_MAX (4u << 20)

/**
 * rc_writer__finish() - flush every record, and end the file
 * @w: the writer
 *
 * Writes every record held, then the trailer (totals and chunk index) and
 * the end block. The fd stays open and is not synced. Call once, and add
 * nothing after.
 *
 * Return: 0, or an error of writing; a file without its end block reads as
 * truncated.
 */
int rc_writer__finish(struct rc_writer *w);

/**
 * rc_writer__free() - free a writer
 * @w: the writer, or NULL
 *
 * Records still held are dropped: call rc_writer__finish() first for a
 * complete file. The fd is not closed.
 */
void rc_writer__free(struct rc_writer *w);

/* ---- reader ----------------------------------------------------------- */

struct rc_reader;

/**
 * rc_reader__open() - open a capture and read its header
 * @path: the file; "-": standard input (a pipe will do)
 *
 * Failures but ENOMEM and open(2)'s are logged (RC_WARN) with their reason;
 * open(2)'s only errno says (rc_set__open() names the file with it). A
 * file opened by @path is closed by rc_reader__free(); standard input is
 * not.
 *
 * Return: the reader, to free with rc_reader__free(); NULL with errno set:
 * open(2)'s error, ENODATA for an empty file or one cut inside its header,
 * EBADMSG for one that is not a capture or whose header is corrupt,
 * EPROTONOSUPPORT for another major version of the format, EIO when
 * reading fails, or ENOMEM.
 */
struct rc_reader *rc_reader__open(const char *path);

/**
 * rc_reader__open_error() - why the last rc_reader__open() of this thread
 * failed on the file's contents, with the byte offset where it was found
 *
 * Return: "" after a success, or a failure to open or read the file.
 */
const char *rc_reader__open_error(void);

/**
 * rc_reader__open_mem() - read a capture from memory
 * @buf: the capture; not copied, so it must outlive the reader. NULL only
 *	with @len 0
 * @len: bytes at @buf
 *
 * For tests and fuzzing. As rc_reader__open() otherwise.
 *
 * Return: the reader, to free with rc_reader__free(); NULL with errno set,
 * as rc_reader__open() but for open(2)'s errors and EIO.
 */
struct rc_reader *rc_reader__open_mem(const void *buf, size_t len);

/**
 * rc_reader__meta() - the capture's header
 * @r: the reader
 *
 * Return: the header, its schema and strings, owned by @r; never NULL.
 */
const struct rc_meta *rc_reader__meta(const struct rc_reader *r);

/**
 * rc_reader__next() - the next record, validated against the schema
 * @r: the reader
 * @rec: set to the record, valid until the next rc_reader__next() on @r
 *
 * Records come in file order: by time, but for those the writer counted as
 * late (rc_trailer.late). Each chunk is checked whole before its first
 * record is handed out: every record's size, a type the header describes,
 * a size at least its event's, its cpu below rc_meta.ncpus and its time
 * within the chunk's. Counter and trailer blocks met on the way are kept for
 * rc_reader__stats(), rc_reader__history() and rc_reader__trailer().
 *
 * A damaged block or chunk is passed over (rc_reader__corrupt()): reading
 * goes on at the next good block.
 *
 * Return: 1 with *@rec set; 0 at the end of the file, complete, cut short
 * or damaged (rc_reader__truncated() and rc_reader__corrupt() tell which);
 * -EBADMSG for a file whose blocks are good but do not fit together (a
 * second header, a chunk after the trailer, a trailer whose totals differ
 * from the chunks) or -EIO when reading fails, with the reason in
 * rc_reader__error(), after which every call returns -EBADMSG; or -ENOMEM.
 */
int rc_reader__next(struct rc_reader *r, const struct rc_rec_hdr **rec);

/**
 * rc_reader__on_aux() - have the AUX blocks read handed to a callback
 * @r: the reader
 * @fn: called with each AUX block rc_reader__next() reads, decompressed
 *	and checked, in file order; NULL: AUX blocks are passed over
 * @ctx: @fn's
 */
void rc_reader__on_aux(struct rc_reader *r, rc_aux_fn fn, void *ctx);

/**
 * rc_reader__set_range() - read only the chunks that can hold a time range
 * @r: the reader
 * @since: the earliest time wanted (capture clock); 0: from the start
 * @until: the latest time wanted; UINT64_MAX: to the end
 *
 * Chunks wholly outside the range are skipped without being decompressed.
 * The chunks that overlap it are read whole: records outside the range
 * still come, so filter them too (rc_filter). On a seekable file or in
 * memory, with @since set, the trailer's index finds the first chunk to
 * read, and the blocks before it, counters included, are not read. Call
 * before the first rc_reader__next(); later, nothing is skipped by seeking.
 */
void rc_reader__set_range(struct rc_reader *r, uint64_t since, uint64_t until);

/**
 * rc_reader__span() - the file's record times, from its trailer, without reading the file
 * @r: the reader, before its first rc_reader__next() (or after its trailer)
 * @first: set to the earliest record's time
 * @last: set to the latest record's time
 * @nrec: set to the records in the file
 *
 * Reads the trailer from the end of a seekable file or memory (its END
 * block, lengths and CRC checked), not moving the reader.
 *
 * Return: true when set; false without a trailer to trust (a pipe, a file
 * cut short or being written, a damaged end) or once reading has begun.
 */
bool rc_reader__span(struct rc_reader *r, uint64_t *first, uint64_t *last, uint64_t *nrec);

/**
 * rc_reader__truncated() - whether the file was cut short
 * @r: the reader, after rc_reader__next() returned 0
 *
 * Return: true when the file stops before its end block: every complete
 * chunk before the cut was read.
 */
bool rc_reader__truncated(const struct rc_reader *r);

/**
 * rc_reader__error() - why reading failed, or where the file was damaged
 * @r: the reader
 *
 * Return: the message, without newline, of the failure that stopped the
 * reader, e.g. "corrupt capture at byte N: ..."; else, when it passed over
 * damaged blocks (rc_reader__corrupt()), of the first of them: "corrupt
 * block at byte N: block checksum mismatch; resynced at byte M, K bytes
 * skipped"; else "". Never NULL.
 */
const char *rc_reader__error(const struct rc_reader *r);

/**
 * struct rc_damage - what a reader passed over to get past corrupt blocks
 * @offset: where the first corrupt block starts, in bytes from the start
 * @resync: where reading went on after it: the next good block, or where
 *	the reader stopped when none followed
 * @stretches: damaged stretches of the file, each from a corrupt block to
 *	the next good one
 * @bytes: the bytes of every stretch: passed over
 * @chunks: chunks lost in them
 * @records: records of those chunks
 * @exact: @chunks and @records are counted from the trailer's index, which
 *	lists every chunk: exact. Without the trailer (a pipe before its end, a
 *	file cut short or whose trailer is damaged) they are what the damaged
 *	blocks themselves tell, a lower bound: a chunk whose block header still
 *	says so, and its records when that header is intact
 * @spent: bytes of blocks that did not check, read and CRC'd to find so (a
 *	scan's false candidates among them). Past 64 MiB and 8 for each byte
 *	before, the reader gives up: at most that and one block, linear in
 *	the file's size
 * @gave_up: where the reader gave up resyncing, for too much damage; the
 *	rest of the file is passed over, in the last stretch. 0 when it did not
 */
struct rc_damage {
	uint64_t offset;
	uint64_t resync;
	uint64_t stretches;
	uint64_t bytes;
	uint64_t chunks;
	uint64_t records;
	bool exact;
	uint64_t spent;
	uint64_t gave_up;
};

/**
 * rc_reader__corrupt() - whether damaged parts of the file were passed over
 * @r: the reader
 * @d: filled with what was lost when not NULL (zeroed when nothing was)
 *
 * A block whose magic, length or CRC is wrong, and a chunk whose data does
 * not decompress or whose records do not check, does not end the read: the
 * reader looks for the next good block (ringcap-file(5), DAMAGE) and goes
 * on from there, unless it has spent too much on blocks that do not check
 * (@d->gave_up). A corrupt header block still fails rc_reader__open(); a
 * corrupt trailer is read as none. A damaged read is not complete: say so as
 * for a truncated file, with rc_reader__error().
 *
 * Return: true when any block was passed over as damaged.
 */
bool rc_reader__corrupt(const struct rc_reader *r, struct rc_damage *d);

/**
 * rc_reader__stats() - the most recent counters read so far
 * @r: the reader
 *
 * Return: the last counters block read (cumulative), valid until the next
 * rc_reader__next(); NULL before the first one.
 */
const struct rc_stats *rc_reader__stats(const struct rc_reader *r);

/**
 * rc_reader__end() - where a file ends, as read so far
 * @r: the reader
 *
 * Return: the latest of its start (rc_meta.start_ts), the times of the
 * records rc_reader__next() handed out and the time of its last counters
 * read: once read to its end, the end of the file's span.
 */
uint64_t rc_reader__end(const struct rc_reader *r);

/**
 * rc_reader__base() - the run's counters when the file began (v1.9)
 * @r: the reader
 *
 * Read with the header, from the BASE block that follows it in the second
 * and later files of a rotated run: the same counters as the last block of
 * the file before. A file's own span is its last counters less these.
 *
 * Return: the counters, valid until rc_reader__free(); NULL when the file
 * has none (a run's first file, a file before v1.9, or a damaged block):
 * read them as all zeros.
 */
const struct rc_stats *rc_reader__base(const struct rc_reader *r);

/**
 * struct rc_frame - a frame of a stack, named as the capture names it
 * @addr: the address: the instruction, or a return address
 * @sym: the function, NULL when none is known
 * @dso: the file it is in ("[kernel.kallsyms]", a module's "[name]",
 *	"[vdso]", a path), NULL when not even that is known
 * @off: into @sym; when @sym is NULL, into @dso's file; 0 for an inlined frame
 * @file: the source file of @line (record --srclines, from DWARF), NULL if unknown
 * @line: for the innermost frame at @addr, its source line; for a frame
 *	  that code was inlined into, the line of that call; 0 if unknown
 * @flags: RC_FRAME_F_INLINE: a function inlined into the frame after it
 *	   (same @addr); @sym is its name, NULL if DWARF names none
 */
struct rc_frame {
	uint64_t addr;
	const char *sym;
	const char *dso;
	uint64_t off;
	const char *file;
	uint32_t line;
	uint32_t flags;
};

#define RC_FRAME_F_INLINE 0x1 /* inlined into the frame after it: no call, no frame of its own */

/**
 * struct rc_stack - a call stack of the capture, stored once, named by its id
 * @id: what samples carry (rc_ev_sample.stack_id in events.h), from 1
 * @pid: the process of its user frames; 0 when it has none
 * @nkernel: kernel frames, first in @frames, innermost first
 * @nuser: user frames after them, innermost first; inlined frames
 *	   (RC_FRAME_F_INLINE) are counted, before the frame they are in
 * @flags: RC_STACK_F_KERNEL_CUT, RC_STACK_F_USER_CUT: deeper than what was taken
 * @frames: @nkernel + @nuser of them
 */
struct rc_stack {
	uint32_t id;
	uint32_t pid;
	uint16_t nkernel;
	uint16_t nuser;
	uint32_t flags;
	const struct rc_frame *frames;
};

#define RC_STACK_F_KERNEL_CUT 0x1 /* the kernel stack was deeper than its frames */
#define RC_STACK_F_USER_CUT   0x2 /* the user stack was deeper than its frames */

/**
 * rc_reader__stack() - a stack the capture defined, by its id
 * @r: the reader
 * @id: a sample's stack id
 *
 * Stacks are defined before the records that use them; a reader that
 * skips chunks (rc_reader__set_range()) still reads every definition.
 *
 * Return: the stack, valid until rc_reader__free(); NULL when @id is 0,
 * or was not defined (its definition was in a damaged block).
 */
const struct rc_stack *rc_reader__stack(const struct rc_reader *r, uint32_t id);

/**
 * rc_reader__history() - the totals of every counters block read so far
 * @r: the reader
 * @n: set to their number
 *
 * Return: the totals, in file order, valid until the next rc_reader__next();
 * NULL when *@n is 0.
 */
const struct rc_stats_point *rc_reader__history(const struct rc_reader *r, size_t *n);

/**
 * rc_reader__trailer() - the file's trailer
 * @r: the reader
 *
 * The reader checks the trailer's record and chunk counts against the
 * chunks it read, unless it skipped some (rc_reader__set_range()).
 *
 * Return: the trailer once read (just before the end), else NULL.
 */
const struct rc_trailer *rc_reader__trailer(const struct rc_reader *r);

/**
 * rc_reader__offset() - bytes of the file consumed so far
 * @r: the reader
 *
 * Return: the offset reached, skipped chunks included.
 */
uint64_t rc_reader__offset(const struct rc_reader *r);

/**
 * rc_reader__buffered() - whether records decoded are still to be returned
 * @r: the reader
 *
 * False when the next rc_reader__next() reads the input: a program that
 * shows records as they come (a live pipe) flushes its output then, before
 * the read waits for the next chunk.
 *
 * Return: true while the current chunk has records left.
 */
bool rc_reader__buffered(const struct rc_reader *r);

/**
 * rc_reader__chunks() - chunks read so far
 * @r: the reader
 *
 * Return: the complete chunks decompressed and checked; skipped ones do not
 * count.
 */
uint64_t rc_reader__chunks(const struct rc_reader *r);

/**
 * rc_reader__raw_bytes() - bytes of records read so far, decompressed
 * @r: the reader
 *
 * Return: the size of the records of the chunks rc_reader__chunks() counts.
 */
uint64_t rc_reader__raw_bytes(const struct rc_reader *r);

/**
 * rc_reader__free() - free a reader
 * @r: the reader, or NULL
 *
 * Closes the file rc_reader__open() opened (not standard input). Every
 * pointer @r handed out goes with it, the header and schema included.
 */
void rc_reader__free(struct rc_reader *r);

/* ---- a set of captures, read as one ----------------------------------- */

struct rc_set;

/**
 * rc_set__open() - open capture files to read as one, merged in time
 * @paths: each a file ("-": standard input, alone), a directory (its
 *	capture files, by name: those that start as a capture does; others are
 *	passed over with a note, RC_INFO), or a glob pattern (glob(3)) when no
 *	file has that name
 * @npaths: entries of @paths
 *
 * Every file's header is read (rc_reader__open()); a file named twice is
 * read once. Files of one host (the same host name) share the capture
 * clock and merge by it; files of several hosts merge by wall-clock time,
 * each file's time plus its own wall_offset_ns (rc_set__by_wall()). One
 * host is one boot: the same boot id in both files' RUN sections (v1.9),
 * else the same host name. The files are sorted by their start in that
 * time, then by their seq in their run, then by name.
 *
 * Return: the set, to free with rc_set__free(); NULL with errno set, the
 * failure logged (RC_WARN) naming the file or pattern: ENOENT for a
 * pattern that matches nothing, a directory with no capture file or no
 * path at all; E2BIG past 65536 files; rc_reader__open()'s errors.
 */
struct rc_set *rc_set__open(const char *const *paths, size_t npaths);

/**
 * rc_set__nfiles() - the files of a set
 * @s: the set
 *
 * Return: their number, at least 1; files are numbered from 0 in the
 * set's order (by start).
 */
size_t rc_set__nfiles(const struct rc_set *s);

/**
 * rc_set__reader() - the reader of a file of the set
 * @s: the set
 * @i: the file
 *
 * For the file's header (rc_reader__meta()), stacks (rc_reader__stack()),
 * counters, trailer and state once read. When reading through
 * rc_set__next(), do not call rc_reader__next() or rc_reader__set_range()
 * on it: the set does. A caller that wants each file whole (ringcap stat)
 * may read the readers one by one instead, and not call rc_set__next().
 * Each file's reader holds its descriptor from rc_set__open() on.
 *
 * Return: the reader, owned by @s; NULL when @i is past the last file.
 */
struct rc_reader *rc_set__reader(const struct rc_set *s, size_t i);

/**
 * rc_set__meta() - rc_reader__meta() of a file of the set
 * @s: the set
 * @i: the file
 *
 * Return: the header; NULL when @i is past the last file.
 */
const struct rc_meta *rc_set__meta(const struct rc_set *s, size_t i);

/**
 * rc_set__path() - the path of a file of the set, as found
 * @s: the set
 * @i: the file
 *
 * Return: the path; NULL when @i is past the last file.
 */
const char *rc_set__path(const struct rc_set *s, size_t i);

/**
 * rc_set__by_wall() - whether the set merges by wall-clock time
 * @s: the set
 *
 * Return: true when its files come from several hosts (or boots): the
 * set's time is then the wall clock, in ns since the epoch; else it is the
 * capture clock the files share.
 */
bool rc_set__by_wall(const struct rc_set *s);

/**
 * rc_set__time() - a time of a file, in the set's time
 * @s: the set
 * @i: the file
 * @ts: a time of the file's capture clock
 *
 * Return: @ts, plus the file's wall-clock offset when the set merges by
 * wall-clock time.
 */
uint64_t rc_set__time(const struct rc_set *s, size_t i, uint64_t ts);

/**
 * rc_set__start() - where the set's times count from, in the set's time
 * @s: the set
 *
 * Return: the earliest start of its files (rc_meta.start_ts): a rotated
 * run whose first files are gone counts from the first file left, not from
 * the run's start.
 */
uint64_t rc_set__start(const struct rc_set *s);

/**
 * rc_set__span() - the span of the files read, in ns
 * @s: the set, its files read (through rc_set__next() or their readers)
 *
 * From the set's start (rc_set__start()) to the latest end of its files
 * (rc_reader__end()), both within the range of rc_set__set_range() when
 * one was set; a file that range passed over whole (rc_set__skipped()) is
 * not counted. What ringcap stat and report --summary show as the
 * capture's duration.
 *
 * Return: the span; 0 when it ends before it starts.
 */
uint64_t rc_set__span(const struct rc_set *s);

/**
 * rc_set__set_range() - read only the files and chunks that can hold a time range
 * @s: the set, before its first rc_set__next()
 * @since: the earliest time wanted, in the set's time; 0: from the start
 * @until: the latest; UINT64_MAX: to the end
 *
 * A file whose trailer places all its records outside the range (or that
 * has none) is not read past its header and trailer (rc_set__skipped());
 * within the others, rc_reader__set_range() skips chunks. Records outside
 * the range still come from the chunks read: filter them too.
 */
void rc_set__set_range(struct rc_set *s, uint64_t since, uint64_t until);

/**
 * rc_set__skipped() - whether a file was left unread, outside the range
 * @s: the set
 * @i: the file
 *
 * Return: true when rc_set__set_range() passed file @i over whole.
 */
bool rc_set__skipped(const struct rc_set *s, size_t i);

/**
 * rc_set__next() - the next record of the set, in time order across its files
 * @s: the set
 * @rec: set to the record, valid until the next rc_set__next()
 * @file: set to the file it is from: decode it with that file's header and
 *	stacks; on an error, the file that failed
 *
 * Records of one time keep file order. Within a file, records come as
 * rc_reader__next() gives them (late ones, rc_trailer.late, out of order).
 * A file cut short or damaged ends where its reader stops: check each
 * reader's rc_reader__truncated() and rc_reader__corrupt() at the end.
 *
 * Return: 1 with *@rec and *@file set; 0 when every file has ended; or
 * rc_reader__next()'s error, its reason in rc_reader__error() of the
 * reader of *@file.
 */
int rc_set__next(struct rc_set *s, const struct rc_rec_hdr **rec, size_t *file);

/**
 * rc_set__free() - free a set, its readers and what they handed out
 * @s: the set, or NULL
 */
void rc_set__free(struct rc_set *s);

/* ---- decoding --------------------------------------------------------- */

/**
 * struct rc_strbuf - a growing buffer, for text and bytes
 * @buf: the data, NUL-terminated once anything was added; NULL before
 * @len: bytes of data, the NUL not counted
 * @cap: bytes allocated
 *
 * Starts zeroed; set @len to 0 to reuse the allocation.
 */
struct rc_strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

/**
 * rc_strbuf__printf() - append formatted text
 * @sb: the buffer
 * @fmt: printf(3)'s format
 * @...: its arguments
 *
 * Return: 0; -ENOMEM; or -EINVAL when vsnprintf(3) fails (@sb is then as
 * it was).
 */
int rc_strbuf__printf(struct rc_strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/**
 * rc_strbuf__append() - append bytes
 * @sb: the buffer
 * @data: the bytes; may be NULL when @len is 0
 * @len: how many
 *
 * Return: 0, or -ENOMEM (@sb is then as it was).
 */
int rc_strbuf__append(struct rc_strbuf *sb, const void *data, size_t len);

/**
 * rc_strbuf__free() - free a buffer's data
 * @sb: the buffer, left zeroed and fit to use again
 */
void rc_strbuf__free(struct rc_strbuf *sb);

#define RC_FMT_WALL 0x1 /* wall-clock time instead of seconds from start */

/**
 * rc_meta__wall_ns() - a capture time on the wall clock
 * @m: the capture's meta (its wall_offset_ns is the file's, any value)
 * @ts: a time of the capture's clock
 * @wall: set: ns since the epoch
 *
 * Return: false when @ts and the offset give no time from the epoch on
 * (negative, or past INT64_MAX ns), with no overflow computing it.
 */
bool rc_meta__wall_ns(const struct rc_meta *m, uint64_t ts, int64_t *wall);

/**
 * rc_meta__from_wall_ns() - a wall-clock time as a time of the capture's clock
 * @m: the capture's meta
 * @wall: ns since the epoch
 * @ts: set: the capture's time (0 for a time before its clock's start)
 *
 * Return: false when the file's offset puts it out of range.
 */
bool rc_meta__from_wall_ns(const struct rc_meta *m, int64_t wall, uint64_t *ts);

/**
 * rc_decode__text() - a record as one perf-script-like line
 * @sb: the line is appended here, without newline
 * @m: the capture's header: its schema and start time
 * @rec: the record, as rc_reader__next() handed it out (checked)
 * @flags: RC_FMT_WALL: the local wall-clock time, not seconds from
 *	@m->start_ts
 *
 * "COMM PID/TID [CPU] TIME: EVENT: FIELD=VALUE ...", each field as
 * rc_decode__field() puts it; unprintable bytes of the comm show as '?',
 * and a pid, tid or CPU the event's records do not know (RC_EVENT_NO_*)
 * as "-". An event the schema lacks is named "unknown", without fields.
 *
 * Return: 0, or -ENOMEM (part of the line may be in @sb).
 */
int rc_decode__text(struct rc_strbuf *sb, const struct rc_meta *m, const struct rc_rec_hdr *rec,
		    unsigned int flags);

/**
 * rc_decode__field() - a field of a record, as text
 * @sb: the text is appended here
 * @s: the schema, for the names of enum values
 * @f: a field of @rec's event
 * @rec: the record (a struct rc_rec_hdr), checked as for rc_field__u64()
 *
 * A value named by its enum (RC_HINT_ENUM, or -ENAME for RC_HINT_ERRNO)
 * prints as its name; hex, durations with their unit, strings with
 * unprintable bytes as \xNN, arrays as [a,b]. A DATA_LOC or REL_LOC field
 * whose location is outside the record prints as "<bad location>".
 *
 * Return: 0, or -ENOMEM.
 */
int rc_decode__field(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *f,
		     const void *rec);

/* ---- summary ---------------------------------------------------------- */

/* rc_sum_count.key of the processes' row of records whose pid is unknown (RC_EVENT_NO_PID) */
#define RC_SUM_UNKNOWN UINT64_MAX

/**
 * struct rc_sum_count - one row of a summary table
 * @key: the event id, the pid (RC_SUM_UNKNOWN: unknown), or the syscall
 *	number
 * @comm: the process's name, from its latest record (procs only)
 * @count: records
 * @errors: syscalls that returned -1 to -4095 (syscalls only)
 * @total_ns: time in the syscall, summed (syscalls only)
 * @max_ns: the longest (syscalls only)
 */
struct rc_sum_count {
	uint64_t key;
	char comm[16];
	uint64_t count;
	uint64_t errors;
	uint64_t total_ns;
	uint64_t max_ns;
};

/**
 * struct rc_summary - counts of records by event, by process and by syscall
 * @nrec: records added
 * @first_ts: the earliest record's time
 * @last_ts: the latest record's time
 * @nevents: rows of @events
 * @nprocs: rows of @procs
 * @nsyscalls: rows of @syscalls
 * @events: by event id, in the order first met until rc_summary__sort()
 * @procs: by pid
 * @syscalls: by syscall number, from the "syscall" event
 * @cap_events: rows allocated in @events
 * @cap_procs: rows allocated in @procs
 * @cap_syscalls: rows allocated in @syscalls
 *
 * Starts zeroed; rc_summary__add() fills it.
 */
struct rc_summary {
	uint64_t nrec;
	uint64_t first_ts;
	uint64_t last_ts;
	size_t nevents, nprocs, nsyscalls;
	struct rc_sum_count *events, *procs, *syscalls;
	size_t cap_events, cap_procs, cap_syscalls;
};

/**
 * rc_summary__add() - count a record
 * @s: the summary
 * @m: the capture's header, for its schema
 * @rec: the record (checked, as rc_reader__next() hands them out)
 *
 * Return: 0, or -ENOMEM (the record may be counted in some tables only).
 */
int rc_summary__add(struct rc_summary *s, const struct rc_meta *m, const struct rc_rec_hdr *rec);

/**
 * rc_summary__sort() - sort each table by count, largest first
 * @s: the summary; ties are in key order
 */
void rc_summary__sort(struct rc_summary *s);

/**
 * rc_summary__free() - free a summary's tables
 * @s: the summary, left zeroed and fit to use again
 */
void rc_summary__free(struct rc_summary *s);

/* ---- profiles --------------------------------------------------------- */

enum rc_profile_kind {
	RC_PROFILE_CPU,	   /* samples ("sample" records): weighed in samples */
	RC_PROFILE_OFFCPU, /* time blocked ("offcpu" records): weighed in ns */
	RC_PROFILE_EVENTS, /* events' stacks (record -e ... -g, "stack" records): in events */
};

/**
 * struct rc_profile_row - the records of one kind, task name and stack
 * @comm: the task's name, NUL-padded
 * @kind: samples, or time blocked
 * @stack_id: the stack (rc_reader__stack()); 0: the record had none
 * @samples: records
 * @weight: samples (CPU), or ns blocked (off-CPU)
 */
struct rc_profile_row {
	char comm[16];
	enum rc_profile_kind kind;
	uint32_t stack_id;
	uint64_t samples;
	uint64_t weight;
};

/**
 * struct rc_profile - samples counted by task name and stack, as folded stacks are
 * @rows: in the order first met
 * @nrows: rows used
 * @cap: rows allocated
 * @samples: every sample added
 * @no_stack: of them, those without a stack
 * @offcpu: off-CPU records added
 * @offcpu_ns: the time they were blocked
 * @events: events' stack records added
 * @index: the rows by kind, name and stack (internal)
 *
 * Starts zeroed; rc_profile__add() fills it.
 */
struct rc_profile {
	struct rc_profile_row *rows;
	size_t nrows, cap;
	uint64_t samples, no_stack;
	uint64_t offcpu, offcpu_ns;
	uint64_t events;
	void *index;
};

/**
 * rc_profile__add() - count a record, when it is a sample or an off-CPU record
 * @p: the profile
 * @m: the capture's header, for its schema
 * @rec: the record, checked as rc_reader__next() hands them out
 *
 * Records of other events are passed over.
 *
 * Return: 0, or -ENOMEM.
 */
int rc_profile__add(struct rc_profile *p, const struct rc_meta *m, const struct rc_rec_hdr *rec);

/**
 * rc_profile__free() - free a profile's rows
 * @p: left zeroed
 */
void rc_profile__free(struct rc_profile *p);

/**
 * struct rc_func_count - a function's samples, as perf report --stdio counts them
 * @name: the function (rc_frame__name())
 * @self: samples whose innermost frame is in it
 * @total: samples with it anywhere on their stack, once each ("children")
 */
struct rc_func_count {
	char *name;
	uint64_t self, total;
};

struct rc_reader;

/**
 * rc_profile__functions() - the functions of a profile's samples
 * @p: the profile
 * @kind: which records: samples, or time blocked (@self and @total in ns)
 * @r: the reader its stacks are in (rc_reader__stack())
 * @out: set to the functions, by @total, then @self, then name, highest first
 * @n: set to their number
 *
 * A sample without a stack counts for "[unknown]".
 *
 * Return: 0, or -ENOMEM. Free @out with rc_func_counts__free().
 */
int rc_profile__functions(const struct rc_profile *p, enum rc_profile_kind kind,
			  const struct rc_reader *r, struct rc_func_count **out, size_t *n);

/**
 * rc_func_counts__free() - free what rc_profile__functions() gave
 * @f: the functions
 * @n: their number
 */
void rc_func_counts__free(struct rc_func_count *f, size_t n);

/**
 * rc_frame__name() - a frame's name, as folded stacks and flame graphs show it
 * @f: the frame
 * @buf: where to
 * @len: its size
 *
 * The function's name; without one, the file and the offset into it
 * ("[libc.so.6+0x27a1b]"), or "[unknown]".
 *
 * Return: @buf.
 */
const char *rc_frame__name(const struct rc_frame *f, char *buf, size_t len);

/* ---- filters ---------------------------------------------------------- */

#define RC_MAX_EVENT_ID_API 4095 /* event ids are 1 to this (ringcap-file(5)) */
#define RC_FIRST_DYN_ID	    256	 /* ids from here: events described at record time */

/**
 * struct rc_filter - which records to keep
 * @pids: only records of these processes; @npids 0: any
 * @tids: only of these threads; @ntids 0: any
 * @cpus: only of these CPUs; @ncpus 0: any
 * @npids: entries of @pids
 * @ntids: entries of @tids
 * @ncpus: entries of @cpus
 * @comm: only of threads of this name (as the kernel cuts it, 15
 *	characters); NULL: any
 * @events: NULL: any event; else indexed by event id, non-zero to keep
 *	(rc_filter__add_event() allocates it)
 * @since: the earliest time kept (capture clock); 0: from the start
 * @until: the latest time kept; UINT64_MAX: to the end. Not 0 for "any": a
 *	zeroed filter keeps only records of time 0
 *
 * The lists and @comm are the caller's; @events is freed by
 * rc_filter__free().
 */
struct rc_filter {
	const uint32_t *pids, *tids, *cpus;
	size_t npids, ntids, ncpus;
	const char *comm;
	uint8_t *events;
	uint64_t since, until;
};

/**
 * rc_filter__match() - whether a record passes a filter
 * @f: the filter
 * @m: the capture's header, for its schema
 * @rec: the record
 *
 * A pid, tid, cpu or comm the record's event does not know (RC_EVENT_NO_*)
 * passes no list of them and no @f->comm: it is not 0.
 *
 * Return: true when @rec passes every test of @f (all of them together).
 */
bool rc_filter__match(const struct rc_filter *f, const struct rc_meta *m,
		      const struct rc_rec_hdr *rec);

/**
 * rc_filter__add_event() - keep the records of an event or a group of them
 * @f: the filter
 * @s: the capture's schema
 * @name: an event's full name ("sched:sched_switch"), a group (every event
 *	named "GROUP:...", e.g. "sched"), or "syscalls" for the "syscall" event
 *
 * The first call allocates @f->events, failing or not: a filter that had
 * no event list keeps none then until an event is added.
 *
 * Return: 0; -ENOENT when no event of @s matches @name; or -ENOMEM.
 */
int rc_filter__add_event(struct rc_filter *f, const struct rc_schema *s, const char *name);

/**
 * rc_filter__free() - free what rc_filter__add_event() allocated
 * @f: the filter; @f->events is left NULL (any event)
 */
void rc_filter__free(struct rc_filter *f);

/* ---- histograms ------------------------------------------------------- */

/* slots[i] counts values in [2^i, 2^(i+1)), slot 0 also 0 */
struct rc_hist {
	uint64_t slots[64];
	uint64_t count, total, min, max;
};

/**
 * rc_hist__add() - count a value in a log2 histogram
 * @h: the histogram, zeroed to start
 * @v: the value
 */
void rc_hist__add(struct rc_hist *h, uint64_t v);

/**
 * struct rc_runq - run-queue latency: from a task's sched_wakeup to the sched_switch that runs it
 * @hist: the latencies, in units of @div ns
 * @div: 1000: microseconds; 0 or 1: nanoseconds
 * @keys: a hash table of tids woken and not yet run (internal)
 * @vals: their wake-up times (internal)
 * @cap: slots of the table (internal)
 * @used: slots in use (internal)
 *
 * Starts zeroed but for @div.
 */
struct rc_runq {
	struct rc_hist hist;
	unsigned int div;
	uint64_t *keys, *vals;
	size_t cap, used;
};

/**
 * rc_runq__add() - take a record into the run-queue latencies
 * @q: the latencies
 * @m: the capture's header, for its schema
 * @rec: the record (checked, as rc_reader__next() hands them out)
 *
 * A sched:sched_wakeup records when its wakee_tid was woken; the next
 * sched:sched_switch to it as next_tid adds the wait to @q->hist, once (not
 * a switch timed before the wake-up). Other records are passed over.
 *
 * Return: 0, or -ENOMEM.
 */
int rc_runq__add(struct rc_runq *q, const struct rc_meta *m, const struct rc_rec_hdr *rec);

/**
 * rc_runq__free() - free the latencies' table
 * @q: left zeroed, its hist and div included
 */
void rc_runq__free(struct rc_runq *q);

/* ---- recording -------------------------------------------------------- */

enum rc_drain_mode {
	RC_DRAIN_POLL,
	RC_DRAIN_BUSY,
};

#define RC_EVENT_BIT(type) (1u << (type))
#define RC_SAMPLE_ID	   7 /* the built-in "sample" event's id (events.h RC_EV_SAMPLE) */
#define RC_OFFCPU_ID	   8 /* the built-in "offcpu" event's id (RC_EV_OFFCPU) */
#define RC_STACK_ID	   9 /* the built-in "stack" event's id (RC_EV_STACK) */

/**
 * rc_parse_events() - the built-in events a list names
 * @spec: comma-separated: "syscalls", "sched" (every sched event), or the
 *	name of an event of those sources ("syscall", "sched:sched_switch")
 * @mask: set to the RC_EVENT_BIT()s of the events named
 * @bad: on -EINVAL, the name not understood (all of @spec when it names
 *	none); NUL-terminated, cut to @badlen
 * @badlen: bytes at @bad
 *
 * Return: 0; -EINVAL for an unknown name or a list of none; or -ENOMEM.
 */
int rc_parse_events(const char *spec, uint32_t *mask, char *bad, size_t badlen);

/**
 * rc_is_pmu_event() - whether an -e entry names a PMU's event, in perf's syntax
 * @spec: the entry, like intel_pt//u or intel_pt/cyc,noretcomp/
 *
 * Return: true for NAME/TERMS/MODS (its AUX stream is recorded).
 */
bool rc_is_pmu_event(const char *spec);

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
	bool bpf_denied;	 /* BPF refused for want of privileges: its probes unknown */
	bool tracefs_denied;	 /* tracefs there, not readable by this user */
	bool btf;		 /* /sys/kernel/btf/vmlinux */
	bool tp_btf;		 /* every BTF tracepoint the built-in sources use */
	char tp_btf_missing[32]; /* the first one missing, when !tp_btf */
	bool exit_group_dead;	 /* sched_process_exit passes group_dead (6.16) */
	bool switch_prev_state;	 /* sched_switch passes prev_state (5.18) */
	bool ringbuf;		 /* BPF_MAP_TYPE_RINGBUF (5.8) */
	bool perf_event_array;
	bool task_storage;     /* BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	bool current_task_btf; /* bpf_get_current_task_btf (5.11) */
	bool ktime_boot;       /* bpf_ktime_get_boot_ns (5.8) */
	bool attach_cookie;    /* bpf_get_attach_cookie in tracepoints (5.15) */
	bool atomics;	       /* BPF atomic and/or (5.12) */
	bool task_pt_regs;     /* bpf_task_pt_regs in perf_event programs (5.15): dwarf stacks */
	bool uprobes;	       /* the uprobe perf PMU */
	bool tracefs;
	bool ftrace_mmap; /* tracefs ring-buffer mapping (6.10) */
	char masked[160]; /* the features RINGCAP_FEATURES_OFF masked, comma-separated */
};

/* What record is about to use, for rc_features__missing(). */
enum rc_feature_need {
	RC_NEED_SYSCALLS,    /* the built-in syscalls source */
	RC_NEED_SCHED,	     /* the built-in sched source */
	RC_NEED_FOLLOW,	     /* following a command's children */
	RC_NEED_TRACEPOINTS, /* -e SYSTEM:NAME */
	RC_NEED_UPROBES,     /* -e uprobe:... */
	RC_NEED_PROFILE,     /* record -F / -c */
	RC_NEED_OFFCPU,	     /* record --off-cpu */
};

/**
 * rc_features__probe() - probe this kernel
 * @f: filled in
 *
 * Needs the privileges record needs for the BPF answers; without them
 * every BPF feature reads as missing. libbpf's print callback is silenced
 * while it runs: not to be called while another thread uses libbpf.
 *
 * The environment variable RINGCAP_FEATURES_OFF, a comma-separated list of
 * feature names, makes those read as missing (listed in @f->masked), so
 * that the programs for older kernels can be tested on a new one.
 *
 * Return: 0.
 */
int rc_features__probe(struct rc_features *f);

/**
 * rc_features__compat() - does @need run its compat programs on this kernel?
 * @f: from rc_features__probe()
 * @need: the source
 * @why: filled with what the compat programs make up for, "; " between
 *	 reasons, or "" when the default programs load
 * @len: @why's size
 *
 * The compat programs (bpf/common.bpf.h, RC_COMPAT) are for kernels
 * without bpf_get_current_task_btf, task-local storage, BPF atomic and/or,
 * or sched_switch's prev_state argument; the default ones, where the
 * kernel has all those a source uses, are faster.
 *
 * Return: true for the compat programs.
 */
bool rc_features__compat(const struct rc_features *f, enum rc_feature_need need, char *why,
			 size_t len);

/**
 * rc_features__missing() - the first feature @need lacks on this kernel
 * @f: from rc_features__probe()
 * @need: what is about to be loaded
 *
 * Return: NULL when nothing is missing, else the feature's name with the
 * kernel version that added it, for a one-line refusal.
 */
const char *rc_features__missing(const struct rc_features *f, enum rc_feature_need need);

/**
 * rc_features__variant() - how record does without what @need lacks here
 * @f: from rc_features__probe()
 * @need: what is about to be loaded
 *
 * Return: NULL where record uses its first choice, else a phrase naming
 * what is missing and the program variant used instead, for --check.
 */
const char *rc_features__variant(const struct rc_features *f, enum rc_feature_need need);

/* --call-graph=dwarf,SIZE: the bytes of user stack a sample copies, by default and at most */
#define RC_DWARF_STACK_DEFAULT 8192
#define RC_DWARF_STACK_MAX     64000

/* The stacks a sample takes (record -g, --call-graph). */
enum rc_call_graph {
	RC_CALL_GRAPH_NONE = 0,
	RC_CALL_GRAPH_FP, /* kernel and user stacks, walked by frame pointers in the kernel */
	/* samples: the kernel's stack, and user stacks unwound from a copy by their CFI */
	RC_CALL_GRAPH_DWARF,
};

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
	bool time_order_only; /* perfbuf: hold back the newest 1 ms even under pressure (for measuring) */
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
	/*
	 * CPU sampling (events RC_EVENT_BIT(RC_EV_SAMPLE)): samples a second
	 * on each CPU, or when 0 one every sample_period events (cycles, or
	 * ns of cpu-clock); and the stacks each sample takes.
	 */
	uint64_t sample_freq;
	uint64_t sample_period;
	enum rc_call_graph call_graph;
	/*
	 * User frames get their source file and line and the functions
	 * inlined at them, from DWARF in their files or debug files (LINES
	 * blocks, ringcap-file(5)).
	 */
	bool srclines;
	/* RC_CALL_GRAPH_DWARF: bytes of user stack a sample copies (0: RC_DWARF_STACK_DEFAULT) */
	uint32_t ustack_size;
	/*
	 * The files (ringcap-record(1), ROTATION). @output: -o, the capture's
	 * path (NULL: not a file of a path, e.g. stdout): a switch
	 * (rc_session__switch()) ends the file and starts it again there,
	 * and when rotating it is the prefix of the run's files' names.
	 * Rotating when @switch_size, @switch_ns or @switch_signal is set.
	 */
	const char *output;
	uint64_t switch_size;	   /* switch once a file holds this many bytes; 0: never */
	uint64_t switch_ns;	   /* switch every this long; 0: never */
	bool switch_signal;	   /* rotating, switched only by rc_session__switch() */
	uint32_t switch_max_files; /* keep the newest this many of the run's files; 0: all */
	uint64_t max_size; /* the file's cap: stop there; rotating, the run's files' together */
	uint64_t min_free; /* stop (rotating: first delete the oldest) below this free space */
	/* perf AUX events (-e intel_pt//u): PMU specs, each CPU's AUX area */
	const char *const *pmu_events;
	size_t npmu_events;
	uint64_t aux_size; /* 0: 4 MiB */
	enum rc_ftrace_read ftrace_read; /* --transport ftrace: how its rings are read */
};

/**
 * rc_bpf_object__check_sets() - whether a BPF object takes the --set assignments
 * @path: the object file
 * @sets: NAME=VALUE assignments of its const volatile globals
 * @n: how many
 *
 * Opens the object (without loading it), makes each assignment as a
 * capture would, and closes it: a bad one is found before anything
 * starts. An object that does not open is left for the capture to say.
 *
 * Return: 0; -EINVAL for an assignment refused (logged, with the reason);
 * -ENOMEM.
 */
int rc_bpf_object__check_sets(const char *path, const char *const *sets, size_t n);

/**
 * rc_list_tracepoints() - the tracepoints of this kernel that a pattern matches
 * @pattern: "SYSTEM:NAME" with globs (fnmatch(3)) on either side; a word
 *	without colon: a system of that name (or glob), else an event of that
 *	name in any system; NULL: every tracepoint
 * @fn: called with each match, system by system and name by name in
 *	alphabetical order; a negative return stops the walk and is returned
 * @ctx: passed to @fn
 *
 * Lists tracefs where it is mounted; reading it usually needs root.
 *
 * Return: the number of matches (0 when none); -EINVAL for a malformed
 * @pattern; -ENODEV without tracefs; @fn's error; or another -errno of
 * reading tracefs.
 */
int rc_list_tracepoints(const char *pattern,
			int (*fn)(const char *system, const char *name, void *ctx), void *ctx);

struct rc_session;

/**
 * rc_session__open() - prepare a recording
 * @opts: what to record; copied up to @opts->sz, but the strings and arrays
 *	it points to must live until rc_session__free()
 *
 * Checks privileges, picks the transport (RC_TRANSPORT_AUTO: the perf
 * buffer for a flight recorder, else the ring buffer where the kernel has
 * it), loads the BPF programs or prepares the tracefs instance, and adds
 * @opts->pids as targets. Nothing is traced yet. Most failures are logged
 * (RC_WARN) with their reason.
 *
 * Return: the session, to free with rc_session__free(); NULL with errno
 * set: EPERM without root or CAP_BPF and CAP_PERFMON (BPF transports),
 * EINVAL for options that do not go together (a flight recorder without
 * the perf buffer), ENOMEM, or the error of loading the programs or
 * preparing the instance.
 */
struct rc_session *rc_session__open(const struct rc_record_opts *opts);

/**
 * rc_session__add_target() - trace a process too
 * @s: the session, started or not
 * @pid: the process (its tgid)
 *
 * BPF: @pid joins the targets map, which limits what is recorded only in a
 * session opened with rc_record_opts.pids or .follow_forks (with
 * follow_forks, its children join as they are made); a session recording
 * a user's BPF object ignores targets. ftrace: @pid and the threads it has
 * now are added to the instance's set_event_pid, which limits the instance
 * to them.
 *
 * Return: 0, -EINVAL for a pid no kernel gives (BPF), or -errno of the
 * tracefs write.
 */
int rc_session__add_target(struct rc_session *s, pid_t pid);

/**
 * rc_session__start() - turn tracing on and start the capture file
 * @s: an opened session, not started
 * @fd: the capture file, not closed by the session; < 0: nothing is
 *	written, records are read, counted and discarded (live counters).
 *	Rotating (rc_record_opts.switch_*), pass -1: the session makes the
 *	run's files from rc_record_opts.output itself
 *
 * Attaches the programs (or turns the instance on), then writes the
 * capture header to @fd and starts the writer: once the file is not
 * empty, tracing is on. rc_session__meta() is filled from here.
 *
 * Return: 0, or -errno of attaching, of writing the header, or of starting
 * the writer thread.
 */
int rc_session__start(struct rc_session *s, int fd);

/**
 * rc_session__drain() - read the rings for a while
 * @s: a started session, not stopped
 * @ms: for how long, in milliseconds
 *
 * Reads what the rings hold, hands it to the file every flush_ms (or
 * wakeup_ms, or 1 s), and takes the counters once a second, into the file
 * when there is one. Between reads it sleeps on the rings (RC_DRAIN_POLL,
 * and always for a flight recorder) or reads again at once
 * (RC_DRAIN_BUSY). A signal does not end it early by itself (the wait it
 * interrupts counts as a wake-up); rc_session__interrupt() does. Rotating,
 * it switches files when the current one reaches rc_record_opts.switch_size
 * or switch_ns has passed; it returns early when a cap is reached
 * (rc_session__limit()).
 *
 * Return: records read (at most INT32_MAX), or -errno of reading or
 * writing.
 */
int rc_session__drain(struct rc_session *s, int ms);

/**
 * rc_session__interrupt() - have a drain under way return soon
 * @s: the session
 *
 * Async-signal-safe: for a signal handler, so that what the signal asks
 * (a switch, a snapshot, a stop) is done within a read of the rings, not
 * at the end of the drain's time, and two signals far apart are not taken
 * as one. The drain returns after the read it is in (between two batches
 * of a long one); the next drain runs as usual.
 */
void rc_session__interrupt(struct rc_session *s);

/**
 * rc_session__stop() - turn tracing off and end the capture file
 * @s: a started session
 *
 * Turns tracing off and reads what is left (BPF: until the counters agree
 * with the records read; a flight recorder takes its last snapshot,
 * RC_SNAPSHOT_EXIT, instead), then takes the last counters and, with a
 * file, writes them, the trailer and the end block. The fd stays open.
 *
 * Return: 0; -EINVAL when @s was not started or is stopped already; or the
 * first error of reading or writing.
 */
int rc_session__stop(struct rc_session *s);
/**
 * rc_session__switch() - end the capture file and go on in the next
 * @s: a started session writing to a file of a path (rc_record_opts.output)
 *
 * The counters go to the file, then, on the thread that writes, every
 * record they count, the trailer; the next file follows: rotating, under
 * its rotation name; else at the same path, the file just ended renamed to
 * its rotation name first if the path still names it. The rings are read
 * all along. Without a path (stdout), nothing is done.
 *
 * Return: 0; -EINVAL without a file of a path; or -errno.
 */
int rc_session__switch(struct rc_session *s);

/**
 * rc_session__limit() - whether a cap stopped the capture
 * @s: the session
 *
 * rc_session__drain() returns early once --max-size (without rotation) or
 * --min-free is reached, or the next file could not be made: stop the
 * session then (rc_session__stop()); the file is complete.
 *
 * Return: the message saying which cap, and what of, without newline;
 * NULL while none is reached.
 */
const char *rc_session__limit(const struct rc_session *s);

/**
 * rc_session__files() - the files of the run so far
 * @s: the session, stopped: the names are the writing thread's until then
 * @first: set to the oldest file of the run still on disk (NULL: none)
 * @last: set to the current (or last) file (NULL: none)
 *
 * Return: how many files the run made (1 unless it switched).
 */
uint32_t rc_session__files(const struct rc_session *s, const char **first, const char **last);

/**
 * rc_session__files_deleted() - the run's files deleted by its caps
 * @s: the session
 *
 * Return: files of the run deleted so far by --switch-max-files,
 * --max-size or --min-free; 0 without rotation.
 */
uint64_t rc_session__files_deleted(const struct rc_session *s);

/* Why a snapshot was taken (the ringcap:snapshot record's reason). */
enum rc_snapshot_why {
	RC_SNAPSHOT_SIGNAL = 1, /* SIGUSR2 */
	RC_SNAPSHOT_EXIT = 2,	/* the end of the capture */
	RC_SNAPSHOT_EVENT = 3,	/* --snapshot-on */
};

/**
 * rc_session__snapshot() - flight recorder: write what the rings hold now
 * @s: a started session with overwrite set
 * @why: the reason the ringcap:snapshot record gives
 *
 * Writes a ringcap:snapshot record and the records the CPUs' rings hold
 * now.
 *
 * Return: records written; -EINVAL when @s is not started, not a flight
 * recorder or on the ftrace transport; or -errno.
 */
long rc_session__snapshot(struct rc_session *s, enum rc_snapshot_why why);

/**
 * rc_session__transport() - the transport chosen at open
 * @s: the session
 *
 * Return: RC_TRANSPORT_RINGBUF, _PERFBUF or _FTRACE; never _AUTO.
 */
enum rc_transport rc_session__transport(const struct rc_session *s);

/**
 * rc_session__sample() - take the counters now
 * @s: the session
 *
 * Reads the BPF counter maps (or the ftrace rings' counters) without
 * writing them to the file.
 *
 * Return: the counters, the same rc_session__stats() returns, updated in
 * place by the next call that takes them (this one, rc_session__drain(),
 * rc_session__stop()); NULL with errno set on failure.
 */
const struct rc_stats *rc_session__sample(struct rc_session *s);

/**
 * rc_session__stats() - the counters last taken
 * @s: the session
 *
 * Taken each second while draining, by rc_session__sample(), and final
 * after rc_session__stop().
 *
 * Return: the counters, never NULL (zero before any was taken), updated in
 * place by the calls that take them.
 */
const struct rc_stats *rc_session__stats(const struct rc_session *s);

/**
 * rc_session__meta() - what the capture header says
 * @s: the session
 *
 * Return: the header (host, CPUs, schema with the tracepoints and probes
 * described at open), filled by rc_session__start(); zeroed before. Never
 * NULL.
 */
const struct rc_meta *rc_session__meta(const struct rc_session *s);

/**
 * rc_session__cut() - whether a full disk or the file size limit cut the file
 * @s: the session, stopped
 *
 * The file then ends at its last complete chunk, with the counters of the
 * whole recording: what was read after the cut is counted, not written
 * (ringcap stat shows it missing).
 *
 * Return: the error that cut it (-ENOSPC, -EDQUOT, -EFBIG), or 0.
 */
int rc_session__cut(const struct rc_session *s);

/**
 * rc_session__records_written() - records written to the file so far
 * @s: the session
 *
 * Counts the records of complete chunks. Safe while the session's writer
 * thread runs.
 *
 * Return: the count.
 */
uint64_t rc_session__records_written(const struct rc_session *s);

/**
 * rc_session__bytes() - bytes written to the file so far
 * @s: the session
 * @raw: NULL, or set to the bytes of those records before compression
 *
 * Safe while the session's writer thread runs.
 *
 * Return: the bytes written, as the writer last published them.
 */
uint64_t rc_session__bytes(const struct rc_session *s, uint64_t *raw);

/**
 * rc_session__free() - end a session and free it
 * @s: the session, or NULL
 *
 * Detaches what is still attached and frees everything, the schema and
 * header included. A session not stopped leaves its file without trailer:
 * it reads as truncated. The fd is not closed.
 */
void rc_session__free(struct rc_session *s);

#endif /* RINGCAP_H */
