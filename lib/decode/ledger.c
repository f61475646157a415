// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ledgers of capture files: one file read whole, the spans missing
 * between a rotated run's files, and several files summed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode/ledger.h"
#include "format/schema.h"
#include "format/stats.h"
#include "util/mem.h"

static void note_lost(struct rc_ledger *l, const struct rc_event_desc *ev,
		      const struct rc_rec_hdr *rec)
{
	const struct rc_field *n = rc_event__field(ev, "lost"), *fl = rc_event__field(ev, "flags");

	rc_ledger__add_lost(l, n ? rc_field__u64(n, rec, 0) : 0,
			    fl && rc_field__u64(fl, rec, 0) & 1 /* RC_LOST_F_AT_END */);
}

int rc_ledger_file__begin(struct rc_ledger_file *f, struct rc_reader *r, const char *path)
{
	const struct rc_meta *m = rc_reader__meta(r);
	const struct rc_note *note;
	int err;

	f->m = m;
	f->source = path;
	f->schema = m->schema;
	note = rc_meta__note(m, 0, "sampling");
	if (note) {
		char *c;

		snprintf(f->sampling, sizeof(f->sampling), "%.*s", (int)note->len,
			 (const char *)note->data);
		/* a name from the file: nothing a terminal would act on reaches stat's text */
		for (c = f->sampling; *c; c++)
			if (!isprint((unsigned char)*c))
				*c = '?';
	}
	err = rc_ledger__alloc(&f->led, m->ncpus);
	if (err)
		return err;
	f->led.overwrite = m->flags & RC_META_OVERWRITE;
	f->lost_ev = rc_schema__event_by_name(m->schema, "ringcap:lost");
	f->snap_ev = rc_schema__event_by_name(m->schema, "ringcap:snapshot");
	f->aux_ev = rc_schema__event_by_name(m->schema, "ringcap:aux");
	f->memo_ok = false; /* of this file's schema */
	return 0;
}

/* what a record of a type is to a file's ledger */
enum { MEMO_EVENT, MEMO_EVENT_NO_CPU, MEMO_LOST, MEMO_SNAPSHOT, MEMO_AUX };

static uint8_t memo_of(const struct rc_ledger_file *f, const struct rc_rec_hdr *rec)
{
	/* records of ringcap's own, not events: counted apart */
	if (f->lost_ev && rec->type == f->lost_ev->id)
		return MEMO_LOST;
	if (f->snap_ev && rec->type == f->snap_ev->id)
		return MEMO_SNAPSHOT;
	if (f->aux_ev && rec->type == f->aux_ev->id)
		return MEMO_AUX;
	return rc_rec__unknown(f->m->schema, rec) & RC_EVENT_NO_CPU ? MEMO_EVENT_NO_CPU
								    : MEMO_EVENT;
}

/*
 * What a type's record is (ringcap's own, an event, one with no CPU) is
 * looked up once a run of records of that type, not a record: a schema
 * search and two calls a record were 7% of export's instructions.
 */
void rc_ledger_file__add(struct rc_ledger_file *f, const struct rc_rec_hdr *rec)
{
	struct rc_ledger *l = &f->led;

	if (!f->nrec++)
		f->first = rec->ts;
	f->last = rec->ts > f->last ? rec->ts : f->last;
	if (!f->memo_ok || rec->type != f->memo_type) {
		f->memo = memo_of(f, rec);
		f->memo_type = rec->type;
		f->memo_ok = true;
	}
	switch (f->memo) {
	case MEMO_LOST:
		note_lost(l, f->lost_ev, rec);
		return;
	case MEMO_SNAPSHOT:
		l->snapshots++;
		return;
	case MEMO_AUX:
		return; /* about the AUX streams, whose bytes the ledger counts */
	}
	f->nev++;
	rc_ledger__count_record(l, rec, f->memo == MEMO_EVENT_NO_CPU);
}

int rc_ledger_file__end(struct rc_ledger_file *f, struct rc_reader *r)
{
	const struct rc_stats_point *hist;
	const struct rc_trailer *tr;
	const struct rc_meta *m = f->m;
	size_t nhist;
	int err;

	f->truncated = rc_reader__truncated(r);
	f->damaged = rc_reader__corrupt(r, &f->dmg);
	f->damage = rc_reader__error(r);
	if (f->damaged)
		rc_ledger__add_corrupt(&f->led, f->dmg.chunks, f->dmg.records, f->dmg.bytes);
	f->end = rc_reader__stats(r);
	f->base = rc_reader__base(r);
	if (f->end) {
		err = rc_stats__span(f->end, f->base, &f->span);
		if (err)
			return err;
		f->led.st = &f->span;
	}
	f->chunks = rc_reader__chunks(r);
	f->file_bytes = rc_reader__offset(r);
	tr = rc_reader__trailer(r);
	f->raw_bytes = rc_reader__raw_bytes(r);
	f->late = tr ? tr->late : 0;
	if (f->end && f->end->ts > f->last)
		f->last = f->end->ts;
	if (!f->nrec && !f->end)
		f->first = f->last = m->start_ts;
	f->duration =
	    f->last > m->start_ts ? (f->last - m->start_ts) / 1e9 : (f->last - f->first) / 1e9;
	rc_ledger__count(&f->led, f->led.st);
	hist = rc_reader__history(r, &nhist);
	if (f->base) {
		/* a later file of a run: its first second from the counters it began with */
		struct rc_stats_point b;
		size_t i;

		rc_stats__totals(f->base, &b);
		b.ts = m->start_ts;
		for (i = 0; i < nhist; i++)
			rc_ledger__note_interval(&f->led, i ? &hist[i - 1] : &b, &hist[i],
						 ((i ? hist[i - 1].ts : b.ts) - b.ts) / 1e9);
	} else {
		rc_ledger__worst_second(&f->led, hist, nhist, m->start_ts);
	}
	return 0;
}

int rc_ledger_file__read(struct rc_ledger_file *f, struct rc_reader *r, const char *path)
{
	const struct rc_rec_hdr *rec;
	int err = rc_ledger_file__begin(f, r, path);

	if (err)
		return err;
	while ((err = rc_reader__next(r, &rec)) > 0)
		rc_ledger_file__add(f, rec);
	return err < 0 ? err : rc_ledger_file__end(f, r);
}

void rc_ledger_file__free(struct rc_ledger_file *f)
{
	rc_ledger__free(&f->led);
	free(f->span.entries);
	f->span.entries = NULL;
}

/* A stats' totals of what the span formulas need. */
struct run_point {
	bool known;
	uint64_t made, in_flight, dropped;
};

static struct run_point run_point(const struct rc_stats *st)
{
	struct run_point p = { .known = st != NULL };
	uint32_t i;

	for (i = 0; st && i < st->nentries; i++) {
		p.made += st->entries[i].made;
		p.in_flight += st->entries[i].in_flight;
		p.dropped += st->entries[i].dropped;
	}
	return p;
}

int rc_ledger__gaps(const struct rc_ledger_file *fv, size_t n, struct rc_ledger_gap **out,
		    size_t *nout)
{
	struct rc_ledger_gap *g = NULL;
	size_t i, j, k = 0, cap = 0;

	for (i = 0; i < n; i++) {
		const struct rc_ledger_file *f = &fv[i], *prev = NULL;
		struct rc_ledger_gap gp = {};
		struct run_point b, e;

		if (!f->m->has_run)
			continue;
		/* the file of the same run just before it in seq (the set sorts by start, seq) */
		for (j = i; j-- > 0;) {
			if (fv[j].m->has_run && !memcmp(fv[j].m->run.id, f->m->run.id, 16)) {
				prev = &fv[j];
				break;
			}
		}
		if (prev ? f->m->run.seq <= prev->m->run.seq + 1 : f->m->run.seq <= 1)
			continue;
		b = run_point(f->base);
		gp.after = f;
		gp.before = prev;
		gp.seq_from = prev ? prev->m->run.seq + 1 : 1;
		gp.seq_to = f->m->run.seq - 1;
		gp.to_ts = f->m->start_ts;
		if (prev) {
			e = run_point(prev->end);
			gp.from_ts = prev->last; /* the clock of one boot: the run's */
			gp.known = b.known && e.known;
			if (gp.known) {
				gp.made = (b.made - b.in_flight) - (e.made - e.in_flight);
				gp.dropped = b.dropped - e.dropped;
			}
		} else {
			gp.from_ts = f->m->run.start_ts;
			gp.known = b.known;
			gp.made = b.made - b.in_flight;
			gp.dropped = b.dropped;
		}
		if (rc_ensure_arr(&g, &cap, k + 1, 8)) {
			free(g);
			return -ENOMEM;
		}
		g[k++] = gp;
	}
	*out = g;
	*nout = k;
	return 0;
}

int rc_ledger_file__sum(struct rc_ledger_file *fv, size_t n, const struct rc_set *set,
			struct rc_ledger_file *sum, struct rc_stats *st)
{
	uint32_t ncpus = 0;
	bool any_st = false;
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		ncpus = fv[i].m->ncpus > ncpus ? fv[i].m->ncpus : ncpus;
	err = rc_ledger__alloc(&sum->led, ncpus);
	if (err)
		return err;
	*st = (struct rc_stats){};
	for (i = 0; i < n; i++) {
		struct rc_ledger_file *f = &fv[i];
		const struct rc_stats *s = f->led.st;

		/* the worst second, from the set's start */
		f->led.worst_at +=
		    ((int64_t)rc_set__time(set, i, f->m->start_ts) - (int64_t)rc_set__start(set)) /
		    1e9;
		rc_ledger__add(&sum->led, &f->led);
		sum->nrec += f->nrec;
		sum->nev += f->nev;
		sum->chunks += f->chunks;
		sum->file_bytes += f->file_bytes;
		sum->raw_bytes += f->raw_bytes;
		sum->late += f->late;
		sum->truncated |= f->truncated;
		/* the event the files sampled; "mixed" when they differ, files with none aside */
		if (!sum->sampling[0])
			memcpy(sum->sampling, f->sampling, sizeof(sum->sampling));
		else if (f->sampling[0] && strcmp(f->sampling, sum->sampling))
			snprintf(sum->sampling, sizeof(sum->sampling), "%s", RC_LEDGER_MIXED);
		if (f->damaged && !sum->damaged) {
			sum->damaged = true;
			sum->damage = f->damage;
		}
		sum->dmg.chunks += f->dmg.chunks;
		sum->dmg.records += f->dmg.records;
		sum->dmg.bytes += f->dmg.bytes;
		sum->dmg.stretches += f->dmg.stretches;
		sum->dmg.exact = i ? sum->dmg.exact && (!f->damaged || f->dmg.exact)
				   : !f->damaged || f->dmg.exact;
		if (!s)
			continue;
		any_st = true;
		st->ring_size = s->ring_size > st->ring_size ? s->ring_size : st->ring_size;
		st->ring_hwm = s->ring_hwm > st->ring_hwm ? s->ring_hwm : st->ring_hwm;
		st->user_dropped += s->user_dropped;
		st->writer_wait_ns += s->writer_wait_ns;
	}
	sum->led.st = any_st ? st : NULL;
	sum->schema = fv[0].m->schema;
	sum->duration = rc_set__span(set) / 1e9; /* as report --summary says it */
	return 0;
}
