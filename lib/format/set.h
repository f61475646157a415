/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A set of captures, read as one (lib/format/set.c).
 */
#ifndef RINGCAP_FORMAT_SET_H
#define RINGCAP_FORMAT_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/reader.h"

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
 * From the earliest start of the files read to the latest end of theirs
 * (rc_reader__end()), both within the range of rc_set__set_range() when
 * one was set. A file that range passed over whole (rc_set__skipped(): no
 * record inside it, or none at all) counts in neither: an empty first file
 * moves the span's start only when no range was set, as it is then read,
 * and the span may start after rc_set__start(). What ringcap stat and
 * report --summary show as the capture's duration.
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

#endif /* RINGCAP_FORMAT_SET_H */
