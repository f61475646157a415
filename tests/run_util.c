// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "run_util.h"
#include "test_progs.h"

/* How much longer a ringcap under memcheck may take (run_wait, wait_larger). */
#define VALGRIND_SLOWDOWN 4

static char dir[64];
/* The last command that ended badly: its name and stderr's last lines. */
static char last_cmd[64];
static char last_failure[400];
static char paths[8][PATH_MAX];
static unsigned int npaths;

const char *bin(const char *name)
{
	static char buf[4][PATH_MAX];
	static unsigned int i;
	char *b = buf[i++ % 4];

	snprintf(b, PATH_MAX, "%s/%s", test__bindir(), name);
	return b;
}

const char *tmpdir(void)
{
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/ringcap-test.XXXXXX");
		if (!mkdtemp(dir))
			dir[0] = '\0';
	}
	return dir;
}

const char *tmpfile_path(const char *name)
{
	char *p = paths[npaths++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", tmpdir(), name);
	return p;
}

void tmpdir_cleanup(void)
{
	char cmd[128];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "failed to remove %s\n", dir);
	dir[0] = '\0';
}

#define TRACEFS_MAGIC_NR 0x74726163 /* linux/magic.h's TRACEFS_MAGIC */

bool tracefs_mounted(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char events[64];
	struct statfs sf;
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(events, sizeof(events), "%s/events", dirs[i]);
		if (!statfs(dirs[i], &sf) && sf.f_type == TRACEFS_MAGIC_NR && !access(events, F_OK))
			return true;
	}
	return false;
}

bool kernel_at_least(unsigned int major, unsigned int minor)
{
	unsigned int ma = 0, mi = 0;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

pid_t read_pidfile(const char *path)
{
	FILE *fp = fopen(path, "r");
	int pid = -1;

	if (fp) {
		if (fscanf(fp, "%d", &pid) != 1)
			pid = -1;
		fclose(fp);
	}
	return pid;
}

bool need_root(void)
{
	if (geteuid() == 0)
		return true;
	test__skip("needs root to load BPF programs: run the tests as root");
	return false;
}

/*
 * With RINGCAP_VALGRIND=1 (make valgrind), ringcap runs under memcheck: any
 * error or leak of its own makes it exit 99, which the test sees.
 */
static bool wants_valgrind(char *const argv[])
{
	const char *vg = getenv("RINGCAP_VALGRIND"), *src = getenv("RINGCAP_SRCDIR");
	const char *base = strrchr(argv[0], '/');

	return vg && !strcmp(vg, "1") && src && !strcmp(base ? base + 1 : argv[0], "ringcap");
}

static int slowed(int timeout_ms)
{
	return timeout_ms < INT_MAX / VALGRIND_SLOWDOWN ? timeout_ms * VALGRIND_SLOWDOWN : INT_MAX;
}

/* memcheck's command line before ringcap's: NULL-terminated, @supp its buffer. */
#define VALGRIND_ARGS(supp)                                                                        \
	"/usr/bin/valgrind", "-q", supp, "--leak-check=full",                                      \
	    "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99", NULL

static void suppressions(char *buf, size_t len)
{
	snprintf(buf, len, "--suppressions=%s/tests/valgrind.supp", getenv("RINGCAP_SRCDIR"));
}

void run_exec(char *const argv[])
{
	char supp[4200], *args[64];
	int i, n = 0;

	if (!wants_valgrind(argv)) {
		execv(argv[0], argv);
		return;
	}
	suppressions(supp, sizeof(supp));
	{
		char *const vg[] = { VALGRIND_ARGS(supp) };

		for (i = 0; vg[i]; i++)
			args[n++] = vg[i];
	}
	for (i = 0; argv[i] && n < 63; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	execv(args[0], args);
}

bool run_valgrind(void)
{
	return wants_valgrind((char *[]){ (char *)bin("ringcap"), NULL });
}

const char *ringcap_sh(void)
{
	static char cmd[PATH_MAX * 2 + 256];
	char supp[4200];
	size_t len = 0;
	int i;

	cmd[0] = '\0';
	if (run_valgrind()) {
		suppressions(supp, sizeof(supp));
		{
			char *const vg[] = { VALGRIND_ARGS(supp) };

			for (i = 0; vg[i] && len < sizeof(cmd); i++)
				len += snprintf(cmd + len, sizeof(cmd) - len, "'%s' ", vg[i]);
		}
	}
	if (len < sizeof(cmd))
		snprintf(cmd + len, sizeof(cmd) - len, "'%s'", bin("ringcap"));
	return cmd;
}

int run_start(struct run *r, char *const argv[])
{
	const char *base = strrchr(argv[0], '/');

	memset(r, 0, sizeof(*r));
	snprintf(last_cmd, sizeof(last_cmd), "%s%s%s", base ? base + 1 : argv[0],
		 argv[1] ? " " : "", argv[1] ? argv[1] : "");
	r->out_fd = memfd_create("stdout", MFD_CLOEXEC);
	r->err_fd = memfd_create("stderr", MFD_CLOEXEC);
	if (r->out_fd < 0 || r->err_fd < 0)
		return -errno;
	r->valgrind = wants_valgrind(argv);
	fflush(NULL);
	r->pid = fork();
	if (r->pid < 0)
		return -errno;
	if (r->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, STDIN_FILENO);
		dup2(r->out_fd, STDOUT_FILENO);
		dup2(r->err_fd, STDERR_FILENO);
		run_exec(argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return 0;
}

static char *read_memfd(int fd)
{
	off_t len = lseek(fd, 0, SEEK_END);
	char *s = malloc(len > 0 ? len + 1 : 1);

	if (!s)
		return NULL;
	if (len > 0 && pread(fd, s, len, 0) != len)
		len = 0;
	s[len > 0 ? len : 0] = '\0';
	return s;
}

/*
 * Keep what a command that ended badly said last, so that a test's failure
 * line can carry it: CI shows only the tail of the output.
 */
static void note_failure(const struct run *r)
{
	const char *err = r->err ? r->err : "";
	size_t len = strlen(err), keep = sizeof(last_failure) / 2;
	char how[32];

	if (WIFEXITED(r->status))
		snprintf(how, sizeof(how), "exit %d", WEXITSTATUS(r->status));
	else
		snprintf(how, sizeof(how), "signal %d", WTERMSIG(r->status));
	while (len && (err[len - 1] == '\n' || err[len - 1] == ' '))
		len--;
	snprintf(last_failure, sizeof(last_failure), "%s: %s: %s%.*s", last_cmd, how,
		 len > keep ? "..." : "", (int)(len > keep ? keep : len),
		 err + (len > keep ? len - keep : 0));
}

char *next_line(const char **pos, char *buf, size_t len)
{
	const char *p = *pos, *nl;
	size_t n;

	if (!p || !*p || !len)
		return NULL;
	nl = strchr(p, '\n');
	n = nl ? (size_t)(nl - p) : strlen(p);
	*pos = nl ? nl + 1 : p + n;
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

long count_lines_with(const char *text, const char *needle)
{
	char line[4096];
	long n = 0;

	while (next_line(&text, line, sizeof(line)))
		n += strstr(line, needle) != NULL;
	return n;
}

const char *run_last_failure(void)
{
	return last_failure;
}

int run_wait(struct run *r, int timeout_ms)
{
	struct rusage ru = {};
	int waited = 0;
	pid_t p;

	if (r->valgrind)
		timeout_ms = slowed(timeout_ms);

	for (;;) {
		p = wait4(r->pid, &r->status, WNOHANG, &ru);
		if (p == r->pid)
			break;
		if (p < 0)
			return -errno;
		if (waited >= timeout_ms) {
			kill(r->pid, SIGKILL);
			waitpid(r->pid, &r->status, 0);
			r->out = read_memfd(r->out_fd);
			r->err = read_memfd(r->err_fd);
			test__fail(__FILE__, __LINE__, "run_wait",
				   "timed out after %d ms; stderr: %s", timeout_ms,
				   r->err ? r->err : "");
			return -ETIMEDOUT;
		}
		usleep(10000);
		waited += 10;
	}
	r->out = read_memfd(r->out_fd);
	r->err = read_memfd(r->err_fd);
	r->maxrss_kb = ru.ru_maxrss;
	if (!WIFEXITED(r->status) || WEXITSTATUS(r->status))
		note_failure(r);
	else
		last_failure[0] = '\0';
	return 0;
}

int run_sync(struct run *r, char *const argv[], int timeout_ms)
{
	if (run_start(r, argv) || run_wait(r, timeout_ms))
		return -1;
	return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
}

void run_free(struct run *r)
{
	if (r->out_fd > 0)
		close(r->out_fd);
	if (r->err_fd > 0)
		close(r->err_fd);
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

bool wait_larger(const char *path, off_t size, int timeout_ms)
{
	const char *vg = getenv("RINGCAP_VALGRIND");
	struct stat st;
	int waited;

	/* what appears in @path is ringcap's doing, and it may be under memcheck */
	if (vg && !strcmp(vg, "1"))
		timeout_ms = slowed(timeout_ms);
	for (waited = 0; waited < timeout_ms; waited += 10) {
		if (stat(path, &st) == 0 && st.st_size > size)
			return true;
		usleep(10000);
	}
	return false;
}

bool wait_nonempty(const char *path, int timeout_ms)
{
	return wait_larger(path, 0, timeout_ms);
}

int run_py(const char *script, char *const args[], char **out)
{
	char *argv[8] = { "/usr/bin/python3", "-c", (char *)script };
	struct run r = {};
	int i, rc;

	for (i = 0; args[i] && i < 4; i++)
		argv[3 + i] = args[i];
	argv[3 + i] = NULL;
	rc = run_sync(&r, argv, 60000);
	if (rc)
		test__fail(__FILE__, __LINE__, "python3", "exit %d: %s", rc, r.err);
	*out = r.out;
	r.out = NULL;
	run_free(&r);
	return rc;
}

bool save_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0;

	return f && !fclose(f) && ok;
}

unsigned long max_rate(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long max = 0;

	if (fp) {
		if (fscanf(fp, "%lu", &max) != 1)
			max = 0;
		fclose(fp);
	}
	return max;
}

char *rate(void)
{
	static char buf[32];
	unsigned long max = max_rate();

	snprintf(buf, sizeof(buf), "%lu", max && max / 2 < 499 ? (max / 2 ?: 1) : 499);
	return buf;
}

int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = 0;

	if (fd < 0)
		return 0;
	if (!bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &alen))
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}
