/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoint formats: tracefs's events/SYSTEM/NAME/format text turned into
 * ringcap fields, and the tracefs look-ups that find the events.
 *
 * A generic BPF program copies a tracepoint's raw record (what a tracepoint
 * program's ctx points at: common_type, common_flags, common_preempt_count,
 * common_pid, then the event's fields) after ringcap's record header; the
 * fields here describe that copy, their offsets moved by the header's size.
 */
#ifndef RINGCAP_TPFORMAT_H
#define RINGCAP_TPFORMAT_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include "format/schema.h"

/* The longest format text accepted (this kernel's longest is about 5 KiB). */
#define RC_TP_MAX_TEXT (256u << 10)

struct rc_tpformat {
	char *system;		 /* "block"; NULL after rc_tpformat__parse() */
	char *name;		 /* "block_rq_issue" */
	uint32_t id;		 /* the ftrace event id: the raw record's common_type */
	uint32_t size;		 /* the fixed part of the raw record: the end of its last field */
	uint16_t nfields;	 /* the fields after the common_* ones */
	struct rc_field *fields; /* offsets: raw offset + base; names allocated */
	uint16_t nlocs;		 /* __data_loc / __rel_loc fields, at most RC_TP_MAX_LOCS */
	uint16_t loc_off[RC_TP_MAX_LOCS]; /* their raw offsets (of the u32 loc word) */
	uint8_t loc_rel[RC_TP_MAX_LOCS];  /* 1 for __rel_loc */
	char *text;			  /* the format text as given (to store in the capture) */
};

/**
 * rc_tpformat__parse() - describe a tracepoint from its format text
 * @f: filled in; need not be initialised, and is left empty on failure
 * @text: the contents of events/SYSTEM/NAME/format
 * @base: added to every field offset (ringcap's record header size, 40)
 * @err: the reason on failure (may be NULL)
 * @errlen: size of @err
 *
 * Every field is described, never refused: a type ringcap cannot show as
 * an integer or a string becomes an array of bytes shown in hex. Fields of
 * no size (flexible arrays, "args[]") are left out. The common_* fields
 * are left out too: they count in @f->size only.
 *
 * Return: 0; -EINVAL for text that is not a format, or one whose offsets do
 * not fit a record; -E2BIG for more than RC_MAX_FIELDS fields or text
 * longer than RC_TP_MAX_TEXT; -ENOMEM.
 */
int rc_tpformat__parse(struct rc_tpformat *f, const char *text, uint16_t base, char *err,
		       size_t errlen);

/**
 * rc_tpformat__load() - read and parse the format of tracepoint SYSTEM:NAME
 * @f: as rc_tpformat__parse(); @f->system and @f->name are set
 * @system: "block"
 * @name: "block_rq_issue"
 * @base: as rc_tpformat__parse()
 * @err: the reason on failure (may be NULL), also logged with pr_warn
 * @errlen: size of @err
 *
 * Return: 0, -ENOENT for no such event, or another -errno.
 */
int rc_tpformat__load(struct rc_tpformat *f, const char *system, const char *name, uint16_t base,
		      char *err, size_t errlen);

/* Free what @f holds and empty it; @f itself is the caller's. */
void rc_tpformat__free(struct rc_tpformat *f);

/**
 * rc_tpformat__syscall_nargs() - how many arguments a syscall's entry event has
 * @text: the format of syscalls:sys_enter_NAME, NUL-terminated
 *
 * The fields after __syscall_nr that are the call's arguments: each 8
 * bytes, the first at 16, the next 8 on, as the kernel lays them
 * (trace_syscalls.c, one a register). Fields after them are not counted:
 * from Linux 6.19 a call that takes a user string (openat, write,
 * execve...) has a __data_loc copy of it after its arguments.
 *
 * Return: 0 to 6; -1 for text without __syscall_nr, with more than six
 * such fields, or cut before its print fmt.
 */
int rc_tpformat__syscall_nargs(const char *text);

/**
 * rc_tracefs() - the tracefs mount point
 *
 * Found in /proc/mounts (tracefs, else debugfs's tracing/ directory), else
 * tracefs is mounted at /sys/kernel/tracing, as perf does. Cached once
 * found.
 *
 * Return: the path, or NULL with errno set and a pr_warn naming the fix.
 */
const char *rc_tracefs(void);

/**
 * rc_tracefs__mounted() - the tracefs mount point, when tracefs is mounted
 *
 * As rc_tracefs(), but it mounts nothing and says nothing: for what reads
 * tracefs when it can and does without it when not.
 *
 * Return: the path, or NULL.
 */
const char *rc_tracefs__mounted(void);

/**
 * rc_tracefs__glob() - walk the tracepoints matching a pattern
 * @pattern: "SYSTEM:NAME", fnmatch(3) globs on each side ("signal:*",
 *	"sched:sched_sw*"); without ':', "SYSTEM:*" when the pattern matches
 *	a system's name, else "*:NAME"
 * @fn: called for each match, in sorted order; a negative return stops the walk
 * @ctx: passed to @fn
 *
 * Tracepoints are the events with an enable file: the ftrace system's
 * entries (function, print...) are the tracers' own records, which a BPF
 * program cannot attach to, and are not walked.
 *
 * Return: the number of matches (0 for none), @fn's negative return, or
 * -errno (-EINVAL for an empty pattern or side).
 */
int rc_tracefs__glob(const char *pattern,
		     int (*fn)(const char *system, const char *name, void *ctx), void *ctx);

/**
 * rc_tracefs__read_format() - read events/SYSTEM/NAME/format
 * @system: the event's system, a plain name (no '/')
 * @name: the event's name, a plain name
 * @text: set to a new NUL-terminated string, the caller's to free
 *
 * Errors other than -ENOENT (no such event) are logged with pr_warn.
 *
 * Return: 0, -ENOENT, -EINVAL for a name that is not plain, -E2BIG for a
 * text longer than RC_TP_MAX_TEXT, or another -errno.
 */
int rc_tracefs__read_format(const char *system, const char *name, char **text);

#endif /* RINGCAP_TPFORMAT_H */
