// SPDX-License-Identifier: GPL-2.0-only
/*
 * The schema of the built-in events, those the capture engine records. A
 * capture stores the schema it was written with, and report decodes from
 * that, so a file read elsewhere needs nothing from this table.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/types.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/session.h"
#include "capture/syscall_names.h"
#include "format/records.h"
#include "format/schema.h"
#include "format/schema_int.h"
#include "tracefs/tpformat.h"
#include "util/util.h"

enum {
	ENUM_SYSCALL = 1,
	ENUM_ERRNO = 2,
	ENUM_TASK_STATE = 3,
	ENUM_SNAP_REASON = 4,
	ENUM_AUX_KIND = 5
};
_Static_assert(RC_ENUM_SYSCALL_NARGS > ENUM_AUX_KIND, "the built-in enums' ids are distinct");

/* A field of struct @st named @nm in the schema. */
#define FN(st, fld, nm, knd, hnt, en)                                                              \
	{                                                                                          \
		.name = nm, .offset = offsetof(struct st, fld),                                    \
		.size = sizeof(((struct st *)0)->fld), .count = 1, .kind = RC_FIELD_##knd,         \
		.hint = RC_HINT_##hnt, .enum_id = en                                               \
	}
#define F(st, fld, knd, hnt, en) FN(st, fld, #fld, knd, hnt, en)
#define STR(st, fld, nm)                                                                           \
	{                                                                                          \
		.name = nm, .offset = offsetof(struct st, fld),                                    \
		.size = sizeof(((struct st *)0)->fld), .count = 1, .kind = RC_FIELD_STR            \
	}

static const struct rc_field syscall_fields[] = {
	F(rc_ev_syscall, nr, UINT, ENUM, ENUM_SYSCALL),
	F(rc_ev_syscall, ret, SINT, ERRNO, ENUM_ERRNO),
	F(rc_ev_syscall, duration, UINT, NSEC, 0),
	{ .name = "args",
	  .offset = offsetof(struct rc_ev_syscall, args),
	  .size = sizeof(__u64),
	  .count = RC_SYSCALL_NARGS,
	  .kind = RC_FIELD_UINT,
	  .hint = RC_HINT_HEX },
};

static const struct rc_field switch_fields[] = {
	F(rc_ev_switch, prev_state, UINT, ENUM, ENUM_TASK_STATE),
	F(rc_ev_switch, prev_prio, SINT, NONE, 0),
	STR(rc_ev_switch, next_comm, "next_comm"),
	F(rc_ev_switch, next_pid, UINT, NONE, 0),
	F(rc_ev_switch, next_tid, UINT, NONE, 0),
	F(rc_ev_switch, next_prio, SINT, NONE, 0),
};

static const struct rc_field wakeup_fields[] = {
	/* named apart from the record header's comm, pid and tid */
	STR(rc_ev_wakeup, wakee_comm, "wakee_comm"),
	FN(rc_ev_wakeup, pid, "wakee_pid", UINT, NONE, 0),
	FN(rc_ev_wakeup, tid, "wakee_tid", UINT, NONE, 0),
	F(rc_ev_wakeup, prio, SINT, NONE, 0),
	F(rc_ev_wakeup, target_cpu, UINT, NONE, 0),
};

static const struct rc_field fork_fields[] = {
	STR(rc_ev_fork, child_comm, "child_comm"),
	F(rc_ev_fork, child_pid, UINT, NONE, 0),
	F(rc_ev_fork, child_tid, UINT, NONE, 0),
};

static const struct rc_field exec_fields[] = {
	STR(rc_ev_exec, filename, "filename"),
	F(rc_ev_exec, old_tid, UINT, NONE, 0),
};

static const struct rc_field exit_fields[] = {
	F(rc_ev_exit, exit_code, SINT, NONE, 0),
	F(rc_ev_exit, group_dead, UINT, NONE, 0),
};

static const struct rc_field sample_fields[] = {
	F(rc_ev_sample, ip, UINT, HEX, 0),
	F(rc_ev_sample, period, UINT, NONE, 0),
	F(rc_ev_sample, stack_id, UINT, NONE, 0),
};

static const struct rc_field offcpu_fields[] = {
	F(rc_ev_offcpu, blocked, UINT, NSEC, 0),
	F(rc_ev_offcpu, start, UINT, NONE, 0),
	F(rc_ev_offcpu, stack_id, UINT, NONE, 0),
};

static const struct rc_field stack_fields[] = {
	F(rc_ev_stack, event, UINT, NONE, 0),
	F(rc_ev_stack, stack_id, UINT, NONE, 0),
};

static const struct rc_field lost_fields[] = {
	F(rc_rec_lost, lost, UINT, NONE, 0),
	F(rc_rec_lost, flags, UINT, NONE, 0),
};

static const struct rc_field aux_fields[] = {
	F(rc_rec_aux, kind, UINT, ENUM, ENUM_AUX_KIND),
	F(rc_rec_aux, offset, UINT, NONE, 0),
	F(rc_rec_aux, size, UINT, NONE, 0),
	F(rc_rec_aux, flags, UINT, HEX, 0),
	F(rc_rec_aux, value, UINT, NONE, 0),
};

static const struct rc_field snapshot_fields[] = {
	F(rc_rec_snapshot, seq, UINT, NONE, 0),
	F(rc_rec_snapshot, reason, UINT, ENUM, ENUM_SNAP_REASON),
	F(rc_rec_snapshot, nrec, UINT, NONE, 0),
	F(rc_rec_snapshot, last_ts, UINT, NONE, 0),
	F(rc_rec_snapshot, taken_ts, UINT, NONE, 0),
};

#define EV(ident, nm, st, flds)                                                                    \
	{                                                                                          \
		.id = ident, .size = sizeof(struct st), .name = nm, .nfields = ARRAY_SIZE(flds),   \
		.fields = flds                                                                     \
	}

static const struct rc_event_desc builtin_events[] = {
	EV(RC_EV_SYSCALL, "syscall", rc_ev_syscall, syscall_fields),
	EV(RC_EV_SCHED_SWITCH, "sched:sched_switch", rc_ev_switch, switch_fields),
	EV(RC_EV_SCHED_WAKEUP, "sched:sched_wakeup", rc_ev_wakeup, wakeup_fields),
	EV(RC_EV_SCHED_FORK, "sched:sched_process_fork", rc_ev_fork, fork_fields),
	EV(RC_EV_SCHED_EXEC, "sched:sched_process_exec", rc_ev_exec, exec_fields),
	EV(RC_EV_SCHED_EXIT, "sched:sched_process_exit", rc_ev_exit, exit_fields),
	EV(RC_EV_SAMPLE, "sample", rc_ev_sample, sample_fields),
	EV(RC_EV_OFFCPU, "offcpu", rc_ev_offcpu, offcpu_fields),
	EV(RC_EV_STACK, "stack", rc_ev_stack, stack_fields),
	EV(RC_REC_LOST, "ringcap:lost", rc_rec_lost, lost_fields),
	EV(RC_REC_SNAPSHOT, "ringcap:snapshot", rc_rec_snapshot, snapshot_fields),
	EV(RC_REC_AUX, "ringcap:aux", rc_rec_aux, aux_fields),
};

static const struct rc_enum_entry snap_reasons[] = {
	{ RC_SNAP_SIGNAL, "signal" },
	{ RC_SNAP_EXIT, "exit" },
	{ RC_SNAP_EVENT, "event" },
};

/* rc_rec_aux.kind: the data ring's PERF_RECORD_* types */
static const struct rc_enum_entry aux_kinds[] = {
	{ 2, "lost" },
	{ 11, "aux" },
	{ 12, "itrace_start" },
	{ 21, "aux_output_hw_id" },
};

static const struct rc_enum_entry task_states[] = {
	{ 0x0, "R" },  { 0x1, "S" },  { 0x2, "D" },  { 0x4, "T" },  { 0x8, "t" },
	{ 0x10, "X" }, { 0x20, "Z" }, { 0x40, "P" }, { 0x80, "I" }, { RC_TASK_PREEMPTED, "R+" },
};

#define RC_ERRNO_MAX 133

static struct rc_enum_entry syscall_entries[1024];
static struct rc_enum_entry errno_entries[RC_ERRNO_MAX];
static char errno_names[RC_ERRNO_MAX][24];
static struct rc_enum builtin_enums[5];
static struct rc_schema builtin_schema;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void build_schema(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < rc_syscall_names_cnt && n < ARRAY_SIZE(syscall_entries); i++) {
		syscall_entries[n].value = rc_syscall_names[i].nr;
		syscall_entries[n].name = rc_syscall_names[i].name;
		n++;
	}
	builtin_enums[0] = (struct rc_enum){ ENUM_SYSCALL, "syscall", n, syscall_entries };

	n = 0;
	for (i = 1; i <= RC_ERRNO_MAX; i++) {
		const char *nm = strerrorname_np(i);

		if (!nm)
			continue;
		snprintf(errno_names[n], sizeof(errno_names[n]), "%s", nm);
		errno_entries[n].value = i;
		errno_entries[n].name = errno_names[n];
		n++;
	}
	builtin_enums[1] = (struct rc_enum){ ENUM_ERRNO, "errno", n, errno_entries };
	builtin_enums[2] =
	    (struct rc_enum){ ENUM_TASK_STATE, "task_state", ARRAY_SIZE(task_states), task_states };
	builtin_enums[3] = (struct rc_enum){ ENUM_SNAP_REASON, "snapshot_reason",
					     ARRAY_SIZE(snap_reasons), snap_reasons };
	builtin_enums[4] =
	    (struct rc_enum){ ENUM_AUX_KIND, "aux_kind", ARRAY_SIZE(aux_kinds), aux_kinds };

	builtin_schema.nevents = ARRAY_SIZE(builtin_events);
	builtin_schema.events = builtin_events;
	builtin_schema.nenums = ARRAY_SIZE(builtin_enums);
	builtin_schema.enums = builtin_enums;
}

const struct rc_schema *rc_builtin_schema(void)
{
	pthread_once(&builtin_once, build_schema);
	return &builtin_schema;
}

/* the "syscall_nargs" enum's names: a count of arguments */
static const char *const nargs_names[RC_SYSCALL_NARGS + 1] = { "0", "1", "2", "3",
								"4", "5", "6" };

/*
 * The format of syscall @name's entry event under @tracefs into @buf (@len
 * bytes, NUL-terminated, cut at @len - 1); false when it has none
 */
static bool read_sc_format(const char *tracefs, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	size_t got = 0;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format", tracefs,
		     name) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* tracefs files say they are empty: read to the end, or as much as @buf holds */
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return true;
}

/*
 * The kernel's names of the syscalls whose entry events are named apart
 * from their <sys/syscall.h> names (x86-64 and arm64): sys_enter_NAME,
 * else sys_enter_newNAME (stat, fstat, lstat, uname), else these
 */
static const char *const sc_aliases[][2] = {
	{ "sendfile", "sendfile64" },
	{ "umount2", "umount" },
};

/*
 * How many arguments syscall @name takes: rc_tpformat__syscall_nargs() of
 * its entry event's format under @tracefs; -1 when it has none, or its
 * format cannot be read
 */
static int syscall_nargs(const char *tracefs, const char *name)
{
	char buf[4096], alias[64];
	size_t i;

	if (read_sc_format(tracefs, name, buf, sizeof(buf)))
		return rc_tpformat__syscall_nargs(buf);
	if (snprintf(alias, sizeof(alias), "new%s", name) < (int)sizeof(alias) &&
	    read_sc_format(tracefs, alias, buf, sizeof(buf)))
		return rc_tpformat__syscall_nargs(buf);
	for (i = 0; i < sizeof(sc_aliases) / sizeof(sc_aliases[0]); i++)
		if (!strcmp(name, sc_aliases[i][0]) &&
		    read_sc_format(tracefs, sc_aliases[i][1], buf, sizeof(buf)))
			return rc_tpformat__syscall_nargs(buf);
	return -1;
}

int rc_builtin__add_syscall_nargs(struct rc_schema *s)
{
	struct rc_enum_entry *entries;
	const char *tracefs = rc_tracefs__mounted();
	unsigned int i, n = 0;
	int err = 0;

	if (!tracefs)
		return 0; /* no tracefs mounted: every record shows its six registers */
	entries = calloc(rc_syscall_names_cnt ?: 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	/* sorted by number, as the table is; a number's first name that has a tracepoint */
	for (i = 0; i < rc_syscall_names_cnt; i++) {
		int k;

		if (n && entries[n - 1].value == rc_syscall_names[i].nr)
			continue;
		k = syscall_nargs(tracefs, rc_syscall_names[i].name);
		if (k < 0)
			continue;
		entries[n].value = rc_syscall_names[i].nr;
		entries[n].name = nargs_names[k];
		n++;
	}
	if (n)
		err = rc_schema__add_enum(s, &(struct rc_enum){ RC_ENUM_SYSCALL_NARGS,
								 "syscall_nargs", n, entries });
	free(entries);
	return err == -EEXIST ? 0 : err;
}
