// SPDX-License-Identifier: GPL-2.0-only
/* The files of one run of record: names, switches, caps, free space (rotate.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "util/util.h"
#include "capture/rotate.h"
#include "util/mem.h"

int rc_rotor__name(const char *prefix, uint64_t wall_ns, uint32_t seq, char *out, size_t len)
{
	time_t sec = wall_ns / 1000000000ull;
	struct tm tm;
	int n;

	if (!gmtime_r(&sec, &tm))
		memset(&tm, 0, sizeof(tm));
	n = snprintf(out, len, "%s.%04d%02d%02dT%02d%02d%02d.%03uZ.%06u", prefix, tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     (unsigned int)(wall_ns / 1000000 % 1000), seq);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int note_inode(struct rc_rotor *r)
{
	struct stat st;

	if (fstat(r->fd, &st))
		return -errno;
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	return 0;
}

/* Create @name, 0600, not over anything. */
static int create(const char *name, bool trunc)
{
	int fd = open(
	    name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (trunc ? O_TRUNC : O_EXCL), 0600);

	if (fd < 0) {
		int err = -errno;

		pr_warn("failed to create '%s': %s\n", name, strerror(errno));
		return err;
	}
	return fd;
}

int rc_rotor__start(struct rc_rotor *r, int fd, uint64_t wall_ns)
{
	int err;

	r->seq = 1;
	r->cur_wall_ns = wall_ns;
	r->fd = fd;
	if (r->rotating) {
		err = rc_rotor__name(r->path, wall_ns, r->seq, r->cur, sizeof(r->cur));
		if (err)
			return err;
		r->fd = create(r->cur, false);
		if (r->fd < 0)
			return r->fd;
		r->own_fd = true;
	} else if (snprintf(r->cur, sizeof(r->cur), "%s", r->path) >= (int)sizeof(r->cur)) {
		return -ENAMETOOLONG;
	}
	return note_inode(r);
}

/* Without rotation: the file just ended, kept under its rotation name if -o still names it. */
static int set_aside(struct rc_rotor *r, char *name, size_t len)
{
	struct stat st;
	int err;

	if (snprintf(name, len, "%s", r->cur) >= (int)len)
		return -ENAMETOOLONG;
	if (stat(r->path, &st) || st.st_dev != r->dev || st.st_ino != r->ino)
		return 0; /* moved away (logrotate's rename): -o is free */
	err = rc_rotor__name(r->path, r->cur_wall_ns, r->seq, name, len);
	if (err)
		return err;
	if (rename(r->path, name)) {
		err = -errno;
		pr_warn("failed to rename '%s' to '%s': %s\n", r->path, name, strerror(errno));
		return err;
	}
	return 0;
}

int rc_rotor__next(struct rc_rotor *r, uint64_t bytes, uint64_t wall_ns)
{
	char next[PATH_MAX], ended[PATH_MAX];
	int fd, err;

	err = rc_ensure_arr(&r->files, &r->files_cap, r->nfiles + 1, 16);
	if (err)
		return err;
	if (r->rotating) {
		err = rc_rotor__name(r->path, wall_ns, r->seq + 1, next, sizeof(next));
		err = err
			  ?: snprintf(ended, sizeof(ended), "%s", r->cur) >= (int)sizeof(ended)
			     ? -ENAMETOOLONG
			     : 0;
	} else {
		err = set_aside(r, ended, sizeof(ended));
		if (!err && snprintf(next, sizeof(next), "%s", r->path) >= (int)sizeof(next))
			err = -ENAMETOOLONG;
	}
	if (err)
		return err;
	fd = create(next, !r->rotating);
	if (fd < 0)
		return fd;
	r->files[r->nfiles].name = strdup(ended);
	if (!r->files[r->nfiles].name) {
		close(fd);
		return -ENOMEM;
	}
	r->files[r->nfiles++].bytes = bytes;
	if (r->own_fd)
		close(r->fd);
	r->fd = fd;
	r->own_fd = true;
	r->seq++;
	r->cur_wall_ns = wall_ns;
	snprintf(r->cur, sizeof(r->cur), "%s", next);
	err = note_inode(r);
	if (err)
		return err;
	pr_info("switched to '%s' (file %u; '%s' is complete)\n", r->cur, r->seq, ended);
	if (r->file_cb)
		r->file_cb(r->file_ctx, RC_FILE_ENDED, ended, NULL);
	rc_rotor__prune(r, 0);
	return 0;
}

void rc_rotor__abandon(struct rc_rotor *r, const char *ended)
{
	if (unlink(r->cur) && errno != ENOENT)
		pr_warn("failed to delete '%s': %s\n", r->cur, strerror(errno));
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->own_fd = false;
	if (r->nfiles && !strcmp(r->files[r->nfiles - 1].name, ended))
		free(r->files[--r->nfiles].name);
	snprintf(r->cur, sizeof(r->cur), "%s", ended);
	r->seq--;
}

bool rc_rotor__drop_oldest(struct rc_rotor *r, const char *why)
{
	struct rc_rfile f;

	if (!r->nfiles)
		return false;
	f = r->files[0];
	memmove(r->files, r->files + 1, (r->nfiles - 1) * sizeof(*r->files));
	r->nfiles--;
	if (unlink(f.name) && errno != ENOENT)
		pr_warn("failed to delete '%s': %s\n", f.name, strerror(errno));
	else
		pr_info("deleted '%s', the oldest file of this run (%s)\n", f.name, why);
	if (r->file_cb)
		r->file_cb(r->file_ctx, RC_FILE_DELETED, f.name, why);
	r->deleted++;
	free(f.name);
	return true;
}

void rc_rotor__prune(struct rc_rotor *r, uint64_t cur_bytes)
{
	uint64_t total = cur_bytes;
	size_t i;

	while (r->max_files && r->nfiles + 1 > r->max_files &&
	       rc_rotor__drop_oldest(r, "--switch-max-files"))
		;
	for (i = 0; i < r->nfiles; i++)
		total += r->files[i].bytes;
	while (r->max_size && total > r->max_size && r->nfiles) {
		total -= r->files[0].bytes;
		rc_rotor__drop_oldest(r, "--max-size");
	}
}

int rc_rotor__free_bytes(struct rc_rotor *r, uint64_t *avail, char *fs, size_t fslen)
{
	char dir[PATH_MAX], up[PATH_MAX];
	struct statvfs vfs;
	struct stat st;

	if (fstatvfs(r->fd, &vfs))
		return -errno;
	*avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (!fs || !fslen)
		return 0;
	/* the mount point: up from the file's directory while the device is the file's */
	snprintf(fs, fslen, "the file system of '%s'", r->cur);
	if (snprintf(dir, sizeof(dir), "%s", r->cur) >= (int)sizeof(dir) ||
	    !realpath(dirname(dir), up))
		return 0;
	snprintf(dir, sizeof(dir), "%s", up);
	while (strcmp(dir, "/")) {
		char *slash;

		snprintf(up, sizeof(up), "%s", dir);
		slash = strrchr(up, '/');
		if (!slash)
			break;
		if (slash == up)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(up, &st) || st.st_dev != r->dev)
			break;
		snprintf(dir, sizeof(dir), "%s", up);
	}
	snprintf(fs, fslen, "%s", dir);
	return 0;
}

void rc_rotor__free(struct rc_rotor *r)
{
	size_t i;

	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	r->own_fd = false;
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i].name);
	free(r->files);
	r->files = NULL;
	r->nfiles = 0;
}
