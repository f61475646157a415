// SPDX-License-Identifier: GPL-2.0-only
/*
 * SipHash-2-4 (siphash.h), written from the paper's description (section
 * 2): four 64-bit words of state, initialised from the key and four
 * constants; each 8-byte word of the message, read little-endian, xored
 * into v3, two SipRounds, xored into v0; the last word holds the bytes left
 * over and, in its top byte, the message's length mod 256; then 0xff xored
 * into v2 and four SipRounds; the hash is v0 ^ v1 ^ v2 ^ v3.
 */
#include <endian.h>
#include <string.h>
#include "util/siphash.h"

struct sip {
	uint64_t v0, v1, v2, v3;
};

static inline uint64_t rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

/* the ARX round, the paper's SipRound */
static inline void sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl(s->v2, 32);
}

/* one message word: c = 2 rounds */
static inline void sip_word(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t rc_siphash24(uint64_t k0, uint64_t k1, const void *p, size_t len)
{
	/* "somepseudorandomlygeneratedbytes", the paper's constants */
	struct sip s = { .v0 = k0 ^ 0x736f6d6570736575ull,
			 .v1 = k1 ^ 0x646f72616e646f6dull,
			 .v2 = k0 ^ 0x6c7967656e657261ull,
			 .v3 = k1 ^ 0x7465646279746573ull };
	const unsigned char *b = p;
	size_t i, full = len - len % 8;
	uint64_t m;

	for (i = 0; i < full; i += 8) {
		memcpy(&m, b + i, 8);
		sip_word(&s, le64toh(m));
	}
	/* the bytes left, little-endian, under the length's low byte */
	m = (uint64_t)(len & 0xff) << 56;
	for (i = 0; i < len % 8; i++)
		m |= (uint64_t)b[full + i] << (8 * i);
	sip_word(&s, m);
	/* finalization: d = 4 rounds */
	s.v2 ^= 0xff;
	for (i = 0; i < 4; i++)
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
