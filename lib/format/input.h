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
#include "internal.h"

struct rc_input {
	int fd;			  /* the descriptor; -1 for memory */
	const unsigned char *mem; /* the file in memory; NULL for a descriptor */
	size_t mem_len, mem_pos;
	uint64_t offset;       /* of the next byte, from the start of the file */
	struct rc_strbuf back; /* a descriptor's bytes given back or peeked at */
	size_t back_pos;       /* ... and the first of them not read again yet */
	int err;	       /* -errno of the first read() that failed */
};

/* Read up to @n bytes into @buf: fewer at the end of the file or after a read error. */
size_t rc_input__read(struct rc_input *in, void *buf, size_t n);

/*
 * Look at the next @n bytes without reading them: *@p, *@avail of them,
 * fewer only at the end of the file (or after a read error). *@p is valid
 * until the next call on @in. Returns 0, or -ENOMEM.
 */
int rc_input__peek(struct rc_input *in, size_t n, const unsigned char **p, size_t *avail);

/* Move past @n bytes rc_input__peek() showed. */
void rc_input__consume(struct rc_input *in, size_t n);

/* Move past @n bytes unseen; false when the file ends first. */
bool rc_input__skip(struct rc_input *in, size_t n);

/*
 * Give back the last bytes read, @a (@alen bytes) then @b (@blen), for them
 * to be read again: the offset goes back by @alen + @blen. Returns 0, or
 * -ENOMEM with nothing given back.
 */
int rc_input__give_back(struct rc_input *in, const void *a, size_t alen, const void *b,
			size_t blen);

/* The file's size, when it is in memory or a regular file; false otherwise. */
bool rc_input__size(struct rc_input *in, uint64_t *size);

/* @n bytes at @off, without moving: false unless all of them are there. */
bool rc_input__read_at(struct rc_input *in, void *buf, size_t n, uint64_t off);

/* Go forward to @off, before anything was given back; false if that cannot be done. */
bool rc_input__seek(struct rc_input *in, uint64_t off);

/* Free what @in holds; its descriptor is the caller's. */
void rc_input__free(struct rc_input *in);

#endif /* RINGCAP_FORMAT_INPUT_H */
