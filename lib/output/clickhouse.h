/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Captures into ClickHouse (lib/output/clickhouse.c, clickhouse_http.c):
 * the tables' DDL, and each file's records, ledger and stacks loaded over
 * ClickHouse's HTTP interface in batches of Native blocks (one POST of
 * "INSERT INTO t (cols) FORMAT Native" a table and 16 MiB, never a row
 * at a time). Tested with ClickHouse 18.16, Debian 12's: no DateTime64,
 * Map, JSON, codecs or TTL there, so times are UInt64 ns beside a DateTime.
 *
 * Loads are made exact by a load id on every row: a file's rows are
 * inserted under a fresh random id, and its manifest row, written last,
 * names the id once every row is in. The views users query (syscalls,
 * sched, events, samples, stacks, ledger) keep the rows of one complete
 * load per file (of the file's manifest rows, one with the most records):
 * an export killed midway leaves rows no manifest names, which no view
 * shows; a file loaded whole already is skipped, and so are bytes loaded
 * already, cut or damaged (the manifest keeps the size and XXH3 of each
 * load's bytes); a file that has grown since (still being written) or
 * changed is loaded again, counted whole. 18.16 deduplicates inserts only in
 * replicated tables, which need ZooKeeper; ReplacingMergeTree only when
 * parts merge, so a count() would see twice a file loaded twice.
 *
 * The transport is libcurl's; a build without it (make NO_CURL=1) keeps the
 * DDL and answers -EOPNOTSUPP to rc_clickhouse__new().
 */
#ifndef RINGCAP_OUTPUT_CLICKHOUSE_H
#define RINGCAP_OUTPUT_CLICKHOUSE_H

#include <stdbool.h>
#include <stdint.h>
#include "util/strbuf.h"

struct rc_clickhouse;

/**
 * struct rc_clickhouse_opts - where to export
 * @url: the server's HTTP interface, like http://127.0.0.1:8123
 * @database: the database, made when missing (NULL: "ringcap")
 * @cluster: a cluster of the servers' remote_servers: rows go through
 *           Distributed tables over each server's local ones (NULL: none)
 * @timeout_s: the most a request may take, in s (0: 60)
 * @batch: bytes of a table's rows sent in one insert (0: RC_CLICKHOUSE_BATCH)
 */
struct rc_clickhouse_opts {
	const char *url;
	const char *database;
	const char *cluster;
	long timeout_s;
	size_t batch;
};

/*
 * 16 MiB: a million syscalls (122 MB of rows) in 8 parts, 6 of which the
 * server merges at once; 32 MiB makes 4, none merged at once, a third less
 * of the server's CPU time with the merge, but the load takes longer (its
 * first insert starts later, its last runs longer after the file is
 * read): the man page's --batch-size
 */
#define RC_CLICKHOUSE_BATCH (16u << 20)

/*
 * inserts in flight at once, each from a thread and connection of its own,
 * while the next batches are encoded: the server works on them together
 */
#define RC_CLICKHOUSE_SENDERS 2

/**
 * struct rc_clickhouse_load - what the export of one file did
 * @skipped: the file was loaded already (a manifest row of it neither cut
 *           short nor damaged, or one of its size and XXH3, is there):
 *           nothing sent
 * @load_id: the load's id, on each of its rows
 * @events: records loaded (event rows: every record the reader gave)
 * @syscalls: of those, rows of the syscalls table
 * @damaged: the reader passed over damage: what it read was loaded, the
 *           loss is in the ledger rows
 * @truncated: the file was cut short: likewise
 * @unreadable: the reader gave up partway (rc_reader__next()'s -EBADMSG or
 *              -EIO): what it read was loaded, the file is @damaged, the
 *              bytes from the block it stopped at counted as corrupt in the
 *              ledger (rc_reader__stopped_at());
 *              an error to say as report does, with a non-zero exit
 * @bytes: Native bytes sent
 */
struct rc_clickhouse_load {
	bool skipped;
	uint64_t load_id;
	uint64_t events, syscalls;
	bool damaged, truncated;
	bool unreadable;
	uint64_t bytes;
};

/**
 * rc_clickhouse__name_ok() - whether @name may name a database or cluster
 * @name: the name
 *
 * Names go into SQL as they are: only ^[A-Za-z_][A-Za-z0-9_]*$ (at most
 * 64 bytes) is taken, so that none can end a statement or start another.
 *
 * Return: true when @name is such a name.
 */
bool rc_clickhouse__name_ok(const char *name);

#define RC_CLICKHOUSE_NAME_RULE "letters, digits and '_', not starting with a digit"

/**
 * rc_clickhouse__schema() - the DDL of the tables and views, as text
 * @sb: appended to: statements, each ended by ";\n"
 * @database: the database (NULL: "ringcap")
 * @cluster: NULL: the tables; else the per-server DDL of a cluster: local
 *           tables (NAME_local), Distributed tables over them sharded by
 *           host (the rows' host_key, sipHash64(host)), and the views over
 *           those. ON CLUSTER needs ZooKeeper on
 *           18.16: apply it to each server
 *
 * Return: 0, -EINVAL when @database or @cluster is not a name
 * (rc_clickhouse__name_ok()), or -ENOMEM.
 */
int rc_clickhouse__schema(struct rc_strbuf *sb, const char *database, const char *cluster);

/**
 * rc_clickhouse__new() - a connection to a server, its tables made
 * @o: where; copied
 *
 * Makes the database, tables and views that are missing (the DDL of
 * rc_clickhouse__schema(), statement by statement; none when one question
 * to system.tables finds them all), and starts the threads posting the
 * inserts (RC_CLICKHOUSE_SENDERS; as many as start, none: the caller's
 * thread posts them). A connection is used by one thread at a time.
 *
 * Return: the connection, or NULL with errno set: EOPNOTSUPP when built
 * without libcurl; EIO when the server failed or refused, with
 * rc_clickhouse__last_error() naming the server and its answer.
 */
struct rc_clickhouse *rc_clickhouse__new(const struct rc_clickhouse_opts *o);

/**
 * rc_clickhouse__last_error() - the last failure of rc_clickhouse__new() in this thread
 *
 * Return: one line, "clickhouse at URL: ANSWER"; "" when none.
 */
const char *rc_clickhouse__last_error(void);

/**
 * rc_clickhouse__export() - load a capture file
 * @c: the connection
 * @path: the file
 * @res: filled with what was done
 *
 * Reads the file once: its records into the tables, in batches, and into
 * its ledger; its bytes hashed (XXH3_64bits) right behind the reader, from
 * the page cache; the manifest row last, with the size and hash of the
 * bytes loaded. Asks the manifest first: a file loaded whole, or these
 * bytes loaded (cut or damaged), is skipped; the bytes are hashed ahead of
 * the reader only when the manifest has a cut or damaged load of the file
 * of their size. A damaged or cut file loads what the reader reads, its
 * loss in the ledger rows.
 *
 * Return: 0 (loaded, or @res->skipped); -ENOEXEC when @path is not a
 * capture (rc_clickhouse__error() says why); -EIO when the server failed,
 * refused or timed out: what was sent of the file is under a load id no
 * manifest row names, seen by no view; -ENOMEM.
 */
int rc_clickhouse__export(struct rc_clickhouse *c, const char *path,
			  struct rc_clickhouse_load *res);

/**
 * rc_clickhouse__error() - why the last call on @c failed
 * @c: the connection
 *
 * Return: one line, without newline: "clickhouse at URL: ANSWER" for the
 * server's failures; "" when none.
 */
const char *rc_clickhouse__error(const struct rc_clickhouse *c);

/**
 * rc_clickhouse__free() - close a connection
 * @c: the connection, or NULL
 */
void rc_clickhouse__free(struct rc_clickhouse *c);

#endif /* RINGCAP_OUTPUT_CLICKHOUSE_H */
