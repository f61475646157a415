// SPDX-License-Identifier: GPL-2.0-only
/*
 * A flame graph as one self-contained SVG document, drawn as Brendan Gregg's
 * flamegraph.pl draws it (the same geometry, palettes and controls), with
 * JavaScript of our own embedded for tooltips, zoom and search.
 *
 * The stacks merge into a tree of nodes in one array, linked to their first
 * child and next sibling; the one map (util/idmap.h) finds the child of a
 * parent by name, and interns the names by their hash. Memory grows with the
 * distinct nodes and names. Writing sorts each node's children by name, then
 * walks the tree without recursion, keeping one x offset per depth.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "output/flamegraph.h"
#include "util/idmap.h"
#include "util/util.h"
#include "util/mem.h"

/* The geometry of flamegraph.pl's defaults, in px. */
enum {
	FG_WIDTH = 1200,
	FG_PAD = 10,			 /* left and right margins */
	FG_SPAN = FG_WIDTH - 2 * FG_PAD, /* the width of "all" */
	FG_FRAME_H = 16,		 /* a row: a 15 px rect and a 1 px gap */
	FG_FONT = 12,
	FG_TOP = FG_FONT * 3,	      /* room for the title and controls */
	FG_BOTTOM = FG_FONT * 2 + 10, /* room for the status line */
};
#define FG_CHAR_W (FG_FONT * 0.59) /* an average Verdana character, as flamegraph.pl guesses */
#define FG_MIN_PX 0.1		   /* narrower frames are not drawn */

struct fg_node {
	uint64_t w;	 /* this frame's weight: its own and its callees' */
	uint32_t name;	 /* index in names[] */
	uint32_t parent; /* node 0 is "all" */
	uint32_t kid;	 /* the first callee; 0 for none (node 0 is nobody's kid) */
	uint32_t next;	 /* the next sibling; 0 for none */
};

struct rc_fg {
	struct fg_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct rc_idmap node_ids; /* (parent, name) -> node index (fg_node_key()) */
	char **names;
	size_t nr_names, cap_names;
	struct rc_idmap name_ids; /* a name's hash -> its index (and other names' of that hash) */
	size_t max_depth; /* the most frames of a stack added */
};

/* FNV-1a: names hash the same on every run and host, so their colours do too. */
static uint64_t fg_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* A node's key in node_ids: its parent and name, + 1 so that it is never 0 (an empty slot). */
static uint64_t fg_node_key(uint32_t parent, uint32_t name)
{
	return ((uint64_t)parent << 32 | name) + 1;
}

/* The index of name @s in @g, added if it is new. */
static int fg_intern(struct rc_fg *g, const char *s, uint32_t *idx)
{
	uint64_t h = fg_hash_str(s) | 1, *v; /* never 0, an empty slot */
	size_t pos = RC_IDMAP_START;
	char *copy;
	int err;

	while ((v = rc_idmap__next(&g->name_ids, h, &pos))) {
		if (!strcmp(g->names[*v], s)) {
			*idx = *v;
			return 0;
		}
	}
	if (g->nr_names >= UINT32_MAX - 1)
		return -ENOMEM;
	err = rc_ensure_arr(&g->names, &g->cap_names, g->nr_names + 1, 64);
	if (err)
		return err;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	err = rc_idmap__put(&g->name_ids, h, g->nr_names);
	if (err) {
		free(copy);
		return err;
	}
	*idx = g->nr_names;
	g->names[g->nr_names++] = copy;
	return 0;
}

/* The child of @parent named @name, added (with no weight) if it is new. */
static int fg_child(struct rc_fg *g, uint32_t parent, uint32_t name, uint32_t *out)
{
	uint64_t *v;
	bool added;
	uint32_t n;
	int err;

	if (g->nr_nodes >= UINT32_MAX)
		return -ENOMEM;
	err = rc_ensure_arr(&g->nodes, &g->cap_nodes, g->nr_nodes + 1, 64);
	if (err)
		return err;
	v = rc_idmap__get_key(&g->node_ids, fg_node_key(parent, name), &added);
	if (!v)
		return -ENOMEM;
	if (!added) {
		*out = *v;
		return 0;
	}
	n = g->nr_nodes++;
	*v = n;
	g->nodes[n] =
	    (struct fg_node){ .name = name, .parent = parent, .next = g->nodes[parent].kid };
	g->nodes[parent].kid = n;
	*out = n;
	return 0;
}

struct rc_fg *rc_fg__new(void)
{
	struct rc_fg *g = calloc(1, sizeof(*g));
	uint32_t all;
	int err;

	if (!g)
		return rc_err_ptr(-ENOMEM);
	err = rc_ensure_arr(&g->nodes, &g->cap_nodes, 1, 64);
	err = err ?: fg_intern(g, "all", &all);
	if (err) {
		rc_fg__free(g);
		return rc_err_ptr(err);
	}
	g->nodes[0] = (struct fg_node){ .name = all };
	g->nr_nodes = 1;
	return g;
}

void rc_fg__free(struct rc_fg *g)
{
	size_t i;

	if (!g)
		return;
	for (i = 0; i < g->nr_names; i++)
		free(g->names[i]);
	free(g->names);
	rc_idmap__free(&g->name_ids);
	rc_idmap__free(&g->node_ids);
	free(g->nodes);
	free(g);
}

int rc_fg__add(struct rc_fg *g, const char *const *frames, size_t nframes, uint64_t w)
{
	uint32_t n = 0, name;
	size_t i;
	int err;

	if (!g || (!frames && nframes))
		return -EINVAL;
	for (i = 0; i < nframes; i++)
		if (!frames[i])
			return -EINVAL;
	if (!w)
		return 0;
	if (g->nodes[0].w > UINT64_MAX - w)
		return -EOVERFLOW;
	/* before the nodes: rc_fg__write() sizes its walk on it, and nodes stay on error */
	if (nframes > g->max_depth)
		g->max_depth = nframes;
	for (i = 0; i < nframes; i++) {
		err = fg_intern(g, frames[i], &name);
		err = err ?: fg_child(g, n, name, &n);
		if (err)
			return err;
	}
	/* from the leaf up: no ancestor's weight can overflow if the root's does not */
	for (;;) {
		g->nodes[n].w += w;
		if (!n)
			break;
		n = g->nodes[n].parent;
	}
	return 0;
}

struct fg_kid {
	const char *name;
	uint32_t n;
};

static int fg_kid_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fg_kid *)a)->name, ((const struct fg_kid *)b)->name);
}

/* Relink every node's children in name order (names of siblings are distinct). */
static int fg_sort(struct rc_fg *g)
{
	struct fg_kid *kids = NULL;
	size_t cap = 0, nr, i, p;
	uint32_t k;
	int err = 0;

	for (p = 0; p < g->nr_nodes; p++) {
		nr = 0;
		for (k = g->nodes[p].kid; k; k = g->nodes[k].next) {
			err = rc_ensure_arr(&kids, &cap, nr + 1, 64);
			if (err)
				goto out;
			kids[nr++] = (struct fg_kid){ g->names[g->nodes[k].name], k };
		}
		if (nr < 2)
			continue;
		qsort(kids, nr, sizeof(*kids), fg_kid_cmp);
		g->nodes[p].kid = kids[0].n;
		for (i = 0; i + 1 < nr; i++)
			g->nodes[kids[i].n].next = kids[i + 1].n;
		g->nodes[kids[nr - 1].n].next = 0;
	}
out:
	free(kids);
	return err;
}

/*
 * The next character of @s: its length in bytes (1 for a byte that does not
 * start a valid UTF-8 sequence) and *@cp, U+FFFD when not valid.
 */
static size_t fg_utf8(const unsigned char *s, uint32_t *cp)
{
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		goto bad;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		goto bad;
	*cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) /* the NUL ends it here too */
			goto bad;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	return len;
bad:
	*cp = 0xfffd;
	return 1;
}

static size_t fg_nchars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	uint32_t cp;

	while (*p) {
		p += fg_utf8(p, &cp);
		n++;
	}
	return n;
}

/* Write at most @max characters of @s as XML character data or attribute text. */
static void fg_put_esc(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;
	uint32_t cp;

	for (; *p && max; p += len, max--) {
		len = fg_utf8(p, &cp);
		switch (cp) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		case 0xfffd: /* and what was not UTF-8 */
		case 0xfffe: /* not XML characters */
		case 0xffff:
			fputs("\xef\xbf\xbd", out);
			break;
		default:
			/* C0 and C1 controls: most are not XML characters, none is printable */
			if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
				putc('?', out);
			else
				fwrite(p, 1, len, out);
		}
	}
}

/* @v >= 0 with two decimals, whatever LC_NUMERIC says. */
static void fg_put_fix2(FILE *out, double v)
{
	uint64_t c = v > 0 ? (uint64_t)(v * 100 + 0.5) : 0;

	fprintf(out, "%" PRIu64 ".%02u", c / 100, (unsigned int)(c % 100));
}

/* @v with thousands separated, as flamegraph.pl writes counts: "12,345". */
static void fg_put_count(FILE *out, uint64_t v)
{
	char buf[32];
	size_t i = sizeof(buf) - 1;
	unsigned int digits = 0;

	buf[i] = '\0';
	do {
		if (digits && digits % 3 == 0)
			buf[--i] = ',';
		buf[--i] = '0' + v % 10;
		v /= 10;
		digits++;
	} while (v);
	fputs(buf + i, out);
}

/* Bases and spans of r, g, b, as flamegraph.pl's palettes of the same names. */
struct fg_palette {
	uint8_t base[3], span[3];
};

static const struct fg_palette fg_hot = { { 205, 0, 0 }, { 50, 230, 55 } };
static const struct fg_palette fg_red = { { 200, 50, 50 }, { 55, 80, 80 } };
static const struct fg_palette fg_orange = { { 190, 90, 0 }, { 65, 65, 0 } };
static const struct fg_palette fg_blue = { { 80, 80, 190 }, { 60, 60, 55 } };
static const struct fg_palette fg_aqua = { { 50, 165, 165 }, { 60, 55, 55 } };

static bool fg_is_kernel(const char *name)
{
	size_t len = strlen(name);

	return len >= 4 && !memcmp(name + len - 4, "_[k]", 4);
}

static void fg_put_fill(FILE *out, const struct rc_fg_opts *o, const char *name)
{
	const struct fg_palette *pal = o->off_cpu ? &fg_blue : &fg_hot;
	uint64_t h = fg_hash_str(name);
	unsigned int c[3];
	int i;

	if (o->kernel_marks && fg_is_kernel(name))
		pal = o->off_cpu ? &fg_aqua : &fg_orange;
	else if (o->kernel_marks && !o->off_cpu)
		pal = &fg_red;
	for (i = 0; i < 3; i++)
		c[i] = pal->base[i] + ((pal->span[i] * ((h >> (16 * i)) & 0xffff)) >> 16);
	fprintf(out, "rgb(%u,%u,%u)", c[0], c[1], c[2]);
}

struct fg_draw {
	FILE *out;
	const struct rc_fg_opts *o;
	const char *unit;
	uint64_t total;
	double px;	/* px per unit of weight */
	uint64_t *xs;	/* per depth: the weight left of the frame at that depth */
	size_t depth;	/* the deepest frame drawn */
	size_t height;	/* of the image */
	size_t dropped; /* frames too narrow to draw (their callees not counted) */
};

static bool fg_wide(const struct fg_draw *d, uint64_t w)
{
	return w && w * d->px >= FG_MIN_PX;
}

static void fg_put_frame(const struct rc_fg *g, const struct fg_draw *d, uint32_t n, size_t depth)
{
	const struct fg_node *nd = &g->nodes[n];
	const char *name = g->names[nd->name];
	double x = FG_PAD + d->xs[depth] * d->px, w = nd->w * d->px;
	size_t y = d->height - FG_BOTTOM - (depth + 1) * FG_FRAME_H, fit, len;
	FILE *out = d->out;

	fprintf(out, "<g data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%zu\"><title>",
		d->xs[depth], nd->w, depth);
	fg_put_esc(out, name, SIZE_MAX);
	fputs(" (", out);
	fg_put_count(out, nd->w);
	putc(' ', out);
	fg_put_esc(out, d->unit, SIZE_MAX);
	fputs(", ", out);
	fg_put_fix2(out, nd->w * 100.0 / d->total);
	fputs("%)</title><rect x=\"", out);
	fg_put_fix2(out, x);
	fputs("\" width=\"", out);
	fg_put_fix2(out, w);
	fprintf(out, "\" y=\"%zu\" height=\"%d\" rx=\"2\" ry=\"2\" fill=\"", y, FG_FRAME_H - 1);
	fg_put_fill(out, d->o, name);
	fputs("\"/><text x=\"", out);
	fg_put_fix2(out, x + 3);
	fprintf(out, "\" y=\"%zu.5\">", y + 10);
	/* the label: what fits of the name, with 3 px either side; none under 3 characters */
	if (w - 6 >= 3 * FG_CHAR_W) {
		fit = (w - 6) / FG_CHAR_W;
		len = fg_nchars(name);
		fg_put_esc(out, name, len <= fit ? len : fit - 2);
		if (len > fit)
			fputs("..", out);
	}
	fputs("</text></g>\n", out);
}

/*
 * Visit the frames wide enough to draw, callers before callees and siblings
 * in order, without recursion: count them (@emit false) or write them.
 */
static void fg_walk(const struct rc_fg *g, struct fg_draw *d, bool emit)
{
	const struct fg_node *nd;
	size_t depth = 0;
	uint32_t n = 0;

	d->xs[0] = 0;
	for (;;) {
		nd = &g->nodes[n];
		if (fg_wide(d, nd->w)) {
			if (emit)
				fg_put_frame(g, d, n, depth);
			else if (depth > d->depth)
				d->depth = depth;
			/* a node has kids only below max_depth: xs[] has room */
			if (nd->kid) {
				d->xs[depth + 1] = d->xs[depth];
				depth++;
				n = nd->kid;
				continue;
			}
		} else if (nd->w && !emit) {
			d->dropped++;
		}
		while (n && !g->nodes[n].next) {
			n = g->nodes[n].parent;
			depth--;
		}
		if (!n)
			return;
		d->xs[depth] += g->nodes[n].w;
		n = g->nodes[n].next;
	}
}

/*
 * The viewer. Frames are the <g> children of #frames, "all" first; each
 * carries its weight (data-w), the weight left of it (data-x) and its depth
 * (data-d), so zoom and search work in weights and the matched share is
 * exact. The constants W, PAD and CHAR_W come before this, from the C.
 */
static const char fg_js[] =
    "var frames = document.getElementById(\"frames\");\n"
    "var details = document.getElementById(\"details\");\n"
    "var unzoomBtn = document.getElementById(\"unzoom\");\n"
    "var searchBtn = document.getElementById(\"search\");\n"
    "var matched = document.getElementById(\"matched\");\n"
    "var total = +frames.getAttribute(\"data-total\");\n"
    "var searching = false;\n"
    "\n"
    "function data(g, key) {\n"
    "\treturn +g.getAttribute(\"data-\" + key);\n"
    "}\n"
    "/* the name: the tooltip less its \" (N unit, P%)\" */\n"
    "function nameOf(g) {\n"
    "\treturn g.querySelector(\"title\").textContent.replace(/ \\([^()]*\\)$/, \"\");\n"
    "}\n"
    "/* the frame <g> that @el is in, or null */\n"
    "function frameOf(el) {\n"
    "\twhile (el && el.parentNode !== frames)\n"
    "\t\tel = el.parentNode;\n"
    "\treturn el;\n"
    "}\n"
    "/* draw @g so that the weights from x0 to x0 + w0 span the width */\n"
    "function place(g, x0, w0) {\n"
    "\tvar x = PAD + (data(g, \"x\") - x0) / w0 * W, w = data(g, \"w\") / w0 * W;\n"
    "\tvar rect = g.querySelector(\"rect\"), text = g.querySelector(\"text\");\n"
    "\tvar name = nameOf(g), fit = Math.floor((w - 6) / CHAR_W);\n"
    "\n"
    "\trect.setAttribute(\"x\", x.toFixed(2));\n"
    "\trect.setAttribute(\"width\", w.toFixed(2));\n"
    "\ttext.setAttribute(\"x\", (x + 3).toFixed(2));\n"
    "\ttext.textContent = fit < 3 ? \"\" : name.length <= fit ? name :\n"
    "\t\tname.slice(0, fit - 2) + \"..\";\n"
    "}\n"
    "/* @z fills the width, its callers dimmed below it, all else hidden */\n"
    "function zoom(z) {\n"
    "\tvar x0 = data(z, \"x\"), w0 = data(z, \"w\"), d0 = data(z, \"d\");\n"
    "\tvar i, g, x, w, d;\n"
    "\n"
    "\tfor (i = 0; i < frames.children.length; i++) {\n"
    "\t\tg = frames.children[i];\n"
    "\t\tx = data(g, \"x\");\n"
    "\t\tw = data(g, \"w\");\n"
    "\t\td = data(g, \"d\");\n"
    "\t\tg.classList.remove(\"hide\", \"dim\");\n"
    "\t\tif (d < d0 && x <= x0 && x + w >= x0 + w0) {\n"
    "\t\t\tg.classList.add(\"dim\");\n"
    "\t\t\tplace(g, x, w);\n"
    "\t\t} else if (d >= d0 && x >= x0 && x + w <= x0 + w0) {\n"
    "\t\t\tplace(g, x0, w0);\n"
    "\t\t} else {\n"
    "\t\t\tg.classList.add(\"hide\");\n"
    "\t\t}\n"
    "\t}\n"
    "\tunzoomBtn.classList.toggle(\"hide\", d0 === 0);\n"
    "}\n"
    "/* highlight the frames whose name matches @re (none when null) */\n"
    "function search(re) {\n"
    "\tvar spans = [], sum = 0, end = 0, i, g, rect;\n"
    "\n"
    "\tfor (i = 0; i < frames.children.length; i++) {\n"
    "\t\tg = frames.children[i];\n"
    "\t\trect = g.querySelector(\"rect\");\n"
    "\t\tif (!rect.hasAttribute(\"data-fill\"))\n"
    "\t\t\trect.setAttribute(\"data-fill\", rect.getAttribute(\"fill\"));\n"
    "\t\tif (re && re.test(nameOf(g))) {\n"
    "\t\t\trect.setAttribute(\"fill\", \"rgb(230,0,230)\");\n"
    "\t\t\tspans.push([data(g, \"x\"), data(g, \"x\") + data(g, \"w\")]);\n"
    "\t\t} else {\n"
    "\t\t\trect.setAttribute(\"fill\", rect.getAttribute(\"data-fill\"));\n"
    "\t\t}\n"
    "\t}\n"
    "\t/* the share matched: a match inside another is counted once */\n"
    "\tspans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "\tfor (i = 0; i < spans.length; i++) {\n"
    "\t\tif (spans[i][1] > end) {\n"
    "\t\t\tsum += spans[i][1] - Math.max(spans[i][0], end);\n"
    "\t\t\tend = spans[i][1];\n"
    "\t\t}\n"
    "\t}\n"
    "\tsearching = !!re;\n"
    "\tsearchBtn.textContent = re ? \"Reset Search\" : \"Search\";\n"
    "\tmatched.textContent = re ? \"Matched: \" + (100 * sum / total).toFixed(2) + \"%\" : \"\";\n"
    "}\n"
    "function ask() {\n"
    "\tvar s = prompt(\"Search for (a regular expression):\", \"\");\n"
    "\n"
    "\tif (!s)\n"
    "\t\treturn;\n"
    "\ttry {\n"
    "\t\tsearch(new RegExp(s));\n"
    "\t} catch (e) {\n"
    "\t\tdetails.textContent = \"Bad regular expression: \" + e.message;\n"
    "\t}\n"
    "}\n"
    "\n"
    "frames.addEventListener(\"mouseover\", function (e) {\n"
    "\tvar g = frameOf(e.target);\n"
    "\n"
    "\tif (g)\n"
    "\t\tdetails.textContent = \"Function: \" + g.querySelector(\"title\").textContent;\n"
    "});\n"
    "frames.addEventListener(\"mouseout\", function () {\n"
    "\tdetails.textContent = \" \";\n"
    "});\n"
    "frames.addEventListener(\"click\", function (e) {\n"
    "\tvar g = frameOf(e.target);\n"
    "\n"
    "\tif (g)\n"
    "\t\tzoom(g);\n"
    "});\n"
    "unzoomBtn.addEventListener(\"click\", function () {\n"
    "\tzoom(frames.firstElementChild);\n"
    "});\n"
    "searchBtn.addEventListener(\"click\", function () {\n"
    "\tif (searching)\n"
    "\t\tsearch(null);\n"
    "\telse\n"
    "\t\task();\n"
    "});\n"
    "window.addEventListener(\"keydown\", function (e) {\n"
    "\tif (e.key === \"F3\" || ((e.ctrlKey || e.metaKey) && (e.key === \"f\" || e.key === \"F\"))) "
    "{\n"
    "\t\te.preventDefault();\n"
    "\t\task();\n"
    "\t} else if (e.key === \"Escape\" && searching) {\n"
    "\t\tsearch(null);\n"
    "\t}\n"
    "});\n";

static const char fg_css[] =
    "text { font-family: Verdana, sans-serif; font-size: 12px; fill: black; }\n"
    "#title { text-anchor: middle; font-size: 17px; }\n"
    "#search, #matched { text-anchor: end; }\n"
    "#search, #unzoom, #frames > g { cursor: pointer; }\n"
    "#frames > g:hover > rect { stroke: black; stroke-width: 0.5; }\n"
    "#frames text { pointer-events: none; }\n"
    ".hide { display: none; }\n"
    ".dim { opacity: 0.5; }\n";

static void fg_put_head(FILE *out, const struct rc_fg_opts *o, const char *title, size_t height)
{
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\""
		" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<!-- a flame graph written by ringcap, drawn as flamegraph.pl draws them: the"
		" x axis is not time, siblings are sorted by name -->\n"
		"<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
		"</linearGradient></defs>\n"
		"<style type=\"text/css\"><![CDATA[\n%s]]></style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%zu\" fill=\"url(#background)\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"%d\">",
		FG_WIDTH, height, FG_WIDTH, height, o->off_cpu ? "#f8f8f8" : "#eeeeee",
		o->off_cpu ? "#e8e8e8" : "#eeeeb0", fg_css, FG_WIDTH, height, FG_WIDTH / 2,
		FG_FONT * 2);
	fg_put_esc(out, title, SIZE_MAX);
	fputs("</text>\n", out);
}

static int fg_finish(FILE *out)
{
	if (fflush(out))
		return -errno;
	return ferror(out) ? -EIO : 0;
}

int rc_fg__write(struct rc_fg *g, const struct rc_fg_opts *o, FILE *out)
{
	static const struct rc_fg_opts defaults;
	const char *title, *unit;
	struct fg_draw d = {};
	int err;

	if (!g || !out)
		return -EINVAL;
	o = o ?: &defaults;
	title = o->title ?: "Flame Graph";
	unit = o->unit ?: "samples";
	if (!g->nodes[0].w) {
		fg_put_head(out, o, title, FG_TOP + 2 * FG_FRAME_H + FG_BOTTOM);
		fprintf(out,
			"<text x=\"%d\" y=\"%d\" style=\"text-anchor: middle\">no samples</text>\n"
			"</svg>\n",
			FG_WIDTH / 2, FG_TOP + FG_FRAME_H);
		return fg_finish(out);
	}
	err = fg_sort(g);
	if (err)
		return err;
	d.xs = calloc(g->max_depth + 1, sizeof(*d.xs));
	if (!d.xs)
		return -ENOMEM;
	d.out = out;
	d.o = o;
	d.unit = unit;
	d.total = g->nodes[0].w;
	d.px = (double)FG_SPAN / d.total;
	fg_walk(g, &d, false);
	d.height = FG_TOP + (d.depth + 1) * FG_FRAME_H + FG_BOTTOM;

	fg_put_head(out, o, title, d.height);
	fprintf(out,
		"<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"%d\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%zu\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%zu\"> </text>\n",
		FG_PAD, FG_FONT * 2, FG_WIDTH - FG_PAD, FG_FONT * 2, FG_PAD,
		d.height - FG_BOTTOM / 2, FG_WIDTH - FG_PAD, d.height - FG_BOTTOM / 2);
	if (d.dropped)
		fprintf(out,
			"<!-- not drawn: %zu frames narrower than 0.1 px, and their callees;"
			" their weight is in their callers' frames -->\n",
			d.dropped);
	fprintf(out, "<g id=\"frames\" data-total=\"%" PRIu64 "\">\n", d.total);
	fg_walk(g, &d, true);
	/* in a function: no global of its own, none to clash with window.frames */
	fputs("</g>\n<script type=\"text/ecmascript\"><![CDATA[\n(function () {\n\"use strict\";\n",
	      out);
	fprintf(out, "var W = %d, PAD = %d, CHAR_W = ", FG_SPAN, FG_PAD);
	fg_put_fix2(out, FG_CHAR_W);
	fprintf(out, ";\n%s})();\n]]></script>\n</svg>\n", fg_js);
	free(d.xs);
	return fg_finish(out);
}
