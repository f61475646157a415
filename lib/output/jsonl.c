// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON Lines (output.h): {"time", "ts", "cpu", "pid", "tid", "comm",
 * "event", "fields": {...}}, an event a line.
 */
#include <stdint.h>
#include "output/output_int.h"

/* ,"KEY":V (@key: ,"KEY":), or null when the record does not know it */
static void json_known(struct rc_strbuf *sb, const char *key, size_t keylen, uint32_t v,
		       bool unknown)
{
	rc_strbuf__put(sb, key, keylen);
	if (unknown)
		APPEND_LIT(sb, "null");
	else
		rc_json__put_u64(sb, v);
}

#define JSON_KNOWN(sb, key, v, unknown) json_known(sb, key, sizeof(key) - 1, v, unknown)

static void json_event(struct rc_output *o, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_output__ev(o, rec->type);
	struct rc_strbuf *sb = &o->buf;
	unsigned int no = ev->flags;
	const char *name;
	size_t len;

	APPEND_LIT(sb, "{\"time\":");
	rc_output__put_seconds(sb, o->m, rec->ts);
	APPEND_LIT(sb, ",\"ts\":");
	rc_json__put_u64(sb, rec->ts);
	if (o->hosts) {
		APPEND_LIT(sb, ",\"host\":");
		rc_json__escape(sb, o->m->host ? o->m->host : "", SIZE_MAX);
	}
	JSON_KNOWN(sb, ",\"cpu\":", rec->cpu, no & RC_EVENT_NO_CPU);
	JSON_KNOWN(sb, ",\"pid\":", rec->pid, no & RC_EVENT_NO_PID);
	JSON_KNOWN(sb, ",\"tid\":", rec->tid, no & RC_EVENT_NO_TID);
	APPEND_LIT(sb, ",\"comm\":");
	if (no & RC_EVENT_NO_COMM)
		APPEND_LIT(sb, "null");
	else
		rc_json__escape(sb, rec->comm, sizeof(rec->comm));
	APPEND_LIT(sb, ",\"event\":");
	name = rc_json_fields__name(o->jf, ev, &len);
	rc_strbuf__put(sb, name, len);
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
