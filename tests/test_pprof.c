// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --format pprof, read by the real reader: Debian's golang-go
 * (`go tool pprof`), run offline with a fresh HOME. Skipped only when
 * `go` is not installed.
 *
 * pprof_cpu      rc_prof burn (5:3:2 in burn_a, burn_b, burn_c): -traces
 *                gives the stacks of report --format folded exactly (the
 *                comm label as the folded root, counts by the samples
 *                value); -top's flat and cum shares are --summary's self
 *                and children, to 0.01 points by samples and 0.5 by CPU
 *                time; -raw shows the sample types, the period and the
 *                labels, and the mappings' build-ids: rc_prof's as
 *                readelf -n prints it, the kernel's of 20 bytes; two files of two hosts in one
 *                profile, each sample labelled with its host.
 * pprof_dwarf    --call-graph=dwarf: the stacks of folded, exactly.
 * pprof_offcpu   rc_prof block: -raw's ns blocked by stack, in us, are
 *                folded's lines, and their total folded's total.
 * pprof_inline   --srclines: inlined functions as lines of one location,
 *                with their files and lines.
 * pprof_events   -e syscalls:sys_enter_getppid -g: events/count, the
 *                stacks and counts of folded.
 * pprof_refusals a capture without samples: one line, exit 1, nothing
 *                written; --pprof-labels checked.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "run_util.h"
#include "test_progs.h"

#define MAX_FRAMES 512

/* A path in the test's directory, kept (tmpfile_path() reuses its buffers). */
#define TMP(var, name)                                                                             \
	char var[4096];                                                                            \
	snprintf(var, sizeof(var), "%s/%s", tmpdir(), name)

struct fline {
	char *text;
	uint64_t n;
};

struct flines {
	struct fline *v;
	size_t n, cap;
};

static int add_line(struct flines *l, const char *text, uint64_t n)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct fline *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].text = strdup(text);
	if (!l->v[l->n].text)
		return -ENOMEM;
	l->v[l->n++].n = n;
	return 0;
}

static void free_lines(struct flines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->text, ((const struct fline *)b)->text);
}

/* Sorted, equal texts merged; @div: counts divided after merging (ns to us), zeros dropped. */
static void merge_lines(struct flines *l, uint64_t div)
{
	size_t i, k = 0;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmp_line);
	for (i = 1; i < l->n; i++) {
		if (!strcmp(l->v[i].text, l->v[k].text)) {
			l->v[k].n += l->v[i].n;
			free(l->v[i].text);
		} else {
			l->v[++k] = l->v[i];
		}
	}
	l->n = k + 1;
	for (i = 0, k = 0; i < l->n; i++) {
		l->v[i].n /= div;
		if (l->v[i].n)
			l->v[k++] = l->v[i];
		else
			free(l->v[i].text);
	}
	l->n = k;
}

/* report --format folded's lines: "text COUNT". */
static int parse_folded(const char *out, struct flines *l)
{
	const char *pos = out;
	static char buf[65536];
	char *sp;

	while (next_line(&pos, buf, sizeof(buf))) {
		sp = strrchr(buf, ' ');
		if (!sp)
			return -EINVAL;
		*sp = 0;
		if (add_line(l, buf, strtoull(sp + 1, NULL, 10)))
			return -ENOMEM;
	}
	merge_lines(l, 1);
	return 0;
}

/* Both the same lines, with the same counts; else the first difference shown. */
static bool same_lines(const struct flines *a, const struct flines *b, const char *what)
{
	size_t i;

	if (!ASSERT_EQ(a->n, b->n, what)) {
		for (i = 0; i < a->n && i < b->n; i++)
			if (strcmp(a->v[i].text, b->v[i].text))
				break;
		if (i < a->n)
			fprintf(stderr, "    pprof:  %s %" PRIu64 "\n", a->v[i].text, a->v[i].n);
		if (i < b->n)
			fprintf(stderr, "    folded: %s %" PRIu64 "\n", b->v[i].text, b->v[i].n);
		return false;
	}
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->v[i].text, b->v[i].text) || a->v[i].n != b->v[i].n) {
			fprintf(stderr, "    pprof:  %s %" PRIu64 "\n    folded: %s %" PRIu64 "\n",
				a->v[i].text, a->v[i].n, b->v[i].text, b->v[i].n);
			return ASSERT_TRUE(false, what);
		}
	}
	return ASSERT_TRUE(true, what);
}

static bool have_go(void)
{
	return !system("command -v go >/dev/null 2>&1");
}

/* go tool pprof ARGS... FILE, offline: a fresh HOME and Go cache, no proxy, no symbolizer. */
static int go_pprof(struct run *r, const char *a1, const char *a2, const char *file)
{
	char home[4200], cache[4200], tmp[4200];

	snprintf(home, sizeof(home), "HOME=%s/home", tmpdir());
	snprintf(cache, sizeof(cache), "GOCACHE=%s/home/gocache", tmpdir());
	snprintf(tmp, sizeof(tmp), "PPROF_TMPDIR=%s/home", tmpdir());
	mkdir(home + 5, 0700);
	return run_sync(r,
			(char *[]){ "/usr/bin/env", home, cache, tmp, "GOPROXY=off",
				    "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local",
				    "PPROF_BINARY_PATH=/nonexistent", "go", "tool", "pprof",
				    (char *)a1, a2 ? (char *)a2 : (char *)file,
				    a2 ? (char *)file : NULL, NULL },
			120000);
}

/* report [ARGS] --format pprof INPUTS > @out; its exit code (stderr in @r). */
static int report_pprof(struct run *r, const char *args, const char *inputs, const char *out)
{
	char cmd[16384];

	snprintf(cmd, sizeof(cmd), "%.4000s report %.1000s --format pprof %.8000s > '%.3000s'",
		 ringcap_sh(), args, inputs, out);
	return run_sync(r, (char *[]){ "/bin/sh", "-c", cmd, NULL }, 120000);
}

/*
 * -traces' samples as folded lines: the "comm" label first, then the
 * frames outermost first (it prints them leaf first, inlined functions
 * marked " (inline)"), with the value it prints on the first frame.
 */
static int parse_traces(const char *out, struct flines *l, size_t *nsamples)
{
	static char buf[4096], frames[MAX_FRAMES][512], text[65536];
	const char *pos = out;
	char comm[64] = "";
	uint64_t v = 0;
	size_t nf = 0, i, k;
	bool in = false;
	char *p;

	*nsamples = 0;
	for (;;) {
		bool end = !next_line(&pos, buf, sizeof(buf));

		if (end || !strncmp(buf, "-----------+", 12)) {
			if (in && nf) {
				k = (size_t)snprintf(text, sizeof(text), "%s",
						     comm[0] ? comm : "[unknown]");
				for (i = nf; i-- > 0 && k < sizeof(text);)
					k += (size_t)snprintf(text + k, sizeof(text) - k, ";%s",
							      frames[i]);
				if (add_line(l, text, v))
					return -ENOMEM;
				(*nsamples)++;
			}
			if (end)
				break;
			in = true;
			nf = 0;
			comm[0] = 0;
			continue;
		}
		if (!in || strlen(buf) < 13)
			continue;
		if (buf[10] == ':') { /* a label: "%10s:  %s" */
			for (p = buf; *p == ' '; p++)
				;
			if (!strncmp(p, "comm:  ", 7))
				snprintf(comm, sizeof(comm), "%s", p + 7);
			continue;
		}
		if (strncmp(buf + 10, "   ", 3))
			continue;
		if (!nf)
			v = strtoull(buf, NULL, 10);
		if (nf == MAX_FRAMES)
			return -E2BIG;
		p = strstr(buf + 13, " (inline)");
		if (p && !p[9])
			*p = 0;
		snprintf(frames[nf++], sizeof(frames[0]), "%.511s", buf + 13);
	}
	merge_lines(l, 1);
	return 0;
}

/* A location of -raw: its functions, innermost first. */
struct raw_loc {
	unsigned long id;
	size_t n;
	char names[8][256];
};

/* The function of a -raw location line: what follows "0xADDR " and "M=N ". */
static void raw_name(const char *s, char *out, size_t len)
{
	const char *e;

	while (*s == ' ')
		s++;
	if (!strncmp(s, "M=", 2))
		s = strchr(s, ' ') ? strchr(s, ' ') + 1 : s + strlen(s);
	e = strchr(s, ' ');
	snprintf(out, len, "%.*s", (int)(e ? e - s : (long)strlen(s)), s);
}

/*
 * -raw's samples as folded lines, by value @vi (0: samples; 1: the
 * second type); @types set to its line of sample types, @labels to the
 * labels of its first sample.
 */
static int parse_raw(const char *out, int vi, struct flines *l, char *types, size_t tlen,
		     char *labels, size_t llen)
{
	static char buf[4096], text[65536];
	static struct raw_loc locs[4096];
	size_t nlocs = 0, i, k, j;
	const char *pos = out, *sec;
	char *p;

	/* the locations first: the samples name them */
	sec = strstr(out, "\nLocations\n");
	if (!sec)
		return -EINVAL;
	pos = sec + 11;
	while (next_line(&pos, buf, sizeof(buf)) && strcmp(buf, "Mappings")) {
		unsigned long id;
		char *colon = strchr(buf, ':');

		if (buf[0] == ' ' && buf[6] == ':' && sscanf(buf, "%lu:", &id) == 1 && colon) {
			if (nlocs == sizeof(locs) / sizeof(locs[0]))
				return -E2BIG;
			locs[nlocs].id = id;
			locs[nlocs].n = 0;
			p = strchr(colon + 2, ' '); /* past the address */
			if (!p)
				return -EINVAL;
			raw_name(p + 1, locs[nlocs].names[0], sizeof(locs[0].names[0]));
			locs[nlocs++].n = 1;
		} else if (nlocs && !strncmp(buf, "             ", 13) && locs[nlocs - 1].n < 8) {
			raw_name(buf + 13, locs[nlocs - 1].names[locs[nlocs - 1].n++],
				 sizeof(locs[0].names[0]));
		}
	}
	pos = strstr(out, "Samples:\n");
	if (!pos)
		return -EINVAL;
	pos += 9;
	if (!next_line(&pos, buf, sizeof(buf)))
		return -EINVAL;
	snprintf(types, tlen, "%.255s", buf);
	labels[0] = 0;
	text[0] = 0;
	uint64_t val = 0, vals[4];
	unsigned long ids[MAX_FRAMES];
	size_t nids = 0;
	bool have = false;

	for (;;) {
		bool end = !next_line(&pos, buf, sizeof(buf)) || !strcmp(buf, "Locations");
		char comm[64] = "";

		if (!end && !strncmp(buf, "                ", 16)) { /* a sample's labels */
			p = strstr(buf, "comm:[");
			if (p)
				snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(p + 6, "]"),
					 p + 6);
			if (!labels[0])
				snprintf(labels, llen, "%.511s", buf + 16);
			if (comm[0] && have) {
				/* the comm first, then the locations outermost first */
				k = (size_t)snprintf(text, sizeof(text), "%s", comm);
				for (i = nids; i-- > 0;) {
					for (j = 0; j < nlocs && locs[j].id != ids[i]; j++)
						;
					if (j == nlocs)
						return -EINVAL;
					for (size_t m = locs[j].n; m-- > 0 && k < sizeof(text);)
						k += (size_t)snprintf(text + k, sizeof(text) - k,
								      ";%s", locs[j].names[m]);
				}
				if (add_line(l, text, val))
					return -ENOMEM;
				have = false;
			}
			continue;
		}
		if (have)
			return -EINVAL; /* a sample without a comm label */
		if (end)
			break;
		/* " %10d %10d: ID ID ..." */
		p = strchr(buf, ':');
		if (!p)
			return -EINVAL;
		*p = 0;
		k = 0;
		for (char *s = buf, *e; k < 4; s = e) {
			vals[k] = strtoull(s, &e, 10);
			if (e == s)
				break;
			k++;
		}
		if ((size_t)vi >= k)
			return -EINVAL;
		val = vals[vi];
		nids = 0;
		for (char *s = p + 1, *e; nids < MAX_FRAMES; s = e) {
			ids[nids] = strtoul(s, &e, 10);
			if (e == s)
				break;
			nids++;
		}
		have = true;
	}
	return 0;
}

static bool record(const char *out, char *const extra[], const char *what)
{
	char *argv[32];
	struct run r = {};
	size_t n = 0;
	bool ok;

	argv[n++] = (char *)bin("ringcap");
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	while (*extra && n < 31)
		argv[n++] = *extra++;
	argv[n] = NULL;
	ok = ASSERT_EQ(run_sync(&r, argv, 120000), 0, what);
	run_free(&r);
	return ok;
}

/* --summary's or -top's share of @fn: "%7.2f%% %7.2f%%  NAME" or pprof's columns */
static bool summary_share(const char *out, const char *fn, double *self, double *children)
{
	const char *pos = out;
	char buf[1024], name[512];

	while (next_line(&pos, buf, sizeof(buf)))
		if (sscanf(buf, "%lf%% %lf%% %511s", children, self, name) == 3 &&
		    !strcmp(name, fn))
			return true;
	return false;
}

static bool top_share(const char *out, const char *fn, double *flat, double *cum)
{
	const char *pos = out;
	char buf[1024], name[512], a[64], b[64];
	double sum;

	while (next_line(&pos, buf, sizeof(buf)))
		if (sscanf(buf, "%63s %lf%% %lf%% %63s %lf%% %511s", a, flat, &sum, b, cum, name) ==
			6 &&
		    !strcmp(name, fn))
			return true;
	return false;
}

static void pprof_cpu(void)
{
	struct flines folded = {}, traces = {}, raw = {};
	char types[256], labels[512], what[256], in2[8192], tr[1024], cmd[16384];
	struct utsname uts;
	static const char *const fns[] = { "burn_a", "burn_b", "burn_c" };
	struct run r = {}, s = {};
	size_t nsamples, i, n;
	struct stat sb;
	TMP(cap, "cpu.rcap");
	TMP(pb, "cpu.pb.gz");
	TMP(cap2, "cpu2.rcap");
	TMP(pb2, "two.pb.gz");

	if (!record(cap,
		    (char *[]){ "-F", rate(), "-g", "--", (char *)bin("rc_prof"), "burn", "2000",
				(char *)tmpfile_path("truth"), NULL },
		    "record rc_prof burn"))
		goto out;
	if (!ASSERT_EQ(report_pprof(&r, "", cap, pb), 0, "report --format pprof") ||
	    !ASSERT_OK(stat(pb, &sb), "the profile written"))
		goto out;
	printf("    pprof: %lld bytes\n", (long long)sb.st_size);
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					    (char *)cap, NULL },
				60000),
		       0, "report --format folded") ||
	    !ASSERT_OK(parse_folded(r.out, &folded), "folded lines"))
		goto out;
	run_free(&r);

	/* -traces: the same stacks, with the same counts */
	if (!ASSERT_EQ(go_pprof(&r, "-traces", "-sample_index=samples", pb), 0,
		       "go tool pprof -traces") ||
	    !ASSERT_OK(parse_traces(r.out, &traces, &nsamples), "read -traces"))
		goto out;
	ASSERT_HAS(r.out, "Type: samples", "the samples value");
	ASSERT_HAS(r.out, "\nDuration: ", "the capture's duration");
	for (i = 0, n = 0; i < traces.n; i++)
		n += traces.v[i].n;
	ASSERT_TRUE(nsamples > 1 && n > 100, "samples in -traces");
	ASSERT_HAS(r.out, "File: rc_prof\n", "the profile named by the main program's file");
	same_lines(&traces, &folded, "-traces: the stacks and counts of folded");
	snprintf(tr, sizeof(tr), "%.1000s", r.out);
	run_free(&r);

	/* -top: each function's shares, flat and cum, as --summary's self and children */
	if (!ASSERT_EQ(run_sync(&s,
				(char *[]){ (char *)bin("ringcap"), "report", "--summary", "-t",
					    "1000", (char *)cap, NULL },
				60000),
		       0, "report --summary"))
		goto out;
	/* the span --summary gives, to -traces' four digits */
	{
		const char *o = strstr(s.out, " events over "), *d = strstr(tr, "\nDuration: ");
		double span = o ? strtod(o + 13, NULL) : -1, dur = d ? strtod(d + 11, NULL) : -2;

		snprintf(what, sizeof(what), "Duration %.3f s, --summary's span %.3f s", dur, span);
		ASSERT_TRUE(dur > span - span / 500 - 0.01 && dur < span + span / 500 + 0.01, what);
	}
	for (int idx = 0; idx < 2; idx++) {
		if (!ASSERT_EQ(go_pprof(&r, "-top",
					idx ? "-sample_index=cpu" : "-sample_index=samples", pb),
			       0, "go tool pprof -top"))
			goto out;
		if (!idx)
			ASSERT_HAS(r.out, "Type: samples", "by samples");
		else
			ASSERT_HAS(r.out, "Type: cpu", "by CPU time");
		for (i = 0; i < 3; i++) {
			double self, children, flat, cum, tol = idx ? 0.5 : 0.011;

			if (!ASSERT_TRUE(summary_share(s.out, fns[i], &self, &children),
					 "the function in --summary") ||
			    !ASSERT_TRUE(top_share(r.out, fns[i], &flat, &cum),
					 "the function in -top"))
				continue;
			snprintf(what, sizeof(what),
				 "%s by %s: flat %.2f%%, --summary's self %.2f%%", fns[i],
				 idx ? "cpu" : "samples", flat, self);
			ASSERT_TRUE(flat - self <= tol && self - flat <= tol, what);
			snprintf(what, sizeof(what),
				 "%s by %s: cum %.2f%%, --summary's children %.2f%%", fns[i],
				 idx ? "cpu" : "samples", cum, children);
			ASSERT_TRUE(cum - children <= tol && children - cum <= tol, what);
		}
		run_free(&r);
	}

	/* -raw: the types, the period, the labels */
	if (!ASSERT_EQ(go_pprof(&r, "-raw", NULL, pb), 0, "go tool pprof -raw") ||
	    !ASSERT_OK(parse_raw(r.out, 0, &raw, types, sizeof(types), labels, sizeof(labels)),
		       "read -raw"))
		goto out;
	ASSERT_STREQ(types, "samples/count cpu/nanoseconds", "sample types, samples first");
	ASSERT_HAS(r.out, "PeriodType: cpu nanoseconds", "the period's type");
	ASSERT_HAS(r.out, "\nTime: ", "the capture's start");
	ASSERT_HAS(labels, "comm:[", "a comm label");
	ASSERT_HAS(labels, "host:[", "a host label");
	ASSERT_HAS(labels, "cpu:[", "a cpu label");
	ASSERT_TRUE(!strstr(r.out, "pid:["), "no pid label by default");
	ASSERT_HAS(r.out, "\n1: 0x0/0x0/0x0 ", "the first mapping");
	/* rc_prof's build-id, as readelf -n (binutils) prints it */
	run_free(&s);
	if (ASSERT_EQ(run_sync(&s, (char *[]){ "/usr/bin/readelf", "-n", (char *)bin("rc_prof"), NULL },
			       30000),
		      0, "readelf -n rc_prof") &&
	    ASSERT_HAS(s.out, "Build ID: ", "rc_prof has a build-id")) {
		char bid[160] = "";

		sscanf(strstr(s.out, "Build ID: ") + 10, "%128[0-9a-f]", bid);
		snprintf(what, sizeof(what), "/rc_prof %s [FN]\n", bid);
		ASSERT_TRUE(strlen(bid) == 40, "a 20-byte build-id");
		ASSERT_HAS(r.out, what, "rc_prof's mapping: its build-id, symbolized");
	}
	/* the kernel's, when a sample had kernel frames: /sys/kernel/notes's (test_stacks.c) */
	if (strstr(r.out, " [kernel.kallsyms]"))
		ASSERT_TRUE(strstr(r.out, " [kernel.kallsyms] ") &&
				    strspn(strstr(r.out, " [kernel.kallsyms] ") + 19,
					   "0123456789abcdef") == 40,
			    "the kernel's mapping, with its build-id");
	merge_lines(&raw, 1);
	same_lines(&raw, &folded, "-raw: the stacks and counts of folded");
	run_free(&r);

	/*
	 * two files of two hosts (the second recorded in a UTS namespace of
	 * its own, named rc-pprof-b), pid and tid labels: one profile, every
	 * sample labelled with its file's host
	 */
	snprintf(cmd, sizeof(cmd),
		 "hostname rc-pprof-b && exec %.4000s record -q -F %s -g -o '%.4000s' -- "
		 "'%.4000s' burn 300 '%.4000s/truth2'",
		 ringcap_sh(), rate(), cap2, bin("rc_prof"), tmpdir());
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ "/usr/bin/unshare", "--uts", "/bin/sh", "-c", cmd, NULL },
			 120000),
		0, "record on host rc-pprof-b"))
		goto out;
	run_free(&r);
	uname(&uts);
	snprintf(in2, sizeof(in2), "'%.4000s' '%.4000s'", cap, cap2);
	if (!ASSERT_EQ(report_pprof(&r, "--pprof-labels=all", in2, pb2), 0,
		       "report --format pprof of two files"))
		goto out;
	run_free(&r);
	if (ASSERT_EQ(go_pprof(&r, "-raw", NULL, pb2), 0, "go tool pprof -raw")) {
		ASSERT_HAS(r.out, "pid:[", "a pid label");
		ASSERT_HAS(r.out, "tid:[", "a tid label");
		ASSERT_EQ(count_lines_with(r.out, "host:["), count_lines_with(r.out, "comm:["),
			  "every sample with its host");
		ASSERT_HAS(r.out, "host:[rc-pprof-b]", "the second file's host");
		snprintf(what, sizeof(what), "host:[%s]", uts.nodename);
		ASSERT_HAS(r.out, what, "and the first's");
	}
	run_free(&r);
	free_lines(&raw);
	free_lines(&folded);
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					   (char *)cap, (char *)cap2, NULL },
			       60000),
		      0, "report --format folded of two files") &&
	    ASSERT_OK(parse_folded(r.out, &folded), "folded lines")) {
		run_free(&r);
		if (ASSERT_EQ(go_pprof(&r, "-raw", NULL, pb2), 0, "go tool pprof -raw") &&
		    ASSERT_OK(
			parse_raw(r.out, 0, &raw, types, sizeof(types), labels, sizeof(labels)),
			"read -raw")) {
			merge_lines(&raw, 1);
			same_lines(&raw, &folded, "two files: the stacks and counts of folded");
		}
	}
out:
	free_lines(&folded);
	free_lines(&traces);
	free_lines(&raw);
	run_free(&r);
	run_free(&s);
	tmpdir_cleanup();
}

static void pprof_offcpu(void)
{
	struct flines folded = {}, raw = {};
	uint64_t a = 0, b = 0;
	char types[256], labels[512];
	struct run r = {};
	size_t i;
	TMP(cap, "off.rcap");
	TMP(pb, "off.pb.gz");

	if (!record(cap,
		    (char *[]){ "--off-cpu", "-g", "--", (char *)bin("rc_prof"), "block",
				(char *)tmpfile_path("truth"), NULL },
		    "record --off-cpu rc_prof block") ||
	    !ASSERT_EQ(report_pprof(&r, "", cap, pb), 0, "report --format pprof"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					    (char *)cap, NULL },
				60000),
		       0, "report --format folded") ||
	    !ASSERT_OK(parse_folded(r.out, &folded), "folded lines"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(go_pprof(&r, "-raw", NULL, pb), 0, "go tool pprof -raw") ||
	    !ASSERT_OK(parse_raw(r.out, 1, &raw, types, sizeof(types), labels, sizeof(labels)),
		       "read -raw"))
		goto out;
	ASSERT_STREQ(types, "samples/count off_cpu/nanoseconds", "sample types, samples first");
	ASSERT_HAS(r.out, "PeriodType: off_cpu nanoseconds", "the period's type");
	/* folded weighs in us, each line's ns divided after merging: do the same */
	merge_lines(&raw, 1000);
	same_lines(&raw, &folded, "ns blocked by stack, in us, as folded's lines");
	for (i = 0; i < raw.n; i++)
		a += raw.v[i].n;
	for (i = 0; i < folded.n; i++)
		b += folded.v[i].n;
	ASSERT_EQ(a, b, "the total of folded");
	ASSERT_TRUE(a > 400000, "blk_a and blk_b's 500 ms among it");
	run_free(&r);
	if (ASSERT_EQ(go_pprof(&r, "-top", NULL, pb), 0, "go tool pprof -top")) {
		ASSERT_HAS(r.out, "Type: off_cpu", "by time blocked");
		ASSERT_HAS(r.out, "blk_a", "blk_a among the functions");
	}
out:
	free_lines(&folded);
	free_lines(&raw);
	run_free(&r);
	tmpdir_cleanup();
}

/* --call-graph=dwarf: user stacks unwound from copies, the same in pprof as in folded */
static void pprof_dwarf(void)
{
	struct flines folded = {}, traces = {};
	struct run r = {};
	size_t n, i;
	uint64_t all = 0;
	TMP(cap, "dwarf.rcap");
	TMP(pb, "dwarf.pb.gz");

	if (!record(cap,
		    (char *[]){ "-F", rate(), "--call-graph=dwarf", "--",
				(char *)bin("rc_prof_nofp"), "burn", "1000",
				(char *)tmpfile_path("truth"), NULL },
		    "record --call-graph=dwarf rc_prof_nofp burn") ||
	    !ASSERT_EQ(report_pprof(&r, "", cap, pb), 0, "report --format pprof"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(go_pprof(&r, "-traces", "-sample_index=samples", pb), 0,
		       "go tool pprof -traces") ||
	    !ASSERT_OK(parse_traces(r.out, &traces, &n), "read -traces"))
		goto out;
	ASSERT_HAS(r.out, "File: rc_prof_nofp\n", "named by the program");
	ASSERT_HAS(r.out, "   burn_a\n", "burn_a unwound");
	run_free(&r);
	for (i = 0; i < traces.n; i++)
		all += traces.v[i].n;
	ASSERT_TRUE(all > 50, "samples in -traces");
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					   (char *)cap, NULL },
			       60000),
		      0, "report --format folded") &&
	    ASSERT_OK(parse_folded(r.out, &folded), "folded lines"))
		same_lines(&traces, &folded, "-traces: the stacks and counts of folded");
out:
	free_lines(&folded);
	free_lines(&traces);
	run_free(&r);
	tmpdir_cleanup();
}

/* -e EVENT -g: the events' stacks, weighed in events */
static void pprof_events(void)
{
	struct flines folded = {}, raw = {};
	char types[256], labels[512];
	struct run r = {};
	TMP(cap, "ev.rcap");
	TMP(pb, "ev.pb.gz");

	if (!record(cap,
		    (char *[]){ "-g", "-e", "syscalls:sys_enter_getppid", "--",
				(char *)bin("rc_prof"), "sys", "200", NULL },
		    "record -e syscalls:sys_enter_getppid -g rc_prof sys") ||
	    !ASSERT_EQ(report_pprof(&r, "", cap, pb), 0, "report --format pprof"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(go_pprof(&r, "-raw", NULL, pb), 0, "go tool pprof -raw") ||
	    !ASSERT_OK(parse_raw(r.out, 0, &raw, types, sizeof(types), labels, sizeof(labels)),
		       "read -raw"))
		goto out;
	ASSERT_STREQ(types, "events/count", "one sample type: events");
	ASSERT_HAS(r.out, " sys_heavy ", "sys_heavy, where getppid() is called");
	merge_lines(&raw, 1);
	run_free(&r);
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					   (char *)cap, NULL },
			       60000),
		      0, "report --format folded") &&
	    ASSERT_OK(parse_folded(r.out, &folded), "folded lines"))
		same_lines(&raw, &folded, "-raw: the stacks and counts of folded");
out:
	free_lines(&folded);
	free_lines(&raw);
	run_free(&r);
	tmpdir_cleanup();
}

static void pprof_inline(void)
{
	struct flines folded = {}, traces = {};
	struct run r = {};
	size_t n;
	TMP(cap, "inl.rcap");
	TMP(pb, "inl.pb.gz");

	if (!record(cap,
		    (char *[]){ "-F", rate(), "-g", "--srclines", "--", (char *)bin("rc_prof"),
				"inline", "1000", (char *)tmpfile_path("truth"), NULL },
		    "record --srclines rc_prof inline") ||
	    !ASSERT_EQ(report_pprof(&r, "", cap, pb), 0, "report --format pprof"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(go_pprof(&r, "-raw", NULL, pb), 0, "go tool pprof -raw"))
		goto out;
	/* inl_inner inlined into inl_outer into burn_inl: one location, three lines */
	ASSERT_HAS(r.out, " inl_inner ", "inl_inner");
	ASSERT_HAS(r.out, "profwork.c:", "source files and lines");
	ASSERT_HAS(r.out, "[FN][FL][LN][IN]",
		   "rc_prof's mapping: functions, files, lines, inlines");
	run_free(&r);
	if (!ASSERT_EQ(go_pprof(&r, "-traces", "-sample_index=samples", pb), 0,
		       "go tool pprof -traces"))
		goto out;
	ASSERT_HAS(r.out, "inl_inner (inline)", "inlined functions marked");
	if (!ASSERT_OK(parse_traces(r.out, &traces, &n), "read -traces"))
		goto out;
	run_free(&r);
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					   (char *)cap, NULL },
			       60000),
		      0, "report --format folded") &&
	    ASSERT_OK(parse_folded(r.out, &folded), "folded lines"))
		same_lines(&traces, &folded, "-traces: the stacks of folded, inlined frames too");
	run_free(&r);
	/* -lines: each line its own node, files and lines as --srclines gave them */
	if (ASSERT_EQ(go_pprof(&r, "-top", "-lines", pb), 0, "go tool pprof -top -lines"))
		ASSERT_HAS(r.out, "inl_inner ", "inl_inner with its line");
out:
	free_lines(&folded);
	free_lines(&traces);
	run_free(&r);
	tmpdir_cleanup();
}

static void pprof_refusals(void)
{
	struct run r = {};
	struct stat sb;
	TMP(cap, "nosamples.rcap");
	TMP(pb, "x.pb.gz");

	if (!record(cap, (char *[]){ "-e", "syscalls", "--", "true", NULL }, "record syscalls"))
		goto out;
	ASSERT_EQ(report_pprof(&r, "", cap, pb), 1, "a capture without samples: exit 1");
	ASSERT_HAS(r.err, "no stacks in this capture", "said");
	ASSERT_EQ(count_lines_with(r.err, ""), 1, "in one line");
	ASSERT_TRUE(!stat(pb, &sb) && sb.st_size == 0, "nothing written");
	run_free(&r);
	ASSERT_EQ(report_pprof(&r, "--pprof-labels=pid,bogus", cap, pb), 64,
		  "an unknown label refused");
	ASSERT_HAS(r.err, "invalid --pprof-labels 'pid,bogus'", "and named");
	run_free(&r);
	ASSERT_EQ(run_sync(&r,
			   (char *[]){ (char *)bin("ringcap"), "report", "--pprof-labels=pid",
				       (char *)cap, NULL },
			   60000),
		  64, "--pprof-labels without --format pprof");
	ASSERT_HAS(r.err, "--pprof-labels goes with --format pprof", "why");
out:
	run_free(&r);
	tmpdir_cleanup();
}

void test_pprof_go(void)
{
	if (!need_root())
		return;
	if (!have_go()) {
		test__skip("go is not installed (apt-get install golang-go): go tool pprof reads "
			   "the profiles");
		return;
	}
	if (test__start_subtest("cpu"))
		pprof_cpu();
	if (test__start_subtest("dwarf"))
		pprof_dwarf();
	if (test__start_subtest("offcpu"))
		pprof_offcpu();
	if (test__start_subtest("inline"))
		pprof_inline();
	if (test__start_subtest("events"))
		pprof_events();
}

void test_pprof_refusals(void)
{
	if (need_root())
		pprof_refusals();
}
