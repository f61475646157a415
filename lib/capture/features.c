// SPDX-License-Identifier: GPL-2.0-only
/*
 * What this kernel can do, probed rather than guessed from its version:
 * map types and helpers by loading trivial objects (libbpf's probes), and
 * what the BPF programs attach to from the kernel's own BTF (the
 * btf_trace_* typedef of each BTF tracepoint, and its prototype). Record
 * uses the answers to choose program variants before loading, and to
 * refuse in one line what this kernel cannot do; record --check prints
 * them.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "util/sysfs.h"
#include "util/util.h"
#include "events.h"
#include "capture/backend.h"

#define RC_STR_(x) #x
#define RC_STR(x)  RC_STR_(x)

/* Quiet while probing: a probe that fails is an answer, not an error. */
static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static bool map_ok(enum bpf_map_type t)
{
	return libbpf_probe_bpf_map_type(t, NULL) == 1;
}

static bool helper_ok(enum bpf_prog_type p, enum bpf_func_id h)
{
	return libbpf_probe_bpf_helper(p, h, NULL) == 1;
}

/*
 * BPF atomic and/or (Linux 5.12; before, the one atomic was add): a
 * program that ors into its stack loads.
 */
static bool atomics_ok(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1,
		  .off = -8,
		  .imm = BPF_OR },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd =
	    bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns, ARRAY_SIZE(insns), NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Does the kernel's BTF name enumerator @name (of any enum)? */
static bool btf_has_enum_value(const struct btf *btf, const char *name)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		__u16 i;

		if (!btf_is_enum(t))
			continue;
		for (e = btf_enum(t), i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
				return true;
	}
	return false;
}

/*
 * The arguments a BTF tracepoint passes to a tp_btf program: the
 * parameters of btf_trace_@tp's prototype, less the first (void *__data).
 * -1 when the kernel has no such tracepoint.
 */
static int tp_btf_nargs(const struct btf *btf, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL; /* the pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -1;
	return btf_vlen(t) - 1;
}

static const char *const tp_btf_needed[] = {
	"sys_enter",	      "sys_exit",	    "sched_switch",	  "sched_wakeup",
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
};

static void probe_btf(struct rc_features *f)
{
	struct btf *btf = btf__load_vmlinux_btf();
	size_t i;

	if (!btf)
		return;
	f->btf = true;
	f->tp_btf = true;
	for (i = 0; i < ARRAY_SIZE(tp_btf_needed); i++) {
		if (tp_btf_nargs(btf, tp_btf_needed[i]) < 0) {
			f->tp_btf = false;
			snprintf(f->tp_btf_missing, sizeof(f->tp_btf_missing), "%s",
				 tp_btf_needed[i]);
			break;
		}
	}
	f->exit_group_dead = tp_btf_nargs(btf, "sched_process_exit") >= 2;
	/* (preempt, prev, next) before 5.18; prev_state after them since */
	f->switch_prev_state = tp_btf_nargs(btf, "sched_switch") >= 4;
	f->current_task_btf = btf_has_enum_value(btf, "BPF_FUNC_get_current_task_btf");
	btf__free(btf);
}

/*
 * How the kernel preempts: "rt" when uname -v says PREEMPT_RT (the kernel
 * writes its build's preemption model there; /sys/kernel/realtime is the
 * out-of-tree RT patches' and counts only when present), else the dynamic
 * mode debugfs shows in parentheses ("full", "voluntary", "none"), else
 * what uname -v says ("dynamic", "full"), else "".
 */
static void probe_preempt(struct rc_features *f)
{
	char buf[128], *lp, *rp, *text;
	struct utsname uts;
	int fd;

	if (uname(&uts))
		uts.version[0] = '\0';
	if (strstr(uts.version, "PREEMPT_RT")) {
		snprintf(f->preempt, sizeof(f->preempt), "rt");
		return;
	}
	if (rc_sysfs__read_line("/sys/kernel/realtime", buf, sizeof(buf)) > 0 && buf[0] == '1') {
		snprintf(f->preempt, sizeof(f->preempt), "rt");
		return;
	}
	/* a file opened is the answer, read or not: one that could not be opened is not */
	fd = open("/sys/kernel/debug/sched/preempt", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (!rc_sysfs__read_fd(fd, 4096, &text, NULL)) {
			text[strcspn(text, "\n")] = '\0'; /* its first line */
			if ((lp = strchr(text, '(')) && (rp = strchr(lp, ')'))) {
				*rp = '\0';
				snprintf(f->preempt, sizeof(f->preempt), "%s", lp + 1);
			}
			free(text);
		}
		close(fd);
		return;
	}
	snprintf(f->preempt, sizeof(f->preempt), "%s",
		 strstr(uts.version, "PREEMPT_DYNAMIC") ? "dynamic"
		 : strstr(uts.version, "PREEMPT ")	? "full"
							: "");
}

/* tracefs's ring-buffer mapping: Linux 6.10 (--transport ftrace). */
static bool ftrace_mappable(const char *release)
{
	unsigned int major = 0, minor = 0;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 10);
}

/*
 * RINGCAP_FEATURES_OFF=NAME[,NAME...]: features taken as missing whatever
 * the probe found, so that the variants older kernels get run on this
 * one too (the tests do). ringcap-record(1), ENVIRONMENT. An unknown name
 * is said, and ignored.
 */
static void mask_features(struct rc_features *f, bool say)
{
	static const struct {
		const char *name;
		size_t off;
	} names[] = {
#define FEATURE(n) { #n, offsetof(struct rc_features, n) }
		FEATURE(ringbuf),
		FEATURE(task_storage),
		FEATURE(current_task_btf),
		FEATURE(attach_cookie),
		FEATURE(atomics),
		FEATURE(task_pt_regs),
		FEATURE(ftrace_mmap),
		FEATURE(exit_group_dead),
#undef FEATURE
		{ "sched_switch_prev_state", offsetof(struct rc_features, switch_prev_state) },
	};
	const char *off = getenv("RINGCAP_FEATURES_OFF"), *p;
	size_t i, n, used;

	f->masked[0] = '\0';
	for (p = off; p && *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n && !strncmp(p, names[i].name, n))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			if (n && say)
				pr_warn("RINGCAP_FEATURES_OFF: no feature named '%.*s' (ignored)\n",
					(int)n, p);
			continue;
		}
		*(bool *)((char *)f + names[i].off) = false;
		used = strlen(f->masked);
		snprintf(f->masked + used, sizeof(f->masked) - used, "%s%s", used ? "," : "",
			 names[i].name);
	}
}

void rc_features__probe_ftrace(struct rc_features *f)
{
	struct utsname uts;

	if (!uname(&uts))
		snprintf(f->release, sizeof(f->release), "%s", uts.release);
	f->tracefs = !access("/sys/kernel/tracing/events", F_OK) ||
		     !access("/sys/kernel/debug/tracing/events", F_OK);
	f->tracefs_denied = !f->tracefs && errno == EACCES;
	f->ftrace_mmap = f->tracefs && ftrace_mappable(f->release);
	mask_features(f, true);
}

int rc_features__probe(struct rc_features *f)
{
	libbpf_print_fn_t old = libbpf_set_print(silent);
	int ret;

	memset(f, 0, sizeof(*f));
	rc_features__probe_ftrace(f);
	ret = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACEPOINT, NULL);
	f->bpf = ret == 1;
	if (!f->bpf) {
		/* refused for want of privileges (the probe says only "no"), or absent? */
		int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);

		if (fd >= 0)
			close(fd);
		f->bpf_denied = fd < 0 && (errno == EPERM || errno == EACCES);
	}
	if (f->bpf) {
		f->ringbuf = map_ok(BPF_MAP_TYPE_RINGBUF);
		f->perf_event_array = map_ok(BPF_MAP_TYPE_PERF_EVENT_ARRAY);
		f->task_storage = map_ok(BPF_MAP_TYPE_TASK_STORAGE);
		f->ktime_boot = helper_ok(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_ktime_get_boot_ns);
		f->attach_cookie = helper_ok(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_get_attach_cookie);
		f->atomics = atomics_ok();
		f->task_pt_regs = helper_ok(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs);
	}
	probe_btf(f); /* a file anyone may read: known without privileges too */
	f->uprobes = !access("/sys/bus/event_source/devices/uprobe/type", F_OK);
	probe_preempt(f);
	mask_features(f, false); /* again, over the BPF answers: said once, above */
	libbpf_set_print(old);
	return 0;
}

/*
 * What the built-in sources need, in the words of the refusal: NULL when
 * this kernel has it all, else the first missing feature.
 */
const char *rc_features__missing(const struct rc_features *f, enum rc_feature_need need)
{
	if (!f->bpf)
		/*
		 * transport auto never moves to ftrace on its own: the same
		 * names mean other events there (ringcap's syscalls pairs
		 * entry and exit; ftrace's are the kernel's two events)
		 */
		return "BPF (CONFIG_BPF_SYSCALL), or the privileges to use it (CAP_BPF and "
		       "CAP_PERFMON); --transport ftrace records the kernel's tracepoints "
		       "without BPF";
	if (!f->ktime_boot)
		return "the BPF helper bpf_ktime_get_boot_ns (Linux 5.8)";
	switch (need) {
	case RC_NEED_SYSCALLS:
	case RC_NEED_SCHED:
	case RC_NEED_FOLLOW:
		if (!f->btf)
			return "kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)";
		if (!f->tp_btf)
			return "BTF tracepoints (tp_btf, Linux 5.5)";
		/* the rest, the compat programs make up for (rc_features__compat()) */
		return NULL;
	case RC_NEED_OFFCPU:
		if (!f->btf)
			return "kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)";
		return f->tp_btf ? NULL : "BTF tracepoints (tp_btf, Linux 5.5)";
	case RC_NEED_PROFILE:
		/* the compat program reads the task with CO-RE */
		if (!f->current_task_btf && !f->btf)
			return "kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)";
		return NULL;
	case RC_NEED_TRACEPOINTS:
		return NULL;
	case RC_NEED_UPROBES:
		return f->uprobes ? NULL : "uprobes (CONFIG_UPROBE_EVENTS)";
	}
	return NULL;
}

const char *rc_features__variant(const struct rc_features *f, enum rc_feature_need need)
{
	switch (need) {
	case RC_NEED_TRACEPOINTS:
		if (!f->attach_cookie)
			return "no attach cookies: a BPF program per tracepoint, " RC_STR(
			    RC_SLOTS_TP) " at most; syscall events on the raw tracepoints";
		return NULL;
	case RC_NEED_UPROBES:
		if (!f->attach_cookie)
			return "no attach cookies: a BPF program per probe, " RC_STR(
			    RC_SLOTS_PROBE) " uprobes and " RC_STR(RC_SLOTS_PROBE) " uretprobes at "
										   "most";
		return NULL;
	default:
		return NULL;
	}
}

/* A reason for the compat programs: "@a: @b", after "; " when @why has one already. */
static bool add_reason(char *why, size_t len, const char *a, const char *b)
{
	size_t used = len ? strnlen(why, len - 1) : 0;

	if (len)
		snprintf(why + used, len - used, "%s%s: %s", used ? "; " : "", a, b);
	return true;
}

bool rc_features__compat(const struct rc_features *f, enum rc_feature_need need, char *why,
			 size_t len)
{
	/* the current task: every source's, but those that read only their tracepoints' tasks */
	bool current = need != RC_NEED_OFFCPU && need != RC_NEED_FOLLOW;
	bool state = need == RC_NEED_SCHED || need == RC_NEED_OFFCPU;
	bool compat = false;

	if (len)
		why[0] = '\0';
	if (current && !f->current_task_btf)
		compat = add_reason(why, len, "no bpf_get_current_task_btf",
				    "bpf_get_current_task and CO-RE reads");
	if (need == RC_NEED_SYSCALLS && !f->task_storage)
		compat = add_reason(why, len, "no task storage",
				    "a hash map of " RC_STR(RC_PENDING_MAX) " calls in progress");
	if (state && !f->switch_prev_state)
		compat =
		    add_reason(why, len, "no sched_switch prev_state", "the task's state by CO-RE");
	if (need == RC_NEED_FOLLOW && !f->atomics)
		compat =
		    add_reason(why, len, "no BPF atomic and/or",
			       "atomic adds and a hash map of " RC_STR(RC_FOLLOW_MAX) " processes");
	return compat;
}
