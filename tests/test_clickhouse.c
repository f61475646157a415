// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringcap export into a real ClickHouse (Debian's 18.16), started here on
 * loopback ports with its own config and data directory, killed at the end.
 * Checked against ringcap's own readers of the same files: per event counts
 * against report --summary, syscall latency quantiles (quantileExact: the
 * element at floor(level*n)) against report --format csv's durations, the
 * ledger against stat; a file loaded twice and an export killed midway
 * leave the views' counts exact; damaged and cut files load what report
 * reads. And a cluster of two servers, a shard each, with three hosts'
 * captures made in UTS namespaces.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#include "tracefs/tpformat.h"
#include "util/siphash.h"
#include "run_util.h"
#include "test_progs.h"

#define CH_SERVER "/usr/sbin/clickhouse-server"

/* server 0, and server 1 of the cluster test; query() asks server 0 */
static char http_ports[2][8], tcp_ports[2][8], url[64];
#define tcp_port tcp_ports[0]

/* sh -c @cmd: its stdout (free it), NULL when it failed (stderr shown) */
static char *sh(const char *cmd)
{
	struct run r = {};
	char *out = NULL;
	int rc = run_sync(&r, (char *[]){ "/bin/sh", "-c", (char *)cmd, NULL }, 120000);

	if (rc == 0)
		out = strdup(r.out ? r.out : "");
	else
		fprintf(stderr, "'%s' exited %d: %s\n", cmd, rc, r.err ? r.err : "");
	run_free(&r);
	return out;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/*
 * @q to server @k over its HTTP interface, by curl: its answer (free it),
 * NULL when it failed (the answer shown). Not clickhouse-client, whose
 * start took 0.1-0.3 s a query, most of the test's time
 */
static char *query_at(int k, const char *q, int timeout_ms)
{
	char u[64], secs[16], *out = NULL;
	struct run r = {};
	int rc;

	snprintf(u, sizeof(u), "http://127.0.0.1:%s/", http_ports[k]);
	snprintf(secs, sizeof(secs), "%d", (timeout_ms + 999) / 1000);
	/* curl gives up first (exit 28): a slow answer is a failed query, not a failed test */
	rc = run_sync(&r,
		      (char *[]){ "/usr/bin/curl", "-sS", "--fail-with-body", "--max-time", secs,
				  "--data-binary", (char *)q, u, NULL },
		      timeout_ms + 10000);
	if (rc == 0)
		out = strdup(r.out ? r.out : "");
	else if (timeout_ms > 1000)
		fprintf(stderr, "'%s' at %s: exit %d: %s%s\n", q, u, rc, r.out ? r.out : "",
			r.err ? r.err : "");
	run_free(&r);
	return out;
}

static char *query(const char *q)
{
	return query_at(0, q, 120000);
}

/*
 * Server @i on loopback ports of its own; @cluster: both servers' configs
 * name the cluster "rc", a shard each
 */
static int ch_start(struct run *srv, int i, bool cluster)
{
	const char *dir = tmpfile_path(i ? "ch1" : "ch0");
	char conf[8192], path[4096], remote[1024] = "", *ok = NULL;
	/*
	 * below the kernel's ephemeral ports (32768-60999 by default), which
	 * a connection made at the same moment could hold: a server that
	 * cannot bind its port fails the test
	 */
	int k, base = (getpid() % 5000) * 2;
	siginfo_t si;
	long deadline;

	for (k = 0; k < 2; k++) {
		snprintf(http_ports[k], sizeof(http_ports[k]), "%d", 11000 + base + k);
		snprintf(tcp_ports[k], sizeof(tcp_ports[k]), "%d", 21000 + base + k);
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%s", http_ports[0]);
	if (cluster)
		snprintf(remote, sizeof(remote),
			 "<remote_servers><rc>"
			 "<shard><replica><host>127.0.0.1</host><port>%s</port></replica></shard>"
			 "<shard><replica><host>127.0.0.1</host><port>%s</port></replica></shard>"
			 "</rc></remote_servers>\n",
			 tcp_ports[0], tcp_ports[1]);
	mkdir(dir, 0700);
	snprintf(conf, sizeof(conf),
		 "<?xml version=\"1.0\"?>\n<yandex>\n"
		 "<logger><level>warning</level><console>1</console></logger>\n"
		 "<http_port>%s</http_port><tcp_port>%s</tcp_port>\n"
		 "<listen_host>127.0.0.1</listen_host>\n"
		 "<path>%s/data/</path><tmp_path>%s/tmp/</tmp_path>\n"
		 "<user_files_path>%s/files/</user_files_path>\n"
		 "<format_schema_path>%s/schemas/</format_schema_path>\n"
		 "<users_config>/etc/clickhouse-server/users.xml</users_config>\n"
		 "<default_profile>default</default_profile>\n"
		 "<default_database>default</default_database>\n"
		 "<mark_cache_size>5368709</mark_cache_size>\n%s</yandex>\n",
		 http_ports[i], tcp_ports[i], dir, dir, dir, dir, remote);
	snprintf(path, sizeof(path), "%s/config.xml", dir);
	if (!ASSERT_TRUE(save_text(path, conf), "config"))
		return -1;
	snprintf(conf, sizeof(conf), "--config-file=%s", path);
	if (!ASSERT_OK(run_start(srv, (char *[]){ CH_SERVER, conf, NULL }), "server"))
		return -1;
	/*
	 * Up when it answers, polled every 20 ms for 30 s at most (a few
	 * hundred ms here); a server that exited (a port in use) is said at once
	 */
	deadline = now_ms() + 30000;
	while (!ok && now_ms() < deadline) {
		ok = query_at(i, "SELECT 'up'", 1000);
		if (ok)
			break;
		memset(&si, 0, sizeof(si));
		if (!waitid(P_PID, srv->pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid) {
			run_wait(srv, 1000);
			test__fail(__FILE__, __LINE__, "server up", "clickhouse-server exited: %s",
				   srv->err ? srv->err : "");
			run_free(srv); /* reaped: ch_stop() has nothing left to stop */
			return -1;
		}
		usleep(20000);
	}
	if (!ASSERT_STREQ(ok, "up\n", "server up")) {
		free(ok);
		return -1;
	}
	free(ok);
	return 0;
}

static void ch_stop(struct run *srv)
{
	if (srv->pid <= 0)
		return;
	kill(srv->pid, SIGTERM);
	if (run_wait(srv, 30000) < 0)
		kill(srv->pid, SIGKILL);
	run_free(srv);
}

static int record(const char *out, const char *n)
{
	struct run r = {};
	int rc = run_sync(&r,
			  (char *[]){ (char *)bin("ringcap"), "record", "-o", (char *)out, "-e",
				      "syscalls,sched", "--", (char *)bin("rc_workload"), "getppid",
				      (char *)n, NULL },
			  60000);

	run_free(&r);
	return rc;
}

/*
 * record getppid @n times as host @host (any bytes, "" too, which the
 * hostname command refuses): in a UTS namespace of its own, sethostname()
 * of the child itself, then ringcap
 */
static int record_as(const char *host, const char *out, const char *n)
{
	char *argv[] = { (char *)bin("ringcap"),
			 "record",
			 "-q",
			 "-o",
			 (char *)out,
			 "-e",
			 "syscalls,sched",
			 "--",
			 (char *)bin("rc_workload"),
			 "getppid",
			 (char *)n,
			 NULL };
	int status = 0, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, 1) < 0 || unshare(CLONE_NEWUTS) ||
		    sethostname(host, strlen(host)))
			_exit(126);
		run_exec(argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* export @files into @db of the server at @u; its stderr into *@err (free it) */
static int export_to(const char *u, const char *db, const char *files, char **err)
{
	char cmd[4096];
	struct run r = {};
	int rc;

	snprintf(cmd, sizeof(cmd), "%s export --clickhouse='%s' --database=%s %s", bin("ringcap"),
		 u, db, files);
	rc = run_sync(&r, (char *[]){ "/bin/sh", "-c", cmd, NULL }, 120000);
	if (err)
		*err = strdup(r.err ? r.err : "");
	run_free(&r);
	return rc;
}

static int export(const char *db, const char *files, char **err)
{
	return export_to(url, db, files, err);
}

/* "EVENT\tCOUNT" lines, by event: of report --summary, and of the views */
static void check_counts_where(const char *db, const char *files, const char *where)
{
	char cmd[4096], q[2048], *want, *got;

	snprintf(cmd, sizeof(cmd),
		 "%s report --summary %s | awk '/^EVENT/ {on=1; next} /^$/ {on=0} "
		 "on {print $1 \"\\t\" $2}' | sort",
		 bin("ringcap"), files);
	want = sh(cmd);
	snprintf(q, sizeof(q),
		 "SELECT event, count() FROM (SELECT event FROM %s.syscalls WHERE %s UNION ALL "
		 "SELECT event FROM %s.sched WHERE %s UNION ALL SELECT event FROM %s.events "
		 "WHERE %s UNION ALL SELECT event FROM %s.samples WHERE %s) GROUP BY event "
		 "ORDER BY event",
		 db, where, db, where, db, where, db, where);
	got = query(q);
	if (ASSERT_OK_PTR(want, "summary") && ASSERT_OK_PTR(got, "views")) {
		ASSERT_TRUE(strlen(want) > 10, "summary has events");
		ASSERT_STREQ(got, want, "per event counts");
	}
	free(want);
	free(got);
}

static void check_counts(const char *db, const char *files)
{
	check_counts_where(db, files, "1");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* getppid's quantiles: quantileExact against report --format csv's durations */
static void check_quantiles(const char *db, const char *file, const char *where)
{
	static const char *const levels[] = { "0.5", "0.9", "0.99" };
	char cmd[4096], q[1024], *csv, *got, want[256] = "", *p;
	uint64_t *d = NULL;
	size_t n = 0, cap = 0, i;

	snprintf(cmd, sizeof(cmd),
		 "%s report --format csv %s | awk -F, '$7 == \"syscall\" && $8 == \"getppid\" "
		 "{print $10}'",
		 bin("ringcap"), file);
	csv = sh(cmd);
	if (!ASSERT_OK_PTR(csv, "csv"))
		return;
	for (p = csv; *p; p = strchr(p, '\n') + 1) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			d = realloc(d, cap * sizeof(*d));
		}
		d[n++] = strtoull(p, NULL, 10);
		if (!strchr(p, '\n'))
			break;
	}
	qsort(d, n, sizeof(*d), cmp_u64);
	ASSERT_EQ(n, 2000, "getppid durations");
	for (i = 0; n && i < 3; i++) {
		size_t k = (size_t)(strtod(levels[i], NULL) * n);

		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%llu",
			 i ? "\t" : "", (unsigned long long)d[k < n ? k : n - 1]);
	}
	strcat(want, "\n");
	snprintf(q, sizeof(q),
		 "SELECT quantileExact(0.5)(duration_ns), quantileExact(0.9)(duration_ns), "
		 "quantileExact(0.99)(duration_ns) FROM %s.syscalls WHERE name = 'getppid' "
		 "AND comm = 'rc_workload' AND %s",
		 db, where);
	got = query(q);
	if (ASSERT_OK_PTR(got, "quantiles"))
		ASSERT_STREQ(got, want, "quantileExact = csv's");
	free(got);
	free(csv);
	free(d);
}

/*
 * every syscall row, args and all, against report --format csv's: the
 * Native blocks' columns, their rows grouped by name and the arrays'
 * offsets counted on across the groups, put back together
 */
static void check_syscall_rows(const char *db, const char *file)
{
	char cmd[4096], *want, *got;

	snprintf(cmd, sizeof(cmd),
		 "%s report --format csv %s | awk -F, '$7 == \"syscall\" "
		 "{print $2 \"\\t\" $8 \"\\t\" $9 \"\\t\" $10 \"\\t\" $11}' | LC_ALL=C sort",
		 bin("ringcap"), file);
	want = sh(cmd);
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/curl -sS --fail-with-body --data-binary \"SELECT time_ns, name, ret, "
		 "duration_ns, arrayStringConcat(arrayMap(x -> toString(x), args), ' ') FROM "
		 "%s.syscalls\" http://127.0.0.1:%s/ | LC_ALL=C sort",
		 db, http_ports[0]);
	got = sh(cmd);
	if (ASSERT_OK_PTR(want, "csv") && ASSERT_OK_PTR(got, "rows")) {
		ASSERT_TRUE(count_lines_with(want, "\tgetppid\t") >= 2000, "csv has the calls");
		ASSERT_STREQ(got, want, "syscall rows = csv's");
	}
	free(want);
	free(got);
}

/* "SIZE\tXXH3" of @path's bytes, as the manifest's file_size and file_xxh3 have them */
static void file_print(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n = -1;

	snprintf(out, len, "?");
	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc(n ?: 1)) && fread(buf, 1, n, f) == (size_t)n)
		snprintf(out, len, "%ld\t%llu\n", n, (unsigned long long)XXH3_64bits(buf, n));
	free(buf);
	if (f)
		fclose(f);
}

/* the manifest's rows of @db, by records: "SIZE\tXXH3" each, of @paths' bytes */
static void check_prints(const char *db, const char *const *paths, int n, const char *what)
{
	char want[512] = "", one[64], q[256], *got;
	int i;

	for (i = 0; i < n; i++) {
		file_print(paths[i], one, sizeof(one));
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s", one);
	}
	snprintf(q, sizeof(q),
		 "SELECT file_size, file_xxh3 FROM %s.manifest ORDER BY records, file_size", db);
	got = query(q);
	ASSERT_STREQ(got, want, what);
	free(got);
}

/* the ledger's event rows and total against stat's table */
static void check_ledger(const char *db, const char *file)
{
	char cmd[4096], q[1024], *want, *got;

	snprintf(cmd, sizeof(cmd),
		 "%s stat %s | awk '/^EVENT/ {on=1; next} /^$/ {on=0} "
		 "on {print $1 \"\\t\" $2 \"\\t\" $3 \"\\t\" $4 \"\\t\" $5 \"\\t\" $6}' | sort",
		 bin("ringcap"), file);
	want = sh(cmd);
	snprintf(q, sizeof(q),
		 "SELECT if(scope = 'total', 'total', event) AS e, made, in_file, dropped, "
		 "filtered, missing FROM %s.ledger WHERE scope != 'cpu' AND file = '%s' ORDER BY e",
		 db, file);
	got = query(q);
	if (ASSERT_OK_PTR(want, "stat") && ASSERT_OK_PTR(got, "ledger"))
		ASSERT_STREQ(got, want, "ledger = stat");
	free(want);
	free(got);
}

/*
 * The rows' host_key: sipHash64(host) as the server computes it. First
 * rc_siphash24() against the server's sipHash64() of each prefix of a name
 * of 64 bytes (0 to 64: every length of the last word, and several
 * words); then captures of hosts named "", of 8 bytes (one word, and the
 * length's), of 64 (the most a host name has) and not ASCII, loaded into
 * @db: each row's host_key the server's sipHash64() of its view's host,
 * the manifest's, and each host's events counted as report counts them
 */
static void check_host_keys(const char *db)
{
	static const char *const hosts[] = {
		"", "rc-host8", "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-.",
		"h\xc3\xa9 x"
	};
	const char *long_name = hosts[2];
	char files[4][256], all[1200] = "", q[1024], want[4096] = "", *s;
	size_t i, n = sizeof(hosts) / sizeof(hosts[0]);

	_Static_assert(sizeof(hosts) / sizeof(hosts[0]) == 4, "files[]");
	for (i = 0; i <= 64; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%zu\t%llu\n", i,
			 (unsigned long long)rc_siphash24(0, 0, long_name, i));
	snprintf(q, sizeof(q),
		 "SELECT n, h FROM (SELECT number AS n, sipHash64(substring('%s', 1, number)) AS h "
		 "FROM system.numbers LIMIT 65) ORDER BY n",
		 long_name);
	s = query(q);
	ASSERT_STREQ(s, want, "rc_siphash24() = the server's sipHash64(), 0 to 64 bytes");
	free(s);
	/* not tmpfile_path(): its 8 paths in turn are the caller's a, b, ... */
	for (i = 0; i < n; i++) {
		snprintf(files[i], sizeof(files[i]), "%s/host%zu.rcap", tmpdir(), i);
		if (!ASSERT_EQ(record_as(hosts[i], files[i], "200"), 0, "record as a host"))
			return;
		snprintf(all + strlen(all), sizeof(all) - strlen(all), " %s", files[i]);
	}
	if (!ASSERT_EQ(export(db, all, NULL), 0, "export the hosts"))
		return;
	/* the views: host the manifest's, host_key the rows' */
	snprintf(
	    q, sizeof(q),
	    "SELECT uniqExact(host), uniqExact(host_key), countIf(host_key != sipHash64(host)), "
	    "count() > 0 FROM (SELECT host, host_key FROM %s.syscalls UNION ALL SELECT host, "
	    "host_key FROM %s.sched UNION ALL SELECT host, host_key FROM %s.ledger)",
	    db, db, db);
	s = query(q);
	ASSERT_STREQ(s, "4\t4\t0\t1\n", "the views' host_key = sipHash64(host)");
	free(s);
	/* the rows, not through the views: each load's host_key, its manifest's host's */
	snprintf(q, sizeof(q),
		 "SELECT count() > 0, countIf(host_key != sipHash64(host)) FROM %s.syscalls_rows "
		 "ALL INNER JOIN (SELECT load_id, host FROM %s.manifest) USING load_id",
		 db, db);
	s = query(q);
	ASSERT_STREQ(s, "1\t0\n", "the rows' host_key = sipHash64(the manifest's host)");
	free(s);
	for (i = 0; i < n; i++) {
		char where[256];

		snprintf(q, sizeof(q),
			 "SELECT DISTINCT host_key FROM %s.syscalls WHERE host = '%s'", db,
			 hosts[i]);
		s = query(q);
		snprintf(want, sizeof(want), "%llu\n",
			 (unsigned long long)rc_siphash24(0, 0, hosts[i], strlen(hosts[i])));
		ASSERT_STREQ(s, want, "a host's one host_key, rc_siphash24()'s");
		free(s);
		snprintf(where, sizeof(where), "host = '%s'", hosts[i]);
		check_counts_where(db, files[i], where);
	}
}

void test_clickhouse_export(void)
{
	const char *a = tmpfile_path("a.rcap"), *b = tmpfile_path("b.rcap");
	const char *cut = tmpfile_path("cut.rcap"), *bad = tmpfile_path("bad.rcap");
	const char *noend = tmpfile_path("noend.rcap"), *grown = tmpfile_path("grown.rcap");
	char both[1024], q[512], *err = NULL, *s = NULL, *before = NULL, *after = NULL;
	struct run srv = {}, ex = {};
	char cmd[2048], chopt[512];
	int i, rc;

	if (access(CH_SERVER, X_OK)) {
		test__skip("clickhouse-server is not installed (scripts/deps.sh installs it)");
		return;
	}
	/* record reads the calls' counts of args where tracefs is mounted: mounted here */
	if (!ASSERT_OK_PTR(rc_tracefs(), "tracefs") || !ASSERT_OK(record(a, "2000"), "record a") ||
	    !ASSERT_OK(record(b, "100000"), "record b") || ch_start(&srv, 0, false))
		goto out;
	snprintf(both, sizeof(both), "%s %s", a, b);

	/* one file: counts, quantiles, ledger; loaded twice, counted once */
	ASSERT_EQ(export("rc", a, NULL), 0, "export a");
	check_counts("rc", a);
	check_quantiles("rc", a, "1");
	check_ledger("rc", a);
	check_syscall_rows("rc", a);
	/*
	 * a file's boot_id, run_id and file_seq: once, in its manifest row,
	 * not in its rows; the views join them on, each row the file's
	 */
	s = query("SELECT count() FROM system.columns WHERE database = 'rc' AND "
		  "endsWith(table, '_rows') AND name IN ('host', 'boot_id', 'run_id', 'file_seq')");
	ASSERT_STREQ(s, "0\n", "no file columns in the rows");
	free(s);
	/*
	 * the host in the rows as its key alone, first in every sorting key;
	 * its name in the manifest and the views, where it was in them
	 */
	s = query("SELECT countIf(name = 'host_key' AND type = 'UInt64'), countIf(name = 'host' "
		  "AND type = 'String') FROM system.columns WHERE database = 'rc'");
	ASSERT_STREQ(s, "12\t7\n",
		     "host_key in the rows and views, host in the views and manifest");
	free(s);
	/* 18.16's system.columns has no position: a table's columns come in their order */
	s = query("SELECT table, arrayStringConcat(arraySlice(groupArray(name), 1, 3), ' ') FROM "
		  "system.columns WHERE database = 'rc' GROUP BY table ORDER BY table");
	ASSERT_STREQ(s,
		     "events\tload_id host boot_id\nevents_rows\tload_id host_key time_ns\n"
		     "ledger\tload_id host boot_id\nledger_rows\tload_id host_key file\n"
		     "manifest\tload_id host boot_id\nsamples\tload_id host boot_id\n"
		     "samples_rows\tload_id host_key time_ns\nsched\tload_id host boot_id\n"
		     "sched_rows\tload_id host_key time_ns\nstacks\tload_id host boot_id\n"
		     "stacks_rows\tload_id host_key stack_id\nsyscalls\tload_id host boot_id\n"
		     "syscalls_rows\tload_id host_key time_ns\n",
		     "the rows' host_key after load_id; the views' host where it was");
	free(s);
	s = query("SELECT name, sorting_key FROM system.tables WHERE database = 'rc' AND "
		  "engine = 'MergeTree' ORDER BY name");
	ASSERT_STREQ(s,
		     "events_rows\thost_key, event, time_ns\nledger_rows\thost_key, load_id\n"
		     "manifest\thost, file_key, load_id\nsamples_rows\thost_key, time_ns\n"
		     "sched_rows\thost_key, time_ns\nstacks_rows\thost_key, load_id, stack_id\n"
		     "syscalls_rows\thost_key, name, time_ns\n",
		     "the sorting keys: host_key first, the manifest's host");
	free(s);
	check_host_keys("hk");
	/* a syscall's args: an array of the rows, the view's (check_syscall_rows()) */
	s = query("SELECT table, name, type FROM system.columns WHERE database = 'rc' AND "
		  "table IN ('syscalls', 'syscalls_rows') AND name LIKE '%arg%' ORDER BY table, "
		  "name");
	ASSERT_STREQ(s,
		     "syscalls\targs\tArray(UInt64)\nsyscalls_rows\tcall_args\tArray(UInt64)\n",
		     "args: an array of the rows, the view's args");
	free(s);
	/* as many as each call takes (its entry tracepoint's fields), not six registers each */
	s = query("SELECT name, groupUniqArray(length(args)) FROM rc.syscalls WHERE name IN "
		  "('getppid', 'brk', 'rt_sigaction') GROUP BY name ORDER BY name");
	ASSERT_STREQ(s, "brk\t[1]\ngetppid\t[0]\nrt_sigaction\t[4]\n",
		     "args: each call's own count");
	free(s);
	s = query("SELECT uniqExact(boot_id, run_id, file_seq), min(length(boot_id)), "
		  "min(length(run_id)), countIf(run_id = (SELECT any(run_id) FROM rc.manifest) "
		  "AND boot_id = (SELECT any(boot_id) FROM rc.manifest) AND "
		  "file_seq = (SELECT any(file_seq) FROM rc.manifest)) = count() FROM rc.syscalls");
	ASSERT_STREQ(s, "1\t32\t32\t1\n", "the views' file columns: the manifest's");
	free(s);
	s = query(
	    "SELECT uniqExact(boot_id, run_id, file_seq) FROM (SELECT boot_id, run_id, "
	    "file_seq FROM rc.sched UNION ALL SELECT boot_id, run_id, file_seq FROM rc.ledger)");
	ASSERT_STREQ(s, "1\n", "sched's and the ledger's too");
	free(s);
	/*
	 * wall_ns, the view's of time_ns and the file's wall_offset_ns: the
	 * second of each row's wall (the rows', written by export), one offset
	 * the file; and no event column in the rows of a table of one event
	 */
	s = query(
	    "SELECT countIf(intDiv(wall_ns, 1000000000) = toInt64(toUInt32(wall))) = count(), "
	    "uniqExact(wall_ns - toInt64(time_ns)), min(wall) > toDateTime('2020-01-01 00:00:00') "
	    "FROM (SELECT wall, wall_ns, time_ns FROM rc.syscalls UNION ALL "
	    "SELECT wall, wall_ns, time_ns FROM rc.sched)");
	ASSERT_STREQ(s, "1\t1\t1\n", "wall_ns of time_ns and the file's offset");
	free(s);
	s = query("SELECT table, name FROM system.columns WHERE database = 'rc' AND "
		  "(name = 'wall_ns' OR (name = 'event' AND table IN ('syscalls_rows', "
		  "'samples_rows'))) ORDER BY table, name");
	ASSERT_STREQ(s, "events\twall_ns\nsamples\twall_ns\nsched\twall_ns\nsyscalls\twall_ns\n",
		     "wall_ns the views' alone, no event in syscalls' and samples' rows");
	free(s);
	s = NULL;
	ASSERT_EQ(export("rc", a, &err), 0, "export a again");
	ASSERT_HAS(err, "loaded already", "skipped");
	free(err);
	err = NULL;
	check_counts("rc", a);
	check_prints("rc", &a, 1, "the manifest's size and XXH3 of a");
	s = query("SELECT countIf(name = 'getppid' AND comm = 'rc_workload') FROM rc.syscalls");
	ASSERT_STREQ(s, "2000\n", "getppid calls");
	free(s);

	/* killed midway through b: rows in, no manifest row; the views count a alone */
	/*
	 * The smallest batches: rows in early, thousands of inserts to go.
	 * ringcap itself, not a shell running it: dash forks for `sh -c CMD`,
	 * and a SIGKILL of the shell let the export finish b (CI saw it).
	 */
	snprintf(chopt, sizeof(chopt), "--clickhouse=%s", url);
	if (!ASSERT_OK(run_start(&ex, (char *[]){ (char *)bin("ringcap"), "export", chopt,
						  "--database=rc", "--batch-size=4K", (char *)b,
						  NULL }),
		       "export b"))
		goto out;
	for (i = 0; i < 400; i++) {
		s = query("SELECT (SELECT count() FROM rc.syscalls_rows) - "
			  "(SELECT count() FROM rc.syscalls)");
		if (s && strtoull(s, NULL, 10) > 0)
			break;
		free(s);
		s = NULL;
		usleep(20000);
	}
	kill(ex.pid, SIGKILL);
	run_wait(&ex, 10000);
	ASSERT_TRUE(WIFSIGNALED(ex.status) && WTERMSIG(ex.status) == SIGKILL,
		    "the export killed midway, not done");
	run_free(&ex);
	ASSERT_OK_PTR(s, "rows of b in before the kill");
	free(s);
	s = query("SELECT count() FROM rc.manifest");
	ASSERT_STREQ(s, "1\n", "no manifest row for b");
	free(s);
	check_counts("rc", a);

	/* run again: b loaded, a skipped; both counted once */
	snprintf(q, sizeof(q), "SELECT count() FROM rc.syscalls_rows");
	before = query(q);
	ASSERT_EQ(export("rc", both, NULL), 0, "export a and b");
	check_counts("rc", both);
	check_ledger("rc", b);
	s = query("SELECT countIf(name = 'getppid' AND comm = 'rc_workload') FROM rc.syscalls");
	ASSERT_STREQ(s, "102000\n", "getppid calls of both");
	free(s);
	after = query(q);
	snprintf(cmd, sizeof(cmd), "the killed load's rows are there, unseen: %s before, %s after",
		 before ? before : "?", after ? after : "?");
	ASSERT_TRUE(before && after && strtoull(after, NULL, 10) > strtoull(before, NULL, 10), cmd);

	/*
	 * b cut short, and b with 4 KiB overwritten in its middle, each into
	 * a database of its own (they are b to the manifest: its run and seq):
	 * what report reads is loaded, the loss in the ledger as stat has it
	 */
	snprintf(cmd, sizeof(cmd),
		 "n=$(stat -c %%s %s) && head -c $((n * 3 / 5)) %s > %s && cp %s %s && "
		 "dd if=/dev/urandom of=%s bs=4096 count=1 seek=$((n * 2 / 5 / 4096)) "
		 "conv=notrunc 2>/dev/null",
		 b, b, cut, b, bad, bad);
	s = sh(cmd);
	if (ASSERT_OK_PTR(s, "cut and damaged copies")) {
		rc = export("cut", cut, &err);
		ASSERT_EQ(rc, 0, "export cut");
		ASSERT_HAS(err, "cut short", "said cut short");
		free(err);
		err = NULL;
		check_counts("cut", cut);
		check_ledger("cut", cut);
		/* the same cut bytes again: loaded already, by their size and hash */
		ASSERT_EQ(export("cut", cut, &err), 0, "export cut again");
		ASSERT_HAS(err, "loaded already", "cut skipped");
		free(err);
		err = NULL;
		check_prints("cut", &cut, 1, "one load of cut");
		check_counts("cut", cut);
		rc = export("bad", bad, &err);
		ASSERT_EQ(rc, 0, "export damaged");
		ASSERT_HAS(err, "damaged", "said damaged");
		free(err);
		err = NULL;
		check_counts("bad", bad);
		check_ledger("bad", bad);
		free(s);
		s = query("SELECT damaged, corrupt_records > 0, truncated FROM bad.ledger "
			  "WHERE scope = 'total'");
		ASSERT_STREQ(s, "1\t1\t0\n", "damage in the ledger");
		free(s);
		/*
		 * the same damaged bytes again: loaded already, no second load
		 * (its rows unseen, but stored); then b whole, of the same size,
		 * other bytes: loaded, and counted rather than the damaged load
		 */
		ASSERT_EQ(export("bad", bad, &err), 0, "export damaged again");
		ASSERT_HAS(err, "loaded already", "damaged skipped");
		free(err);
		err = NULL;
		check_prints("bad", &bad, 1, "one load of the damaged copy");
		s = query("SELECT count() FROM bad.syscalls_rows");
		free(after);
		after = query("SELECT count() FROM bad.syscalls");
		ASSERT_TRUE(s && after && !strcmp(s, after), "no rows stored twice");
		free(s);
		ASSERT_EQ(export("bad", b, &err), 0, "export b, as large as its damaged copy");
		ASSERT_TRUE(err && !strstr(err, "loaded already") && strstr(err, "events loaded"),
			    "b loaded after its damaged copy of its size");
		free(err);
		err = NULL;
		check_prints("bad", (const char *[]){ bad, b }, 2,
			     "the damaged copy's load and b's");
		check_counts("bad", b);
		check_ledger("bad", b);
		/* cut after its last counters: nothing known missing, as stat says */
		s = query("SELECT truncated, cut_short = missing FROM cut.ledger "
			  "WHERE scope = 'total'");
		ASSERT_STREQ(s, "1\t1\n", "cut short in the ledger");
	}
	free(s);

	/*
	 * b's cut copy loaded first (as the current file of a --switch-output
	 * run, no trailer yet), then b whole: loaded again, the views count
	 * b's events once, whole; then b is loaded already, and so is its cut
	 * copy
	 */
	if (ASSERT_OK(access(cut, R_OK), "cut copy of b")) {
		ASSERT_EQ(export("grow", cut, &err), 0, "export cut b");
		ASSERT_HAS(err, "cut short", "said cut short");
		free(err);
		ASSERT_EQ(export("grow", b, &err), 0, "export whole b");
		ASSERT_TRUE(err && !strstr(err, "loaded already") && strstr(err, "events loaded"),
			    "whole b loaded after its cut copy");
		free(err);
		err = NULL;
		check_counts("grow", b);
		s = query("SELECT count(), countIf(truncated), min(records) > 0 FROM grow.manifest");
		ASSERT_STREQ(s, "2\t1\t1\n", "two loads, one cut");
		ASSERT_EQ(export("grow", b, &err), 0, "export b again");
		ASSERT_HAS(err, "loaded already", "whole b skipped");
		free(err);
		ASSERT_EQ(export("grow", cut, &err), 0, "export cut b again");
		ASSERT_HAS(err, "loaded already", "cut b skipped");
		free(err);
		err = NULL;
		check_counts("grow", b);
	}
	free(s);
	s = NULL;

	/*
	 * a file growing, as a rotated run's current one: its first 3/5 loaded,
	 * then loaded already; grown to 4/5 (its start the same), loaded again,
	 * the views counting the grown load exactly; then loaded already
	 */
	snprintf(cmd, sizeof(cmd), "n=$(stat -c %%s %s) && head -c $((n * 3 / 5)) %s > %s", b, b,
		 grown);
	s = sh(cmd);
	if (ASSERT_OK_PTR(s, "first 3/5 of b")) {
		ASSERT_EQ(export("grown", grown, &err), 0, "export growing b");
		ASSERT_HAS(err, "cut short", "said cut short");
		free(err);
		ASSERT_EQ(export("grown", grown, &err), 0, "export growing b again");
		ASSERT_HAS(err, "loaded already", "unchanged: skipped");
		free(err);
		err = NULL;
		free(s);
		snprintf(cmd, sizeof(cmd),
			 "n=$(stat -c %%s %s) && tail -c +$((n * 3 / 5 + 1)) %s | "
			 "head -c $((n * 4 / 5 - n * 3 / 5)) >> %s",
			 b, b, grown);
		s = sh(cmd);
		ASSERT_OK_PTR(s, "grown to 4/5 of b");
		ASSERT_EQ(export("grown", grown, &err), 0, "export grown b");
		ASSERT_TRUE(err && !strstr(err, "loaded already") && strstr(err, "events loaded"),
			    "grown: loaded again");
		free(err);
		err = NULL;
		check_counts("grown", grown);
		check_prints("grown", (const char *[]){ cut, grown }, 2,
			     "the 3/5 load and the 4/5");
		ASSERT_EQ(export("grown", grown, &err), 0, "export grown b again");
		ASSERT_HAS(err, "loaded already", "grown, unchanged: skipped");
		free(err);
		err = NULL;
		check_counts("grown", grown);
	}
	free(s);
	s = NULL;

	/*
	 * b with its trailer block cut out, the end block kept: the reader
	 * gives up at the end block ("end block without a trailer"), report
	 * and stat exit 1. Its records load, the file marked damaged, exit
	 * 1; then b whole is loaded, not skipped, and counted
	 */
	snprintf(cmd, sizeof(cmd),
		 "t=$(tail -c 8 %s | od -An -t u8 | tr -d ' ') && (head -c $t %s; tail -c 24 %s) "
		 "> %s && %s report --format csv %s | tail -n +2 | wc -l; e=$(%s stat %s 2>&1 "
		 ">/dev/null); echo $?; echo \"$e\" | sed -n 's/.*corrupt capture at byte "
		 "\\([0-9]*\\):.*/\\1/p'; stat -c %%s %s",
		 b, b, b, noend, bin("ringcap"), noend, bin("ringcap"), noend, noend);
	s = sh(cmd);
	if (ASSERT_OK_PTR(s, "b without its trailer")) {
		/* report's records, stat's exit, the byte stat stops at, the file's size */
		unsigned long long nrec = 0, at = 0, size = 0;
		int stat_rc = -1;

		ASSERT_EQ(sscanf(s, "%llu %d %llu %llu", &nrec, &stat_rc, &at, &size), 4,
			  "records, exit, byte, size");
		ASSERT_TRUE(nrec > 100000, "report reads b's records");
		ASSERT_EQ(stat_rc, 1, "stat exits 1");
		ASSERT_TRUE(at > 0 && size > at, "stat's byte where reading stopped");
		rc = export("noend", noend, &err);
		ASSERT_EQ(rc, 1, "export exits 1, as report");
		ASSERT_HAS(err, "end block without a trailer", "says why");
		ASSERT_HAS(err, "marked damaged", "says damaged");
		free(err);
		err = NULL;
		free(s);
		snprintf(q, sizeof(q),
			 "SELECT (SELECT count() FROM noend.syscalls) + (SELECT count() FROM "
			 "noend.sched) + (SELECT count() FROM noend.events) + (SELECT count() "
			 "FROM noend.samples)");
		s = query(q);
		ASSERT_TRUE(s && strtoull(s, NULL, 10) == nrec, "loads what report reads");
		free(s);
		/* corrupt from the block stat names to the file's end: the end block */
		snprintf(q, sizeof(q),
			 "SELECT damaged, truncated, in_file = %llu, corrupt_bytes FROM "
			 "noend.ledger WHERE scope = 'total'",
			 nrec);
		s = query(q);
		snprintf(cmd, sizeof(cmd), "1\t0\t1\t%llu\n", size - at);
		ASSERT_STREQ(s, cmd, "the ledger's total: damaged, all read, corrupt from there");
		ASSERT_EQ(size - at, 24, "the end block's bytes");
		free(s);
		/* the same bytes again: loaded already, exit 0, one load */
		rc = export("noend", noend, &err);
		ASSERT_EQ(rc, 0, "export noend again: exit 0");
		ASSERT_HAS(err, "loaded already", "noend skipped");
		free(err);
		err = NULL;
		check_prints("noend", &noend, 1, "one load of noend");
		s = query("SELECT count(), countIf(damaged), countIf(truncated) FROM "
			  "noend.manifest");
		ASSERT_STREQ(s, "1\t1\t0\n", "manifest: damaged");
		free(s);
		ASSERT_EQ(export("noend", b, &err), 0, "export whole b after it");
		ASSERT_TRUE(err && !strstr(err, "loaded already") && strstr(err, "events loaded"),
			    "whole b loaded after its damaged copy");
		free(err);
		err = NULL;
		check_counts("noend", b);
		check_ledger("noend", b);
		s = query("SELECT count(), countIf(damaged) FROM noend.manifest");
		ASSERT_STREQ(s, "2\t1\n", "two loads, one damaged");
		free(s);
		s = NULL;
		ASSERT_EQ(export("noend", b, &err), 0, "export b again");
		ASSERT_HAS(err, "loaded already", "whole b skipped");
		free(err);
		err = NULL;
	}
	free(s);
	s = NULL;

	/*
	 * two exports of a started at once: both load, the views count a once.
	 * 32K: each export's 8 inserts or so (a part each) outlast the other's
	 * start by far; at 4K, some 70 each, they took 14 s of the test's 19
	 */
	snprintf(cmd, sizeof(cmd),
		 "%s export --schema --database=two | clickhouse-client --port %s --multiquery && "
		 "for i in 1 2; do %s export --clickhouse=%s --database=two --batch-size=32K %s & "
		 "done; wait",
		 bin("ringcap"), tcp_port, bin("ringcap"), url, a);
	s = sh(cmd);
	if (ASSERT_OK_PTR(s, "two exports at once")) {
		free(s);
		s = query("SELECT count(), uniqExact(load_id) FROM two.manifest");
		ASSERT_STREQ(s, "2\t2\n", "two loads in the manifest");
		check_counts("two", a);
		check_quantiles("two", a, "1");
	}
	free(s);
	s = NULL;

	/* bad input: a file that is not a capture is named, skipped, exit 1 */
	rc = export("rc", "/etc/hostname", &err);
	ASSERT_EQ(rc, 1, "not a capture: exit 1");
	ASSERT_HAS(err, "'/etc/hostname' is not a capture file", "named");
	free(err);
	err = NULL;

	/*
	 * a refusal, an unknown user of the URL's query string: one line
	 * naming the server (no user:password@, no query string) and its
	 * answer, exit 1
	 */
	snprintf(cmd, sizeof(cmd), "http://nosuch:secret@127.0.0.1:%s/?user=nosuch&password=pw",
		 http_ports[0]);
	rc = export_to(cmd, "rc", a, &err);
	ASSERT_EQ(rc, 1, "refused: exit 1");
	snprintf(cmd, sizeof(cmd), "clickhouse at http://127.0.0.1:%s: HTTP ", http_ports[0]);
	ASSERT_HAS(err, cmd, "server named, no userinfo or query");
	ASSERT_HAS(err, "Unknown user nosuch", "its answer");
	ASSERT_TRUE(err && !strstr(err, "secret") && !strstr(err, "pw"), "no password shown");
	ASSERT_EQ(count_lines_with(err, ""), 1, "one line");
	free(err);
	err = NULL;
	/* the URL's own query string kept: ?user=default loads */
	snprintf(cmd, sizeof(cmd), "%s/?user=default", url);
	ASSERT_EQ(export_to(cmd, "rc", a, &err), 0, "?user=default");
	ASSERT_HAS(err, "loaded already", "through ?user=default");
	free(err);
	err = NULL;

	/* names go into SQL as given: only [A-Za-z_][A-Za-z0-9_]*, else exit 64, one line */
	rc = export("'x; DROP DATABASE rc; SELECT 1'", a, &err);
	ASSERT_EQ(rc, 64, "bad --database: exit 64");
	ASSERT_HAS(err, "--database: 'x; DROP DATABASE rc; SELECT 1' is not a name", "named");
	ASSERT_EQ(count_lines_with(err, "not a name"), 1, "one line");
	free(err);
	err = NULL;
	snprintf(cmd, sizeof(cmd), "%s export --schema --cluster=a-b", bin("ringcap"));
	{
		struct run r = {};

		rc = run_sync(&r, (char *[]){ "/bin/sh", "-c", cmd, NULL }, 10000);
		ASSERT_EQ(rc, 64, "bad --cluster: exit 64");
		ASSERT_TRUE(r.out && !*r.out, "no DDL printed");
		ASSERT_HAS(r.err, "--cluster: 'a-b' is not a name", "named");
		run_free(&r);
	}
	s = query("SELECT count() FROM system.databases WHERE name = 'rc'");
	ASSERT_STREQ(s, "1\n", "rc still there");
	free(s);
	s = NULL;

	/*
	 * a database of an earlier ringcap, a file's boot_id in every row: refused,
	 * one line naming it and the fix, exit 1, nothing loaded
	 */
	s = query("CREATE DATABASE old");
	free(s);
	s = query("CREATE TABLE old.syscalls_rows (load_id UInt64, host String, boot_id String) "
		  "ENGINE = MergeTree() ORDER BY host");
	free(s);
	rc = export("old", a, &err);
	ASSERT_EQ(rc, 1, "an earlier layout's tables: exit 1");
	ASSERT_HAS(err, "database 'old' has the tables of an earlier ringcap", "named");
	ASSERT_HAS(err, "export into a new --database", "the fix");
	ASSERT_EQ(count_lines_with(err, ""), 1, "one line");
	free(err);
	err = NULL;
	s = query("SELECT count() FROM old.syscalls_rows");
	ASSERT_STREQ(s, "0\n", "nothing loaded into an earlier layout's tables");
	free(s);
	s = NULL;
	/* this layout but for the manifest's file_size and file_xxh3: refused, naming it */
	snprintf(cmd, sizeof(cmd),
		 "%s export --schema --database=old2 | clickhouse-client --port %s --multiquery && "
		 "clickhouse-client --port %s -q 'ALTER TABLE old2.manifest DROP COLUMN file_xxh3' "
		 "&& clickhouse-client --port %s -q 'ALTER TABLE old2.manifest DROP COLUMN "
		 "file_size'",
		 bin("ringcap"), tcp_port, tcp_port, tcp_port);
	s = sh(cmd);
	if (ASSERT_OK_PTR(s, "a manifest of no prints")) {
		rc = export("old2", a, &err);
		ASSERT_EQ(rc, 1, "a manifest of no prints: exit 1");
		ASSERT_HAS(err, "database 'old2' has the tables of an earlier ringcap (manifest: ",
			   "named, and its table");
		ASSERT_EQ(count_lines_with(err, ""), 1, "one line");
		free(err);
		err = NULL;
	}
	free(s);
	s = query("SELECT count() FROM old2.syscalls_rows");
	ASSERT_STREQ(s, "0\n", "nothing loaded into a manifest of no prints");
	free(s);
	s = NULL;
	/* this layout but for a syscall's args in one array (0.2.0's): refused, naming it */
	snprintf(cmd, sizeof(cmd),
		 "%s export --schema --database=old3 | clickhouse-client --port %s --multiquery",
		 bin("ringcap"), tcp_port);
	free(sh(cmd));
	s = query("ALTER TABLE old3.syscalls_rows DROP COLUMN call_args, "
		  "ADD COLUMN args Array(UInt64)");
	if (ASSERT_OK_PTR(s, "the args of 0.2.0")) {
		rc = export("old3", a, &err);
		ASSERT_EQ(rc, 1, "args in an array: exit 1");
		ASSERT_HAS(err, "database 'old3' has the tables of an earlier ringcap (syscalls_rows: ",
			   "named, and its table");
		ASSERT_EQ(count_lines_with(err, ""), 1, "one line");
		free(err);
		err = NULL;
	}
	free(s);
	s = query("SELECT count() FROM old3.syscalls_rows");
	ASSERT_STREQ(s, "0\n", "nothing loaded into 0.2.0's args");
	free(s);
	s = NULL;
	/* this layout but for six columns of registers (0.3.0's): refused, naming it */
	snprintf(cmd, sizeof(cmd),
		 "%s export --schema --database=old6 | clickhouse-client --port %s --multiquery",
		 bin("ringcap"), tcp_port);
	free(sh(cmd));
	s = query("ALTER TABLE old6.syscalls_rows DROP COLUMN call_args, ADD COLUMN arg0 UInt64, "
		  "ADD COLUMN arg1 UInt64, ADD COLUMN arg2 UInt64, ADD COLUMN arg3 UInt64, "
		  "ADD COLUMN arg4 UInt64, ADD COLUMN arg5 UInt64");
	if (ASSERT_OK_PTR(s, "the args of 0.3.0")) {
		rc = export("old6", a, &err);
		ASSERT_EQ(rc, 1, "args in six columns: exit 1");
		ASSERT_HAS(err, "database 'old6' has the tables of an earlier ringcap (syscalls_rows: ",
			   "named, and its table");
		ASSERT_EQ(count_lines_with(err, ""), 1, "one line");
		free(err);
		err = NULL;
	}
	free(s);
	s = query("SELECT count() FROM old6.syscalls_rows");
	ASSERT_STREQ(s, "0\n", "nothing loaded into 0.3.0's args");
	free(s);
	s = NULL;
	/*
	 * the layout before host_key: the host's name, a String, in every
	 * table's rows and first in their sorting keys (this DDL's tables, the
	 * key put back as the name): refused, naming the first such table
	 */
	snprintf(cmd, sizeof(cmd),
		 "%s export --schema --database=old4 | grep -v '^CREATE VIEW' | "
		 "sed 's/host_key UInt64/host String/; s/ORDER BY (host_key,/ORDER BY (host,/' | "
		 "clickhouse-client --port %s --multiquery && clickhouse-client --port %s -q "
		 "\"SELECT countIf(startsWith(sorting_key, 'host,')) FROM system.tables WHERE "
		 "database = 'old4'\"",
		 bin("ringcap"), tcp_port, tcp_port);
	s = sh(cmd);
	if (ASSERT_STREQ(s, "7\n", "the rows' host a String: six tables and the manifest")) {
		rc = export("old4", a, &err);
		ASSERT_EQ(rc, 1, "host a String in the rows: exit 1");
		ASSERT_HAS(err,
			   "database 'old4' has the tables of an earlier ringcap (events_rows: ",
			   "named, and its table");
		ASSERT_EQ(count_lines_with(err, ""), 1, "one line");
		free(err);
		err = NULL;
	}
	free(s);
	s = query("SELECT (SELECT count() FROM old4.syscalls_rows) + (SELECT count() FROM "
		  "old4.manifest)");
	ASSERT_STREQ(s, "0\n", "nothing loaded into the rows of a host String");
	free(s);
	s = NULL;

	/* a server that is down */
	ch_stop(&srv);
	rc = export("rc", a, &err);
	ASSERT_EQ(rc, 1, "down: exit 1");
	ASSERT_HAS(err, "clickhouse at http://127.0.0.1:", "server named");
	ASSERT_HAS(err, "onnect", "refused");
out:
	free(before);
	free(after);
	free(err);
	ch_stop(&srv);
	tmpdir_cleanup();
}

/*
 * The ```sql blocks of README.md's section "## Many hosts" (to the next
 * "## "), "ringcap." made "@db.": up to @max, each malloc'd; their count
 */
static size_t readme_sql(const char *db, char **sql, size_t max)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	char path[4096], line[1024], pre[64];
	bool in = false, in_sql = false;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/README.md", src ? src : "..");
	f = fopen(path, "r");
	if (!f)
		return 0;
	snprintf(pre, sizeof(pre), "%s.", db);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "## ", 3)) {
			in = !strcmp(line, "## Many hosts\n");
			continue;
		}
		if (!in)
			continue;
		if (!strncmp(line, "```", 3)) {
			in_sql = !in_sql && !strcmp(line, "```sql\n") && n < max;
			if (in_sql)
				sql[n++] = calloc(1, 4096);
			continue;
		}
		if (in_sql && sql[n - 1]) {
			char *d = sql[n - 1], *p = line, *r;

			while ((r = strstr(p, "ringcap."))) {
				strncat(d, p, r - p);
				strcat(d, pre);
				p = r + strlen("ringcap.");
			}
			if (strlen(d) + strlen(p) < 4000)
				strcat(d, p);
		}
	}
	fclose(f);
	return n;
}

/* getppid's durations in @file, by report --format csv: the element at floor(0.99 n) */
static unsigned long long getppid_p99(const char *file)
{
	char cmd[4096], *s;
	unsigned long long v = 0;

	snprintf(cmd, sizeof(cmd),
		 "%s report --format csv %s | awk -F, '$7 == \"syscall\" && $8 == \"getppid\" "
		 "{print $10}' | sort -n | awk '{d[NR - 1] = $1} END {print d[int(0.99 * NR)]}'",
		 bin("ringcap"), file);
	s = sh(cmd);
	if (s)
		v = strtoull(s, NULL, 10);
	free(s);
	return v;
}

/* the README's three queries, run on the cluster's views: as ringcap's readers have it */
static void check_readme_queries(const char *const *hosts, char files[][256], int nhosts)
{
	char *sql[8] = {}, q[8192], cmd[4096], *s, *want;
	size_t n = readme_sql("cl", sql, 8), k;
	int i;

	if (!ASSERT_EQ(n, 3, "README's sql blocks under Many hosts"))
		goto out;
	for (k = 0; k < n; k++)
		ASSERT_OK_PTR(sql[k], "calloc");
	/* p99 by host and syscall: getppid's, the csv's element at floor(0.99 n) */
	for (i = 0; i < 3 && sql[0]; i++) {
		char want_p99[32];

		snprintf(q, sizeof(q),
			 "SELECT p99_ns FROM (%s) WHERE host = '%s' AND name = 'getppid'", sql[0],
			 hosts[i]);
		s = query(q);
		snprintf(want_p99, sizeof(want_p99), "%llu\n", getppid_p99(files[i]));
		ASSERT_TRUE(strcmp(want_p99, "0\n"), "a p99 of the csv");
		ASSERT_STREQ(s, want_p99, "README p99 = csv's");
		free(s);
	}
	/* off-CPU stacks: the host recorded with --off-cpu, blocked time in each */
	if (sql[1]) {
		snprintf(q, sizeof(q),
			 "SELECT count() > 0, min(blocked_ns) > 0, max(hosts), sum(times) > 0 FROM (%s)",
			 sql[1]);
		s = query(q);
		ASSERT_STREQ(s, "1\t1\t1\t1\n", "README off-CPU stacks");
		free(s);
		/* time_ns - start is the record's blocked: their sums, of records with a stack */
		snprintf(cmd, sizeof(cmd),
			 "%s report --format json %s | grep '\"event\":\"offcpu\"' | "
			 "grep -v '\"stack_id\":0}' | sed 's/.*\"blocked\":\\([0-9]*\\).*/\\1/' | "
			 "awk '{n += $1} END {print n}'",
			 bin("ringcap"), files[3]);
		want = sh(cmd);
		snprintf(q, sizeof(q), "SELECT sum(blocked_ns) FROM (%s)", sql[1]);
		s = query(q);
		if (ASSERT_OK_PTR(want, "report's blocked"))
			ASSERT_STREQ(s, want, "README off-CPU blocked = report's");
		free(s);
		free(want);
	}
	/* drops by host and hour: stat's total dropped of each host's file */
	for (i = 0; i < nhosts && sql[2]; i++) {
		snprintf(cmd, sizeof(cmd),
			 "%s stat %s | awk '$1 == \"total\" {print $4 \"\\t1\"}'", bin("ringcap"),
			 files[i]);
		want = sh(cmd);
		snprintf(q, sizeof(q),
			 "SELECT sum(dropped), min(hour) > toDateTime('2020-01-01 00:00:00') "
			 "FROM (%s) WHERE host = '%s'",
			 sql[2], hosts[i]);
		s = query(q);
		if (ASSERT_OK_PTR(want, "stat") && ASSERT_TRUE(strlen(want) > 2, "stat's total"))
			ASSERT_STREQ(s, want, "README drops by host = stat's");
		free(s);
		free(want);
	}
out:
	for (k = 0; k < n; k++)
		free(sql[k]);
}

/*
 * Two servers, a shard each, the DDL of --schema --cluster applied to both;
 * three hosts' captures (UTS namespaces) exported through server 0's
 * Distributed tables: each host on the shard sipHash64(host) % 2 names,
 * its counts, quantiles and ledger as ringcap's readers have them.
 */
void test_clickhouse_cluster(void)
{
	/* sipHash64(host) % 2: 0, 1, 1; rc-d: a small --off-cpu capture */
	static const char *const hosts[] = { "rc-a", "rc-b", "rc-c", "rc-d" };
	char files[4][256], all[2048] = "", cmd[4096], where[64], *s;
	struct run srv[2] = {};
	int i, k;

	if (access(CH_SERVER, X_OK)) {
		test__skip("clickhouse-server is not installed (scripts/deps.sh installs it)");
		return;
	}
	for (i = 0; i < 3; i++) {
		snprintf(files[i], sizeof(files[i]), "%s", tmpfile_path(hosts[i]));
		snprintf(cmd, sizeof(cmd),
			 "unshare --uts sh -c 'hostname %s && exec %s record -q -o %s -e "
			 "syscalls,sched -- %s getppid 2000'",
			 hosts[i], bin("ringcap"), files[i], bin("rc_workload"));
		s = sh(cmd);
		if (!ASSERT_OK_PTR(s, "record in a UTS namespace"))
			return;
		free(s);
		snprintf(all + strlen(all), sizeof(all) - strlen(all), " %s", files[i]);
	}
	snprintf(files[3], sizeof(files[3]), "%s", tmpfile_path(hosts[3]));
	snprintf(cmd, sizeof(cmd),
		 "unshare --uts sh -c 'hostname %s && exec %s record -q -o %s -e sched --off-cpu "
		 "-- %s sleepers 2 20'",
		 hosts[3], bin("ringcap"), files[3], bin("rc_workload"));
	s = sh(cmd);
	if (!ASSERT_OK_PTR(s, "record --off-cpu in a UTS namespace"))
		return;
	free(s);
	if (ch_start(&srv[0], 0, true) || ch_start(&srv[1], 1, true))
		goto out;
	for (k = 0; k < 2; k++) {
		snprintf(cmd, sizeof(cmd),
			 "%s export --schema --cluster=rc --database=cl | "
			 "clickhouse-client --port %s --multiquery",
			 bin("ringcap"), tcp_ports[k]);
		s = sh(cmd);
		if (!ASSERT_OK_PTR(s, "DDL applied"))
			goto out;
		free(s);
	}
	snprintf(cmd, sizeof(cmd), "%s export --clickhouse=%s --cluster=rc --database=cl %s",
		 bin("ringcap"), url, all);
	s = sh(cmd);
	if (!ASSERT_OK_PTR(s, "export --cluster"))
		goto out;
	free(s);
	for (i = 0; i < 3; i++) {
		snprintf(where, sizeof(where), "host = '%s'", hosts[i]);
		check_counts_where("cl", files[i], where);
		check_quantiles("cl", files[i], where);
		check_ledger("cl", files[i]);
	}
	/*
	 * the rows spread over both shards by host_key, each host's on one,
	 * the shard sipHash64(host) named; its manifest rows on the same
	 */
	for (k = 0; k < 2; k++) {
		s = query_at(k,
			     "SELECT arrayStringConcat(groupArray(h), ',') FROM (SELECT DISTINCT "
			     "transform(host_key, [sipHash64('rc-a'), sipHash64('rc-b'), "
			     "sipHash64('rc-c')], ['rc-a', 'rc-b', 'rc-c'], '?') AS h FROM "
			     "cl.syscalls_rows_local ORDER BY h)",
			     120000);
		ASSERT_STREQ(s, k ? "rc-b,rc-c\n" : "rc-a\n", "a shard's hosts");
		free(s);
		s = query_at(k,
			     "SELECT arrayStringConcat(groupArray(host), ',') FROM (SELECT "
			     "DISTINCT host FROM cl.manifest_local ORDER BY host)",
			     120000);
		ASSERT_STREQ(s, k ? "rc-b,rc-c\n" : "rc-a\n", "a shard's manifest rows");
		free(s);
	}
	/* the manifest's print of the bytes loaded, in the local and Distributed tables of both */
	for (k = 0; k < 2; k++) {
		s = query_at(k,
			     "SELECT table, name, type FROM system.columns WHERE database = 'cl' "
			     "AND name IN ('file_size', 'file_xxh3') ORDER BY table, name",
			     120000);
		ASSERT_STREQ(s,
			     "manifest\tfile_size\tUInt64\nmanifest\tfile_xxh3\tUInt64\n"
			     "manifest_local\tfile_size\tUInt64\nmanifest_local\tfile_xxh3\tUInt64\n",
			     "file_size and file_xxh3 in manifest and manifest_local");
		free(s);
	}
	s = query("SELECT countIf(file_size > 0 AND file_xxh3 > 0) FROM cl.manifest");
	ASSERT_STREQ(s, "3\n", "the loads' prints, through the Distributed table");
	free(s);
	/* loaded again: skipped, counted once */
	snprintf(cmd, sizeof(cmd), "%s export --clickhouse=%s --cluster=rc --database=cl %s",
		 bin("ringcap"), url, all);
	s = sh(cmd);
	ASSERT_OK_PTR(s, "export --cluster again");
	free(s);
	s = query("SELECT count() FROM cl.manifest");
	ASSERT_STREQ(s, "3\n", "three files in the manifest");
	free(s);
	snprintf(where, sizeof(where), "host = '%s'", hosts[1]);
	check_counts_where("cl", files[1], where);

	/* the off-CPU capture too, then the README's queries */
	snprintf(cmd, sizeof(cmd), "%s export --clickhouse=%s --cluster=rc --database=cl %s",
		 bin("ringcap"), url, files[3]);
	s = sh(cmd);
	ASSERT_OK_PTR(s, "export --off-cpu capture");
	free(s);
	snprintf(where, sizeof(where), "host = '%s'", hosts[3]);
	check_counts_where("cl", files[3], where);
	check_readme_queries(hosts, files, 4);
out:
	ch_stop(&srv[0]);
	ch_stop(&srv[1]);
	tmpdir_cleanup();
}
