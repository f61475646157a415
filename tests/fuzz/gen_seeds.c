// SPDX-License-Identifier: GPL-2.0-only
/*
 * Write the fuzzer's seed corpus into a directory: small valid captures
 * of every built-in event, in the current format, and a truncated one.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "events.h"
#include "ringcap.h"

static void hdr(struct rc_ev_hdr *h, uint16_t type, uint16_t size, uint64_t ts)
{
	memset(h, 0, sizeof(*h));
	h->ts = ts;
	h->pid = 100 + ts % 3;
	h->tid = h->pid + 1;
	h->type = type;
	h->size = size;
	h->cpu = ts % 2;
	snprintf(h->comm, sizeof(h->comm), "seed%u", (unsigned)(ts % 5));
}

static int add_all(struct rc_writer *w, unsigned int n)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		uint64_t ts = 1000 + 100 * i;
		struct rc_ev_syscall sc;
		struct rc_ev_switch sw;
		struct rc_ev_wakeup wk;
		struct rc_ev_fork fk;
		struct rc_ev_exec ex;
		struct rc_ev_exit et;

		hdr(&sc.hdr, RC_EV_SYSCALL, sizeof(sc), ts);
		sc.nr = i % 3 ? 39 : 2;
		sc.__pad = 0;
		sc.ret = i % 4 ? (int64_t)i : -2;
		sc.duration = i * 7;
		memset(sc.args, i, sizeof(sc.args));
		hdr(&sw.hdr, RC_EV_SCHED_SWITCH, sizeof(sw), ts + 10);
		sw = (struct rc_ev_switch){ .hdr = sw.hdr,
					    .prev_state = i % 2 ? 0x1 : 0x100,
					    .prev_prio = 120,
					    .next_pid = 7,
					    .next_tid = 7,
					    .next_prio = 120,
					    .next_comm = "next" };
		hdr(&wk.hdr, RC_EV_SCHED_WAKEUP, sizeof(wk), ts + 20);
		wk = (struct rc_ev_wakeup){ .hdr = wk.hdr,
					    .pid = 7,
					    .tid = 8,
					    .prio = 100,
					    .target_cpu = 1,
					    .wakee_comm = "wakee" };
		hdr(&fk.hdr, RC_EV_SCHED_FORK, sizeof(fk), ts + 30);
		fk = (struct rc_ev_fork){
			.hdr = fk.hdr, .child_pid = 9, .child_tid = 9, .child_comm = "child"
		};
		hdr(&ex.hdr, RC_EV_SCHED_EXEC, sizeof(ex), ts + 40);
		memset(ex.filename, 0, sizeof(ex.filename));
		strcpy(ex.filename, "/usr/bin/seed");
		ex.old_tid = 9;
		ex.__pad = 0;
		hdr(&et.hdr, RC_EV_SCHED_EXIT, sizeof(et), ts + 50);
		et.exit_code = 7 << 8;
		et.group_dead = 1;
		err = rc_writer__add(w, &sc, sizeof(sc)) ?: rc_writer__add(w, &sw, sizeof(sw)) ?:
		      rc_writer__add(w, &wk, sizeof(wk)) ?: rc_writer__add(w, &fk, sizeof(fk)) ?:
		      rc_writer__add(w, &ex, sizeof(ex)) ?: rc_writer__add(w, &et, sizeof(et));
	}
	return err;
}

enum seed_codec { SHUFFLED, PLAIN, STORED };

static int write_seed(const char *dir, const char *name, unsigned int n, size_t chunk,
		      bool truncate, enum seed_codec codec)
{
	struct rc_stat_entry se[2] = {
		{ .cpu = 0, .type = RC_EV_SYSCALL, .made = n, .captured = n, .filtered = 3 },
		{ .cpu = 0xffffffffu, .type = RC_EV_SCHED_WAKEUP, .missed = 1 },
	};
	struct rc_stats st = {
		.ts = 5000, .ring_size = 4096, .ring_hwm = 512, .nentries = 2, .entries = se
	};
	struct rc_writer_opts wo = { .sz = sizeof(wo),
				     .chunk_size = chunk,
				     .reorder_ns = 1,
				     .no_shuffle = codec == PLAIN,
				     .no_compress = codec == STORED };
	struct rc_meta m = { .clock_id = 7,
			     .ncpus = 2,
			     .page_size = 4096,
			     .recorder_pid = 1,
			     .transport = RC_TRANSPORT_RINGBUF,
			     .start_ts = 900,
			     .ringbuf_size = 4096,
			     .host = "seed",
			     .kernel = "6.18",
			     .arch = "x86_64",
			     .cmdline = "ringcap record" };
	struct rc_writer *w;
	char path[4096];
	int fd, err;
	off_t len;

	m.schema = rc_builtin_schema();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	w = rc_writer__new(fd, &m, &wo);
	if (!w) {
		close(fd);
		return -errno;
	}
	err = add_all(w, n) ?: rc_writer__add_stats(w, &st) ?: rc_writer__finish(w);
	rc_writer__free(w);
	len = lseek(fd, 0, SEEK_END);
	if (!err && truncate && ftruncate(fd, len * 2 / 3))
		err = -errno;
	close(fd);
	return err;
}

int main(int argc, char **argv)
{
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	err = write_seed(argv[1], "one.rcap", 1, 4096, false, SHUFFLED) ?:
	      write_seed(argv[1], "chunks.rcap", 8, 1024, false, SHUFFLED) ?:
	      write_seed(argv[1], "runs.rcap", 40, 4096, false, SHUFFLED) ?:
	      write_seed(argv[1], "plain.rcap", 8, 1024, false, PLAIN) ?:
	      write_seed(argv[1], "stored.rcap", 8, 1024, false, STORED) ?:
	      write_seed(argv[1], "truncated.rcap", 8, 1024, true, SHUFFLED) ?:
	      write_seed(argv[1], "empty.rcap", 0, 4096, false, SHUFFLED);
	if (err)
		fprintf(stderr, "gen_seeds: %s\n", strerror(-err));
	return err ? 1 : 0;
}
