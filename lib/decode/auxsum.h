/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a capture's AUX streams hold (record -e PMU//), per CPU: the AUX
 * blocks' bytes, the gaps between them and the bytes overwritten, the
 * data ring's records about them (ringcap:aux: truncations, partial
 * stretches, records lost), and for Intel PT a packet-level summary
 * (ipt.h) of each stretch of stream that is whole. Optionally each CPU's
 * stream is written to a file of its own (report --aux-dump).
 */
#ifndef RINGCAP_DECODE_AUXSUM_H
#define RINGCAP_DECODE_AUXSUM_H

#include <stdbool.h>
#include <stdint.h>
#include "decode/ipt.h"
#include "format/aux.h"
#include "format/records.h"

/**
 * struct rc_aux_cpu_sum - one CPU's AUX stream, as read
 * @cpu: the CPU
 * @pmu: its PMU's name
 * @blocks: AUX blocks
 * @bytes: their bytes
 * @lost: bytes of a bad head, not read (never from the kernel)
 * @wrapped: snapshots of a whole area that had wrapped: bytes before each
 *	were overwritten, how many not known
 * @gaps: places where a block does not start where the one before ended
 * @gap_bytes: the bytes missing there
 * @first_pos: the AUX position of the first byte
 * @end_pos: past the last byte
 * @first_ts: capture clock of the first block's copy
 * @last_ts: of the last's
 * @records: ringcap:aux records of kind aux (PERF_RECORD_AUX)
 * @rec_bytes: the bytes they describe
 * @truncated: of those, flagged TRUNCATED
 * @partial: flagged PARTIAL
 * @collision: flagged COLLISION
 * @meta_lost: data-ring records lost (kind lost: their count)
 * @itrace: kind itrace_start
 * @ipt: Intel PT: the packets of its whole stretches
 * @ipt_runs: the stretches summarized
 * @tsc_first_ts: the first TSC packet's time on the capture clock; 0: unknown
 * @tsc_last_ts: the last's
 * @run: the stretch being gathered (Intel PT)
 * @run_len: its bytes
 * @run_cap: its buffer's size
 * @clock: the last block's, for its clock fields
 * @dump_fd: --aux-dump's file; -1: none
 */
struct rc_aux_cpu_sum {
	uint32_t cpu;
	char pmu[16];
	uint64_t blocks, bytes, lost, wrapped, gaps, gap_bytes;
	uint64_t first_pos, end_pos, first_ts, last_ts;
	uint64_t records, rec_bytes, truncated, partial, collision, meta_lost, itrace;
	struct rc_ipt_summary ipt;
	uint64_t ipt_runs;
	uint64_t tsc_first_ts, tsc_last_ts;
	unsigned char *run;
	size_t run_len, run_cap;
	struct rc_aux_chunk clock;
	int dump_fd;
};

/**
 * struct rc_aux_sum - every CPU's
 * @cpus: [@n], by first appearance
 * @n: CPUs seen
 * @dump_dir: --aux-dump's directory, or NULL
 * @ipt_err: rc_ipt__summarize()'s first error (-EOPNOTSUPP: built without libipt)
 */
struct rc_aux_sum {
	struct rc_aux_cpu_sum *cpus;
	size_t n;
	const char *dump_dir;
	int ipt_err;
};

/**
 * rc_aux_sum__chunk() - count an AUX block (a reader's rc_aux_fn: @ctx is the sum)
 * @ctx: the struct rc_aux_sum
 * @ac: the block
 *
 * With @dump_dir, appends the bytes to DIR/aux-cpuN.bin (made on first use).
 *
 * Return: 0, or -errno.
 */
int rc_aux_sum__chunk(void *ctx, const struct rc_aux_chunk *ac);

/**
 * rc_aux_sum__record() - count a ringcap:aux record; other records are ignored
 * @s: the sum
 * @rec: a record, its size checked by the reader
 */
void rc_aux_sum__record(struct rc_aux_sum *s, const struct rc_rec_hdr *rec);

/**
 * rc_aux_sum__finish() - summarize what is gathered, and close the dumps
 * @s: the sum
 *
 * Return: 0, or the first -errno of closing a dump.
 */
int rc_aux_sum__finish(struct rc_aux_sum *s);

/**
 * rc_aux_sum__free() - free a sum
 * @s: the sum, or zeroed
 */
void rc_aux_sum__free(struct rc_aux_sum *s);

#endif /* RINGCAP_DECODE_AUXSUM_H */
