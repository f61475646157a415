// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture engine: rc_session opens the backend that serves the
 * transport asked for (bpf/ or ftrace/, backend.h's @transports), and
 * runs what is the same for every backend around its operations:
 * targets, the header, the drain loop, the counters, stopping, and the
 * one free path.
 */
#include <stdlib.h>
#include "capture/backend.h"
#include "format/writer_int.h"
#include "util/util.h"

struct rc_session {
	const struct rc_backend_ops *ops;
	struct rc_capture *c; /* the backend's struct starts with it */
};

/* Every backend: the first that serves the transport asked for opens. */
static const struct rc_backend_ops *const backends[] = { &rc_bpf_ops, &rc_ftrace_ops };

struct rc_session *rc_session__open(const struct rc_record_opts *opts)
{
	struct rc_session *s = calloc(1, sizeof(*s));
	size_t i;
	int err = 0;

	if (!s)
		return rc_err_ptr(-ENOMEM);
	for (i = 0; i < ARRAY_SIZE(backends) && !s->ops; i++)
		if (opts->transport < 32 && backends[i]->transports & (1u << opts->transport))
			s->ops = backends[i];
	if (!s->ops) {
		free(s);
		return rc_err_ptr(-EINVAL);
	}
	s->c = s->ops->open(opts);
	if (!s->c) {
		err = -errno;
		free(s);
		return rc_err_ptr(err);
	}
	for (i = 0; !err && i < opts->npids; i++)
		err = s->ops->add_target(s->c, opts->pids[i]);
	if (err) {
		rc_session__free(s);
		return rc_err_ptr(err);
	}
	return s;
}

int rc_session__add_target(struct rc_session *s, pid_t pid)
{
	return s->ops->add_target(s->c, pid);
}

int rc_session__start(struct rc_session *s, int fd)
{
	struct rc_capture *c = s->c;
	int err;

	rc_capture__fill_meta(c);
	err = s->ops->start(c, fd);
	if (err)
		return err;
	c->started = true;
	c->last_stats = c->last_flush = rc_now_ns(CLOCK_MONOTONIC);
	c->flush_ns = rc_flush_ns(&c->opts);
	return 0;
}

int rc_session__drain(struct rc_session *s, int ms)
{
	return rc_capture__drain(s->c, s->ops, ms);
}

void rc_session__interrupt(struct rc_session *s)
{
	__atomic_store_n(&s->c->interrupted, 1, __ATOMIC_RELAXED);
}

long rc_session__snapshot(struct rc_session *s, enum rc_snapshot_why why)
{
	if (!s->ops->snapshot)
		return -EINVAL;
	return s->ops->snapshot(s->c, why);
}

int rc_session__stop(struct rc_session *s)
{
	struct rc_capture *c = s->c;

	if (c->stopped || !c->started)
		return -EINVAL;
	c->stopped = true;
	return s->ops->stop(c);
}

int rc_session__switch(struct rc_session *s)
{
	return rc_capture__switch(s->c, s->ops);
}

const char *rc_session__limit(const struct rc_session *s)
{
	return __atomic_load_n(&s->c->limit, __ATOMIC_ACQUIRE) ? s->c->limit_msg : NULL;
}

int rc_session__limit_why(const struct rc_session *s)
{
	return __atomic_load_n(&s->c->limit, __ATOMIC_ACQUIRE);
}

uint32_t rc_session__files(const struct rc_session *s, const char **first, const char **last)
{
	const struct rc_rotor *r = &s->c->rot;

	*first = *last = NULL;
	if (!s->c->rotor_on)
		return s->c->has_file;
	*last = r->cur;
	*first = r->nfiles ? r->files[0].name : r->cur;
	return r->seq;
}

uint64_t rc_session__switched(const struct rc_session *s)
{
	return __atomic_load_n(&s->c->switched, __ATOMIC_RELAXED);
}

uint64_t rc_session__files_deleted(const struct rc_session *s)
{
	return s->c->rotor_on ? s->c->rot.deleted : 0;
}

enum rc_transport rc_session__transport(const struct rc_session *s)
{
	return s->c->transport;
}

const struct rc_stats *rc_session__sample(struct rc_session *s)
{
	int err = s->ops->sample(s->c);

	return err ? rc_err_ptr(err) : &s->c->last;
}

const struct rc_stats *rc_session__stats(const struct rc_session *s)
{
	return &s->c->last;
}

const struct rc_meta *rc_session__meta(const struct rc_session *s)
{
	return &s->c->meta;
}

int rc_session__cut(const struct rc_session *s)
{
	return s->c->w ? rc_writer__cut(s->c->w) : 0;
}

uint64_t rc_session__records_written(const struct rc_session *s)
{
	return __atomic_load_n(&s->c->nrec_written, __ATOMIC_RELAXED);
}

uint64_t rc_session__bytes(const struct rc_session *s, uint64_t *raw)
{
	if (raw)
		*raw = __atomic_load_n(&s->c->raw_written, __ATOMIC_RELAXED);
	return __atomic_load_n(&s->c->written, __ATOMIC_RELAXED);
}

void rc_session__free(struct rc_session *s)
{
	if (!s)
		return;
	s->ops->teardown(s->c);
	rc_capture__release(s->c);
	free(s->c);
	free(s);
}
