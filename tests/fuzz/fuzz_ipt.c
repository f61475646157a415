// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: rc_ipt__summarize() over any bytes. It must return 0
 * and a summary that adds up, never crash or read past the input (ASan
 * sees our reads; libipt is not instrumented, and reads a copy).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "decode/ipt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rc_ipt_summary s;
	uint64_t sum = 0;
	unsigned int t;

	if (rc_ipt__summarize(data, size, &s))
		abort();
	for (t = 0; t < RC_IPT_NTYPES; t++)
		sum += s.by_type[t];
	if (s.bytes != size || sum != s.packets || s.skipped + s.truncated > size)
		abort();
	if (s.psb != s.by_type[RC_IPT_PSB] || s.psb > size / 16 || s.ntsc != s.by_type[RC_IPT_TSC])
		abort();
	if (!s.ntsc && (s.tsc_first || s.tsc_last))
		abort();
	/* each byte in one packet at most: a packet is a byte or more */
	if (s.packets > size - s.skipped - s.truncated)
		abort();
	/* no PSB, no packet: all of it skipped */
	if (!s.psb && (s.packets || s.skipped != size))
		abort();
	return 0;
}
