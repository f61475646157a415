// SPDX-License-Identifier: GPL-2.0-only
/*
 * A packet-level summary of a raw Intel PT stream with libipt's packet
 * decoder (pt_pkt_*): sync at the first PSB, count each packet, and on a
 * decode error resync at the next PSB.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "decode/ipt.h"

#ifdef HAVE_LIBIPT
#include <intel-pt.h>
#endif

static const char *const type_names[RC_IPT_NTYPES] = {
	[RC_IPT_PAD] = "pad",	      [RC_IPT_PSB] = "psb",	[RC_IPT_PSBEND] = "psbend",
	[RC_IPT_FUP] = "fup",	      [RC_IPT_TIP] = "tip",	[RC_IPT_TIP_PGE] = "tip_pge",
	[RC_IPT_TIP_PGD] = "tip_pgd", [RC_IPT_TNT_8] = "tnt8",	[RC_IPT_TNT_64] = "tnt64",
	[RC_IPT_MODE] = "mode",	      [RC_IPT_PIP] = "pip",	[RC_IPT_VMCS] = "vmcs",
	[RC_IPT_CBR] = "cbr",	      [RC_IPT_TSC] = "tsc",	[RC_IPT_TMA] = "tma",
	[RC_IPT_MTC] = "mtc",	      [RC_IPT_CYC] = "cyc",	[RC_IPT_STOP] = "stop",
	[RC_IPT_OVF] = "ovf",	      [RC_IPT_MNT] = "mnt",	[RC_IPT_EXSTOP] = "exstop",
	[RC_IPT_MWAIT] = "mwait",     [RC_IPT_PWRE] = "pwre",	[RC_IPT_PWRX] = "pwrx",
	[RC_IPT_PTW] = "ptw",	      [RC_IPT_OTHER] = "other",
};

const char *rc_ipt__type_name(unsigned int type)
{
	if (type >= RC_IPT_NTYPES || !type_names[type])
		return "unknown";
	return type_names[type];
}

#ifdef HAVE_LIBIPT

/* zeroed bytes after the decoder's copy of the stream: see rc_ipt__summarize() */
#define IPT_SLACK 16

/* libipt's packet type in ours; what 2.0 lacks (2.1's CFE, EVD) is "other" */
static enum rc_ipt_type ipt_type(enum pt_packet_type t)
{
	switch (t) {
	case ppt_pad:
		return RC_IPT_PAD;
	case ppt_psb:
		return RC_IPT_PSB;
	case ppt_psbend:
		return RC_IPT_PSBEND;
	case ppt_fup:
		return RC_IPT_FUP;
	case ppt_tip:
		return RC_IPT_TIP;
	case ppt_tip_pge:
		return RC_IPT_TIP_PGE;
	case ppt_tip_pgd:
		return RC_IPT_TIP_PGD;
	case ppt_tnt_8:
		return RC_IPT_TNT_8;
	case ppt_tnt_64:
		return RC_IPT_TNT_64;
	case ppt_mode:
		return RC_IPT_MODE;
	case ppt_pip:
		return RC_IPT_PIP;
	case ppt_vmcs:
		return RC_IPT_VMCS;
	case ppt_cbr:
		return RC_IPT_CBR;
	case ppt_tsc:
		return RC_IPT_TSC;
	case ppt_tma:
		return RC_IPT_TMA;
	case ppt_mtc:
		return RC_IPT_MTC;
	case ppt_cyc:
		return RC_IPT_CYC;
	case ppt_stop:
		return RC_IPT_STOP;
	case ppt_ovf:
		return RC_IPT_OVF;
	case ppt_mnt:
		return RC_IPT_MNT;
	case ppt_exstop:
		return RC_IPT_EXSTOP;
	case ppt_mwait:
		return RC_IPT_MWAIT;
	case ppt_pwre:
		return RC_IPT_PWRE;
	case ppt_pwrx:
		return RC_IPT_PWRX;
	case ppt_ptw:
		return RC_IPT_PTW;
	default:
		return RC_IPT_OTHER;
	}
}

/*
 * A packet decoded but not yet counted. After an error libipt resyncs at a
 * PSB up to 15 bytes before it (one a packet cut by lost data, or garbage,
 * had swallowed the start of): the packets decoded over that PSB's bytes
 * were garbage, and are dropped rather than counted twice. So packets are
 * counted only once IPT_WINDOW bytes (or packets) lie behind them.
 */
struct ipt_pending {
	uint64_t off, end;
	uint64_t tsc;
	enum rc_ipt_type type;
};

/* more than libipt's resync ever goes back: 15 bytes, and a PSB's payload */
#define IPT_WINDOW 64

struct ipt_walk {
	struct rc_ipt_summary *s;
	struct ipt_pending ring[IPT_WINDOW];
	unsigned int first, n; /* the oldest pending packet; how many there are */
};

static void commit_oldest(struct ipt_walk *w)
{
	const struct ipt_pending *p = &w->ring[w->first];
	struct rc_ipt_summary *s = w->s;

	s->packets++;
	s->by_type[p->type]++;
	if (p->type == RC_IPT_PSB) {
		s->psb++;
	} else if (p->type == RC_IPT_TSC) {
		if (!s->ntsc)
			s->tsc_first = p->tsc;
		s->tsc_last = p->tsc;
		s->ntsc++;
	}
	w->first = (w->first + 1) % IPT_WINDOW;
	w->n--;
}

/* add a packet at [@off, @end), counting those far enough behind it */
static void push_packet(struct ipt_walk *w, const struct pt_packet *pkt, uint64_t off, uint64_t end)
{
	struct ipt_pending *p;

	if (w->n == IPT_WINDOW)
		commit_oldest(w);
	p = &w->ring[(w->first + w->n) % IPT_WINDOW];
	p->off = off;
	p->end = end;
	p->type = ipt_type(pkt->type);
	p->tsc = p->type == RC_IPT_TSC ? pkt->payload.tsc.tsc : 0;
	w->n++;
	while (w->n && w->ring[w->first].end + IPT_WINDOW <= end)
		commit_oldest(w);
}

/*
 * Drop the pending packets that end past @sync, newest first. Return: where
 * the kept packets end, at most @covered.
 */
static uint64_t drop_after(struct ipt_walk *w, uint64_t sync, uint64_t covered)
{
	const struct ipt_pending *p;

	while (w->n) {
		p = &w->ring[(w->first + w->n - 1) % IPT_WINDOW];
		if (p->end <= sync)
			break;
		covered = p->off;
		w->n--;
	}
	return covered;
}

/*
 * The decoder's position as an offset into the buffer; false when libipt
 * has none or puts it past the end (it never should: the walk then stops).
 */
static bool decoder_offset(const struct pt_packet_decoder *dec, size_t len, uint64_t *off)
{
	return pt_pkt_get_offset(dec, off) >= 0 && *off <= len;
}

int rc_ipt__summarize(const void *buf, size_t len, struct rc_ipt_summary *s)
{
	uint64_t covered = 0, off, end, sync, last_sync = 0;
	struct pt_packet_decoder *dec;
	struct ipt_walk *w;
	bool synced = false;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint8_t *copy;
	int ret;

	if (!s)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	if (!len)
		return 0;
	if (!buf)
		return -EINVAL;
	if (len > SIZE_MAX - IPT_SLACK)
		return -EINVAL;
	s->bytes = len;

	/*
	 * libipt 2.0.5 reads a byte past the end of its buffer when the 8
	 * bytes before it are PSB payload (pt_sync_forward() hands the word
	 * after the match to pt_find_psb(), which reads it before any bounds
	 * check). Decode a copy with zeroed slack after it, so that no read
	 * leaves memory we own; zeroes are no PSB payload, so the slack
	 * decides nothing. The slack is outside cfg.end: packets never use it.
	 */
	copy = malloc(len + IPT_SLACK);
	w = calloc(1, sizeof(*w));
	if (!copy || !w) {
		ret = -ENOMEM;
		goto out_free;
	}
	w->s = s;
	memcpy(copy, buf, len);
	memset(copy + len, 0, IPT_SLACK);
	pt_config_init(&cfg);
	cfg.begin = copy;
	cfg.end = copy + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec) {
		ret = -ENOMEM; /* the config is valid: only malloc() fails */
		goto out_free;
	}

	/*
	 * @covered: the end of the bytes accounted for (decoded, skipped).
	 * Each round syncs forward to a PSB, then decodes to an error or the end.
	 */
	for (;;) {
		ret = pt_pkt_sync_forward(dec);
		/*
		 * A resync must move forward (libipt's search starts past the
		 * last sync point): else stop, rather than loop.
		 */
		if (ret < 0 || !decoder_offset(dec, len, &sync) || (synced && sync <= last_sync)) {
			/* no (further) PSB: the rest is skipped */
			s->skipped += len - covered;
			break;
		}
		synced = true;
		last_sync = sync;
		/* a PSB behind the error: what was decoded over it was not */
		if (sync < covered)
			covered = drop_after(w, sync, covered);
		if (sync > covered) {
			s->skipped += sync - covered;
			covered = sync;
		}
		off = sync;
		for (;;) {
			ret = pt_pkt_next(dec, &pkt, sizeof(pkt));
			if (ret < 0)
				break;
			/* the packet must lie in the buffer, and the decoder move on */
			if (!decoder_offset(dec, len, &end) || end <= off) {
				ret = -pte_internal;
				break;
			}
			push_packet(w, &pkt, off, end);
			off = end;
			if (off > covered)
				covered = off;
		}
		if (ret == -pte_eos) {
			/* the end, or a packet cut by it */
			s->truncated = len - covered;
			break;
		}
		s->errors++;
	}
	while (w->n)
		commit_oldest(w);
	pt_pkt_free_decoder(dec);
	ret = 0;
out_free:
	free(w);
	free(copy);
	return ret;
}

#else /* !HAVE_LIBIPT */

int rc_ipt__summarize(const void *buf, size_t len, struct rc_ipt_summary *s)
{
	if (s)
		memset(s, 0, sizeof(*s));
	return -EOPNOTSUPP;
}

#endif /* HAVE_LIBIPT */
