/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A flame graph writer: stacks merged into a tree, written as one
 * self-contained interactive SVG document (tooltips, click to zoom, search),
 * as Brendan Gregg's flamegraph.pl draws them, with no external script.
 *
 * The writer knows nothing of captures: the caller folds its samples into
 * stacks of frame names and adds them with a weight.
 */
#ifndef RINGCAP_OUTPUT_FLAMEGRAPH_H
#define RINGCAP_OUTPUT_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rc_fg;

/**
 * rc_fg__new() - an empty flame graph
 *
 * Return: the graph, to free with rc_fg__free(); NULL with errno set
 * (ENOMEM) on failure.
 */
struct rc_fg *rc_fg__new(void);

/**
 * rc_fg__add() - add one stack to a flame graph
 * @g: the graph
 * @frames: the stack's frame names, outermost first: @frames[0] is the
 *          root-most frame (the comm, or "main"), the last one is the leaf;
 *          each a NUL-terminated string, copied (interned) into @g
 * @nframes: the number of names in @frames; 0 adds @w to the "all" frame only
 * @w: the stack's weight: samples, or microseconds off-CPU; 0 adds nothing
 *
 * A stack merges with the stacks added before it that share its first
 * frames: the tree holds one node per distinct path from the root, and its
 * memory grows with those, not with the number of stacks added. Names are
 * bytes: they need not be valid UTF-8 (rc_fg__write() replaces what is not).
 *
 * Return: 0; -EINVAL for a NULL @g, @frames or frame name; -EOVERFLOW when
 * the graph's total weight would pass UINT64_MAX; -ENOMEM. On error no
 * weight is added (the nodes made before an -ENOMEM may stay, with no
 * weight: they are not drawn).
 */
int rc_fg__add(struct rc_fg *g, const char *const *frames, size_t nframes, uint64_t w);

/**
 * struct rc_fg_opts - how rc_fg__write() draws a flame graph
 * @title: the title at the top, such as "CPU flame graph"; NULL for
 *         "Flame Graph"
 * @unit: the unit of the weights, as tooltips show it ("N samples (P%)"):
 *        "samples", or "us" off-CPU; NULL for "samples"
 * @off_cpu: colour frames in blues (an off-CPU profile), else in warm
 *           colours (red, orange, yellow)
 * @kernel_marks: frames whose name ends in "_[k]" are kernel frames and are
 *                coloured apart from the others (orange on-CPU, against
 *                reds; aqua off-CPU, against blues), as flamegraph.pl's
 *                --colors=java does; the mark stays in the name shown
 */
struct rc_fg_opts {
	const char *title;
	const char *unit;
	bool off_cpu;
	bool kernel_marks;
};

/**
 * rc_fg__write() - write a flame graph as an SVG document
 * @g: the graph; its children are sorted here (which is why it is not const)
 * @o: how to draw it; NULL for the defaults
 * @out: where to write the whole document
 *
 * The root "all" frame is at the bottom and callees stack upwards. Siblings
 * are sorted by name (byte order, as flamegraph.pl sorts its input), so the
 * x axis is not time, and the same stacks give the same document whatever
 * order they were added in. A frame's width is its share of the total
 * weight; frames narrower than 0.1 px at full width are not drawn, nor their
 * callees, and their weight stays in their caller's frame (an XML comment
 * says how many were left out). Colours come from a hash of the name, so two
 * graphs of the same code look alike. Names are XML-escaped; control
 * characters are written as '?' and bytes that are not UTF-8 as U+FFFD.
 * A graph with no weight is a valid document saying "no samples".
 *
 * The document embeds its JavaScript and loads nothing: a hovered frame's
 * details show at the bottom, a click zooms to a frame (callers dimmed,
 * "Reset Zoom" to come back), "Search" (or Ctrl-F) highlights the frames
 * matching a regular expression and shows the share they cover.
 *
 * The tree is walked without recursion: stack depth is not bounded here.
 *
 * Return: 0; -EINVAL for a NULL @g or @out; -ENOMEM (nothing written);
 * -errno from fflush(@out), or -EIO when ferror(@out) is set after writing.
 */
int rc_fg__write(struct rc_fg *g, const struct rc_fg_opts *o, FILE *out);

/**
 * rc_fg__free() - free a flame graph and the names it holds
 * @g: the graph, or NULL
 */
void rc_fg__free(struct rc_fg *g);

#endif /* RINGCAP_OUTPUT_FLAMEGRAPH_H */
