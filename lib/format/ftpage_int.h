/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the ftrace-page codec's files share and do not export: the walker
 * (ftwalk.c), the encoder (ftenc.c) and the decoder (ftdec.c).
 */
#ifndef RINGCAP_FORMAT_FTPAGE_INT_H
#define RINGCAP_FORMAT_FTPAGE_INT_H

#include <stdint.h>
#include <string.h>
#include "format/format.h"

#define REC_HDR	 sizeof(struct rc_rec_hdr)
#define FRAG_HDR sizeof(struct rc_disk_frag)

static inline uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t round8(uint64_t n)
{
	return (n + 7) & ~7ull;
}

#endif /* RINGCAP_FORMAT_FTPAGE_INT_H */
