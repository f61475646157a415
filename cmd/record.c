// SPDX-License-Identifier: GPL-2.0-only
/* ringcap record: argument parsing, the workload, signals and the summary. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "ringcap.h"

#define DEFAULT_OUTPUT	"ringcap.rcap"
#define PROGRESS_S	0.5
#define RECORD_EXIT_CUT 2 /* a full disk or the file size limit cut the file: EXIT STATUS */
#define RECORD_EXIT_EARLY 3 /* --min-free, or no room for the next file, stopped it: EXIT STATUS */

enum {
	OPT_PROGRESS = 256,
	OPT_FLUSH_MS,
	OPT_OVERWRITE,
	OPT_SNAPSHOT_ON,
	OPT_COMPRESS_LEVEL,
	OPT_NO_COMPRESS,
	OPT_BPF,
	OPT_MAP,
	OPT_EVENT_TYPE,
	OPT_SET,
	OPT_CHECK,
	OPT_CALL_GRAPH,
	OPT_OFF_CPU,
	OPT_DEBUGINFOD,
	OPT_SRCLINES,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_MAX_FILES,
	OPT_MAX_SIZE,
	OPT_MIN_FREE,
	OPT_METRICS,
	OPT_ON_SWITCH,
	OPT_ON_SWITCH_TIMEOUT,
};

#define DEFAULT_MIN_FREE (64ull << 20)

#define MAX_SETS 64

static struct env {
	const char *output;
	bool quiet;
	bool progress;
	unsigned int flush_ms;
	bool overwrite;
	const char *snapshot_on;
	int compress_level;
	bool no_compress;
	bool list;
	bool check;
	const char *bpf, *map, *event_type;
	const char *sets[MAX_SETS];
	size_t nsets;
	uint64_t freq, period;
	enum rc_call_graph call_graph;
	uint32_t ustack_size; /* --call-graph=dwarf,SIZE */
	bool off_cpu;
	bool debuginfod;
	const char *debuginfod_urls;
	bool srclines;
	const char *switch_output; /* as given, for messages */
	const char *metrics;	   /* --metrics=[ADDRESS:]PORT */
	const char *on_switch;	   /* --on-switch=CMD */
	unsigned int on_switch_timeout;
	uint64_t switch_size, switch_ns;
	bool switch_signal;
	uint32_t switch_max_files;
	uint64_t max_size, min_free;
} env;

static const struct argp_option opts[] = {
	{ "output", 'o', "FILE", 0, "Capture file (default: " DEFAULT_OUTPUT "; - for stdout)" },
	{ "quiet", 'q', NULL, 0, "No status line and no summary" },
	{ "progress", OPT_PROGRESS, NULL, 0,
	  "A status line even when stderr is not a terminal (one line a second)" },
	{ "flush-ms", OPT_FLUSH_MS, "MS", 0,
	  "Write what was read at least this often: what a crash can lose (default: 1000)" },
	{ "overwrite", OPT_OVERWRITE, NULL, 0,
	  "Flight recorder: perf rings that keep the newest events, written only at a "
	  "snapshot (SIGUSR2, --snapshot-on, and the end)" },
	{ "snapshot-on", OPT_SNAPSHOT_ON, "EVENT", 0,
	  "With --overwrite: a snapshot each time EVENT happens (an event name, or "
	  "syscall:NAME)" },
	{ "compress-level", OPT_COMPRESS_LEVEL, "N", 0,
	  "zstd level, from -7 (fastest) to 19 (smallest) (default: 1)" },
	{ "no-compress", OPT_NO_COMPRESS, NULL, 0,
	  "Store records uncompressed (about 90 times the disk, for little CPU saved)" },
	{ "bpf", OPT_BPF, "OBJECT", 0,
	  "Record a BPF object of your own instead of ringcap's programs: its programs attached "
	  "by their SEC() names, its ring buffer or perf event array drained" },
	{ "map", OPT_MAP, "NAME", 0, "With --bpf: the map to drain (default: the only ring)" },
	{ "event-type", OPT_EVENT_TYPE, "STRUCT", 0,
	  "With --bpf: the struct the object's records are, from its BTF, for report to decode "
	  "(default: records kept as bytes)" },
	{ "set", OPT_SET, "NAME=VALUE", 0,
	  "With --bpf: set a const volatile global of the object before it loads (repeatable)" },
	{ "freq", 'F', "HZ", 0,
	  "Sample each CPU HZ times a second (cycles, or cpu-clock without a hardware PMU), "
	  "besides any -e events; like perf record -F" },
	{ "count", 'c', "PERIOD", 0,
	  "Sample every PERIOD events instead (cycles; ns of cpu-clock)" },
	/* argument names short enough for the description's column, as the others' */
	{ "call-graph", OPT_CALL_GRAPH, "MODE", 0,
	  "Take each sample's kernel and user stack; MODE: fp, by frame pointers, or "
	  "dwarf[,SIZE], the user stack unwound by its CFI from SIZE bytes copied (default "
	  "8192)" },
	{ NULL, 'g', NULL, 0, "The same as --call-graph=fp" },
	{ "srclines", OPT_SRCLINES, NULL, 0,
	  "With stacks: give user frames their source file:line and the functions inlined "
	  "at them, from DWARF in their files or debug files" },
	{ "off-cpu", OPT_OFF_CPU, NULL, 0,
	  "Time tasks spend blocked, with the stacks they blocked in (as offcputime)" },
	{ "debuginfod", OPT_DEBUGINFOD, "URLS", OPTION_ARG_OPTIONAL,
	  "Ask debuginfod servers (URLS, else $DEBUGINFOD_URLS) for the debug files of stripped "
	  "programs that are not found locally, while recording" },
	{ "switch-output", OPT_SWITCH_OUTPUT, "WHEN", OPTION_ARG_OPTIONAL,
	  "Write a sequence of files, -o FILE the prefix of their names; WHEN: a new one each "
	  "SIZE bytes (100M, 1G), each TIME from the start (30s, 10m, 1h, 1d), or at each "
	  "SIGUSR2 (signal, the default)" },
	{ "switch-max-files", OPT_SWITCH_MAX_FILES, "N", 0,
	  "With --switch-output: keep the newest N files of the run, deleting older ones" },
	{ "max-size", OPT_MAX_SIZE, "SIZE", 0,
	  "Stop when the file reaches SIZE; with --switch-output, keep the run's files under "
	  "SIZE in all, deleting the oldest" },
	{ "min-free", OPT_MIN_FREE, "SIZE", 0,
	  "Stop cleanly (with --switch-output: first delete the run's oldest files) when the "
	  "file system has less than SIZE free (default: 64M; 0: never)" },
	{ "metrics", OPT_METRICS, "[ADDRESS:]PORT", 0,
	  "Serve the capture's counters at http://ADDRESS:PORT/metrics in Prometheus' text "
	  "format while recording (ADDRESS: 127.0.0.1 unless given)" },
	{ "on-switch", OPT_ON_SWITCH, "CMD", 0,
	  "Run CMD (a program and its arguments, no shell) with each finished file's path as "
	  "one more argument, one at a time, in order; the last file at the end" },
	{ "on-switch-timeout", OPT_ON_SWITCH_TIMEOUT, "S", 0,
	  "Kill an --on-switch CMD running longer than S seconds (default: 300); the wait at the "
	  "end too" },
	{ "check", OPT_CHECK, NULL, 0,
	  "Print what this kernel has that record uses, a line each, and what record would "
	  "use on it; record nothing" },
	{ "list", 'l', NULL, 0,
	  "List the events -e takes (ringcap's, and the kernel's tracepoints), or those "
	  "matching the glob given as argument, like 'block:*'" },
	{},
};

/* --switch-output: "signal", a size (a B, K, M or G suffix) or a time (s, m, h, d). */
static int parse_switch(const char *arg)
{
	static const struct {
		char unit;
		uint64_t ns;
	} times[] = { { 's', 1000000000ull },
		      { 'm', 60000000000ull },
		      { 'h', 3600000000000ull },
		      { 'd', 86400000000000ull } };
	size_t len = strlen(arg), i;
	long v;

	env.switch_size = env.switch_ns = 0;
	env.switch_signal = false;
	if (!strcmp(arg, "signal")) {
		env.switch_signal = true;
		return 0;
	}
	for (i = 0; len > 1 && i < sizeof(times) / sizeof(times[0]); i++) {
		char num[32];

		if (arg[len - 1] != times[i].unit || len - 1 >= sizeof(num))
			continue;
		memcpy(num, arg, len - 1);
		num[len - 1] = '\0';
		if (!parse_long(num, 1, 1000000, &v) || (uint64_t)v > UINT64_MAX / times[i].ns)
			return -EINVAL;
		env.switch_ns = v * times[i].ns;
		return 0;
	}
	/* a size: with its unit, so that a bare number is not taken for one */
	if (!len || !strchr("BbKkMmGg", arg[len - 1]) || parse_size(arg, &env.switch_size) ||
	    env.switch_size < (64u << 10))
		return -EINVAL;
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long v;

	switch (key) {
	case 'o':
		env.output = arg;
		break;
	case 'q':
		env.quiet = true;
		break;
	case OPT_PROGRESS:
		env.progress = true;
		break;
	case OPT_DEBUGINFOD:
		env.debuginfod = true;
		env.debuginfod_urls = arg;
		break;
	case OPT_FLUSH_MS:
		if (!parse_long(arg, 10, 60000, &v))
			argp_error(state, "invalid --flush-ms '%s': milliseconds from 10 to 60000",
				   arg);
		env.flush_ms = v;
		break;
	case ARGP_KEY_ARG:
		return ARGP_ERR_UNKNOWN;
	case ARGP_KEY_ARGS:
		scope.cmd = state->argv + state->next;
		break;
	case OPT_OVERWRITE:
		env.overwrite = true;
		break;
	case OPT_SNAPSHOT_ON:
		env.snapshot_on = arg;
		break;
	case OPT_COMPRESS_LEVEL:
		if (!parse_long(arg, -7, 19, &v) || v == 0)
			argp_error(
			    state,
			    "invalid --compress-level '%s': a zstd level from -7 (fastest) to "
			    "19 (smallest), not 0; or --no-compress",
			    arg);
		env.compress_level = v;
		break;
	case OPT_NO_COMPRESS:
		env.no_compress = true;
		break;
	case 'l':
		env.list = true;
		break;
	case OPT_CHECK:
		env.check = true;
		break;
	case 'F':
		if (!parse_long(arg, 1, 1000000, &v))
			argp_error(state, "invalid -F '%s': samples a second, from 1 to 1000000",
				   arg);
		env.freq = v;
		break;
	case 'c':
		if (!parse_long(arg, 1, LONG_MAX, &v))
			argp_error(state, "invalid -c '%s': events between samples, 1 or more",
				   arg);
		env.period = v;
		break;
	case 'g':
		env.call_graph = RC_CALL_GRAPH_FP;
		break;
	case OPT_OFF_CPU:
		env.off_cpu = true;
		break;
	case OPT_SRCLINES:
		env.srclines = true;
		break;
	case OPT_METRICS:
		env.metrics = arg;
		break;
	case OPT_ON_SWITCH:
		env.on_switch = arg;
		break;
	case OPT_ON_SWITCH_TIMEOUT:
		if (!parse_long(arg, 1, 86400, &v))
			argp_error(state, "invalid --on-switch-timeout '%s': seconds, 1 to 86400",
				   arg);
		env.on_switch_timeout = v;
		break;

	case OPT_CALL_GRAPH:
		if (!strcmp(arg, "fp")) {
			env.call_graph = RC_CALL_GRAPH_FP;
			break;
		}
		if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
			argp_error(state,
				   "invalid --call-graph '%s': fp (frame pointers) or dwarf[,SIZE]",
				   arg);
		env.call_graph = RC_CALL_GRAPH_DWARF;
		env.ustack_size = RC_DWARF_STACK_DEFAULT;
		if (arg[5] && (!parse_long(arg + 6, 8, RC_DWARF_STACK_MAX, &v) || v % 8))
			argp_error(state,
				   "invalid --call-graph '%s': SIZE is the bytes of user stack "
				   "each sample copies, a multiple of 8 from 8 to %d",
				   arg, RC_DWARF_STACK_MAX);
		if (arg[5])
			env.ustack_size = v;
		break;
	case OPT_BPF:
		env.bpf = arg;
		break;
	case OPT_MAP:
		env.map = arg;
		break;
	case OPT_EVENT_TYPE:
		env.event_type = arg;
		break;
	case OPT_SET:
		if (!strchr(arg, '='))
			argp_error(state, "invalid --set '%s': give NAME=VALUE", arg);
		if (env.nsets == MAX_SETS)
			argp_error(state, "too many --set: at most %d", MAX_SETS);
		env.sets[env.nsets++] = arg;
		break;
	case OPT_SWITCH_OUTPUT:
		env.switch_output = arg ? arg : "signal";
		if (parse_switch(env.switch_output))
			argp_error(
			    state,
			    "invalid --switch-output '%s': signal, a size (100M, 1G: B, K, M "
			    "or G, 64K at least) or a time (30s, 10m, 1h, 1d)",
			    env.switch_output);
		break;
	case OPT_SWITCH_MAX_FILES:
		if (!parse_long(arg, 1, 1000000, &v))
			argp_error(state, "invalid --switch-max-files '%s': files, 1 or more", arg);
		env.switch_max_files = v;
		break;
	case OPT_MAX_SIZE:
		if (parse_size(arg, &env.max_size) || env.max_size < (1u << 20))
			argp_error(state, "invalid --max-size '%s': a size of 1M or more (K, M, G)",
				   arg);
		break;
	case OPT_MIN_FREE:
		if (parse_size(arg, &env.min_free))
			argp_error(state, "invalid --min-free '%s': a size (K, M, G), or 0", arg);
		break;
	case ARGP_KEY_END:
		if (env.list || env.check)
			break; /* the argument is a glob, not a command */
		if (env.switch_output && !strcmp(env.output, "-"))
			argp_error(state,
				   "--switch-output writes a sequence of files named after -o "
				   "FILE: not with -o - (stdout)");
		if (env.on_switch && !strcmp(env.output, "-"))
			argp_error(state,
				   "--on-switch gives CMD files by their paths: not with -o - "
				   "(stdout)");
		if (env.switch_max_files && !env.switch_output)
			argp_error(state, "--switch-max-files is for --switch-output");
		if (env.switch_output && env.max_size && env.switch_size > env.max_size)
			argp_error(state,
				   "--switch-output=%s is larger than --max-size: a file would "
				   "pass the cap on all of them",
				   env.switch_output);
		if (env.overwrite && (env.switch_size || env.switch_ns))
			argp_error(state,
				   "--overwrite with --switch-output=%s: the flight recorder "
				   "writes only at a snapshot, so its files switch on SIGUSR2 "
				   "(--switch-output=signal), a snapshot each",
				   env.switch_output);
		if (env.snapshot_on && !env.overwrite)
			argp_error(state,
				   "--snapshot-on is for the flight recorder: add --overwrite");
		if (env.overwrite && scope.transport == RC_TRANSPORT_FTRACE)
			argp_error(state, "--overwrite is the perf buffer's flight recorder: use "
					  "--transport perfbuf");
		if (env.bpf && scope.transport == RC_TRANSPORT_FTRACE)
			argp_error(state,
				   "--bpf loads a BPF object: use --transport ringbuf, perfbuf "
				   "or auto");
		if (env.overwrite && scope.transport == RC_TRANSPORT_RINGBUF)
			argp_error(state, "--overwrite needs the perf buffer's overwritable rings: "
					  "use --transport perfbuf (or auto)");
		if (env.overwrite)
			scope.transport = RC_TRANSPORT_PERFBUF;
		if (env.no_compress && env.compress_level)
			argp_error(state, "--no-compress and --compress-level exclude each other");
		if (!env.bpf && (env.map || env.event_type || env.nsets))
			argp_error(state, "--map, --event-type and --set are for --bpf OBJECT");
		if (env.bpf && scope.events_buf)
			argp_error(state, "--bpf records the object's own events: drop -e");
		if (env.bpf && (scope.npids || scope.comm))
			argp_error(state,
				   "-p and --comm filter ringcap's own programs: with --bpf, "
				   "the object's programs choose what they trace");
		if (env.bpf && env.overwrite)
			argp_error(state, "--overwrite is for ringcap's own programs, not --bpf");
		if (env.freq && env.period)
			argp_error(state, "-F and -c exclude each other: a rate or a period");
		if ((env.freq || env.period || env.off_cpu) &&
		    (env.bpf || scope.transport == RC_TRANSPORT_FTRACE))
			argp_error(state,
				   "-F, -c and --off-cpu use ringcap's BPF programs: not with "
				   "--bpf or --transport ftrace");
		if (env.srclines && !(env.freq || env.period || env.off_cpu || env.call_graph))
			argp_error(state, "--srclines names the frames of stacks: with -F, -c, -g "
					  "or --off-cpu");
		if (env.call_graph && (env.bpf || scope.transport == RC_TRANSPORT_FTRACE))
			argp_error(state,
				   "-g takes stacks with ringcap's BPF programs: not with --bpf "
				   "or --transport ftrace");
		scope_check(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * --debuginfod: its URLS for this process only (set after the command is
 * forked, which keeps its environment); none, and none in the environment
 * either, is said, not an error.
 */
static void setup_debuginfod(void)
{
	const char *urls;

	if (env.debuginfod_urls && setenv("DEBUGINFOD_URLS", env.debuginfod_urls, 1))
		say("--debuginfod: %s\n", strerror(errno));
	urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !*urls) {
		say("--debuginfod: no URLS and DEBUGINFOD_URLS is not set: debug files are "
		    "looked for locally only\n");
		return;
	}
	rc_set_debuginfod(true);
}

static void check_line(const char *what, bool yes)
{
	printf("%-52s %s\n", what, yes ? "yes" : "no");
}

#define NOT_PERMITTED "unknown: not permitted (root, or CAP_BPF and CAP_PERFMON)"

/* A feature only loading a BPF object tells: unknown where that is not permitted. */
static void check_bpf_line(const struct rc_features *f, const char *what, bool yes)
{
	if (f->bpf_denied)
		printf("%-52s %s\n", what, NOT_PERMITTED);
	else
		check_line(what, yes);
}

/*
 * What record on this kernel would do with each source: "yes" and the
 * programs it would load (the compat ones, and what they make up for), or
 * why not.
 */
static void check_source(const struct rc_features *f, const char *what, enum rc_feature_need need)
{
	const char *missing = rc_features__missing(f, need);
	const char *variant = missing ? NULL : rc_features__variant(f, need);
	char why[256];
	bool compat = !missing && rc_features__compat(f, need, why, sizeof(why));

	if (missing)
		printf("  %-50s no: needs %s\n", what, missing);
	else if (!variant && !compat)
		printf("  %-50s yes: default programs\n", what);
	else
		printf("  %-50s yes: %s%s%s%s%s\n", what, variant ?: "",
		       variant && compat ? "; " : "", compat ? "compat programs (" : "",
		       compat ? why : "", compat ? ")" : "");
}

static void check_ftrace(const struct rc_features *f)
{
	printf("  %-50s %s\n", "--transport ftrace",
	       f->tracefs_denied ? "unknown: tracefs not readable (root, or its permissions)"
	       : !f->tracefs	 ? "no: needs tracefs (CONFIG_FTRACE, mounted)"
	       : f->ftrace_mmap	 ? "splice (--ftrace-read=mmap too: the rings mapped, 6.10)"
				 : "splice (no ring-buffer mapping before 6.10)");
}

/* record --check: the kernel's features a line each, as bpftool feature probe prints them. */
static int check_kernel(void)
{
	struct rc_features f;
	int err = rc_features__probe(&f);

	if (err)
		return err;
	printf("kernel %s, preemption %s\n", f.release, f.preempt[0] ? f.preempt : "unknown");
	if (f.masked[0])
		printf("(RINGCAP_FEATURES_OFF: taken as missing: %s)\n", f.masked);
	check_bpf_line(&f, "BPF tracepoint programs load", f.bpf);
	check_line("kernel BTF (/sys/kernel/btf/vmlinux)", f.btf);
	check_line("BTF tracepoints the built-in sources use (5.5)", f.tp_btf);
	check_line("sched_process_exit passes group_dead (6.16)", f.exit_group_dead);
	check_line("sched_switch passes prev_state (5.18)", f.switch_prev_state);
	check_bpf_line(&f, "BPF ring buffer (5.8)", f.ringbuf);
	check_bpf_line(&f, "perf event array", f.perf_event_array);
	check_bpf_line(&f, "task-local storage (5.11)", f.task_storage);
	check_line("bpf_get_current_task_btf (5.11)", f.current_task_btf);
	check_bpf_line(&f, "bpf_ktime_get_boot_ns (5.8)", f.ktime_boot);
	check_bpf_line(&f, "bpf_get_attach_cookie in tracepoints (5.15)", f.attach_cookie);
	check_bpf_line(&f, "BPF atomic and/or (5.12)", f.atomics);
	check_bpf_line(&f, "bpf_task_pt_regs in perf_event programs (5.15)", f.task_pt_regs);
	check_line("uprobes", f.uprobes);
	if (f.tracefs_denied)
		printf("%-52s %s\n", "tracefs", "unknown: not readable (root, or its permissions)");
	else
		check_line("tracefs", f.tracefs);
	if (f.tracefs_denied)
		printf("%-52s %s\n", "ftrace ring-buffer mapping (6.10)",
		       "unknown: tracefs not readable");
	else
		check_line("ftrace ring-buffer mapping (6.10)", f.ftrace_mmap);
	if (!f.tp_btf && f.tp_btf_missing[0])
		printf("(no BTF tracepoint %s)\n", f.tp_btf_missing);
	printf("record on this kernel:\n");
	if (f.bpf_denied) {
		/* what needs BPF is not known, and no kernel version is named for it */
		printf("  %-50s %s\n", "the BPF transports and sources", NOT_PERMITTED);
		check_ftrace(&f);
		return 0;
	}
	printf("  %-50s %s\n", "--transport auto",
	       !f.bpf		    ? "nothing: no BPF"
	       : f.ringbuf	    ? "ringbuf"
	       : f.perf_event_array ? "perfbuf (no BPF ring buffer)"
				    : "nothing: no BPF ring");
	check_source(&f, "-e syscalls", RC_NEED_SYSCALLS);
	check_source(&f, "-e sched", RC_NEED_SCHED);
	check_source(&f, "-e SYSTEM:NAME (tracepoints)", RC_NEED_TRACEPOINTS);
	check_source(&f, "-e uprobe:BINARY:FUNCTION", RC_NEED_UPROBES);
	check_source(&f, "a command's children (record -- CMD)", RC_NEED_FOLLOW);
	check_source(&f, "-F / -c (sampling)", RC_NEED_PROFILE);
	check_source(&f, "--off-cpu", RC_NEED_OFFCPU);
	printf("  %-50s %s\n", "-F --call-graph dwarf",
	       !f.task_pt_regs	     ? "no: needs bpf_task_pt_regs (Linux 5.15)"
	       : !f.current_task_btf ? "no: needs bpf_get_current_task_btf (Linux 5.11)"
				     : "yes");
	check_ftrace(&f);
	return 0;
}

static int print_tracepoint(const char *system, const char *name, void *ctx)
{
	char full[256];

	snprintf(full, sizeof(full), "%s:%s", system, name);
	printf("  %-50s [Tracepoint event]\n", full);
	return 0;
}

/* record -l [GLOB]: ringcap's own events, then the kernel's tracepoints, as perf list does. */
static int list_events(const char *glob)
{
	const struct rc_schema *sc = rc_builtin_schema();
	int n, shown = 0;
	uint32_t i;

	if (!glob || !fnmatch(glob, "syscalls", 0)) {
		printf("  %-50s [ringcap: every syscall, entry and exit paired]\n", "syscalls");
		shown++;
	}
	if (!glob || !fnmatch(glob, "sched", 0)) {
		printf("  %-50s [ringcap: the sched:* events below]\n", "sched");
		shown++;
	}
	for (i = 0; i < sc->nevents; i++)
		if (strchr(sc->events[i].name, ':') && strncmp(sc->events[i].name, "ringcap:", 8) &&
		    (!glob || !fnmatch(glob, sc->events[i].name, 0))) {
			printf("  %-50s [ringcap event]\n", sc->events[i].name);
			shown++;
		}
	fflush(stdout);
	n = rc_list_tracepoints(glob, print_tracepoint, NULL);
	if (n < 0) {
		say("cannot list the kernel's tracepoints: %s\n", strerror(-n));
		return n;
	}
	if (!shown && !n) {
		say("no event matches '%s': 'ringcap record -l' lists them all\n", glob);
		return -ENOENT;
	}
	return 0;
}

/* Keep an existing capture as FILE.old, then create FILE afresh, 0600. */
static int open_output(const char *path)
{
	char old[PATH_MAX];
	struct stat st;
	int fd;

	if (!strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO)) {
			say("refusing to write a binary capture to a terminal: "
			    "redirect stdout, or use -o FILE\n");
			return -EINVAL;
		}
		return STDOUT_FILENO;
	}
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		if (snprintf(old, sizeof(old), "%s.old", path) >= (int)sizeof(old))
			return -ENAMETOOLONG;
		if (rename(path, old)) {
			say("failed to keep '%s' as '%s': %s\n", path, old, strerror(errno));
			return -errno;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = -errno;

		say("failed to create '%s': %s%s\n", path, strerror(errno),
		    errno == EEXIST ? " (something that is not a regular file is in the way)" : "");
		return err;
	}
	return fd;
}

/* The status line: elapsed, events/s, bytes written, drops, ring fill. */
struct progress {
	bool tty;
	double last;
	uint64_t last_made;
};

static void show_progress(void *ctx, struct rc_session *s, double el)
{
	struct progress *p = ctx;
	const struct rc_stats *st;
	struct rc_stats_point pt;
	char b[32];

	if (el - p->last < (p->tty ? PROGRESS_S : 1.0))
		return;
	st = rc_session__sample(s);
	if (!st)
		return;
	rc_stats__totals(st, &pt);
	status_line(
	    p->tty, "%7.1fs %12llu events %9.0f/s %10s %10llu dropped  ring %3.0f%% (max %.0f%%)",
	    el, (unsigned long long)pt.made, (pt.made - p->last_made) / (el - p->last),
	    human_bytes(rc_session__bytes(s, NULL), b, sizeof(b)), (unsigned long long)pt.dropped,
	    100.0 * pt.ring_pending / st->ring_size, 100.0 * pt.ring_hwm / st->ring_size);
	p->last = el;
	p->last_made = pt.made;
}

/* Each drain: the status line, and the metrics served. */
struct ticks {
	struct progress *prog; /* NULL: no status line */
	struct metrics *metrics;
	struct ship *ship; /* --on-switch */
};

static void tick(void *ctx, struct rc_session *s, double el)
{
	struct ticks *t = ctx;

	if (t->prog)
		show_progress(t->prog, s, el);
	metrics_update(t->metrics, s, el);
	ship_tick(t->ship);
}

/* A run that failed to start: its first file, made by the start, goes too. */
static void remove_run_files(struct rc_session *s)
{
	const char *first, *last;

	if (!s || !rc_session__files(s, &first, &last) || !last)
		return;
	if (unlink(last) && errno != ENOENT)
		say("failed to delete '%s': %s\n", last, strerror(errno));
}

static void print_summary(struct rc_session *s, const char *path)
{
	struct rc_stats_point pt;
	uint64_t raw, bytes = rc_session__bytes(s, &raw);
	const char *first, *last;
	uint32_t nfiles = rc_session__files(s, &first, &last);
	char b[32], files[3 * PATH_MAX];

	if (nfiles > 1 || env.switch_output) {
		uint64_t gone = rc_session__files_deleted(s);
		char kept[64] = "";

		if (gone)
			snprintf(kept, sizeof(kept), " (%llu deleted by the caps)",
				 (unsigned long long)gone);
		snprintf(files, sizeof(files),
			 "%u file%s of this run%s, the first kept '%s', the last '%s'", nfiles,
			 nfiles == 1 ? "" : "s", kept, first ? first : "", last ? last : "");
		path = files;
	}

	rc_stats__totals(rc_session__stats(s), &pt);
	if (pt.paused)
		say("%llu events were made while snapshots paused the rings to copy them, and "
		    "are in none (not a full ring: fewer snapshots pause less)\n",
		    (unsigned long long)pt.paused);
	say("%llu events captured, %llu dropped%s; %s written to %s (%.1fx compressed, "
	    "%.1f bytes an event)\n",
	    (unsigned long long)pt.captured, (unsigned long long)pt.dropped,
	    !pt.dropped ? ""
	    : rc_session__transport(s) == RC_TRANSPORT_PERFBUF
		? " (rings full: try a larger -m/--mmap-pages)"
	    : rc_session__transport(s) == RC_TRANSPORT_FTRACE
		? " (rings full: try a larger --buffer-size)"
		: " (ring full: try a larger --ringbuf-size)",
	    human_bytes(bytes, b, sizeof(b)), strcmp(path, "-") ? path : "stdout",
	    bytes ? (double)raw / bytes : 0.0, pt.captured ? (double)bytes / pt.captured : 0.0);
}

/*
 * A full disk or the file size limit cut the file: it ends with its last
 * complete chunk and the counters of the whole recording. Say what it
 * holds and what is not in it.
 */
static void say_cut(struct rc_session *s, const char *path, int cut)
{
	uint64_t written = rc_session__records_written(s);
	struct rc_stats_point pt;

	rc_stats__totals(rc_session__stats(s), &pt);
	say("writing '%s' failed: %s: it holds the first %llu of %llu events captured; %llu were "
	    "read after the cut and are not in it, and %llu were dropped (ringcap stat counts "
	    "them: missing, dropped); free space or raise the file size limit, then record "
	    "again\n",
	    path, strerror(-cut), (unsigned long long)written, (unsigned long long)pt.captured,
	    (unsigned long long)(pt.captured > written ? pt.captured - written : 0),
	    (unsigned long long)pt.dropped);
}

/* The capture failed (a full disk, a closed pipe): say what it holds, and what was lost. */
static void say_incomplete(struct rc_session *s, const char *where)
{
	uint64_t written = rc_session__records_written(s);
	struct rc_stats_point pt;

	rc_stats__totals(rc_session__stats(s), &pt);
	say("the capture in %s is incomplete: it holds the %llu events of its complete chunks, "
	    "which report reads; %llu more events read were lost\n",
	    where, (unsigned long long)written,
	    (unsigned long long)(pt.captured > written ? pt.captured - written : 0));
}

/* --snapshot-on: an event name -e takes, or syscall:NAME. */
static int parse_snapshot_on(struct rc_record_opts *ro, const char *spec)
{
	const struct rc_schema *sc = rc_builtin_schema();
	const struct rc_enum *names = rc_schema__enum(sc, 1);
	char bad[64];
	uint32_t mask, i;

	ro->snap_nr = -1;
	if (!strncmp(spec, "syscall:", 8) || !strncmp(spec, "syscalls:", 9)) {
		const char *nm = strchr(spec, ':') + 1;

		for (i = 0; names && i < names->cnt; i++)
			if (!strcmp(names->entries[i].name, nm))
				break;
		if (!names || i == names->cnt) {
			say("unknown syscall in --snapshot-on '%s': give its name, like "
			    "syscall:kill\n",
			    spec);
			return -EINVAL;
		}
		ro->snap_type = rc_schema__event_by_name(sc, "syscall")->id;
		ro->snap_nr = names->entries[i].value;
	} else if (!rc_parse_events(spec, &mask, bad, sizeof(bad)) && !(mask & (mask - 1))) {
		ro->snap_type = __builtin_ctz(mask);
	} else {
		say("invalid --snapshot-on '%s': one event, like sched:sched_process_exit, or "
		    "syscall:NAME\n",
		    spec);
		return -EINVAL;
	}
	if (!(ro->events & RC_EVENT_BIT(ro->snap_type))) {
		say("--snapshot-on '%s' is not among the events recorded: add it to -e\n", spec);
		return -EINVAL;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct argp_child children[] = { { .argp = &scope_argp },
						      { .argp = &common_argp },
						      {} };
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = "[-- COMMAND [ARGS...]]",
		.doc = "Record events into a capture file.\v"
		       "Without -p or a command, records the whole system until Ctrl-C or -d. "
		       "With a command, starts it, records it and its children, and stops when "
		       "it exits.",
		.children = children,
	};
	struct rc_record_opts ro = { .sz = sizeof(ro) };
	struct workload wl = WORKLOAD_INIT;
	struct progress prog = { .tty = isatty(STDERR_FILENO) };
	struct ticks ticks = { .prog = &prog };
	struct rc_session *s = NULL;
	int err, how, cut, fd = -1;

	env = (struct env){ .output = DEFAULT_OUTPUT,
			    .min_free = DEFAULT_MIN_FREE,
			    .on_switch_timeout = 300 };
	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	if (err)
		return -err;
	if (env.list)
		return list_events(scope.cmd && scope.cmd[0] ? scope.cmd[0] : NULL);
	if (env.check)
		return check_kernel() ?: version_check_lines();
	err = scope_to_opts(&ro, argc, argv);
	ro.flush_ms = env.flush_ms;
	ro.overwrite = env.overwrite;
	ro.compress_level = env.compress_level;
	ro.no_compress = env.no_compress;
	if ((env.freq || env.period || env.off_cpu) && !scope.events_buf) {
		ro.events = 0; /* only what -F and --off-cpu make: not the default events */
		ro.ntracepoints = ro.nuprobes = 0;
	}
	if (env.freq || env.period) {
		ro.events |= RC_EVENT_BIT(RC_SAMPLE_ID);
		ro.sample_freq = env.freq;
		ro.sample_period = env.period;
	}
	ro.srclines = env.srclines;
	ro.call_graph = env.call_graph; /* samples', off-CPU records', and every event's stacks */
	ro.ustack_size = env.ustack_size;
	if (env.off_cpu)
		ro.events |= RC_EVENT_BIT(RC_OFFCPU_ID);
	if (env.bpf) {
		ro.events = 0;
		ro.ntracepoints = ro.nuprobes = 0;
		ro.bpf_object = env.bpf;
		ro.bpf_map = env.map;
		ro.event_type = env.event_type;
		ro.bpf_sets = env.sets;
		ro.nbpf_sets = env.nsets;
	}
	if (strcmp(env.output, "-"))
		ro.output = env.output;
	ro.switch_size = env.switch_size;
	ro.switch_ns = env.switch_ns;
	ro.switch_signal = env.switch_signal;
	ro.switch_max_files = env.switch_max_files;
	ro.max_size = env.max_size;
	ro.min_free = env.min_free;
	if (!err && env.snapshot_on)
		err = parse_snapshot_on(&ro, env.snapshot_on);
	if (!err && env.on_switch) {
		ticks.ship = ship_new(env.on_switch, env.on_switch_timeout);
		err = ticks.ship ? 0 : RC_EXIT_USAGE;
		ro.file_cb = ship_file_cb;
		ro.file_ctx = ticks.ship;
	}
	/* a --set the object has no global for is a bad argument, said before anything starts */
	if (!err && env.bpf && env.nsets) {
		err = rc_bpf_object__check_sets(env.bpf, env.sets, env.nsets);
		if (err == -EINVAL)
			err = RC_EXIT_USAGE;
	}
	/*
	 * SIGHUP: the next file, as logrotate expects of a daemon, with
	 * rotation, or to a file of a path without a controlling terminal;
	 * with one, SIGHUP is the terminal closing: a clean stop. Known
	 * before the handlers go in: a SIGHUP as the capture starts
	 * switches then, it does not stop the capture.
	 */
	capture_set_switching(env.switch_output || (ro.output && !has_ctty()),
			      env.switch_output != NULL);
	err = err ?: install_signals();
	/* a capture streamed to stdout: the command writes to stderr instead */
	wl.stdout_to_stderr = !strcmp(env.output, "-");
	if (!err && scope.cmd)
		err = workload_fork(&wl, scope.cmd);
	if (err)
		goto out;
	if (env.debuginfod)
		setup_debuginfod();
	else
		/*
		 * Nor does libdw ask (its standard debug-file search, for a
		 * file without .eh_frame that --call-graph=dwarf unwinds, asks
		 * $DEBUGINFOD_URLS's servers): perf clears it the same way.
		 */
		unsetenv("DEBUGINFOD_URLS");
	s = capture_open(&ro);
	if (!s) {
		err = -errno;
		goto out;
	}
	if (wl.pid > 0) {
		err = rc_session__add_target(s, wl.pid);
		if (err)
			goto out;
	}
	if (!env.switch_output) {
		fd = open_output(env.output);
		if (fd < 0) {
			err = fd;
			goto out;
		}
	}
	err = rc_session__start(s, fd);
	if (!err && wl.pid > 0)
		err = workload_start(&wl);
	if (err) {
		/* nothing was captured: leave no file behind that looks like one */
		if (fd >= 0 && fd != STDOUT_FILENO)
			unlink(env.output);
		if (env.switch_output)
			remove_run_files(s);
		goto out;
	}
	if (env.quiet || !(prog.tty || env.progress))
		ticks.prog = NULL;
	if (env.metrics)
		ticks.metrics = metrics_start(env.metrics);
	how = capture_run(s, &wl, ticks.prog || ticks.metrics || ticks.ship ? tick : NULL, &ticks);
	metrics_stop(ticks.metrics);
	if (prog.last)
		status_clear(prog.tty);
	if (how == CAPTURE_LIMIT)
		say("%s\n", rc_session__limit(s));
	else if (!env.quiet)
		capture_say_end(how);
	err = rc_session__stop(s) ?: (how < 0 ? how : 0);
	cut = rc_session__cut(s);
	if (!err && cut) {
		workload_end(&wl);
		workload_say_status(&wl, env.quiet);
		say_cut(s, fd == STDOUT_FILENO ? "stdout" : env.output, cut);
		err = RECORD_EXIT_CUT;
	} else if (how != CAPTURE_LIMIT && rc_session__limit(s)) {
		say("%s\n", rc_session__limit(s)); /* reached while stopping: a full disk, ... */
		/*
		 * No next file while stopping (a late switch): what was read
		 * after went into no file. --min-free reached then lost nothing.
		 */
		if (rc_session__limit_why(s) == RC_LIMIT_NO_FILE)
			err = err ?: RECORD_EXIT_EARLY;
	} else if (err)
		say_incomplete(s, fd == STDOUT_FILENO ? "stdout" : env.output);
	else {
		workload_end(&wl);
		/* the command's failure is said under -q too: its status is reported */
		workload_say_status(&wl, env.quiet);
		if (!env.quiet)
			print_summary(s, env.output);
		/*
		 * The files are complete, but the capture ended before it was
		 * asked to, the command killed: a script has to be able to tell.
		 * --max-size is the cap the user asked for: 0.
		 */
		if (how == CAPTURE_LIMIT && (rc_session__limit_why(s) == RC_LIMIT_MIN_FREE ||
					     rc_session__limit_why(s) == RC_LIMIT_NO_FILE))
			err = RECORD_EXIT_EARLY;
	}
	if (ticks.ship) {
		const char *first, *last;

		rc_session__files(s, &first, &last);
		ship_finish(ticks.ship, last);
	}
out:
	workload_end(&wl);
	rc_session__free(s);
	ship_free(ticks.ship);
	if (fd >= 0 && fd != STDOUT_FILENO && close(fd) && !err) {
		say("failed to close '%s': %s\n", env.output, strerror(errno));
		err = -EIO;
	}
	free((char *)ro.cmdline);
	return err;
}
