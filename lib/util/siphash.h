/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SipHash-2-4 (Jean-Philippe Aumasson and Daniel J. Bernstein, "SipHash: a
 * fast short-input PRF", INDOCRYPT 2012): the 64-bit hash of a byte string
 * under a 128-bit key. ClickHouse's sipHash64() of a String is it under the
 * key 0, 0, of the string's bytes: the export's host_key is that of the
 * host name, so that the server's own sipHash64(host) finds the rows.
 */
#ifndef RINGCAP_UTIL_SIPHASH_H
#define RINGCAP_UTIL_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/**
 * rc_siphash24() - SipHash-2-4 of @len bytes at @p
 * @k0: the key's first 8 bytes, as a little-endian number
 * @k1: its last 8
 * @p: the bytes (NULL when @len is 0)
 * @len: how many
 *
 * Return: the hash, as the paper's reference implementation's 8 bytes of
 * output read as a little-endian number.
 */
uint64_t rc_siphash24(uint64_t k0, uint64_t k1, const void *p, size_t len);

#endif /* RINGCAP_UTIL_SIPHASH_H */
