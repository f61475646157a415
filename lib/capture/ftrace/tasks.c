// SPDX-License-Identifier: GPL-2.0-only
/* The ftrace backend's tasks: a tid's process and name, for the chunks' task tables. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "capture/ftrace/ft.h"
#include "util/mem.h"
#include "util/sysfs.h"

/* ---- tasks ------------------------------------------------------------- */

/* A thread's process and name, from /proc while it lives. */
static bool proc_task(uint32_t tid, struct rc_disk_task *t)
{
	char path[64], *text = NULL, *p;

	t->tid = tid;
	t->tgid = tid;
	snprintf(t->comm, sizeof(t->comm), "<...>");
	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	if (rc_sysfs__read(path, SIZE_MAX, &text, NULL))
		return false;
	if ((p = strstr(text, "Name:\t"))) {
		size_t n = strcspn(p + 6, "\n");

		memset(t->comm, 0, sizeof(t->comm));
		memcpy(t->comm, p + 6, n < sizeof(t->comm) - 1 ? n : sizeof(t->comm) - 1);
	}
	if ((p = strstr(text, "\nTgid:\t")))
		t->tgid = strtoul(p + 7, NULL, 10);
	free(text);
	return true;
}

/*
 * A thread gone before it was looked up: its name as ftrace saved it at a
 * context switch (saved_cmdlines, read only; re-read at most once a pass).
 */
static void saved_comm(struct rc_ftrace *f, uint32_t tid, struct rc_disk_task *t)
{
	const char *tfs = rc_tracefs();
	char path[PATH_MAX], pat[32], *p;
	size_t n;

	if (f->cmdlines_pass != f->passes || !f->cmdlines) {
		free(f->cmdlines);
		f->cmdlines = NULL;
		f->cmdlines_pass = f->passes;
		snprintf(path, sizeof(path), "%s/saved_cmdlines", tfs ? tfs : "");
		if (!tfs || rc_sysfs__read(path, SIZE_MAX, &f->cmdlines, NULL))
			return;
	}
	snprintf(pat, sizeof(pat), "\n%u ", tid);
	p = strstr(f->cmdlines, pat + 1) == f->cmdlines ? f->cmdlines : strstr(f->cmdlines, pat);
	if (!p)
		return;
	p = strchr(p + 1, ' ') + 1;
	n = strcspn(p, "\n");
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, p, n < sizeof(t->comm) - 1 ? n : sizeof(t->comm) - 1);
}

/* The encoder meets a thread first in a chunk: who it is, looked up once a capture. */
int rc_ftrace__task_lookup(void *ctx, uint32_t tid, struct rc_disk_task *t)
{
	struct rc_ftrace *f = ctx;
	struct rc_disk_task *s;
	bool added;
	uint64_t *i;
	int err;

	if (!tid) {
		*t = (struct rc_disk_task){ .tid = 0, .tgid = 0, .comm = "<idle>" };
		return 0;
	}
	err = rc_ensure_arr(&f->tasks, &f->tasks_cap, f->ntasks + 1, 1024);
	if (err)
		return err;
	i = rc_idmap__get(&f->task_ids, tid, &added);
	if (!i)
		return -ENOMEM;
	if (added)
		*i = f->ntasks++;
	s = &f->tasks[*i];
	/* looked up again each chunk (exec renames, pids are reused); kept once gone */
	if (proc_task(tid, t)) {
		*s = *t;
		return 0;
	}
	if (added) {
		saved_comm(f, tid, t);
		*s = *t;
	}
	*t = *s;
	return 0;
}
