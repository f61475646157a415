// SPDX-License-Identifier: GPL-2.0-only
/*
 * The README's example commands, as the README has them (issue 31, item
 * 9): every command of its ```sh blocks, read from README.md, is either
 * run here or skipped for a reason stated in the table below, which also
 * says what its output looks like (the lines and fields the README shows,
 * not their values). A command the table does not know, or an entry no
 * longer in the README, fails the test: the table follows the README.
 *
 * The commands run in order, in one directory (later ones read the files
 * earlier ones write), with bash (kill %1), ringcap and the workloads of
 * the build directory first in PATH. What runs until Ctrl-C, or for
 * seconds, gets -d 0.3 (a third of a second has events to show, as the
 * checks want, system-wide: -d 1 waited out 8 s of the test in CI);
 * placeholders (./myprog, make, pid 1234) get a workload of the build.
 */
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "run_util.h"
#include "test_progs.h"

/* An event line of report's text: comm, pid/tid, [cpu], seconds: event: */
#define EV_LINE                                                                                    \
	"^ *([^ ]+ +)?[0-9]+/[0-9]+ +\\[[ 0-9-]+\\] -?[0-9]+\\.[0-9]{9}: [a-z_]+(:[a-z_0-9]+)?: "
#define SYSCALL_LINE EV_LINE "nr=[a-z_0-9]+ ret=-?[0-9]+ duration=[0-9.]+[mun]?s args=\\["
/* the summary line; "N dropped" may carry advice, "(ring full: ...)", on a busy machine */
#define WRITTEN	     "events captured, [0-9]+ dropped( \\([^)]*\\))?; .* written to "

struct example {
	const char *cmd;	 /* as in the README: spaces collapsed, no trailing comment */
	const char *skip;	 /* why it is not run here; NULL: run */
	const char *need;	 /* a shell test: false, the command is skipped (a tool missing) */
	const char *tool;	 /* what need looks for: the skipped subtest's name */
	const char *pre;	 /* run before it: what the README leaves to the reader */
	const char *subst[3][2]; /* replaced in the command before it runs */
	const char *post;	 /* appended to its script */
	int status;		 /* its exit status */
	const char *out[4];	 /* extended regexes its stdout matches, each somewhere */
	const char *err;	 /* and its stderr */
	const char *file, *file_re; /* a file it writes, and a regex its start matches */
};

static const struct example examples[] = {
	{ .cmd = "scripts/deps.sh && make && make demo",
	  .skip = "installs packages and builds: what make check has done" },
	{ .cmd = "scripts/deps.sh && make check", .skip = "the suite this test is part of" },
	{ .cmd = "scripts/deps.sh && make deb",
	  .skip = "installs packages and builds the package: make deb-check, in make check" },
	{ .cmd = "apt-get install ./build/deb/ringcap_*.deb",
	  .skip = "installs the package here: make deb-check installs it in chroots" },

	/* Use it */
	{ .cmd = "ringcap record", /* until Ctrl-C: -d 0.3 */
	  .subst = { { "ringcap record", "ringcap record -d 0.3" } },
	  .err = WRITTEN "ringcap.rcap" },
	{ .cmd = "ringcap record -e syscalls,sched -o build.rcap -- make -j2",
	  .subst = { { "make -j2", "sh -c 'ls / >/dev/null'" } },
	  .err = WRITTEN "build.rcap" },
	{ .cmd = "ringcap record -p 1234,5678 -d 10",
	  .subst = { { "-p 1234,5678 -d 10", "-p 1 -d 0.3" } },
	  .err = WRITTEN "ringcap.rcap" },
	{ .cmd = "ringcap record -e sched:sched_switch --comm nginx -d 5",
	  .subst = { { "-d 5", "-d 0.3" } },
	  .err = WRITTEN "ringcap.rcap" },
	{ .cmd = "ringcap record -e 'block:*' -e signal:signal_generate -d 10",
	  .subst = { { "-d 10", "-d 0.3" } },
	  .err = WRITTEN "ringcap.rcap" },
	{ .cmd = "ringcap record -e uprobe:/usr/bin/bash:readline,uretprobe:/usr/bin/bash:readline "
		 "-a", /* until Ctrl-C: -d 0.3 */
	  .need = "test -x /usr/bin/bash", .tool = "bash",
	  .subst = { { "readline -a", "readline -a -d 0.3" } },
	  .err = WRITTEN "ringcap.rcap" },
	{ .cmd = "ringcap report build.rcap | less", .out = { SYSCALL_LINE } },
	{ .cmd = "ringcap report --summary build.rcap",
	  .out = { "^# capture of [^ ]+, kernel [^ ]+, [^ ]+, [0-9]+ CPUs$",
		   "^# command: ringcap record ", "^# [0-9]+ events over [0-9]+\\.[0-9]{3} s$",
		   "^EVENT +COUNT$" } },
	/* the uprobe capture before has no events (no interactive bash): build.rcap's instead */
	{ .cmd = "ringcap report --event syscalls --pid 1234 --since 2 --until 3.5",
	  .pre = "cp build.rcap ringcap.rcap" },
	{ .cmd = "ringcap report --hist runq",
	  .out = { "^# wakeup to running \\(run-queue latency\\): [0-9]+ values",
		   "^ +usecs +: count +distribution$" } },
	{ .cmd = "ringcap report --format json > events.jsonl",
	  .file = "events.jsonl",
	  .file_re =
	      "^\\{\"time\":-?[0-9.]+,\"ts\":[0-9]+,\"cpu\":[0-9]+,\"pid\":[0-9]+,\"tid\":[0-9]+,"
	      "\"comm\":\"[^\"]*\",\"event\":\"[^\"]+\",\"fields\":\\{" },
	{ .cmd = "ringcap report --format csv > events.csv",
	  .file = "events.csv",
	  .file_re = "^time,ts,cpu,pid,tid,comm,event,nr,ret,duration,args," },
	{ .cmd = "ringcap report --format perfetto > trace.pftrace",
	  /* a Trace's first packet (tag 0x0a); protoc reads its wire format */
	  .post = " && head -c 1 trace.pftrace | grep -q '^$' && "
		  "{ ! command -v protoc >/dev/null || protoc --decode_raw < trace.pftrace >/dev/null; }" },
	{ .cmd = "ringcap report --format perfetto-json > trace.json",
	  .file = "trace.json",
	  .file_re = "^\\{\"displayTimeUnit\":\"ns\",\"traceEvents\":\\[" },
	{ .cmd = "ringcap report a.rcap b.rcap c.rcap",
	  .pre = "cp build.rcap a.rcap && cp build.rcap b.rcap && cp build.rcap c.rcap",
	  .out = { SYSCALL_LINE } },
	{ .cmd = "ringcap report --summary traces/",
	  .pre = "mkdir traces && ringcap record -q -e syscalls --switch-output=64K "
		 "-o traces/run.rcap -- rc_workload getppid 100000",
	  .out = { "^# [0-9]+ files, read as one ", "^# [0-9]+ events over [0-9.]+ s$",
		   "^EVENT +COUNT$" } },
	{ .cmd = "ringcap report --since 3600 --until 3601 'traces/run.rcap.*'" },
	/* -j 2 against one thread, on a capture of many chunks: the same bytes */
	{ .cmd = "ringcap report -j 2 --format json big.rcap > events.jsonl",
	  .pre = "ringcap record -q -e syscalls -o big.rcap -- rc_workload getppid 200000 && "
		 "ringcap report -j 1 --format json big.rcap > one.jsonl",
	  .post = " && cmp one.jsonl events.jsonl",
	  .file = "events.jsonl",
	  .file_re = "^\\{\"time\":-?[0-9.]+,\"ts\":[0-9]+,\"cpu\":[0-9]+," },
	{ .cmd = "ringcap record -F 99 -g -- ./myprog",
	  .subst = { { "./myprog", "rc_workload getppid 2000000" } },
	  .err = WRITTEN "ringcap.rcap" },
	{ .cmd = "ringcap report --format flamegraph > flame.svg",
	  .file = "flame.svg",
	  .file_re = "^<\\?xml version=\"1.0\" [^\n]*\n<svg version=\"1.1\" " },
	{ .cmd = "ringcap report --format folded | flamegraph.pl > flame2.svg",
	  .need = "command -v flamegraph.pl", .tool = "flamegraph.pl",
	  .file = "flame2.svg",
	  .file_re = "<svg " },
	{ .cmd = "ringcap report --format pprof > profile.pb.gz",
	  .post = " && gzip -t profile.pb.gz" },
	{ .cmd = "go tool pprof -top profile.pb.gz",
	  .need = "command -v go", .tool = "go",
	  .out = { "^File: rc_workload$", "^Showing nodes accounting for " } },
	{ .cmd = "ringcap report --format perf-script > prof.perf",
	  .file = "prof.perf",
	  /* perf pads addresses to 16 digits: a kernel frame's fill them, no space */
	  .file_re = "^[^\n]+ +[0-9]+ \\[[0-9]{3}\\] +[0-9]+\\.[0-9]{6}: +[0-9]+ +[a-z-]+: \n\t *[0-9a-f]+ " },
	{ .cmd = "ringcap record --off-cpu -o off.rcap -- ./myprog",
	  .subst = { { "./myprog", "sleep 0.2" } },
	  .err = WRITTEN "off.rcap" },
	{ .cmd = "ringcap stat build.rcap",
	  .out = { "^# build.rcap: complete, [0-9]+ events in [0-9]+ chunks?, [0-9.]+ s$",
		   "^# lost: [0-9]+ dropped in the kernel \\(ring full\\), ",
		   "^EVENT +MADE +IN FILE +DROPPED +FILTERED +MISSING$", "^total +[0-9]+ " } },
	{ .cmd = "ringcap stat --json build.rcap | jq .total",
	  .need = "command -v jq", .tool = "jq",
	  .out = { "^  \"made\": [0-9]+,$", "^  \"in_file\": [0-9]+,$", "^  \"missing\": 0,$" } },
	{ .cmd = "ringcap stat traces/",
	  .out = { "^FILE +HOST +RUN +SEQ +START \\(UTC\\) +END \\(UTC\\) +EVENTS +MADE +DROPPED "
		   "+MISSING$",
		   "^traces/run\\.rcap\\.[^ ]+ +[^ ]+ +[0-9a-f]{8} +1 ",
		   "^# [0-9]+ files: complete, [0-9]+ events in [0-9]+ chunks, [0-9.]+ s$" } },
	{ .cmd = "ringcap stat -a -d 10",
	  .subst = { { "-d 10", "-d 0.3" } },
	  .out = { "^# live: [0-9.]+ s$", "^EVENT +MADE +CAPTURED +DROPPED +FILTERED +PER SEC$" } },
	{ .cmd = "ringcap stat -e syscalls --fail-on-drops -- ./load-test",
	  .subst = { { "./load-test", "rc_workload getppid 10000" } },
	  .out = { "^# live: [0-9.]+ s$", "^syscall +[0-9]+ +[0-9]+ +0 " } },
	{ .cmd = "ringcap record -o - -d 2 | ringcap report -i - | head",
	  .subst = { { "-d 2", "-d 0.3" } },
	  .out = { EV_LINE } },
	{ .cmd = "ringcap record --transport perfbuf -m 1M -- ./server",
	  .subst = { { "./server", "rc_workload getppid 10000" } },
	  .err = "-m 1M: 256 pages \\(1024.0 KiB\\) per CPU" },
	{ .cmd =
	      "ringcap record --transport ftrace --buffer-size 32M -e 'sched:sched_switch,block:*' "
	      "-a -d 10",
	  .subst = { { "-d 10", "-d 0.3" } },
	  .err = WRITTEN "ringcap.rcap" },
	/*
	 * The job and its kill run in one shell; as a person would, the kill
	 * waits for the capture (its file, created once SIGUSR2 is handled).
	 */
	{ .cmd = "ringcap record --overwrite -m 256K --snapshot-on syscall:kill & kill -USR2 %1",
	  .pre = "rm -f ringcap.rcap",
	  .subst = { { "syscall:kill &\n",
		       "syscall:kill -d 2 &\nuntil [ -e ringcap.rcap ]; do sleep 0.1; done\n" } },
	  .post = "\nwait %1 && ringcap report | grep -m1 ringcap:snapshot",
	  .out = { EV_LINE } },
	{ .cmd =
	      "ringcap record -a -e sched --switch-output=1h --switch-max-files=24 -o sched.rcap",
	  .subst = { { "-o sched.rcap", "-o sched.rcap -d 0.3" } }, /* until Ctrl-C: -d 0.3 */
	  .err = WRITTEN "1 file of this run, the first kept 'sched\\.rcap\\.[0-9T.Z]+\\.000001'" },
	{ .cmd = "ringcap report sched.rcap.*", .out = { EV_LINE } },
	{ .cmd = "ringcap record --compress-level 9 -- make",
	  .subst = { { "-- make", "-- sh -c 'ls / >/dev/null'" } },
	  .err = WRITTEN "ringcap.rcap" },
	{ .cmd = "ringcap record --no-compress -o - | ringcap report -i -",
	  .subst = { { "-o -", "-d 0.3 -o -" } }, /* until Ctrl-C: -d 0.3 */
	  .out = { EV_LINE } },
	{ .cmd = "ringcap record --wakeup-ms 50 -o - | ringcap report -i -",
	  .subst = { { "-o -", "-d 0.3 -o -" } }, /* until Ctrl-C: -d 0.3 */
	  .out = { EV_LINE } },

	/* JSON Lines and CSV in other tools; build.rcap has failed calls */
	{ .cmd = "ringcap report --format json | jq -r 'select(.fields.ret_errno) | \"\\(.comm) "
		 "\\(.fields.nr) \\(.fields.ret_errno)\"'",
	  .need = "command -v jq", .tool = "jq",
	  .pre = "cp build.rcap ringcap.rcap",
	  .out = { "^[^ ]+ [a-z_0-9]+ E[A-Z0-9]+$" } },
	{ .cmd = "duckdb -c \"SELECT fields.nr, count(*), avg(fields.duration) AS ns FROM "
		 "read_json_auto('events.jsonl') WHERE event = 'syscall' GROUP BY ALL ORDER BY 2 "
		 "DESC LIMIT 10\"",
	  .need = "command -v duckdb", .tool = "duckdb" },
	{ .cmd = "python3 -c \"import pandas as pd; "
		 "print(pd.read_csv('events.csv').groupby('comm').size())\"",
	  .need = "python3 -c 'import pandas' 2>/dev/null", .tool = "pandas",
	  .out = { "^comm$" } },

	/* Look at it in your tools */
	{ .cmd = "ringcap record -F 99 -g -o prof.rcap -- ./myprog",
	  .subst = { { "./myprog", "rc_workload getppid 2000000" } },
	  .err = WRITTEN "prof.rcap" },
	{ .cmd = "ringcap report --format pprof prof.rcap > prof.pb.gz",
	  .post = " && gzip -t prof.pb.gz" },
	/* the web UI serves until Ctrl-C: -top reads the same file */
	{ .cmd = "go tool pprof -http=127.0.0.1:8080 prof.pb.gz",
	  .need = "command -v go", .tool = "go",
	  .subst = { { "-http=127.0.0.1:8080", "-top" } },
	  .out = { "^File: rc_workload$", "^Showing nodes accounting for " } },
	{ .cmd = "ringcap report --format perf-script --event sample --comm myprog prof.rcap > "
		 "prof.perf",
	  .subst = { { "--comm myprog", "--comm rc_workload" } },
	  .file = "prof.perf",
	  .file_re = "^rc_workload +[0-9]+ \\[[0-9]{3}\\] +[0-9]+\\.[0-9]{6}: +[0-9]+ +[a-z-]+: "
		     "\n\t *[0-9a-f]+ " },
	{ .cmd = "speedscope prof.perf",
	  .skip = "opens a browser: perfscript_speedscope opens both files in headless chromium" },
	{ .cmd = "speedscope prof.pb.gz",
	  .skip = "opens a browser: perfscript_speedscope opens both files in headless chromium" },
	{ .cmd = "ringcap report --format perfetto build.rcap > trace.perfetto",
	  .post = " && test -s trace.perfetto" },
	{ .cmd = "ringcap report --format folded prof.rcap > prof.folded",
	  .file = "prof.folded",
	  .file_re = "^[^ \n]+;[^\n]+ [0-9]+\n" },
	{ .cmd = "flamegraph.pl prof.folded > prof.svg",
	  .need = "command -v flamegraph.pl", .tool = "flamegraph.pl",
	  .file = "prof.svg",
	  .file_re = "<svg " },
	{ .cmd = "ringcap report --format json build.rcap > build.jsonl",
	  .file = "build.jsonl",
	  .file_re = "^\\{\"time\":-?[0-9.]+,\"ts\":[0-9]+,\"cpu\":[0-9]+," },
	{ .cmd = "jq -r .fields.nr build.jsonl | sort | uniq -c | sort -rn | head -5",
	  .need = "command -v jq", .tool = "jq",
	  .out = { "^ +[0-9]+ [a-z_0-9]+$" } },
	{ .cmd = "duckdb -c \"SELECT fields.nr, count(*) FROM read_json('build.jsonl') GROUP BY ALL "
		 "ORDER BY 2 DESC LIMIT 5\"",
	  .need = "command -v duckdb", .tool = "duckdb" },

	/* AUX streams */
	{ .cmd = "ringcap record -e syscalls,intel_pt//u --aux-size 64M -o pt.rcap -- ./prog",
	  .skip = "needs an AUX PMU (Intel PT): this machine has none" },
	{ .cmd = "ringcap report --aux pt.rcap", .skip = "needs pt.rcap, of Intel PT" },
	{ .cmd = "ringcap report --aux-dump ptdir pt.rcap", .skip = "needs pt.rcap, of Intel PT" },
	{ .cmd = "ringcap stat pt.rcap", .skip = "needs pt.rcap, of Intel PT" },
	{ .cmd = "ringcap record -e intel_pt//u --overwrite -a",
	  .skip = "needs an AUX PMU (Intel PT): this machine has none" },

	/* Your own BPF programs: in build/ and examples/ of the directory */
	{ .cmd = "clang -g -O2 -target bpf -I/usr/include/$(uname -m)-linux-gnu -c "
		 "examples/opensnoop.bpf.c -o build/examples/opensnoop.bpf.o",
	  .pre = "mkdir -p build/examples && ln -s \"$RINGCAP_SRCDIR/examples\" examples",
	  .need = "command -v clang", .tool = "clang",
	  .file = "build/examples/opensnoop.bpf.o",
	  .file_re = "^.ELF" },
	{ .cmd = "ringcap record --bpf build/examples/opensnoop.bpf.o --event-type event --set "
		 "target_comm=cat -o open.rcap -- cat /etc/hostname",
	  .need = "test -f build/examples/opensnoop.bpf.o", .tool = "opensnoop.bpf.o",
	  .err = WRITTEN "open.rcap" },
	{ .cmd = "ringcap report open.rcap | grep hostname",
	  .need = "test -f open.rcap", .tool = "open.rcap",
	  .out = { EV_LINE "pid=[0-9]+ tid=[0-9]+ comm=cat args\\.dfd=-100 args\\.flags=[0-9]+ "
			   "args\\.mode=[0-9]+ access=OPEN_READ filename=/etc/hostname$" } },

	/* Many hosts */
	{ .cmd = "ringcap record -a --switch-output=1h --switch-max-files=48 "
		 "--on-switch='ringcap export --clickhouse=http://ch:8123' -o "
		 "/var/lib/ringcap/run.rcap",
	  .skip = "records the machine an hour a file into /var/lib, shipping to a server named "
		  "ch: ship_* run --on-switch, clickhouse_export and clickhouse_cluster the "
		  "export and the README's queries" },
	{ .cmd = "ringcap stat --prometheus=/var/lib/prometheus/node-exporter/ringcap.prom "
		 "/var/lib/ringcap/",
	  .subst = { { "/var/lib/prometheus/node-exporter/ringcap.prom", "ringcap.prom" },
		     { "/var/lib/ringcap/", "build.rcap" } },
	  .file = "ringcap.prom",
	  .file_re = "^# HELP ringcap_build_info " },
};

#define NEX (sizeof(examples) / sizeof(examples[0]))

/* @s with runs of spaces (newlines, "\\\n") made one space, and a comment after the command cut. */
static char *normalize(const char *s)
{
	char *o = malloc(strlen(s) + 1), *p = o, q = 0;

	if (!o)
		return NULL;
	for (; *s; s++) {
		if (!q && *s == '#' && (p == o || p[-1] == ' '))
			break;
		if (*s == '\\' && s[1] == '\n' && !q)
			continue;
		if (isspace((unsigned char)*s)) {
			if (p > o && p[-1] != ' ')
				*p++ = ' ';
			continue;
		}
		if (*s == '\'' || *s == '"')
			q = q == *s ? 0 : q ? q : *s;
		*p++ = *s;
	}
	while (p > o && p[-1] == ' ')
		p--;
	*p = '\0';
	return o;
}

struct cmd {
	char *text; /* as written, lines joined with "\n" */
	char *key;  /* normalize()d */
};

static bool add_cmd(struct cmd **cmds, size_t *n, const char *text)
{
	struct cmd *c = realloc(*cmds, (*n + 1) * sizeof(**cmds));

	if (!c)
		return false;
	*cmds = c;
	c[*n].text = strdup(text);
	c[*n].key = c[*n].text ? normalize(text) : NULL;
	if (!c[*n].key) {
		free(c[*n].text);
		return false;
	}
	(*n)++;
	return true;
}

static bool ends_bg(const char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == ' ')
		n--;
	return n && s[n - 1] == '&' && (n < 2 || s[n - 2] != '&');
}

/*
 * The commands of the ```sh blocks of @readme: a line indented, or after
 * one ending in '\\', goes on the command before; a command ending in '&'
 * takes the next with it (they run in one shell: its %1).
 */
static bool read_cmds(const char *readme, struct cmd **cmds, size_t *n)
{
	char line[1024], cur[4096] = "";
	bool in_sh = false, ok = true;
	FILE *f = fopen(readme, "r");

	if (!f)
		return false;
	while (ok && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		bool cont;

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!strncmp(line, "```", 3)) {
			if (in_sh && *cur)
				ok = add_cmd(cmds, n, cur);
			*cur = '\0';
			in_sh = !in_sh && !strcmp(line, "```sh");
			continue;
		}
		if (!in_sh)
			continue;
		len = strlen(cur);
		cont = *cur &&
		       (isspace((unsigned char)line[0]) || cur[len - 1] == '\\' || ends_bg(cur));
		if (!line[0] || line[0] == '#') {
			if (*cur && !ends_bg(cur)) {
				ok = add_cmd(cmds, n, cur);
				*cur = '\0';
			}
			continue;
		}
		if (*cur && !cont) {
			ok = add_cmd(cmds, n, cur);
			*cur = '\0';
		}
		if (strlen(cur) + strlen(line) + 2 >= sizeof(cur))
			ok = false;
		else
			snprintf(cur + strlen(cur), sizeof(cur) - strlen(cur), "%s%s",
				 *cur ? "\n" : "", line);
	}
	fclose(f);
	return ok;
}

/* @text with each subst of @ex made (the first occurrence); NULL when one is not in it. */
static char *apply(const struct example *ex, const char *text)
{
	char *s = strdup(text);
	size_t i;

	for (i = 0; s && i < 3 && ex->subst[i][0]; i++) {
		char *at = strstr(s, ex->subst[i][0]), *o;

		if (!at) {
			free(s);
			return NULL;
		}
		if (asprintf(&o, "%.*s%s%s", (int)(at - s), s, ex->subst[i][1],
			     at + strlen(ex->subst[i][0])) < 0)
			o = NULL;
		free(s);
		s = o;
	}
	return s;
}

static bool matches(const char *re, const char *text)
{
	regex_t rx;
	bool m;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE | REG_NOSUB)) {
		fprintf(stderr, "  bad regex in the table: %s\n", re);
		return false;
	}
	m = !regexec(&rx, text ? text : "", 0, NULL, 0);
	regfree(&rx);
	return m;
}

/* bash -c "cd DIR; PATH=BUILD:$PATH; SCRIPT" in @r; its exit status, -1 when it did not exit. */
static int shell(struct run *r, const char *dir, const char *path, const char *script)
{
	char *s;
	int rc;

	/* lines of their own: "CMD &" is the job of CMD alone */
	if (asprintf(&s, "cd '%s' || exit 99\nexport PATH='%s':\"$PATH\"\n%s", dir, path, script) <
	    0)
		return -1;
	rc = run_sync(r, (char *[]){ "/bin/bash", "-c", s, NULL }, 60000);
	free(s);
	return rc;
}

static void check_file(const struct example *ex, const char *dir)
{
	char *path, buf[4096] = "";
	size_t n = 0;
	FILE *f;

	if (asprintf(&path, "%s/%s", dir, ex->file) < 0)
		path = NULL;
	f = path ? fopen(path, "r") : NULL;
	free(path);
	if (!ASSERT_OK_PTR(f, ex->file))
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!ASSERT_TRUE(matches(ex->file_re, buf), "the file as the README shows it"))
		fprintf(stderr, "  %s starts: %.200s\n", ex->file, buf);
}

static void run_example(const struct example *ex, const struct cmd *c, const char *dir,
			const char *path)
{
	struct run r = {};
	char *script = NULL, *full = NULL;
	size_t i;
	int rc;

	if (ex->need && shell(&r, dir, path, ex->need) != 0) {
		/* a branch not taken is a skipped subtest, bounded by tests/skips/ */
		printf("    skipped (%s fails): %s\n", ex->need, c->key);
		test__skip_subtest(ex->tool, ex->need);
		goto out;
	}
	run_free(&r);
	if (ex->pre && !ASSERT_EQ(shell(&r, dir, path, ex->pre), 0, ex->pre)) {
		fprintf(stderr, "%s", r.err ? r.err : "");
		goto out;
	}
	run_free(&r);
	script = apply(ex, c->text);
	if (!ASSERT_OK_PTR(script, "each substitution in the command") ||
	    asprintf(&full, "%s%s", script, ex->post ? ex->post : "") < 0)
		goto out;
	rc = shell(&r, dir, path, full);
	printf("    exit %d: %s\n", rc, c->key);
	if (!ASSERT_EQ(rc, ex->status, c->key)) {
		fprintf(stderr, "  run as: %s\n  stderr: %.2000s\n", full, r.err ? r.err : "");
		goto out;
	}
	for (i = 0; i < 4 && ex->out[i]; i++)
		if (!ASSERT_TRUE(matches(ex->out[i], r.out), ex->out[i]))
			fprintf(stderr, "  %s: stdout: %.1000s\n", c->key, r.out ? r.out : "");
	if (ex->err && !ASSERT_TRUE(matches(ex->err, r.err), ex->err))
		fprintf(stderr, "  %s: stderr: %.1000s\n", c->key, r.err ? r.err : "");
	if (ex->file)
		check_file(ex, dir);
out:
	run_free(&r);
	free(script);
	free(full);
}

void test_readme_examples(void)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	char readme[PATH_MAX], path[PATH_MAX], dir[PATH_MAX];
	struct cmd *cmds = NULL;
	bool *used = calloc(NEX, sizeof(*used));
	size_t n = 0, i, k;

	if (!src) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		goto out;
	}
	if (!need_root() || !ASSERT_OK_PTR(used, "calloc"))
		goto out;
	snprintf(readme, sizeof(readme), "%s/README.md", src);
	if (!ASSERT_TRUE(read_cmds(readme, &cmds, &n), "read README.md") ||
	    !ASSERT_TRUE(n >= 40, "commands in the README's sh blocks"))
		goto out;
	if (!realpath(bin("ringcap"), path) || !realpath(tmpdir(), dir)) {
		ASSERT_TRUE(false, "paths");
		goto out;
	}
	*strrchr(path, '/') = '\0';
	for (i = 0; i < n; i++) {
		for (k = 0; k < NEX && strcmp(examples[k].cmd, cmds[i].key); k++)
			;
		if (!ASSERT_TRUE(k < NEX, "a README command the table knows")) {
			fprintf(stderr, "  not in tests/test_readme.c: %s\n", cmds[i].key);
			continue;
		}
		used[k] = true;
		if (examples[k].skip) {
			printf("    skipped (%s): %s\n", examples[k].skip, cmds[i].key);
			continue;
		}
		run_example(&examples[k], &cmds[i], dir, path);
	}
	for (k = 0; k < NEX; k++)
		if (!ASSERT_TRUE(used[k], "a table entry the README has"))
			fprintf(stderr, "  no longer in README.md: %s\n", examples[k].cmd);
out:
	for (i = 0; i < n; i++) {
		free(cmds[i].text);
		free(cmds[i].key);
	}
	free(cmds);
	free(used);
	tmpdir_cleanup();
}
