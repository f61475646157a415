/* SPDX-License-Identifier: GPL-2.0-only */
/* AUX blocks (RC_BLOCK_AUX, format.h): a stretch of a CPU's AUX stream. */
#ifndef RINGCAP_FORMAT_AUXBLK_H
#define RINGCAP_FORMAT_AUXBLK_H

#include <stddef.h>
#include <zstd.h>
#include "format/aux.h"
#include "util/strbuf.h"

/**
 * rc_aux_block__decode() - an AUX block's payload, checked and decompressed
 * @payload: the block's payload
 * @len: its length
 * @dctx: a zstd context
 * @buf: where decompressed bytes go
 * @ac: set to the stretch; @ac->data points into @payload or @buf
 * @why: set to what is wrong, for -EBADMSG
 *
 * Every length is checked before use: the description's, the data's
 * against the payload, the size against RC_AUX_MAX, the frame's content
 * size against the size, and a stored stretch's size against its data.
 *
 * Return: 0; -EBADMSG with @why set; -ENOMEM.
 */
int rc_aux_block__decode(const void *payload, size_t len, ZSTD_DCtx *dctx, struct rc_strbuf *buf,
			 struct rc_aux_chunk *ac, const char **why);

#endif /* RINGCAP_FORMAT_AUXBLK_H */
