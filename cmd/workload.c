// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workload of 'record -- COMMAND' and 'stat -- COMMAND': forked first,
 * held on a pipe until tracing is on, then exec'd; signals that stop a
 * capture; and the loop that drains a session until it is time to stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"

#define DRAIN_MS 100

static volatile sig_atomic_t stop_signal, snapshot_asked, hup_asked;

/* SIGHUP switches files (capture_set_switching()); SIGUSR2 too, rotating */
static volatile sig_atomic_t hup_switches;
static bool usr2_switches;

/* the workload, for a stop at once to take with it; 0: none */
static volatile sig_atomic_t workload_pid;

/* the session capture_run() drains, for a signal to cut its drain short; NULL: none */
static struct rc_session *volatile sig_session;

static void interrupt_drain(void)
{
	struct rc_session *s = sig_session;

	if (s)
		rc_session__interrupt(s);
}

/*
 * The first signal asks for a clean stop. A second SIGINT, SIGTERM or
 * SIGQUIT ends ringcap at once: the stop may wait on a writer blocked on a
 * pipe nobody reads (or a disk that hangs), and the user has said twice.
 * The workload is killed with it; the file holds its complete chunks; a
 * tracefs instance left behind is removed by the next run. SIGHUP never
 * does this: a closing terminal sends it twice (the shell's, then the
 * kernel's to the foreground group), and that stop must be clean.
 *
 * SIGHUP switches files instead (as logrotate expects of a daemon) with
 * --switch-output, or when record writes a file of a path and has no
 * controlling terminal: with one, it is the terminal closing.
 */
static void on_signal(int sig)
{
	static const char msg[] = "ringcap: a second signal: stopping at once; the capture holds "
				  "what was written, up to its last complete chunk\n";

	if (sig == SIGHUP && hup_switches) {
		hup_asked = 1;
		interrupt_drain();
		return;
	}
	if (stop_signal && sig != SIGHUP) {
		if (workload_pid > 0)
			kill(workload_pid, SIGKILL);
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
			/* nothing more to do: exiting */
		}
		_exit(128 + sig);
	}
	stop_signal = sig;
	interrupt_drain();
}

/*
 * The workload's exit: the drain is cut short, so that the capture stops
 * at once rather than at the drain's end (DRAIN_MS). Seen before the drain
 * began too (child_exited), by capture_run().
 */
static volatile sig_atomic_t child_exited;

static void on_chld(int sig)
{
	(void)sig;
	child_exited = 1;
	interrupt_drain();
}

static void on_usr2(int sig)
{
	(void)sig;
	snapshot_asked = 1;
	interrupt_drain();
}

int install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: wake the poll */

	sigemptyset(&sa.sa_mask);
	/* a closed terminal (SIGHUP) and SIGQUIT stop a capture cleanly too */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL) || sigaction(SIGQUIT, &sa, NULL))
		return -errno;
	/* the flight recorder's snapshot; otherwise noted, never a death */
	sa.sa_handler = on_usr2;
	if (sigaction(SIGUSR2, &sa, NULL))
		return -errno;
	/* the workload's exit; restarted calls but the waits, which return anyway */
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	if (sigaction(SIGCHLD, &sa, NULL))
		return -errno;
	/* a closed output pipe is an error to handle, with cleanup, not a death */
	signal(SIGPIPE, SIG_IGN);
	/* past RLIMIT_FSIZE a write fails with EFBIG: the file ends complete, as on a full disk */
	signal(SIGXFSZ, SIG_IGN);
	return 0;
}

int workload_fork(struct workload *wl, char **argv)
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
		signal(SIGHUP, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGUSR2, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		if (wl->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
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
	wl->name = argv[0];
	return 0;

out_close_go:
	close(go[0]);
	close(go[1]);
	return err;
}

int workload_start(struct workload *wl)
{
	int e = 0;
	ssize_t n;

	if (write(wl->go_fd, "g", 1) != 1)
		return -errno;
	workload_pid = wl->pid;
	close(wl->go_fd);
	wl->go_fd = -1;
	n = read(wl->err_fd, &e, sizeof(e));
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == sizeof(e)) {
		say("failed to run '%s': %s\n", wl->name, strerror(e));
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
 * Tracing stopped before the workload did (-d, a signal, an error): ask
 * it to stop, and make it after two seconds. Its own children are left
 * alone, as perf leaves them.
 */
void workload_end(struct workload *wl)
{
	int i;

	if (wl->go_fd >= 0)
		close(wl->go_fd); /* a workload never started exits on EOF */
	if (wl->err_fd >= 0)
		close(wl->err_fd);
	wl->go_fd = wl->err_fd = -1;
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

void workload_say_status(const struct workload *wl, bool failures_only)
{
	if (wl->pid <= 0 || !wl->reaped)
		return;
	if (failures_only && WIFEXITED(wl->status) && !WEXITSTATUS(wl->status))
		return;
	if (WIFEXITED(wl->status))
		say("'%s' exited with status %d\n", wl->name, WEXITSTATUS(wl->status));
	else if (WIFSIGNALED(wl->status))
		say("'%s' was killed by signal %d (%s)\n", wl->name, WTERMSIG(wl->status),
		    strsignal(WTERMSIG(wl->status)));
}

static bool targets_gone(void)
{
	size_t i;

	for (i = 0; i < scope.npids; i++)
		if (kill(scope.pids[i], 0) == 0 || errno != ESRCH)
			return false;
	return scope.npids > 0;
}

double elapsed_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

bool has_ctty(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return false; /* ENXIO: no controlling terminal (a daemon) */
	close(fd);
	return true;
}

void capture_set_switching(bool hup, bool rotating)
{
	hup_switches = hup;
	usr2_switches = rotating;
}

/* SIGHUP, SIGUSR2 rotating: the next file. */
static int switch_file(struct rc_session *s, const char *why)
{
	int err = rc_session__switch(s);

	if (err)
		say("%s: switching files failed: %s\n", why, strerror(-err));
	return err;
}

/* SIGUSR2: a flight recorder's snapshot; rotating, then the next file (perf's). */
static int take_snapshot(struct rc_session *s)
{
	bool overwrite = rc_session__meta(s) && (rc_session__meta(s)->flags & RC_META_OVERWRITE);
	long n;

	if (!overwrite && usr2_switches)
		return switch_file(s, "SIGUSR2");
	if (!overwrite) {
		say("SIGUSR2 ignored: snapshots are for the flight recorder (record "
		    "--overwrite), and switching files for --switch-output\n");
		return 0;
	}
	n = rc_session__snapshot(s, RC_SNAPSHOT_SIGNAL);
	if (n < 0) {
		say("snapshot failed: %s\n", strerror((int)-n));
		return (int)n;
	}
	if (verbosity > 0)
		say("snapshot: %ld events\n", n);
	return usr2_switches ? switch_file(s, "SIGUSR2") : 0;
}

/*
 * libbpf reads and parses the kernel's BTF (5 MB and more) for the feature
 * probe and for each BPF object, and frees it each time; from fresh mmap()s
 * every parse faults its pages in again, a third of ringcap's start-up CPU.
 * With the mmap and trim thresholds raised while the session opens, the
 * parses after the first reuse the heap's pages. Then malloc_trim() gives
 * them back. Setting a threshold ends glibc's sliding one for the run: from
 * here on a block of 128 KiB or more is mmap()ed (its default start), so
 * the capture's growing buffers leave no resident holes in the heap. A
 * user's own malloc tunables are left alone.
 */
static bool malloc_tuned_by_user(void)
{
	const char *t = getenv("GLIBC_TUNABLES");

	return (t && strstr(t, "glibc.malloc.")) || getenv("MALLOC_MMAP_THRESHOLD_") ||
	       getenv("MALLOC_TRIM_THRESHOLD_");
}

struct rc_session *capture_open(const struct rc_record_opts *ro)
{
	bool tune = !malloc_tuned_by_user();
	struct rc_session *s;
	int err;

	if (tune) {
		mallopt(M_MMAP_THRESHOLD, 32 << 20);
		mallopt(M_TRIM_THRESHOLD, 64 << 20);
	}
	s = rc_session__open(ro);
	err = errno;
	if (tune) {
		mallopt(M_MMAP_THRESHOLD, 128 << 10);
		mallopt(M_TRIM_THRESHOLD, 128 << 10);
		malloc_trim(0);
	}
	errno = err;
	return s;
}

static int capture_loop(struct rc_session *s, struct workload *wl, capture_tick_fn tick,
			void *ctx)
{
	struct timespec t0;
	double el;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop_signal) {
		n = rc_session__drain(s, DRAIN_MS);
		if (n < 0)
			return n;
		if (snapshot_asked) {
			snapshot_asked = 0;
			n = take_snapshot(s);
			if (n < 0)
				return n;
		}
		if (hup_asked) {
			hup_asked = 0;
			n = switch_file(s, "SIGHUP");
			if (n < 0)
				return n;
		}
		if (rc_session__limit(s))
			return CAPTURE_LIMIT;
		el = elapsed_since(&t0);
		if (tick)
			tick(ctx, s, el);
		if (scope.duration && el >= scope.duration)
			return CAPTURE_DURATION;
		if (wl->pid > 0 && workload_exited(wl))
			return CAPTURE_WORKLOAD_EXITED;
		if (targets_gone())
			return CAPTURE_TARGETS_GONE;
	}
	return CAPTURE_SIGNAL;
}

int capture_run(struct rc_session *s, struct workload *wl, capture_tick_fn tick, void *ctx)
{
	int how;

	sig_session = s;
	if (child_exited)
		interrupt_drain(); /* before the drain: its first wait is not waited out */
	how = capture_loop(s, wl, tick, ctx);
	sig_session = NULL;
	/*
	 * A SIGUSR2 after the loop's last look (the command exiting as it
	 * came): its snapshot or switch still comes, before the stop's.
	 */
	if ((how == CAPTURE_DURATION || how == CAPTURE_WORKLOAD_EXITED ||
	     how == CAPTURE_TARGETS_GONE) && snapshot_asked) {
		int err;

		snapshot_asked = 0;
		err = take_snapshot(s);
		if (err < 0)
			return err;
	}
	return how;
}

void capture_say_end(int how)
{
	if (how == CAPTURE_TARGETS_GONE)
		say("every process given with -p has exited\n");
}
