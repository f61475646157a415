// SPDX-License-Identifier: GPL-2.0-only
/* A capture's AUX streams, per CPU (auxsum.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "decode/auxsum.h"
#include <linux/perf_event.h>
#include "util/util.h"

#define RUN_MAX (256u << 20) /* an Intel PT stretch summarized at most at a time */

static struct rc_aux_cpu_sum *cpu_sum(struct rc_aux_sum *s, uint32_t cpu)
{
	struct rc_aux_cpu_sum *c;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	c = realloc(s->cpus, (s->n + 1) * sizeof(*s->cpus));
	if (!c)
		return NULL;
	s->cpus = c;
	c = &s->cpus[s->n++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->dump_fd = -1;
	return c;
}

static void add_ipt(struct rc_aux_cpu_sum *c, const struct rc_ipt_summary *p)
{
	unsigned int t;

	if (p->ntsc) {
		uint64_t first = rc_aux_chunk__hw_to_ts(&c->clock, p->tsc_first);

		if (!c->ipt.ntsc) {
			c->ipt.tsc_first = p->tsc_first;
			c->tsc_first_ts = first;
		}
		c->ipt.tsc_last = p->tsc_last;
		c->tsc_last_ts = rc_aux_chunk__hw_to_ts(&c->clock, p->tsc_last);
	}
	c->ipt.bytes += p->bytes;
	c->ipt.packets += p->packets;
	for (t = 0; t < RC_IPT_NTYPES; t++)
		c->ipt.by_type[t] += p->by_type[t];
	c->ipt.psb += p->psb;
	c->ipt.ntsc += p->ntsc;
	c->ipt.errors += p->errors;
	c->ipt.skipped += p->skipped;
	c->ipt.truncated += p->truncated;
}

/* The stretch gathered so far, summarized and dropped. */
static void end_run(struct rc_aux_sum *s, struct rc_aux_cpu_sum *c)
{
	struct rc_ipt_summary p;
	int err;

	if (!c->run_len)
		return;
	err = rc_ipt__summarize(c->run, c->run_len, &p);
	if (err && !s->ipt_err)
		s->ipt_err = err;
	if (!err) {
		add_ipt(c, &p);
		c->ipt_runs++;
	}
	c->run_len = 0;
}

static int gather(struct rc_aux_sum *s, struct rc_aux_cpu_sum *c, const struct rc_aux_chunk *ac)
{
	size_t need;

	if (c->run_len + ac->size > RUN_MAX)
		end_run(s, c);
	need = c->run_len + ac->size;
	if (need > c->run_cap) {
		size_t cap = c->run_cap ? c->run_cap : (1u << 20);
		unsigned char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(c->run, cap);
		if (!p)
			return -ENOMEM;
		c->run = p;
		c->run_cap = cap;
	}
	memcpy(c->run + c->run_len, ac->data, ac->size);
	c->run_len += ac->size;
	return 0;
}

static int dump(struct rc_aux_sum *s, struct rc_aux_cpu_sum *c, const struct rc_aux_chunk *ac)
{
	const unsigned char *p = ac->data;
	uint64_t left = ac->size;
	char path[4096];

	if (c->dump_fd < 0) {
		snprintf(path, sizeof(path), "%s/aux-cpu%u.bin", s->dump_dir, c->cpu);
		c->dump_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (c->dump_fd < 0) {
			int err = -errno;

			pr_warn("cannot write '%s': %s\n", path, strerror(errno));
			return err;
		}
	}
	while (left) {
		ssize_t n = write(c->dump_fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			pr_warn("cannot write the AUX dump of CPU %u: %s\n", c->cpu,
				strerror(errno));
			return err;
		}
		p += n;
		left -= n;
	}
	return 0;
}

int rc_aux_sum__chunk(void *ctx, const struct rc_aux_chunk *ac)
{
	struct rc_aux_sum *s = ctx;
	struct rc_aux_cpu_sum *c = cpu_sum(s, ac->cpu);
	bool pt = !strcmp(ac->pmu, "intel_pt");
	int err;

	if (!c)
		return -ENOMEM;
	if (!c->blocks) {
		memcpy(c->pmu, ac->pmu, sizeof(c->pmu));
		c->first_pos = c->end_pos = ac->pos;
		c->first_ts = ac->ts;
	}
	if (ac->flags & RC_AUX_F_WRAPPED)
		c->wrapped++;
	if (ac->pos != c->end_pos || ac->lost || (ac->flags & RC_AUX_F_WRAPPED)) {
		/* a stretch is missing before this block: the stream restarts here */
		if (ac->pos != c->end_pos) {
			c->gaps++;
			c->gap_bytes += ac->pos > c->end_pos ? ac->pos - c->end_pos : 0;
		}
		if (pt)
			end_run(s, c);
	}
	c->blocks++;
	c->bytes += ac->size;
	c->lost += ac->lost;
	c->end_pos = ac->pos + ac->size;
	c->last_ts = ac->ts;
	c->clock = *ac;
	c->clock.data = NULL;
	err = pt ? gather(s, c, ac) : 0;
	if (!err && s->dump_dir)
		err = dump(s, c, ac);
	return err;
}

void rc_aux_sum__record(struct rc_aux_sum *s, const struct rc_rec_hdr *rec)
{
	struct rc_aux_cpu_sum *c;
	struct rc_rec_aux a;

	if (rec->type != RC_REC_AUX || rec->size < sizeof(a))
		return;
	memcpy(&a, rec, sizeof(a));
	c = cpu_sum(s, a.hdr.cpu);
	if (!c)
		return;
	switch (a.kind) {
	case PERF_RECORD_AUX:
		c->records++;
		c->rec_bytes += a.size;
		c->truncated += !!(a.flags & PERF_AUX_FLAG_TRUNCATED);
		c->partial += !!(a.flags & PERF_AUX_FLAG_PARTIAL);
		c->collision += !!(a.flags & PERF_AUX_FLAG_COLLISION);
		break;
	case PERF_RECORD_LOST:
		c->meta_lost += a.value;
		break;
	case PERF_RECORD_ITRACE_START:
		c->itrace++;
		break;
	}
}

int rc_aux_sum__finish(struct rc_aux_sum *s)
{
	int err = 0;
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct rc_aux_cpu_sum *c = &s->cpus[i];

		if (!strcmp(c->pmu, "intel_pt"))
			end_run(s, c);
		if (c->dump_fd >= 0 && close(c->dump_fd) < 0 && !err)
			err = -errno;
		c->dump_fd = -1;
	}
	return err;
}

void rc_aux_sum__free(struct rc_aux_sum *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->cpus[i].run);
		if (s->cpus[i].dump_fd >= 0)
			close(s->cpus[i].dump_fd);
	}
	free(s->cpus);
	memset(s, 0, sizeof(*s));
}
