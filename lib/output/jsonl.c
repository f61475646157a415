// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON Lines (output.h): {"time", "ts", "cpu", "pid", "tid", "comm",
 * "event", "fields": {...}}, an event a line.
 */
#include <stdint.h>
#include "output/output_int.h"

/* ,"KEY":V, or null when the record does not know it */
static void json_known(struct rc_strbuf *sb, const char *key, uint32_t v, bool unknown)
{
	if (unknown)
		rc_strbuf__printf(sb, ",\"%s\":null", key);
	else
		rc_strbuf__printf(sb, ",\"%s\":%u", key, v);
}

static void json_event(struct rc_output *o, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(o->m->schema, rec->type);
	struct rc_strbuf *sb = &o->buf;
	unsigned int no = ev->flags;

	APPEND_LIT(sb, "{\"time\":");
	rc_output__put_seconds(sb, o->m, rec->ts);
	rc_strbuf__printf(sb, ",\"ts\":%" PRIu64, rec->ts);
	if (o->hosts) {
		APPEND_LIT(sb, ",\"host\":");
		rc_json__escape(sb, o->m->host ? o->m->host : "", SIZE_MAX);
	}
	json_known(sb, "cpu", rec->cpu, no & RC_EVENT_NO_CPU);
	json_known(sb, "pid", rec->pid, no & RC_EVENT_NO_PID);
	json_known(sb, "tid", rec->tid, no & RC_EVENT_NO_TID);
	APPEND_LIT(sb, ",\"comm\":");
	if (no & RC_EVENT_NO_COMM)
		APPEND_LIT(sb, "null");
	else
		rc_json__escape(sb, rec->comm, sizeof(rec->comm));
	APPEND_LIT(sb, ",\"event\":");
	rc_json__escape(sb, ev->name, SIZE_MAX);
	APPEND_LIT(sb, ",\"fields\":");
	rc_json_fields__put(o->jf, sb, ev, rec);
	APPEND_LIT(sb, "}\n");
}

static int json_begin(struct rc_output *o)
{
	return rc_output__json_fields(o);
}

const struct rc_output_ops rc_output_json = {
	.name = "json",
	.begin = json_begin,
	.event = json_event,
};
