/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A directory of small files that one run leaves for the next: answers
 * that cost a start milliseconds to work out and change only with the
 * kernel (ringcap-record(1), FILES). Each file holds its key, and a hash
 * over key and bytes: a file of another key, cut short, or changed is
 * not used. Nothing depends on the cache being there: a file that cannot
 * be read or written is worked out again, and said with -v.
 */
#ifndef RINGCAP_UTIL_CACHE_H
#define RINGCAP_UTIL_CACHE_H

#include <stddef.h>

/* A cached file's bytes, at most: the files are the kernel's types for one object. */
#define RC_CACHE_MAX (16u << 20)

/**
 * rc_cache__dir() - the directory the cache is in
 * @buf: set to it
 * @len: @buf's size
 *
 * $RINGCAP_CACHE_DIR when set; else /var/cache/ringcap for root, and
 * $XDG_CACHE_HOME/ringcap or $HOME/.cache/ringcap for another user.
 * RINGCAP_CACHE=off turns the cache off; so does a set-id or file
 * capabilities' run (AT_SECURE), whose user could write the cache.
 *
 * Return: 0; -ENOENT when off or no directory is known, -ENAMETOOLONG.
 */
int rc_cache__dir(char *buf, size_t len);

/**
 * rc_cache__get() - a cached file's bytes
 * @name: the file's name in the directory, no '/'
 * @key: what the bytes were made from; a file made from another is not
 *	used, nor one made by another build of the program (its build id,
 *	which every key takes: no build id, no cache)
 * @data: set to the bytes, malloc()ed, on success
 * @len: set to their count
 *
 * The directory and the file must belong to this process's user and be
 * writable by no one else: what another user could write is not used.
 *
 * Return: 0, -ENOENT (no such file, or the cache off), or another -errno
 * (-EBADMSG: the file is not whole, or of another key; -EPERM: owned or
 * writable by another user).
 */
int rc_cache__get(const char *name, const char *key, void **data, size_t *len);

/**
 * rc_cache__put() - keep bytes in the cache, replacing the file at once
 * @name: as rc_cache__get()
 * @key: as rc_cache__get()
 * @data: the bytes
 * @len: their count, at most RC_CACHE_MAX
 *
 * Written to a file of its own, then renamed over @name: a reader sees
 * the old file or the new, never part of one. The directory is made,
 * mode 0700, when missing. Files not written for 30 days are removed
 * then: other kernels' and other builds'.
 *
 * Return: 0, or -errno (-ENOENT: the cache off).
 */
int rc_cache__put(const char *name, const char *key, const void *data, size_t len);

/**
 * rc_build_id_of_notes() - the GNU build id among ELF notes, in hex
 * @notes: the notes (a PT_NOTE segment, /sys/kernel/notes)
 * @n: their bytes
 * @hex: set to the id, two digits a byte
 * @len: @hex's size
 *
 * Return: 0, or -ENOENT (none, or longer than @hex holds).
 */
int rc_build_id_of_notes(const void *notes, size_t n, char *hex, size_t len);

#endif /* RINGCAP_UTIL_CACHE_H */
