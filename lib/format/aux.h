/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * AUX streams as the writer takes and the reader hands them (lib/format/auxblk.c).
 */
#ifndef RINGCAP_FORMAT_AUX_H
#define RINGCAP_FORMAT_AUX_H

#include <stdbool.h>
#include <stdint.h>

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

#endif /* RINGCAP_FORMAT_AUX_H */
