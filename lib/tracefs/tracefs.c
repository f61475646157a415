// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracefs itself: where it is mounted, an event's format file read and
 * parsed (tpformat.c), and the tracepoints a glob names.
 */
#include <ctype.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format/format.h"
#include "util/util.h"
#include "tracefs/tpformat.h"
#include "util/mem.h"
#include "util/sysfs.h"

/* The longest field line taken: a 255-byte name and a long type fit. */
/* ---- tracefs ---------------------------------------------------------- */

#define TRACEFS_DEFAULT "/sys/kernel/tracing"

static pthread_mutex_t tracefs_lock = PTHREAD_MUTEX_INITIALIZER;
static char tracefs_path[PATH_MAX];

static bool has_events(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/events", dir) >= (int)sizeof(path))
		return false;
	return !access(path, F_OK);
}

/* A tracefs in /proc/mounts, else debugfs's tracing/ directory; -ENOENT for neither. */
static int find_mounted(char *out, size_t len)
{
	char debugfs[PATH_MAX] = "";
	int err = -ENOENT;
	struct mntent *m;
	FILE *fp;

	fp = setmntent("/proc/mounts", "re");
	if (!fp)
		return -errno;
	while ((m = getmntent(fp))) {
		if (!strcmp(m->mnt_type, "tracefs") && has_events(m->mnt_dir) &&
		    strlen(m->mnt_dir) < len) {
			strcpy(out, m->mnt_dir);
			err = 0;
			break;
		}
		if (!debugfs[0] && !strcmp(m->mnt_type, "debugfs"))
			snprintf(debugfs, sizeof(debugfs), "%s/tracing", m->mnt_dir);
	}
	endmntent(fp);
	if (err && debugfs[0] && has_events(debugfs) && strlen(debugfs) < len) {
		strcpy(out, debugfs);
		err = 0;
	}
	return err;
}

const char *rc_tracefs(void)
{
	const char *ret = tracefs_path;
	int err = 0;

	pthread_mutex_lock(&tracefs_lock);
	if (tracefs_path[0])
		goto out;
	if (!find_mounted(tracefs_path, sizeof(tracefs_path)))
		goto found;
	if (mount("nodev", TRACEFS_DEFAULT, "tracefs", 0, NULL))
		err = -errno;
	if ((!err || err == -EBUSY) && has_events(TRACEFS_DEFAULT)) {
		strcpy(tracefs_path, TRACEFS_DEFAULT);
		pr_debug("mounted tracefs at %s\n", TRACEFS_DEFAULT);
		goto found;
	}
	pr_warn("tracefs is not mounted, and mounting it failed: %s; mount it with "
		"'mount -t tracefs nodev " TRACEFS_DEFAULT "'\n",
		strerror(err ? -err : ENOENT));
	tracefs_path[0] = '\0';
	ret = rc_err_ptr(err ?: -ENOENT);
	goto out;
found:
	pr_debug("tracefs at %s\n", tracefs_path);
out:
	pthread_mutex_unlock(&tracefs_lock);
	return ret;
}

const char *rc_tracefs__mounted(void)
{
	const char *ret = tracefs_path;

	pthread_mutex_lock(&tracefs_lock);
	if (!tracefs_path[0] && find_mounted(tracefs_path, sizeof(tracefs_path))) {
		tracefs_path[0] = '\0';
		ret = NULL;
	}
	pthread_mutex_unlock(&tracefs_lock);
	return ret;
}

/* A name that is one path component. */
static bool plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..") &&
	       strlen(s) <= RC_MAX_NAME;
}

/* @dir/@a[/@b[/@c]] into @buf of PATH_MAX bytes. */
static int tracefs_path_of(char *buf, const char *a, const char *b, const char *c)
{
	const char *dir = rc_tracefs();
	int n;

	if (!dir) /* not -ENOENT: that says there is no such event */
		return errno == ENOENT ? -ENODEV : -errno;
	n = snprintf(buf, PATH_MAX, "%s/events/%s%s%s%s%s", dir, a, b ? "/" : "", b ?: "",
		     c ? "/" : "", c ?: "");
	return n < PATH_MAX ? 0 : -ENAMETOOLONG;
}

int rc_tracefs__read_format(const char *system, const char *name, char **text)
{
	char path[PATH_MAX];
	int fd, err;

	*text = NULL;
	if (!plain_name(system) || !plain_name(name))
		return -EINVAL;
	err = tracefs_path_of(path, system, name, "format");
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err != -ENOENT)
			pr_warn("failed to open '%s': %s\n", path, strerror(-err));
		return err;
	}
	/* tracefs files say they are empty: read to the end */
	err = rc_sysfs__read_fd(fd, RC_TP_MAX_TEXT, text, NULL);
	if (err == -E2BIG)
		pr_warn("'%s' is longer than %u bytes\n", path, RC_TP_MAX_TEXT);
	else if (err)
		pr_warn("failed to read '%s': %s\n", path, strerror(-err));
	close(fd);
	return err;
}

int rc_tpformat__load(struct rc_tpformat *f, const char *system, const char *name, uint16_t base,
		      char *err, size_t errlen)
{
	char msg[256], *text = NULL;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = rc_tracefs__read_format(system, name, &text);
	if (ret == -ENOENT)
		snprintf(msg, sizeof(msg), "no tracepoint %s:%s", system, name);
	else if (ret == -EINVAL)
		snprintf(msg, sizeof(msg), "'%s:%s' is not a tracepoint name", system, name);
	else if (ret)
		snprintf(msg, sizeof(msg), "failed to read the format of %s:%s: %s", system, name,
			 strerror(-ret));
	if (!ret) {
		char why[200];

		ret = rc_tpformat__parse(f, text, base, why, sizeof(why));
		if (ret)
			snprintf(msg, sizeof(msg), "bad format of %s:%s: %s", system, name, why);
	}
	if (!ret && strcmp(f->name, name)) {
		snprintf(msg, sizeof(msg), "the format of %s:%s names event '%s'", system, name,
			 f->name);
		ret = -EINVAL;
	}
	if (!ret) {
		f->system = strdup(system);
		if (!f->system) {
			snprintf(msg, sizeof(msg), "out of memory");
			ret = -ENOMEM;
		}
	}
	free(text);
	if (!ret)
		return 0;
	rc_tpformat__free(f);
	pr_warn("%s\n", msg);
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
	return ret;
}

/* ---- globbing --------------------------------------------------------- */

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The subdirectories of @path, sorted; -errno. */
static int list_dirs(const char *path, struct dirent ***out)
{
	struct dirent **ents;
	int n, i, k = 0;

	n = scandir(path, &ents, NULL, by_name);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		struct dirent *de = ents[i];
		bool dir = de->d_type == DT_DIR;

		if (de->d_type == DT_UNKNOWN) {
			char p[PATH_MAX];
			struct stat st;

			dir = snprintf(p, sizeof(p), "%s/%s", path, de->d_name) < (int)sizeof(p) &&
			      !stat(p, &st) && S_ISDIR(st.st_mode);
		}
		if (!dir || !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) {
			free(de);
			continue;
		}
		ents[k++] = de;
	}
	*out = ents;
	return k;
}

static void free_dirs(struct dirent **ents, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

/* An event one can attach to: it can be enabled and has a format. */
static bool is_tracepoint(const char *events, const char *sys, const char *name)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s/%s/enable", events, sys, name) >= (int)sizeof(p) ||
	    access(p, F_OK))
		return false;
	return snprintf(p, sizeof(p), "%s/%s/%s/format", events, sys, name) < (int)sizeof(p) &&
	       !access(p, F_OK);
}

int rc_tracefs__glob(const char *pattern,
		     int (*fn)(const char *system, const char *name, void *ctx), void *ctx)
{
	struct dirent **systems = NULL, **names;
	char sys_pat[RC_MAX_NAME + 1], events[PATH_MAX], path[PATH_MAX];
	const char *name_pat = "*", *colon = strchr(pattern, ':');
	int nsys, nnames, i, j, cnt = 0, err = 0;

	if (colon) {
		if (colon == pattern || !colon[1] || (size_t)(colon - pattern) > RC_MAX_NAME)
			return -EINVAL;
		memcpy(sys_pat, pattern, colon - pattern);
		sys_pat[colon - pattern] = '\0';
		name_pat = colon + 1;
	} else if (!*pattern || strlen(pattern) > RC_MAX_NAME) {
		return -EINVAL;
	}
	err = tracefs_path_of(events, "", NULL, NULL);
	if (err)
		return err;
	/* SYSTEM:NAME without a glob: the one event, when it is there, without listing them all */
	if (colon && !strpbrk(pattern, "*?[\\") && plain_name(sys_pat) && plain_name(name_pat) &&
	    is_tracepoint(events, sys_pat, name_pat)) {
		err = fn(sys_pat, name_pat, ctx);
		return err < 0 ? err : 1;
	}
	nsys = list_dirs(events, &systems);
	if (nsys < 0) {
		pr_warn("failed to list '%s': %s\n", events, strerror(-nsys));
		return nsys;
	}
	if (!colon) {
		/* a system's name (or a glob of them), else an event's in any system */
		strcpy(sys_pat, "*");
		name_pat = pattern;
		for (i = 0; i < nsys; i++) {
			if (!fnmatch(pattern, systems[i]->d_name, 0)) {
				strcpy(sys_pat, pattern);
				name_pat = "*";
				break;
			}
		}
	}
	for (i = 0; i < nsys && !err; i++) {
		if (fnmatch(sys_pat, systems[i]->d_name, 0))
			continue;
		if (snprintf(path, sizeof(path), "%s%s", events, systems[i]->d_name) >=
		    (int)sizeof(path))
			continue; /* no event of it could be opened */
		nnames = list_dirs(path, &names);
		if (nnames == -ENOENT) /* a system of dynamic events, gone */
			continue;
		if (nnames < 0) {
			pr_warn("failed to list '%s': %s\n", path, strerror(-nnames));
			err = nnames;
			break;
		}
		for (j = 0; j < nnames && !err; j++) {
			if (fnmatch(name_pat, names[j]->d_name, 0) ||
			    !is_tracepoint(events, systems[i]->d_name, names[j]->d_name))
				continue;
			cnt++;
			err = fn(systems[i]->d_name, names[j]->d_name, ctx);
			if (err > 0)
				err = 0;
		}
		free_dirs(names, nnames);
	}
	free_dirs(systems, nsys);
	return err ?: cnt;
}
