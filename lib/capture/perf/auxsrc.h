/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The AUX source: record -e PMU// (intel_pt//u, arm_spe//, cs_etm//). One
 * perf event per CPU and event, each with its data ring and AUX area
 * (aux.h), read by the drain beside the BPF rings of the same capture:
 * the AUX bytes go to the file as AUX blocks, the data ring's records
 * about them as ringcap:aux* records, and the counts to the ledger.
 */
#ifndef RINGCAP_PERF_AUXSRC_H
#define RINGCAP_PERF_AUXSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "capture/perf/aux.h"
#include "format/meta.h"

#define RC_AUX_DEFAULT_SIZE (4u << 20)	/* each CPU's AUX area, as perf's for root */
#define RC_AUX_DATA_SIZE    (64u << 10) /* each CPU's data ring: records about the AUX bytes */

/**
 * struct rc_aux_event - one -e PMU// event, on every CPU
 * @spec: as given
 * @attr: from rc_pmu__parse(), with what the source sets
 * @fds: [ncpus], -1 where a CPU is offline
 * @cpus: [ncpus], the rings and counts
 */
struct rc_aux_event {
	const char *spec;
	struct perf_event_attr attr;
	int *fds;
	struct rc_aux_cpu *cpus;
};

/**
 * struct rc_auxsrc - the AUX events of a capture
 * @ncpus: possible CPUs
 * @nev: events
 * @ev: [@nev]
 * @overwrite: AUX areas in overwrite mode, read by snapshots (--overwrite)
 * @aux_size: each CPU's AUX area
 * @stopped: rc_auxsrc__enable(false) ran: a snapshot's read leaves the events stopped
 */
struct rc_auxsrc {
	int ncpus;
	size_t nev;
	struct rc_aux_event *ev;
	bool overwrite;
	uint64_t aux_size;
	bool stopped;
};

/**
 * rc_auxsrc__parse() - check the events' PMUs, before anything is loaded
 * @as: zeroed
 * @specs: the -e PMU// entries
 * @n: their number
 * @ncpus: possible CPUs
 *
 * A PMU this machine does not have is refused with one line that names it
 * and lists the PMUs there are; a PMU that has no AUX area (not Intel PT,
 * BTS, ARM SPE nor CoreSight) is refused too.
 *
 * Return: 0, or -errno with the cause said.
 */
int rc_auxsrc__parse(struct rc_auxsrc *as, const char *const *specs, size_t n, int ncpus);

/**
 * rc_auxsrc__open() - open and map the events, disabled
 * @as: parsed
 * @pid: the process traced, with its children (inherit), on each CPU; -1: every task
 * @aux_size: each CPU's AUX area (0: RC_AUX_DEFAULT_SIZE), a power-of-two number of pages
 * @overwrite: overwrite mode
 *
 * Return: 0, or -errno with the cause said (which event, which CPU).
 */
int rc_auxsrc__open(struct rc_auxsrc *as, pid_t pid, uint64_t aux_size, bool overwrite);

/**
 * rc_auxsrc__set_attr() - what every AUX event gets besides its PMU's terms
 * @a: the attr from rc_pmu__parse()
 * @inherit: per CPU for a process: its children too
 * @aux_size: the AUX area's size, for the wake-up mark
 * @overwrite: overwrite mode
 *
 * Disabled until started; TID, TIME and CPU on every record
 * (sample_id_all); perf's own clock (see rc_aux__perf_to_boot()); the data
 * ring wakes at half, the AUX area at a quarter.
 */
void rc_auxsrc__set_attr(struct perf_event_attr *a, bool inherit, uint64_t aux_size,
			 bool overwrite);

/**
 * rc_auxsrc__watch() - have an epoll set wake for the events' data rings and AUX areas
 * @as: opened
 * @epfd: the epoll set the drain waits on
 *
 * Return: 0, or -errno.
 */
int rc_auxsrc__watch(struct rc_auxsrc *as, int epfd);

/**
 * rc_auxsrc__enable() - start (true) or stop (false) every event
 * @as: opened
 * @on: which
 *
 * Return: 0, or the first -errno.
 */
int rc_auxsrc__enable(struct rc_auxsrc *as, bool on);

/**
 * rc_auxsrc__read() - read every CPU's rings to @sink
 * @as: opened
 * @sink: where it goes; @sink->enable may be NULL (the source enables)
 *
 * Forward mode: what there is. Overwrite mode: a snapshot: each event is
 * stopped while it is read, then started again unless @as is stopping.
 *
 * Return: records and spans handed over, or -errno.
 */
long rc_auxsrc__read(struct rc_auxsrc *as, const struct rc_aux_sink *sink);

/**
 * rc_auxsrc__entries() - the ledger's AUX entries: one per CPU and event with bytes
 * @as: opened
 * @out: room for rc_auxsrc__max_entries()
 *
 * RC_TYPE_AUX entries: made the bytes the PMU wrote as far as known
 * (captured and dropped), captured those in the file, dropped those of a
 * bad head (never from the kernel), missed the data-ring records the
 * kernel lost, throttles the truncations (the area full, the PMU
 * stopped: a gap in its trace), not_run the snapshots of a wrapped area
 * (bytes before each overwritten, how many not known).
 *
 * Return: entries filled.
 */
size_t rc_auxsrc__entries(const struct rc_auxsrc *as, struct rc_stat_entry *out);

/* rc_auxsrc__entries()'s most */
size_t rc_auxsrc__max_entries(const struct rc_auxsrc *as);

/**
 * rc_auxsrc__close() - unmap and close everything
 * @as: parsed or opened, or zeroed
 */
void rc_auxsrc__close(struct rc_auxsrc *as);

/**
 * rc_aux__perf_to_boot() - capture clock less perf time now, from a mapped event
 * @ring: an event's rings, mapped
 *
 * Reads the hardware clock (x86's TSC, arm64's virtual counter) and the
 * capture clock together, and converts the count with the metadata page's
 * time_zero, time_mult and time_shift.
 *
 * Return: the offset in ns; 0 where the clock or its conversion is unknown.
 */
int64_t rc_aux__perf_to_boot(const struct rc_aux_ring *ring);

#endif /* RINGCAP_PERF_AUXSRC_H */
