// SPDX-License-Identifier: GPL-2.0-only
/*
 * A loss ledger in Prometheus' text exposition format (version 0.0.4):
 * a family per counter, a series per event (and per layer for the losses).
 * The totals are not written as series of their own: sum() over the
 * events gives them, and a total beside its parts would count twice.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "output/prom.h"

/* The length of the UTF-8 sequence at @s (1 to 4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/*
 * A label value: backslash, double quote and line feed escaped; a byte
 * that is not UTF-8 (a path's, a tracepoint's) written as U+FFFD, since
 * Prometheus refuses a whole scrape over one.
 */
static int put_label_value(struct rc_strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int err = 0;

	while (*p && !err) {
		size_t n = utf8_len(p);

		if (*p == '\\' || *p == '"')
			err = rc_strbuf__put(sb, "\\", 1) ?: rc_strbuf__put(sb, p, 1);
		else if (*p == '\n')
			err = rc_strbuf__put(sb, "\\n", 2);
		else if (!n)
			err = rc_strbuf__put(sb, "\xef\xbf\xbd", 3);
		else
			err = rc_strbuf__put(sb, p, n);
		p += n ? n : 1;
	}
	return err;
}

static int family(struct rc_strbuf *sb, const char *name, const char *type, const char *help)
{
	return rc_strbuf__printf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{event="E"[,layer="L"]} V */
static int series(struct rc_strbuf *sb, const char *name, const char *event, const char *layer,
		  uint64_t v)
{
	int err = rc_strbuf__printf(sb, "%s{event=\"", name);

	err = err ?: put_label_value(sb, event);
	if (layer)
		err = err ?: rc_strbuf__printf(sb, "\",layer=\"%s", layer);
	err = err ?: rc_strbuf__put(sb, "\"} ", 3);
	err = err ?: rc_strbuf__put_u64(sb, v);
	return err ?: rc_strbuf__put(sb, "\n", 1);
}

/* An event's name; "#ID" for one the schema lacks, so that series never collide. */
static const char *event_name(const struct rc_ledger_file *v, uint32_t id, char *buf, size_t len)
{
	const struct rc_event_desc *ev = rc_schema__event(v->schema, id);

	if (id == RC_TYPE_FOLLOW)
		return "(following children)";
	if (ev)
		return ev->name;
	snprintf(buf, len, "#%u", id);
	return buf;
}

static bool row_used(const struct rc_ledger_row *r)
{
	return r->made || r->in_file || r->captured || r->filtered || r->missed || r->not_run ||
	       r->throttled;
}

/* A per-event counter family: @get picks the value from a row. */
typedef uint64_t (*row_value)(const struct rc_ledger *l, const struct rc_ledger_row *r);

#define ROW_GETTER(field)                                                                          \
	static uint64_t get_##field(const struct rc_ledger *l, const struct rc_ledger_row *r)     \
	{                                                                                          \
		(void)l;                                                                           \
		return r->field;                                                                   \
	}
ROW_GETTER(made)
ROW_GETTER(captured)
ROW_GETTER(in_file)
ROW_GETTER(dropped)
ROW_GETTER(paused)
ROW_GETTER(filtered)
ROW_GETTER(missed)
ROW_GETTER(not_run)
ROW_GETTER(throttled)

static uint64_t get_missing(const struct rc_ledger *l, const struct rc_ledger_row *r)
{
	return rc_ledger__missing(l, r);
}

static int per_event(struct rc_strbuf *sb, const struct rc_ledger_file *v, const char *name,
		     const char *layer, row_value get)
{
	const struct rc_ledger *l = &v->led;
	char buf[16];
	uint32_t id;
	int err = 0;

	for (id = 0; id < RC_LEDGER_EVENTS && !err; id++)
		if (row_used(&l->by_event[id]))
			err = series(sb, name, event_name(v, id, buf, sizeof(buf)), layer,
				     get(l, &l->by_event[id]));
	return err;
}

/* A family with one value per event. */
static int counter(struct rc_strbuf *sb, const struct rc_ledger_file *v, const char *name,
		   const char *help, row_value get)
{
	return family(sb, name, "counter", help) ?: per_event(sb, v, name, NULL, get);
}

static int lost(struct rc_strbuf *sb, const struct rc_ledger_file *v)
{
	static const char name[] = "ringcap_events_lost_total";

	return family(sb, name, "counter",
		      "Events made and lost, by the layer that lost them: ring (it was full), "
		      "snapshot (refused while a flight recorder's snapshot paused the rings), "
		      "file (read from the ring, missing from the file: cut short or damaged).") ?:
		       per_event(sb, v, name, "ring", get_dropped) ?:
		       per_event(sb, v, name, "snapshot", get_paused) ?:
		       (v->led.live ? 0 : per_event(sb, v, name, "file", get_missing));
}

static int gauge(struct rc_strbuf *sb, const char *name, const char *help, const char *value)
{
	return family(sb, name, "gauge", help) ?: rc_strbuf__printf(sb, "%s %s\n", name, value);
}

static int whole(struct rc_strbuf *sb, const char *name, const char *type, const char *help,
		 uint64_t v)
{
	return family(sb, name, type, help) ?:
		       rc_strbuf__printf(sb, "%s %llu\n", name, (unsigned long long)v);
}

static int ratio(struct rc_strbuf *sb, const char *name, const char *help, double v)
{
	char num[32];

	snprintf(num, sizeof(num), "%.6f", v);
	return gauge(sb, name, help, num);
}

int rc_prom__ledger(struct rc_strbuf *sb, const struct rc_ledger_file *v,
		    const struct rc_prom_live *live, const char *version)
{
	const struct rc_ledger *l = &v->led;
	char num[32];
	int err;

	err = family(sb, "ringcap_build_info", "gauge",
		     "ringcap's version: 1, with the version as a label.") ?:
		      rc_strbuf__printf(sb, "ringcap_build_info{version=\"") ?:
		      put_label_value(sb, version) ?: rc_strbuf__printf(sb, "\"} 1\n");
	snprintf(num, sizeof(num), "%.9f", v->duration);
	err = err ?: gauge(sb, "ringcap_capture_seconds",
			   "Seconds from the capture's start to its last counters.", num);
	err = err ?: counter(sb, v, "ringcap_events_made_total",
			     "Events in scope that the BPF programs, or the kernel's tracer, tried "
			     "to emit.",
			     get_made);
	err = err ?: counter(sb, v, "ringcap_events_captured_total",
			     "Events read from the rings by ringcap.", get_captured);
	if (!l->live)
		err = err ?: counter(sb, v, "ringcap_events_in_files_total",
				     "Events in the capture files.", get_in_file);
	err = err ?: lost(sb, v);
	err = err ?: counter(sb, v, "ringcap_events_filtered_total",
			     "Events out of scope (-p, a command, --comm): neither made nor lost.",
			     get_filtered);
	err = err ?: counter(sb, v, "ringcap_program_runs_missed_total",
			     "Runs of the BPF programs the kernel skipped (recursion): an upper "
			     "bound of events never made.",
			     get_missed);
	err = err ?: counter(sb, v, "ringcap_samples_not_run_total",
			     "Samples asked for (-F, -c) that the program never ran for: estimated.",
			     get_not_run);
	err = err ?: counter(sb, v, "ringcap_samples_throttled_total",
			     "Of the samples never run, those while the kernel throttled the event.",
			     get_throttled);
	if (!l->live)
		err = err ?: whole(sb, "ringcap_file_chunks_damaged_total", "counter",
				   "Chunks of the capture files lost to damage.", l->corrupt_chunks);
	if (live) {
		err = err ?: ratio(sb, "ringcap_ring_fill_ratio",
				   "Bytes waiting in the fullest ring now, a fraction of its size.",
				   live->ring_fill);
		err = err ?: ratio(sb, "ringcap_ring_high_water_ratio",
				   "The most bytes the fullest ring held at once, a fraction of its "
				   "size.",
				   live->ring_hwm);
		err = err ?: whole(sb, "ringcap_written_bytes_total", "counter",
				   "Bytes written to the capture's files.", live->bytes);
		err = err ?: whole(sb, "ringcap_files_switched_total", "counter",
				   "Switches to a new capture file (--switch-output).", live->switched);
	} else if (!l->live) {
		err = err ?: whole(sb, "ringcap_written_bytes_total", "counter",
				   "Bytes of the capture files read.", v->file_bytes);
	}
	return err;
}

int rc_prom__stats(struct rc_strbuf *sb, const struct rc_stats *st, const struct rc_schema *schema,
		   uint32_t ncpus, double duration, const struct rc_prom_live *live,
		   const char *version)
{
	struct rc_ledger_file v = { .schema = schema, .duration = duration, .led.live = true };
	int err;

	err = rc_ledger__alloc(&v.led, ncpus);
	if (!err) {
		v.led.st = st;
		rc_ledger__count(&v.led, st);
		err = rc_prom__ledger(sb, &v, live, version);
	}
	rc_ledger__free(&v.led);
	return err;
}
