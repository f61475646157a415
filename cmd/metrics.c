// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --metrics: the running capture's ledger served at /metrics in
 * Prometheus' text format (lib/output/prom.c), from a thread of its own
 * (lib/util/httpd.c). The drain renders the text about once a second,
 * between two drains; a scrape copies the last text. A server that cannot
 * start costs the capture one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cmd.h"
#include "output/prom.h"
#include "util/httpd.h"
#include "util/strbuf.h"

#define METRICS_EVERY_S 1.0

struct metrics {
	struct rc_httpd *h;
	struct rc_strbuf sb;
	double last;
};

struct metrics *metrics_start(const char *addr)
{
	struct metrics *m = calloc(1, sizeof(*m));
	char err[320];

	if (!m) {
		say("--metrics=%s: out of memory; recording without it\n", addr);
		return NULL;
	}
	m->h = rc_httpd__start(addr, "/metrics", "text/plain; version=0.0.4; charset=utf-8", err,
			       sizeof(err));
	if (!m->h) {
		say("--metrics: cannot serve on %s; recording without it\n", err);
		free(m);
		return NULL;
	}
	m->last = -METRICS_EVERY_S;
	return m;
}

int metrics_port(const struct metrics *m)
{
	return m ? rc_httpd__port(m->h) : 0;
}

void metrics_update(struct metrics *m, struct rc_session *s, double elapsed)
{
	const struct rc_meta *meta = rc_session__meta(s);
	struct rc_prom_live live = {};
	const struct rc_stats *st;

	if (!m || elapsed - m->last < METRICS_EVERY_S)
		return;
	st = rc_session__sample(s);
	if (!st || !meta)
		return;
	m->last = elapsed;
	if (st->ring_size) {
		live.ring_fill = (double)st->ring_pending / st->ring_size;
		live.ring_hwm = (double)st->ring_hwm / st->ring_size;
	}
	live.bytes = rc_session__bytes(s, NULL);
	live.switched = rc_session__switched(s);
	m->sb.len = 0;
	if (!rc_prom__stats(&m->sb, st, meta->schema, meta->ncpus, elapsed, &live,
			    RINGCAP_VERSION))
		rc_httpd__set(m->h, m->sb.buf, m->sb.len);
}

void metrics_stop(struct metrics *m)
{
	if (!m)
		return;
	rc_httpd__stop(m->h);
	rc_strbuf__free(&m->sb);
	free(m);
}
