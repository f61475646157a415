// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text (output.h): perf-script-like lines (rc_decode__text()), a
 * flight recorder's snapshots ruled off, and with --stacks each sample's
 * frames under it.
 */
#include <stdio.h>
#include <string.h>
#include "output/output_int.h"

/* text: a flight recorder's snapshot begins; its record follows. */
static void snapshot_rule(struct rc_output *o, const struct rc_rec_hdr *rec)
{
	const struct rc_field *seq = rc_event__field(o->snap, "seq");
	const struct rc_field *why = rc_event__field(o->snap, "reason");
	const struct rc_field *n = rc_event__field(o->snap, "nrec");

	APPEND_LIT(&o->buf, "# ---- snapshot ");
	if (seq)
		rc_decode__field(&o->buf, o->m->schema, seq, rec);
	APPEND_LIT(&o->buf, " (");
	if (why)
		rc_decode__field(&o->buf, o->m->schema, why, rec);
	APPEND_LIT(&o->buf, "): ");
	if (n)
		rc_decode__field(&o->buf, o->m->schema, n, rec);
	APPEND_LIT(&o->buf, " events ----\n");
}

/*
 * text --stacks: the frames of a record with a stack (a sample, an
 * off-CPU record), innermost first, a line each, as perf script prints them.
 */
static void stack_lines(struct rc_output *o, const struct rc_rec_hdr *rec, bool paired)
{
	const struct rc_event_desc *ev = rc_output__ev(o, rec->type);
	const struct rc_field *id = rc_event__field(ev, "stack_id");
	const struct rc_stack *st;
	char line[640], name[512];
	size_t i;

	if (!id || ev->id >= RC_FIRST_DYN_ID)
		return;
	if (!paired) { /* its event was not shown just before: say whose it is */
		const struct rc_field *of = rc_event__field(ev, "event");

		rc_strbuf__printf(&o->buf, "\t[the stack of event %llu of thread %u at %llu]\n",
				  of ? (unsigned long long)rc_field__u64(of, rec, 0) : 0ull,
				  rec->tid, (unsigned long long)rec->ts);
	}
	st = rc_reader__stack(o->stacks, (uint32_t)rc_field__u64(id, rec, 0));
	if (!st) {
		APPEND_LIT(&o->buf, "\t[no stack]\n");
		return;
	}
	for (i = 0; i < (size_t)st->nkernel + st->nuser; i++) {
		const struct rc_frame *f = &st->frames[i];

		rc_frame__name(f, name, sizeof(name));
		if (f->flags & RC_FRAME_F_INLINE) /* as perf script: no offset, "(inlined)" */
			snprintf(line, sizeof(line), "\t%16llx %s (inlined) (%s)",
				 (unsigned long long)f->addr, f->sym ? f->sym : "[unknown]",
				 f->dso ? f->dso : "[unknown]");
		else if (f->sym)
			snprintf(line, sizeof(line), "\t%16llx %s+0x%llx (%s)",
				 (unsigned long long)f->addr, name, (unsigned long long)f->off,
				 f->dso ? f->dso : "[unknown]");
		else
			snprintf(line, sizeof(line), "\t%16llx %s", (unsigned long long)f->addr,
				 name);
		rc_strbuf__put(&o->buf, line, strlen(line));
		/* its source line, where record found one (record --srclines) */
		if (f->file && f->line)
			rc_strbuf__printf(&o->buf, " %s:%u", f->file, f->line);
		else if (f->file)
			rc_strbuf__printf(&o->buf, " %s", f->file);
		APPEND_LIT(&o->buf, "\n");
	}
	if (st->flags & (RC_STACK_F_KERNEL_CUT | RC_STACK_F_USER_CUT))
		APPEND_LIT(&o->buf, "\t[stack cut: deeper than its frames]\n");
	APPEND_LIT(&o->buf, "\n");
}

static void text_event(struct rc_output *o, const struct rc_rec_hdr *rec)
{
	if (o->snap && rec->type == o->snap->id)
		snapshot_rule(o, rec);
	if (o->hosts)
		rc_strbuf__printf(&o->buf, "%-16s ", o->m->host ? o->m->host : "?");
	rc_decode__event_text(&o->buf, o->m, rc_output__ev(o, rec->type), rec, o->flags);
	APPEND_LIT(&o->buf, "\n");
	if (o->stacks)
		stack_lines(o, rec, true);
}

const struct rc_output_ops rc_output_text = {
	.name = "text",
	.event = text_event,
	.stack = stack_lines,
};
