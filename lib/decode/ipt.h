/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A packet-level summary of a raw Intel PT stream (the AUX bytes of an
 * intel_pt capture): packets counted by type, sync points, the first and
 * last TSC, and the damage, with libipt's packet decoder. Nothing is
 * decoded into instructions: that needs the traced binaries.
 *
 * The library is optional at build time (HAVE_LIBIPT): Debian ships
 * libipt for x86 only. Without it rc_ipt__summarize() returns -EOPNOTSUPP;
 * rc_ipt__type_name() works either way.
 */
#ifndef RINGCAP_DECODE_IPT_H
#define RINGCAP_DECODE_IPT_H

#include <stddef.h>
#include <stdint.h>

/**
 * enum rc_ipt_type - the packet types counted, our own numbering
 *
 * Stable across libipt versions (libipt's enum pt_packet_type grows):
 * a packet type libipt knows and this list does not is counted as
 * RC_IPT_OTHER.
 */
enum rc_ipt_type {
	RC_IPT_PAD,
	RC_IPT_PSB,
	RC_IPT_PSBEND,
	RC_IPT_FUP,
	RC_IPT_TIP,
	RC_IPT_TIP_PGE,
	RC_IPT_TIP_PGD,
	RC_IPT_TNT_8,
	RC_IPT_TNT_64,
	RC_IPT_MODE,
	RC_IPT_PIP,
	RC_IPT_VMCS,
	RC_IPT_CBR,
	RC_IPT_TSC,
	RC_IPT_TMA,
	RC_IPT_MTC,
	RC_IPT_CYC,
	RC_IPT_STOP,
	RC_IPT_OVF,
	RC_IPT_MNT,
	RC_IPT_EXSTOP,
	RC_IPT_MWAIT,
	RC_IPT_PWRE,
	RC_IPT_PWRX,
	RC_IPT_PTW,
	RC_IPT_OTHER,
	RC_IPT_NTYPES
};

/**
 * struct rc_ipt_summary - what rc_ipt__summarize() found in a stream
 * @bytes: bytes walked: the whole buffer given
 * @packets: packets decoded
 * @by_type: packets of each type, indexed by enum rc_ipt_type
 * @psb: PSB packets (sync points); the same as @by_type[RC_IPT_PSB]
 * @tsc_first: the value of the first TSC packet; 0 when there is none
 * @tsc_last: the value of the last TSC packet; 0 when there is none
 * @ntsc: TSC packets; the same as @by_type[RC_IPT_TSC]
 * @errors: decode errors; each one resyncs at the next PSB
 * @skipped: bytes no packet was decoded from: those before the first PSB
 *           (all of them when there is no PSB) and those between an error
 *           and the PSB it resynced at (to the end when there is none)
 * @truncated: bytes of an incomplete packet at the end of the buffer (a
 *             stream cut mid-packet, as an AUX buffer's wrap cuts it): not
 *             an error
 *
 * Each byte is counted once: @bytes is the sum of the counted packets'
 * sizes, @skipped and @truncated. A resync may find a PSB that starts up
 * to 15 bytes before the error, inside packets decoded from a cut packet
 * or garbage that swallowed its start (libipt searches so): those packets
 * are not counted, and their bytes before the PSB are skipped.
 */
struct rc_ipt_summary {
	uint64_t bytes;
	uint64_t packets;
	uint64_t by_type[RC_IPT_NTYPES];
	uint64_t psb;
	uint64_t tsc_first, tsc_last;
	uint64_t ntsc;
	uint64_t errors;
	uint64_t skipped;
	uint64_t truncated;
};

/**
 * rc_ipt__summarize() - count the packets of a raw Intel PT stream
 * @buf: the stream; only read, never past @len
 * @len: its length in bytes; 0 is an empty stream
 * @s: the summary, filled (not added to)
 *
 * Decoding starts at the first PSB: a stream cut anywhere is read from
 * its first sync point. A packet that does not decode (an unknown opcode,
 * a bad payload) is a decode error: it is counted, and decoding goes on at
 * the next PSB, the bytes in between counted as skipped. A packet cut by
 * the end of @buf ends the walk, its bytes counted as truncated. Packets
 * are only counted, not checked against each other (a TIP before any
 * PSBEND is counted as any other).
 *
 * Return: 0, with @s filled; -EINVAL for a NULL @s, or a NULL @buf with a
 * non-zero @len; -ENOMEM; -EOPNOTSUPP when ringcap was built without libipt
 * (@s is zeroed then). On error @s holds what was counted before it.
 */
int rc_ipt__summarize(const void *buf, size_t len, struct rc_ipt_summary *s);

/**
 * rc_ipt__type_name() - the name of a packet type
 * @type: an enum rc_ipt_type
 *
 * Return: a stable lowercase name, as Intel's manual names the packets:
 * "pad", "psb", "psbend", "fup", "tip", "tip_pge", "tip_pgd", "tnt8",
 * "tnt64", "mode", "pip", "vmcs", "cbr", "tsc", "tma", "mtc", "cyc",
 * "stop", "ovf", "mnt", "exstop", "mwait", "pwre", "pwrx", "ptw", "other";
 * "unknown" for a @type out of range. Static strings.
 */
const char *rc_ipt__type_name(unsigned int type);

#endif /* RINGCAP_DECODE_IPT_H */
