/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A capture's chunks decompressed and decoded on several threads, their
 * results taken in file order on the calling thread (lib/output/pipeline.c).
 */
#ifndef RINGCAP_OUTPUT_PIPELINE_H
#define RINGCAP_OUTPUT_PIPELINE_H

#include <stddef.h>
#include "format/reader.h"

/**
 * struct rc_pipeline_ops - what the threads do with each chunk
 * @worker_new: a worker's state, made on the calling thread; NULL: ENOMEM
 * @worker_free: frees it, on the calling thread
 * @slot_new: the state of a chunk in flight (its output), reused from
 *	      chunk to chunk; NULL: ENOMEM
 * @slot_free: frees it
 * @work: on a worker: the records of a chunk (@raw, @len bytes, checked),
 *	  into @slot; 0 or -errno, which stops the run
 * @emit: on the calling thread, each chunk's @slot in file order; 0 or
 *	  -errno, which stops the run
 * @flush: on the calling thread, before the input is read again when it
 *	   would wait (a live pipe); may be NULL
 */
struct rc_pipeline_ops {
	void *(*worker_new)(void *ctx);
	void (*worker_free)(void *w);
	void *(*slot_new)(void *ctx);
	void (*slot_free)(void *slot);
	int (*work)(void *w, void *slot, const unsigned char *raw, size_t len);
	int (*emit)(void *ctx, void *slot);
	int (*flush)(void *ctx);
};

/**
 * rc_pipeline__run() - read a capture, its chunks decoded on @nworkers threads
 * @r: the reader, before its first record
 * @nworkers: worker threads, at least 1
 * @ops: what they do
 * @ctx: @ops' context
 *
 * The calling thread reads the blocks (rc_reader__next_chunk()) and hands
 * each chunk, compressed, to the workers, which decompress it, check it and
 * call @work; it then takes the chunks in file order: settles each with
 * the reader and calls @emit. At most 2 * @nworkers + 2 chunks are in
 * flight: the memory is bounded by that many chunks' data, records and
 * slots. A chunk that does not check is passed over, as rc_reader__next()
 * does, and never reaches @work.
 *
 * Return: 0 at the end of the file; or -errno: the reader's (after the
 * chunks before its failure are emitted), @work's or @emit's, or -ENOMEM,
 * or a failure to start a thread.
 */
int rc_pipeline__run(struct rc_reader *r, unsigned int nworkers,
		     const struct rc_pipeline_ops *ops, void *ctx);

#endif /* RINGCAP_OUTPUT_PIPELINE_H */
