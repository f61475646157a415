// SPDX-License-Identifier: GPL-2.0-only
/*
 * completions/ringcap.bash, sourced in a bash with Debian's bash-completion
 * as an interactive shell has it, its function called as bash calls it:
 * COMP_WORDS split at COMP_WORDBREAKS (":" and "=" are word breaks),
 * COMP_CWORD, COMP_LINE and COMP_POINT; COMPREPLY compared, sorted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "run_util.h"
#include "test_progs.h"

#define BASH_COMPLETION "/usr/share/bash-completion/bash_completion"

/* Run @script in @shell; its stdout in *@out (free it). */
static bool run_shell(const char *shell, const char *script, const char *name, char **out)
{
	struct run r = {};
	bool ok;

	setenv("RC", bin("ringcap"), 1);
	ok = ASSERT_EQ(run_sync(&r,
				!strcmp(shell, "zsh")
				    ? (char *[]){ "/usr/bin/zsh", "-f", "-c", (char *)script, NULL }
				    : (char *[]){ "/bin/bash", "--norc", "--noprofile", "-c",
						  (char *)script, NULL },
				30000),
		       0, name);
	*out = ok ? strdup(r.out) : NULL;
	run_free(&r);
	return ok && *out;
}

/*
 * Complete @line (what was typed, the cursor at its end), whose words as
 * bash splits them are @words (a bash array's body, without ringcap, which
 * comes first), in directory @dir: COMPREPLY, sorted, a line each, in *@out
 * (free it). COMP_WORDS[0] is the ringcap under test, whose --help and -l
 * the completion reads.
 */
static bool complete(const char *dir, const char *line, const char *words, char **out)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	char *script;
	bool ok;

	if (asprintf(&script,
		     "cd '%s' && . " BASH_COMPLETION " && . '%s/completions/ringcap.bash' &&\n"
		     "COMP_WORDS=(\"$RC\" %s)\n"
		     "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
		     "COMP_LINE=\"$RC\"' %s'\n"
		     "COMP_POINT=${#COMP_LINE}\n"
		     "COMPREPLY=()\n"
		     "_ringcap \"$RC\" \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
		     "((${#COMPREPLY[@]})) && printf '%%s\\n' \"${COMPREPLY[@]}\" | LC_ALL=C sort\n"
		     "exit 0\n",
		     dir, src, words, line) < 0)
		return false;
	ok = run_shell("bash", script, line, out);
	free(script);
	return ok;
}

/*
 * The same for completions/_ringcap in zsh, @words a zsh array's body
 * (zsh splits no word at ":" or "="), outside a completion widget: the
 * builtins and functions it calls are stubs that print what they are
 * given, compadd its words (zsh matches them against the word itself).
 */
static bool complete_zsh(const char *words, char **out)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	char *script;
	bool ok;

	if (asprintf(&script,
		     "compadd() { while (( $# )); do case $1 in (--) shift; break;;"
		     " (-[SJXt]) shift 2;; (-*) shift;; (*) break;; esac; done;"
		     " (( $# )) && print -l -- \"$@\"; }\n"
		     "compset() { : }\n"
		     "_describe() { local -a a; a=(\"${(@P)4}\"); print -l -- ${a%%%%:*} }\n"
		     "_files() { print -r -- \"_files $*\" }\n"
		     "_pids() { print _pids }\n"
		     "_normal() { print -r -- \"_normal $words $CURRENT\" }\n"
		     "words=(\"$RC\" %s)\n"
		     "CURRENT=${#words}\n"
		     "source '%s/completions/_ringcap' | LC_ALL=C sort\n",
		     words, src) < 0)
		return false;
	ok = run_shell("zsh", script, words, out);
	free(script);
	return ok;
}

/* @line completes to exactly @want (sorted, a line each) */
static void expect(const char *dir, const char *line, const char *words, const char *want)
{
	char *got;

	if (!complete(dir, line, words, &got))
		return;
	ASSERT_STREQ(got, want, line);
	free(got);
}

/* Every --option of `ringcap CMD --help` is offered after `ringcap CMD --`, and no other. */
static void every_option(const char *cmd, bool zsh)
{
	char line[64], words[64], opt[80], *got, *all, *p;
	struct run r = {};
	size_t offered = 0, found = 0;
	const char *q;

	snprintf(line, sizeof(line), "%s --", cmd);
	snprintf(words, sizeof(words), "%s --", cmd);
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ (char *)bin("ringcap"), (char *)cmd, "--help", NULL },
				10000),
		       0, "--help") ||
	    !(zsh ? complete_zsh(words, &got) : complete(".", line, words, &got)))
		goto out;
	for (q = got; *q; q = strchr(q, '\n') + 1)
		offered++;
	if (!ASSERT_OK(asprintf(&all, "\n%s", got) < 0, "asprintf"))
		goto out_got;
	/* each --name the help shows (as cli_help_documented reads them) */
	for (q = r.out; (q = strstr(q, "--")); q += 2) {
		char name[64];

		if (sscanf(q + 2, "%63[a-z-]", name) != 1 || !strcmp(name, "usage"))
			continue;
		/* the whole word, at a line's start, with or without its "=" */
		snprintf(opt, sizeof(opt), "\n--%s\n", name);
		p = strstr(all, opt);
		if (!p) {
			snprintf(opt, sizeof(opt), "\n--%s=\n", name);
			p = strstr(all, opt);
		}
		if (!ASSERT_OK_PTR(p, name))
			break;
	}
	/* and no other: as many as the help's distinct option names, and --help */
	for (q = got; *q; q = strchr(q, '\n') + 1) {
		char name[64];
		char want[80];

		if (sscanf(q, "--%63[a-z-]", name) != 1)
			continue;
		snprintf(want, sizeof(want), "--%s", name);
		if (strstr(r.out, want))
			found++;
		else
			ASSERT_OK_PTR(NULL, want); /* offered, not in --help */
	}
	ASSERT_EQ(found, offered, "every offer is an option of --help");
	ASSERT_TRUE(offered > 5, "options offered");
	free(all);
out_got:
	free(got);
out:
	run_free(&r);
}

void test_completion_bash(void)
{
	const char *dir, *rot = "x.rcap.20261126T061512.345Z.000001";
	char path[4096], *got;
	FILE *f;

	if (!getenv("RINGCAP_SRCDIR")) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	if (access(BASH_COMPLETION, R_OK)) {
		test__skip("bash-completion is not installed: scripts/deps.sh installs it");
		return;
	}
	if (test__start_subtest("commands")) {
		expect(".", "", "''", "--help\n--version\nrecord\nreport\nstat\n");
		expect(".", "re", "re", "record\nreport\n");
	}
	if (test__start_subtest("options")) {
		every_option("record", false);
		every_option("report", false);
		every_option("stat", false);
	}
	if (test__start_subtest("values")) {
		expect(".", "report --format=js", "report --format = js", "json\n");
		expect(".", "report --format ", "report --format ''",
		       "csv\nflamegraph\nfolded\njson\nperf-script\nperfetto\npprof\ntext\n");
		expect(".", "stat --transport p", "stat --transport p", "perfbuf\n");
		expect(".", "report --hist ", "report --hist ''", "runq\nsyscall\n");
		expect(".", "record --ftrace-read=s", "record --ftrace-read = s", "splice\n");
	}
	if (test__start_subtest("events")) {
		/* ":" breaks words: the completion gives what follows "sched:" */
		expect(".", "record -e sched:sched_process_ex", "record -e sched : sched_process_ex",
		       "sched_process_exec\nsched_process_exit\n");
		if (complete(".", "stat -e sysc", "stat -e sysc", &got)) {
			ASSERT_TRUE(!strncmp(got, "syscalls\nsyscalls:sys_enter_", 28),
				    "ringcap's syscalls, then the kernel's tracepoints");
			free(got);
		}
		/* a list: its last name completed, the rest kept */
		if (complete(".", "record -e syscalls,sch", "record -e syscalls,sch", &got)) {
			ASSERT_TRUE(!strncmp(got, "syscalls,sched\n", 15), "the list's last name");
			ASSERT_HAS(got, "syscalls,sched:sched_switch\n", "with its system");
			free(got);
		}
	}
	if (test__start_subtest("captures")) {
		/* *.rcap, a rotated run's files and directories; nothing else */
		dir = tmpdir();
		snprintf(path, sizeof(path), "%s/sub", dir);
		ASSERT_OK(mkdir(path, 0755), "mkdir");
		const char *files[] = { "a.rcap", "notes.txt", rot };
		for (size_t i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
			f = fopen(path, "w");
			if (ASSERT_OK_PTR(f, path))
				fclose(f);
		}
		expect(dir, "report ", "report ''", "a.rcap\nsub\nx.rcap.20261126T061512.345Z.000001\n");
		expect(dir, "stat a", "stat a", "a.rcap\n");
		expect(dir, "report -i ", "report -i ''",
		       "a.rcap\nsub\nx.rcap.20261126T061512.345Z.000001\n");
		/* record's arguments are a command's, not captures */
		expect(dir, "record --output=n", "record --output = n", "");
		tmpdir_cleanup();
	}
	if (test__start_subtest("command")) {
		/* after --, the command's own completion: commands by name */
		if (complete(".", "record -- tru", "record -- tru", &got)) {
			ASSERT_HAS(got, "true\n", "a command");
			free(got);
		}
	}
}

/* x completes to exactly @want (sorted, a line each) in zsh */
static void expect_zsh(const char *words, const char *want)
{
	char *got;

	if (!complete_zsh(words, &got))
		return;
	ASSERT_STREQ(got, want, words);
	free(got);
}

void test_completion_zsh(void)
{
	char *got;

	if (!getenv("RINGCAP_SRCDIR")) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	if (access("/usr/bin/zsh", X_OK)) {
		test__skip("zsh is not installed: scripts/deps.sh installs it");
		return;
	}
	expect_zsh("''", "--help\n--version\nrecord\nreport\nstat\n");
	every_option("record", true);
	every_option("report", true);
	every_option("stat", true);
	expect_zsh("report --format ''",
		   "csv\nflamegraph\nfolded\njson\nperf-script\nperfetto\npprof\ntext\n");
	expect_zsh("report --format=js",
		   "csv\nflamegraph\nfolded\njson\nperf-script\nperfetto\npprof\ntext\n");
	expect_zsh("stat --transport ''", "auto\nftrace\nperfbuf\nringbuf\n");
	expect_zsh("report ''", "_files -g *.rcap(-.) -g *.rcap.<->T<->.<->Z.<->(-.)\n");
	expect_zsh("record -- tr", "_normal tr 1\n");
	if (complete_zsh("record -e ''", &got)) {
		ASSERT_TRUE(!strncmp(got, "block:", 6) || !strncmp(got, "alarmtimer:", 11) ||
				strstr(got, "\nsched\n"),
			    "events");
		ASSERT_EQ(count_lines_with(got, "sched:sched_switch"), 1,
			  "sched:sched_switch once");
		ASSERT_HAS(got, "\nsyscalls\n", "syscalls");
		free(got);
	}
}
