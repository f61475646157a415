/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Events in perf's PMU syntax, NAME/TERMS/MODS (intel_pt//u,
 * intel_pt/cyc,noretcomp/, arm_spe//, cs_etm//k), to a struct
 * perf_event_attr, from the PMU's description in sysfs as perf reads it
 * (tools/perf/util/pmu.c, parse-events.c):
 *
 * - ROOT/NAME/type: the attr's type, a decimal u32.
 * - ROOT/NAME/format/TERM: "config:0-7", "config1:0", "config:10,12-15",
 *   "config:0-3,32-35": the attr field a term sets and its bits. A value's
 *   bits are scattered low to high over the listed bits, as perf's
 *   pmu_format_value() does; a value wider than the bits is refused.
 * - NAME itself: when ROOT/NAME does not exist but ROOT/NAME_N does
 *   (arm_spe// for arm_spe_0), the lowest N is taken. perf opens one event
 *   on each such PMU; ringcap takes the one.
 *
 * TERMS, a comma list:
 * - TERM=VALUE, VALUE decimal or 0x hex, at most 64 bits and no wider than
 *   the term's bits;
 * - TERM alone, which is TERM=1, for a one-bit term only (perf's rule: a
 *   wider term, such as mtc_period, needs its value);
 * - config=, config1=, config2= (and config3= where linux/perf_event.h has
 *   it): the whole field, applied before the format terms as perf does.
 * A term given twice is refused. Named events (ROOT/NAME/events/, as in
 * cpu/cycles/) are not expanded: the refusal shows the event's terms.
 * A PMU without a format directory (software, tracepoint) takes no terms:
 * software// parses to its type and config 0.
 *
 * MODS, as perf takes them: u counts user space only (exclude_kernel,
 * exclude_hv), k kernel only (exclude_user, exclude_hv), h the hypervisor
 * only (exclude_user, exclude_kernel); combined, each adds its level back
 * (uk: exclude_hv alone). G counts the guest only (exclude_host), H the host
 * only (exclude_guest). Others (p, P, S, D, I, W, e, b) are refused.
 *
 * intel_pt's defaults, as perf's intel_pt_default_config()
 * (tools/perf/arch/x86/util/intel-pt.c) builds them from sysfs alone, are
 * the base the given terms then change, with or without terms (so
 * intel_pt/tsc=0/ clears tsc): each term only where its format file exists,
 * - tsc;
 * - mtc and mtc_period=P, when caps/mtc is not 0 (a missing file counts as 1)
 *   and caps/mtc_periods (hex) is not 0: P is the largest period bit of it
 *   not above 3, else its lowest;
 * - psb_period=P likewise from caps/psb_periods, when caps/psb_cyc is not 0
 *   (missing: 1) and mtc_period was set;
 * - pt and branch, when both their format files exist.
 * perf's recording-time checks (pt=0 forced to 1, mtc_period and cyc_thresh
 * against caps) are not made here.
 */
#ifndef RINGCAP_PERF_PMU_H
#define RINGCAP_PERF_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

/* The PMUs' directory, for a NULL root */
#define RC_PMU_ROOT "/sys/bus/event_source/devices"

/**
 * rc_pmu__is_spec() - whether an -e argument is in the PMU syntax
 * @spec: the argument
 *
 * NAME/TERMS/MODS: exactly two slashes, and a NAME that is not empty and
 * holds no ':' (uprobe and tracepoint specs hold one before any slash).
 *
 * Return: true for the PMU syntax.
 */
bool rc_pmu__is_spec(const char *spec);

/**
 * rc_pmu__parse() - an event in perf's PMU syntax, to its attr
 * @root: the PMUs' directory, RC_PMU_ROOT for NULL; tests pass a tree of their own
 * @spec: NAME/TERMS/MODS, as the file's comment describes
 * @attr: filled on success: zeroed, then size, type, config, config1,
 *	config2 (config3 where the header has it) and the exclude_* bits;
 *	the rest (sampling, disabled, ...) stays the caller's to set
 * @err: a buffer for the one-line reason of a failure
 * @errlen: its size
 *
 * Return: 0; -ENODEV when there is no PMU NAME (@err names it, says this
 * machine has none such and lists the PMUs it has, sorted); -EINVAL for a
 * spec not in the syntax, a bad or unknown term (@err lists the PMU's
 * terms), a value too large for its bits, a bad modifier, or a malformed
 * type or format file; -errno from reading ROOT; -ENOMEM.
 */
int rc_pmu__parse(const char *root, const char *spec, struct perf_event_attr *attr, char *err,
		  size_t errlen);

/**
 * rc_pmu__name() - the PMU's name from a spec, for messages
 * @spec: NAME/TERMS/MODS
 * @name: the buffer for NAME
 * @len: its size
 *
 * Return: 0; -EINVAL when @spec is not in the PMU syntax; -ENAMETOOLONG
 * when NAME does not fit (@name then holds "").
 */
int rc_pmu__name(const char *spec, char *name, size_t len);

/**
 * rc_pmu__is_aux() - whether a PMU is one of the AUX-area PMUs ringcap knows
 * @name: a PMU's name, as a spec gives it or as sysfs has it
 *
 * intel_pt, intel_bts, cs_etm, and arm_spe (arm_spe_N in sysfs): their
 * traces go to the AUX area of the event's mapping.
 *
 * Return: true for those.
 */
bool rc_pmu__is_aux(const char *name);

#endif /* RINGCAP_PERF_PMU_H */
