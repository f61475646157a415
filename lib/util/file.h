/* SPDX-License-Identifier: GPL-2.0-only */
/* Opening files whose paths another process chose; writing whole buffers. */
#ifndef RINGCAP_UTIL_FILE_H
#define RINGCAP_UTIL_FILE_H

#include <stddef.h>

/**
 * rc_open_regular() - open a file for reading only if it is a regular file
 * @path: its path, as a traced process's mappings or records name it
 *
 * A path a mapping names is the mapping process's to choose, and opening
 * a device calls its driver's open(), which can act (a watchdog arms, a
 * tape rewinds). The path is opened with O_PATH first, which calls no
 * driver and reads nothing, and reopened through /proc/self/fd once
 * fstat() says it is a regular file.
 *
 * Return: the descriptor, O_RDONLY | O_CLOEXEC; -1 with errno set (EINVAL
 * for a file that is not regular).
 */
int rc_open_regular(const char *path);

/**
 * rc_write_all() - write a whole buffer, through short writes and EINTR
 * @fd: a descriptor
 * @buf: the bytes
 * @len: how many
 *
 * Return: 0, or -errno of the write(2) that failed (-EIO for one that
 * wrote nothing).
 */
int rc_write_all(int fd, const void *buf, size_t len);

#endif /* RINGCAP_UTIL_FILE_H */
