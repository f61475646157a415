/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Profiles: samples and time blocked, by stack (lib/decode/profile.c).
 */
#ifndef RINGCAP_DECODE_PROFILE_H
#define RINGCAP_DECODE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/meta.h"
#include "format/reader.h"
#include "util/strbuf.h"

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
 * rc_profile__merge() - add the rows of records that came after
 * @p: the profile of the records before
 * @later: the profile of the records after them
 *
 * As if @later's records had been added to @p one by one: rows in the
 * order first met.
 *
 * Return: 0, or -ENOMEM (some rows may be added).
 */
int rc_profile__merge(struct rc_profile *p, const struct rc_profile *later);

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

/**
 * struct rc_profile_src - a file's profile, and the reader its stacks are in
 * @r: the reader (rc_reader__stack())
 * @p: the profile
 *
 * A report of several files has one each.
 */
struct rc_profile_src {
	const struct rc_reader *r;
	const struct rc_profile *p;
};

/**
 * rc_profile__frames() - the frames of a row, outermost first
 * @r: the reader its stack is in
 * @row: the row
 * @mark: end kernel frames in "_[k]", as stackcollapse-perf.pl --kernel writes them
 * @names: emptied, then filled with the names, each ending in a NUL
 * @nframes: set to their number
 *
 * The task's name first ("[unknown]" when it has none), then the user
 * frames, then the kernel's; a row without a stack has one "[unknown]".
 *
 * Return: 0, or -ENOMEM.
 */
int rc_profile__frames(const struct rc_reader *r, const struct rc_profile_row *row, bool mark,
		       struct rc_strbuf *names, size_t *nframes);

/**
 * struct rc_folded - a folded stack: "comm;outer;...;inner", and its weight
 * @text: the frames joined by ';'
 * @count: the rows' weight (samples, events, or ns blocked)
 */
struct rc_folded {
	char *text;
	uint64_t count;
};

/**
 * rc_profile__fold() - several profiles' rows of one kind as folded stacks
 * @ps: the profiles
 * @nps: their number
 * @kind: which rows
 * @mark: kernel frames marked (rc_profile__frames())
 * @out: set to the lines, sorted by text, equal ones merged (two stacks can
 *	name the same functions); free with rc_folded__free(), also on an error
 * @nout: set to their number
 *
 * Return: 0, or -ENOMEM.
 */
int rc_profile__fold(const struct rc_profile_src *ps, size_t nps, enum rc_profile_kind kind,
		     bool mark, struct rc_folded **out, size_t *nout);

/**
 * rc_folded__free() - free what rc_profile__fold() gave
 * @v: the lines
 * @n: their number
 */
void rc_folded__free(struct rc_folded *v, size_t n);

/**
 * rc_profile__merge_functions() - the functions of several profiles, merged by name
 * @ps: the profiles
 * @nps: their number
 * @kind: which records (rc_profile__functions())
 * @out: set to the functions, by @total, then @self, then name, highest first
 * @nout: set to their number
 *
 * A sample counts a function once in its own file, so the sums count it once too.
 *
 * Return: 0, or -ENOMEM. Free @out with rc_func_counts__free().
 */
int rc_profile__merge_functions(const struct rc_profile_src *ps, size_t nps,
				enum rc_profile_kind kind, struct rc_func_count **out,
				size_t *nout);

#endif /* RINGCAP_DECODE_PROFILE_H */
