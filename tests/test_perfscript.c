// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --format perf-script against the real perf script: the same kind
 * of events recorded by perf record and by ringcap record, printed by
 * perf script with an explicit field list and by report; each line's shape
 * (columns, widths, six decimals, the trace text's fields, the frames'
 * lines) compared, never the values, which differ between runs.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include "capture_util.h"
#include "ft_formats.h"
#include "output/output.h"
#include "tracefs/tpformat.h"
#include "test_progs.h"
#include "run_util.h"

#define PERF "/usr/bin/perf"

/*
 * Built-in records through the perf-script output, in memory: the exact
 * text, byte for byte, a call's entry line in time order before a switch
 * during the call, read before the call's record. Two outputs at once,
 * interleaved, give the same text: each keeps its state to itself.
 */
void test_perfscript_text(void)
{
	static const char want[] =
	    "            unit   101 [001]     2.999123: raw_syscalls:sys_enter: "
	    "NR 39 (1, 2, 3, 4, 5, 10)\n"
	    "           other   202 [000]     2.999500:     sched:sched_switch: prev_comm=other "
	    "prev_pid=202 prev_prio=120 prev_state=S ==> next_comm=idle2 next_pid=7 "
	    "next_prio=139\n"
	    "            unit   101 [001]     3.000123:  raw_syscalls:sys_exit: NR 39 = -2\n"
	    "            unit   101 [000]     3.500000:     sched:sched_switch: prev_comm=unit "
	    "prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=idle2 next_pid=7 "
	    "next_prio=139\n"
	    "            unit   101 [000]     3.600000: raw_syscalls:sys_enter: "
	    "NR 231 (0, 0, 0, 0, 0, 0)\n"
	    "unit   101 [001]     4.000000:    1001001              cpu-clock: \n"
	    "\t            1234 [unknown] ([unknown])\n"
	    "\n";
	struct rc_note note = { .key = "sampling", .data = "cpu-clock", .len = 9 };
	struct rc_ev_syscall sc = { .hdr = { .ts = 1000 + 3000123456ull,
					     .pid = 100,
					     .tid = 101,
					     .type = RC_EV_SYSCALL,
					     .size = sizeof(sc),
					     .cpu = 1,
					     .comm = "unit" },
				    .nr = 39,
				    .ret = -2,
				    .duration = 1000000,
				    .args = { 1, 2, 3, 4, 5, 0x10 } };
	struct rc_ev_syscall gone = { .hdr = { .ts = 1000 + 3600000000ull,
					       .pid = 100,
					       .tid = 101,
					       .type = RC_EV_SYSCALL,
					       .size = sizeof(gone),
					       .flags = RC_SYSCALL_F_NORETURN,
					       .comm = "unit" },
				      .nr = 231 };
	struct rc_ev_switch sw = { .hdr = { .ts = 1000 + 3500000000ull,
					    .pid = 100,
					    .tid = 101,
					    .type = RC_EV_SCHED_SWITCH,
					    .size = sizeof(sw),
					    .comm = "unit" },
				   .prev_state = 1,
				   .prev_prio = 120,
				   .next_pid = 7,
				   .next_tid = 7,
				   .next_prio = 139,
				   .next_comm = "idle2" };
	struct rc_ev_sample smp = { .hdr = { .ts = 1000 + 4000000999ull,
					     .pid = 100,
					     .tid = 101,
					     .type = RC_EV_SAMPLE,
					     .size = sizeof(smp),
					     .cpu = 1,
					     .comm = "unit" },
				    .ip = 0x1234,
				    .period = 1001001 };
	/* during the call, read before its record (made at its exit): shown after its entry */
	struct rc_ev_switch sw0 = sw;
	const struct rc_rec_hdr *recs[] = { &sw0.hdr, &sc.hdr, &sw.hdr, &gone.hdr, &smp.hdr };
	struct rc_output *o[2] = {};
	char *buf[2] = {};
	size_t len[2] = {}, i, k;
	FILE *f[2] = {};
	struct rc_meta m;
	const struct rc_meta *ms[1] = { &m };

	sw0.hdr.ts = 1000 + 2999500000ull;
	sw0.hdr.pid = sw0.hdr.tid = 202;
	memcpy(sw0.hdr.comm, "other", 6);
	test_meta(&m);
	/* a capture of -e syscalls,sched:sched_switch -F: the names perf would align */
	m.cmdline = "ringcap record -e syscalls,sched:sched_switch -F 99";
	m.notes = &note;
	m.nnotes = 1;
	for (k = 0; k < 2; k++) {
		f[k] = open_memstream(&buf[k], &len[k]);
		if (!ASSERT_OK_PTR(f[k], "open_memstream"))
			goto out;
		o[k] = rc_output__new(&rc_output_perf_script, f[k], ms, 1, 0, false);
		if (!ASSERT_OK_PTR(o[k], "rc_output__new"))
			goto out;
	}
	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		for (k = 0; k < 2; k++)
			ASSERT_OK(rc_output__event(o[k], 0, recs[i]), "event");
	for (k = 0; k < 2; k++) {
		ASSERT_OK(rc_output__end(o[k]), "end");
		rc_output__free(o[k]);
		o[k] = NULL;
		fclose(f[k]);
		f[k] = NULL;
		if (!ASSERT_STREQ(buf[k], want, "perf script's text, exactly"))
			printf("%s", buf[k]);
	}
out:
	for (k = 0; k < 2; k++) {
		rc_output__free(o[k]);
		if (f[k])
			fclose(f[k]);
		free(buf[k]);
	}
}

/* The field lists report's perf-script output equals (man ringcap-report). */
#define TP_FIELDS     "comm,tid,cpu,time,event,trace"
#define SAMPLE_FIELDS "comm,tid,cpu,time,period,event,ip,sym,symoff,dso"

/*
 * A tracepoint's line: "%16s %5d [%03d] %5lu.%06lu: %*s: TRACE". Groups:
 * 1 comm, 2 the padded name, 3 the name, 4 the trace.
 */
#define TP_LINE                                                                                    \
	"^(.{16}) [ 0-9]{4}[0-9] \\[[0-9]{3}\\] +[0-9]+\\.[0-9]{6}: ( *([a-z_]+:[a-z_]+)): (.*)$"
/* A sample's: "%s %5d [%03d] %5lu.%06lu: %10lu %*s: " */
#define SAMPLE_LINE                                                                                \
	"^([^\t ].*) [ 0-9]{4}[0-9] \\[[0-9]{3}\\] +[0-9]+\\.[0-9]{6}: ([ 0-9]{10}) ( "            \
	"*([a-z-]+)): $"
/* A frame's: "\t%16lx SYM+0xOFF (DSO)", or "[unknown]" without an offset */
#define FRAME_LINE "^\t[ 0-9a-f]{15}[0-9a-f] (([^ ]+)\\+0x[0-9a-f]+|\\[unknown\\]) \\((.+)\\)$"

static bool have_perf(void)
{
	struct run r = {};
	bool ok;

	if (access(PERF, X_OK))
		return false;
	/* Debian's /usr/bin/perf is a wrapper that needs the kernel's linux-perf */
	ok = run_sync(&r, (char *[]){ PERF, "--version", NULL }, 20000) == 0;
	run_free(&r);
	return ok;
}

static const char *group(const char *line, const regmatch_t *m, char *buf, size_t len)
{
	size_t n = m->rm_so < 0 ? 0 : (size_t)(m->rm_eo - m->rm_so);

	if (n >= len)
		n = len - 1;
	memcpy(buf, line + (m->rm_so < 0 ? 0 : m->rm_so), n);
	buf[n] = '\0';
	return buf;
}

/*
 * The shape of a trace text, as a regex: "key=" and the text between the
 * values kept, each value by its kind (a number, a hex number, anything);
 * one value without a key (sys_exit_X's "0x4d2f") the same way.
 */
static void trace_shape(const char *trace, char *re, size_t len)
{
	size_t o = 0;
	const char *p = trace;

	o += snprintf(re + o, len - o, "^");
	while (*p && o < len - 32) {
		const char *v = p, *e;

		/* the next "key=" or "key: " */
		while (*v && !((*v >= 'a' && *v <= 'z') || *v == '_'))
			v++;
		e = v;
		while ((*e >= 'a' && *e <= 'z') || *e == '_' || (*e >= '0' && *e <= '9'))
			e++;
		if (*e == '=' || (*e == ':' && e[1] == ' ')) {
			/* literal up to and with "key=" ("0x" and ">" need no escape) */
			for (; p < e + (*e == ':' ? 2 : 1); p++)
				o += snprintf(re + o, len - o, "%s%c",
					      *p == '[' || *p == ']' ? "\\" : "", *p);
		} else if (p == trace && !strncmp(p, "0x", 2)) {
			; /* a bare value */
		} else {
			break;
		}
		/* the value, up to the next " key=" (values may hold spaces: comms) */
		if (!strncmp(p, "0x", 2)) {
			o += snprintf(re + o, len - o, "0x[0-9a-f]+");
			p += 2;
			while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
				p++;
		} else if ((*p >= '0' && *p <= '9') || *p == '-') {
			o += snprintf(re + o, len - o, "-?[0-9]+");
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
		} else {
			o += snprintf(re + o, len - o, ".*");
			while (*p && !(p[0] == ' ' && strpbrk(p + 1, "=") &&
				       (p[1] == '=' || (p[1] >= 'a' && p[1] <= 'z'))))
				p++;
		}
	}
	snprintf(re + o, len - o, "$");
}

struct shapes {
	char name[8][64]; /* event names, as perf printed them */
	char re[8][512];  /* their trace's shape */
	size_t width;	  /* the padded name's width */
	size_t n;
};

/* perf's tracepoint lines: every line's shape, each event's trace shape. */
static bool perf_tp_shapes(const char *text, struct shapes *s)
{
	char line[4096], buf[512];
	const char *pos = text;
	regmatch_t m[5];
	regex_t re;
	size_t i, lines = 0;
	bool ok = true;

	if (!ASSERT_OK(regcomp(&re, TP_LINE, REG_EXTENDED), "regcomp"))
		return false;
	while (ok && next_line(&pos, line, sizeof(line))) {
		ok = ASSERT_OK(regexec(&re, line, 5, m, 0), "perf's line in the layout");
		if (!ok) {
			printf("    perf: '%s'\n", line);
			break;
		}
		lines++;
		s->width = m[2].rm_eo - m[2].rm_so;
		group(line, &m[3], buf, sizeof(buf));
		for (i = 0; i < s->n && strcmp(s->name[i], buf); i++)
			;
		if (i == s->n && s->n < 8) {
			snprintf(s->name[s->n], sizeof(s->name[0]), "%.63s", buf);
			trace_shape(line + m[4].rm_so, s->re[s->n], sizeof(s->re[0]));
			printf("    perf's %s: %s\n", buf, s->re[s->n]);
			s->n++;
		}
	}
	regfree(&re);
	return ok && ASSERT_TRUE(lines > 0, "perf script printed lines");
}

/*
 * perf record @args (after "perf record -o DATA"), then perf script -F
 * @fields: its text, or NULL. perf 6.1 aborts now and then in perf script
 * ("assertion failed at util/build-id.c", a stack smashed) on the
 * PERF_RECORD_KSYMBOL records of BPF programs that other processes load
 * while it records, which every event gets, whatever the filter: the
 * file is recorded again, at most three times.
 */
static char *perf_text(const char *data, char *const args[], const char *fields)
{
	char *argv[32] = { PERF, "record", "-q", "-N", "-B", "--no-bpf-event", "-o", (char *)data };
	struct run r = {};
	char *out = NULL;
	int n = 8, try, code;

	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	for (try = 0; try < 3 && !out; try++) {
		if (!ASSERT_EQ(run_sync(&r, argv, 120000), 0, "perf record"))
			break;
		run_free(&r);
		code = run_sync(
		    &r,
		    (char *[]){ PERF, "script", "-i", (char *)data, "-F", (char *)fields, NULL },
		    120000);
		if (code == 0)
			out = strdup(r.out);
		else if (WIFSIGNALED(r.status) && strstr(r.err, "util/build-id.c") && try < 2) {
			printf("    perf script aborted in its build-id code (a BPF program's "
			       "ksymbol record): recording again\n");
		} else
			ASSERT_EQ(code, 0, "perf script");
		run_free(&r);
	}
	run_free(&r);
	return out;
}

static char *ringcap_report(const char *cap)
{
	struct run r = {};
	char *out = NULL;

	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format",
					   "perf-script", (char *)cap, NULL },
			       120000),
		      0, "report --format perf-script"))
		out = strdup(r.out);
	run_free(&r);
	return out;
}

#define TP_EVENTS                                                                                  \
	"syscalls:sys_enter_getppid,syscalls:sys_exit_getppid,syscalls:sys_enter_lseek,sched:"     \
	"sched_switch,sched:sched_process_exec"

static void tracepoints(void)
{
	const char *data = tmpfile_path("tp.data"), *cap = tmpfile_path("tp.rcap");
	char cmd[4096], line[4096], buf[512];
	char *perf_out = NULL, *rc_out = NULL;
	struct shapes s = {};
	size_t i, lines = 0, seen[8] = {};
	const char *pos;
	regmatch_t m[5];
	regex_t re, tre[8];
	struct run r = {};
	size_t ntre = 0;

	/* the same work for both: getppid(), lseek() with arguments, a sleep, execs */
	snprintf(cmd, sizeof(cmd), "%s getppid 20 && %s seq 5 && %s sleep 20", bin("rc_workload"),
		 bin("rc_workload"), bin("rc_workload"));
	perf_out = perf_text(data, (char *[]){ "-e", TP_EVENTS, "--", "/bin/sh", "-c", cmd, NULL },
			     TP_FIELDS);
	if (!perf_out)
		goto out;
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ (char *)bin("ringcap"), "record", "-q", "-o", (char *)cap,
				     "-e", TP_EVENTS, "--", "/bin/sh", "-c", cmd, NULL },
			 120000),
		0, "ringcap record"))
		goto out;
	run_free(&r);
	rc_out = ringcap_report(cap);
	if (!perf_out || !rc_out || !perf_tp_shapes(perf_out, &s))
		goto out;
	ASSERT_EQ(s.n, 5, "perf printed the five events");
	for (ntre = 0; ntre < s.n; ntre++)
		if (!ASSERT_OK(regcomp(&tre[ntre], s.re[ntre], REG_EXTENDED | REG_NOSUB),
			       "perf's trace shape compiles"))
			goto out;
	if (!ASSERT_OK(regcomp(&re, TP_LINE, REG_EXTENDED), "regcomp"))
		goto out;
	for (pos = rc_out; next_line(&pos, line, sizeof(line)); lines++) {
		if (!ASSERT_OK(regexec(&re, line, 5, m, 0), "ringcap's line in perf's layout")) {
			printf("    ringcap: '%s'\n", line);
			break;
		}
		if (!ASSERT_EQ((size_t)(m[2].rm_eo - m[2].rm_so), s.width,
			       "the name right-aligned to perf's width"))
			break;
		group(line, &m[3], buf, sizeof(buf));
		for (i = 0; i < s.n && strcmp(s.name[i], buf); i++)
			;
		if (i == s.n) /* an event perf's run did not print: no shape to hold it to */
			continue;
		seen[i]++;
		if (!ASSERT_OK(regexec(&tre[i], line + m[4].rm_so, 0, NULL, 0),
			       "its trace in perf's shape")) {
			printf("    ringcap: '%s'\n    perf's shape: %s\n", line, s.re[i]);
			break;
		}
	}
	regfree(&re);
	for (i = 0; i < s.n; i++)
		if (!ASSERT_TRUE(seen[i] > 0, "ringcap printed each event perf printed"))
			printf("    missing: %s\n", s.name[i]);
	/* the same calls: 20 getppid() of rc_workload's, the shell's own; 5 lseek(-1, ...) */
	ASSERT_EQ(count_lines_with(rc_out, "syscalls:sys_enter_getppid:"),
		  count_lines_with(perf_out, "syscalls:sys_enter_getppid:"), "getppid() as perf");
	ASSERT_EQ(count_lines_with(rc_out, " syscalls:sys_exit_getppid:"),
		  count_lines_with(perf_out, " syscalls:sys_exit_getppid:"), "returns as perf");
	ASSERT_EQ(count_lines_with(rc_out, "syscalls:sys_enter_lseek: fd: 0xffffffff"), 5,
		  "5 lseek(-1, ...)");
	ASSERT_EQ(count_lines_with(perf_out, "syscalls:sys_enter_lseek: fd: 0xffffffff"), 5,
		  "5 of perf's");
	printf("    %zu lines of ringcap's in the shapes of perf's %zu events\n", lines, s.n);
out:
	while (ntre)
		regfree(&tre[--ntre]);
	run_free(&r);
	free(perf_out);
	free(rc_out);
}

/* The times of @text's lines (": " after "SECS.USECS"): how many go back in time. */
static size_t times_back(const char *text, size_t *nlines)
{
	char line[4096];
	const char *pos = text, *p;
	double t, prev = -1e18;
	size_t back = 0;

	*nlines = 0;
	while (next_line(&pos, line, sizeof(line))) {
		p = strchr(line, ']');
		if (!p)
			continue;
		t = strtod(p + 1, NULL);
		back += t < prev;
		prev = t;
		++*nlines;
	}
	return back;
}

/*
 * -e syscalls against perf's raw_syscalls, with sched_switch: perf prints
 * every line in time order, the entries of blocking calls before the
 * switches during them; so does ringcap, from records made at the calls'
 * exits, with as many entry and exit lines for rc_workload's getppid().
 */
static void syscalls_order(void)
{
	const char *data = tmpfile_path("sc.data"), *cap = tmpfile_path("sc.rcap");
	char *perf_out = NULL, *rc_out = NULL, cmd[4096];
	size_t n_perf, n_rc;
	struct run r = {};

	snprintf(cmd, sizeof(cmd), "%s getppid 20 && %s sleep 20", bin("rc_workload"),
		 bin("rc_workload"));
	perf_out = perf_text(data,
			     (char *[]){ "-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit,"
					       "sched:sched_switch",
					 "--", "/bin/sh", "-c", cmd, NULL },
			     TP_FIELDS);
	if (!perf_out ||
	    !ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-o", (char *)cap,
					    "-e", "syscalls,sched", "--", "/bin/sh", "-c", cmd,
					    NULL },
				120000),
		       0, "ringcap record -e syscalls,sched"))
		goto out;
	rc_out = ringcap_report(cap);
	if (!rc_out)
		goto out;
	ASSERT_EQ(times_back(perf_out, &n_perf), 0, "perf's lines in time order");
	ASSERT_EQ(times_back(rc_out, &n_rc), 0, "ringcap's lines in time order");
	ASSERT_TRUE(n_rc > 100 && n_perf > 100, "lines of both");
	ASSERT_TRUE(count_lines_with(rc_out, "raw_syscalls:sys_enter: NR 110 ") >= 20 &&
			    count_lines_with(rc_out, "raw_syscalls:sys_exit: NR 110 = ") >= 20,
		    "rc_workload's 20 getppid(), entries and exits");
	printf("    perf: %zu lines, ringcap: %zu, both in time order\n", n_perf, n_rc);
out:
	run_free(&r);
	free(perf_out);
	free(rc_out);
}

/* The shape of every sample: its line, its frames, an empty line; stacks by function. */
static bool sample_shapes(const char *text, const char *who, size_t *nsamples, char *name,
			  size_t namelen, char *callers, size_t clen)
{
	regex_t sre, fre;
	regmatch_t m[5];
	char line[4096], buf[512], callee[64] = "";
	const char *pos = text;
	bool in = false, ok = true;

	*nsamples = 0;
	callers[0] = '\0';
	if (!ASSERT_OK(regcomp(&sre, SAMPLE_LINE, REG_EXTENDED), "regcomp") ||
	    !ASSERT_OK(regcomp(&fre, FRAME_LINE, REG_EXTENDED), "regcomp"))
		return false;
	while (ok && next_line(&pos, line, sizeof(line))) {
		if (!in) {
			ok = ASSERT_OK(regexec(&sre, line, 5, m, 0), "a sample's line");
			if (ok) {
				group(line, &m[4], name, namelen);
				(*nsamples)++;
				in = true;
				callee[0] = '\0';
			}
		} else if (!line[0]) {
			in = false;
		} else {
			ok = ASSERT_OK(regexec(&fre, line, 5, m, 0), "a frame's line");
			/*
			 * burn's three call sites, of burn_a, burn_b and burn_c, with their
			 * offsets: one binary. Only those: a sample in the kernel under
			 * burn's fopen() or fprintf() shows a site seen once, by chance.
			 */
			if (ok && m[2].rm_so >= 0 && !strncmp(line + m[2].rm_so, "burn+", 5) &&
			    !strncmp(callee, "burn_", 5) && strlen(callee) == 6) {
				group(line, &m[1], buf, sizeof(buf));
				if (!strstr(callers, buf) &&
				    strlen(callers) + strlen(buf) + 2 < clen)
					strcat(strcat(callers, buf), " ");
			}
			if (ok)
				group(line, &m[2], callee, sizeof(callee));
		}
		if (!ok)
			printf("    %s: '%s'\n", who, line);
	}
	regfree(&sre);
	regfree(&fre);
	return ok && ASSERT_TRUE(!in, "the last sample ends with an empty line");
}

static void samples(void)
{
	const char *data = tmpfile_path("prof.data"), *cap = tmpfile_path("prof.rcap");
	char pname[64] = "", rname[64] = "", pcallers[512], rcallers[512] = " ";
	char *perf_out = NULL, *rc_out = NULL, *tok, *save;
	size_t pn = 0, rn = 0;
	struct run r = {};

	/* -F 999 -g as ringcap; --sample-cpu: perf's default then shows the CPU */
	perf_out = perf_text(data,
			     (char *[]){ "-e", "cpu-clock", "-F", "999", "-g", "--sample-cpu", "--",
					 (char *)bin("rc_prof"), "burn", "500",
					 (char *)tmpfile_path("truth1"), NULL },
			     SAMPLE_FIELDS);
	if (!perf_out)
		goto out;
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", "999",
					    "-g", "-o", (char *)cap, "--", (char *)bin("rc_prof"),
					    "burn", "500", (char *)tmpfile_path("truth2"), NULL },
				120000),
		       0, "ringcap record"))
		goto out;
	run_free(&r);
	rc_out = ringcap_report(cap);
	if (!perf_out || !rc_out ||
	    !sample_shapes(perf_out, "perf", &pn, pname, sizeof(pname), pcallers,
			   sizeof(pcallers)) ||
	    !sample_shapes(rc_out, "ringcap", &rn, rname, sizeof(rname), rcallers + 1,
			   sizeof(rcallers) - 1))
		goto out;
	printf("    %zu samples of perf's, %zu of ringcap's; burn's call sites: perf %s, "
	       "ringcap %s\n",
	       pn, rn, pcallers, rcallers + 1);
	ASSERT_TRUE(pn > 200 && rn > 200, "samples of 500 ms at 999 Hz");
	/* the sampling event: cpu-clock, or cycles where the machine has them */
	if (strcmp(rname, "cycles"))
		ASSERT_STREQ(rname, pname, "the same event's name");
	/* the same binary: the same call sites in burn, symbol and offset */
	ASSERT_TRUE(pcallers[0], "perf's stacks go through burn to burn_a, burn_b or burn_c");
	for (tok = strtok_r(pcallers, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		/* the whole word: burn+0x9d is not burn+0x9d0's start */
		char word[80];

		snprintf(word, sizeof(word), " %s ", tok);
		if (!ASSERT_TRUE(strstr(rcallers, word) != NULL,
				 "ringcap's stacks have perf's frames"))
			printf("    missing %s\n", tok);
	}
out:
	run_free(&r);
	free(perf_out);
	free(rc_out);
}

void test_perfscript_layout(void)
{
	if (!need_root())
		return;
	if (!tracefs_mounted()) {
		test__skip("no tracefs mounted (scripts/deps.sh mounts it)");
		return;
	}
	if (!have_perf()) {
		test__skip("no perf (Debian's linux-perf) to compare perf script's text with");
		return;
	}
	if (test__start_subtest("tracepoints"))
		tracepoints();
	if (test__start_subtest("samples"))
		samples();
	if (test__start_subtest("syscalls_order"))
		syscalls_order();
	tmpdir_cleanup();
}

/* ---- speedscope (npm) in Debian's headless chromium ---- */

/* Whether 127.0.0.1:@port takes a connection. */
static bool answers(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = !connect(fd, (struct sockaddr *)&a, sizeof(a));
	close(fd);
	return ok;
}

/* The first line @cmd prints, into @out; false for none. */
static bool sh_line(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	bool ok;

	if (!p)
		return false;
	ok = fgets(out, (int)len, p) != NULL;
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
	return ok && out[0];
}

/*
 * The Total share of @sym in speedscope's Sandwich table: its row's first
 * cell holds a bar whose style is "width: P%" of the whole profile.
 */
static double sandwich_share(const char *dom, const char *sym)
{
	char cell[128];
	const char *at, *row, *w;
	double v;

	snprintf(cell, sizeof(cell), "</span>%s</td>", sym);
	at = strstr(dom, cell);
	if (!at)
		return -1;
	for (row = at; row > dom && strncmp(row, "<tr", 3); row--)
		;
	w = strstr(row, "width: ");
	if (!w || w > at || sscanf(w + 7, "%lf", &v) != 1)
		return -1;
	return v / 100;
}

static bool read_truth(const char *path, double share[3])
{
	unsigned long long ns[3];
	FILE *fp = fopen(path, "r");
	bool ok;
	int k;

	if (!fp)
		return false;
	ok = fscanf(fp, "burn_a %llu burn_b %llu burn_c %llu", &ns[0], &ns[1], &ns[2]) == 3;
	fclose(fp);
	if (!ok || !(ns[0] + ns[1] + ns[2]))
		return false;
	for (k = 0; k < 3; k++)
		share[k] = (double)ns[k] / (ns[0] + ns[1] + ns[2]);
	return true;
}

/*
 * @file, served at 127.0.0.1:@port, opened by speedscope in headless
 * chromium, its view the Sandwich table: burn_a, burn_b and burn_c in the
 * shares rc_prof timed (@share), within 5 points as the profile tests hold
 * ringcap's own.
 */
static void sandwich_check(const char *exe, const char *dir, int port, const char *file,
			   const double share[3])
{
	char url[1024], user_dir[700], home[700], cfg[700], cache[700], what[128];
	struct run r = {};
	double got[3], sum = 0;
	int k;

	snprintf(url, sizeof(url),
		 "http://127.0.0.1:%d/index.html#profileURL=http%%3A%%2F%%2F127.0.0.1%%3A%d%%2F"
		 "%s&view=sandwich",
		 port, port, file);
	snprintf(user_dir, sizeof(user_dir), "--user-data-dir=%s/chromium", dir);
	snprintf(home, sizeof(home), "HOME=%s/chromium", dir);
	snprintf(cfg, sizeof(cfg), "XDG_CONFIG_HOME=%s/chromium/config", dir);
	snprintf(cache, sizeof(cache), "XDG_CACHE_HOME=%s/chromium/cache", dir);
	snprintf(what, sizeof(what), "--virtual-time-budget=%d", 20000);
	/* WebGL in software: speedscope draws with it, and needs it to load */
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ "/usr/bin/env",
				     home,
				     cfg,
				     cache,
				     (char *)exe,
				     "--headless",
				     "--no-sandbox",
				     "--enable-unsafe-swiftshader",
				     user_dir,
				     "--no-first-run",
				     "--disable-background-networking",
				     "--disable-component-update",
				     "--disable-sync",
				     "--disable-extensions",
				     "--disable-default-apps",
				     "--disable-breakpad",
				     "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
				     "--window-size=1200,800",
				     what,
				     "--dump-dom",
				     url,
				     NULL },
			 120000),
		0, "chromium --dump-dom"))
		goto out;
	if (!ASSERT_HAS(r.out, "Symbol Name", "speedscope shows its Sandwich table"))
		goto out;
	for (k = 0; k < 3; k++) {
		char sym[8] = "burn_a";

		sym[5] = (char)('a' + k);
		got[k] = sandwich_share(r.out, sym);
		if (!ASSERT_TRUE(got[k] > 0, "a row of burn_a, burn_b and burn_c"))
			goto out;
		sum += got[k];
	}
	for (k = 0; k < 3; k++) {
		char desc[128];
		double s = got[k] / sum;

		snprintf(desc, sizeof(desc), "%s: burn_%c: %.1f%% in speedscope, %.1f%% timed", file,
			 'a' + k, s * 100, share[k] * 100);
		printf("    %s\n", desc);
		ASSERT_TRUE(s - share[k] < 0.05 && s - share[k] > -0.05, desc);
	}
out:
	run_free(&r);
}

/*
 * rc_prof's samples as perf script's text and as pprof, each opened by
 * speedscope (its perf and its pprof importers, a second reader of
 * pprof's besides go tool pprof): burn_a, burn_b and burn_c in the
 * shares rc_prof timed (5:3:2).
 */
static void speedscope(const char *exe, const char *release)
{
	const char *dir = tmpdir(), *cap = tmpfile_path("ss.rcap"), *truth = tmpfile_path("truth");
	char srv[600], perf_path[700], pb_path[700], portarg[16];
	struct run r = {}, http = {};
	double share[3];
	int port, i;
	FILE *f;

	snprintf(srv, sizeof(srv), "%s/srv", dir);
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ "/bin/cp", "-r", (char *)release, srv, NULL }, 60000), 0,
		"copy speedscope's files"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", "999",
					    "-g", "-o", (char *)cap, "--", (char *)bin("rc_prof"),
					    "burn", "1000", (char *)truth, NULL },
				120000),
		       0, "record") ||
	    !ASSERT_TRUE(read_truth(truth, share), "rc_prof's own times"))
		goto out;
	run_free(&r);
	/*
	 * Samples only: speedscope's perf importer keeps the first event type
	 * it meets. And rc_prof's only: it makes a profile of each comm and
	 * thread, and opens the first, which may be of the ringcap that
	 * exec()ed rc_prof, one sample.
	 */
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "report", "--format",
					    "perf-script", "--comm", "rc_prof", (char *)cap, NULL },
				60000),
		       0, "report --format perf-script"))
		goto out;
	snprintf(perf_path, sizeof(perf_path), "%s/prof.perf", srv);
	f = fopen(perf_path, "we");
	if (!ASSERT_OK_PTR(f, "write prof.perf"))
		goto out;
	fputs(r.out, f);
	fclose(f);
	run_free(&r);
	/* the same samples as pprof: rc_prof's, the comm a label of each */
	snprintf(pb_path, sizeof(pb_path), "%s/prof.pb.gz", srv);
	snprintf(perf_path, sizeof(perf_path), "exec '%.200s' report --format pprof --comm rc_prof "
		 "'%.200s' > '%.200s'", bin("ringcap"), cap, pb_path);
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ "/bin/sh", "-c", perf_path, NULL }, 60000), 0,
		       "report --format pprof"))
		goto out;
	run_free(&r);

	port = free_port();
	snprintf(portarg, sizeof(portarg), "%d", port);
	if (!ASSERT_TRUE(port > 0, "a free port") ||
	    !ASSERT_OK(
		run_start(&http, (char *[]){ "/usr/bin/python3", "-m", "http.server", "--bind",
					     "127.0.0.1", "--directory", srv, portarg, NULL }),
		"python3 -m http.server"))
		goto out;
	for (i = 0; i < 100 && !answers(port); i++)
		nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	if (!ASSERT_TRUE(answers(port), "the server answers"))
		goto out;

	sandwich_check(exe, dir, port, "prof.perf", share);
	sandwich_check(exe, dir, port, "prof.pb.gz", share);
out:
	if (http.pid > 0) {
		kill(http.pid, SIGTERM);
		run_wait(&http, 10000);
	}
	run_free(&http);
	run_free(&r);
}

void test_perfscript_speedscope(void)
{
	char exe[512] = "", root[512] = "", release[600];

	if (getenv("RINGCAP_VMTEST") ||
	    !sh_line("command -v chromium 2>/dev/null", exe, sizeof(exe)) ||
	    access("/usr/bin/python3", X_OK)) {
		test__skip("no chromium (Debian's package) or python3 here, as in the kernel "
			   "matrix's guests: this test runs on the host");
		return;
	}
	if (!sh_line("npm root -g 2>/dev/null", root, sizeof(root)))
		root[0] = '\0';
	snprintf(release, sizeof(release), "%s/speedscope/dist/release", root);
	{
		char index[700];

		snprintf(index, sizeof(index), "%s/index.html", release);
		if (!root[0] || access(index, R_OK)) {
			test__skip("no speedscope: npm install -g speedscope (scripts/deps.sh)");
			return;
		}
	}
	if (!need_root())
		return;
	speedscope(exe, release);
	tmpdir_cleanup();
}

/* ---- tracepoints by their print formats (libtraceevent) ---- */

/*
 * Print formats of several kinds: strings and numbers (sched_process_exec,
 * signal_generate), a kernel function by %ps and a __print_symbolic()
 * whose names the kernel left unevaluated (hrtimer_start), and a
 * __print_symbolic() of numbers (softirq_entry, when one runs in the
 * workload's context).
 */
#define PF_EVENTS                                                                                  \
	"sched:sched_process_exec,signal:signal_generate,timer:hrtimer_start,irq:softirq_entry"

/*
 * ringcap record --transport=@transport of PF_EVENTS against @perf_out,
 * perf script's text of the same work: each event's trace text in the
 * shape of perf's (keys, order, separators, kinds of value), the three
 * events the work makes all there, and the sleep's timer named as perf
 * names it.
 */
static void printfmt_vs(const char *transport, const char *perf_out, const char *work)
{
	const char *cap = tmpfile_path(transport);
	char line[4096], buf[512], tflag[64];
	char *rc_out = NULL;
	struct shapes s = {};
	size_t i, lines = 0, seen[8] = {};
	const char *pos;
	regmatch_t m[5];
	regex_t re, tre[8];
	struct run r = {};
	size_t ntre = 0;

	snprintf(tflag, sizeof(tflag), "--transport=%s", transport);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", tflag, "-o",
					    (char *)cap, "-e", PF_EVENTS, "--", "/bin/sh", "-c",
					    (char *)work, NULL },
				120000),
		       0, "ringcap record"))
		goto out;
	rc_out = ringcap_report(cap);
	if (!rc_out || !perf_tp_shapes(perf_out, &s))
		goto out;
	for (ntre = 0; ntre < s.n; ntre++)
		if (!ASSERT_OK(regcomp(&tre[ntre], s.re[ntre], REG_EXTENDED | REG_NOSUB),
			       "perf's trace shape compiles"))
			goto out;
	if (!ASSERT_OK(regcomp(&re, TP_LINE, REG_EXTENDED), "regcomp"))
		goto out;
	for (pos = rc_out; next_line(&pos, line, sizeof(line)); lines++) {
		if (!ASSERT_OK(regexec(&re, line, 5, m, 0), "ringcap's line in perf's layout")) {
			printf("    ringcap: '%s'\n", line);
			break;
		}
		if (!ASSERT_EQ((size_t)(m[2].rm_eo - m[2].rm_so), s.width,
			       "the name right-aligned to perf's width"))
			break;
		group(line, &m[3], buf, sizeof(buf));
		for (i = 0; i < s.n && strcmp(s.name[i], buf); i++)
			;
		if (i == s.n)
			continue; /* softirq_entry, when perf's run had none */
		seen[i]++;
		if (!ASSERT_OK(regexec(&tre[i], line + m[4].rm_so, 0, NULL, 0),
			       "its trace in perf's shape")) {
			printf("    ringcap: '%s'\n    perf's shape: %s\n", line, s.re[i]);
			break;
		}
	}
	regfree(&re);
	for (i = 0; i < s.n; i++)
		if (strcmp(s.name[i], "irq:softirq_entry") &&
		    !ASSERT_TRUE(seen[i] > 0, "ringcap printed each event perf printed"))
			printf("    missing: %s\n", s.name[i]);
	ASSERT_TRUE(count_lines_with(perf_out, "timer:hrtimer_start: ") > 0 &&
			    count_lines_with(perf_out, "signal:signal_generate: sig=10 ") > 0 &&
			    count_lines_with(perf_out, "sched:sched_process_exec: ") >= 2,
		    "perf printed the work's events");
	/* the sleep's timer, named from this boot's kallsyms as perf names it */
	ASSERT_TRUE(count_lines_with(perf_out, " function=hrtimer_wakeup ") > 0,
		    "perf names the sleep's timer function");
	ASSERT_TRUE(count_lines_with(rc_out, " function=hrtimer_wakeup ") > 0,
		    "ringcap names it too (%ps)");
	/* the shell's SIGUSR1 to itself, by the print format */
	ASSERT_TRUE(count_lines_with(rc_out, "signal:signal_generate: sig=10 errno=0 code=0 "
					     "comm=sh pid=") > 0,
		    "the shell's SIGUSR1");
	ASSERT_EQ(count_lines_with(rc_out, "sched:sched_process_exec: filename="),
		  count_lines_with(perf_out, "sched:sched_process_exec: filename="),
		  "as many execs as perf");
	printf("    %s: %zu lines of ringcap's in the shapes of perf's %zu events\n", transport,
	       lines, s.n);
out:
	while (ntre)
		regfree(&tre[--ntre]);
	run_free(&r);
	free(rc_out);
}

void test_perfscript_printfmt(void)
{
	const char *data = tmpfile_path("pf.data");
	char work[4096];
	char *perf_out;

	if (!need_root())
		return;
	if (!tracefs_mounted()) {
		test__skip("no tracefs mounted (scripts/deps.sh mounts it)");
		return;
	}
	if (!have_perf()) {
		test__skip("no perf (Debian's linux-perf) to compare perf script's text with");
		return;
	}
#ifndef HAVE_LIBTRACEEVENT
	test__skip("built without libtraceevent (scripts/deps.sh installs libtraceevent-dev)");
	return;
#endif
	/* two execs, a 20 ms sleep (an hrtimer), a SIGUSR1 the shell sends itself */
	snprintf(work, sizeof(work), "trap : USR1; kill -USR1 $$; %s sleep 20; %s exit 0",
		 bin("rc_workload"), bin("rc_workload"));
	perf_out = perf_text(data, (char *[]){ "-e", PF_EVENTS, "--", "/bin/sh", "-c", work, NULL },
			     TP_FIELDS);
	if (!perf_out)
		goto out;
	if (test__start_subtest("ringbuf"))
		printfmt_vs("ringbuf", perf_out, work);
	if (test__start_subtest("ftrace"))
		printfmt_vs("ftrace", perf_out, work);
out:
	free(perf_out);
	tmpdir_cleanup();
}

/*
 * Tracepoint records through libtraceevent, in memory, against what a
 * file may hold: a record whose string lies outside it, one of another
 * event's common_type, and a print format that takes __print_hex()'s
 * length from the record each fall back to field=value; a sound record
 * is rendered by its print format. Exact text.
 */
#define HEXLEN_FMT                                                                                 \
	"name: hexlen\n"                                                                           \
	"ID: 901\n"                                                                                \
	"format:\n" FT_COMMON "\tfield:unsigned int len;\toffset:8;\tsize:4;\tsigned:0;\n"         \
	"\tfield:unsigned char buf[8];\toffset:12;\tsize:8;\tsigned:0;\n"                         \
	"\n"                                                                                       \
	"print fmt: \"len=%u buf=%s\", REC->len, __print_hex(REC->buf, REC->len)\n"

/* irq_handler_entry's fields, a print format unlike field=value */
#define IRQ_ON_FMT                                                                                 \
	"name: irq_handler_entry\n"                                                                \
	"ID: 225\n"                                                                                \
	"format:\n" FT_COMMON "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"                  \
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"                        \
	"\n"                                                                                       \
	"print fmt: \"irq %d on %s\", REC->irq, __get_str(name)\n"

/* the same with a constant length: rendered */
#define HEXCONST_FMT                                                                               \
	"name: hexconst\n"                                                                         \
	"ID: 902\n"                                                                                \
	"format:\n" FT_COMMON "\tfield:unsigned int len;\toffset:8;\tsize:4;\tsigned:0;\n"         \
	"\tfield:unsigned char buf[8];\toffset:12;\tsize:8;\tsigned:0;\n"                         \
	"\n"                                                                                       \
	"print fmt: \"len=%u buf=%s\", REC->len, __print_hex(REC->buf, 4)\n"

struct tp_rec {
	struct rc_rec_hdr hdr;
	unsigned char raw[24];
};

static void tp_rec(struct tp_rec *r, uint16_t type, uint16_t common_type, uint64_t ts)
{
	memset(r, 0, sizeof(*r));
	r->hdr = (struct rc_rec_hdr){
		.ts = ts, .pid = 300, .tid = 300, .type = type, .size = sizeof(*r), .comm = "unit"
	};
	memcpy(r->raw, &common_type, 2);
	memcpy(r->raw + 4, &r->hdr.tid, 4);
}

void test_perfscript_tep_bounds(void)
{
#ifdef HAVE_LIBTRACEEVENT
	static const char want[] =
	    "            unit   300 [000]     0.000001: irq:irq_handler_entry: irq 16 on eth0\n"
	    "            unit   300 [000]     0.000002: irq:irq_handler_entry: irq=16 "
	    "name=<bad location>\n"
	    "            unit   300 [000]     0.000003: irq:irq_handler_entry: irq=16 name=eth0\n"
	    "            unit   300 [000]     0.000004:           test:hexlen: len=4 "
	    "buf=[0x1,0x2,0x3,0x4,0x0,0x0,0x0,0x0]\n"
	    "            unit   300 [000]     0.000005:         test:hexconst: len=4 buf=01 02 03 "
	    "04\n";
#else
	static const char want[] = "";
#endif
	const char *fmts[3] = { IRQ_ON_FMT, HEXLEN_FMT, HEXCONST_FMT };
	const char *names[3] = { "irq:irq_handler_entry", "test:hexlen", "test:hexconst" };
	struct rc_note notes[3];
	struct tp_rec good, out_of, other, hex, hexc;
	const struct rc_rec_hdr *recs[] = { &good.hdr, &out_of.hdr, &other.hdr, &hex.hdr,
					    &hexc.hdr };
	struct rc_schema *s = rc_schema__new(NULL);
	struct rc_output *o = NULL;
	char *buf = NULL, why[256];
	const struct rc_meta *ms[1];
	struct rc_meta m;
	size_t len = 0, i;
	uint32_t loc;
	FILE *f = NULL;

#ifndef HAVE_LIBTRACEEVENT
	test__skip("built without libtraceevent (scripts/deps.sh installs libtraceevent-dev)");
	rc_schema__free(s);
	return;
#endif
	if (!ASSERT_OK_PTR(s, "schema"))
		return;
	for (i = 0; i < 3; i++) {
		struct rc_event_desc ev = { .id = 100 + i, .name = names[i] };
		struct rc_tpformat tf;

		if (!ASSERT_OK(rc_tpformat__parse(&tf, fmts[i], sizeof(struct rc_rec_hdr), why,
						  sizeof(why)),
			       why))
			goto out;
		ev.size = sizeof(struct tp_rec);
		ev.nfields = tf.nfields;
		ev.fields = tf.fields;
		ASSERT_OK(rc_schema__add_event(s, &ev), "add event");
		rc_tpformat__free(&tf);
		notes[i] = (struct rc_note){ 100 + i, "format", fmts[i], strlen(fmts[i]) };
	}
	test_meta(&m);
	m.cmdline = "";
	m.schema = s;
	m.notes = notes;
	m.nnotes = 3;
	m.start_ts = 0;
	ms[0] = &m;
	/* irq=16, name "eth0" at raw offset 16 */
	tp_rec(&good, 100, 225, 1000);
	memcpy(good.raw + 8, &(int){ 16 }, 4);
	loc = 5u << 16 | 16;
	memcpy(good.raw + 12, &loc, 4);
	memcpy(good.raw + 16, "eth0", 5);
	/* its string past the record's end: field=value, the string not shown */
	out_of = good;
	out_of.hdr.ts = 2000;
	loc = 5u << 16 | 22;
	memcpy(out_of.raw + 12, &loc, 4);
	/* a common_type of no event parsed: field=value */
	other = good;
	other.hdr.ts = 3000;
	memcpy(other.raw, &(uint16_t){ 999 }, 2);
	/* __print_hex(REC->buf, REC->len): a length from the record, refused */
	tp_rec(&hex, 101, 901, 4000);
	memcpy(hex.raw + 8, &(uint32_t){ 4 }, 4);
	memcpy(hex.raw + 12, "\1\2\3\4", 4);
	hexc = hex;
	hexc.hdr.type = 102;
	hexc.hdr.ts = 5000;
	memcpy(hexc.raw, &(uint16_t){ 902 }, 2);
	f = open_memstream(&buf, &len);
	if (!ASSERT_OK_PTR(f, "open_memstream"))
		goto out;
	o = rc_output__new(&rc_output_perf_script, f, ms, 1, 0, false);
	if (!ASSERT_OK_PTR(o, "rc_output__new"))
		goto out;
	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		ASSERT_OK(rc_output__event(o, 0, recs[i]), "event");
	ASSERT_OK(rc_output__end(o), "end");
	rc_output__free(o);
	o = NULL;
	fclose(f);
	f = NULL;
	if (!ASSERT_STREQ(buf, want, "rendered, or field=value"))
		printf("%s", buf);
out:
	rc_output__free(o);
	if (f)
		fclose(f);
	free(buf);
	rc_schema__free(s);
}

/*
 * Format notes a hostile file may hold, each refused (its records shown
 * as field=value) where libtraceevent would crash or run away: a division
 * by a record's field or by 0, an event of ID 1 whose common_type lies far
 * outside any record (libtraceevent took the offset of the lowest ID
 * parsed for every record), brackets nested past the stack, a note past
 * 64 KiB, __print_hex() of a constant, a '*' width from the record. A
 * sound event parsed after them, and a division by a constant, render.
 */
#define HOST_FIELDS                                                                                \
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"                                          \
	"\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n"                                         \
	"\tfield:__data_loc char[] name;\toffset:16;\tsize:4;\tsigned:0;\n"                        \
	"\n"
#define HOST_FMT(id, print) "name: h\nID: " #id "\nformat:\n" FT_COMMON HOST_FIELDS "print fmt: " print "\n"

enum { H_COMMON, H_SOUND, H_DIV, H_MOD, H_HEXDIV, H_NEST, H_DEEP, H_LONG, H_HEXATOM, H_ARRAY,
       H_STAR, H_PREC, H_CONSTDIV, H_CTL, H_N };

static char *nested(int id, const char *open, size_t n, const char *close)
{
	size_t len = 1024 + n * (strlen(open) + strlen(close)), i;
	char *s = malloc(len), *p;

	if (!s)
		return NULL;
	p = s + sprintf(s, "name: h\nID: %d\nformat:\n" FT_COMMON HOST_FIELDS "print fmt: \"a=%%d\", ",
			id);
	for (i = 0; i < n; i++)
		p = stpcpy(p, open);
	p = stpcpy(p, "REC->a");
	for (i = 0; close[0] && i < n; i++)
		p = stpcpy(p, close);
	strcpy(p, "\n");
	return s;
}

void test_perfscript_tep_hostile(void)
{
#ifdef HAVE_LIBTRACEEVENT
	static const char want[] =
	    "            unit   300 [000]     0.000001:  test:h0: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000002:  test:h1: a 7 and b 0\n"
	    "            unit   300 [000]     0.000003:  test:h2: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000004:  test:h3: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000005:  test:h4: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000006:  test:h5: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000007:  test:h6: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000008:  test:h7: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000009:  test:h8: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000010:  test:h9: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000011: test:h10: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000012: test:h11: a=7 b=0 name=ab\n"
	    "            unit   300 [000]     0.000013: test:h12: q=3 r=3\n"
	    "            unit   300 [000]     0.000014: test:h13: a=7 b=0 name=ab\n";
#else
	static const char want[] = "";
#endif
	const char *base = HOST_FMT(900, "\"a=%d\", REC->a");
	char *fmts[H_N] = { 0 }, long_fmt[70000];
	struct rc_note notes[H_N];
	struct tp_rec recs[H_N];
	struct rc_schema *s = rc_schema__new(NULL);
	struct rc_output *o = NULL;
	char *buf = NULL, why[256], names[H_N][16];
	const struct rc_meta *ms[1];
	struct rc_meta m;
	size_t len = 0, i;
	FILE *f = NULL;

#ifndef HAVE_LIBTRACEEVENT
	test__skip("built without libtraceevent (scripts/deps.sh installs libtraceevent-dev)");
	rc_schema__free(s);
	return;
#endif
	if (!ASSERT_OK_PTR(s, "schema"))
		return;
	/* common_type 4 bytes at 100000000 */
	fmts[H_COMMON] = strdup(
	    "name: h\nID: 1\nformat:\n"
	    "\tfield:unsigned short common_type;\toffset:100000000;\tsize:4;\tsigned:0;\n"
	    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" HOST_FIELDS
	    "print fmt: \"a=%d\", REC->a\n");
	fmts[H_SOUND] = strdup(HOST_FMT(902, "\"a %d and b %d\", REC->a, REC->b"));
	fmts[H_DIV] = strdup(HOST_FMT(903, "\"q=%d\", REC->a / REC->b"));
	fmts[H_MOD] = strdup(HOST_FMT(904, "\"q=%d\", REC->a % REC->b"));
	fmts[H_HEXDIV] = strdup(HOST_FMT(
	    905, "\"x=%s\", __print_hex(__get_dynamic_array(name), __get_dynamic_array_len(name) / 0)"));
	/* 60,000 '(' unclosed; 65 closed */
	fmts[H_NEST] = nested(906, "(", 60000, "");
	fmts[H_DEEP] = nested(907, "(", 65, ")");
	/* sound but for its length */
	snprintf(long_fmt, sizeof(long_fmt), "%s%65536s\n", HOST_FMT(908, "\"a=%d\", REC->a"), "");
	fmts[H_LONG] = strdup(long_fmt);
	fmts[H_HEXATOM] = strdup(HOST_FMT(909, "\"x=%s\", __print_hex(1, 4)"));
	fmts[H_ARRAY] = strdup(HOST_FMT(910, "\"x=%s\", __print_array(REC->a + 4, 2, 4)"));
	fmts[H_STAR] = strdup(HOST_FMT(911, "\"x=%*d\", REC->a, REC->b"));
	fmts[H_PREC] = strdup(HOST_FMT(912, "\"x=%.*s\", REC->a, __get_str(name)"));
	fmts[H_CONSTDIV] = strdup(HOST_FMT(913, "\"q=%d r=%d\", REC->a / 2, REC->a % 4"));
	/* a control byte where a field type's ']' was: libtraceevent 1.7 strcmp()s NULL */
	fmts[H_CTL] = strdup("name: h\nID: 914\nformat:\n" FT_COMMON
			     "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
			     "\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n"
			     "\tfield:__data_loc char[\x1d name;\toffset:16;\tsize:4;\tsigned:0;\n"
			     "\nprint fmt: \"a=%d\", REC->a\n");
	for (i = 0; i < H_N; i++) {
		struct rc_event_desc ev = { .id = 100 + i, .name = names[i] };
		struct rc_tpformat tf;
		uint32_t loc = 3u << 16 | 20;

		if (!ASSERT_OK_PTR(fmts[i], "format"))
			goto out;
		snprintf(names[i], sizeof(names[i]), "test:h%zu", i);
		if (!ASSERT_OK(rc_tpformat__parse(&tf, base, sizeof(struct rc_rec_hdr), why,
						  sizeof(why)),
			       why))
			goto out;
		ev.size = sizeof(struct tp_rec);
		ev.nfields = tf.nfields;
		ev.fields = tf.fields;
		ASSERT_OK(rc_schema__add_event(s, &ev), "add event");
		rc_tpformat__free(&tf);
		notes[i] = (struct rc_note){ 100 + i, "format", fmts[i], strlen(fmts[i]) };
		/* a=7 b=0 name="ab"; common_type: the note's ID */
		tp_rec(&recs[i], 100 + i, i == H_COMMON ? 1 : 901 + i, (i + 1) * 1000);
		memcpy(recs[i].raw + 8, &(int){ 7 }, 4);
		memcpy(recs[i].raw + 16, &loc, 4);
		memcpy(recs[i].raw + 20, "ab", 3);
	}
	test_meta(&m);
	m.cmdline = "";
	m.schema = s;
	m.notes = notes;
	m.nnotes = H_N;
	m.start_ts = 0;
	ms[0] = &m;
	f = open_memstream(&buf, &len);
	if (!ASSERT_OK_PTR(f, "open_memstream"))
		goto out;
	o = rc_output__new(&rc_output_perf_script, f, ms, 1, 0, false);
	if (!ASSERT_OK_PTR(o, "rc_output__new"))
		goto out;
	for (i = 0; i < H_N; i++)
		ASSERT_OK(rc_output__event(o, 0, &recs[i].hdr), "event");
	ASSERT_OK(rc_output__end(o), "end");
	rc_output__free(o);
	o = NULL;
	fclose(f);
	f = NULL;
	if (!ASSERT_STREQ(buf, want, "rendered, or field=value"))
		printf("%s", buf);
out:
	rc_output__free(o);
	if (f)
		fclose(f);
	free(buf);
	for (i = 0; i < H_N; i++)
		free(fmts[i]);
	rc_schema__free(s);
}
