// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debug files from debuginfod servers, through libdebuginfod.so.1 loaded
 * with dlopen() as elfutils' libdwfl loads it (perf links it instead, when
 * built with it): ringcap neither links it nor needs its header, and
 * without it nothing is asked. A static build has no dlopen() that can
 * load it (RC_NO_DLOPEN): there it says so and asks nothing. Its
 * three functions are declared here as elfutils 0.178 and later define
 * them (elfutils/debuginfod.h).
 *
 * The caller is the capture's writer thread, at record time (usym.c, on
 * the first sight of a process's mappings): every query blocks it. What
 * bounds that: queries only after rc_set_debuginfod(true); libdebuginfod's
 * own cache and timeouts; a build-id the servers could not give asked no
 * more (one they gave comes from the client's cache after); none after the
 * servers could not be reached, nor after RC_DEBUGINFOD_BUDGET_S seconds
 * spent asking.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef RC_NO_DLOPEN
#include <dlfcn.h>
#endif
#include "symbol/symbol.h"
#include "util/util.h"
#include "symbol/debuginfod.h"
#include "util/mem.h"

#define BID_MAX 64 /* bytes, as dso.c's BUILD_ID_MAX */

struct debuginfod_client;
typedef struct debuginfod_client *(*begin_fn)(void);
typedef int (*find_fn)(struct debuginfod_client *c, const unsigned char *bid, int len, char **path);
typedef void (*end_fn)(struct debuginfod_client *c);

struct asked {
	unsigned char bid[BID_MAX];
	size_t len;
};

static struct {
	pthread_mutex_t lock;
	bool on;
	bool loaded;  /* dlopen() tried */
	bool gave_up; /* no more queries in this process */
	bool said;    /* the notice that we ask */
	begin_fn begin;
	find_fn find_debuginfo;
	end_fn end;
	struct asked *failed; /* build-ids the servers could not give */
	size_t nfailed, failed_cap;
	uint64_t spent_ns;
} dbgd = { .lock = PTHREAD_MUTEX_INITIALIZER };

void rc_set_debuginfod(bool on)
{
	pthread_mutex_lock(&dbgd.lock);
	dbgd.on = on;
	pthread_mutex_unlock(&dbgd.lock);
}

/* libdebuginfod's functions, loaded once; false when it cannot be. */
static bool load(void)
{
#ifdef RC_NO_DLOPEN
	if (!dbgd.loaded)
		pr_warn("debuginfod: this build is static and cannot load libdebuginfod: "
			"debug files are looked for locally only\n");
	dbgd.loaded = true;
	return false;
#else
	void *h;

	if (dbgd.loaded)
		return dbgd.find_debuginfo != NULL;
	dbgd.loaded = true;
	h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		pr_warn("debuginfod: cannot load libdebuginfod.so.1 (%s): debug files are looked "
			"for locally only\n",
			dlerror());
		return false;
	}
	/* POSIX defines the conversion of dlsym()'s void * to a function pointer */
	dbgd.begin = (begin_fn)dlsym(h, "debuginfod_begin");
	dbgd.find_debuginfo = (find_fn)dlsym(h, "debuginfod_find_debuginfo");
	dbgd.end = (end_fn)dlsym(h, "debuginfod_end");
	if (!dbgd.begin || !dbgd.find_debuginfo || !dbgd.end) {
		pr_warn("debuginfod: libdebuginfod.so.1 lacks its functions: debug files are "
			"looked for locally only\n");
		dbgd.find_debuginfo = NULL;
		dlclose(h);
		return false;
	}
	/* never closed: libcurl, which it loads, is not made to be unloaded */
	return true;
#endif
}

static bool failed_before(const unsigned char *bid, size_t len)
{
	size_t i;

	for (i = 0; i < dbgd.nfailed; i++)
		if (dbgd.failed[i].len == len && !memcmp(dbgd.failed[i].bid, bid, len))
			return true;
	return false;
}

static void remember_failed(const unsigned char *bid, size_t len)
{
	if (rc_ensure_arr(&dbgd.failed, &dbgd.failed_cap, dbgd.nfailed + 1, 16))
		return; /* then it may be asked again: no worse than that */
	memcpy(dbgd.failed[dbgd.nfailed].bid, bid, len);
	dbgd.failed[dbgd.nfailed++].len = len;
}

/* The servers are out of reach, or too slow for a query to end: ask them no more. */
static bool unreachable(int err)
{
	switch (err) {
	case -ECONNREFUSED:
	case -ECONNRESET:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
	case -ETIME:
	case -ETIMEDOUT:
	case -EINVAL: /* a malformed URL */
	case -ENOSYS: /* no URLs after all */
		return true;
	default:
		return false;
	}
}

static int query(const unsigned char *bid, size_t len, const char *urls)
{
	struct debuginfod_client *c;
	uint64_t t0;
	int fd;

	if (!dbgd.said) {
		dbgd.said = true;
		pr_warn("debuginfod: asking %s for the debug files of stripped files, from the "
			"writer thread: a slow server delays the capture's writes "
			"(DEBUGINFOD_TIMEOUT bounds each query)\n",
			urls);
	}
	c = dbgd.begin();
	if (!c)
		return errno ? -errno : -ENOMEM;
	t0 = rc_now_ns(CLOCK_MONOTONIC);
	fd = dbgd.find_debuginfo(c, bid, (int)len, NULL);
	dbgd.spent_ns += rc_now_ns(CLOCK_MONOTONIC) - t0;
	dbgd.end(c);
	return fd;
}

int rc_debuginfod__find(const unsigned char *bid, size_t len)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	int fd = -ENOTSUP;

	if (!len || len > BID_MAX)
		return -EINVAL;
	pthread_mutex_lock(&dbgd.lock);
	if (!dbgd.on || dbgd.gave_up || !urls || !*urls || !load())
		goto out;
	if (failed_before(bid, len)) {
		fd = -ENOENT;
		goto out;
	}
	fd = query(bid, len, urls);
	/* the client opens its cache's files without O_CLOEXEC */
	if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC))
		pr_debug("debuginfod: cannot set FD_CLOEXEC: %s\n", strerror(errno));
	if (fd < 0) {
		remember_failed(bid, len);
		if (unreachable(fd)) {
			dbgd.gave_up = true;
			pr_warn("debuginfod: %s: %s; no more queries in this capture\n", urls,
				strerror(-fd));
		} else {
			pr_debug("debuginfod: no debug file: %s\n", strerror(-fd));
		}
	}
	if (!dbgd.gave_up && dbgd.spent_ns >= RC_DEBUGINFOD_BUDGET_S * 1000000000ull) {
		dbgd.gave_up = true;
		pr_warn("debuginfod: queries took %d s already; no more in this capture\n",
			RC_DEBUGINFOD_BUDGET_S);
	}
out:
	pthread_mutex_unlock(&dbgd.lock);
	return fd;
}
