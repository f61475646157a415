/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A capture's loss ledger in Prometheus' text exposition format, version
 * 0.0.4 (lib/output/prom.c): what `ringcap stat --prometheus` prints for
 * node_exporter's textfile collector, and what `record --metrics` serves
 * at /metrics while it records.
 *
 * Every family has # HELP and # TYPE; counters end in _total; labels are
 * the event and the layer that lost it, never a pid, so that the series
 * stay as few as the capture's events.
 */
#ifndef RINGCAP_OUTPUT_PROM_H
#define RINGCAP_OUTPUT_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include "decode/ledger.h"
#include "format/meta.h"
#include "format/schema.h"
#include "util/strbuf.h"

/**
 * struct rc_prom_live - what only a running capture knows
 * @ring_fill: records waiting in the rings now, a fraction of their size
 * @ring_hwm: the most they held at once, a fraction of their size
 * @bytes: bytes written to the capture's files so far
 * @switched: switches to a new file so far (--switch-output)
 */
struct rc_prom_live {
	double ring_fill, ring_hwm;
	uint64_t bytes;
	uint64_t switched;
};

/**
 * rc_prom__ledger() - a ledger's counters, as Prometheus' text
 * @sb: appended to
 * @v: a file's ledger, files' summed, or a live count (@v->led.live)
 * @live: a running capture's gauges (NULL: those of @v, a file's)
 * @version: ringcap's version, for ringcap_build_info
 *
 * Return: 0, or -ENOMEM.
 */
int rc_prom__ledger(struct rc_strbuf *sb, const struct rc_ledger_file *v,
		    const struct rc_prom_live *live, const char *version);

/**
 * rc_prom__stats() - a running capture's counters, as Prometheus' text
 * @sb: appended to
 * @st: its counters now (rc_session__sample())
 * @schema: its events
 * @ncpus: its CPUs
 * @duration: seconds since it started
 * @live: its gauges
 * @version: ringcap's version
 *
 * Return: 0, or -ENOMEM.
 */
int rc_prom__stats(struct rc_strbuf *sb, const struct rc_stats *st, const struct rc_schema *schema,
		   uint32_t ncpus, double duration, const struct rc_prom_live *live,
		   const char *version);

#endif /* RINGCAP_OUTPUT_PROM_H */
