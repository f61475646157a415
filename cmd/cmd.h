/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RINGCAP_CMD_H
#define RINGCAP_CMD_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "ringcap.h"

/* Each handler returns 0, a positive exit status, or a negative errno after saying why. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* Exit statuses besides 0 and 1 (64, EX_USAGE, is argp's for bad arguments). */
#define RC_EXIT_TRUNCATED 2 /* report or stat of a truncated or damaged file */
#define RC_EXIT_DROPS	  3 /* stat --fail-on-drops: more drops than allowed */
#define RC_EXIT_USAGE	  64 /* bad arguments, found after argp's parse (EX_USAGE, as argp's) */

extern int verbosity;
extern const struct argp common_argp; /* -v, shared by every subcommand */

/* ringcap --version (version.c) */
int print_version(void);
/* record --check's last lines: what this build was built without */
int version_check_lines(void);

/* Route libbpf's and libringcap's messages to stderr by verbosity. */
void setup_logging(void);
/* "ringcap: " + message on stderr. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse "64M", "4096", "1G" (powers of 1024). */
int parse_size(const char *s, uint64_t *out);
/* A whole decimal number from @min to @max, or false. */
bool parse_long(const char *s, long min, long max, long *out);
/* Human-readable byte count ("1.5 MiB") into buf. */
const char *human_bytes(uint64_t n, char *buf, size_t len);
/* The open-files limit raised to its hard limit: report and stat open a descriptor a capture. */
void raise_nofile(void);
/* A status line on stderr: redrawn in place on a terminal, a new line otherwise. */
void status_line(bool tty, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Erase the status line before anything else is printed. */
void status_clear(bool tty);

/*
 * report's and stat's progress while they read: bytes and events so far and
 * the time left, on stderr when it is a terminal and reading takes over a
 * second (RINGCAP_PROGRESS_AFTER_MS, for the tests), redrawn a few times a
 * second and erased at the end. read_progress_start() installs it on each
 * reader of the set (rc_reader__on_chunk()); read_progress_end() erases it.
 */
struct read_progress {
	const struct rc_set *set;
	bool on, shown;
	uint64_t total; /* bytes of the files; 0: not known (a pipe) */
	uint64_t events;
	uint64_t t0, after, next; /* CLOCK_MONOTONIC ns */
};
void read_progress_start(struct read_progress *p, struct rc_set *set);
void read_progress_end(struct read_progress *p);

/* ---- scope: what to trace, shared by record and stat (scope.c) -------- */

#define RC_DEFAULT_EVENTS     "syscalls,sched"
#define RC_DEFAULT_RINGBUF    (16ull << 20)
#define RC_DEFAULT_PERFBUF    (8ull << 20) /* each CPU's */
#define RC_DEFAULT_FTRACE_BUF (8ull << 20) /* each CPU's */
#define RC_MAX_PIDS	      1024

#define RC_MAX_SPECS 256 /* tracepoint globs and probes in -e */

struct scope {
	const char *events; /* -e, every one given joined by commas */
	char *events_buf;
	const char *tracepoints[RC_MAX_SPECS]; /* scope_to_opts(): into events_copy */
	const char *uprobes[RC_MAX_SPECS];
	const char *pmu_events[RC_MAX_SPECS]; /* -e PMU// (intel_pt//u) */
	uint64_t aux_size;		      /* --aux-size: each CPU's AUX area; 0: default */
	char *events_copy;
	const char *comm;
	pid_t pids[RC_MAX_PIDS];
	size_t npids;
	bool all;
	double duration;
	uint64_t ringbuf_size;
	bool ringbuf_set;     /* --ringbuf-size given */
	uint64_t buffer_size; /* --buffer-size: each CPU's ftrace ring; 0: default */
	enum rc_transport transport;
	enum rc_ftrace_read ftrace_read; /* --ftrace-read; 0: auto */
	uint64_t mmap_bytes;	/* -m: each CPU's perf ring; 0: default */
	uint32_t wakeup_events; /* --wakeup N */
	uint64_t wakeup_bytes;	/* --wakeup SIZE */
	unsigned int wakeup_ms; /* --wakeup-ms */
	enum rc_drain_mode drain;
	char **cmd; /* set by the subcommand's parser, from ARGP_KEY_ARGS */
	bool given; /* -e, -a, -p, --comm or -d given */
};

extern struct scope scope;
extern const struct argp scope_argp;

/* At ARGP_KEY_END: options that exclude each other. */
void scope_check(struct argp_state *state);
/* Session options from the scope; ro->cmdline is allocated (free it). */
int scope_to_opts(struct rc_record_opts *ro, int argc, char **argv);

/* ---- the workload and the capture loop (workload.c) ------------------- */

struct workload {
	pid_t pid;
	bool stdout_to_stderr; /* the capture goes to stdout: the command's output must not */
	int go_fd;	       /* write a byte to start it */
	int err_fd;	       /* reads the exec errno, or EOF when exec worked */
	int status;
	bool reaped;
	const char *name;
};

#define WORKLOAD_INIT                                                                              \
	{                                                                                          \
		.go_fd = -1, .err_fd = -1                                                          \
	}

int install_signals(void);
/* Fork the command now, held until workload_start(). */
int workload_fork(struct workload *wl, char **argv);
int workload_start(struct workload *wl);
/* Stop a workload still running (SIGTERM, then SIGKILL) and reap it. */
void workload_end(struct workload *wl);
void workload_say_status(const struct workload *wl, bool failures_only);

double elapsed_since(const struct timespec *t0);

/* rc_session__open(), with start-up's memory kept for reuse while it loads. */
struct rc_session *capture_open(const struct rc_record_opts *ro);

/* Called after each drain, about ten times a second. */
typedef void (*capture_tick_fn)(void *ctx, struct rc_session *s, double elapsed);

enum capture_end {
	CAPTURE_SIGNAL = 1,
	CAPTURE_DURATION,
	CAPTURE_WORKLOAD_EXITED,
	CAPTURE_TARGETS_GONE,
	CAPTURE_LIMIT, /* --max-size, --min-free: rc_session__limit() says which */
};

/*
 * Before capture_run(): @hup, SIGHUP switches files (rc_session__switch())
 * instead of stopping; @rotating, SIGUSR2 does too (after a flight
 * recorder's snapshot).
 */
/* Whether ringcap has a controlling terminal (open("/dev/tty") works). */
bool has_ctty(void);
void capture_set_switching(bool hup, bool rotating);

/*
 * Drain until a signal, -d, the workload's exit, or the -p processes' exit.
 * Prints nothing; returns why it stopped (enum capture_end), or -errno.
 */
int capture_run(struct rc_session *s, struct workload *wl, capture_tick_fn tick, void *ctx);
/* After capture_run(): say why it stopped, when that is news. */
void capture_say_end(int how);

/* ---- record --metrics (metrics.c) -------------------------------------- */

struct metrics;
/* Serve /metrics on @addr; NULL, said in a line, when it cannot. */
struct metrics *metrics_start(const char *addr);
/* The port served on (0 for NULL). */
int metrics_port(const struct metrics *m);
/* From capture_run()'s tick: the ledger rendered for the next scrapes, once a second. */
void metrics_update(struct metrics *m, struct rc_session *s, double elapsed);
void metrics_stop(struct metrics *m);

/* ---- record --on-switch (ship.c) --------------------------------------- */

struct ship;
/* CMD split into words (no shell), its program found; NULL, said, when not. */
struct ship *ship_new(const char *cmd, unsigned int timeout_s);
/* rc_record_opts.file_cb, with the ship as its ctx: any thread. */
void ship_file_cb(void *ctx, enum rc_file_event ev, const char *name, const char *why);
/* From capture_run()'s tick: reap, time out, retry, start the next CMD; never waits. */
void ship_tick(struct ship *sh);
/*
 * After the session stopped: @last (the run's last file) shipped too, the
 * queue waited for, --on-switch-timeout in all; what is left is said, a
 * line a file. Returns the count of files left unshipped.
 */
size_t ship_finish(struct ship *sh, const char *last);
void ship_free(struct ship *sh);

/* ---- report --format folded / flamegraph (report_profile.c) ------------ */

/* The profiles' records of @kind as folded stacks on stdout, sorted, merged; 0 or -errno. */
int show_folded(const struct rc_profile_src *ps, size_t n, enum rc_profile_kind kind);
/* Their top @top functions, with and without their callees, on stdout; 0 or -errno. */
int show_functions(const struct rc_profile_src *ps, size_t n, enum rc_profile_kind kind,
		   size_t top);

/* report_aux.c: report --aux, --aux-dump; @t0 the capture clock's zero */
struct rc_aux_sum;
int show_aux(struct rc_aux_sum *s, bool json, uint64_t t0);
/* Their records of @kind as an SVG flame graph on stdout; 0 or -errno. */
int show_flamegraph(const struct rc_profile_src *ps, size_t n, enum rc_profile_kind kind);
/* pprof's gzipped profile.proto of @pp's records of @kind on stdout; 0 or -errno. */
int show_pprof(struct rc_pprof *pp, const struct rc_profile_src *ps, size_t n,
	       enum rc_profile_kind kind, const struct rc_meta *m0, uint64_t span);

#endif
