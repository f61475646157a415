// SPDX-License-Identifier: GPL-2.0-only
/*
 * Byte shuffle with delta timestamps, for chunks (shuffle.h).
 *
 * Eight records at a time, eight bytes of each are loaded as eight words,
 * transposed as an 8x8 byte matrix and stored as eight words, one to each
 * of eight columns: eight stores where a byte at a time takes sixty-four.
 * A run goes a column of blocks at a time (the same eight bytes of every
 * record), so that its stores stream to eight rows, not to all of them.
 * The records left over at a run's end go a byte at a time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "format/records.h"
#include "format/shuffle.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Words are little-endian: byte c of a word in memory is bits 8c..8c+7. */
static inline uint64_t load64le(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline void store64le(unsigned char *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, sizeof(v));
}

static inline uint32_t load32le(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store32le(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Swap the bits of @mask in @a, moved up by @shift, with those of @mask in @b. */
#define SWAP_BLOCKS(a, b, shift, mask)                                                             \
	do {                                                                                       \
		uint64_t x = (((a) >> (shift)) ^ (b)) & (mask);                                    \
		(a) ^= x << (shift);                                                               \
		(b) ^= x;                                                                          \
	} while (0)

/* Word r holds row r, byte c of it column c; afterwards word c holds column c. */
static inline void transpose8(uint64_t w[8])
{
	const uint64_t m32 = 0x00000000ffffffffull, m16 = 0x0000ffff0000ffffull,
		       m8 = 0x00ff00ff00ff00ffull;

	SWAP_BLOCKS(w[0], w[4], 32, m32);
	SWAP_BLOCKS(w[1], w[5], 32, m32);
	SWAP_BLOCKS(w[2], w[6], 32, m32);
	SWAP_BLOCKS(w[3], w[7], 32, m32);
	SWAP_BLOCKS(w[0], w[2], 16, m16);
	SWAP_BLOCKS(w[1], w[3], 16, m16);
	SWAP_BLOCKS(w[4], w[6], 16, m16);
	SWAP_BLOCKS(w[5], w[7], 16, m16);
	SWAP_BLOCKS(w[0], w[1], 8, m8);
	SWAP_BLOCKS(w[2], w[3], 8, m8);
	SWAP_BLOCKS(w[4], w[5], 8, m8);
	SWAP_BLOCKS(w[6], w[7], 8, m8);
}

/* Eight rows of 8 bytes, @sstride apart, to eight columns @dstride apart. */
static void block_scalar(const unsigned char *src, size_t sstride, unsigned char *dst,
			 size_t dstride)
{
	uint64_t w[8];
	int r;

	for (r = 0; r < 8; r++)
		w[r] = load64le(src + r * sstride);
	transpose8(w);
	for (r = 0; r < 8; r++)
		store64le(dst + r * dstride, w[r]);
}

#ifdef __SSE2__
static bool scalar_only; /* tests: the portable path on x86 too */

/*
 * The same in SSE2, which every x86-64 has: interleave bytes, then pairs,
 * then quads; each register ends holding two columns.
 */
static inline __attribute__((always_inline)) void
block_sse2(const unsigned char *src, size_t sstride, unsigned char *dst, size_t dstride)
{
#define ROW(r) _mm_loadl_epi64((const __m128i *)(src + (r)*sstride))
	__m128i a0 = _mm_unpacklo_epi8(ROW(0), ROW(1)), a1 = _mm_unpacklo_epi8(ROW(2), ROW(3));
	__m128i a2 = _mm_unpacklo_epi8(ROW(4), ROW(5)), a3 = _mm_unpacklo_epi8(ROW(6), ROW(7));
#undef ROW
	__m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
	__m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
	__m128i c[4] = { _mm_unpacklo_epi32(b0, b2), _mm_unpackhi_epi32(b0, b2),
			 _mm_unpacklo_epi32(b1, b3), _mm_unpackhi_epi32(b1, b3) };
	int i;

	for (i = 0; i < 4; i++) {
		_mm_storel_epi64((__m128i *)(dst + 2 * i * dstride), c[i]);
		_mm_storel_epi64((__m128i *)(dst + (2 * i + 1) * dstride),
				 _mm_unpackhi_epi64(c[i], c[i]));
	}
}

static inline void block(const unsigned char *src, size_t sstride, unsigned char *dst,
			 size_t dstride)
{
	if (scalar_only)
		block_scalar(src, sstride, dst, dstride);
	else
		block_sse2(src, sstride, dst, dstride);
}

void rc_shuffle__scalar_only(bool on)
{
	scalar_only = on;
}
#else
static inline void block(const unsigned char *src, size_t sstride, unsigned char *dst,
			 size_t dstride)
{
	block_scalar(src, sstride, dst, dstride);
}

void rc_shuffle__scalar_only(bool on)
{
}
#endif

/*
 * One run of @k records of @size bytes from @in to @out; @prev: the last ts.
 * Eight bytes of every record at a time, a column of blocks after another:
 * the stores go to eight rows at once, not to all of a record's.
 */
#define TILE 256

/*
 * @kp records of @size bytes from @in, records i0 to i0 + @kp of a run of
 * @k, to @out (the run's out, plus i0): byte b of each at b * @k. Where
 * a run's records are is not where its bytes go: a run split over two
 * stretches of memory is encoded a part at a time, the same bytes.
 */
static void encode_part(const unsigned char *in, size_t kp, size_t size, unsigned char *out,
			size_t k, uint64_t *prev)
{
	size_t i, b, r, t, te, k8 = kp & ~(size_t)7;
	uint64_t p = *prev;

	for (t = 0; t < k8; t = te) {
		te = k8 - t > TILE ? t + TILE : k8;
		for (i = t; i < te; i += 8) {
			const unsigned char *rec = in + i * size;
			unsigned char delta[64];

			for (r = 0; r < 8; r++) {
				uint64_t ts = load64le(rec + r * size);

				store64le(delta + 8 * r, ts - p);
				p = ts;
			}
			block(delta, 8, out + i, k);
		}
		for (b = 8; b < size; b += 8)
			for (i = t; i < te; i += 8)
				block(in + i * size + b, size, out + b * k + i, k);
	}
	for (i = k8; i < kp; i++) {
		const unsigned char *rec = in + i * size;
		uint64_t ts = load64le(rec), delta = ts - p;

		p = ts;
		for (b = 0; b < 8; b++)
			out[b * k + i] = delta >> 8 * b;
		for (; b < size; b++)
			out[b * k + i] = rec[b];
	}
	*prev = p;
}

static void encode_run(const unsigned char *in, size_t k, size_t size, unsigned char *out,
		       uint64_t *prev)
{
	if (k == 1) { /* a run of one record is laid out as it is */
		uint64_t ts = load64le(in);

		store64le(out, ts - *prev);
		*prev = ts;
		memcpy(out + 8, in + 8, size - 8);
		return;
	}
	encode_part(in, k, size, out, k, prev);
}

static void decode_run(const unsigned char *in, size_t k, size_t size, unsigned char *out,
		       uint64_t *prev)
{
	size_t i = 0, b, r;

	for (; i + 8 <= k; i += 8) {
		unsigned char *rec = out + i * size;

		for (b = 0; b < size; b += 8)
			block(in + b * k + i, k, rec + b, size);
		for (r = 0; r < 8; r++) {
			*prev += load64le(rec + r * size);
			store64le(rec + r * size, *prev);
		}
	}
	if (k == 1) {
		memcpy(out, in, size);
		*prev += load64le(out);
		store64le(out, *prev);
		return;
	}
	for (; i < k; i++) {
		unsigned char *rec = out + i * size;

		for (b = 0; b < size; b++)
			rec[b] = in[b * k + i];
		*prev += load64le(rec);
		store64le(rec, *prev);
	}
}

static size_t rec_size(const unsigned char *rec)
{
	uint16_t size;

	memcpy(&size, rec + offsetof(struct rc_rec_hdr, size), sizeof(size));
	return size;
}

/* Do the @k records of the run at @recs all say they are @size bytes? */
static bool sizes_are(size_t size, const unsigned char *recs, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (rec_size(recs + i * size) != size)
			return false;
	return true;
}

/*
 * The end of the run of records of @size bytes at @pos, before @len. Four
 * records at a time where they fit: their places known before their sizes
 * are read, the loads need not wait on each other.
 */
static size_t run_end(const unsigned char *in, size_t pos, size_t len, size_t size, size_t *k)
{
	size_t n = 0;

	while (len - pos >= 4 * size && rec_size(in + pos + size) == size &&
	       rec_size(in + pos + 2 * size) == size && rec_size(in + pos + 3 * size) == size &&
	       rec_size(in + pos) == size) {
		pos += 4 * size;
		n += 4;
	}
	while (pos < len && rec_size(in + pos) == size) {
		pos += size;
		n++;
	}
	*k = n;
	return pos;
}

size_t rc_shuffle__encode(const void *recs, size_t len, void *out)
{
	const unsigned char *in = recs;
	unsigned char *o = out;
	size_t pos = 0, n = 0;
	uint64_t prev = 0;

	while (pos < len) {
		size_t size = rec_size(in + pos), k, end = run_end(in, pos, len, size, &k);

		store32le(o + n, k);
		store32le(o + n + 4, size);
		n += RC_SHUFFLE_RUN_HDR;
		encode_run(in + pos, k, size, o + n, &prev);
		n += end - pos;
		pos = end;
	}
	return n;
}

/* The next span at or after @si with records in it; @n when none. */
static size_t next_span(const struct rc_span *sp, size_t n, size_t si)
{
	while (si < n && !sp[si].len)
		si++;
	return si;
}

size_t rc_shuffle__encode_spans(const struct rc_span *sp, size_t n, void *out)
{
	unsigned char *o = out;
	size_t si = next_span(sp, n, 0), pos = 0, on = 0;
	uint64_t prev = 0;

	while (si < n) {
		const unsigned char *in = sp[si].p;
		size_t size = rec_size(in + pos), k = 0, sj = si, pj = pos, kj, i0;

		/* the run's length: on into the next spans while they start with it */
		for (;;) {
			const unsigned char *q = sp[sj].p;

			if (run_end(q, pj, sp[sj].len, size, &kj) < sp[sj].len)
				break;
			k += kj;
			kj = 0;
			sj = next_span(sp, n, sj + 1);
			if (sj == n || rec_size(sp[sj].p) != size)
				break;
			pj = 0;
		}
		k += kj;
		store32le(o + on, k);
		store32le(o + on + 4, size);
		on += RC_SHUFFLE_RUN_HDR;
		if (k == 1) {
			encode_run(in + pos, 1, size, o + on, &prev);
		} else {
			for (i0 = 0; i0 < k;) {
				size_t kp = (sp[si].len - pos) / size;

				if (kp > k - i0)
					kp = k - i0;
				encode_part((const unsigned char *)sp[si].p + pos, kp, size,
					    o + on + i0, k, &prev);
				i0 += kp;
				pos += kp * size;
				if (pos == sp[si].len && i0 < k) {
					si = next_span(sp, n, si + 1);
					pos = 0;
				}
			}
		}
		on += k * size;
		if (k == 1)
			pos += size;
		if (pos == sp[si].len) {
			si = next_span(sp, n, si + 1);
			pos = 0;
		}
	}
	return on;
}

size_t rc_shuffle__encode_one_run(const struct rc_span *sp, size_t n, size_t size, void *out)
{
	unsigned char *o = out;
	size_t i, k = 0, i0 = 0;
	uint64_t prev = 0;

	for (i = 0; i < n; i++)
		k += sp[i].len / size;
	store32le(o, k);
	store32le(o + 4, size);
	o += RC_SHUFFLE_RUN_HDR;
	for (i = 0; i < n; i++) {
		size_t kp = sp[i].len / size;

		if (!kp)
			continue;
		if (k == 1)
			encode_run(sp[i].p, 1, size, o, &prev);
		else
			encode_part(sp[i].p, kp, size, o + i0, k, &prev);
		i0 += kp;
	}
	return RC_SHUFFLE_RUN_HDR + k * size;
}

int rc_shuffle__decode(const void *in, size_t in_len, void *out, size_t out_len, uint32_t nrec,
		       const char **why)
{
	const unsigned char *p = in;
	size_t pos = 0, done = 0;
	uint64_t prev = 0, seen = 0;

	while (pos < in_len) {
		uint32_t k, size;

		if (in_len - pos < RC_SHUFFLE_RUN_HDR) {
			*why = "shuffled chunk ends inside a run header";
			return -EINVAL;
		}
		k = load32le(p + pos);
		size = load32le(p + pos + 4);
		pos += RC_SHUFFLE_RUN_HDR;
		if (!k) {
			*why = "shuffled run of no records";
			return -EINVAL;
		}
		if (k > nrec - seen) {
			*why = "shuffled run holds more records than its chunk";
			return -EINVAL;
		}
		if (size < sizeof(struct rc_rec_hdr) || size > RC_REC_MAX || size % RC_REC_ALIGN) {
			*why = "shuffled run has an impossible record size";
			return -EINVAL;
		}
		/* k <= nrec < 2^32 and size < 2^16: no overflow in 64 bits */
		if ((uint64_t)k * size > in_len - pos || (uint64_t)k * size > out_len - done) {
			*why = "shuffled run longer than its chunk";
			return -EINVAL;
		}
		decode_run(p + pos, k, size, (unsigned char *)out + done, &prev);
		if (!sizes_are(size, (unsigned char *)out + done, k)) {
			*why = "shuffled run holds records of another size than its own";
			return -EINVAL;
		}
		pos += (size_t)k * size;
		done += (size_t)k * size;
		seen += k;
	}
	if (done != out_len || seen != nrec) {
		*why = "shuffled chunk shorter than its header says";
		return -EINVAL;
	}
	return 0;
}

/* The class of size @s among @n in @size, @last first; @n if none. */
static size_t class_of(const uint32_t *size, size_t n, size_t last, size_t s)
{
	size_t c;

	if (last < n && size[last] == s)
		return last;
	for (c = 0; c < n; c++)
		if (size[c] == s)
			break;
	return c;
}

size_t rc_classes__encode(const void *recs, size_t len, void *out, void *scratch)
{
	const unsigned char *in = recs;
	unsigned char *o = out, *cls, *dst, *sc = scratch;
	uint32_t size[RC_CLASSES_MAX], count[RC_CLASSES_MAX] = { 0 };
	size_t start[RC_CLASSES_MAX], fill[RC_CLASSES_MAX];
	size_t pos, s, c = 0, n = 0, nrec = 0, i;

	if (!len)
		return 0;
	for (pos = 0; pos < len; pos += s, nrec++) {
		s = rec_size(in + pos);
		c = class_of(size, n, c, s);
		if (c == n) {
			if (n == RC_CLASSES_MAX)
				return 0;
			size[n] = s;
			n++;
		}
		count[c]++;
	}
	store32le(o, n);
	for (c = 0, pos = 0; c < n; c++) {
		store32le(o + 4 + 8 * c, count[c]);
		store32le(o + 8 + 8 * c, size[c]);
		start[c] = fill[c] = pos;
		pos += (size_t)count[c] * size[c];
	}
	/* each record's class, in order; the records gathered by class */
	cls = o + 4 + 8 * n;
	for (pos = 0, i = 0, c = 0; pos < len; pos += s, i++) {
		s = rec_size(in + pos);
		c = class_of(size, n, c, s);
		cls[i] = c;
		memcpy(sc + fill[c], in + pos, s);
		fill[c] += s;
	}
	dst = cls + nrec;
	for (c = 0; c < n; c++) {
		uint64_t prev = 0;

		encode_run(sc + start[c], count[c], size[c], dst, &prev);
		dst += (size_t)count[c] * size[c];
	}
	return dst - o;
}

int rc_classes__decode(const void *in, size_t in_len, void *out, size_t out_len, uint32_t nrec,
		       void *scratch, const char **why)
{
	const unsigned char *p = in, *cls, *data;
	unsigned char *o = out, *sc = scratch;
	uint32_t n, size[RC_CLASSES_MAX], count[RC_CLASSES_MAX], used[RC_CLASSES_MAX] = { 0 };
	size_t start[RC_CLASSES_MAX], next[RC_CLASSES_MAX], hdr, c, i, done = 0;
	uint64_t recs = 0, bytes = 0;

	if (in_len < 4) {
		*why = "classed chunk ends inside its header";
		return -EINVAL;
	}
	n = load32le(p);
	if (!n || n > RC_CLASSES_MAX) {
		*why = "classed chunk has an impossible number of record sizes";
		return -EINVAL;
	}
	hdr = 4 + 8 * (size_t)n;
	if (in_len < hdr) {
		*why = "classed chunk ends inside its header";
		return -EINVAL;
	}
	for (c = 0; c < n; c++) {
		count[c] = load32le(p + 4 + 8 * c);
		size[c] = load32le(p + 8 + 8 * c);
		if (!count[c]) {
			*why = "classed chunk has a size of no records";
			return -EINVAL;
		}
		if (size[c] < sizeof(struct rc_rec_hdr) || size[c] > RC_REC_MAX ||
		    size[c] % RC_REC_ALIGN || class_of(size, c, 0, size[c]) < c) {
			*why = "classed chunk has an impossible record size";
			return -EINVAL;
		}
		start[c] = next[c] = bytes;
		recs += count[c];
		bytes += (uint64_t)count[c] * size[c]; /* < 2^32 * 2^16 a class: no overflow */
	}
	if (recs != nrec || bytes != out_len || in_len - hdr != nrec + (uint64_t)out_len) {
		*why = "classed chunk holds another number of records or bytes than its header says";
		return -EINVAL;
	}
	cls = p + hdr;
	data = cls + nrec;
	for (c = 0; c < n; c++) {
		uint64_t prev = 0;

		decode_run(data + start[c], count[c], size[c], sc + start[c], &prev);
		if (!sizes_are(size[c], sc + start[c], count[c])) {
			*why = "classed chunk holds a record of another size than its class";
			return -EINVAL;
		}
	}
	for (i = 0; i < nrec; i++) {
		c = cls[i];
		if (c >= n || used[c] == count[c]) {
			*why = "classed chunk's record classes do not match their counts";
			return -EINVAL;
		}
		memcpy(o + done, sc + next[c], size[c]);
		next[c] += size[c];
		done += size[c];
		used[c]++;
	}
	return 0;
}
