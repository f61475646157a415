// SPDX-License-Identifier: GPL-2.0-only
/*
 * The writer's cost an event, away from the ring: the records of a capture
 * (a storm's, say) fed again to a writer in 1 MiB batches, as the writer
 * thread gets them from the drain, and written to a file. For instruction
 * counts that do not move with the machine's load:
 *
 *   valgrind --tool=callgrind --toggle-collect=feed rc_wbench IN OUT [LEVEL [CHUNK]]
 *
 * Prints the records, the bytes written, bytes an event and the CPU time
 * an event (the writer's, this thread's: noisy on a loaded machine).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "format/reader.h"
#include "format/writer_int.h"

#define BATCH (1u << 20)

static void released(void *ctx)
{
	(void)ctx;
}

/*
 * The records, in @n batches of whole records; the writer's work. Held in
 * place, as the writer thread hands the drain's batches over.
 */
static int __attribute__((noinline))
feed(struct rc_writer *w, unsigned char **b, size_t *len, size_t n)
{
	size_t i;
	bool held;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = rc_writer__add_held(w, b[i], len[i], released, NULL, &held);
	return err ?: rc_writer__finish(w);
}

int main(int argc, char **argv)
{
	struct rc_writer_opts o = { .sz = sizeof(o) };
	const struct rc_rec_hdr *h;
	unsigned char **b = NULL;
	size_t *len = NULL, n = 0, nrec = 0;
	struct rc_reader *r;
	struct rc_writer *w;
	struct timespec t0, t1;
	int fd, err;

	if (argc < 3) {
		fprintf(stderr, "usage: rc_wbench IN OUT [LEVEL [CHUNK]]\n");
		return EXIT_FAILURE;
	}
	if (argc > 3)
		o.compress_level = atoi(argv[3]);
	if (argc > 4)
		o.chunk_size = strtoul(argv[4], NULL, 0);
	r = rc_reader__open(argv[1]);
	if (!r) {
		fprintf(stderr, "failed to open '%s': %s\n", argv[1], rc_reader__open_error());
		return EXIT_FAILURE;
	}
	while ((err = rc_reader__next(r, &h)) > 0) {
		if (!n || len[n - 1] + h->size > BATCH) {
			unsigned char **nb = realloc(b, (n + 1) * sizeof(*b));
			size_t *nl = nb ? realloc(len, (n + 1) * sizeof(*len)) : NULL;

			if (nb)
				b = nb;
			if (nl)
				len = nl;
			if (!nb || !nl || !(b[n] = malloc(BATCH)))
				return EXIT_FAILURE; /* out of memory: a bench, its memory goes with
							it */
			len[n++] = 0;
		}
		memcpy(b[n - 1] + len[n - 1], h, h->size);
		len[n - 1] += h->size;
		nrec++;
	}
	if (err < 0) {
		fprintf(stderr, "failed to read '%s': %s\n", argv[1], strerror(-err));
		return EXIT_FAILURE;
	}
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return EXIT_FAILURE;
	w = rc_writer__new(fd, rc_reader__meta(r), &o);
	if (!w) {
		fprintf(stderr, "failed to start a writer: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	err = feed(w, b, len, n);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	if (err) {
		fprintf(stderr, "failed to write: %s\n", strerror(-err));
		return EXIT_FAILURE;
	}
	printf("%zu records, %llu bytes, %.3f bytes an event, %.1f ns of CPU an event\n", nrec,
	       (unsigned long long)rc_writer__bytes(w), (double)rc_writer__bytes(w) / nrec,
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / nrec);
	rc_writer__free(w);
	rc_reader__free(r);
	close(fd);
	while (n)
		free(b[--n]);
	free(b);
	free(len);
	return EXIT_SUCCESS;
}
