// SPDX-License-Identifier: GPL-2.0-only
/* Opening files whose paths another process chose; whole writes (file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/file.h"

int rc_open_regular(const char *path)
{
	char self[64];
	struct stat st;
	int fd, rd, err;

	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	err = fstat(fd, &st) ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
	if (err) {
		close(fd);
		errno = err;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	rd = open(self, O_RDONLY | O_CLOEXEC);
	err = errno;
	close(fd);
	errno = err;
	return rd;
}

int rc_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
