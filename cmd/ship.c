// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --on-switch=CMD: each file a switch ends is given to CMD, in
 * order, one CMD at a time, from the drain's thread between drains; the
 * capture never waits on it. The writing thread tells of the files ended
 * and deleted (rc_record_opts.file_cb) into a list under a lock; the tick
 * moves them into the queue, reaps CMD (its pid only, WNOHANG: the
 * workload's exit is waited for by its own pid), kills it past its
 * timeout, retries a failure and starts the next.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "util/mem.h"

#define SHIP_QUEUE_MAX 64 /* files waiting, the one shipping included */
#define SHIP_RETRIES   3  /* after the first attempt: 1 s, 2 s, then 4 s later */
#define SHIP_GRACE_S   2  /* from SIGTERM to SIGKILL */

extern char **environ;

/* A file ended or deleted, told by the writing thread. */
struct ship_note {
	enum rc_file_event ev;
	char *name;
	const char *why;
};

struct ship {
	char **argv; /* CMD's words, then the file's path, then NULL */
	size_t argc; /* the words */
	char *words; /* their storage */
	unsigned int timeout_s;

	pthread_mutex_t lock; /* guards @notes, @nnotes, @notes_cap */
	struct ship_note *notes;
	size_t nnotes, notes_cap;

	char *queue[SHIP_QUEUE_MAX]; /* oldest first; [0] the one shipping or next */
	size_t nqueue;
	char *last_told; /* the last file told ended: the last one then is not given twice */
	pid_t pid;	 /* CMD running on queue[0]; 0: none */
	double started, term_sent, next_try;
	bool timed_out;
	unsigned int attempts; /* of queue[0], failed */
	uint64_t shipped, failed;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * CMD's words, as a command line without a shell: blanks separate them;
 * '...' keeps everything in it as is; "..." too, but \" and \\; a \
 * outside quotes keeps the next character. No variable, glob, redirection
 * or pipe: a file's path never meets a shell.
 */
static int split_words(struct ship *sh, const char *cmd)
{
	size_t len = strlen(cmd), n = 0, cap = 8;
	char *out, quote = 0;
	bool in_word = false;
	const char *p;

	sh->words = out = malloc(len + 1);
	sh->argv = malloc(cap * sizeof(*sh->argv));
	if (!out || !sh->argv)
		return -ENOMEM;
	for (p = cmd;; p++) {
		char c = *p;

		if (!quote && (!c || c == ' ' || c == '\t' || c == '\n')) {
			if (in_word) {
				*out++ = '\0';
				in_word = false;
			}
			if (!c)
				break;
			continue;
		}
		if (!c)
			return -EINVAL; /* an unterminated quote */
		if (!in_word) {
			if (n + 2 >= cap) {
				char **a = realloc(sh->argv, (cap *= 2) * sizeof(*a));

				if (!a)
					return -ENOMEM;
				sh->argv = a;
			}
			sh->argv[n++] = out;
			in_word = true;
		}
		if (quote && c == quote) {
			quote = 0;
		} else if (!quote && (c == '\'' || c == '"')) {
			quote = c;
		} else if (c == '\\' && quote != '\'' && p[1] &&
			   (!quote || p[1] == '"' || p[1] == '\\')) {
			*out++ = *++p;
		} else {
			*out++ = c;
		}
	}
	sh->argc = n;
	sh->argv[n] = sh->argv[n + 1] = NULL;
	return n ? 0 : -EINVAL;
}

/* Whether @prog runs: a path, or a name found in $PATH, executable. */
static bool program_found(const char *prog)
{
	const char *path = getenv("PATH"), *p, *end;
	char full[4096];

	if (strchr(prog, '/'))
		return !access(prog, X_OK);
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		size_t dl;

		end = strchrnul(p, ':');
		dl = end - p;
		if (snprintf(full, sizeof(full), "%.*s/%s", (int)dl, dl ? p : ".", prog) <
			(int)sizeof(full) &&
		    !access(full, X_OK))
			return true;
	}
	return false;
}

struct ship *ship_new(const char *cmd, unsigned int timeout_s)
{
	struct ship *sh = calloc(1, sizeof(*sh));
	int err;

	if (!sh) {
		say("--on-switch: %s\n", strerror(ENOMEM));
		return NULL;
	}
	pthread_mutex_init(&sh->lock, NULL);
	sh->timeout_s = timeout_s;
	err = split_words(sh, cmd);
	if (err) {
		if (err == -EINVAL)
			say("invalid --on-switch '%s': a program and its arguments, quoted with "
			    "'' or \"\" where they hold blanks (no shell: each file's path is "
			    "given as one more argument)\n",
			    cmd);
		else
			say("--on-switch: %s\n", strerror(-err));
		ship_free(sh);
		return NULL;
	}
	if (!program_found(sh->argv[0])) {
		say("invalid --on-switch '%s': '%s' is not a program %s (no shell: give the "
		    "program and its arguments, or sh -c '...')\n",
		    cmd, sh->argv[0], strchr(sh->argv[0], '/') ? "that runs" : "found in $PATH");
		ship_free(sh);
		return NULL;
	}
	return sh;
}

void ship_file_cb(void *ctx, enum rc_file_event ev, const char *name, const char *why)
{
	struct ship *sh = ctx;
	struct ship_note n = { .ev = ev, .name = strdup(name), .why = why };

	if (!n.name)
		return; /* cannot be told: the queue does not see it */
	pthread_mutex_lock(&sh->lock);
	if (rc_ensure_arr(&sh->notes, &sh->notes_cap, sh->nnotes + 1, 16))
		free(n.name);
	else
		sh->notes[sh->nnotes++] = n;
	pthread_mutex_unlock(&sh->lock);
}

static void pop_head(struct ship *sh)
{
	free(sh->queue[0]);
	memmove(sh->queue, sh->queue + 1, (sh->nqueue - 1) * sizeof(*sh->queue));
	sh->nqueue--;
	sh->attempts = 0;
	sh->next_try = 0;
}

/* A file to ship, at the queue's end; a full queue says it is not shipped. */
static void enqueue(struct ship *sh, char *name)
{
	if (sh->nqueue == SHIP_QUEUE_MAX) {
		say("--on-switch: %d files wait to be shipped already: '%s' is not shipped\n",
		    SHIP_QUEUE_MAX, name);
		sh->failed++;
		free(name);
		return;
	}
	sh->queue[sh->nqueue++] = name;
}

/* A cap deleted @name: said when it was still to be shipped. */
static void deleted(struct ship *sh, const char *name, const char *why)
{
	size_t i;

	for (i = 0; i < sh->nqueue; i++)
		if (!strcmp(sh->queue[i], name))
			break;
	if (i == sh->nqueue)
		return; /* shipped already, or said not to be */
	if (!i && sh->pid > 0) {
		say("--on-switch: %s deleted '%s' while '%s' was shipping it\n", why, name,
		    sh->argv[0]);
		return;
	}
	say("--on-switch: %s deleted '%s' before it was shipped: it is not shipped\n", why, name);
	sh->failed++;
	free(sh->queue[i]);
	memmove(sh->queue + i, sh->queue + i + 1, (sh->nqueue - i - 1) * sizeof(*sh->queue));
	sh->nqueue--;
	if (!i) {
		sh->attempts = 0;
		sh->next_try = 0;
	}
}

/* What the writing thread told, into the queue. */
static void take_notes(struct ship *sh)
{
	struct ship_note *notes;
	size_t n, i;

	pthread_mutex_lock(&sh->lock);
	notes = sh->notes;
	n = sh->nnotes;
	sh->notes = NULL;
	sh->nnotes = sh->notes_cap = 0;
	pthread_mutex_unlock(&sh->lock);
	for (i = 0; i < n; i++) {
		if (notes[i].ev == RC_FILE_ENDED) {
			free(sh->last_told);
			sh->last_told = strdup(notes[i].name);
			enqueue(sh, notes[i].name);
			continue;
		}
		deleted(sh, notes[i].name, notes[i].why);
		free(notes[i].name);
	}
	free(notes);
}

/* CMD on queue[0], in its own process group (a terminal's ^C is record's to take). */
static int spawn(struct ship *sh, double now)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int err;

	sh->argv[sh->argc] = sh->queue[0];
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	sigaddset(&dfl, SIGQUIT);
	sigaddset(&dfl, SIGUSR2);
	sigaddset(&dfl, SIGCHLD);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGXFSZ);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					  POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	err = posix_spawnp(&sh->pid, sh->argv[0], &fa, &at, sh->argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	sh->argv[sh->argc] = NULL;
	if (err) {
		sh->pid = 0;
		return -err;
	}
	sh->started = now;
	sh->term_sent = 0;
	sh->timed_out = false;
	return 0;
}

/* queue[0]'s attempt failed (@what says how): again later, or given up. */
static void attempt_failed(struct ship *sh, const char *what, double now)
{
	sh->attempts++;
	if (sh->attempts <= SHIP_RETRIES) {
		unsigned int delay = 1u << (sh->attempts - 1);

		say("--on-switch: '%s' on '%s' %s: trying again in %u s (retry %u of %d)\n",
		    sh->argv[0], sh->queue[0], what, delay, sh->attempts, SHIP_RETRIES);
		sh->next_try = now + delay;
		return;
	}
	say("--on-switch: '%s' on '%s' %s: given up after %u attempts, it is not shipped\n",
	    sh->argv[0], sh->queue[0], what, sh->attempts);
	sh->failed++;
	pop_head(sh);
}

static void reaped(struct ship *sh, int status, double now)
{
	char what[128];

	sh->pid = 0;
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		if (verbosity > 0)
			say("--on-switch: shipped '%s'\n", sh->queue[0]);
		sh->shipped++;
		pop_head(sh);
		return;
	}
	if (sh->timed_out)
		snprintf(what, sizeof(what), "ran past --on-switch-timeout=%u and was killed",
			 sh->timeout_s);
	else if (WIFEXITED(status))
		snprintf(what, sizeof(what), "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(what, sizeof(what), "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	attempt_failed(sh, what, now);
}

/* One step: reap CMD, kill it past its time, start the next. Never waits. */
static void step(struct ship *sh, double now)
{
	int status, err;
	pid_t r;

	if (sh->pid > 0) {
		r = waitpid(sh->pid, &status, WNOHANG);
		if (r == sh->pid) {
			reaped(sh, status, now);
		} else if (r < 0 && errno != EINTR) {
			sh->pid = 0; /* not ours to wait for any more: counted as a failure */
			attempt_failed(sh, strerror(errno), now);
		} else if (!sh->term_sent && now - sh->started >= sh->timeout_s) {
			sh->timed_out = true;
			sh->term_sent = now;
			kill(-sh->pid, SIGTERM);
		} else if (sh->term_sent && now - sh->term_sent >= SHIP_GRACE_S) {
			kill(-sh->pid, SIGKILL);
		}
	}
	if (sh->pid <= 0 && sh->nqueue && now >= sh->next_try) {
		err = spawn(sh, now);
		if (err) {
			char what[128];

			snprintf(what, sizeof(what), "could not start: %s", strerror(-err));
			attempt_failed(sh, what, now);
		}
	}
}

void ship_tick(struct ship *sh)
{
	if (!sh)
		return;
	take_notes(sh);
	step(sh, now_s());
}

/* Stop CMD now: SIGTERM, SIGKILL after the grace, reaped. */
static void kill_cmd(struct ship *sh)
{
	int status, i;

	if (sh->pid <= 0)
		return;
	kill(-sh->pid, SIGTERM);
	for (i = 0; i < SHIP_GRACE_S * 100; i++) {
		if (waitpid(sh->pid, &status, WNOHANG) == sh->pid)
			goto out;
		usleep(10000);
	}
	kill(-sh->pid, SIGKILL);
	while (waitpid(sh->pid, &status, 0) < 0 && errno == EINTR)
		;
out:
	say("--on-switch: '%s' on '%s' was still running at the end of the wait, and was "
	    "killed\n",
	    sh->argv[0], sh->queue[0]);
	sh->pid = 0;
}

size_t ship_finish(struct ship *sh, const char *last)
{
	double deadline;
	size_t left, i;

	if (!sh)
		return 0;
	take_notes(sh);
	if (last && (!sh->last_told || strcmp(sh->last_told, last)) && !access(last, F_OK)) {
		char *name = strdup(last);

		if (name)
			enqueue(sh, name);
	}
	deadline = now_s() + sh->timeout_s;
	while (sh->nqueue) {
		double now = now_s();

		if (now >= deadline)
			break;
		/* a retry due after the deadline will not come */
		if (sh->pid <= 0 && sh->next_try > deadline)
			break;
		step(sh, now);
		if (sh->nqueue)
			usleep(10000);
	}
	kill_cmd(sh);
	left = sh->nqueue;
	for (i = 0; i < left; i++)
		say("--on-switch: '%s' is not shipped: the wait at the end "
		    "(--on-switch-timeout=%u) is over\n",
		    sh->queue[i], sh->timeout_s);
	sh->failed += left;
	if (verbosity > 0)
		say("--on-switch: %llu files shipped, %llu not\n", (unsigned long long)sh->shipped,
		    (unsigned long long)sh->failed);
	return left;
}

void ship_free(struct ship *sh)
{
	size_t i;

	if (!sh)
		return;
	for (i = 0; i < sh->nqueue; i++)
		free(sh->queue[i]);
	for (i = 0; i < sh->nnotes; i++)
		free(sh->notes[i].name);
	free(sh->notes);
	free(sh->last_told);
	free(sh->argv);
	free(sh->words);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}
