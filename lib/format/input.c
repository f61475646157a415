// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bytes of a capture, for its reader (input.h): from a descriptor or
 * from memory, with a descriptor's bytes given back after a resync read
 * again before its next ones.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format/input.h"
#include "util/util.h"

/* Bytes given back (or peeked at) and not read again yet. */
static size_t back_len(const struct rc_input *in)
{
	return in->back.len - in->back_pos;
}

#define READ_AHEAD 65536 /* bytes a peek reads past those asked, when they are there */

/*
 * From the descriptor itself: at least @min bytes, and up to @max when
 * read() gives them; fewer than @min at its end or on an error.
 */
static size_t read_fd(struct rc_input *in, void *buf, size_t min, size_t max)
{
	size_t got = 0;

	while (got < min && !in->err && !in->eof) {
		ssize_t k = read(in->fd, (char *)buf + got, max - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			in->err = -errno;
		if (k == 0)
			in->eof = true;
		if (k <= 0)
			break;
		got += k;
	}
	return got;
}

size_t rc_input__read(struct rc_input *in, void *buf, size_t n)
{
	size_t got;

	if (in->mem) {
		got = in->mem_len - in->mem_pos < n ? in->mem_len - in->mem_pos : n;
		if (got)
			memcpy(buf, in->mem + in->mem_pos, got);
		in->mem_pos += got;
	} else {
		size_t k;

		got = back_len(in) < n ? back_len(in) : n;
		if (got)
			memcpy(buf, in->back.buf + in->back_pos, got);
		in->back_pos += got;
		in->kept += got;
		if (got < n) {
			k = read_fd(in, (char *)buf + got, n - got, n - got);
			if (k) /* the last bytes read are no longer those before back_pos */
				in->kept = 0;
			got += k;
		}
	}
	in->offset += got;
	return got;
}

int rc_input__peek(struct rc_input *in, size_t n, const unsigned char **p, size_t *avail)
{
	size_t have, want;
	int err;

	if (in->mem) {
		have = in->mem_len - in->mem_pos;
		*p = in->mem + in->mem_pos;
		*avail = have < n ? have : n;
		return 0;
	}
	have = back_len(in);
	if (have < n && !in->eof && !in->err) {
		/*
		 * What is left to the front only when what was read is as
		 * much: each byte is moved there at most once per as many
		 * bytes consumed. Then read what is missing, and ahead.
		 */
		if (in->back_pos >= have) {
			if (have)
				memmove(in->back.buf, in->back.buf + in->back_pos, have);
			in->back.len = have;
			in->back_pos = in->kept = 0;
		}
		want = n - have;
		err = rc_strbuf__reserve(&in->back, want > READ_AHEAD ? want : READ_AHEAD);
		if (err)
			return err;
		have += read_fd(in, in->back.buf + in->back.len, want,
				in->back.cap - 1 - in->back.len);
		in->back.len = in->back_pos + have;
	}
	*p = (const unsigned char *)in->back.buf + in->back_pos;
	*avail = have < n ? have : n;
	return 0;
}

void rc_input__consume(struct rc_input *in, size_t n)
{
	if (in->mem) {
		in->mem_pos += n;
	} else {
		in->back_pos += n;
		in->kept += n;
	}
	in->offset += n;
}

bool rc_input__skip(struct rc_input *in, size_t n)
{
	uint64_t rest;
	struct stat st;
	off_t cur;
	size_t k;

	if (in->mem) {
		k = in->mem_len - in->mem_pos < n ? in->mem_len - in->mem_pos : n;
		rc_input__consume(in, k);
		return k == n;
	}
	k = back_len(in) < n ? back_len(in) : n;
	rc_input__consume(in, k);
	n -= k;
	if (!n)
		return true;
	if (!fstat(in->fd, &st) && S_ISREG(st.st_mode) && (cur = lseek(in->fd, 0, SEEK_CUR)) >= 0) {
		rest = st.st_size > cur ? (uint64_t)(st.st_size - cur) : 0;
		k = rest < n ? rest : n;
		if (lseek(in->fd, k, SEEK_CUR) < 0)
			return false;
		in->kept = 0;
		in->offset += k;
		if (k < n)
			in->eof = true;
		return k == n;
	}
	/* a pipe: read and drop */
	while (n) {
		char buf[65536];

		k = n < sizeof(buf) ? n : sizeof(buf);
		if (rc_input__read(in, buf, k) < k)
			return false;
		n -= k;
	}
	return true;
}

void rc_input__skip_rest(struct rc_input *in)
{
	struct stat st;
	off_t cur, end;

	if (in->mem) {
		rc_input__consume(in, in->mem_len - in->mem_pos);
		return;
	}
	rc_input__consume(in, back_len(in));
	if (!fstat(in->fd, &st) && S_ISREG(st.st_mode) && (cur = lseek(in->fd, 0, SEEK_CUR)) >= 0 &&
	    (end = lseek(in->fd, 0, SEEK_END)) >= 0) {
		if (end > cur)
			in->offset += end - cur;
		in->kept = 0;
		in->eof = true;
		return;
	}
	while (!in->eof && !in->err) { /* a pipe: read and drop */
		char buf[65536];

		rc_input__read(in, buf, sizeof(buf));
	}
}

int rc_input__give_back(struct rc_input *in, const void *a, size_t alen, const void *b, size_t blen)
{
	size_t n = alen + blen, rest;
	int err;

	if (in->mem) {
		in->mem_pos -= n;
		in->offset -= n;
		return 0;
	}
	if (n <= in->kept) { /* still there: read them again */
		in->back_pos -= n;
		in->kept -= n;
		in->offset -= n;
		return 0;
	}
	/* in front of what is left, in the same buffer: no second one to fault in */
	rest = back_len(in);
	if (in->back_pos) {
		if (rest)
			memmove(in->back.buf, in->back.buf + in->back_pos, rest);
		in->back.len = rest;
		in->back_pos = in->kept = 0;
	}
	err = rc_strbuf__reserve(&in->back, n);
	if (err)
		return err;
	if (rest)
		memmove(in->back.buf + n, in->back.buf, rest);
	if (alen)
		memcpy(in->back.buf, a, alen);
	if (blen)
		memcpy(in->back.buf + alen, b, blen);
	in->back.len = n + rest;
	in->offset -= n;
	return 0;
}

bool rc_input__size(struct rc_input *in, uint64_t *size)
{
	struct stat st;

	if (in->mem) {
		*size = in->mem_len;
		return true;
	}
	if (fstat(in->fd, &st) || !S_ISREG(st.st_mode))
		return false;
	*size = st.st_size;
	return true;
}

bool rc_input__read_at(struct rc_input *in, void *buf, size_t n, uint64_t off)
{
	if (in->mem) {
		if (off > in->mem_len || in->mem_len - off < n)
			return false;
		memcpy(buf, in->mem + off, n);
		return true;
	}
	return pread(in->fd, buf, n, off) == (ssize_t)n;
}

bool rc_input__seek(struct rc_input *in, uint64_t off)
{
	if (off < in->offset || back_len(in))
		return false;
	if (in->mem) {
		if (off > in->mem_len)
			return false;
		in->mem_pos = off;
	} else if (lseek(in->fd, off, SEEK_SET) < 0) {
		return false;
	} else {
		in->kept = 0;
		in->eof = false;
	}
	in->offset = off;
	return true;
}

void rc_input__free(struct rc_input *in)
{
	rc_strbuf__free(&in->back);
}
