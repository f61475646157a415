// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chunks decoded on several threads (pipeline.h). The calling thread reads
 * blocks and queues chunks, compressed, in a ring of jobs; workers take
 * them in order, decompress, check and decode each into its job; the
 * calling thread takes the jobs back in the same order. Nothing but the
 * ring (under the lock) is shared: a worker reads the reader's header,
 * which never changes, and writes only its own state and its job.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "output/pipeline.h"

enum job_state { JOB_FREE, JOB_QUEUED, JOB_DONE };

struct job {
	struct rc_packed_chunk pc;
	void *slot;
	enum job_state state;
	int err;	  /* decompression's, then @work's */
	const char *why;  /* the chunk's damage, when err is -EBADMSG */
	uint64_t last_ts; /* its latest record */
};

struct pipe {
	pthread_mutex_t lock;
	pthread_cond_t work_cv, done_cv;
	struct job *jobs;
	size_t njobs;
	uint64_t queued, taken, emitted; /* jobs, by sequence */
	bool stop;
	struct rc_reader *r;
	const struct rc_pipeline_ops *ops;
	void *ctx;
};

struct worker {
	struct pipe *p;
	pthread_t tid;
	bool started;
	struct rc_inflater *d;
	void *w;
};

static uint64_t latest(const unsigned char *raw, size_t len)
{
	const struct rc_rec_hdr *h;
	uint64_t last = 0;
	size_t pos;

	for (pos = 0; pos < len; pos += h->size) {
		h = (const void *)(raw + pos);
		last = h->ts > last ? h->ts : last;
	}
	return last;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct pipe *p = wk->p;

	for (;;) {
		const void *raw = NULL;
		struct job *job;
		size_t len = 0;
		int err;

		pthread_mutex_lock(&p->lock);
		while (!p->stop && p->taken == p->queued)
			pthread_cond_wait(&p->work_cv, &p->lock);
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		job = &p->jobs[p->taken++ % p->njobs];
		pthread_mutex_unlock(&p->lock);

		err = rc_inflater__run(wk->d, p->r, &job->pc, &raw, &len, &job->why);
		if (!err) {
			job->last_ts = latest(raw, len);
			err = p->ops->work(wk->w, job->slot, raw, len);
		}

		pthread_mutex_lock(&p->lock);
		job->err = err;
		job->state = JOB_DONE;
		pthread_cond_broadcast(&p->done_cv);
		pthread_mutex_unlock(&p->lock);
	}
}

/*
 * The oldest job, when done (or, with @wait, once done): settled with the
 * reader and emitted. 1 when taken, 0 when not done yet, or -errno.
 */
static int take_one(struct pipe *p, bool wait)
{
	struct job *job = &p->jobs[p->emitted % p->njobs];
	int err;

	pthread_mutex_lock(&p->lock);
	while (wait && job->state != JOB_DONE)
		pthread_cond_wait(&p->done_cv, &p->lock);
	if (job->state != JOB_DONE) {
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	pthread_mutex_unlock(&p->lock);
	if (job->err && job->err != -EBADMSG)
		return job->err;
	err = rc_reader__settle(p->r, &job->pc, !job->err, job->why, job->last_ts);
	if (!err && !job->err)
		err = p->ops->emit(p->ctx, job->slot);
	/* a job leaves the ring only here, on this thread: no lock for FREE */
	job->state = JOB_FREE;
	p->emitted++;
	return err ?: 1;
}

/* Every job queued, taken in order. */
static int drain(struct pipe *p)
{
	int err;

	while (p->emitted < p->queued)
		if ((err = take_one(p, true)) < 0)
			return err;
	return 0;
}

static int run(struct pipe *p)
{
	int err;

	for (;;) {
		struct job *job = &p->jobs[p->queued % p->njobs];

		if (p->queued - p->emitted == p->njobs) {
			err = take_one(p, true);
			if (err < 0)
				return err;
			continue;
		}
		/* on a live pipe, show what is decoded before waiting for more */
		if (!rc_reader__ready(p->r)) {
			err = drain(p);
			err = err ?: p->ops->flush ? p->ops->flush(p->ctx) : 0;
			if (err)
				return err;
		}
		err = rc_reader__next_chunk(p->r, &job->pc);
		if (err == RC_READER_SETTLE) {
			err = drain(p);
			if (err)
				return err;
			continue;
		}
		if (err <= 0) {
			/* what was read before a failure is emitted, then the failure */
			int e = drain(p);

			return err ?: e;
		}
		pthread_mutex_lock(&p->lock);
		job->state = JOB_QUEUED;
		p->queued++;
		pthread_cond_signal(&p->work_cv);
		pthread_mutex_unlock(&p->lock);
		while ((err = take_one(p, false)) > 0)
			;
		if (err < 0)
			return err;
	}
}

int rc_pipeline__run(struct rc_reader *r, unsigned int nworkers,
		     const struct rc_pipeline_ops *ops, void *ctx)
{
	struct pipe p = { .r = r, .ops = ops, .ctx = ctx };
	struct worker *wks;
	unsigned int i;
	int err = 0;

	if (!nworkers)
		nworkers = 1;
	p.njobs = 2 * (size_t)nworkers + 2;
	p.jobs = calloc(p.njobs, sizeof(*p.jobs));
	wks = calloc(nworkers, sizeof(*wks));
	if (!p.jobs || !wks) {
		free(p.jobs);
		free(wks);
		return -ENOMEM;
	}
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.work_cv, NULL);
	pthread_cond_init(&p.done_cv, NULL);
	for (i = 0; i < p.njobs && !err; i++)
		if (!(p.jobs[i].slot = ops->slot_new(ctx)))
			err = -ENOMEM;
	for (i = 0; i < nworkers && !err; i++) {
		wks[i].p = &p;
		wks[i].d = rc_inflater__new();
		wks[i].w = wks[i].d ? ops->worker_new(ctx) : NULL;
		if (!wks[i].w)
			err = -ENOMEM;
		else if ((err = -pthread_create(&wks[i].tid, NULL, worker_main, &wks[i])) == 0)
			wks[i].started = true;
	}
	err = err ?: run(&p);

	pthread_mutex_lock(&p.lock);
	p.stop = true;
	pthread_cond_broadcast(&p.work_cv);
	pthread_mutex_unlock(&p.lock);
	for (i = 0; i < nworkers; i++) {
		if (wks[i].started)
			pthread_join(wks[i].tid, NULL);
		if (wks[i].w)
			ops->worker_free(wks[i].w);
		rc_inflater__free(wks[i].d);
	}
	for (i = 0; i < p.njobs; i++) {
		if (p.jobs[i].slot)
			ops->slot_free(p.jobs[i].slot);
		rc_strbuf__free(&p.jobs[i].pc.data);
	}
	pthread_cond_destroy(&p.done_cv);
	pthread_cond_destroy(&p.work_cv);
	pthread_mutex_destroy(&p.lock);
	free(p.jobs);
	free(wks);
	return err;
}
