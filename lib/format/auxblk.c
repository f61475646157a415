// SPDX-License-Identifier: GPL-2.0-only
/* AUX blocks: their payload decoded and checked, and their clock (auxblk.h). */
#include <errno.h>
#include <string.h>
#include "format/auxblk.h"
#include "format/format.h"
#include "format/writer.h"
#include "util/util.h"

static int bad(const char **why, const char *what)
{
	*why = what;
	return -EBADMSG;
}

int rc_aux_block__decode(const void *payload, size_t len, ZSTD_DCtx *dctx, struct rc_strbuf *buf,
			 struct rc_aux_chunk *ac, const char **why)
{
	const unsigned char *data = (const unsigned char *)payload + sizeof(struct rc_disk_aux);
	unsigned long long fcs;
	struct rc_disk_aux da;
	size_t n;
	int err;

	if (len < sizeof(da))
		return bad(why, "AUX block shorter than its description");
	memcpy(&da, payload, sizeof(da));
	if (da.data_size != len - sizeof(da))
		return bad(why, "AUX block's data size differs from the block's");
	if (da.size > RC_AUX_MAX)
		return bad(why, "AUX block larger than a writer makes");
	memset(ac, 0, sizeof(*ac));
	ac->cpu = da.cpu;
	ac->flags = da.flags;
	ac->pmu_type = da.pmu_type;
	ac->pos = da.pos;
	ac->size = da.size;
	ac->lost = da.lost;
	ac->ts = da.ts;
	ac->time_zero = da.time_zero;
	ac->time_mult = da.time_mult;
	ac->time_shift = da.time_shift;
	ac->clock_valid = da.clock_valid == 1 && da.time_shift < 64;
	ac->perf_to_boot = da.perf_to_boot;
	memcpy(ac->pmu, da.pmu, sizeof(ac->pmu));
	ac->pmu[sizeof(ac->pmu) - 1] = '\0'; /* a name of 16 bytes is cut: never read past */
	switch (da.codec) {
	case RC_CODEC_NONE:
		if (da.data_size != da.size)
			return bad(why, "stored AUX block's size differs from its data");
		ac->data = data;
		return 0;
	case RC_CODEC_ZSTD:
		fcs = ZSTD_getFrameContentSize(data, da.data_size);
		if (fcs != da.size)
			return bad(why, "AUX frame's size differs from its description");
		if (ZSTD_findFrameCompressedSize(data, da.data_size) != da.data_size)
			return bad(why, "AUX data is not one zstd frame");
		buf->len = 0;
		err = rc_strbuf__reserve(buf, da.size);
		if (err)
			return err;
		n = ZSTD_decompressDCtx(dctx, buf->buf, da.size, data, da.data_size);
		if (ZSTD_isError(n) || n != da.size)
			return bad(why, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short AUX frame");
		ac->data = buf->buf;
		return 0;
	default:
		return bad(why, "AUX block of an unknown codec");
	}
}

uint64_t rc_aux_chunk__hw_to_ts(const struct rc_aux_chunk *ac, uint64_t count)
{
	uint64_t quot, rem, perf;

	if (!ac->clock_valid || !ac->perf_to_boot || ac->time_shift >= 64)
		return 0;
	/* perf_event.h's formula, which keeps the product within 64 bits */
	quot = count >> ac->time_shift;
	rem = count & ((UINT64_C(1) << ac->time_shift) - 1);
	perf = ac->time_zero + quot * ac->time_mult + ((rem * ac->time_mult) >> ac->time_shift);
	return perf + (uint64_t)ac->perf_to_boot;
}
