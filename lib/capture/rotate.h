/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The files of one run of `ringcap record` (issue 22): their names, their
 * opening at each switch, the newest N or the newest SIZE bytes kept, and
 * the free space left on their file system. Used by the thread that
 * writes (the BPF backends' writer thread, the ftrace backend's drain),
 * and by it only.
 *
 * Names: rotating (--switch-output), -o NAME is a prefix and each file is
 * NAME.YYYYmmddTHHMMSS.mmmZ.SEQ, the UTC time of its start and its seq
 * zero-padded to 6 digits: they sort in time. Without rotation, the file
 * is NAME; a switch (SIGHUP) ends it, renames it to the rotation name when
 * NAME still names it, and starts NAME afresh.
 */
#ifndef RINGCAP_CAPTURE_ROTATE_H
#define RINGCAP_CAPTURE_ROTATE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "capture/session.h"

struct rc_rfile {
	char *name;
	uint64_t bytes;
};

/**
 * struct rc_rotor - the files of a run
 * @path: -o: the prefix (@rotating) or the file
 * @rotating: each file under its rotation name
 * @max_files: keep at most this many (0: all)
 * @max_size: keep at most this many bytes in all (0: no cap)
 * @seq: the current file's seq (1 for the first)
 * @fd: the current file's descriptor
 * @own_fd: opened here, and closed here
 * @cur: the current file's name
 * @cur_wall_ns: its start, CLOCK_REALTIME
 * @dev: its device, @ino its inode: whether @path still names it
 * @files: the run's ended files still on disk, oldest first
 * @nfiles: their count
 * @deleted: files deleted so far
 * @first: the name of the first file still on disk at the end
 * @file_cb: told of each file ended and each deleted (NULL: none), with
 *	@file_ctx
 */
struct rc_rotor {
	const char *path;
	bool rotating;
	uint32_t max_files;
	uint64_t max_size;
	uint32_t seq;
	int fd;
	bool own_fd;
	char cur[PATH_MAX];
	uint64_t cur_wall_ns;
	dev_t dev;
	ino_t ino;
	struct rc_rfile *files;
	size_t nfiles, files_cap;
	uint64_t deleted;
	rc_file_cb file_cb;
	void *file_ctx;
};

/**
 * rc_rotor__name() - a file's rotation name
 * @prefix: -o
 * @wall_ns: its start, CLOCK_REALTIME
 * @seq: its seq
 * @out: the name
 * @len: room at @out
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int rc_rotor__name(const char *prefix, uint64_t wall_ns, uint32_t seq, char *out, size_t len);

/**
 * rc_rotor__start() - the first file
 * @r: zeroed, @path, @rotating, @max_files and @max_size set
 * @fd: the caller's file, without rotation (kept open: the caller's); < 0
 *	when rotating: created here
 * @wall_ns: the file's start, CLOCK_REALTIME
 *
 * Return: 0, or -errno of creating the file (said).
 */
int rc_rotor__start(struct rc_rotor *r, int fd, uint64_t wall_ns);

/**
 * rc_rotor__next() - end the current file, and open the next
 * @r: started
 * @bytes: the current file's size
 * @wall_ns: the next file's start, CLOCK_REALTIME
 *
 * The current file is closed when opened here; without rotation it is
 * renamed to its rotation name first when @r->path still names it. Then
 * the oldest files past the caps are deleted (rc_rotor__prune()).
 *
 * Return: 0, or -errno of creating the next file (said); the current
 * file is then still @r->fd.
 */
int rc_rotor__next(struct rc_rotor *r, uint64_t bytes, uint64_t wall_ns);

/**
 * rc_rotor__abandon() - undo rc_rotor__next(): its file could not be begun
 * @r: started, just after a successful rc_rotor__next()
 * @ended: the name of the file that ended there, complete
 *
 * The new file is closed and deleted; @r->cur names @ended again, the last
 * file of the run, and @r->seq is its number. No file is open after.
 */
void rc_rotor__abandon(struct rc_rotor *r, const char *ended);

/**
 * rc_rotor__prune() - delete the oldest ended files past the caps
 * @r: started
 * @cur_bytes: the current file's size, counted against @r->max_size
 */
void rc_rotor__prune(struct rc_rotor *r, uint64_t cur_bytes);

/**
 * rc_rotor__drop_oldest() - delete the oldest ended file, for space
 * @r: started
 * @why: the cap deleting it, for messages ("--min-free")
 *
 * Return: true when one was deleted; false when none is left.
 */
bool rc_rotor__drop_oldest(struct rc_rotor *r, const char *why);

/**
 * rc_rotor__free_bytes() - the space an unprivileged writer has left there
 * @r: started
 * @avail: set to it, in bytes
 * @fs: set to where the file system is mounted, as far as the file's
 *	directory tells (for messages), at most @fslen bytes
 * @fslen: room at @fs
 *
 * Return: 0, or -errno of fstatvfs().
 */
int rc_rotor__free_bytes(struct rc_rotor *r, uint64_t *avail, char *fs, size_t fslen);

/**
 * rc_rotor__free() - close what was opened here, free the list
 * @r: the rotor, or zeroed
 */
void rc_rotor__free(struct rc_rotor *r);

#endif /* RINGCAP_CAPTURE_ROTATE_H */
