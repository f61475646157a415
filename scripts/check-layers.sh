#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Refuse an #include that goes against the layers (README, Layout). Run by
# make check, first; takes well under a second.
#
# The layers, lowest first; a file includes headers of its own layer or of
# layers below it, never above:
#
#   0  lib/util/                          logging, buffers, maps
#   1  lib/format/                        the capture file, and the records'
#                                         layouts (format/records.h)
#   2  lib/decode/ lib/tracefs/ lib/symbol/
#   3  lib/capture/ lib/output/           (output: the event formats and the
#                                         flame graph, writing to a FILE *)
#   4  cmd/                               the command
#
# On one level, layers do not include each other, but for:
#   decode -> symbol    profiles name and fold frames
# capture and output never include each other.
#
# Inside capture/, the engine (lib/capture/*) and the perf ring helpers
# (capture/perf/) include no backend's header (capture/bpf/, capture/ftrace/),
# and the backends include none of each other's: the engine reaches a backend
# through rc_backend_ops.
#
# bpf/ is shared with user space only through format/records.h, the records'
# layouts, which bpf/events.h includes: bpf/*.h and *.bpf.c include nothing
# else of lib/. Of bpf/'s own headers, lib/ includes only events.h (the knobs
# and counters, the kernel ABI), and only in capture/; the generated
# skeletons (*.skel.h) only in capture/bpf/.
#
# lib/ringcap.h is the public surface: it includes the public header of each
# layer, and nothing of lib/ includes it. cmd/ includes ringcap.h, the
# headers it lists, and cmd/'s own, nothing else of lib/.
#
# Not held to it: tests/ (unit tests reach into a layer by design) and the
# fuzzers; what keeps the fuzzers honest is their link line (Makefile,
# FUZZ_SRCS: format/, decode/, util/ and output/ only, no libbpf and no
# cmd/), which fails on a call that goes up.
#
# Usage: scripts/check-layers.sh [SRCDIR]   (default: the tree it is in)

cd "${1:-$(dirname "$0")/..}" || exit 2

# Exceptions still in the tree, one a line, "including-file included-path",
# each under a comment naming the step of issue 33 that removes it. None
# today: keep it so, add nothing without a step that takes it out again.
ALLOW='
'

# the public headers: what lib/ringcap.h includes
PUBLIC=$(sed -n 's/^#include "\([^"]*\)"/lib\/\1/p' lib/ringcap.h)

layer() {
	case $1 in
	lib/ringcap.h) echo public ;;
	lib/util/*) echo util ;;
	lib/format/*) echo format ;;
	lib/decode/*) echo decode ;;
	lib/tracefs/*) echo tracefs ;;
	lib/symbol/*) echo symbol ;;
	lib/capture/bpf/*) echo capture-bpf ;;
	lib/capture/ftrace/*) echo capture-ftrace ;;
	lib/capture/perf/*) echo capture-perf ;;
	lib/capture/*) echo capture ;;
	lib/output/*) echo output ;;
	cmd/*) echo cmd ;;
	bpf/*) echo bpf ;;
	*.skel.h) echo skel ;;
	vmlinux.h) echo vmlinux ;;
	version.h) echo version ;;
	*) echo other ;;
	esac
}

rank() {
	case $1 in
	util) echo 0 ;;
	format) echo 1 ;;
	decode | tracefs | symbol) echo 2 ;;
	capture*) echo 3 ;;
	output) echo 3 ;;
	cmd) echo 4 ;;
	*) echo 9 ;;
	esac
}

# why $1 (a file) may not include $2 (a path), or nothing when it may
refuse() {
	src=$1 dst=$2
	sl=$(layer "$src") dl=$(layer "$dst")
	case $dl in
	public)
		[ "$sl" = cmd ] || echo "only cmd/ includes ringcap.h (the public surface); include the layer's own header"
		return ;;
	skel)
		[ "$sl" = capture-bpf ] || echo "BPF skeletons are the BPF backend's (lib/capture/bpf/)"
		return ;;
	vmlinux)
		[ "$sl" = bpf ] || echo "vmlinux.h is for BPF programs"
		return ;;
	version)
		[ "$sl" = cmd ] || echo "version.h (generated: the build's version, for --version) is cmd/'s"
		return ;;
	bpf)
		case $sl in
		bpf) ;;
		capture*) [ "$dst" = bpf/events.h ] ||
			echo "of bpf/'s headers user space includes only events.h" ;;
		*) echo "bpf/ is shared through format/records.h; $dst is the BPF programs' (kernel ABI: capture/ only)" ;;
		esac
		return ;;
	other)
		echo "not a header of lib/, bpf/ or cmd/"
		return ;;
	esac
	case $sl in
	bpf)
		[ "$dst" = lib/format/records.h ] ||
			echo "bpf/ includes nothing of lib/ but format/records.h"
		return ;;
	cmd)
		[ "$dl" = cmd ] && return
		for p in $PUBLIC; do
			[ "$p" = "$dst" ] && return
		done
		echo "cmd/ includes only public headers (those lib/ringcap.h includes)"
		return ;;
	esac
	[ "$sl" = "$dl" ] && return
	case $sl/$dl in
	decode/symbol) return ;;
	capture/capture-bpf | capture/capture-ftrace | capture-perf/capture-bpf | \
	capture-perf/capture-ftrace)
		echo "the capture engine reaches a backend only through rc_backend_ops"
		return ;;
	capture-bpf/capture-ftrace | capture-ftrace/capture-bpf)
		echo "one backend does not include another's headers"
		return ;;
	capture*/capture*) return ;;
	esac
	sr=$(rank "$sl") dr=$(rank "$dl")
	if [ "$dr" -gt "$sr" ]; then
		echo "$sl (level $sr) includes $dl (level $dr): a lower layer never includes a higher one"
	elif [ "$dr" -eq "$sr" ]; then
		echo "$sl and $dl are on one level and do not include each other"
	fi
}

# the file an #include "$2" in $1 names: beside $1, else under lib/ or bpf/
resolve() {
	d=$(dirname "$1")
	for c in "$d/$2" "lib/$2" "bpf/$2"; do
		if [ -f "$c" ]; then
			echo "$c" | sed 's|^\./||; s|/\./|/|g'
			return
		fi
	done
	echo "$2"
}

bad=0
for f in $(find lib cmd bpf -name '*.[ch]' | sort); do
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		dst=$(resolve "$f" "$inc")
		why=$(refuse "$f" "$dst")
		[ -n "$why" ] || continue
		if printf '%s\n' "$ALLOW" | grep -qxF "$f $dst"; then
			continue
		fi
		echo "$f: #include \"$inc\": $why" >&2
		bad=$((bad + 1))
	done
done
# an allowance the tree no longer needs is dropped, not kept
for a in $(printf '%s\n' "$ALLOW" | sed '/^$/d; s/ /:/'); do
	src=${a%%:*} dst=${a#*:}
	found=0
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src" 2>/dev/null); do
		[ "$(resolve "$src" "$inc")" = "$dst" ] && found=1
	done
	if [ $found = 0 ]; then
		echo "check-layers.sh: the exception '$src $dst' is gone from the tree: drop it from ALLOW" >&2
		bad=$((bad + 1))
	fi
done
if [ $bad -gt 0 ]; then
	echo "check-layers: $bad include(s) against the layers (scripts/check-layers.sh, README Layout)" >&2
	exit 1
fi
echo "check-layers: $(find lib cmd bpf -name '*.[ch]' | wc -l) files, includes follow the layers"
