// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus: stat --prometheus checked by Debian's promtool, and record
 * --metrics scraped by Debian's prometheus server, started here, whose own
 * query API says what it scraped.
 */
#include <errno.h>
#include <glob.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "run_util.h"
#include "test_progs.h"

#define PROBE_CALLS 200000L

static bool have(const char *path, const char *why)
{
	if (!access(path, X_OK))
		return true;
	test__skip(why);
	return false;
}

/* promtool check metrics on @text: its verdict in @r */
static int promtool_check(struct run *r, const char *text)
{
	const char *path = tmpfile_path("check.prom");
	char cmd[4096];

	if (!save_text(path, text))
		return -1;
	snprintf(cmd, sizeof(cmd), "promtool check metrics < '%s'", path);
	return run_sync(r, (char *[]){ "/bin/sh", "-c", cmd, NULL }, 60000);
}

/* The value of series @name{@labels} in Prometheus text @text: -1 when absent. */
static long long series_value(const char *text, const char *name, const char *labels)
{
	char key[512];
	const char *p;

	snprintf(key, sizeof(key), "\n%s{%s} ", name, labels);
	p = strstr(text, key);
	return p ? atoll(p + strlen(key)) : -1;
}

/* stat --json's "NAME": the first after @from in @json (-1: none) */
static long long json_u64(const char *json, const char *from, const char *name)
{
	char key[128];
	const char *p = from ? strstr(json, from) : json;

	snprintf(key, sizeof(key), "\"%s\":", name);
	p = p ? strstr(p, key) : NULL;
	return p ? atoll(p + strlen(key)) : -1;
}

static void record_small_ring(const char *cap)
{
	char up[4096];
	struct run r = {};

	snprintf(up, sizeof(up), "uprobe:%s:rc_probe_target", bin("rc_workload"));
	ASSERT_EQ(run_sync(&r,
			   (char *[]){ (char *)bin("ringcap"), "record", "-q", "-e", up,
				       "--ringbuf-size", "4K", "-o", (char *)cap, "--",
				       (char *)bin("rc_workload"), "probe", "200000", NULL },
			   120000),
		  0, "record");
	run_free(&r);
}

/* stat --prometheus: promtool's check, and the counts stat --json gives. */
void test_prom_stat(void)
{
	const char *cap = tmpfile_path("p.rcap"), *file = tmpfile_path("node.prom");
	struct run st = {}, js = {}, chk = {}, f = {};
	char labels[4096];
	long long made, dropped;
	char *text = NULL;

	if (!need_root() || !have("/usr/bin/promtool", "no promtool (Debian's prometheus)"))
		return;
	record_small_ring(cap);
	if (!ASSERT_EQ(run_sync(&st,
				(char *[]){ (char *)bin("ringcap"), "stat", "--prometheus",
					    (char *)cap, NULL },
				60000),
		       0, "stat --prometheus") ||
	    !ASSERT_EQ(run_sync(&js, (char *[]){ (char *)bin("ringcap"), "stat", "--json", (char *)cap, NULL },
				60000),
		       0, "stat --json"))
		goto out;
	if (!ASSERT_EQ(promtool_check(&chk, st.out), 0, "promtool check metrics"))
		fprintf(stderr, "%s%s", chk.out, chk.err);
	snprintf(labels, sizeof(labels), "event=\"uprobe:rc_workload:rc_probe_target\"");
	made = series_value(st.out, "ringcap_events_made_total", labels);
	ASSERT_EQ(made, PROBE_CALLS, "made: every call");
	ASSERT_EQ(made, json_u64(js.out, "\"total\"", "made"), "made: as stat --json");
	snprintf(labels, sizeof(labels),
		 "event=\"uprobe:rc_workload:rc_probe_target\",layer=\"ring\"");
	dropped = series_value(st.out, "ringcap_events_lost_total", labels);
	ASSERT_EQ(dropped, json_u64(js.out, "\"total\"", "dropped"), "dropped: as stat --json");
	ASSERT_TRUE(dropped > 0, "a 4K ring dropped");
	ASSERT_EQ(series_value(st.out, "ringcap_events_in_files_total",
			       "event=\"uprobe:rc_workload:rc_probe_target\""),
		  made - dropped, "in the file: made less dropped");
	ASSERT_TRUE(strstr(st.out, "\nringcap_build_info{version=\"") != NULL, "build info");
	/* into a file, by rename: the same text, no temporary left */
	if (ASSERT_EQ(run_sync(&f,
			       (char *[]){ (char *)bin("ringcap"), "stat",
					   (char *)(strcpy(labels, "--prometheus="),
						    strcat(labels, file)),
					   (char *)cap, NULL },
			       60000),
		      0, "stat --prometheus=FILE")) {
		FILE *in = fopen(file, "r");
		size_t n = 0;

		text = calloc(1, 1 << 20);
		if (in && text)
			n = fread(text, 1, (1 << 20) - 1, in);
		if (in)
			fclose(in);
		ASSERT_TRUE(n && !strcmp(text, st.out), "the file holds what stdout did");
		ASSERT_STREQ(f.out, "", "nothing on stdout");
		{
			glob_t g = {};
			char pat[4096];

			snprintf(pat, sizeof(pat), "%s.tmp.*", file);
			ASSERT_EQ(glob(pat, 0, NULL, &g), GLOB_NOMATCH, "no temporary file left");
			globfree(&g);
		}
	}
out:
	free(text);
	run_free(&st);
	run_free(&js);
	run_free(&chk);
	run_free(&f);
	tmpdir_cleanup();
}

/* curl -sG URL --data-urlencode query=Q: the answer in @r */
static int query(struct run *r, int port, const char *q)
{
	char url[128], arg[1024];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/query", port);
	snprintf(arg, sizeof(arg), "query=%s", q);
	return run_sync(r, (char *[]){ "/usr/bin/curl", "-sfG", url, "--data-urlencode", arg, NULL }, 10000);
}

/* A query's one value (the vector's first sample): -1 when it has none yet. */
static long long query_value(int port, const char *q)
{
	struct run r = {};
	long long v = -1;
	const char *p;

	if (!query(&r, port, q) && r.out && (p = strstr(r.out, "\"value\":[")) &&
	    (p = strchr(p, ',')) && p[1] == '"')
		v = atoll(p + 2);
	run_free(&r);
	return v;
}

/* Poll @q until it equals @want or 20 s pass: the last value. */
static long long wait_value(int port, const char *q, long long want)
{
	long long v = -1;
	int i;

	for (i = 0; i < 200; i++) {
		v = query_value(port, q);
		if (v == want)
			break;
		usleep(100000);
	}
	return v;
}

static bool write_config(const char *path, int metrics_port)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
		 "scrape_configs:\n  - job_name: ringcap\n    static_configs:\n"
		 "      - targets: ['127.0.0.1:%d']\n",
		 metrics_port);
	return save_text(path, text);
}

/*
 * A system-wide capture of the workload's uprobe through a 4K ring
 * (drops), served with --metrics and scraped each second by a real
 * prometheus: once the workload is done, while the capture still runs,
 * the scraped counts equal the file's final stat; no counter ever went
 * down (Prometheus' resets()). A client that connects and says nothing
 * holds up the capture not at all (every call counted), and the scrapes
 * behind it a second at most (the server's wait for a request's head).
 */
void test_prom_scrape(void)
{
	const char *cap = tmpfile_path("s.rcap"), *cfg = tmpfile_path("prometheus.yml");
	char up[4096], listen[64], tsdb[4096], metrics[32];
	struct run prom = {}, rec = {}, wl = {}, js = {};
	long long made, dropped, captured, v;
	int pport = free_port(), mport = free_port(), mute = -1, i;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	static const char ev[] = "event=\"uprobe:rc_workload:rc_probe_target\"";
	char q[512];

	if (!need_root() || !have("/usr/bin/prometheus", "no prometheus (Debian's prometheus)"))
		return;
	if (!ASSERT_TRUE(pport && mport && pport != mport, "free ports") ||
	    !ASSERT_TRUE(write_config(cfg, mport), "prometheus.yml"))
		goto out;
	snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", pport);
	snprintf(tsdb, sizeof(tsdb), "--storage.tsdb.path=%s", tmpfile_path("tsdb"));
	snprintf(metrics, sizeof(metrics), "127.0.0.1:%d", mport);
	snprintf(up, sizeof(up), "uprobe:%s:rc_probe_target", bin("rc_workload"));
	if (!ASSERT_OK(run_start(&rec, (char *[]){ (char *)bin("ringcap"), "record", "-q", "-a",
						   "-e", up, "--ringbuf-size", "4K", "--metrics",
						   metrics, "-o", (char *)cap, NULL }),
		       "record -a --metrics"))
		goto out;
	if (!ASSERT_OK(run_start(&prom, (char *[]){ "/usr/bin/prometheus",
						    (char *)(strcpy(q, "--config.file="),
							     strcat(q, cfg)),
						    listen, tsdb, NULL }),
		       "prometheus"))
		goto out;
	/* the capture has begun once prometheus has scraped a value of it */
	if (!ASSERT_EQ(wait_value(pport, "up{job=\"ringcap\"}", 1), 1, "prometheus scrapes ringcap"))
		goto out;
	/* a client that connects and says nothing, through the workload */
	mute = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	a.sin_port = htons(mport);
	ASSERT_OK(mute < 0 ? -1 : connect(mute, (struct sockaddr *)&a, sizeof(a)), "a mute client");
	ASSERT_EQ(run_sync(&wl, (char *[]){ (char *)bin("rc_workload"), "probe", "200000", NULL },
			   120000),
		  0, "the workload");
	snprintf(q, sizeof(q), "ringcap_events_made_total{%s}", ev);
	made = wait_value(pport, q, PROBE_CALLS);
	ASSERT_EQ(made, PROBE_CALLS, "scraped made: every call, the capture still running");
	/*
	 * The scrape that saw every call made may be of before the drain read
	 * the last of them: dropped and captured of a later scrape, polled
	 * for 20 s (a fixed 2 s was two scrapes' worth on time, not on a
	 * loaded machine); the final stat below holds the values polled.
	 */
	for (i = 0; i < 200; i++) {
		snprintf(q, sizeof(q), "ringcap_events_lost_total{%s,layer=\"ring\"}", ev);
		dropped = query_value(pport, q);
		snprintf(q, sizeof(q), "ringcap_events_captured_total{%s}", ev);
		captured = query_value(pport, q);
		if (dropped >= 0 && captured >= 0 && made == captured + dropped)
			break;
		usleep(100000);
	}
	printf("    scraped: made %lld, captured %lld, dropped %lld (%d polls of 100 ms after)\n",
	       made, captured, dropped, i);
	ASSERT_TRUE(dropped > 0, "the 4K ring dropped");
	ASSERT_EQ(made, captured + dropped, "scraped: made = captured + dropped");
	for (i = 0; i < 3; i++) {
		static const char *const fam[] = { "ringcap_events_made_total",
						   "ringcap_events_captured_total",
						   "ringcap_events_lost_total" };

		snprintf(q, sizeof(q), "sum(resets(%s[5m]))", fam[i]);
		v = query_value(pport, q);
		ASSERT_EQ(v, 0, fam[i]); /* never went down between scrapes */
	}
	kill(rec.pid, SIGINT);
	run_wait(&rec, 60000);
	ASSERT_TRUE(WIFEXITED(rec.status) && WEXITSTATUS(rec.status) == 0, "record exits 0");
	if (ASSERT_EQ(run_sync(&js, (char *[]){ (char *)bin("ringcap"), "stat", "--json",
						(char *)cap, NULL },
			       60000),
		      0, "stat --json")) {
		const char *e = strstr(js.out, "uprobe:rc_workload:rc_probe_target");

		ASSERT_EQ(json_u64(js.out, e ? "uprobe:rc_workload:rc_probe_target" : "\"total\"",
				   "made"),
			  made, "made: the final stat's");
		ASSERT_EQ(json_u64(js.out, e ? "uprobe:rc_workload:rc_probe_target" : "\"total\"",
				   "dropped"),
			  dropped, "dropped: the final stat's");
	}
out:
	if (mute >= 0)
		close(mute);
	for (i = 0; i < 2; i++) {
		struct run *r = i ? &rec : &prom;

		if (r->pid > 0 && !r->out && !r->err) {
			kill(r->pid, SIGTERM);
			run_wait(r, 30000);
		}
	}
	run_free(&prom);
	run_free(&rec);
	run_free(&wl);
	run_free(&js);
	tmpdir_cleanup();
}

/* A port in use, an address that is not one: one line, and the capture is whole. */
void test_prom_refusals(void)
{
	static const char *const addrs[] = { "busy", "1.2.3:9100", "127.0.0.1:99999", "[::1:1" };
	int busy = -1, port = 0;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	char addr[64];
	size_t i;

	if (!need_root())
		return;
	busy = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!ASSERT_TRUE(busy >= 0 && !bind(busy, (struct sockaddr *)&a, sizeof(a)) &&
				 !listen(busy, 1) &&
				 !getsockname(busy, (struct sockaddr *)&a, &alen),
			 "a busy port"))
		goto out;
	port = ntohs(a.sin_port);
	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		const char *cap = tmpfile_path("r.rcap");
		struct run r = {}, s = {};

		if (!strcmp(addrs[i], "busy"))
			snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
		else
			snprintf(addr, sizeof(addr), "%s", addrs[i]);
		unlink(cap);
		ASSERT_EQ(run_sync(&r,
				   (char *[]){ (char *)bin("ringcap"), "record", "-q", "-e",
					       "syscalls:sys_enter_getppid", "--metrics", addr,
					       "-o", (char *)cap, "--", (char *)bin("rc_workload"),
					       "getppid", "1000", NULL },
				   60000),
			  0, addr);
		ASSERT_EQ(count_lines_with(r.err, "--metrics"), 1, "one line");
		ASSERT_TRUE(strstr(r.err, "recording without it") != NULL, "the capture goes on");
		if (ASSERT_EQ(run_sync(&s, (char *[]){ (char *)bin("ringcap"), "stat", "--json",
						       (char *)cap, NULL },
				       60000),
			      0, "stat"))
			ASSERT_EQ(json_u64(s.out, "\"total\"", "made"), 1000, "every call");
		run_free(&r);
		run_free(&s);
	}
out:
	if (busy >= 0)
		close(busy);
	tmpdir_cleanup();
}

/* examples/prometheus/'s alert rules: promtool check rules, and their unit tests. */
void test_prom_rules(void)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	struct run r = {};
	char cmd[4096];

	if (!have("/usr/bin/promtool", "no promtool (Debian's prometheus)") ||
	    !ASSERT_OK_PTR(src, "RINGCAP_SRCDIR"))
		return;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s/examples/prometheus' && promtool check rules ringcap.rules.yml && "
		 "promtool test rules ringcap.rules.test.yml",
		 src);
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ "/bin/sh", "-c", cmd, NULL }, 60000), 0,
		       "promtool check rules, test rules"))
		fprintf(stderr, "%s%s", r.out, r.err);
	ASSERT_TRUE(r.out && strstr(r.out, "SUCCESS: 2 rules found"), "two rules");
	run_free(&r);
}
