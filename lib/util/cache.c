// SPDX-License-Identifier: GPL-2.0-only
/* Small files one run leaves for the next (cache.h). */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
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
	const char *off, *dir, *base;
	int n;

	/*
	 * Set-id or file capabilities (setcap cap_bpf,cap_perfmon): the user
	 * who runs it could write what the cache holds, and its answers
	 * choose what the programs read and attach to. No cache then.
	 */
	if (getauxval(AT_SECURE))
		return -ENOENT;
	off = secure_getenv("RINGCAP_CACHE");
	dir = secure_getenv("RINGCAP_CACHE_DIR");
	if (off && !strcmp(off, "off"))
		return -ENOENT;
	if (dir && *dir)
		n = snprintf(buf, len, "%s", dir);
	else if (!geteuid())
		n = snprintf(buf, len, "/var/cache/ringcap");
	else if ((base = secure_getenv("XDG_CACHE_HOME")) && *base == '/')
		n = snprintf(buf, len, "%s/ringcap", base);
	else if ((base = secure_getenv("HOME")) && *base == '/')
		n = snprintf(buf, len, "%s/.cache/ringcap", base);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int rc_build_id_of_notes(const void *notes, size_t n, char *hex, size_t len)
{
	const char *p = notes;
	size_t pos = 0, i;

	while (pos <= n && n - pos >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_at = pos + 12, desc_at;

		memcpy(&namesz, p + pos, 4);
		memcpy(&descsz, p + pos + 4, 4);
		memcpy(&type, p + pos + 8, 4);
		desc_at = name_at + ((namesz + 3ull) & ~3ull);
		if (desc_at > n || descsz > n - desc_at)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name_at, "GNU", 4) &&
		    descsz && descsz * 2 < len) {
			for (i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", (unsigned char)p[desc_at + i]);
			return 0;
		}
		pos = desc_at + ((descsz + 3ull) & ~3ull);
	}
	return -ENOENT;
}

/* dl_iterate_phdr(): the program's own build id, from its PT_NOTE segments. */
static int self_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *hex = arg;
	int i;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 1; /* the program comes first: a library's would not do */
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE &&
		    !rc_build_id_of_notes(
			(const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr),
			info->dlpi_phdr[i].p_memsz, hex, 129))
			return 1;
	return 1;
}

/*
 * This program's build id, in every key: what a file holds was made by
 * this build's code, and another build's is not taken for it. "" when
 * the program has none (no cache then).
 */
static const char *self_id(void)
{
	static char hex[129];
	static bool done;

	if (!done) {
		dl_iterate_phdr(self_note, hex);
		done = true;
	}
	return hex;
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

/* @key and this program's build id: malloc()ed, NULL without either. */
static char *full_key(const char *key)
{
	char *k;

	if (!*self_id() ||
	    asprintf(&k, "%s; made by the program of build id %s", key, self_id()) < 0)
		return NULL;
	return k;
}

/* @fd's file: 0, or -errno: ours, its bytes as a file of @key, in @data and @len. */
static int read_entry(int fd, const char *key, void **data, size_t *len)
{
	size_t klen = strlen(key), flen = 0;
	struct cache_hdr h;
	char *text = NULL;
	int err;

	err = ours(fd, false) ?: read_whole(fd, sizeof(h) + klen + RC_CACHE_MAX, &text, &flen);
	if (err)
		return err;
	memcpy(&h, text, sizeof(h));
	err = -EBADMSG;
	if (memcmp(h.magic, CACHE_MAGIC, sizeof(h.magic)) || h.version != CACHE_VERSION ||
	    h.key_len != klen || flen - sizeof(h) < klen || /* read_whole(): flen >= sizeof(h) */
	    h.data_len != flen - sizeof(h) - klen || memcmp(text + sizeof(h), key, klen) ||
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

int rc_cache__get(const char *name, const char *key, void **data, size_t *len)
{
	char *fkey;
	int dfd, fd, err;

	if (!name_ok(name))
		return -EINVAL;
	dfd = open_dir(false);
	if (dfd < 0)
		return dfd;
	fkey = full_key(key);
	err = fkey ? ours(dfd, true) : -ENOENT;
	/* O_NONBLOCK: a FIFO of that name must not stop the start */
	fd = err ? -1 : openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (!err && fd < 0)
		err = -errno;
	close(dfd);
	if (!err) {
		err = read_entry(fd, fkey, data, len);
		close(fd);
	}
	free(fkey);
	return err;
}

/*
 * Files not written for RC_CACHE_DAYS days removed: what other kernels
 * and other builds left. A file still in use is made again, once. Only
 * the cache's own files go, those that begin with its magic: the
 * directory may be one RINGCAP_CACHE_DIR named, with files of others.
 */
#define RC_CACHE_DAYS 30

static bool stale_entry(int dfd, const char *name, time_t old)
{
	char magic[sizeof(((struct cache_hdr *)0)->magic)];
	struct stat st;
	bool ours_old;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || st.st_mtime >= old)
		return false;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	ours_old = pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
		   !memcmp(magic, CACHE_MAGIC, sizeof(magic));
	close(fd);
	return ours_old;
}

static void prune(int dfd)
{
	time_t old = time(NULL) - RC_CACHE_DAYS * 86400;
	struct dirent *e;
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    stale_entry(dfd, e->d_name, old))
			unlinkat(dfd, e->d_name, 0);
	closedir(d);
}

/* A file of @flen bytes at @text renamed over @name in @dfd: 0, or -errno. */
static int replace(int dfd, const char *name, const char *text, size_t flen)
{
	char tmp[256];
	uint64_t r;
	int fd, err, tries;

	/* a name no other run takes (O_EXCL), in this pid namespace or another */
	for (tries = 0, fd = -1; fd < 0 && tries < 8; tries++) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^ (uint64_t)tries;
		snprintf(tmp, sizeof(tmp), ".%s.%016llx", name, (unsigned long long)r);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	err = rc_write_all(fd, text, flen);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dfd, tmp, dfd, name))
		err = -errno;
	if (err)
		unlinkat(dfd, tmp, 0);
	return err;
}

int rc_cache__put(const char *name, const char *key, const void *data, size_t len)
{
	struct cache_hdr h = { .magic = CACHE_MAGIC, .version = CACHE_VERSION };
	char *fkey = NULL, *text = NULL;
	size_t klen, flen;
	int dfd = -1, err;

	if (!name_ok(name) || len > RC_CACHE_MAX || strlen(key) > 4096)
		return -EINVAL;
	fkey = full_key(key);
	if (!fkey)
		return -ENOENT;
	klen = strlen(fkey);
	flen = sizeof(h) + klen + len;
	text = malloc(flen);
	err = -ENOMEM;
	if (!text)
		goto out;
	h.key_len = klen;
	h.data_len = len;
	memcpy(text + sizeof(h), fkey, klen);
	memcpy(text + sizeof(h) + klen, data, len);
	h.sum = cache_sum(text + sizeof(h), flen - sizeof(h));
	memcpy(text, &h, sizeof(h));
	dfd = open_dir(true);
	err = dfd < 0 ? dfd : ours(dfd, true);
	if (!err)
		err = replace(dfd, name, text, flen);
	if (!err)
		prune(dfd);
out:
	if (dfd >= 0)
		close(dfd);
	free(fkey);
	free(text);
	return err;
}
