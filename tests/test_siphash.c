// SPDX-License-Identifier: GPL-2.0-only
/*
 * SipHash-2-4 (util/siphash.h) against the reference implementation's test
 * vectors (the paper's appendix and its vectors.h): the key 00 01 .. 0f,
 * messages 00 01 .. of 0, 15 (the paper's worked example) and 63 bytes,
 * each output's 8 bytes read little-endian. ClickHouse's own sipHash64()
 * is checked against it by clickhouse_export, on a real server.
 */
#include <stdint.h>
#include "util/siphash.h"
#include "test_progs.h"

void test_siphash_vectors(void)
{
	static const struct {
		size_t len;
		uint64_t want;
	} v[] = {
		{ 0, 0x726fdb47dd0e0e31ull },
		{ 15, 0xa129ca6149be45e5ull },
		{ 63, 0x958a324ceb064572ull },
	};
	/* the key's bytes 00..07 and 08..0f, little-endian */
	const uint64_t k0 = 0x0706050403020100ull, k1 = 0x0f0e0d0c0b0a0908ull;
	unsigned char msg[64];
	size_t i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		ASSERT_EQ(rc_siphash24(k0, k1, msg, v[i].len), v[i].want, "reference vector");
	/* no bytes: the pointer is not read */
	ASSERT_EQ(rc_siphash24(k0, k1, NULL, 0), v[0].want, "NULL, 0 bytes");
}
