// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flame graph writer: a document that parses as XML, frames as wide as
 * their weight, sorted and stacked as flamegraph.pl draws them, names
 * escaped, colours by name, and an empty graph that says so. And a real
 * capture's flame graph in a real browser (Debian's chromium, headless):
 * drawn (a screenshot that is not blank), and its script working (a click
 * zooms, a hover tells, no error).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "output/flamegraph.h"
#include "run_util.h"
#include "test_progs.h"

#define FG_SPAN 1180.0 /* the width of "all", px */

/* @g written with @o into a string to free, or NULL (the test failed). */
static char *fg_svg(struct rc_fg *g, const struct rc_fg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&buf, &len);
	if (!ASSERT_OK_PTR(f, "open_memstream"))
		return NULL;
	err = rc_fg__write(g, o, f);
	if (fclose(f) && !err)
		err = -errno;
	if (!ASSERT_OK(err, "rc_fg__write")) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Build a graph of "a;b;c"-style stacks (';' between frames). */
static struct rc_fg *fg_of(const char *const *stacks, const uint64_t *w, size_t n)
{
	struct rc_fg *g = rc_fg__new();
	const char *frames[64];
	char buf[512], *s, *save;
	size_t i, nf;

	if (!ASSERT_OK_PTR(g, "rc_fg__new"))
		return NULL;
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%s", stacks[i]);
		nf = 0;
		for (s = strtok_r(buf, ";", &save); s && nf < 64; s = strtok_r(NULL, ";", &save))
			frames[nf++] = s;
		if (!ASSERT_OK(rc_fg__add(g, frames, nf, w[i]), stacks[i])) {
			rc_fg__free(g);
			return NULL;
		}
	}
	return g;
}

/*
 * Does @svg parse as XML? Checked by python3's minidom (expat); when there
 * is no python3 the subtest is skipped (and this says yes).
 */
static bool xml_ok(const char *svg)
{
	char path[] = "/tmp/rc-fg-XXXXXX.svg", cmd[256];
	size_t len = strlen(svg);
	bool ok;
	int fd;

	if (system("command -v python3 >/dev/null 2>&1")) {
		test__skip("no python3 to parse the SVG");
		return true;
	}
	fd = mkstemps(path, 4);
	if (!ASSERT_TRUE(fd >= 0, "mkstemps"))
		return false;
	ok = ASSERT_EQ(write(fd, svg, len), (long long)len, "write");
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import sys,xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' %s",
		 path);
	ok = ok && ASSERT_EQ(system(cmd), 0, "parses as XML");
	unlink(path);
	return ok;
}

/* The <g> of the frame whose tooltip is "@name (...)", or NULL. */
static const char *frame_of(const char *svg, const char *name)
{
	const char *t, *p;
	char key[512];

	snprintf(key, sizeof(key), "<title>%s (", name);
	t = strstr(svg, key);
	if (!t)
		return NULL;
	for (p = t; p > svg && strncmp(p, "<g ", 3); p--)
		;
	return p;
}

/* Attribute @attr of the first @tag ("<rect") of frame @g, or "" when none. */
static const char *attr_of(const char *g, const char *tag, const char *attr, char *out, size_t sz)
{
	const char *end = g ? strstr(g, "</g>") : NULL, *p, *tag_end, *v;
	char key[64];
	size_t n;

	out[0] = '\0';
	p = g ? strstr(g, tag) : NULL;
	if (!p || !end || p > end)
		return out;
	tag_end = strchr(p, '>');
	snprintf(key, sizeof(key), " %s=\"", attr);
	v = strstr(p, key);
	if (!v || v > tag_end)
		return out;
	v += strlen(key);
	n = strcspn(v, "\"");
	if (n >= sz)
		n = sz - 1;
	memcpy(out, v, n);
	out[n] = '\0';
	return out;
}

/* A numeric attribute of a frame's @tag; -1 when there is no such frame. */
static double num_of(const char *svg, const char *name, const char *tag, const char *attr)
{
	char buf[64];

	attr_of(frame_of(svg, name), tag, attr, buf, sizeof(buf));
	return buf[0] ? strtod(buf, NULL) : -1;
}

/* The label of a frame (its <text>), into @out. */
static const char *label_of(const char *svg, const char *name, char *out, size_t sz)
{
	const char *g = frame_of(svg, name), *p, *e;
	size_t n;

	out[0] = '\0';
	p = g ? strstr(g, "<text") : NULL;
	p = p ? strchr(p, '>') : NULL;
	e = p ? strstr(p, "</text>") : NULL;
	if (!e)
		return out;
	n = (size_t)(e - p - 1) < sz - 1 ? (size_t)(e - p - 1) : sz - 1;
	memcpy(out, p + 1, n);
	out[n] = '\0';
	return out;
}

/* The rgb() of a frame's rect; false when there is none. */
static bool rgb_of(const char *g, int rgb[3])
{
	char buf[64];

	attr_of(g, "<rect", "fill", buf, sizeof(buf));
	return sscanf(buf, "rgb(%d,%d,%d)", &rgb[0], &rgb[1], &rgb[2]) == 3;
}

static double fabs_(double v)
{
	return v < 0 ? -v : v;
}

static const char *const abc[] = { "a;b;c", "a;b;d", "a;e" };
static const uint64_t abc_w[] = { 60, 30, 10 };

static void svg_basics(void)
{
	struct rc_fg *g = fg_of(abc, abc_w, 3);
	const struct rc_fg_opts o = { .title = "CPU flame graph", .unit = "samples" };
	double wb, we, wc, wd;
	char *svg = NULL;

	if (!g || !(svg = fg_svg(g, &o)))
		goto out;
	if (test__start_subtest("xml"))
		xml_ok(svg);
	if (test__start_subtest("widths")) {
		wb = num_of(svg, "b", "<rect", "width");
		we = num_of(svg, "e", "<rect", "width");
		wc = num_of(svg, "c", "<rect", "width");
		wd = num_of(svg, "d", "<rect", "width");
		ASSERT_TRUE(we > 0 && fabs_(wb / we - 9) < 0.001, "b:e is 9:1");
		ASSERT_TRUE(wd > 0 && fabs_(wc / wd - 2) < 0.001, "c:d is 2:1");
		ASSERT_TRUE(fabs_(num_of(svg, "all", "<rect", "width") - FG_SPAN) < 0.01,
			    "all: full");
		ASSERT_TRUE(fabs_(num_of(svg, "a", "<rect", "width") - FG_SPAN) < 0.01, "a: full");
		ASSERT_TRUE(fabs_(wb - 0.9 * FG_SPAN) < 0.01, "b: 90%");
		/* siblings side by side, the first at the caller's left edge */
		ASSERT_TRUE(fabs_(num_of(svg, "e", "<rect", "x") - num_of(svg, "b", "<rect", "x") -
				  wb) < 0.011,
			    "e just right of b");
		ASSERT_TRUE(fabs_(num_of(svg, "c", "<rect", "x") - num_of(svg, "b", "<rect", "x")) <
				0.001,
			    "c at b's left edge");
	}
	if (test__start_subtest("titles")) {
		ASSERT_HAS(svg, "<title>all (100 samples, 100.00%)</title>", "all");
		ASSERT_HAS(svg, "<title>b (90 samples, 90.00%)</title>", "b");
		ASSERT_HAS(svg, "<title>c (60 samples, 60.00%)</title>", "c");
		ASSERT_HAS(svg, "<title>d (30 samples, 30.00%)</title>", "d");
		ASSERT_HAS(svg, "<title>e (10 samples, 10.00%)</title>", "e");
		ASSERT_HAS(svg, "<text id=\"title\" x=\"600\" y=\"24\">CPU flame graph</text>",
			   "title");
		ASSERT_HAS(svg, "data-total=\"100\"", "the total for the script");
	}
	if (test__start_subtest("stacked_upwards")) {
		/* root at the bottom, a row of 16 px per depth, siblings on one row */
		ASSERT_EQ(num_of(svg, "a", "<rect", "y"), num_of(svg, "all", "<rect", "y") - 16,
			  "a");
		ASSERT_EQ(num_of(svg, "b", "<rect", "y"), num_of(svg, "a", "<rect", "y") - 16, "b");
		ASSERT_EQ(num_of(svg, "e", "<rect", "y"), num_of(svg, "b", "<rect", "y"), "e by b");
		ASSERT_EQ(num_of(svg, "c", "<rect", "y"), num_of(svg, "b", "<rect", "y") - 16, "c");
		/* 36 px of title, 4 rows, 34 px of status line */
		ASSERT_HAS(svg, "height=\"134\"", "the image's height");
		ASSERT_EQ(num_of(svg, "all", "<rect", "y"), 134 - 34 - 16, "all on the bottom row");
		ASSERT_EQ(num_of(svg, "c", "<g", "data-d"), 3, "c's depth");
	}
	if (test__start_subtest("script")) {
		ASSERT_HAS(svg, "<script type=\"text/ecmascript\"><![CDATA[", "embedded script");
		ASSERT_HAS(svg, ">Reset Zoom</text>", "zoom control");
		ASSERT_HAS(svg, ">Search</text>", "search control");
		ASSERT_HAS(svg, "ctrlKey", "ctrl-F");
		ASSERT_HAS(svg, "rgb(230,0,230)", "magenta matches");
		ASSERT_HAS(svg, "Matched: ", "matched share");
		ASSERT_TRUE(!strstr(svg, "href") && !strstr(svg, "src=") && !strstr(svg, "@import"),
			    "nothing loaded from outside");
	}
out:
	free(svg);
	rc_fg__free(g);
}

static void svg_sorted(void)
{
	static const char *const fwd[] = { "a;b", "a;m", "a;z;q", "a;B", "a;_" };
	static const char *const rev[] = { "a;_", "a;B", "a;z;q", "a;m", "a;b", "a;b" };
	static const uint64_t w_fwd[] = { 2, 3, 4, 5, 6 }, w_rev[] = { 6, 5, 4, 3, 1, 1 };
	struct rc_fg *g1 = fg_of(fwd, w_fwd, 5), *g2 = fg_of(rev, w_rev, 6);
	char *s1 = NULL, *s2 = NULL;

	if (!g1 || !g2 || !(s1 = fg_svg(g1, NULL)) || !(s2 = fg_svg(g2, NULL)))
		goto out;
	/* byte order, as flamegraph.pl sorts: "B" < "_" < "b" < "m" < "z" */
	ASSERT_LT(num_of(s1, "B", "<rect", "x"), num_of(s1, "_", "<rect", "x"), "B before _");
	ASSERT_LT(num_of(s1, "_", "<rect", "x"), num_of(s1, "b", "<rect", "x"), "_ before b");
	ASSERT_LT(num_of(s1, "b", "<rect", "x"), num_of(s1, "m", "<rect", "x"), "b before m");
	ASSERT_LT(num_of(s1, "m", "<rect", "x"), num_of(s1, "z", "<rect", "x"), "m before z");
	ASSERT_TRUE(frame_of(s1, "B") < frame_of(s1, "z"), "written in order too");
	ASSERT_HAS(s1, "<title>b (2 samples, 10.00%)</title>", "merged weights");
	ASSERT_STREQ(s1, s2, "the same document whatever the order of adding");
out:
	free(s1);
	free(s2);
	rc_fg__free(g1);
	rc_fg__free(g2);
}

static void svg_narrow(void)
{
	static const char *const st[] = { "a;big", "a;small", "a;small;smaller", "a;thin" };
	/* 1 of 1e6 is 0.00118 px; 100 of 1e6 is 0.118 px, drawn */
	static const uint64_t w[] = { 999899, 1, 0, 100 };
	struct rc_fg *g = fg_of(st, w, 4);
	char *svg = NULL;

	if (!g || !(svg = fg_svg(g, NULL)))
		goto out;
	ASSERT_TRUE(!frame_of(svg, "small"), "small not drawn");
	ASSERT_TRUE(!frame_of(svg, "smaller"), "no weight: not even a node");
	ASSERT_TRUE(frame_of(svg, "thin") != NULL, "thin drawn");
	ASSERT_HAS(svg, "<title>a (1,000,000 samples, 100.00%)</title>", "small's weight in a");
	ASSERT_HAS(svg, "<!-- not drawn: 1 frames narrower than 0.1 px", "said so");
	ASSERT_EQ(num_of(svg, "thin", "<g", "data-x"), 999900, "small's room kept, left of thin");
out:
	free(svg);
	rc_fg__free(g);
}

static void svg_labels(void)
{
	const char *frames[2] = { NULL, NULL };
	struct rc_fg *g = rc_fg__new();
	char name[300], lbl[400], *svg = NULL;

	if (!ASSERT_OK_PTR(g, "rc_fg__new"))
		return;
	memset(name, 'f', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	frames[0] = name;
	ASSERT_OK(rc_fg__add(g, frames, 1, 1180 - 5 - 30), "long name");
	frames[0] = "abcdefgh"; /* 30 px: (30 - 6) / 7.08 fits 3 characters */
	ASSERT_OK(rc_fg__add(g, frames, 1, 30), "30 px");
	frames[0] = "xy"; /* 5 px: no label */
	ASSERT_OK(rc_fg__add(g, frames, 1, 5), "5 px");
	if (!(svg = fg_svg(g, NULL)))
		goto out;
	xml_ok(svg);
	label_of(svg, name, lbl, sizeof(lbl));
	/* 1145 px: (1145 - 6) / 7.08 = 160.9 characters, 158 of the name and ".." */
	ASSERT_EQ(strlen(lbl), 160, "long label cut to fit");
	ASSERT_TRUE(!strncmp(lbl, name, 158) && !strcmp(lbl + 158, ".."), "cut with ..");
	ASSERT_STREQ(label_of(svg, "abcdefgh", lbl, sizeof(lbl)), "a..", "3 characters");
	ASSERT_STREQ(label_of(svg, "xy", lbl, sizeof(lbl)), "", "too narrow for a label");
	ASSERT_STREQ(label_of(svg, "all", lbl, sizeof(lbl)), "all", "all fits");
out:
	free(svg);
	rc_fg__free(g);
}

static void svg_colours(void)
{
	static const char *const st[] = { "main;work;sys_read_[k];vfs_read_[k]", "main;idle",
					  "main;work;compute" };
	static const uint64_t w[] = { 5, 3, 2 };
	struct rc_fg_opts on = { .unit = "samples" }, off = { .unit = "us", .off_cpu = true };
	struct rc_fg *g = fg_of(st, w, 3), *g2 = fg_of(abc, abc_w, 3);
	char *s_on = NULL, *s_off = NULL, *s_kon = NULL, *s_koff = NULL, *s2 = NULL;
	const char *p;
	int rgb[3], rgb2[3], n;

	if (!g || !g2 || !(s_on = fg_svg(g, &on)) || !(s_off = fg_svg(g, &off)) ||
	    !(s2 = fg_svg(g2, &on)))
		goto out;
	on.kernel_marks = off.kernel_marks = true;
	if (!(s_kon = fg_svg(g, &on)) || !(s_koff = fg_svg(g, &off)))
		goto out;
	if (test__start_subtest("warm_and_blue")) {
		for (n = 0, p = strstr(s_on, "<g data-"); p; p = strstr(p + 1, "<g data-"), n++) {
			if (!ASSERT_TRUE(rgb_of(p, rgb), "fill"))
				break;
			ASSERT_TRUE(rgb[0] >= 205 && rgb[2] <= 55, "on-CPU: warm");
		}
		ASSERT_EQ(n, 7, "every frame");
		for (n = 0, p = strstr(s_off, "<g data-"); p; p = strstr(p + 1, "<g data-"), n++) {
			if (!ASSERT_TRUE(rgb_of(p, rgb), "fill"))
				break;
			ASSERT_TRUE(rgb[2] >= 190 && rgb[0] <= 140 && rgb[1] <= 140,
				    "off-CPU: blue-dominant");
		}
		ASSERT_EQ(n, 7, "every frame");
		ASSERT_HAS(s_off, "<title>main (10 us, 100.00%)</title>", "the unit");
	}
	if (test__start_subtest("kernel_marks")) {
		ASSERT_TRUE(rgb_of(frame_of(s_kon, "sys_read_[k]"), rgb), "kernel fill");
		ASSERT_TRUE(rgb[0] >= 190 && rgb[1] >= 90 && rgb[1] <= 155 && rgb[2] == 0,
			    "on-CPU kernel: orange");
		ASSERT_TRUE(rgb_of(frame_of(s_kon, "compute"), rgb), "user fill");
		ASSERT_TRUE(rgb[0] >= 200 && rgb[2] >= 50 && rgb[2] <= 130, "on-CPU user: red");
		ASSERT_TRUE(rgb_of(frame_of(s_koff, "vfs_read_[k]"), rgb), "kernel fill");
		ASSERT_TRUE(rgb[0] <= 110 && rgb[1] >= 165 && rgb[2] >= 165,
			    "off-CPU kernel: aqua");
		ASSERT_TRUE(rgb_of(frame_of(s_koff, "compute"), rgb), "user fill");
		ASSERT_TRUE(rgb[2] >= 190 && rgb[0] <= 140, "off-CPU user: blue");
	}
	if (test__start_subtest("by_name")) {
		/* "all" in two graphs of different stacks: the same colour */
		ASSERT_TRUE(rgb_of(frame_of(s_on, "all"), rgb) && rgb_of(frame_of(s2, "all"), rgb2),
			    "fills");
		ASSERT_TRUE(!memcmp(rgb, rgb2, sizeof(rgb)), "same name, same colour");
		ASSERT_TRUE(rgb_of(frame_of(s_on, "work"), rgb2), "fill");
		ASSERT_TRUE(memcmp(rgb, rgb2, sizeof(rgb)), "other names, other colours");
	}
out:
	free(s_on);
	free(s_off);
	free(s_kon);
	free(s_koff);
	free(s2);
	rc_fg__free(g);
	rc_fg__free(g2);
}

static void svg_deep(void)
{
	enum { DEPTH = 2000 };
	const char **frames = calloc(DEPTH, sizeof(*frames));
	char(*names)[16] = calloc(DEPTH, sizeof(*names));
	struct rc_fg *g = rc_fg__new();
	char *svg = NULL;
	size_t i;

	if (!ASSERT_OK_PTR(g, "rc_fg__new") || !ASSERT_OK_PTR(frames, "calloc") ||
	    !ASSERT_OK_PTR(names, "calloc"))
		goto out;
	for (i = 0; i < DEPTH; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i);
		frames[i] = names[i];
	}
	/* deeper than any recursion should go: the walk is a loop */
	ASSERT_OK(rc_fg__add(g, frames, DEPTH, 7), "deep stack");
	ASSERT_OK(rc_fg__add(g, frames, DEPTH / 2, 3), "half as deep");
	if (!(svg = fg_svg(g, NULL)))
		goto out;
	ASSERT_EQ(num_of(svg, "f1999", "<g", "data-d"), DEPTH, "the leaf's depth");
	ASSERT_HAS(svg, "<title>f999 (10 samples, 100.00%)</title>", "shared part");
	ASSERT_HAS(svg, "<title>f1000 (7 samples, 70.00%)</title>", "deep part");
	xml_ok(svg);
out:
	free(svg);
	rc_fg__free(g);
	free(names);
	free(frames);
}

static void svg_errors(void)
{
	const char *frames[] = { "a", NULL };
	struct rc_fg *g = rc_fg__new();
	char *svg = NULL;

	if (!ASSERT_OK_PTR(g, "rc_fg__new"))
		return;
	ASSERT_EQ(rc_fg__add(NULL, frames, 1, 1), -EINVAL, "no graph");
	ASSERT_EQ(rc_fg__add(g, NULL, 1, 1), -EINVAL, "no frames");
	ASSERT_EQ(rc_fg__add(g, frames, 2, 1), -EINVAL, "a NULL name");
	ASSERT_OK(rc_fg__add(g, frames, 1, 0), "no weight: nothing");
	ASSERT_EQ(rc_fg__write(NULL, NULL, stdout), -EINVAL, "no graph to write");
	ASSERT_EQ(rc_fg__write(g, NULL, NULL), -EINVAL, "nowhere to write");
	if (!(svg = fg_svg(g, NULL)))
		goto out;
	ASSERT_HAS(svg, "no samples", "still empty");
	free(svg);
	svg = NULL;
	ASSERT_OK(rc_fg__add(g, NULL, 0, UINT64_MAX - 1), "all alone");
	ASSERT_EQ(rc_fg__add(g, frames, 1, 2), -EOVERFLOW, "total past UINT64_MAX");
	ASSERT_OK(rc_fg__add(g, frames, 1, 1), "up to UINT64_MAX");
	if (!(svg = fg_svg(g, NULL)))
		goto out;
	ASSERT_HAS(svg, "<title>all (18,446,744,073,709,551,615 samples, 100.00%)</title>",
		   "the whole range");
	ASSERT_TRUE(!frame_of(svg, "a"), "a: 1 of 2^64, not drawn");
out:
	free(svg);
	rc_fg__free(g);
}

void test_flamegraph_svg(void)
{
	svg_basics();
	if (test__start_subtest("sorted"))
		svg_sorted();
	if (test__start_subtest("narrow_dropped"))
		svg_narrow();
	if (test__start_subtest("labels"))
		svg_labels();
	svg_colours();
	if (test__start_subtest("deep"))
		svg_deep();
	if (test__start_subtest("errors"))
		svg_errors();
}

void test_flamegraph_escape(void)
{
	struct rc_fg_opts o = { .title = "<T&T> \"x\"", .unit = "u<s>" };
	const char *frames[3];
	struct rc_fg *g = NULL;
	char *svg = NULL, name[801], lbl[801];
	size_t i;

	if (test__start_subtest("names")) {
		g = rc_fg__new();
		if (!ASSERT_OK_PTR(g, "rc_fg__new"))
			goto out;
		frames[0] = "<a&b>\"'";
		frames[1] = "ctl\x01\x1f\t\n\x7f"
			    "x";
		ASSERT_OK(rc_fg__add(g, frames, 2, 3), "specials");
		frames[1] = "bad\xff\xc3(utf8\xe2\x82";
		ASSERT_OK(rc_fg__add(g, frames, 2, 2), "not UTF-8");
		frames[1] = "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5 \xc2\x85";
		ASSERT_OK(rc_fg__add(g, frames, 2, 1), "UTF-8");
		if (!(svg = fg_svg(g, &o)))
			goto out;
		xml_ok(svg);
		ASSERT_HAS(svg,
			   "<title>&lt;a&amp;b&gt;&quot;&apos; (6 u&lt;s&gt;, 100.00%)</title>",
			   "specials escaped");
		ASSERT_HAS(svg, "<title>ctl?????x (", "control characters");
		ASSERT_HAS(svg, "<title>bad\xef\xbf\xbd\xef\xbf\xbd(utf8\xef\xbf\xbd\xef\xbf\xbd (",
			   "bytes that are not UTF-8");
		ASSERT_HAS(svg, "<title>caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5 ? (",
			   "UTF-8 kept, C1 control replaced");
		ASSERT_HAS(svg, ">&lt;T&amp;T&gt; &quot;x&quot;</text>", "the title");
		for (i = 0; svg[i]; i++)
			if (!ASSERT_TRUE((unsigned char)svg[i] >= 0x20 || svg[i] == '\n' ||
					     svg[i] == '\t',
					 "no raw control character"))
				break;
		free(svg);
		svg = NULL;
		rc_fg__free(g);
		g = NULL;
	}
	if (test__start_subtest("utf8_labels")) {
		g = rc_fg__new();
		if (!ASSERT_OK_PTR(g, "rc_fg__new"))
			goto out;
		/* 150 two-byte characters: more than the 165 bytes that would fit */
		for (i = 0; i < 150; i++)
			memcpy(name + 2 * i, "\xc3\xa9", 2);
		name[300] = '\0';
		frames[0] = name;
		ASSERT_OK(rc_fg__add(g, frames, 1, 1), "2-byte characters");
		if (!(svg = fg_svg(g, NULL)))
			goto out;
		xml_ok(svg);
		ASSERT_STREQ(label_of(svg, name, lbl, sizeof(lbl)), name, "counted in characters");
		free(svg);
		svg = NULL;
		/* 200 of them do not fit: cut between characters */
		for (i = 0; i < 200; i++)
			memcpy(lbl + 2 * i, "\xc3\xa9", 2);
		lbl[400] = '\0';
		frames[0] = lbl;
		rc_fg__free(g);
		g = rc_fg__new();
		if (!ASSERT_OK_PTR(g, "rc_fg__new") ||
		    !ASSERT_OK(rc_fg__add(g, frames, 1, 1), "200 characters") ||
		    !(svg = fg_svg(g, NULL)))
			goto out;
		xml_ok(svg);
		/* the tooltip has all 200, the label 163 and ".." */
		label_of(svg, lbl, name, sizeof(name));
		ASSERT_EQ(strlen(name), 163 * 2 + 2, "cut between characters");
		ASSERT_TRUE(!strncmp(name, lbl, 163 * 2) && !strcmp(name + 163 * 2, ".."), "..");
		free(svg);
		svg = NULL;
		rc_fg__free(g);
		g = NULL;
	}
	if (test__start_subtest("empty")) {
		g = rc_fg__new();
		if (!ASSERT_OK_PTR(g, "rc_fg__new") || !(svg = fg_svg(g, &o)))
			goto out;
		xml_ok(svg);
		ASSERT_HAS(svg, ">no samples</text>", "says so");
		ASSERT_HAS(svg, "<svg version=\"1.1\"", "an SVG");
		ASSERT_HAS(svg, "&lt;T&amp;T&gt;", "with its title");
		ASSERT_TRUE(!strstr(svg, "<g "), "no frame");
	}
out:
	free(svg);
	rc_fg__free(g);
}

/* ---- flamegraph_browser: in Debian's chromium, headless ---------------- */

/* Run before the viewer's script: an error it throws is kept on the root element. */
static const char browser_pre[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "window.addEventListener(\"error\", function (e) {\n"
    "\tdocument.documentElement.setAttribute(\"data-error\", String(e.message));\n"
    "});\n"
    "]]></script>\n";

/* Run after it: a hover and a click on burn_a, as a user's, then a mark that it ran. */
static const char browser_post[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "(function () {\n"
    "\tvar frames = document.getElementById(\"frames\"), g = null, i;\n"
    "\n"
    "\tfor (i = 0; i < frames.children.length; i++)\n"
    "\t\tif (frames.children[i].querySelector(\"title\").textContent.indexOf(\"burn_a \") === 0)\n"
    "\t\t\tg = frames.children[i];\n"
    "\tg.dispatchEvent(new MouseEvent(\"mouseover\", { bubbles: true }));\n"
    "\tg.dispatchEvent(new MouseEvent(\"click\", { bubbles: true }));\n"
    "\tdocument.documentElement.setAttribute(\"data-check\", \"done\");\n"
    "})();\n"
    "]]></script>\n";

/* @svg with browser_pre before its script and browser_post after, into @path. */
static bool save_instrumented(const char *svg, const char *path)
{
	const char *script = strstr(svg, "<script"), *end = svg ? strstr(svg, "</svg>") : NULL;
	FILE *f;
	bool ok;

	if (!script || !end || end < script)
		return false;
	f = fopen(path, "we");
	if (!f)
		return false;
	ok = fwrite(svg, 1, script - svg, f) == (size_t)(script - svg) &&
	     fputs(browser_pre, f) >= 0 &&
	     fwrite(script, 1, end - script, f) == (size_t)(end - script) &&
	     fputs(browser_post, f) >= 0 && fputs(end, f) >= 0;
	return !fclose(f) && ok;
}

/*
 * Chromium headless on file://@svg, told what to do by @what ("--screenshot=..."
 * or "--dump-dom"), with a profile and a home of its own in @profile. Nothing it
 * would fetch on its own (updates, sync, metrics, names) can leave the
 * machine: background networking off, every host name unresolvable.
 */
static int chromium(struct run *r, const char *exe, const char *profile, const char *what,
		    const char *svg)
{
	char user_dir[600], url[600], home[600], config[600], cache[600];

	snprintf(user_dir, sizeof(user_dir), "--user-data-dir=%s", profile);
	snprintf(url, sizeof(url), "file://%s", svg);
	/* and nothing written to our home either */
	snprintf(home, sizeof(home), "HOME=%s", profile);
	snprintf(config, sizeof(config), "XDG_CONFIG_HOME=%s/config", profile);
	snprintf(cache, sizeof(cache), "XDG_CACHE_HOME=%s/cache", profile);
	return run_sync(r,
			(char *[]){ "/usr/bin/env",
				    home,
				    config,
				    cache,
				    (char *)exe,
				    "--headless",
				    "--disable-gpu",
				    "--no-sandbox",
				    user_dir,
				    "--no-first-run",
				    "--disable-background-networking",
				    "--disable-component-update",
				    "--disable-sync",
				    "--disable-extensions",
				    "--disable-default-apps",
				    "--disable-breakpad",
				    "--host-resolver-rules=MAP * ~NOTFOUND",
				    "--hide-scrollbars",
				    "--window-size=1200,800",
				    (char *)what,
				    url,
				    NULL },
			90000);
}

/* The value of @attr in the first tag after @from (NULL: none), into @out. */
static bool attr_after(const char *from, const char *attr, char *out, size_t sz)
{
	char key[64];
	const char *p, *q;

	if (!from)
		return false;
	snprintf(key, sizeof(key), " %s=\"", attr);
	p = strstr(from, key);
	if (!p)
		return false;
	p += strlen(key);
	q = strchr(p, '"');
	if (!q || (size_t)(q - p) >= sz)
		return false;
	memcpy(out, p, q - p);
	out[q - p] = '\0';
	return true;
}

static void browser_check(const char *exe)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	const char *cap = tmpfile_path("prof.rcap"), *svg_path = tmpfile_path("flame.svg");
	const char *inst_path = tmpfile_path("flame-check.svg"), *shot = tmpfile_path("shot.png");
	char checker[4096], svg_abs[4096], inst_abs[4096], what[4200], val[64];
	unsigned long w = 0, h = 0, nonwhite = 0, vivid = 0, colours = 0;
	struct run r = {};
	const char *p;

	snprintf(checker, sizeof(checker), "%s/tests/png_check.py", src ? src : "..");
	/* a real capture: rc_prof burning 5:3:2 in burn_a, burn_b, burn_c */
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", "199",
					    "-g", "-o", (char *)cap, "--", (char *)bin("rc_prof"),
					    "burn", "1000", (char *)tmpfile_path("truth"), NULL },
				120000),
		       0, "record"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "report", "--format",
					    "flamegraph", (char *)cap, NULL },
				60000),
		       0, "report --format flamegraph") ||
	    !ASSERT_TRUE(xml_ok(r.out), "parses as XML") ||
	    !ASSERT_TRUE(save_text(svg_path, r.out), "save the SVG") ||
	    !ASSERT_TRUE(save_instrumented(r.out, inst_path), "save an instrumented copy"))
		goto out;
	/* self-contained: the only URLs are XML namespaces, nothing to fetch */
	for (p = r.out; (p = strstr(p, "://")); p += 3)
		if (!ASSERT_TRUE(p - r.out >= 4 && !strncmp(p - 4, "http://www.w3.org/", 18),
				 "no URL but a namespace"))
			break;
	ASSERT_TRUE(!strstr(r.out, "href"), "no link, no external script");
	run_free(&r);
	if (!realpath(svg_path, svg_abs) || !realpath(inst_path, inst_abs)) {
		test__fail(__FILE__, __LINE__, "realpath", "%s", strerror(errno));
		goto out;
	}

	/* drawn: a screenshot with the frames' colours over much of it */
	snprintf(what, sizeof(what), "--screenshot=%s", shot);
	if (!ASSERT_EQ(chromium(&r, exe, tmpfile_path("profile1"), what, svg_abs), 0,
		       "chromium --screenshot"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ "/usr/bin/python3", checker, (char *)shot, NULL }, 60000),
		0, "png_check.py") ||
	    !ASSERT_EQ(sscanf(r.out, "%lu %lu %lu %lu %lu", &w, &h, &nonwhite, &vivid, &colours), 5,
		       "its figures"))
		goto out;
	printf("    screenshot %lux%lu: %lu pixels not white, %lu in the frames' colours, "
	       "%lu colours\n",
	       w, h, nonwhite, vivid, colours);
	ASSERT_TRUE(w == 1200 && h == 800, "the window's size");
	/* the graph is ~300 px of the 800 px high window, its frames a third of that */
	ASSERT_TRUE(nonwhite * 100 >= w * h * 15, "15% of it or more drawn");
	ASSERT_TRUE(vivid * 100 >= w * h * 5, "5% of it or more in the frames' colours");
	ASSERT_TRUE(colours >= 10, "frames of many colours");
	run_free(&r);

	/* its script: loads without an error, a hover tells, a click zooms */
	if (!ASSERT_EQ(chromium(&r, exe, tmpfile_path("profile2"), "--dump-dom", inst_abs), 0,
		       "chromium --dump-dom"))
		goto out;
	ASSERT_HAS(r.out, "data-check=\"done\"", "the check ran");
	p = strstr(r.out, "data-error=\"");
	if (p)
		printf("    the page's error: %.200s\n", p);
	ASSERT_TRUE(!p, "no script error");
	ASSERT_HAS(r.out, ">Function: burn_a (", "hovering burn_a tells its name");
	ASSERT_TRUE(attr_after(strstr(r.out, "<title>burn_a ("), "width", val, sizeof(val)) &&
			!strcmp(val, "1180.00"),
		    "clicking burn_a zooms it to the full width");
	ASSERT_TRUE(attr_after(strstr(r.out, "id=\"unzoom\""), "class", val, sizeof(val)) &&
			!strstr(val, "hide"),
		    "and shows Reset Zoom");
out:
	run_free(&r);
	tmpdir_cleanup();
}

void test_flamegraph_browser(void)
{
	char exe[512] = "";
	FILE *p;

	if (!getenv("RINGCAP_VMTEST")) {
		p = popen("command -v chromium 2>/dev/null", "r");
		if (p) {
			if (!fgets(exe, sizeof(exe), p))
				exe[0] = '\0';
			pclose(p);
		}
		exe[strcspn(exe, "\n")] = '\0';
	}
	if (!exe[0] || access("/usr/bin/python3", X_OK)) {
		test__skip("no chromium (Debian's package) or python3 here, as in the kernel "
			   "matrix's guests: this test runs on the host");
		return;
	}
	if (need_root())
		browser_check(exe);
}
