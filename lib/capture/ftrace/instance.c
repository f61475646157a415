// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ftrace backend's tracefs instance, instances/ringcap-PID (made,
 * written and removed by tracefs/instance.c, which also removes those an
 * earlier ringcap left when killed): how its rings are read, the events
 * described, and the instance configured (buffer size, clock, overwrite,
 * pid and comm filters, event enables). Nothing outside it is written.
 */
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
#include "util/sysfs.h"
#include "util/util.h"

/*
 * How the rings are read, before touching tracefs: spliced from
 * trace_pipe_raw, unless --ftrace-read=mmap maps them, which is refused in
 * one line where the kernel cannot (6.10: the feature probe's
 * ftrace_mmap, as record --check says).
 *
 * Splice by default on every kernel: mapped, each sub-buffer is handed
 * over by an ioctl that marks it read by stepping through its events, with
 * the reader lock held and interrupts off; splice hands over whole pages.
 * On make bench's storms of getppid() (SUITES=lead RT=1, one run), mapped
 * slowed the workload 3.21x on one CPU and 4.66x on two, spliced 2.34x
 * and 2.58x (README, "--transport auto").
 */
int rc_ftrace__choose_reader(struct rc_ftrace *f)
{
	struct rc_features feat = {};
	bool maps;

	if (uname(&f->c.uts))
		return -errno;
	if (!rc_tracefs()) /* mounted now if it was not, before the probe looks */
		return -errno;
	rc_features__probe_ftrace(&feat);
	maps = feat.ftrace_mmap;
	switch (f->c.opts.ftrace_read) {
	case RC_FTRACE_READ_AUTO:
		f->read_mode = RC_FTRACE_READ_SPLICE;
		break;
	case RC_FTRACE_READ_MMAP:
		if (!maps) {
			pr_warn("--ftrace-read=mmap maps the kernel's ftrace ring buffer, which "
				"needs Linux 6.10 or later; this is %s: use --ftrace-read=splice "
				"(the default)\n",
				f->c.uts.release);
			return -EOPNOTSUPP;
		}
		f->read_mode = RC_FTRACE_READ_MMAP;
		break;
	case RC_FTRACE_READ_SPLICE:
		f->read_mode = RC_FTRACE_READ_SPLICE;
		break;
	default:
		return -EINVAL;
	}
	f->rd =
	    f->read_mode == RC_FTRACE_READ_MMAP ? &rc_ftrace_mmap_reader : &rc_ftrace_splice_reader;
	pr_info("ftrace: each CPU's ring read by %s\n", f->rd->name);
	return 0;
}

/* The sub-buffer layout this file reads: the 64-bit one. */
static int check_header_page(const char *text)
{
	if (strstr(text, "local_t commit;\toffset:8;\tsize:8;") &&
	    strstr(text, "u64 timestamp;\toffset:0;\tsize:8;") &&
	    strstr(text, "char data;\toffset:16;"))
		return 0;
	pr_warn("this kernel's ring-buffer sub-buffer layout (events/header_page) is not the "
		"64-bit one ringcap reads: use --transport ringbuf\n");
	return -EOPNOTSUPP;
}

/* Store events/header_page and header_event, the layout of what the file holds. */
static int note_headers(struct rc_ftrace *f)
{
	static const char *const keys[] = { "header_page", "header_event" };
	const char *tfs = rc_tracefs();
	char path[PATH_MAX];
	size_t i;
	int err;

	if (!tfs)
		return -errno;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		char *text = NULL;

		snprintf(path, sizeof(path), "%s/events/%s", tfs, keys[i]);
		err = rc_sysfs__read(path, SIZE_MAX, &text, NULL);
		if (err) {
			pr_warn("cannot read %s: %s\n", path, strerror(-err));
			return err;
		}
		err = i == 0 ? check_header_page(text) : 0;
		err = err ?: rc_dyn__note(&f->c.dset, 0, keys[i], text, strlen(text));
		free(text);
		if (err)
			return err;
	}
	return 0;
}

int rc_ftrace__describe_events(struct rc_ftrace *f)
{
	size_t i;
	int err;

	for (i = 0; i < f->c.opts.ntracepoints; i++) {
		err = rc_dyn__add_tracepoints(&f->c.dset, f->c.opts.tracepoints[i]);
		if (err)
			return err;
	}
	if (!f->c.dset.n) {
		pr_warn("--transport ftrace records tracepoints: give them with -e, like -e "
			"'sched:sched_switch' or -e 'syscalls:sys_enter_*'\n");
		return -EINVAL;
	}
	for (i = 0; i < f->c.dset.n; i++) {
		const struct rc_dyn_event *e = &f->c.dset.ev[i];
		uint32_t id = e->tp.id;

		err = rc_dyn__note(&f->c.dset, e->id, "ftrace_id", &id, sizeof(id));
		if (err)
			return err;
	}
	f->c.schema = rc_schema__new(rc_builtin_schema());
	if (!f->c.schema)
		return -errno;
	err = rc_dyn__describe(&f->c.dset, f->c.schema);
	return err ?: note_headers(f);
}

/* The comm filter: the generic COMM field, which events' own "comm" fields do not shadow. */
static int set_filters(struct rc_ftrace *f)
{
	char file[600], filter[64];
	size_t i;
	int err;

	if (!f->c.opts.comm)
		return 0;
	if (strpbrk(f->c.opts.comm, "\"\\")) {
		pr_warn("--comm '%s': a command name with a quote or backslash cannot be filtered "
			"by ftrace\n",
			f->c.opts.comm);
		return -EINVAL;
	}
	snprintf(filter, sizeof(filter), "COMM == \"%s\"", f->c.opts.comm);
	for (i = 0; i < f->c.dset.n; i++) {
		const struct rc_tpformat *tp = &f->c.dset.ev[i].tp;

		snprintf(file, sizeof(file), "events/%s/%s/filter", tp->system, tp->name);
		err = rc_tracefs_instance__write(&f->inst, file, filter, false);
		if (err)
			return err;
	}
	return 0;
}

static int enable_events(struct rc_ftrace *f, const char *val)
{
	char file[600];
	size_t i;
	int err;

	for (i = 0; i < f->c.dset.n; i++) {
		const struct rc_tpformat *tp = &f->c.dset.ev[i].tp;

		snprintf(file, sizeof(file), "events/%s/%s/enable", tp->system, tp->name);
		err = rc_tracefs_instance__write(&f->inst, file, val, false);
		if (err)
			return err;
	}
	return 0;
}

int rc_ftrace__configure(struct rc_ftrace *f)
{
	char v[64];
	int err;

	err = rc_tracefs_instance__write(&f->inst, "tracing_on", "0", false);
	snprintf(v, sizeof(v), "%zu", f->buf_size >> 10);
	err = err ?: rc_tracefs_instance__write(&f->inst, "buffer_size_kb", v, false);
	/* the capture clock, CLOCK_BOOTTIME, as the BPF transports' bpf_ktime_get_boot_ns() */
	err = err ?: rc_tracefs_instance__write(&f->inst, "trace_clock", "boot", false);
	err = err ?: rc_tracefs_instance__write(&f->inst, "options/overwrite", "1", false);
	snprintf(v, sizeof(v), "%d", WAKE_PERCENT);
	err = err ?: rc_tracefs_instance__write(&f->inst, "buffer_percent", v, false);
	err = err
		  ?: rc_tracefs_instance__write(
			 &f->inst, "options/event-fork",
			 f->c.opts.follow_forks || f->c.opts.npids ? "1" : "0", false);
	if (!err && !f->c.opts.npids && !f->c.opts.follow_forks) {
		/* system-wide: not the recorder's own events, which would feed themselves */
		snprintf(v, sizeof(v), "%d", (int)getpid());
		err = rc_tracefs_instance__write(&f->inst, "set_event_notrace_pid", v, false);
	}
	err = err ?: set_filters(f);
	return err ?: enable_events(f, "1");
}
