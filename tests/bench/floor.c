// SPDX-License-Identifier: GPL-2.0-only
/*
 * rc_floor: a recorder made of one of the reference programs of
 * floor.bpf.c, for the benchmark's lead table.
 *
 *   rc_floor floor|ref|pair [-e SYSTEM:NAME | -b | -n NR] [-s SIZE] [-r BYTES]
 *            [-w BYTES] [-o FILE] [-c FILE] -- CMD [ARG...]
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
 * Then runs CMD and, until it exits, drains the ring as a bare libbpf
 * consumer does: ring_buffer__poll() and an fwrite() a record to -o
 * (default: nowhere). At the end -c gets one line:
 *
 *   events=N dropped=D
 *
 * floor: N runs of the program; ref: N records read, D the ring refused.
 * The exit status is CMD's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.h"
#include "floor.skel.h"

struct sink {
	FILE *out;
	unsigned long long n;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct sink *s = ctx;

	s->n++;
	if (s->out && fwrite(data, size, 1, s->out) != 1)
		return -EIO;
	return 0;
}

static struct bpf_program *pick(struct floor_bpf *skel, int ref, int btf, int size, long sc_nr)
{
	if (ref == 2)
		return skel->progs.handle_pair_exit;
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

static int usage(void)
{
	fprintf(stderr, "usage: rc_floor floor|ref|pair [-e SYSTEM:NAME | -b | -n NR] [-s SIZE] [-r BYTES] "
			"[-w BYTES] [-o FILE] [-c FILE] -- CMD [ARG...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *tp = "syscalls:sys_enter_getppid", *out_path = NULL, *counts_path = NULL;
	unsigned long long ring = 16ull << 20, wakeup = ~0ull, hits, dropped;
	long sc_nr = -1;
	int opt, ref, btf = 0, size = 56, status = 0, err = 0;
	struct ring_buffer *rb = NULL;
	struct bpf_program *prog, *p;
	struct floor_bpf *skel = NULL;
	struct bpf_link *link = NULL, *enter_link = NULL;
	struct sink sink = {};
	char sys[64], *name;
	pid_t child;

	if (argc < 2)
		return usage();
	ref = !strcmp(argv[1], "ref") ? 1 : !strcmp(argv[1], "pair") ? 2 : 0;
	if (!ref && strcmp(argv[1], "floor"))
		return usage();
	optind = 2;
	while ((opt = getopt(argc, argv, "+e:bn:s:r:w:o:c:")) != -1) {
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
	if (ref == 2 || sc_nr >= 0)
		btf = 1;

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
		bpf_program__set_autoload(p, p == prog || (ref == 2 && p == skel->progs.handle_pair_enter));
	skel->rodata->wakeup_bytes = wakeup;
	skel->rodata->sc_nr = sc_nr;
	err = bpf_map__set_max_entries(skel->maps.events, ring);
	err = err ?: floor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "rc_floor: load: %s\n", strerror(-err));
		goto cleanup;
	}
	if (ref == 2 && !(enter_link = bpf_program__attach(skel->progs.handle_pair_enter))) {
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
	if (out_path && !(sink.out = fopen(out_path, "w"))) {
		err = -errno;
		perror(out_path);
		goto cleanup;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record, &sink, NULL);
	if (!rb) {
		err = -errno;
		perror("rc_floor: ring_buffer__new");
		goto cleanup;
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
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR)
			break;
		err = 0;
	}
	if (!err) {
		err = ring_buffer__consume(rb);
		err = err < 0 ? err : 0;
	}
	sum_counts(skel, &hits, &dropped);
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
cleanup:
	ring_buffer__free(rb);
	bpf_link__destroy(link);
	bpf_link__destroy(enter_link);
	floor_bpf__destroy(skel);
	if (sink.out)
		fclose(sink.out);
	if (err)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
