/* SPDX-License-Identifier: GPL-2.0-only */
/* Running ringcap and the workload from tests. */
#ifndef RINGCAP_RUN_UTIL_H
#define RINGCAP_RUN_UTIL_H

#include <stdbool.h>
#include <sys/types.h>

struct run {
	pid_t pid;
	int out_fd, err_fd; /* memfds holding stdout and stderr */
	int status;	    /* wait status */
	char *out, *err;    /* after run_wait() */
	long maxrss_kb;	    /* the child's peak RSS, after run_wait() */
	bool valgrind;	    /* ringcap started under memcheck */
};

/*
 * For a test that starts ringcap itself (a shell, or fork and exec):
 * run_exec() execs @argv as run_start() does, ringcap under memcheck
 * when make valgrind asks (RINGCAP_VALGRIND=1); ringcap_sh() is the same
 * command for sh -c, quoted: memcheck's options, then ringcap's path.
 * Under memcheck an error or leak of ringcap's makes it exit 99.
 * run_valgrind(): whether ringcap runs under memcheck.
 */
void run_exec(char *const argv[]);
const char *ringcap_sh(void);
bool run_valgrind(void);
/* Start argv (NULL-terminated) with stdout and stderr captured. */
int run_start(struct run *r, char *const argv[]);
/*
 * Wait up to @timeout_ms (then SIGKILL, and fail); collect the output. A
 * ringcap under valgrind gets VALGRIND_SLOWDOWN times as long: under memcheck
 * `ringcap record -- /bin/true` takes about 30 s (0.06 s without).
 */
int run_wait(struct run *r, int timeout_ms);
/* run_start + run_wait; returns the exit code, or -1 if it did not exit. */
int run_sync(struct run *r, char *const argv[], int timeout_ms);
void run_free(struct run *r);
/*
 * The next line of *@pos into @buf (cut to @len - 1 bytes, no newline), *@pos
 * moved past it; NULL at the end. For long outputs: strstr() and sscanf()
 * on what is left of one take its length each call (ASan's strstr
 * too), which makes a walk over its lines quadratic.
 */
char *next_line(const char **pos, char *buf, size_t len);
/* Lines of @text holding @needle (each line counted once). */
long count_lines_with(const char *text, const char *needle);
/* "NAME ARG1: exit N: the end of its stderr" if the last command ended badly, else "". */
const char *run_last_failure(void);
/* Wait until @path exists and is not empty (longer under valgrind, as run_wait). */
bool wait_nonempty(const char *path, int timeout_ms);
/* wait until @path is larger than @size bytes */
bool wait_larger(const char *path, off_t size, int timeout_ms);
/* A TCP port on 127.0.0.1 free when asked (the kernel's pick); 0 if none. */
int free_port(void);
/* "ringcap" or "rc_workload" in the build directory. */
const char *bin(const char *name);
/* A fresh directory for one test's files, and a path in it. */
const char *tmpdir(void);
const char *tmpfile_path(const char *name);
void tmpdir_cleanup(void);
/* Skip (and return false) unless root: BPF needs it. */
bool need_root(void);
/*
 * What the machine has, looked at by the tests themselves, never through
 * ringcap's probes: a skip must name what is missing outside ringcap, so
 * that a bug of ringcap's own probe fails rather than skips.
 */
/* A tracefs mounted, with its events (the test's own statfs()). */
bool tracefs_mounted(void);
/* The running kernel's release is @major.@minor or later (uname()). */
bool kernel_at_least(unsigned int major, unsigned int minor);
/* The pid a workload wrote to @path, or -1. */
pid_t read_pidfile(const char *path);
/*
 * python3 -c @script with up to 4 @args (NULL-terminated); its stdout in
 * *@out (free it). Returns its exit code; a failure fails the test.
 */
int run_py(const char *script, char *const args[], char **out);
/* Write @text to @path. */
bool save_text(const char *path, const char *text);

/* kernel.perf_event_max_sample_rate, or 0 */
unsigned long max_rate(void);
/*
 * -F for the tests: 499, or half the kernel's limit where it is lower (it
 * lowers the limit itself when samples take long, as under emulation).
 */
char *rate(void);

#endif
