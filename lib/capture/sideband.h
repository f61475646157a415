/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's side-band records, as perf record tracks mappings: a
 * PERF_COUNT_SW_DUMMY event on each online CPU, system-wide, asking for
 * mmap2 (code mappings only: no mmap_data), comm (with exec), task and,
 * where the kernel has them, build-ids (5.12) and ksymbol (4.19) records,
 * timed on the capture's clock (CLOCK_BOOTTIME, bpf_ktime_get_boot_ns()).
 *
 * A thread of its own reads them as they come (a wakeup per record) and,
 * for each code mapping of a file, opens the file at once through
 * /proc/PID/map_files/START-END (deleted files, other mount namespaces),
 * failing that /proc/PID/root/PATH: that is all there is to do while the
 * process lives, and it is cheap (open, fstat). What it saw is handed to
 * the writer's thread, which owns the symbolizer (symbol/usym.h, not
 * thread-safe), at its next batch: rc_sideband__apply(). Processes that
 * live less than a batch, and code a process dlopen()s, are so named.
 *
 * For tests, $RINGCAP_SIDEBAND_LAG_MS makes the thread lag as on a loaded
 * machine: it reads the rings that often only, or when asked to
 * (rc_sideband__sync()).
 *
 * The processes running at start are read from /proc when their first
 * stack comes, as before (stacks.h): the side-band adds what they map and
 * exec later.
 */
#ifndef RINGCAP_CAPTURE_SIDEBAND_H
#define RINGCAP_CAPTURE_SIDEBAND_H

#include <stdint.h>

struct rc_sideband;
struct rc_usym;

/**
 * struct rc_sideband_stats - what the side-band saw, for the log and tests
 * @records: records read
 * @maps: code mappings noted
 * @opened: of them, files opened when the record was read (each file's
 *	   descriptor is handed over once; later ones are closed again)
 * @execs: execs noted
 * @forks: new processes noted
 * @lost: records the kernel lost (PERF_RECORD_LOST), the rings full
 * @dropped: records not kept: too many waiting for the writer
 */
struct rc_sideband_stats {
	uint64_t records, maps, opened, execs, forks, lost, dropped;
};

/**
 * rc_sideband__open() - open the side-band events and map their rings
 * @ncpus: possible CPUs (an offline one is skipped)
 *
 * Return: the side-band, not yet reading; NULL with errno set when this
 * kernel or these privileges give none (the caller says so and goes on
 * with /proc alone).
 */
struct rc_sideband *rc_sideband__open(int ncpus);

/**
 * rc_sideband__start() - enable the events and start the reading thread
 * @sb: the side-band
 *
 * Before tracing starts, so that mappings made from then on are seen.
 *
 * Return: 0, or -errno.
 */
int rc_sideband__start(struct rc_sideband *sb);

/**
 * rc_sideband__apply() - hand what was seen so far to a symbolizer
 * @sb: the side-band, or NULL
 * @u: the symbolizer, on its own thread
 *
 * In time order: new images (exec, fork) and mappings, with the files
 * opened for them (rc_usym__note_image(), rc_usym__note_map()).
 *
 * Return: 0, or -ENOMEM (what could not be noted is dropped).
 */
int rc_sideband__apply(struct rc_sideband *sb, struct rc_usym *u);

/**
 * rc_sideband__sync() - wait until the records the kernel had before @ts are read
 * @sb: the side-band, or NULL
 * @ts: a sample's time (CLOCK_BOOTTIME)
 *
 * The kernel writes a mapping's PERF_RECORD_MMAP2 before the mmap() that
 * made it returns, so before any sample in it: once a pass over the rings
 * begun after @ts is done, every mapping such a sample can be in is
 * waiting for rc_sideband__apply(). The thread is woken for one if need
 * be (it lags on a loaded machine), waited for 500 ms at most.
 */
void rc_sideband__sync(struct rc_sideband *sb, uint64_t ts);

/**
 * rc_sideband__stats() - the counts so far
 * @sb: the side-band
 */
struct rc_sideband_stats rc_sideband__stats(struct rc_sideband *sb);

/**
 * rc_sideband__free() - stop the thread, close the events and what was not handed over
 * @sb: the side-band, or NULL
 */
void rc_sideband__free(struct rc_sideband *sb);

#endif /* RINGCAP_CAPTURE_SIDEBAND_H */
