// SPDX-License-Identifier: GPL-2.0-only
/*
 * What to trace, for how long, and through which ring: the options record
 * and a live stat share (-e, -a, -p, --comm, -d, --transport,
 * --ftrace-read, --ringbuf-size, -m, --wakeup, --drain), as an argp child.
 */
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"

struct scope scope;

enum {
	OPT_COMM = 300,
	OPT_RINGBUF_SIZE,
	OPT_DRAIN,
	OPT_TRANSPORT,
	OPT_WAKEUP,
	OPT_WAKEUP_MS,
	OPT_BUFFER_SIZE,
	OPT_AUX_SIZE,
	OPT_FTRACE_READ,
};

static const struct argp_option scope_opts[] = {
	{ "event", 'e', "EVENTS", 0,
	  "Events, comma-separated, and -e may be repeated: syscalls, sched, ringcap's event "
	  "names, any tracepoint as SYSTEM:NAME (globs: 'block:*'), uprobe:BINARY:FUNCTION, "
	  "uretprobe:BINARY:FUNCTION, a PMU's AUX stream as PMU/TERMS/MODS (intel_pt//u, "
	  "arm_spe//) (default: " RC_DEFAULT_EVENTS ")" },
	{ "all-cpus", 'a', NULL, 0, "System-wide (the default without -p or a command)" },
	{ "pid", 'p', "PID[,PID...]", 0, "Only these processes" },
	{ "comm", OPT_COMM, "NAME", 0, "Only tasks with this command name" },
	{ "duration", 'd', "SECONDS", 0, "Stop after this long" },
	{ "ringbuf-size", OPT_RINGBUF_SIZE, "SIZE", 0,
	  "Ring buffer size: a power of two, 4K and up, like 16M (default: 16M)" },
	{ "drain", OPT_DRAIN, "MODE", 0, "poll (sleep until woken, the default) or busy (spin)" },
	{ "transport", OPT_TRANSPORT, "KIND", 0,
	  "ringbuf (one BPF ring buffer), perfbuf (a perf ring per CPU), ftrace (tracepoints by "
	  "the kernel's event tracer, its per-CPU rings read without BPF), or auto (the "
	  "default: ringbuf where the kernel has it; never ftrace)" },
	{ "ftrace-read", OPT_FTRACE_READ, "splice|mmap", 0,
	  "ftrace: how its rings are read: splice (whole pages from trace_pipe_raw, as "
	  "trace-cmd) or mmap (mapped, Linux 6.10+) (default: splice)" },
	{ "buffer-size", OPT_BUFFER_SIZE, "SIZE", 0,
	  "ftrace: each CPU's ring buffer, like 8M (default: 8M)" },
	{ "mmap-pages", 'm', "PAGES|SIZE", 0,
	  "perfbuf: each CPU's ring, in pages (128) or bytes (512K), rounded up to a power of two "
	  "pages (default: 8M)" },
	{ "aux-size", OPT_AUX_SIZE, "SIZE", 0,
	  "-e PMU//: each CPU's AUX area, a power of two, like 4M (the default) or 64M" },
	{ "wakeup", OPT_WAKEUP, "N|SIZE", 0,
	  "Wake the reader when SIZE bytes (64K) are pending, or, perfbuf, every N records "
	  "(default: a sixteenth of the ring; perfbuf, a quarter)" },
	{ "wakeup-ms", OPT_WAKEUP_MS, "MS", 0,
	  "Read the ring at least every MS milliseconds, woken or not: the longest an event "
	  "waits in it (default: 1000, or record's flush period)" },
	{},
};

static int parse_pids(const char *arg, struct argp_state *state)
{
	char *copy = strdup(arg), *tok, *save = NULL;

	if (!copy)
		return ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (!parse_long(tok, 1, INT_MAX, &v)) {
			/* tok points into copy: say it, then free it */
			argp_error(state, "invalid pid '%s': give process ids, like -p 1234,5678",
				   tok);
			free(copy);
			return EINVAL;
		}
		if (scope.npids == RC_MAX_PIDS) {
			free(copy);
			argp_error(state, "too many pids: at most %d", RC_MAX_PIDS);
			return EINVAL;
		}
		/* refused before anything starts, as perf does; EPERM: it exists */
		if (kill(v, 0) && errno == ESRCH) {
			free(copy);
			argp_error(state, "no process %ld: -p takes the ids of running processes",
				   v);
			return ESRCH;
		}
		scope.pids[scope.npids++] = v;
	}
	free(copy);
	return 0;
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* -m: pages, or a size; rounded up to a power of two pages, and said so. */
static void parse_mmap(const char *arg, struct argp_state *state)
{
	uint64_t page = sysconf(_SC_PAGESIZE), bytes, pages, p2 = 1;
	char b[32];

	if (all_digits(arg)) {
		errno = 0;
		pages = strtoull(arg, NULL, 10);
		if (errno || pages > (1ull << 30) / page)
			pages = 0;
	} else if (parse_size(arg, &bytes) || bytes > (1ull << 30)) {
		pages = 0;
	} else {
		pages = (bytes + page - 1) / page;
	}
	if (!pages)
		argp_error(state,
			   "invalid -m/--mmap-pages '%s': a number of pages (like 128) or a size "
			   "(like 512K), from one page to 1G",
			   arg);
	while (p2 < pages)
		p2 <<= 1;
	scope.mmap_bytes = p2 * page;
	if (p2 != pages || !all_digits(arg))
		say("-m %s: %llu pages (%s) per CPU%s\n", arg, (unsigned long long)p2,
		    human_bytes(scope.mmap_bytes, b, sizeof(b)),
		    p2 != pages ? ", rounded up to a power of two" : "");
}

static void parse_wakeup(const char *arg, struct argp_state *state)
{
	uint64_t v;

	if (all_digits(arg)) {
		errno = 0;
		v = strtoull(arg, NULL, 10);
		if (errno || !v || v > UINT32_MAX)
			argp_error(state, "invalid --wakeup '%s': 1 or more records", arg);
		scope.wakeup_events = v;
		scope.wakeup_bytes = 0;
		return;
	}
	if (parse_size(arg, &v) || !v || v > UINT32_MAX)
		argp_error(state,
			   "invalid --wakeup '%s': a number of records (like 64) or of bytes with "
			   "a unit (like 64K)",
			   arg);
	scope.wakeup_bytes = v;
	scope.wakeup_events = 0;
}

/* -e again: the lists add up. */
static void add_events(const char *arg, struct argp_state *state)
{
	char *joined;

	if (!*arg)
		argp_error(state, "-e needs event names: like -e syscalls or -e 'block:*'");
	if (!scope.events_buf)
		joined = strdup(arg);
	else if (asprintf(&joined, "%s,%s", scope.events_buf, arg) < 0)
		joined = NULL;
	if (!joined)
		argp_failure(state, 1, ENOMEM, "-e");
	free(scope.events_buf);
	scope.events = scope.events_buf = joined;
}

static error_t parse_scope(int key, char *arg, struct argp_state *state)
{
	long page = sysconf(_SC_PAGESIZE), v;
	char *end;

	switch (key) {
	case 'e':
		add_events(arg, state);
		scope.given = true;
		break;
	case 'a':
		scope.all = scope.given = true;
		break;
	case 'p':
		scope.given = true;
		return parse_pids(arg, state);
	case OPT_COMM:
		if (!*arg || strlen(arg) > 15)
			argp_error(state,
				   "invalid --comm '%s': a command name of 1 to 15 characters",
				   arg);
		scope.comm = arg;
		scope.given = true;
		break;
	case 'd':
		errno = 0;
		scope.duration = strtod(arg, &end);
		if (errno || *end || !(scope.duration > 0) || !isfinite(scope.duration) ||
		    scope.duration > 1e9)
			argp_error(state, "invalid duration '%s': a positive number of seconds",
				   arg);
		scope.given = true;
		break;
	case OPT_RINGBUF_SIZE:
		scope.given = true;
		scope.ringbuf_set = true;
		if (parse_size(arg, &scope.ringbuf_size) || scope.ringbuf_size < (uint64_t)page ||
		    scope.ringbuf_size > (1ull << 31) ||
		    (scope.ringbuf_size & (scope.ringbuf_size - 1)))
			argp_error(state,
				   "invalid ring buffer size '%s': a power of two from %ldK to 2G, "
				   "like 4M, 16M or 64M",
				   arg, page / 1024);
		break;
	case OPT_AUX_SIZE:
		scope.given = true;
		if (parse_size(arg, &scope.aux_size) || scope.aux_size < (uint64_t)page ||
		    scope.aux_size > (1ull << 32) || (scope.aux_size & (scope.aux_size - 1)))
			argp_error(state,
				   "invalid AUX area size '%s': a power of two from %ldK to 4G, "
				   "like 4M or 64M",
				   arg, page / 1024);
		break;
	case OPT_DRAIN:
		scope.given = true;
		if (!strcmp(arg, "poll"))
			scope.drain = RC_DRAIN_POLL;
		else if (!strcmp(arg, "busy"))
			scope.drain = RC_DRAIN_BUSY;
		else
			argp_error(state, "invalid drain mode '%s': poll or busy", arg);
		break;
	case OPT_TRANSPORT:
		scope.given = true;
		if (!strcmp(arg, "ringbuf"))
			scope.transport = RC_TRANSPORT_RINGBUF;
		else if (!strcmp(arg, "perfbuf"))
			scope.transport = RC_TRANSPORT_PERFBUF;
		else if (!strcmp(arg, "ftrace"))
			scope.transport = RC_TRANSPORT_FTRACE;
		else if (!strcmp(arg, "auto"))
			scope.transport = RC_TRANSPORT_AUTO;
		else
			argp_error(state,
				   "invalid transport '%s': ringbuf, perfbuf, ftrace or auto", arg);
		break;
	case OPT_FTRACE_READ:
		scope.given = true;
		if (!strcmp(arg, "mmap"))
			scope.ftrace_read = RC_FTRACE_READ_MMAP;
		else if (!strcmp(arg, "splice"))
			scope.ftrace_read = RC_FTRACE_READ_SPLICE;
		else
			argp_error(state, "invalid --ftrace-read '%s': mmap or splice", arg);
		break;
	case OPT_BUFFER_SIZE:
		scope.given = true;
		if (parse_size(arg, &scope.buffer_size) || scope.buffer_size < (uint64_t)page ||
		    scope.buffer_size > (1ull << 30))
			argp_error(state,
				   "invalid --buffer-size '%s': a size from %ldK to 1G, like 8M",
				   arg, page / 1024);
		break;
	case 'm':
		scope.given = true;
		parse_mmap(arg, state);
		break;
	case OPT_WAKEUP:
		scope.given = true;
		parse_wakeup(arg, state);
		break;
	case OPT_WAKEUP_MS:
		if (!parse_long(arg, 1, 60000, &v))
			argp_error(state, "invalid --wakeup-ms '%s': milliseconds from 1 to 60000",
				   arg);
		scope.wakeup_ms = v;
		scope.given = true;
		break;
	case ARGP_KEY_INIT:
		scope = (struct scope){ .events = RC_DEFAULT_EVENTS,
					.ringbuf_size = RC_DEFAULT_RINGBUF };
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp scope_argp = { .options = scope_opts, .parser = parse_scope };

/* --transport ftrace: the options of the BPF rings do not apply. */
static void ftrace_check(struct argp_state *state)
{
	if (scope.transport != RC_TRANSPORT_FTRACE) {
		if (scope.buffer_size)
			argp_error(state,
				   "--buffer-size sizes ftrace's rings (--transport ftrace): "
				   "the BPF ring buffer takes --ringbuf-size, the perf buffer -m");
		if (scope.ftrace_read)
			argp_error(state, "--ftrace-read is how ftrace's rings are read: add "
					  "--transport ftrace");
		return;
	}
	if (!scope.events_buf)
		argp_error(state, "--transport ftrace records the tracepoints given with -e, like "
				  "-e 'sched:sched_switch' or -e 'syscalls:sys_enter_*'");
	if (scope.ringbuf_set || scope.mmap_bytes)
		argp_error(state, "--ringbuf-size and -m size BPF rings: with --transport ftrace, "
				  "use --buffer-size (each CPU's ring)");
	if (scope.wakeup_events || scope.wakeup_bytes)
		argp_error(state, "--wakeup is for the BPF rings: ftrace wakes the reader when a "
				  "ring is half full (--wakeup-ms still applies)");
}

void scope_check(struct argp_state *state)
{
	ftrace_check(state);
	/* what only the perf buffer has asks for it */
	if (scope.transport == RC_TRANSPORT_AUTO && (scope.mmap_bytes || scope.wakeup_events))
		scope.transport = RC_TRANSPORT_PERFBUF;
	if (scope.transport == RC_TRANSPORT_RINGBUF && scope.mmap_bytes)
		argp_error(state, "-m/--mmap-pages sizes the perf buffer's rings: with "
				  "--transport ringbuf, use --ringbuf-size");
	if (scope.transport == RC_TRANSPORT_RINGBUF && scope.wakeup_events)
		argp_error(state, "--wakeup N (records) needs --transport perfbuf: a BPF ring "
				  "buffer wakes by bytes, like --wakeup 64K");
	if (scope.cmd && scope.npids)
		argp_error(state, "-p and a command exclude each other: give one");
	if (scope.all && (scope.npids || scope.cmd))
		argp_error(state, "-a traces everything: drop it, or drop -p and the command");
}

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/*
 * -e's list: ringcap's own events into the mask, probes and tracepoints
 * into their lists. What is neither is a tracepoint glob, which the
 * session looks up in tracefs.
 */
/*
 * The next entry of -e's list, cut out in place: up to a comma, but not one
 * between a PMU's slashes (intel_pt/cyc,noretcomp/u). Only an entry that
 * starts as NAME/ is a PMU's: a uprobe's path holds slashes too
 * (uprobe:/usr/bin/x:f,syscalls). NULL at the end.
 */
static char *next_entry(char **pos)
{
	char *start = *pos, *p;
	size_t name;

	while (*start == ',')
		start++;
	if (!*start)
		return NULL;
	name = strcspn(start, "/,:");
	p = start + name;
	if (name && *p == '/') {
		p = strchr(p + 1, '/');
		p = p ? p + strcspn(p, ",") : start + strlen(start);
	} else
		p = start + strcspn(start, ",");
	if (*p)
		*p++ = '\0';
	*pos = p;
	return start;
}

static int count_match(const char *system, const char *name, void *ctx)
{
	return 0;
}

/*
 * A tracepoint glob that matches nothing is a bad argument, said before
 * anything starts. When tracefs cannot be read (no root), the capture
 * says what it finds.
 */
static int check_tracepoint(const char *glob)
{
	int n = rc_list_tracepoints(glob, count_match, NULL);

	if (n == -EINVAL) {
		say("invalid event '%s': give SYSTEM:NAME, with globs on either side, like "
		    "'block:*'\n",
		    glob);
		return -EINVAL;
	}
	if (n != 0)
		return 0;
	say("unknown event '%s': not one of ringcap's (syscalls, sched, sched:sched_switch...), "
	    "and no tracepoint matches it: 'ringcap record -l' lists them all\n",
	    glob);
	return -EINVAL;
}

static int split_events(struct rc_record_opts *ro)
{
	char *tok, *pos, bad[64];
	size_t ntp = 0, nup = 0, npmu = 0;

	free(scope.events_copy);
	scope.events_copy = strdup(scope.events);
	if (!scope.events_copy)
		return -ENOMEM;
	pos = scope.events_copy;
	while ((tok = next_entry(&pos))) {
		uint32_t mask;
		bool probe = !strncmp(tok, "uprobe:", 7) || !strncmp(tok, "uretprobe:", 10);

		if (!probe && rc_is_pmu_event(tok)) {
			if (scope.transport == RC_TRANSPORT_FTRACE) {
				say("-e %s: a PMU's AUX stream is read beside the BPF rings: "
				    "drop --transport ftrace\n",
				    tok);
				return -EINVAL;
			}
			if (npmu == RC_MAX_SPECS)
				return -E2BIG;
			scope.pmu_events[npmu++] = tok;
			continue;
		}

		/*
		 * ftrace: every name is a tracepoint's, sched:sched_switch
		 * included; a group of ringcap's own (syscalls, sched) would
		 * be a kernel system there, other events under the same name
		 */
		if (!probe && scope.transport == RC_TRANSPORT_FTRACE && !strchr(tok, ':') &&
		    !rc_parse_events(tok, &mask, bad, sizeof(bad))) {
			say("-e %s is ringcap's own event, recorded by its BPF programs: with "
			    "--transport ftrace, name the kernel's tracepoints, like -e '%s:*'\n",
			    tok, tok);
			return -EINVAL;
		}
		if (!probe && scope.transport != RC_TRANSPORT_FTRACE &&
		    !rc_parse_events(tok, &mask, bad, sizeof(bad))) {
			ro->events |= mask;
			continue;
		}
		if ((probe ? nup : ntp) == RC_MAX_SPECS) {
			say("too many -e entries: at most %d tracepoint globs and %d probes\n",
			    RC_MAX_SPECS, RC_MAX_SPECS);
			return -E2BIG;
		}
		if (probe)
			scope.uprobes[nup++] = tok;
		else if (check_tracepoint(tok))
			return -EINVAL;
		else
			scope.tracepoints[ntp++] = tok;
	}
	if (!ro->events && !ntp && !nup && !npmu) {
		say("no events in -e '%s': give syscalls, sched, SYSTEM:NAME or "
		    "uprobe:BINARY:FUNCTION\n",
		    scope.events);
		return -EINVAL;
	}
	ro->tracepoints = scope.tracepoints;
	ro->ntracepoints = ntp;
	ro->uprobes = scope.uprobes;
	ro->nuprobes = nup;
	ro->pmu_events = scope.pmu_events;
	ro->npmu_events = npmu;
	ro->aux_size = scope.aux_size;
	return 0;
}

int scope_to_opts(struct rc_record_opts *ro, int argc, char **argv)
{
	int err;

	*ro = (struct rc_record_opts){ .sz = sizeof(*ro) };
	err = split_events(ro);
	if (err)
		return err == -ENOMEM ? err : RC_EXIT_USAGE;
	ro->pids = scope.pids;
	ro->npids = scope.npids;
	ro->follow_forks = scope.cmd != NULL;
	ro->comm = scope.comm;
	ro->transport = scope.transport;
	ro->ftrace_read = scope.ftrace_read;
	ro->ringbuf_size = scope.ringbuf_size;
	ro->wakeup_bytes = scope.wakeup_bytes ?: scope.ringbuf_size / 16;
	ro->wakeup_events = scope.wakeup_events;
	ro->wakeup_ms = scope.wakeup_ms;
	if (scope.transport == RC_TRANSPORT_PERFBUF) {
		ro->ringbuf_size = scope.mmap_bytes ?: RC_DEFAULT_PERFBUF;
		ro->wakeup_bytes = scope.wakeup_bytes ?: ro->ringbuf_size / 4;
	}
	if (scope.transport == RC_TRANSPORT_FTRACE) {
		ro->ringbuf_size = scope.buffer_size ?: RC_DEFAULT_FTRACE_BUF;
		ro->wakeup_bytes = 0;
	}
	ro->drain = scope.drain;
	ro->cmdline = join_args(argc, argv);
	return ro->cmdline ? 0 : -ENOMEM;
}
