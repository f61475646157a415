// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --check tells the truth on the kernel it runs on: each source it
 * calls usable records, and each it refuses is refused by record in one
 * line naming what is missing. Run in every guest of the kernel matrix, so
 * that what the README's Kernels table says of each kernel is what record
 * does there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <grp.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "run_util.h"
#include "test_progs.h"

/* A --check row and a record that uses just that source. */
struct source {
	const char *row; /* the row's label, as --check prints it */
	const char *args[8];
};

/* The value --check gives @row ("yes", a transport, or "no: ..."), or NULL. */
static const char *check_value(const char *out, const char *row, char *buf, size_t len)
{
	const char *pos = out;
	char line[512];
	size_t n = strlen(row);

	while (next_line(&pos, line, sizeof(line))) {
		const char *p = line;

		while (*p == ' ')
			p++;
		if (p == line || strncmp(p, row, n) || (p[n] != ' ' && p[n] != '\0'))
			continue;
		p += n;
		while (*p == ' ')
			p++;
		snprintf(buf, len, "%s", p);
		return buf;
	}
	return NULL;
}

static long count_lines(const char *s)
{
	long n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Record with @src's arguments; check the result against --check's @value. */
static void check_source(const struct source *src, const char *value)
{
	char *argv[24];
	struct run r = {};
	int i = 0, k, code;
	bool refused = !strncmp(value, "no", 2);

	argv[i++] = (char *)bin("ringcap");
	argv[i++] = "record";
	argv[i++] = "-q";
	argv[i++] = "-o";
	argv[i++] = (char *)tmpfile_path("check.rcap");
	for (k = 0; src->args[k]; k++)
		argv[i++] = (char *)src->args[k];
	argv[i] = NULL;
	code = run_sync(&r, argv, 120000);
	if (refused) {
		if (ASSERT_TRUE(code > 0, "record refuses what --check refuses")) {
			ASSERT_HAS(r.err, "needs", "the refusal names what is missing");
			ASSERT_EQ(count_lines(r.err), 1, "the refusal is one line");
		}
	} else {
		ASSERT_EQ(code, 0, "record takes what --check offers");
	}
	printf("    %s: --check says '%s'; record exits %d\n", src->row, value, code);
	run_free(&r);
}

void test_kernel_check(void)
{
	char up[512], value[256];
	const struct source sources[] = {
		{ "-e syscalls", { "-e", "syscalls", "-d", "0.3" } },
		{ "-e sched", { "-e", "sched", "-d", "0.3" } },
		{ "-e SYSTEM:NAME (tracepoints)",
		  { "-e", "syscalls:sys_enter_getppid", "-d", "0.3" } },
		{ "-e uprobe:BINARY:FUNCTION", { "-e", up, "-d", "0.3" } },
		{ "a command's children (record -- CMD)", { "-e", "syscalls", "--", "true" } },
		{ "-F --call-graph dwarf", { "-F", "99", "--call-graph", "dwarf", "-d", "0.3" } },
		{ "--transport ftrace",
		  { "--transport", "ftrace", "-e", "sched:sched_switch", "-d", "0.3" } },
	};
	const char *argv[] = { bin("ringcap"), "record", "--check", NULL };
	struct run r = {};
	size_t i;

	if (!need_root())
		return;
	snprintf(up, sizeof(up), "uprobe:%s:rc_probe_target", bin("rc_workload"));
	if (!ASSERT_EQ(run_sync(&r, (char *const *)argv, 60000), 0, "record --check"))
		goto out;
	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		test__start_subtest(sources[i].row);
		if (!ASSERT_OK_PTR(check_value(r.out, sources[i].row, value, sizeof(value)),
				   "--check has the row"))
			continue;
		check_source(&sources[i], value);
	}
out:
	run_free(&r);
	tmpdir_cleanup();
}

/* record --check run as nobody: its output in @buf (NUL-terminated); its exit status, or -1. */
static int check_as_nobody(char *buf, size_t len)
{
	int pfd[2], status;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(126);
		execl(bin("ringcap"), "ringcap", "record", "--check", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (pid > 0 && n + 1 < len && (k = read(pfd[0], buf + n, len - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = '\0';
	close(pfd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * record --check without privileges: what it could not look at is
 * "unknown", never "no" with a kernel version, and the kernel's BTF, which
 * anyone may read, is still looked at.
 */
void test_kernel_check_unprivileged(void)
{
	static char out[16384];
	const char *sources;
	int code;

	if (!need_root()) /* to become nobody */
		return;
	code = check_as_nobody(out, sizeof(out));
	if (code == 126 || code == 127) {
		test__skip("cannot become nobody, or nobody cannot run ringcap here (its "
			   "directory's permissions)");
		return;
	}
	if (!ASSERT_EQ(code, 0, "record --check as nobody"))
		return;
	printf("%s", out);
	ASSERT_HAS(out, "unknown: not permitted", "what needs privileges is unknown");
	sources = strstr(out, "record on this kernel:");
	if (ASSERT_OK_PTR(sources, "the sources"))
		ASSERT_TRUE(!strstr(sources, "(Linux "), "no kernel version named for a source");
	ASSERT_TRUE(!strstr(out, "BPF ring buffer (5.8)                                no"),
		    "no 'no' for what was not looked at");
	if (!access("/sys/kernel/btf/vmlinux", R_OK))
		ASSERT_HAS(out, "kernel BTF (/sys/kernel/btf/vmlinux)                 yes",
			   "BTF looked at");
}
