/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Batches between a drain and a writer thread: the drain fills 1 MiB
 * batches with records; full ones go, in order with counters, flushes and
 * the end, to a thread that sorts, compresses and writes them, so the
 * drain never waits on zstd or the disk. When every batch is in use the
 * drain waits for the writer (back-pressure): records are then dropped in
 * the kernel, where they are counted, never in user space.
 */
#ifndef RINGCAP_CAPTURE_BATCH_H
#define RINGCAP_CAPTURE_BATCH_H

#include <pthread.h>
#include "capture/backend.h"

/*
 * The writer holds a full batch where it is, in its reorder window, until
 * every record of it is written (rc_writer__add_held()), where it copied
 * each batch: at most RC_BATCH_HELD at once, so that the rest go round
 * between the drain and the writer thread whatever the writer holds.
 */
#define RC_NBATCH     16
#define RC_BATCH_HELD 10
#define RC_BATCH_SIZE (1u << 20)
#define RC_BATCH_QCAP (RC_NBATCH + 8)

struct rc_batch {
	unsigned char *buf;
	size_t len;
	struct rc_batcher *owner; /* its pool: the writer gives it back there */
};

enum rc_batch_item_kind {
	RC_ITEM_RECORDS,
	RC_ITEM_STATS,
	RC_ITEM_FLUSH,
	RC_ITEM_FINISH, /* the trailer: the file is complete */
	RC_ITEM_CUT,	/* every chunk written, no trailer: the file reads as cut short */
	RC_ITEM_SWITCH, /* after a STATS item: finish the file, go on in the next */
	RC_ITEM_AUX,	/* a stretch of an AUX stream: an AUX block (rc_batcher__aux()) */
};

struct rc_batch_item {
	enum rc_batch_item_kind kind;
	struct rc_batch *b;
	struct rc_stats st;
	struct rc_aux_chunk *aux; /* RC_ITEM_AUX: the writer thread frees it */
	uint64_t now;		  /* RC_ITEM_FLUSH: the capture clock when the drain asked */
};

/**
 * struct rc_batcher - the batch pool and the writer thread
 * @c: the capture: its writer, and the counters the thread updates
 * @cur: the batch the drain fills (NULL only while one is being taken)
 * @werr: the writer's first error (under @mu)
 * @wait_ns: how long the drain waited for a free batch (under @mu)
 * @last: the counters last written (the writer thread's): a switch's BASE
 * @held: batches the writer holds in place (under @mu), at most RC_BATCH_HELD
 */
struct rc_batcher {
	struct rc_capture *c;
	struct rc_batch *cur;
	pthread_t thr;
	bool thr_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rc_batch_item q[RC_BATCH_QCAP];
	unsigned int qhead, qlen;
	struct rc_batch batches[RC_NBATCH];
	struct rc_batch *free_b[RC_NBATCH];
	unsigned int nfree;
	int werr;
	uint64_t wait_ns;
	struct rc_stats last;
	unsigned int held;
};

/**
 * rc_batcher__init() - allocate the batches
 * @b: zeroed
 * @c: the capture they are for
 *
 * Return: 0, or -ENOMEM.
 */
int rc_batcher__init(struct rc_batcher *b, struct rc_capture *c);

/**
 * rc_batcher__start() - take the first batch, and start the writer thread when writing a file
 * @b: initialised
 *
 * Without a writer (counting only), one batch is reused and nothing is written.
 *
 * Return: 0, or -errno.
 */
int rc_batcher__start(struct rc_batcher *b);

/**
 * rc_batcher__submit() - hand the current batch to the writer, and take a free one
 * @b: started
 *
 * Waits for a free batch when none is (back-pressure).
 *
 * Return: 0, or the writer's error.
 */
int rc_batcher__submit(struct rc_batcher *b);

/**
 * rc_batcher__put() - append a record to the current batch, submitting it when full
 * @b: started
 * @rec: the record
 * @len: its size
 *
 * Return: 0, or the writer's error.
 */
int rc_batcher__put(struct rc_batcher *b, const void *rec, size_t len);

/**
 * rc_batcher__stats() - submit, then send a copy of @st to the file
 * @b: started
 * @st: the counters
 *
 * Return: 0, or -errno.
 */
int rc_batcher__stats(struct rc_batcher *b, const struct rc_stats *st);

/**
 * rc_batcher__aux() - hand a stretch of an AUX stream to the writer
 * @b: started
 * @ac: one allocation, @ac->data within it (malloc()): the writer thread
 *	writes it as an AUX block and frees it; freed here without a file
 *
 * In order with what was handed before: the records read before it,
 * counters, a switch. Waits while the queue is full (back-pressure: the
 * kernel then stops the PMU when its AUX area fills, and says so).
 *
 * Return: 0, or the writer's error.
 */
int rc_batcher__aux(struct rc_batcher *b, struct rc_aux_chunk *ac);

/**
 * rc_batcher__flush() - submit, then have the writer write what is in order
 * @b: started
 *
 * Return: 0, or the writer's error.
 */
int rc_batcher__flush(struct rc_batcher *b);

/**
 * rc_batcher__switch() - have the writer end the file and go on in the next
 * @b: started with a writer, the counters just sent (rc_batcher__stats())
 *
 * The writer thread writes every record it holds to the file, ends it, and
 * starts the next with those counters as its BASE (rc_capture__next_file()).
 *
 * Return: 0, -EINVAL without a file, or the writer's error.
 */
int rc_batcher__switch(struct rc_batcher *b);

/**
 * rc_batcher__finish() - submit, then finish the file and join the thread
 * @b: started with a writer
 * @err: the caller's error so far (its stop failed): then what was read is
 *	still written, but the file gets no trailer, and reads as cut short
 *	rather than complete without its last counters
 *
 * Return: @err, else the writer's error, else 0.
 */
int rc_batcher__finish(struct rc_batcher *b, int err);

/**
 * rc_batcher__wait_ns() - how long the drain has waited for the writer
 * @b: the pool
 */
uint64_t rc_batcher__wait_ns(struct rc_batcher *b);

/**
 * rc_batcher__destroy() - abandon the capture (the trailer is not written) and free
 * @b: the pool; a running thread is stopped first
 */
void rc_batcher__destroy(struct rc_batcher *b);

#endif /* RINGCAP_CAPTURE_BATCH_H */
