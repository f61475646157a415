// SPDX-License-Identifier: GPL-2.0-only
/* ringcap record: argument parsing, the workload, signals and the summary. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "ringcap.h"

#define DEFAULT_EVENTS	"syscalls,sched"
#define DEFAULT_OUTPUT	"ringcap.rcap"
#define DEFAULT_RINGBUF (16ull << 20)
#define DRAIN_MS	100
#define MAX_PIDS	1024

enum {
	OPT_COMM = 256,
	OPT_RINGBUF_SIZE,
	OPT_DRAIN,
};

static struct env {
	const char *events;
	const char *output;
	const char *comm;
	pid_t pids[MAX_PIDS];
	size_t npids;
	bool all;
	double duration;
	uint64_t ringbuf_size;
	enum rc_drain_mode drain;
	bool quiet;
	char **cmd;
} env;

static const struct argp_option opts[] = {
    {"event", 'e', "EVENTS", 0,
     "Events to record: syscalls, sched, or event names, "
     "comma-separated (default: " DEFAULT_EVENTS ")"},
    {"all-cpus", 'a', NULL, 0, "System-wide (the default without -p or a command)"},
    {"pid", 'p', "PID[,PID...]", 0, "Only these processes"},
    {"comm", OPT_COMM, "NAME", 0, "Only tasks with this command name"},
    {"duration", 'd', "SECONDS", 0, "Stop after this long"},
    {"output", 'o', "FILE", 0, "Capture file (default: " DEFAULT_OUTPUT "; - for stdout)"},
    {"ringbuf-size", OPT_RINGBUF_SIZE, "SIZE", 0,
     "Ring buffer size: a power of two, 4K and up, like 16M (default: 16M)"},
    {"drain", OPT_DRAIN, "MODE", 0, "poll (sleep until woken, the default) or busy (spin)"},
    {"quiet", 'q', NULL, 0, "No summary at the end"},
    {},
};

static int parse_pids(const char *arg, struct argp_state *state)
{
	char *copy = strdup(arg), *tok, *save = NULL, *end;

	if (!copy)
		return ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || *end || v <= 0 || v > INT_MAX) {
			free(copy);
			argp_error(state, "invalid pid '%s': give process ids, like -p 1234,5678",
				   tok);
			return EINVAL;
		}
		if (env.npids == MAX_PIDS) {
			free(copy);
			argp_error(state, "too many pids: at most %d", MAX_PIDS);
			return EINVAL;
		}
		env.pids[env.npids++] = v;
	}
	free(copy);
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char *end;

	switch (key) {
	case 'e':
		env.events = arg;
		break;
	case 'a':
		env.all = true;
		break;
	case 'p':
		return parse_pids(arg, state);
	case OPT_COMM:
		if (!*arg || strlen(arg) > 15)
			argp_error(state,
				   "invalid --comm '%s': a command name of 1 to 15 characters",
				   arg);
		env.comm = arg;
		break;
	case 'd':
		errno = 0;
		env.duration = strtod(arg, &end);
		if (errno || *end || !(env.duration > 0) || !isfinite(env.duration) ||
		    env.duration > 1e9)
			argp_error(state, "invalid duration '%s': a positive number of seconds",
				   arg);
		break;
	case 'o':
		env.output = arg;
		break;
	case OPT_RINGBUF_SIZE: {
		long page = sysconf(_SC_PAGESIZE);

		if (parse_size(arg, &env.ringbuf_size) || env.ringbuf_size < (uint64_t)page ||
		    env.ringbuf_size > (1ull << 31) || (env.ringbuf_size & (env.ringbuf_size - 1)))
			argp_error(state,
				   "invalid ring buffer size '%s': a power of two from %ldK to 2G, "
				   "like 4M, 16M or 64M",
				   arg, page / 1024);
		break;
	}
	case OPT_DRAIN:
		if (!strcmp(arg, "poll"))
			env.drain = RC_DRAIN_POLL;
		else if (!strcmp(arg, "busy"))
			env.drain = RC_DRAIN_BUSY;
		else
			argp_error(state, "invalid drain mode '%s': poll or busy", arg);
		break;
	case 'q':
		env.quiet = true;
		break;
	case ARGP_KEY_ARG:
		return ARGP_ERR_UNKNOWN;
	case ARGP_KEY_ARGS:
		env.cmd = state->argv + state->next;
		break;
	case ARGP_KEY_END:
		if (env.cmd && env.npids)
			argp_error(state, "-p and a command exclude each other: give one");
		if (env.all && (env.npids || env.cmd))
			argp_error(state,
				   "-a records everything: drop it, or drop -p and the command");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: wake the poll */

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	/* a closed output pipe is an error to handle, with cleanup, not a death */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* The workload: forked now, held on a pipe until tracing is on, then exec'd. */
struct workload {
	pid_t pid;
	int go_fd;  /* write a byte to start it */
	int err_fd; /* reads the exec errno, or EOF when exec worked */
	int status;
	bool reaped;
};

static int workload_fork(struct workload *wl, char **argv)
{
	int go[2], errp[2];

	int err;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		err = -errno;
		goto out_close_go;
	}
	wl->pid = fork();
	if (wl->pid < 0) {
		err = -errno;
		close(errp[0]);
		close(errp[1]);
		goto out_close_go;
	}
	if (wl->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(errp[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* ringcap gave up before starting us */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	wl->go_fd = go[1];
	wl->err_fd = errp[0];
	return 0;

out_close_go:
	close(go[0]);
	close(go[1]);
	return err;
}

static int workload_start(struct workload *wl, const char *name)
{
	int e = 0;
	ssize_t n;

	if (write(wl->go_fd, "g", 1) != 1)
		return -errno;
	close(wl->go_fd);
	wl->go_fd = -1;
	n = read(wl->err_fd, &e, sizeof(e));
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == sizeof(e)) {
		say("failed to run '%s': %s\n", name, strerror(e));
		return -e;
	}
	return 0;
}

static bool workload_exited(struct workload *wl)
{
	if (!wl->reaped && waitpid(wl->pid, &wl->status, WNOHANG) == wl->pid)
		wl->reaped = true;
	return wl->reaped;
}

/*
 * Recording stopped before the workload did (-d, a signal, an error): ask
 * it to stop, and make it after two seconds. Its own children are left
 * alone, as perf leaves them.
 */
static void workload_end(struct workload *wl)
{
	int i;

	if (wl->go_fd >= 0)
		close(wl->go_fd); /* a workload never started exits on EOF */
	if (wl->err_fd >= 0)
		close(wl->err_fd);
	if (wl->pid <= 0 || workload_exited(wl))
		return;
	kill(wl->pid, SIGTERM);
	for (i = 0; i < 200 && !workload_exited(wl); i++)
		usleep(10000);
	if (!wl->reaped) {
		kill(wl->pid, SIGKILL);
		while (waitpid(wl->pid, &wl->status, 0) < 0 && errno == EINTR)
			;
		wl->reaped = true;
	}
}

static bool targets_gone(void)
{
	size_t i;

	for (i = 0; i < env.npids; i++)
		if (kill(env.pids[i], 0) == 0 || errno != ESRCH)
			return false;
	return env.npids > 0;
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

static void print_summary(struct rc_session *s, const char *path, struct workload *wl)
{
	uint64_t made, captured, dropped, bytes;
	char b[32];

	rc_session__totals(s, &made, &captured, &dropped, &bytes);
	if (wl->pid > 0 && wl->reaped) {
		if (WIFEXITED(wl->status))
			say("'%s' exited with status %d\n", env.cmd[0], WEXITSTATUS(wl->status));
		else if (WIFSIGNALED(wl->status))
			say("'%s' was killed by signal %d (%s)\n", env.cmd[0], WTERMSIG(wl->status),
			    strsignal(WTERMSIG(wl->status)));
	}
	say("%llu events captured, %llu dropped%s; %s written to %s\n",
	    (unsigned long long)captured, (unsigned long long)dropped,
	    dropped ? " (ring full: try a larger --ringbuf-size)" : "",
	    human_bytes(bytes, b, sizeof(b)), strcmp(path, "-") ? path : "stdout");
}

static double elapsed_s(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int run(struct rc_session *s, struct workload *wl)
{
	struct timespec t0;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop_signal) {
		n = rc_session__drain(s, DRAIN_MS);
		if (n < 0)
			return n;
		if (env.duration && elapsed_s(&t0) >= env.duration)
			break;
		if (wl->pid > 0 && workload_exited(wl))
			break;
		if (targets_gone()) {
			say("every process given with -p has exited\n");
			break;
		}
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct argp_child children[] = {{.argp = &common_argp}, {}};
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
	struct rc_record_opts ro = {.sz = sizeof(ro)};
	struct workload wl = {.go_fd = -1, .err_fd = -1};
	struct rc_session *s = NULL;
	char bad[64], *cmdline;
	int err, fd = -1;

	env = (struct env){
	    .events = DEFAULT_EVENTS, .output = DEFAULT_OUTPUT, .ringbuf_size = DEFAULT_RINGBUF};
	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	if (err)
		return -err;
	if (rc_parse_events(env.events, &ro.events, bad, sizeof(bad))) {
		say("unknown event '%s': choose from syscalls, sched, sched:sched_switch, "
		    "sched:sched_wakeup, sched:sched_process_fork, sched:sched_process_exec, "
		    "sched:sched_process_exit\n",
		    bad);
		return -EINVAL;
	}
	cmdline = join_args(argc, argv);
	ro.pids = env.pids;
	ro.npids = env.npids;
	ro.follow_forks = env.cmd != NULL;
	ro.comm = env.comm;
	ro.ringbuf_size = env.ringbuf_size;
	ro.wakeup_bytes = env.ringbuf_size / 16;
	ro.drain = env.drain;
	ro.cmdline = cmdline;

	err = install_signals();
	if (!err && env.cmd)
		err = workload_fork(&wl, env.cmd);
	if (err)
		goto out;
	s = rc_session__open(&ro);
	if (!s) {
		err = -errno;
		goto out;
	}
	if (wl.pid > 0) {
		err = rc_session__add_target(s, wl.pid);
		if (err)
			goto out;
	}
	fd = open_output(env.output);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	err = rc_session__start(s, fd);
	if (!err && wl.pid > 0)
		err = workload_start(&wl, env.cmd[0]);
	if (err) {
		/* nothing was captured: leave no file behind that looks like one */
		if (fd != STDOUT_FILENO)
			unlink(env.output);
		goto out;
	}
	err = run(s, &wl);
	err = rc_session__stop(s) ?: err;
	if (err)
		say("the capture %s%s%s is incomplete: report reads it up to its last "
		    "complete chunk\n",
		    fd == STDOUT_FILENO ? "on stdout" : "in '",
		    fd == STDOUT_FILENO ? "" : env.output, fd == STDOUT_FILENO ? "" : "'");
	else if (!env.quiet)
		print_summary(s, env.output, &wl);
out:
	workload_end(&wl);
	rc_session__free(s);
	if (fd >= 0 && fd != STDOUT_FILENO && close(fd) && !err) {
		say("failed to close '%s': %s\n", env.output, strerror(errno));
		err = -EIO;
	}
	free(cmdline);
	return err;
}
