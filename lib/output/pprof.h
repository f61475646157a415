/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A profile as pprof's profile.proto, gzipped (lib/output/pprof.c): what
 * `go tool pprof`, Pyroscope, Parca and Grafana read.
 *
 * Records are aggregated as they are added: one row for each file, kind,
 * stack and set of label values, so that memory grows with the distinct
 * stacks (times the label values kept), not with the samples. The file is
 * written at the end: each row a Sample, streamed through zlib, then the
 * mappings, locations, functions and strings they name.
 */
#ifndef RINGCAP_OUTPUT_PPROF_H
#define RINGCAP_OUTPUT_PPROF_H

#include <stdint.h>
#include <stdio.h>
#include "decode/profile.h"
#include "format/meta.h"
#include "format/records.h"

/* Labels a sample carries (rc_pprof__new()), named as perf's converters name them. */
#define RC_PPROF_L_PID	0x1 /* "pid": the process, a number */
#define RC_PPROF_L_TID	0x2 /* "tid": the thread, a number */
#define RC_PPROF_L_COMM 0x4 /* "comm": the thread's name */
/*
 * "cpu": its number as a string, for pprof drops a numeric label of 0
 * (and so the pid and tid labels of pid 0, the idle task's)
 */
#define RC_PPROF_L_CPU	0x8
#define RC_PPROF_L_HOST 0x10 /* "host": the capture's host name */
/* by default: those that do not multiply a fleet profiler's series by the processes */
#define RC_PPROF_L_DEFAULT (RC_PPROF_L_COMM | RC_PPROF_L_CPU | RC_PPROF_L_HOST)

/**
 * rc_pprof__parse_labels() - a list of label names, comma-separated, as flags
 * @s: "pid,tid,comm,cpu,host" or some of them; "all"; "none"
 * @labels: set to RC_PPROF_L_* flags
 *
 * Return: 0, or -EINVAL for a name not among them.
 */
int rc_pprof__parse_labels(const char *s, unsigned int *labels);

struct rc_pprof;

/**
 * rc_pprof__new() - an empty profile
 * @labels: RC_PPROF_L_* flags: the labels each sample keeps
 *
 * Return: the profile, or NULL with errno set.
 */
struct rc_pprof *rc_pprof__new(unsigned int labels);

/**
 * rc_pprof__add() - count a record, when it is a sample, an off-CPU or a stack record
 * @pp: the profile
 * @src: the record's file, an index into rc_pprof__write()'s @ps
 * @m: the file's header, for its schema
 * @rec: the record, checked as rc_reader__next() hands them out
 *
 * Records of other events are passed over.
 *
 * Return: 0, -ENOMEM, or -E2BIG past 2^32 rows.
 */
int rc_pprof__add(struct rc_pprof *pp, uint32_t src, const struct rc_meta *m,
		  const struct rc_rec_hdr *rec);

/**
 * struct rc_pprof_span - the time a profile covers
 * @time_ns: its start, wall-clock ns since the epoch; 0: unknown
 * @duration_ns: its length
 */
struct rc_pprof_span {
	int64_t time_ns;
	int64_t duration_ns;
};

/**
 * rc_pprof__write() - write the rows of one kind as a gzipped profile.proto
 * @pp: the profile
 * @ps: the files, by the @src rc_pprof__add() was given: their stacks'
 *	reader (rc_reader__stack(), whose header names the host and the
 *	sampling event); @ps[i].p is not read
 * @nps: their number
 * @kind: samples (sample types samples/count, then cpu/nanoseconds when
 *	  every file sampled cpu-clock, whose period is in ns, or
 *	  cycles/count when every file sampled cycles), time blocked
 *	  (samples/count, off_cpu/nanoseconds), or events' stacks
 *	  (events/count)
 * @span: the time covered
 * @f: where to
 *
 * Frames are named as folded stacks name them (rc_frame__name()); a frame's
 * inlined functions are lines of its location, innermost first; a source
 * file and line when the capture has them (record --srclines). A mapping
 * is a frame's file, marked as symbolized. The capture keeps no build-ids
 * of the files its stacks are in: mappings have none.
 *
 * Return: 0; -ENODATA when no row is of @kind (nothing written); -ENOMEM;
 * -EIO when writing to @f failed.
 */
int rc_pprof__write(struct rc_pprof *pp, const struct rc_profile_src *ps, size_t nps,
		    enum rc_profile_kind kind, const struct rc_pprof_span *span, FILE *f);

/**
 * rc_pprof__free() - free a profile
 * @pp: the profile, or NULL
 */
void rc_pprof__free(struct rc_pprof *pp);

#endif /* RINGCAP_OUTPUT_PPROF_H */
