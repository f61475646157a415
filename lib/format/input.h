/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bytes a capture reader reads, in file order: from a descriptor (a
 * pipe will do) or from memory. To get past a corrupt block the reader
 * goes back into bytes it has already read: a descriptor's are given back
 * and come again before its next ones (memory is just read again).
 */
#ifndef RINGCAP_FORMAT_INPUT_H
#define RINGCAP_FORMAT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/strbuf.h"

/**
 * struct rc_input - where a reader's bytes come from
 * @fd: the descriptor; -1 for memory
 * @mem: the file in memory; NULL for a descriptor
 * @mem_len: bytes at @mem
 * @mem_pos: the next one read
 * @offset: of the next byte read, from the start of the file
 * @back: a descriptor's bytes given back, or peeked at, to be read first;
 *	those before @back_pos were read, and are kept until a peek needs room
 * @back_pos: the first of them not read yet
 * @kept: how many of the bytes just before @back_pos are the last ones
 *	read, in file order: giving those back copies nothing
 * @eof: the descriptor ended (read() gave 0); it is not read again
 * @err: -errno of the first read() that failed; reading stops there
 *
 * Starts zeroed, but for @fd, or @mem and @mem_len.
 */
struct rc_input {
	int fd;
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	uint64_t offset;
	struct rc_strbuf back;
	size_t back_pos, kept;
	bool eof;
	int err;
};

/**
 * rc_input__read() - read bytes
 * @in: the input
 * @buf: where to
 * @n: how many
 *
 * Return: the bytes read: fewer than @n at the end of the file or after a
 * read error (@in->err).
 */
size_t rc_input__read(struct rc_input *in, void *buf, size_t n);

/**
 * rc_input__peek() - look at the next bytes without reading them
 * @in: the input
 * @n: how many
 * @p: set to them, valid until the next call on @in
 * @avail: set to how many there are: fewer than @n only at the end of the
 *	file (or after a read error)
 *
 * A descriptor is read ahead, up to 64 KiB more than asked when that much
 * is there; the bytes already read move to the front only when they are
 * as many as those not read yet, so a scan that peeks and consumes a few
 * bytes at a time copies each byte a bounded number of times.
 *
 * Return: 0, or -ENOMEM.
 */
int rc_input__peek(struct rc_input *in, size_t n, const unsigned char **p, size_t *avail);

/**
 * rc_input__consume() - move past bytes rc_input__peek() showed
 * @in: the input
 * @n: how many, at most *avail of the last peek
 */
void rc_input__consume(struct rc_input *in, size_t n);

/**
 * rc_input__skip() - move past bytes unseen
 * @in: the input
 * @n: how many
 *
 * Return: false when the file ends first, with @in at its end: from
 * memory, a file or a pipe alike.
 */
bool rc_input__skip(struct rc_input *in, size_t n);

/**
 * rc_input__skip_rest() - move past the rest of the file, unseen
 * @in: the input
 *
 * A descriptor that cannot seek (a pipe) is read to its end, or to a read
 * error (@in->err). The offset ends at the file's size.
 */
void rc_input__skip_rest(struct rc_input *in);

/**
 * rc_input__give_back() - have the last bytes read read again
 * @in: the input
 * @a: the first of them
 * @alen: its length
 * @b: the rest, which followed @a in the file
 * @blen: its length
 *
 * The offset goes back by @alen + @blen. From memory nothing is copied,
 * nor from a descriptor when all of them were read from what it had
 * given back or peeked at (they are still there).
 *
 * Return: 0, or -ENOMEM with nothing given back.
 */
int rc_input__give_back(struct rc_input *in, const void *a, size_t alen, const void *b,
			size_t blen);

/**
 * rc_input__size() - the file's size
 * @in: the input
 * @size: set to it
 *
 * Return: true for memory or a regular file; false otherwise.
 */
bool rc_input__size(struct rc_input *in, uint64_t *size);

/**
 * rc_input__read_at() - bytes at an offset, without moving
 * @in: the input
 * @buf: where to
 * @n: how many
 * @off: from the start of the file
 *
 * Return: true when all of them were read.
 */
bool rc_input__read_at(struct rc_input *in, void *buf, size_t n, uint64_t off);

/**
 * rc_input__seek() - go forward to an offset
 * @in: the input, nothing given back
 * @off: from the start of the file, not before the reading position
 *
 * Return: false if that cannot be done (a pipe), with nothing moved.
 */
bool rc_input__seek(struct rc_input *in, uint64_t off);

/**
 * rc_input__free() - free what @in holds
 * @in: the input; its descriptor is the caller's
 */
void rc_input__free(struct rc_input *in);

#endif /* RINGCAP_FORMAT_INPUT_H */
