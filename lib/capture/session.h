/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Recording: the options, the kernel's features, and a session (lib/capture/).
 */
#ifndef RINGCAP_CAPTURE_SESSION_H
#define RINGCAP_CAPTURE_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "format/meta.h"
#include "format/writer.h"

/**
 * rc_builtin_schema() - the events and enums of ringcap's built-in sources
 *
 * The syscall and sched events and ringcap's own (ringcap:lost,
 * ringcap:snapshot), with the syscall, errno, task-state and snapshot-reason
 * enums. Built on the first call; safe to call from several threads. A
 * capture carries its own schema (rc_meta.schema): decode a file with that,
 * not with this one.
 *
 * Return: a static schema, never NULL; not to be freed or added to.
 */
const struct rc_schema *rc_builtin_schema(void);

/**
 * rc_builtin__add_syscall_nargs() - add how many arguments each syscall takes
 * @s: the capture's schema, from rc_schema__new()
 *
 * The enum RC_ENUM_SYSCALL_NARGS ("syscall_nargs"): a syscall's number,
 * named by the count of its arguments ("0" to "6"), the fields after
 * __syscall_nr in its entry tracepoint's format (events/syscalls/
 * sys_enter_NAME/format), as perf trace and bpftrace take them. A call with
 * no such tracepoint (none of this name, a kernel without
 * CONFIG_FTRACE_SYSCALLS, no tracefs) has no entry: its records show all
 * six registers (rc_field__count()). For a capture of the syscall source.
 *
 * Return: 0, also when no call has an entry (nothing added); -ENOMEM.
 */
int rc_builtin__add_syscall_nargs(struct rc_schema *s);

enum rc_drain_mode {
	RC_DRAIN_POLL,
	RC_DRAIN_BUSY,
};

#define RC_EVENT_BIT(type) (1u << (type))
#define RC_SAMPLE_ID	   RC_EV_SAMPLE /* the built-in "sample" event's id */
#define RC_OFFCPU_ID	   RC_EV_OFFCPU /* the built-in "offcpu" event's id */
#define RC_STACK_ID	   RC_EV_STACK	/* the built-in "stack" event's id */

/**
 * rc_parse_events() - the built-in events a list names
 * @spec: comma-separated: "syscalls", "sched" (every sched event), or the
 *	name of an event of those sources ("syscall", "sched:sched_switch")
 * @mask: set to the RC_EVENT_BIT()s of the events named
 * @bad: on -EINVAL, the name not understood (all of @spec when it names
 *	none); NUL-terminated, cut to @badlen
 * @badlen: bytes at @bad
 *
 * Return: 0; -EINVAL for an unknown name or a list of none; or -ENOMEM.
 */
int rc_parse_events(const char *spec, uint32_t *mask, char *bad, size_t badlen);

/**
 * rc_is_pmu_event() - whether an -e entry names a PMU's event, in perf's syntax
 * @spec: the entry, like intel_pt//u or intel_pt/cyc,noretcomp/
 *
 * Return: true for NAME/TERMS/MODS (its AUX stream is recorded).
 */
bool rc_is_pmu_event(const char *spec);

/**
 * struct rc_features - what this kernel can do, as record uses it
 *
 * Probed by loading trivial BPF objects (map types, helpers) and by
 * reading the kernel's BTF (tracepoint prototypes), never from the version
 * number; the one exception is @ftrace_mmap, which has no other probe short
 * of making a tracefs instance.
 */
struct rc_features {
	char release[65];	 /* uname -r */
	char preempt[16];	 /* "rt", "full", "voluntary", "none", "dynamic", or "" */
	bool bpf;		 /* a tracepoint program loads */
	bool bpf_denied;	 /* BPF refused for want of privileges: its probes unknown */
	bool tracefs_denied;	 /* tracefs there, not readable by this user */
	bool btf;		 /* /sys/kernel/btf/vmlinux */
	bool tp_btf;		 /* every BTF tracepoint the built-in sources use */
	char tp_btf_missing[32]; /* the first one missing, when !tp_btf */
	bool exit_group_dead;	 /* sched_process_exit passes group_dead (6.16) */
	bool switch_prev_state;	 /* sched_switch passes prev_state (5.18) */
	bool ringbuf;		 /* BPF_MAP_TYPE_RINGBUF (5.8) */
	bool perf_event_array;
	bool task_storage;     /* BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	bool current_task_btf; /* bpf_get_current_task_btf (5.11) */
	bool ktime_boot;       /* bpf_ktime_get_boot_ns (5.8) */
	bool attach_cookie;    /* bpf_get_attach_cookie in tracepoints (5.15) */
	bool atomics;	       /* BPF atomic and/or (5.12) */
	bool task_pt_regs;     /* bpf_task_pt_regs in perf_event programs (5.15): dwarf stacks */
	bool uprobes;	       /* the uprobe perf PMU */
	bool tracefs;
	bool ftrace_mmap; /* tracefs ring-buffer mapping (6.10) */
	char masked[160]; /* the features RINGCAP_FEATURES_OFF masked, comma-separated */
};

/* What record is about to use, for rc_features__missing(). */
enum rc_feature_need {
	RC_NEED_SYSCALLS,    /* the built-in syscalls source */
	RC_NEED_SCHED,	     /* the built-in sched source */
	RC_NEED_FOLLOW,	     /* following a command's children */
	RC_NEED_TRACEPOINTS, /* -e SYSTEM:NAME */
	RC_NEED_UPROBES,     /* -e uprobe:... */
	RC_NEED_PROFILE,     /* record -F / -c */
	RC_NEED_OFFCPU,	     /* record --off-cpu */
};

/**
 * rc_features__probe() - probe this kernel
 * @f: filled in
 *
 * Needs the privileges record needs for the BPF answers; without them
 * every BPF feature reads as missing. libbpf's print callback is silenced
 * while it runs: not to be called while another thread uses libbpf.
 *
 * The environment variable RINGCAP_FEATURES_OFF, a comma-separated list of
 * feature names, makes those read as missing (listed in @f->masked), so
 * that the programs for older kernels can be tested on a new one.
 *
 * Return: 0.
 */
int rc_features__probe(struct rc_features *f);

struct rc_kbtf;
struct btf;

/**
 * rc_features__probe_keep() - rc_features__probe(), keeping the kernel's BTF
 * @f: filled in
 * @kbtf: set to the kernel's BTF as the probe read and walked it, for
 *	rc_kbtf__write_core(); NULL where the probe did not walk it (no
 *	/sys/kernel/btf/vmlinux, a BTF the walk does not know). Free it with
 *	rc_kbtf__free() once the BPF objects are loaded: 5 MB and more.
 *
 * What the walk answers, and the CO-RE subsets, are kept in the cache
 * (util/cache.h) under the kernel's build id: with them there, the BTF
 * is not read at all, and @kbtf holds the answers alone until a subset
 * the cache lacks needs the walk.
 *
 * Return: 0.
 */
int rc_features__probe_keep(struct rc_features *f, struct rc_kbtf **kbtf);

/**
 * rc_kbtf__write_core() - the kernel's types a BPF object's CO-RE relocations need
 * @k: from rc_features__probe_keep()
 * @local: the object's BTF (bpf_object__btf(), after the open)
 * @fd: written from offset 0, truncated first: raw BTF, for the object's
 *	bpf_object_open_opts.btf_custom_path (libbpf 1.1 then looks for the
 *	relocations' candidates among these few types, not all the kernel's)
 *
 * The kernel's types named as @local's structs, unions, enums, forward
 * declarations and typedefs are (a ___flavour suffix cut), whole, with
 * all they hold by value; their pointers void pointers. Enough for field
 * and enum value relocations, the ones ringcap's programs make.
 *
 * The subset is taken from the cache when it has one for this kernel
 * and an object of @local's BTF, and put there when made.
 *
 * Return: 0, or -errno (-EPROTO: a kind not expected in what the types hold).
 */
int rc_kbtf__write_core(struct rc_kbtf *k, const struct btf *local, int fd);

/**
 * rc_kbtf__write_whole() - the kernel's BTF, all of it, as rc_kbtf__write_core() writes a part
 * @k: from rc_features__probe_keep()
 * @fd: written from offset 0, truncated first
 *
 * Return: 0, or -errno.
 */
int rc_kbtf__write_whole(struct rc_kbtf *k, int fd);

/**
 * rc_kbtf__trace_id() - the kernel's BTF type of a BTF tracepoint the built-in sources use
 * @k: from rc_features__probe_keep(), or NULL
 * @tp: the tracepoint, as "sched_switch"
 *
 * The id of the kernel's typedef btf_trace_@tp, which a tp_btf program
 * loads against (bpf_prog_load_opts.attach_btf_id): what libbpf finds
 * by its own parse of the kernel's BTF.
 *
 * Return: the type id, or -ENOENT (no @k, a tracepoint not among the
 * built-in sources', or not in this kernel).
 */
int rc_kbtf__trace_id(const struct rc_kbtf *k, const char *tp);

/**
 * rc_kbtf__walked() - was the kernel's BTF read and walked, or did the cache answer?
 * @k: from rc_features__probe_keep(), or NULL
 *
 * Return: true once the walk was made (rc_kbtf__write_core() makes it for a
 * subset the cache lacks), false for NULL or the cache's answers alone.
 */
bool rc_kbtf__walked(const struct rc_kbtf *k);

/**
 * rc_kbtf__free() - give back the kernel's BTF rc_features__probe_keep() kept
 * @k: or NULL
 */
void rc_kbtf__free(struct rc_kbtf *k);

/**
 * rc_features__compat() - does @need run its compat programs on this kernel?
 * @f: from rc_features__probe()
 * @need: the source
 * @why: filled with what the compat programs make up for, "; " between
 *	 reasons, or "" when the default programs load
 * @len: @why's size
 *
 * The compat programs (bpf/common.bpf.h, RC_COMPAT) are for kernels
 * without bpf_get_current_task_btf, task-local storage, BPF atomic and/or,
 * or sched_switch's prev_state argument; the default ones, where the
 * kernel has all those a source uses, are faster.
 *
 * Return: true for the compat programs.
 */
bool rc_features__compat(const struct rc_features *f, enum rc_feature_need need, char *why,
			 size_t len);

/**
 * rc_features__missing() - the first feature @need lacks on this kernel
 * @f: from rc_features__probe()
 * @need: what is about to be loaded
 *
 * Return: NULL when nothing is missing, else the feature's name with the
 * kernel version that added it, for a one-line refusal.
 */
const char *rc_features__missing(const struct rc_features *f, enum rc_feature_need need);

/**
 * rc_features__variant() - how record does without what @need lacks here
 * @f: from rc_features__probe()
 * @need: what is about to be loaded
 *
 * Return: NULL where record uses its first choice, else a phrase naming
 * what is missing and the program variant used instead, for --check.
 */
const char *rc_features__variant(const struct rc_features *f, enum rc_feature_need need);

/* --call-graph=dwarf,SIZE: the bytes of user stack a sample copies, by default and at most */
#define RC_DWARF_STACK_DEFAULT RC_USTACK_DEFAULT
#define RC_DWARF_STACK_MAX     RC_USTACK_MAX

/* The stacks a sample takes (record -g, --call-graph). */
enum rc_call_graph {
	RC_CALL_GRAPH_NONE = 0,
	RC_CALL_GRAPH_FP, /* kernel and user stacks, walked by frame pointers in the kernel */
	/* samples: the kernel's stack, and user stacks unwound from a copy by their CFI */
	RC_CALL_GRAPH_DWARF,
};

/* What rc_record_opts.file_cb is told of a file of the run. */
enum rc_file_event {
	RC_FILE_ENDED = 1,   /* complete: a switch ended it */
	RC_FILE_DELETED = 2, /* an ended file deleted by a cap (@why names it) */
};

/*
 * Called on the thread that writes, quickly (no I/O): @name is the file's,
 * valid during the call only; @why the cap deleting it, or NULL.
 */
typedef void (*rc_file_cb)(void *ctx, enum rc_file_event ev, const char *name, const char *why);

struct rc_record_opts {
	size_t sz; /* sizeof(struct rc_record_opts) */
	uint32_t events;
	const pid_t *pids; /* only these processes (tgids) */
	size_t npids;
	bool follow_forks;	/* children of targets become targets */
	const char *comm;	/* only tasks with this comm */
	size_t ringbuf_size;	/* ringbuf: the ring; perfbuf, ftrace: each CPU's, 2^n pages */
	uint64_t wakeup_bytes;	/* wake the reader when this much is pending; 0: default */
	uint32_t wakeup_events; /* perfbuf: or every this many records */
	enum rc_transport transport;
	bool time_order_only; /* perfbuf: hold back the newest 1 ms even under pressure (for measuring) */
	bool overwrite;	      /* perfbuf flight recorder: write only snapshots */
	uint32_t snap_type;   /* overwrite: snapshot when a record of this type is made, */
	int32_t snap_nr;      /* ... for syscalls of this number (-1: any) */
	enum rc_drain_mode drain;
	int compress_level;
	const char *cmdline;
	unsigned int flush_ms;	/* the longest a record waits to be written; 0: 1000 */
	unsigned int wakeup_ms; /* read the ring at least this often; 0: every flush_ms */
	bool no_compress;	/* chunks stored uncompressed (still zstd frames) */
	/* tracepoints by name: "SYSTEM:NAME", globs allowed ("block:*") */
	const char *const *tracepoints;
	size_t ntracepoints;
	/* "uprobe:PATH:FUNCTION" or "uretprobe:PATH:FUNCTION" */
	const char *const *uprobes;
	size_t nuprobes;
	/*
	 * A user's BPF object to record instead of ringcap's programs: its
	 * ring (bpf_map, or the only one) drained, its records decoded as
	 * struct event_type (NULL: kept raw), its const volatile globals set
	 * by "NAME=VALUE" assignments.
	 */
	const char *bpf_object;
	const char *bpf_map;
	const char *event_type;
	const char *const *bpf_sets;
	size_t nbpf_sets;
	/*
	 * CPU sampling (events RC_EVENT_BIT(RC_EV_SAMPLE)): samples a second
	 * on each CPU, or when 0 one every sample_period events (cycles, or
	 * ns of cpu-clock); and the stacks each sample takes.
	 */
	uint64_t sample_freq;
	uint64_t sample_period;
	enum rc_call_graph call_graph;
	/*
	 * User frames get their source file and line and the functions
	 * inlined at them, from DWARF in their files or debug files (LINES
	 * blocks, ringcap-file(5)).
	 */
	bool srclines;
	/* RC_CALL_GRAPH_DWARF: bytes of user stack a sample copies (0: RC_DWARF_STACK_DEFAULT) */
	uint32_t ustack_size;
	/*
	 * The files (ringcap-record(1), ROTATION). @output: -o, the capture's
	 * path (NULL: not a file of a path, e.g. stdout): a switch
	 * (rc_session__switch()) ends the file and starts it again there,
	 * and when rotating it is the prefix of the run's files' names.
	 * Rotating when @switch_size, @switch_ns or @switch_signal is set.
	 */
	const char *output;
	uint64_t switch_size;	   /* switch once a file holds this many bytes; 0: never */
	uint64_t switch_ns;	   /* switch at the start plus each multiple of this; 0: never */
	bool switch_signal;	   /* rotating, switched only by rc_session__switch() */
	uint32_t switch_max_files; /* keep the newest this many of the run's files; 0: all */
	uint64_t max_size; /* the file's cap: stop there; rotating, the run's files' together */
	uint64_t min_free; /* stop (rotating: first delete the oldest) below this free space */
	/* perf AUX events (-e intel_pt//u): PMU specs, each CPU's AUX area */
	const char *const *pmu_events;
	size_t npmu_events;
	uint64_t aux_size; /* 0: 4 MiB */
	enum rc_ftrace_read ftrace_read; /* --transport ftrace: how its rings are read */
	/*
	 * With @output: told, on the thread that writes, of each file a
	 * switch ends (complete) and of each ended file a cap deletes
	 * (rc_file_cb: quick, no I/O), with @file_ctx. The last
	 * file is not told: rc_session__files() names it once stopped.
	 */
	rc_file_cb file_cb;
	void *file_ctx;
};

/**
 * rc_bpf_object__check_sets() - whether a BPF object takes the --set assignments
 * @path: the object file
 * @sets: NAME=VALUE assignments of its const volatile globals
 * @n: how many
 *
 * Opens the object (without loading it), makes each assignment as a
 * capture would, and closes it: a bad one is found before anything
 * starts. An object that does not open is left for the capture to say.
 *
 * Return: 0; -EINVAL for an assignment refused (logged, with the reason);
 * -ENOMEM.
 */
int rc_bpf_object__check_sets(const char *path, const char *const *sets, size_t n);

/**
 * rc_list_tracepoints() - the tracepoints of this kernel that a pattern matches
 * @pattern: "SYSTEM:NAME" with globs (fnmatch(3)) on either side; a word
 *	without colon: a system of that name (or glob), else an event of that
 *	name in any system; NULL: every tracepoint
 * @fn: called with each match, system by system and name by name in
 *	alphabetical order; a negative return stops the walk and is returned
 * @ctx: passed to @fn
 *
 * Lists tracefs where it is mounted; reading it usually needs root.
 *
 * Return: the number of matches (0 when none); -EINVAL for a malformed
 * @pattern; -ENODEV without tracefs; @fn's error; or another -errno of
 * reading tracefs.
 */
int rc_list_tracepoints(const char *pattern,
			int (*fn)(const char *system, const char *name, void *ctx), void *ctx);

struct rc_session;

/**
 * rc_session__open() - prepare a recording
 * @opts: what to record; copied up to @opts->sz, but the strings and arrays
 *	it points to must live until rc_session__free()
 *
 * Checks privileges, picks the transport (RC_TRANSPORT_AUTO: the perf
 * buffer for a flight recorder, else the ring buffer where the kernel has
 * it), loads the BPF programs or prepares the tracefs instance, and adds
 * @opts->pids as targets. Nothing is traced yet. Most failures are logged
 * (RC_WARN) with their reason.
 *
 * Return: the session, to free with rc_session__free(); NULL with errno
 * set: EPERM without root or CAP_BPF and CAP_PERFMON (BPF transports),
 * EINVAL for options that do not go together (a flight recorder without
 * the perf buffer), ENOMEM, or the error of loading the programs or
 * preparing the instance.
 */
struct rc_session *rc_session__open(const struct rc_record_opts *opts);

/**
 * rc_session__add_target() - trace a process too
 * @s: the session, started or not
 * @pid: the process (its tgid)
 *
 * BPF: @pid joins the targets map, which limits what is recorded only in a
 * session opened with rc_record_opts.pids or .follow_forks (with
 * follow_forks, its children join as they are made); a session recording
 * a user's BPF object ignores targets. ftrace: @pid and the threads it has
 * now are added to the instance's set_event_pid, which limits the instance
 * to them.
 *
 * Return: 0, -EINVAL for a pid no kernel gives (BPF), or -errno of the
 * tracefs write.
 */
int rc_session__add_target(struct rc_session *s, pid_t pid);

/**
 * rc_session__start() - turn tracing on and start the capture file
 * @s: an opened session, not started
 * @fd: the capture file, not closed by the session; < 0: nothing is
 *	written, records are read, counted and discarded (live counters).
 *	Rotating (rc_record_opts.switch_*), pass -1: the session makes the
 *	run's files from rc_record_opts.output itself
 *
 * Attaches the programs (or turns the instance on), then writes the
 * capture header to @fd and starts the writer: once the file is not
 * empty, tracing is on. rc_session__meta() is filled from here.
 *
 * Return: 0, or -errno of attaching, of writing the header, or of starting
 * the writer thread.
 */
int rc_session__start(struct rc_session *s, int fd);

/**
 * rc_session__drain() - read the rings for a while
 * @s: a started session, not stopped
 * @ms: for how long, in milliseconds
 *
 * Reads what the rings hold, hands it to the file every flush_ms (or
 * wakeup_ms, or 1 s), and takes the counters once a second, into the file
 * when there is one. Between reads it sleeps on the rings (RC_DRAIN_POLL,
 * and always for a flight recorder) or reads again at once
 * (RC_DRAIN_BUSY). A signal does not end it early by itself (the wait it
 * interrupts counts as a wake-up); rc_session__interrupt() does. Rotating,
 * it switches files when the current one reaches rc_record_opts.switch_size
 * and at each multiple of switch_ns after the start (a grid that late or
 * other switches do not move); it returns early when a cap is reached
 * (rc_session__limit()).
 *
 * Return: records read (at most INT32_MAX), or -errno of reading or
 * writing.
 */
int rc_session__drain(struct rc_session *s, int ms);

/**
 * rc_session__interrupt() - have a drain under way return soon
 * @s: the session
 *
 * Async-signal-safe: for a signal handler, so that what the signal asks
 * (a switch, a snapshot, a stop) is done within a read of the rings, not
 * at the end of the drain's time, and two signals far apart are not taken
 * as one. The drain returns after the read it is in (between two batches
 * of a long one); the next drain runs as usual.
 */
void rc_session__interrupt(struct rc_session *s);

/**
 * rc_session__stop() - turn tracing off and end the capture file
 * @s: a started session
 *
 * Turns tracing off and reads what is left (BPF: until the counters agree
 * with the records read; a flight recorder takes its last snapshot,
 * RC_SNAPSHOT_EXIT, instead), then takes the last counters and, with a
 * file, writes them, the trailer and the end block. The fd stays open.
 *
 * Return: 0; -EINVAL when @s was not started or is stopped already; or the
 * first error of reading or writing.
 */
int rc_session__stop(struct rc_session *s);
/**
 * rc_session__switch() - end the capture file and go on in the next
 * @s: a started session writing to a file of a path (rc_record_opts.output)
 *
 * The counters go to the file, then, on the thread that writes, every
 * record they count, the trailer; the next file follows: rotating, under
 * its rotation name; else at the same path, the file just ended renamed to
 * its rotation name first if the path still names it. The rings are read
 * all along. Without a path (stdout), nothing is done.
 *
 * Return: 0; -EINVAL without a file of a path; or -errno.
 */
int rc_session__switch(struct rc_session *s);

/**
 * rc_session__limit() - whether a cap stopped the capture
 * @s: the session
 *
 * rc_session__drain() returns early once --max-size (without rotation) or
 * --min-free is reached, or the next file could not be made: stop the
 * session then (rc_session__stop()); the file is complete.
 *
 * Return: the message saying which cap, and what of, without newline;
 * NULL while none is reached.
 */
const char *rc_session__limit(const struct rc_session *s);

/* rc_session__limit_why(): why the capture is to stop */
#define RC_LIMIT_MAX_SIZE 1 /* --max-size without rotation: the file reached it */
#define RC_LIMIT_MIN_FREE 2 /* --min-free: the file system is nearly full */
#define RC_LIMIT_NO_FILE  3 /* the next file could not be made */
#define RC_LIMIT_NO_SPACE 4 /* a write met a full disk: the file was cut back and ended */

/**
 * rc_session__limit_why() - which cap stopped the capture
 * @s: the session
 *
 * Return: RC_LIMIT_*, the cap rc_session__limit() describes; 0 while none
 * is reached.
 */
int rc_session__limit_why(const struct rc_session *s);

/**
 * rc_session__files() - the files of the run so far
 * @s: the session, stopped: the names are the writing thread's until then
 * @first: set to the oldest file of the run still on disk (NULL: none)
 * @last: set to the current (or last) file (NULL: none)
 *
 * Return: how many files the run made (1 unless it switched).
 */
uint32_t rc_session__files(const struct rc_session *s, const char **first, const char **last);

/**
 * rc_session__switched() - switches to a new file so far
 * @s: the session, running or stopped (any thread may ask)
 *
 * Return: the count.
 */
uint64_t rc_session__switched(const struct rc_session *s);

/**
 * rc_session__files_deleted() - the run's files deleted by its caps
 * @s: the session
 *
 * Return: files of the run deleted so far by --switch-max-files,
 * --max-size or --min-free; 0 without rotation.
 */
uint64_t rc_session__files_deleted(const struct rc_session *s);

/* Why a snapshot was taken (the ringcap:snapshot record's reason). */
enum rc_snapshot_why {
	RC_SNAPSHOT_SIGNAL = 1, /* SIGUSR2 */
	RC_SNAPSHOT_EXIT = 2,	/* the end of the capture */
	RC_SNAPSHOT_EVENT = 3,	/* --snapshot-on */
};

/**
 * rc_session__snapshot() - flight recorder: write what the rings hold now
 * @s: a started session with overwrite set
 * @why: the reason the ringcap:snapshot record gives
 *
 * Writes a ringcap:snapshot record and the records the CPUs' rings hold
 * now.
 *
 * Return: records written; -EINVAL when @s is not started, not a flight
 * recorder or on the ftrace transport; or -errno.
 */
long rc_session__snapshot(struct rc_session *s, enum rc_snapshot_why why);

/**
 * rc_session__transport() - the transport chosen at open
 * @s: the session
 *
 * Return: RC_TRANSPORT_RINGBUF, _PERFBUF or _FTRACE; never _AUTO.
 */
enum rc_transport rc_session__transport(const struct rc_session *s);

/**
 * rc_session__sample() - take the counters now
 * @s: the session
 *
 * Reads the BPF counter maps (or the ftrace rings' counters) without
 * writing them to the file.
 *
 * Return: the counters, the same rc_session__stats() returns, updated in
 * place by the next call that takes them (this one, rc_session__drain(),
 * rc_session__stop()); NULL with errno set on failure.
 */
const struct rc_stats *rc_session__sample(struct rc_session *s);

/**
 * rc_session__stats() - the counters last taken
 * @s: the session
 *
 * Taken each second while draining, by rc_session__sample(), and final
 * after rc_session__stop().
 *
 * Return: the counters, never NULL (zero before any was taken), updated in
 * place by the calls that take them.
 */
const struct rc_stats *rc_session__stats(const struct rc_session *s);

/**
 * rc_session__meta() - what the capture header says
 * @s: the session
 *
 * Return: the header (host, CPUs, schema with the tracepoints and probes
 * described at open), filled by rc_session__start(); zeroed before. Never
 * NULL.
 */
const struct rc_meta *rc_session__meta(const struct rc_session *s);

/**
 * rc_session__cut() - whether a full disk or the file size limit cut the file
 * @s: the session, stopped
 *
 * The file then ends at its last complete chunk, with the counters of the
 * whole recording: what was read after the cut is counted, not written
 * (ringcap stat shows it missing).
 *
 * Return: the error that cut it (-ENOSPC, -EDQUOT, -EFBIG), or 0.
 */
int rc_session__cut(const struct rc_session *s);

/**
 * rc_session__records_written() - records written to the file so far
 * @s: the session
 *
 * Counts the records of complete chunks. Safe while the session's writer
 * thread runs.
 *
 * Return: the count.
 */
uint64_t rc_session__records_written(const struct rc_session *s);

/**
 * rc_session__bytes() - bytes written to the file so far
 * @s: the session
 * @raw: NULL, or set to the bytes of those records before compression
 *
 * Safe while the session's writer thread runs.
 *
 * Return: the bytes written, as the writer last published them.
 */
uint64_t rc_session__bytes(const struct rc_session *s, uint64_t *raw);

/**
 * rc_session__free() - end a session and free it
 * @s: the session, or NULL
 *
 * Detaches what is still attached and frees everything, the schema and
 * header included. A session not stopped leaves its file without trailer:
 * it reads as truncated. The fd is not closed.
 */
void rc_session__free(struct rc_session *s);

#endif /* RINGCAP_CAPTURE_SESSION_H */
