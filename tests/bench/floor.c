// SPDX-License-Identifier: GPL-2.0-only
/*
 * rc_floor: a recorder made of one of the reference programs of
 * floor.bpf.c, for the benchmark's lead table.
 *
 *   rc_floor floor|ref|pair|pcpu|batch|perf [-e SYSTEM:NAME | -b | -n NR] [-s SIZE] [-r BYTES]
 *            [-w BYTES] [-W] [-D [-z LEVEL]] [-o FILE] [-c FILE] -- CMD [ARG...]
 *
 * floor attaches the program that only counts; ref the one that writes a
 * SIZE-byte record (24, 56 or 112; default 56) into a BPF ring buffer of
 * -r bytes (default 16 MiB), forcing a wake-up at -w bytes pending
 * (default a sixteenth of the ring; 0, the kernel's own policy), as
 * ringcap does. -e names the tracepoint (default
 * syscalls:sys_enter_getppid); -b attaches to the raw sys_exit tracepoint
 * (tp_btf) instead, every syscall of the system; -n to the raw sys_enter
 * tracepoint, for syscall number NR only (floor and ref, 56 bytes), as
 * ringcap records syscalls:sys_enter_NAME. pair attaches the two
 * programs that write ringcap's paired syscall record (112 bytes) for
 * every syscall of the system, -e, -b and -s aside.
 *
 * pcpu, batch and perf write ref's 56-byte records on the tracepoint of
 * -e, another way each: pcpu into a BPF ring buffer of this CPU's own
 * (an array of rings, one a CPU, each -r / CPUs bytes rounded down to a
 * power of two, waking at a sixteenth of it), batch staged per CPU and
 * published FLOOR_BATCH records at a time by one bpf_ringbuf_output()
 * into the one ring of -r bytes (records still staged at the end are
 * counted from the staging slots), perf into this CPU's perf ring of a
 * perf event array (bpf_perf_event_output(), -r / CPUs bytes a CPU,
 * woken at a sixteenth of that, as ringcap --transport perfbuf sets it).
 *
 * -W: ringcap's wake-up check (bpf/common.bpf.h, rc_wakeup_flags())
 * instead of asking the ring at every record: each CPU asks once every
 * sixteenth of the mark it wrote, and only while the runner sleeps in its
 * poll (a word in a mapped array, set around the poll).
 *
 * Then runs CMD and, until it exits, drains the ring as a bare libbpf
 * consumer does: ring_buffer__poll() and an fwrite() a record to -o
 * (default: nowhere, the records discarded).
 *
 * -D (ref and pcpu): the least a reader can do instead, no callback: each
 * ring mapped and read in place (as lib/capture/bpf/ringbuf.c maps it,
 * the data area twice in a row), its committed records counted by their
 * headers and written to -o as they lie in the ring, headers and all, in
 * one write() a ring a wake-up (a stretch that wraps is contiguous in
 * the double mapping); the consumer position moved once a stretch. The
 * wait: epoll, edge-triggered, as ringcap waits. No time order across
 * the rings, no check of a record: a floor for the reader, not a
 * recorder. -z LEVEL: each stretch compressed first, one zstd frame at
 * that level (1 is ringcap's default), and the frame written: a floor for
 * a reader that keeps the events compressed, as ringcap does (without
 * its sort, checks, counts and shuffle).
 *
 * At the end -c gets one line:
 *
 *   events=N dropped=D
 *
 * floor: N runs of the program; ref: N records read, D the ring refused.
 * The exit status is CMD's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <zstd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.h"
#include "floor.skel.h"

struct sink {
	FILE *out;
	unsigned long long n, lost;
	int batch; /* a record is a batch of 56-byte records */
};

enum { FLOOR, REF, PAIR, PCPU, BATCH, PERF };

/* perf: a sample (its size and the record after it), or the ring's lost count */
static enum bpf_perf_event_ret on_perf(void *ctx, int cpu, struct perf_event_header *h)
{
	struct sink *s = ctx;

	if (h->type == PERF_RECORD_SAMPLE) {
		__u32 size = *(__u32 *)(h + 1);

		s->n++;
		if (s->out && fwrite(h + 1, size + 4, 1, s->out) != 1)
			return LIBBPF_PERF_EVENT_ERROR;
	} else if (h->type == PERF_RECORD_LOST) {
		s->lost += ((__u64 *)(h + 1))[1];
	}
	return LIBBPF_PERF_EVENT_CONT;
}

/* The largest power of two not above @n, at least 16 pages */
static unsigned long long pow2_floor(unsigned long long n)
{
	unsigned long long p = 4096 * 16;

	while (p * 2 <= n)
		p *= 2;
	return p;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct sink *s = ctx;

	s->n += s->batch ? size / 56 : 1;
	if (s->out && fwrite(data, size, 1, s->out) != 1)
		return -EIO;
	return 0;
}

static struct bpf_program *pick(struct floor_bpf *skel, int ref, int btf, int size, long sc_nr)
{
	if (ref == PAIR)
		return skel->progs.handle_pair_exit;
	if (ref == PCPU)
		return sc_nr >= 0 ? skel->progs.handle_pcpu_sc : skel->progs.handle_pcpu_56;
	if (ref == BATCH)
		return skel->progs.handle_batch_56;
	if (ref == PERF)
		return skel->progs.handle_perf_56;
	if (sc_nr >= 0)
		return ref ? skel->progs.handle_ref_sc : skel->progs.handle_floor_sc;
	if (!ref)
		return btf ? skel->progs.handle_floor_btf : skel->progs.handle_floor;
	switch (size) {
	case 24:
		return btf ? skel->progs.handle_ref_btf_24 : skel->progs.handle_ref_24;
	case 56:
		return btf ? skel->progs.handle_ref_btf_56 : skel->progs.handle_ref_56;
	case 112:
		return btf ? skel->progs.handle_ref_btf_112 : skel->progs.handle_ref_112;
	}
	return NULL;
}

static void sum_counts(struct floor_bpf *skel, unsigned long long *hits,
		       unsigned long long *dropped)
{
	int i, ncpus = libbpf_num_possible_cpus();
	struct floor_counts *c;
	__u32 zero = 0;

	*hits = *dropped = 0;
	if (ncpus <= 0)
		return;
	c = calloc(ncpus, sizeof(*c));
	if (!c || bpf_map_lookup_elem(bpf_map__fd(skel->maps.counts), &zero, c) < 0) {
		free(c);
		return;
	}
	for (i = 0; i < ncpus; i++) {
		*hits += c[i].hits;
		*dropped += c[i].dropped;
	}
	free(c);
}

/* batch: the records still staged at the end, on every CPU */
static unsigned long long staged(struct floor_bpf *skel)
{
	int i, ncpus = libbpf_num_possible_cpus();
	unsigned long long n = 0;
	struct floor_batch *b;
	__u32 zero = 0;

	if (ncpus <= 0 || !(b = calloc(ncpus, sizeof(*b))))
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.batches), &zero, b) == 0)
		for (i = 0; i < ncpus; i++)
			n += b[i].n;
	free(b);
	return n;
}

/* -D: a ring read in place (lib/capture/bpf/ringbuf.c's layout) */
struct dring {
	unsigned long *cons;	   /* the consumer page, ours to write */
	const unsigned long *prod; /* the producer page, then the data twice */
	const unsigned char *data;
};

struct direct {
	struct dring *r;
	int n, epfd, out;
	size_t page, size;
	unsigned long long recs;
	ZSTD_CCtx *zc; /* -z: the stretches compressed into zbuf first */
	void *zbuf;
	size_t zcap;
};

static int write_all(int fd, const void *buf, size_t left)
{
	const unsigned char *p = buf;

	while (left) {
		ssize_t w = write(fd, p, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		p += w;
		left -= w;
	}
	return 0;
}

static int direct_add(struct direct *d, int fd, size_t size)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	struct dring *r;
	void *p;

	r = realloc(d->r, (d->n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	d->r = r;
	r += d->n;
	d->size = size;
	p = mmap(NULL, d->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->cons = p;
	p = mmap(NULL, d->page + 2 * size, PROT_READ, MAP_SHARED, fd, d->page);
	if (p == MAP_FAILED) {
		munmap(r->cons, d->page);
		return -errno;
	}
	r->prod = p;
	r->data = (const unsigned char *)p + d->page;
	d->n++;
	return epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* Every ring's committed records: counted, written as they lie, given back. */
static int direct_drain(struct direct *d)
{
	int i;

	for (i = 0; i < d->n; i++) {
		struct dring *r = &d->r[i];
		unsigned long cons = __atomic_load_n(r->cons, __ATOMIC_ACQUIRE);
		unsigned long prod = __atomic_load_n(r->prod, __ATOMIC_ACQUIRE);
		unsigned long start = cons;

		while (cons < prod) {
			__u32 len = __atomic_load_n(
			    (const __u32 *)(r->data + (cons & (d->size - 1))), __ATOMIC_ACQUIRE);

			if (len & BPF_RINGBUF_BUSY_BIT)
				break;
			d->recs += !(len & BPF_RINGBUF_DISCARD_BIT);
			cons += ((len & ~BPF_RINGBUF_DISCARD_BIT) + BPF_RINGBUF_HDR_SZ + 7) & ~7u;
		}
		if (cons == start)
			continue;
		if (d->out >= 0) {
			const unsigned char *p = r->data + (start & (d->size - 1));
			size_t len = cons - start;

			if (d->zc) {
				len = ZSTD_compress2(d->zc, d->zbuf, d->zcap, p, len);
				if (ZSTD_isError(len))
					return -EIO;
				p = d->zbuf;
			}
			if (write_all(d->out, p, len))
				return -EIO;
		}
		__atomic_store_n(r->cons, cons, __ATOMIC_RELEASE);
	}
	return 0;
}

static void direct_free(struct direct *d)
{
	int i;

	for (i = 0; i < d->n; i++) {
		munmap(d->r[i].cons, d->page);
		munmap((void *)d->r[i].prod, d->page + 2 * d->size);
	}
	free(d->r);
	if (d->epfd >= 0)
		close(d->epfd);
	ZSTD_freeCCtx(d->zc);
	free(d->zbuf);
}

static int usage(void)
{
	fprintf(stderr, "usage: rc_floor floor|ref|pair|pcpu|batch|perf [-e SYSTEM:NAME | -b | -n NR] [-s SIZE] [-r BYTES] "
			"[-w BYTES] [-W] [-D [-z LEVEL]] [-o FILE] [-c FILE] -- CMD [ARG...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *tp = "syscalls:sys_enter_getppid", *out_path = NULL, *counts_path = NULL;
	unsigned long long ring = 16ull << 20, wakeup = ~0ull, hits, dropped;
	long sc_nr = -1;
	int opt, ref, btf = 0, size = 56, status = 0, err = 0;
	struct ring_buffer *rb = NULL;
	struct perf_buffer *pb = NULL;
	unsigned long long per_cpu;
	int i, ncpus, lazy = 0, direct = 0, zlevel = 0;
	struct direct dr = { .epfd = -1, .out = -1, .page = 4096 };
	volatile __u64 *asleep = NULL;
	struct bpf_program *prog, *p;
	struct floor_bpf *skel = NULL;
	struct bpf_link *link = NULL, *enter_link = NULL;
	struct sink sink = {};
	char sys[64], *name;
	pid_t child;

	if (argc < 2)
		return usage();
	static const char *const modes[] = {"floor", "ref", "pair", "pcpu", "batch", "perf"};

	for (ref = 0; ref < 6 && strcmp(argv[1], modes[ref]); ref++)
		;
	if (ref == 6)
		return usage();
	optind = 2;
	while ((opt = getopt(argc, argv, "+e:bn:s:r:w:WDz:o:c:")) != -1) {
		switch (opt) {
		case 'n':
			sc_nr = strtol(optarg, NULL, 0);
			break;
		case 'e':
			tp = optarg;
			break;
		case 'b':
			btf = 1;
			break;
		case 's':
			size = atoi(optarg);
			break;
		case 'r':
			ring = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			wakeup = strtoull(optarg, NULL, 0);
			break;
		case 'W':
			lazy = 1;
			break;
		case 'D':
			direct = 1;
			break;
		case 'z':
			zlevel = atoi(optarg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'c':
			counts_path = optarg;
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc || !(name = strchr(tp, ':')) || name - tp >= (long)sizeof(sys))
		return usage();
	snprintf(sys, sizeof(sys), "%.*s", (int)(name - tp), tp);
	name++;
	if (wakeup == ~0ull)
		wakeup = ring / 16;
	if (ref == PAIR || sc_nr >= 0)
		btf = 1; /* on the raw tracepoint: -n */
	else if (ref >= PCPU)
		btf = 0; /* on the tracepoint of -e */

	skel = floor_bpf__open();
	if (!skel) {
		perror("rc_floor: open");
		return 2;
	}
	prog = pick(skel, ref, btf, size, sc_nr);
	if (!prog) {
		fprintf(stderr, "rc_floor: -s %d: 24, 56 or 112\n", size);
		err = -EINVAL;
		goto cleanup;
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == prog || (ref == PAIR && p == skel->progs.handle_pair_enter));
	skel->rodata->wakeup_bytes = wakeup;
	skel->rodata->sc_nr = sc_nr;
	skel->rodata->lazy_wakeup = lazy;
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		err = -EINVAL;
		goto cleanup;
	}
	per_cpu = pow2_floor(ring / ncpus);
	if (ref == PCPU || ref == PERF)
		skel->rodata->wakeup_bytes = wakeup ? per_cpu / 16 : 0;
	err = bpf_map__set_max_entries(skel->maps.events, ring);
	err = err ?: bpf_map__set_max_entries(skel->maps.rings, ncpus);
	err = err ?: floor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "rc_floor: load: %s\n", strerror(-err));
		goto cleanup;
	}
	if (ref == PAIR && !(enter_link = bpf_program__attach(skel->progs.handle_pair_enter))) {
		err = -errno;
		fprintf(stderr, "rc_floor: attach to sys_enter: %s\n", strerror(errno));
		goto cleanup;
	}
	link = btf ? bpf_program__attach(prog) : bpf_program__attach_tracepoint(prog, sys, name);
	if (!link) {
		err = -errno;
		fprintf(stderr, "rc_floor: attach to %s: %s\n", btf ? "sys_exit" : tp,
			strerror(errno));
		goto cleanup;
	}
	asleep = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		      bpf_map__fd(skel->maps.reader), 0);
	if (asleep == MAP_FAILED) {
		err = -errno;
		perror("rc_floor: mmap of the reader map");
		asleep = NULL;
		goto cleanup;
	}
	if (direct && ref != REF && ref != PCPU) {
		fprintf(stderr, "rc_floor: -D: ref or pcpu\n");
		err = -EINVAL;
		goto cleanup;
	}
	if (direct) {
		dr.page = sysconf(_SC_PAGESIZE);
		dr.epfd = epoll_create1(EPOLL_CLOEXEC);
		if (dr.epfd < 0 ||
		    (out_path &&
		     (dr.out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)) {
			err = -errno;
			perror("rc_floor: -D");
			goto cleanup;
		}
	} else if (out_path && !(sink.out = fopen(out_path, "w"))) {
		err = -errno;
		perror(out_path);
		goto cleanup;
	}
	sink.batch = ref == BATCH;
	if (ref == PERF) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_BPF_OUTPUT,
			.sample_type = PERF_SAMPLE_RAW,
			.watermark = 1,
			.wakeup_watermark = per_cpu / 16,
		};

		pb = perf_buffer__new_raw(bpf_map__fd(skel->maps.pevents), per_cpu / 4096, &attr,
					  on_perf, &sink, NULL);
		if (!pb) {
			err = -errno;
			perror("rc_floor: perf_buffer__new_raw");
			goto cleanup;
		}
	} else if (ref == PCPU) {
		for (i = 0; i < ncpus && !err; i++) {
			int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, per_cpu, NULL);
			__u32 key = i;

			if (fd < 0) {
				err = -errno;
				perror("rc_floor: a CPU's ring");
				break;
			}
			if (bpf_map_update_elem(bpf_map__fd(skel->maps.rings), &key, &fd, 0) < 0) {
				err = -errno;
				perror("rc_floor: a ring into the array of rings");
			} else if (direct) {
				err = direct_add(&dr, fd, per_cpu);
			} else if (!rb) {
				rb = ring_buffer__new(fd, on_record, &sink, NULL);
				err = rb ? 0 : -errno;
			} else {
				err = ring_buffer__add(rb, fd, on_record, &sink);
			}
			close(fd); /* the array of rings and the reader hold it */
		}
		if (err)
			goto cleanup;
	} else if (direct) {
		err = direct_add(&dr, bpf_map__fd(skel->maps.events), ring);
		if (err)
			goto cleanup;
	} else {
		rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record, &sink, NULL);
	}
	if (!rb && !pb && !direct) {
		err = -errno;
		perror("rc_floor: ring_buffer__new");
		goto cleanup;
	}
	if (zlevel && !direct) {
		fprintf(stderr, "rc_floor: -z: with -D\n");
		err = -EINVAL;
		goto cleanup;
	}
	if (zlevel) {
		dr.zcap = ZSTD_compressBound(dr.size);
		dr.zbuf = malloc(dr.zcap);
		dr.zc = ZSTD_createCCtx();
		if (!dr.zbuf || !dr.zc ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(dr.zc, ZSTD_c_compressionLevel, zlevel))) {
			err = -ENOMEM;
			goto cleanup;
		}
	}
	child = fork();
	if (child < 0) {
		err = -errno;
		goto cleanup;
	}
	if (child == 0) {
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(child, &status, WNOHANG);

		if (w == child)
			break;
		if (w < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (direct) {
			struct epoll_event ev[8];

			__atomic_store_n(asleep, 1, __ATOMIC_SEQ_CST);
			err = epoll_wait(dr.epfd, ev, 8, 100) < 0 && errno != EINTR ? -errno : 0;
			*asleep = 0;
			err = err ?: direct_drain(&dr);
			if (err)
				break;
			continue;
		}
		*asleep = 1;
		err = pb ? perf_buffer__poll(pb, 100) : ring_buffer__poll(rb, 100);
		*asleep = 0;
		if (err < 0 && err != -EINTR)
			break;
		err = 0;
	}
	if (!err && direct) {
		err = direct_drain(&dr);
		sink.n = dr.recs;
	} else if (!err) {
		err = pb ? perf_buffer__consume(pb) : ring_buffer__consume(rb);
		err = err < 0 ? err : 0;
	}
	sum_counts(skel, &hits, &dropped);
	dropped += sink.lost;
	if (ref == BATCH)
		sink.n += staged(skel);
	if (counts_path) {
		FILE *f = fopen(counts_path, "w");

		if (f)
			fprintf(f, "events=%llu dropped=%llu\n", ref ? sink.n : hits, dropped);
		if (!f || ferror(f) | fclose(f))
			err = err ?: -EIO;
	}
	if (sink.out && fclose(sink.out))
		err = err ?: -errno;
	sink.out = NULL;
	if (dr.out >= 0 && close(dr.out))
		err = err ?: -errno;
	dr.out = -1;
cleanup:
	direct_free(&dr);
	if (dr.out >= 0)
		close(dr.out);
	ring_buffer__free(rb);
	perf_buffer__free(pb);
	if (asleep)
		munmap((void *)asleep, 4096);
	bpf_link__destroy(link);
	bpf_link__destroy(enter_link);
	floor_bpf__destroy(skel);
	if (sink.out)
		fclose(sink.out);
	if (err)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
