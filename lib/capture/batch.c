// SPDX-License-Identifier: GPL-2.0-only
/* Batches between a drain and a writer thread (batch.h). */
#include <stdlib.h>
#include <string.h>
#include "capture/batch.h"
#include "format/writer_int.h"
#include "util/util.h"

int rc_batcher__init(struct rc_batcher *b, struct rc_capture *c)
{
	unsigned int i;

	b->c = c;
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	for (i = 0; i < RC_NBATCH; i++) {
		b->batches[i].buf = malloc(RC_BATCH_SIZE);
		if (!b->batches[i].buf)
			return -ENOMEM;
		b->batches[i].owner = b;
		b->free_b[b->nfree++] = &b->batches[i];
	}
	return 0;
}

/* The counters last written: the next file's BASE at a switch. */
static int keep_stats(struct rc_batcher *b, const struct rc_stats *st)
{
	size_t sz = st->nentries * sizeof(*st->entries);
	struct rc_stat_entry *e = realloc(b->last.entries, sz ? sz : 1);

	if (!e)
		return -ENOMEM;
	memcpy(e, st->entries, sz);
	b->last = *st;
	b->last.entries = e;
	return 0;
}

/* The writer has written every record of a batch it held: back to the pool. */
static void give_back(void *ctx)
{
	struct rc_batch *bt = ctx;
	struct rc_batcher *b = bt->owner;

	pthread_mutex_lock(&b->mu);
	b->free_b[b->nfree++] = bt;
	b->held--;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

/*
 * A batch of records to the writer: held in place when it is at least half
 * full and the writer holds fewer than RC_BATCH_HELD (no copy; it comes
 * back through give_back()), else copied. *@kept: the writer holds it.
 */
static int add_records(struct rc_batcher *b, struct rc_batch *bt, bool *kept)
{
	struct rc_writer *w = b->c->w;
	bool hold;
	int err;

	pthread_mutex_lock(&b->mu);
	hold = bt->len >= RC_BATCH_SIZE / 2 && b->held < RC_BATCH_HELD;
	if (hold)
		b->held++;
	pthread_mutex_unlock(&b->mu);
	if (!hold)
		return rc_writer__add(w, bt->buf, bt->len);
	err = rc_writer__add_held(w, bt->buf, bt->len, give_back, bt, kept);
	if (!*kept) {
		pthread_mutex_lock(&b->mu);
		b->held--;
		pthread_mutex_unlock(&b->mu);
	}
	return err;
}

static int write_item(struct rc_batcher *b, struct rc_batch_item *it, bool *kept)
{
	struct rc_writer *w = b->c->w;
	int err;

	switch (it->kind) {
	case RC_ITEM_RECORDS:
		rc_capture__check_space(b->c);
		if (b->c->stacks) {
			size_t len = it->b->len;

			err = rc_stacks__take(b->c->stacks, w, it->b->buf, &it->b->len);
			if (err)
				return err;
			/*
			 * The frames taken off were counted handed (queued_raw):
			 * the drain's estimate of what the writer holds leaves
			 * them out, or it would grow all run long. Before the
			 * records' publish (release), which the drain reads first.
			 */
			__atomic_add_fetch(&b->c->taken_written, len - it->b->len,
					   __ATOMIC_RELAXED);
		}
		return add_records(b, it->b, kept);
	case RC_ITEM_STATS:
		rc_capture__check_space(b->c);
		err = rc_writer__add_stats(w, &it->st);
		return err ?: keep_stats(b, &it->st);
	case RC_ITEM_SWITCH:
		/* right after the counters: every record they count is held, or written */
		return rc_capture__next_file(b->c, &b->last);
	case RC_ITEM_AUX:
		rc_capture__check_space(b->c);
		return rc_writer__add_aux(w, it->aux);
	case RC_ITEM_FLUSH:
		return rc_writer__flush_until(w, it->now);
	case RC_ITEM_FINISH:
		return rc_writer__finish(w);
	case RC_ITEM_CUT:
		return rc_writer__flush(w, true);
	}
	return -EINVAL;
}

static void *writer_main(void *arg)
{
	struct rc_batcher *b = arg;
	bool done = false;

	while (!done) {
		struct rc_batch_item it;
		bool failed, kept = false;
		int err = 0;

		pthread_mutex_lock(&b->mu);
		while (!b->qlen)
			pthread_cond_wait(&b->cv, &b->mu);
		it = b->q[b->qhead];
		b->qhead = (b->qhead + 1) % RC_BATCH_QCAP;
		b->qlen--;
		failed = b->werr != 0;
		pthread_cond_broadcast(&b->cv);
		pthread_mutex_unlock(&b->mu);

		/* a full disk: the file ended at its last complete chunk, nothing more written */
		if (!failed && !b->c->salvaged)
			err = rc_capture__write_failed(b->c, write_item(b, &it, &kept));
		if (it.kind == RC_ITEM_STATS)
			free(it.st.entries);
		free(it.aux);
		done = it.kind == RC_ITEM_FINISH || it.kind == RC_ITEM_CUT;
		rc_capture__publish(b->c);

		pthread_mutex_lock(&b->mu);
		if (err && !b->werr)
			b->werr = err;
		if (it.b && !kept) /* a batch held comes back once written (give_back()) */
			b->free_b[b->nfree++] = it.b;
		pthread_cond_broadcast(&b->cv);
		pthread_mutex_unlock(&b->mu);
	}
	return NULL;
}

static int push_item(struct rc_batcher *b, const struct rc_batch_item *it)
{
	int err;

	pthread_mutex_lock(&b->mu);
	while (b->qlen == RC_BATCH_QCAP)
		pthread_cond_wait(&b->cv, &b->mu);
	b->q[(b->qhead + b->qlen) % RC_BATCH_QCAP] = *it;
	b->qlen++;
	err = b->werr;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	return err;
}

int rc_batcher__start(struct rc_batcher *b)
{
	int err;

	if (!b->c->has_file) { /* counting only: one batch, reused */
		b->cur = b->free_b[--b->nfree];
		b->cur->len = 0;
		return 0;
	}
	err = rc_batcher__submit(b);
	if (err)
		return err;
	err = rc_thread_start(&b->thr, writer_main, b);
	if (err)
		return -err;
	b->thr_started = true;
	return 0;
}

int rc_batcher__submit(struct rc_batcher *b)
{
	struct rc_batch_item it = { .kind = RC_ITEM_RECORDS, .b = b->cur };
	uint64_t t0;
	int err = 0;

	if (!b->c->has_file) { /* counting only: nothing to write */
		b->cur->len = 0;
		return 0;
	}
	if (b->cur && b->cur->len) {
		b->c->queued_raw += b->cur->len;
		b->cur = NULL;
		err = push_item(b, &it);
	}
	if (b->cur)
		return err;
	pthread_mutex_lock(&b->mu);
	if (!b->nfree) {
		/* back-pressure: the ring holds what comes meanwhile, or drops it, counted */
		t0 = rc_now_ns(CLOCK_MONOTONIC);
		while (!b->nfree)
			pthread_cond_wait(&b->cv, &b->mu);
		b->wait_ns += rc_now_ns(CLOCK_MONOTONIC) - t0;
	}
	b->cur = b->free_b[--b->nfree];
	b->cur->len = 0;
	err = err ?: b->werr;
	pthread_mutex_unlock(&b->mu);
	return err;
}

int rc_batcher__put(struct rc_batcher *b, const void *rec, size_t len)
{
	int err = RC_BATCH_SIZE - b->cur->len < len ? rc_batcher__submit(b) : 0;

	if (err)
		return err;
	memcpy(b->cur->buf + b->cur->len, rec, len);
	b->cur->len += len;
	return 0;
}

int rc_batcher__stats(struct rc_batcher *b, const struct rc_stats *st)
{
	struct rc_batch_item it = { .kind = RC_ITEM_STATS, .st = *st };
	size_t sz = st->nentries * sizeof(*st->entries);

	if (!b->c->has_file)
		return 0;
	/* a copy for the writer thread: @st changes at the next sample */
	it.st.entries = malloc(sz ? sz : 1);
	if (!it.st.entries)
		return -ENOMEM;
	memcpy(it.st.entries, st->entries, sz);
	return push_item(b, &it);
}

int rc_batcher__aux(struct rc_batcher *b, struct rc_aux_chunk *ac)
{
	struct rc_batch_item it = { .kind = RC_ITEM_AUX, .aux = ac };

	if (!b->c->has_file) {
		free(ac);
		return 0;
	}
	return push_item(b, &it);
}

int rc_batcher__flush(struct rc_batcher *b)
{
	struct rc_batch_item it = { .kind = RC_ITEM_FLUSH };
	int err = rc_batcher__submit(b);

	/* what the drain read is all there is up to now, less the reorder window */
	it.now = rc_now_ns(b->c->meta.clock_id);

	if (err || !b->c->has_file)
		return err;
	return push_item(b, &it);
}

int rc_batcher__switch(struct rc_batcher *b)
{
	struct rc_batch_item it = { .kind = RC_ITEM_SWITCH };

	if (!b->c->has_file)
		return -EINVAL;
	return push_item(b, &it);
}

int rc_batcher__finish(struct rc_batcher *b, int err)
{
	struct rc_batch_item fin = { .kind = RC_ITEM_FINISH };
	int sub = rc_batcher__submit(b);

	/* a failed stop: the ledger and the last counters are missing, so no trailer */
	if (err || sub)
		fin.kind = RC_ITEM_CUT;
	err = err ?: sub;
	push_item(b, &fin);
	pthread_join(b->thr, NULL);
	b->thr_started = false;
	return err ?: b->werr;
}

uint64_t rc_batcher__wait_ns(struct rc_batcher *b)
{
	uint64_t ns;

	pthread_mutex_lock(&b->mu);
	ns = b->wait_ns;
	pthread_mutex_unlock(&b->mu);
	return ns;
}

void rc_batcher__destroy(struct rc_batcher *b)
{
	unsigned int i;

	if (!b->c)
		return; /* never initialised: nothing to free, no mutex to destroy */
	if (b->thr_started) {
		struct rc_batch_item fin = { .kind = RC_ITEM_FINISH };

		/* an abandoned capture: the writer skips the rest, trailer included */
		pthread_mutex_lock(&b->mu);
		b->werr = b->werr ?: -ECANCELED;
		pthread_mutex_unlock(&b->mu);
		push_item(b, &fin);
		pthread_join(b->thr, NULL);
		b->thr_started = false;
	}
	for (i = 0; i < RC_NBATCH; i++)
		free(b->batches[i].buf);
	free(b->last.entries);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
}
