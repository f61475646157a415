/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading and writing the kernel's small text files: sysfs, tracefs and
 * procfs attributes, which say they are empty (st_size 0) and are read to
 * their end. The one set every layer uses (tracefs/, the ftrace backend,
 * perf's PMU syntax).
 */
#ifndef RINGCAP_UTIL_SYSFS_H
#define RINGCAP_UTIL_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h> /* SIZE_MAX */

/**
 * rc_sysfs__read_fd() - what is left of an open file, whole, as a string
 * @fd: the file, read to its end (not closed)
 * @max: the most bytes it may hold (SIZE_MAX: any)
 * @out: the text, NUL-terminated, to free(); NULL on error
 * @len: its length, without the NUL (may be NULL)
 *
 * Return: 0; -E2BIG when the file holds more than @max bytes; -errno.
 */
int rc_sysfs__read_fd(int fd, size_t max, char **out, size_t *len);

/**
 * rc_sysfs__read() - a small kernel file, whole, as a string
 * @path: the file
 * @max: as rc_sysfs__read_fd()
 * @out: as rc_sysfs__read_fd()
 * @len: as rc_sysfs__read_fd()
 *
 * Return: 0 or -errno (not said: the caller knows what a missing file means).
 */
int rc_sysfs__read(const char *path, size_t max, char **out, size_t *len);

/**
 * rc_sysfs__read_line() - a one-line file whole into @buf, without its trailing newline
 * @path: the file
 * @buf: where
 * @len: @buf's size
 *
 * Trailing newlines and spaces are dropped.
 *
 * Return: the line's length; -EFBIG when it does not fit; -EINVAL when it
 * is not one line of text; -errno.
 */
int rc_sysfs__read_line(const char *path, char *buf, size_t len);

/**
 * rc_sysfs__read_u64() - a one-line file that holds an unsigned decimal number
 * @path: the file (a /proc/sys knob, a sysfs attribute)
 * @val: the number; untouched on error
 *
 * Return: 0; -EINVAL when the line is not a decimal number; -ERANGE past
 * 64 bits; as rc_sysfs__read_line().
 */
int rc_sysfs__read_u64(const char *path, uint64_t *val);

/**
 * rc_sysfs__write() - write @val to a kernel file in one write
 * @path: the file
 * @val: the text
 * @append: O_APPEND (add to a list, as >> does), else O_TRUNC
 * @opened: set when the file was opened, so that a failure is the write's
 *
 * Return: 0; -EIO for a short write; -errno (not said).
 */
int rc_sysfs__write(const char *path, const char *val, bool append, bool *opened);

/* Whether @path is a directory; a regular file. */
bool rc_sysfs__is_dir(const char *path);
bool rc_sysfs__is_file(const char *path);

#endif /* RINGCAP_UTIL_SYSFS_H */
