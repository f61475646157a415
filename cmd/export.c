// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringcap export: capture files into ClickHouse (lib/output/clickhouse.h),
 * or the tables' DDL printed.
 */
#include <argp.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd.h"
#include "ringcap.h"

enum {
	OPT_CLICKHOUSE = 256,
	OPT_DATABASE,
	OPT_SCHEMA,
	OPT_CLUSTER,
	OPT_TIMEOUT,
	OPT_BATCH,
};

#define MAX_INPUTS 4096

static struct env {
	const char *url, *database, *cluster;
	bool schema;
	long timeout;
	uint64_t batch;
	const char *inputs[MAX_INPUTS];
	size_t ninputs;
} env;

static const struct argp_option opts[] = {
	{ "clickhouse", OPT_CLICKHOUSE, "URL", 0,
	  "The server's HTTP interface, like http://127.0.0.1:8123" },
	{ "database", OPT_DATABASE, "DB", 0, "The database, made when missing (default: ringcap)" },
	{ "schema", OPT_SCHEMA, NULL, 0, "Print the tables' and views' DDL; load nothing" },
	{ "cluster", OPT_CLUSTER, "NAME", 0,
	  "A cluster of the servers' remote_servers: local tables and Distributed ones over "
	  "them, sharded by host; rows inserted through them with insert_distributed_sync=1" },
	{ "timeout", OPT_TIMEOUT, "SECONDS", 0, "The most a request may take (default: 60)" },
	{ "batch-size", OPT_BATCH, "SIZE", 0,
	  "Bytes of a table's rows sent in one insert, like 64K or 64M (default: 16M)" },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_CLICKHOUSE:
		env.url = arg;
		return 0;
	case OPT_DATABASE:
		if (!rc_clickhouse__name_ok(arg))
			argp_error(state, "--database: '%s' is not a name: %s", arg,
				   RC_CLICKHOUSE_NAME_RULE);
		env.database = arg;
		return 0;
	case OPT_SCHEMA:
		env.schema = true;
		return 0;
	case OPT_CLUSTER:
		if (!rc_clickhouse__name_ok(arg))
			argp_error(state, "--cluster: '%s' is not a name: %s", arg,
				   RC_CLICKHOUSE_NAME_RULE);
		env.cluster = arg;
		return 0;
	case OPT_TIMEOUT:
		if (!parse_long(arg, 1, 86400, &env.timeout))
			argp_error(state, "--timeout: '%s' is not a number of seconds (1 to 86400)",
				   arg);
		return 0;
	case OPT_BATCH:
		if (parse_size(arg, &env.batch) || env.batch < 4096 || env.batch > (1ull << 30))
			argp_error(state, "--batch-size: '%s' is not a size from 4K to 1G", arg);
		return 0;
	case ARGP_KEY_ARG:
		if (env.ninputs == MAX_INPUTS)
			argp_error(state, "more than %d inputs", MAX_INPUTS);
		env.inputs[env.ninputs++] = arg;
		return 0;
	case ARGP_KEY_END:
		if (env.schema)
			return 0;
		if (!env.url)
			argp_error(state, "no server: give --clickhouse=URL (or --schema)");
		if (!env.ninputs)
			argp_error(state, "no capture file to export");
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static int print_schema(void)
{
	struct rc_strbuf sb = {};
	int err = rc_clickhouse__schema(&sb, env.database, env.cluster);

	if (!err)
		fwrite(sb.buf, 1, sb.len, stdout);
	rc_strbuf__free(&sb);
	return err;
}

/* Load one file; 0, 1 when it was skipped as not a capture or unreadable in part, or -errno. */
static int export_file(struct rc_clickhouse *c, const char *path)
{
	struct rc_clickhouse_load res;
	int err = rc_clickhouse__export(c, path, &res);

	if (err == -ENOEXEC) {
		say("%s; skipped\n", rc_clickhouse__error(c));
		return 1;
	}
	if (err) {
		say("failed to export '%s': %s\n", path, rc_clickhouse__error(c));
		return err;
	}
	if (res.skipped)
		say("'%s': loaded already; skipped\n", path);
	else
		say("'%s': %" PRIu64 " events loaded (%" PRIu64 " syscalls), load id %016" PRIx64
		    "%s%s\n",
		    path, res.events, res.syscalls, res.load_id,
		    res.damaged ? "; damaged: what could be read, the loss in the ledger" : "",
		    res.truncated ? "; cut short: the loss in the ledger" : "");
	/* as report: a file its reader gave up on is an error, though its part is in */
	if (res.unreadable) {
		say("'%s': unreadable past that point: what was read is loaded, marked "
		    "damaged\n",
		    path);
		return 1;
	}
	return 0;
}

/* A directory's capture files, as report reads them (rc_set__open()). */
static int export_dir(struct rc_clickhouse *c, const char *dir)
{
	struct rc_set *set = rc_set__open(&dir, 1);
	int err = 0, ret = 0;
	size_t i, n;

	if (!set) {
		say("'%s': no capture file in it; skipped\n", dir);
		return 1;
	}
	n = rc_set__nfiles(set);
	for (i = 0; i < n && err >= 0; i++) {
		err = export_file(c, rc_set__path(set, i));
		ret = err ?: ret;
	}
	rc_set__free(set);
	return ret;
}

static int export_input(struct rc_clickhouse *c, const char *in)
{
	struct stat st;
	glob_t g;
	int err = 0, ret = 0;
	size_t i;

	if (!stat(in, &st))
		return S_ISDIR(st.st_mode) ? export_dir(c, in) : export_file(c, in);
	if (glob(in, 0, NULL, &g)) {
		say("'%s': no such file, and no file matches it; skipped\n", in);
		return 1;
	}
	for (i = 0; i < g.gl_pathc && err >= 0; i++) {
		err = export_file(c, g.gl_pathv[i]);
		ret = err ?: ret;
	}
	globfree(&g);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	static const struct argp_child children[] = { { .argp = &common_argp }, {} };
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = "FILE|DIR|GLOB...",
		.doc = "Load capture files into ClickHouse over its HTTP interface, in Native-format "
		       "batches: events, syscalls with their durations, sched, samples and their "
		       "stacks, each file's ledger and a manifest; tables and views made on first "
		       "use. A file loaded whole already is skipped (one cut short, damaged or "
		       "still being written is loaded again); the views count each file's events "
		       "once, whatever was killed midway. Tested with ClickHouse 18.16. "
		       "Exit: 0; 1 when a server failed, refused or timed out (the export stops), "
		       "an input was not a capture (skipped), or one could not be read to its end "
		       "(what was read is loaded, marked damaged). A build without libcurl "
		       "(make NO_CURL=1) prints --schema only.",
		.children = children,
	};
	struct rc_clickhouse_opts o;
	struct rc_clickhouse *c;
	int err = 0, ret = 0;
	size_t i;

	env = (struct env){ .timeout = 60 };
	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return -err;
	if (env.schema)
		return print_schema();
	o = (struct rc_clickhouse_opts){ .url = env.url, .database = env.database,
					 .cluster = env.cluster, .timeout_s = env.timeout,
					 .batch = env.batch };
	c = rc_clickhouse__new(&o);
	if (!c) {
		say("%s\n", rc_clickhouse__last_error());
		return EXIT_FAILURE;
	}
	for (i = 0; i < env.ninputs && err >= 0; i++) {
		err = export_input(c, env.inputs[i]);
		ret = err ?: ret;
	}
	rc_clickhouse__free(c);
	return ret ? EXIT_FAILURE : 0;
}
