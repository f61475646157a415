// SPDX-License-Identifier: GPL-2.0-only
/* Small files one run leaves for the next (cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/cache.h"
#include "util/file.h"
#include "util/siphash.h"

#define CACHE_MAGIC   "RCCACHE"
#define CACHE_VERSION 1u
/* the hash's key: fixed, it guards against damage, not against an author */
#define CACHE_K0 0x72696e6763617063ull
#define CACHE_K1 0x6163686531000000ull

/* A file: this header, the key's bytes, then the data's; the hash is over both. */
struct cache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t key_len;
	uint64_t data_len;
	uint64_t sum;
};

int rc_cache__dir(char *buf, size_t len)
{
	const char *off = getenv("RINGCAP_CACHE"), *dir = getenv("RINGCAP_CACHE_DIR");
	const char *base;
	int n;

	if (off && !strcmp(off, "off"))
		return -ENOENT;
	if (dir && *dir)
		n = snprintf(buf, len, "%s", dir);
	else if (!geteuid())
		n = snprintf(buf, len, "/var/cache/ringcap");
	else if ((base = getenv("XDG_CACHE_HOME")) && *base == '/')
		n = snprintf(buf, len, "%s/ringcap", base);
	else if ((base = getenv("HOME")) && *base == '/')
		n = snprintf(buf, len, "%s/.cache/ringcap", base);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Ours alone: owned by this user, writable by no other. */
static int ours(int fd, bool dir)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return dir ? -ENOTDIR : -EINVAL;
	return st.st_uid != geteuid() || (st.st_mode & 022) ? -EPERM : 0;
}

static int open_dir(bool make)
{
	char path[4096], *slash;
	int fd;

	if (rc_cache__dir(path, sizeof(path)))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && make) {
		/* the directory, and its parent (~/.cache) where missing: no deeper */
		if (mkdir(path, 0700) && errno == ENOENT && (slash = strrchr(path, '/')) &&
		    slash != path) {
			*slash = '\0';
			mkdir(path, 0700); /* failing, the next says why */
			*slash = '/';
			mkdir(path, 0700);
		}
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	return fd;
}

static bool name_ok(const char *name)
{
	return *name && *name != '.' && !strchr(name, '/') && strlen(name) < 200;
}

static uint64_t cache_sum(const char *body, size_t len)
{
	return rc_siphash24(CACHE_K0, CACHE_K1, body, len);
}

/* @fd's whole text, at most @max bytes: 0, or -errno (-EBADMSG: longer). */
static int read_whole(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;
	char *buf;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_size < (off_t)sizeof(struct cache_hdr) || (uint64_t)st.st_size > max)
		return -EBADMSG;
	buf = malloc(st.st_size);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return n < 0 ? -errno : -EBADMSG;
		}
		got += n;
	}
	*out = buf;
	*len = got;
	return 0;
}

int rc_cache__get(const char *name, const char *key, void **data, size_t *len)
{
	size_t klen = strlen(key), flen;
	struct cache_hdr h;
	char *text = NULL;
	int dfd, fd, err;

	if (!name_ok(name))
		return -EINVAL;
	dfd = open_dir(false);
	if (dfd < 0)
		return dfd;
	err = ours(dfd, true);
	fd = err ? -1 : openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (!err && fd < 0)
		err = -errno;
	close(dfd);
	if (err)
		return err;
	err = ours(fd, false) ?: read_whole(fd, sizeof(h) + klen + RC_CACHE_MAX, &text, &flen);
	close(fd);
	if (err)
		return err;
	memcpy(&h, text, sizeof(h));
	err = -EBADMSG;
	if (memcmp(h.magic, CACHE_MAGIC, sizeof(h.magic)) || h.version != CACHE_VERSION ||
	    h.key_len != klen || h.data_len != flen - sizeof(h) - klen ||
	    memcmp(text + sizeof(h), key, klen) ||
	    h.sum != cache_sum(text + sizeof(h), flen - sizeof(h)))
		goto out;
	*data = malloc(h.data_len ?: 1);
	if (!*data) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(*data, text + sizeof(h) + klen, h.data_len);
	*len = h.data_len;
	err = 0;
out:
	free(text);
	return err;
}

int rc_cache__put(const char *name, const char *key, const void *data, size_t len)
{
	size_t klen = strlen(key), flen = sizeof(struct cache_hdr) + klen + len;
	struct cache_hdr h = { .magic = CACHE_MAGIC, .version = CACHE_VERSION };
	char tmp[256], *text;
	int dfd, fd, err;

	if (!name_ok(name) || len > RC_CACHE_MAX || klen > 4096)
		return -EINVAL;
	text = malloc(flen);
	if (!text)
		return -ENOMEM;
	h.key_len = klen;
	h.data_len = len;
	memcpy(text + sizeof(h), key, klen);
	memcpy(text + sizeof(h) + klen, data, len);
	h.sum = cache_sum(text + sizeof(h), flen - sizeof(h));
	memcpy(text, &h, sizeof(h));
	dfd = open_dir(true);
	err = dfd < 0 ? dfd : ours(dfd, true);
	if (err)
		goto out;
	/* a name of this process's: two runs writing at once each rename a whole file */
	snprintf(tmp, sizeof(tmp), ".%s.%ld", name, (long)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = rc_write_all(fd, text, flen);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dfd, tmp, dfd, name))
		err = -errno;
	if (err)
		unlinkat(dfd, tmp, 0);
out:
	if (dfd >= 0)
		close(dfd);
	free(text);
	return err;
}
