/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Profiles: samples and time blocked, by stack (lib/decode/profile.c).
 */
#ifndef RINGCAP_DECODE_PROFILE_H
#define RINGCAP_DECODE_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include "format/meta.h"
#include "format/reader.h"

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

#endif /* RINGCAP_DECODE_PROFILE_H */
