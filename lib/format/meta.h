/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A capture's header and counters as a reader or writer holds them in memory
 * (their layouts on disk are format/format.h's).
 */
#ifndef RINGCAP_FORMAT_META_H
#define RINGCAP_FORMAT_META_H

#include <stdbool.h>
#include <stdint.h>
#include "format/counters.h"
#include "format/schema.h"

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
	RC_FTRACE_READ_AUTO = 0, /* splice: mmap costs the workload more (instance.c) */
	RC_FTRACE_READ_MMAP,	 /* the rings mapped: Linux 6.10 */
	RC_FTRACE_READ_SPLICE,	 /* whole pages spliced from trace_pipe_raw, as trace-cmd */
};

/* rc_meta.flags */
#define RC_META_OVERWRITE 0x1 /* flight recorder: records come in snapshots */

/*
 * A CPU's counters of one event (or of every event, or of the AUX bytes:
 * RC_TYPE_*), cumulative since the start: format/counters.h says each.
 */
struct rc_stat_entry {
	uint32_t cpu;
	uint32_t type;
	RC_COUNTERS(RC_COUNTER_MEMBER)
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
	uint64_t ring_hwm;
	uint64_t ring_pending;
	RC_COUNTERS_SHOWN(RC_COUNTER_MEMBER) /* every entry's summed */
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

#endif /* RINGCAP_FORMAT_META_H */
