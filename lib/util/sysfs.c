// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's small text files, read and written (sysfs.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/mem.h"
#include "util/sysfs.h"

int rc_sysfs__read_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t n = 0, cap = 0;
	char *buf = NULL;
	ssize_t got;
	int err;

	*out = NULL;
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				err = -E2BIG;
				goto err_out;
			}
			/* room for a byte more and the NUL */
			err = rc_ensure_arr(&buf, &cap, n + 2, 4096);
			if (err)
				goto err_out;
		}
		got = read(fd, buf + n, cap - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			goto err_out;
		}
		if (!got)
			break;
		n += got;
	}
	if (n > max) {
		err = -E2BIG;
		goto err_out;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
err_out:
	free(buf);
	return err;
}

int rc_sysfs__read(const char *path, size_t max, char **out, size_t *len)
{
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = rc_sysfs__read_fd(fd, max, out, len);
	close(fd);
	return err;
}

int rc_sysfs__read_line(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* one byte past the buffer's room tells a file too long from one that fits */
	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		got += n;
	}
	close(fd);
	if (got >= len)
		return -EFBIG;
	while (got && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	buf[got] = '\0';
	if (memchr(buf, '\0', got) || strchr(buf, '\n'))
		return -EINVAL; /* one line of text */
	return got;
}

int rc_sysfs__read_u64(const char *path, uint64_t *val)
{
	unsigned long long v;
	char buf[32], *end;
	int n = rc_sysfs__read_line(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL; /* strtoull() would take a sign, or spaces */
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno)
		return -errno;
	if (*end)
		return -EINVAL;
	*val = v;
	return 0;
}

int rc_sysfs__write(const char *path, const char *val, bool append, bool *opened)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err;

	*opened = false;
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	*opened = true;
	n = write(fd, val, len);
	err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	return err;
}

bool rc_sysfs__is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool rc_sysfs__is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}
