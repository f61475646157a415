// SPDX-License-Identifier: GPL-2.0-only
/* A tracefs instance of ringcap's own: made, written, removed (instance.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracefs/instance.h"
#include "tracefs/tpformat.h"
#include "util/sysfs.h"
#include "util/util.h"

int rc_tracefs_instance__path(const struct rc_tracefs_instance *in, char *out, size_t len,
			      const char *file)
{
	if (snprintf(out, len, "%s/%s", in->path, file) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int rc_tracefs_instance__write(const struct rc_tracefs_instance *in, const char *file,
			       const char *val, bool append)
{
	char path[PATH_MAX];
	bool opened;
	int err;

	err = rc_tracefs_instance__path(in, path, sizeof(path), file);
	if (err)
		return err;
	err = rc_sysfs__write(path, val, append, &opened);
	if (err && !opened)
		pr_warn("cannot open %s: %s\n", path, strerror(-err));
	else if (err)
		pr_warn("cannot write '%s' to %s: %s\n", val, path, strerror(-err));
	return err;
}

static bool pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno != ESRCH;
}

static int instances_dir(char *out, size_t len)
{
	const char *tfs = rc_tracefs();

	if (!tfs)
		return -errno;
	if (snprintf(out, len, "%s/instances", tfs) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int rc_tracefs__clean_instances(void)
{
	char dir[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (instances_dir(dir, sizeof(dir)))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, RC_TRACEFS_INSTANCE_NAME, strlen(RC_TRACEFS_INSTANCE_NAME)))
			continue;
		errno = 0;
		pid = strtol(de->d_name + strlen(RC_TRACEFS_INSTANCE_NAME), &end, 10);
		if (errno || *end || pid <= 0 || pid > INT_MAX || pid_alive(pid))
			continue;
		if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR)) {
			pr_warn("cannot remove %s/%s, left by ringcap process %ld, which is gone: "
				"%s\n",
				dir, de->d_name, pid, strerror(errno));
			continue;
		}
		pr_info("removed %s/%s, left by ringcap process %ld, which is gone\n", dir,
			de->d_name, pid);
		n++;
	}
	closedir(d);
	return n;
}

int rc_tracefs_instance__make(struct rc_tracefs_instance *in)
{
	char dir[PATH_MAX];
	int err = instances_dir(dir, sizeof(dir));

	if (err)
		return err;
	if (snprintf(in->path, sizeof(in->path), "%s/%s%d", dir, RC_TRACEFS_INSTANCE_NAME,
		     (int)getpid()) >= (int)sizeof(in->path))
		return -ENAMETOOLONG;
	err = mkdir(in->path, 0700) ? -errno : 0;
	if (err == -EEXIST) /* left by an earlier ringcap that had our pid */
		err = rmdir(in->path) || mkdir(in->path, 0700) ? -errno : 0;
	if (err) {
		pr_warn("cannot create the tracefs instance %s: %s%s\n", in->path, strerror(-err),
			err == -EACCES || err == -EPERM ? " (recording needs root)" : "");
		return err;
	}
	in->made = true;
	return 0;
}

void rc_tracefs_instance__remove(struct rc_tracefs_instance *in)
{
	if (!in->made)
		return;
	if (rmdir(in->path))
		pr_warn("cannot remove the tracefs instance %s: %s (remove it with rmdir)\n",
			in->path, strerror(errno));
	in->made = false;
}
