// SPDX-License-Identifier: GPL-2.0-only
/*
 * ClickHouse's HTTP interface through libcurl (clickhouse_int.h): a
 * well-kept client, with keep-alive, timeouts, proxies and TLS, rather
 * than an HTTP client of our own.
 *
 * libcurl is loaded with dlopen() when export first makes a client, as
 * debuginfod.c loads libdebuginfod: ringcap does not link it, so no other
 * command pays for linking it and its thirty-odd libraries at start (6-8
 * ms of CPU a start, make bench-start). Its header is still compiled
 * against, for its types and constants (libcurl4-openssl-dev); at run time
 * the package recommends libcurl4, and without it export fails with one
 * line naming the fix, --schema still works. The functions used are
 * resolved once into one struct (curl below); the oldest libcurl that has
 * them all is 7.80.0 (curl_url_strerror()).
 *
 * RINGCAP_LIBCURL=PATH loads PATH instead of libcurl.so.4: a test hook
 * (test_libcurl.c names a file that is not there, and one that is not
 * libcurl).
 *
 * Built without it (NO_CURL=1), or static (no dlopen(): STATIC=1 implies
 * NO_CURL=1), every client fails with EOPNOTSUPP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/clickhouse_int.h"
#include "output/clickhouse_http.h"

#if defined(RC_NO_CURL) || defined(RC_NO_DLOPEN)

#ifdef RC_NO_DLOPEN
#define NO_CURL_WHY "this build is static and cannot load libcurl.so.4"
#else
#define NO_CURL_WHY "ringcap was built without libcurl (make NO_CURL=1)"
#endif

const char *rc_ch_http__libcurl_version(char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", NO_CURL_WHY);
	errno = EOPNOTSUPP;
	return NULL;
}

struct rc_ch_http *rc_ch_http__new(const char *url, long timeout_s, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: no export (its --schema works)", NO_CURL_WHY);
	errno = EOPNOTSUPP;
	return NULL;
}

int rc_ch_http__post(struct rc_ch_http *h, const char *query, const char *params,
		     const void *body, size_t len, struct rc_strbuf *answer, char *err,
		     size_t errlen)
{
	return -EOPNOTSUPP;
}

int rc_ch_http__postv(struct rc_ch_http *h, const char *query, const char *params,
		      const struct iovec *iov, size_t n, size_t len, struct rc_strbuf *answer,
		      char *err, size_t errlen)
{
	return -EOPNOTSUPP;
}

void rc_ch_http__free(struct rc_ch_http *h)
{
}

#else

#include <dlfcn.h>
#include <pthread.h>
#include <curl/curl.h>

#define LIBCURL	    "libcurl.so.4"
#define LIBCURL_FIX "ringcap export needs " LIBCURL " (Debian: apt install libcurl4)"

/* libcurl's functions, as curl.h declares them; each an X(name, ret, args) */
#define CURL_FUNCS(X)                                                                              \
	X(global_init, CURLcode, (long flags))                                                     \
	X(version_info, curl_version_info_data *, (CURLversion v))                                 \
	X(easy_init, CURL *, (void))                                                               \
	X(easy_setopt, CURLcode, (CURL * c, CURLoption o, ...))                                    \
	X(easy_getinfo, CURLcode, (CURL * c, CURLINFO i, ...))                                     \
	X(easy_perform, CURLcode, (CURL * c))                                                      \
	X(easy_reset, void, (CURL * c))                                                            \
	X(easy_cleanup, void, (CURL * c))                                                          \
	X(easy_strerror, const char *, (CURLcode cc))                                              \
	X(easy_escape, char *, (CURL * c, const char *s, int len))                                 \
	X(free, void, (void *p))                                                                   \
	X(slist_append, struct curl_slist *, (struct curl_slist * l, const char *s))               \
	X(slist_free_all, void, (struct curl_slist * l))                                           \
	X(url, CURLU *, (void))                                                                    \
	X(url_dup, CURLU *, (const CURLU *u))                                                      \
	X(url_set, CURLUcode, (CURLU * u, CURLUPart what, const char *part, unsigned int flags))   \
	X(url_get, CURLUcode, (const CURLU *u, CURLUPart what, char **part, unsigned int flags))   \
	X(url_cleanup, void, (CURLU * u))                                                          \
	X(url_strerror, const char *, (CURLUcode uc))

/* Set once by load(), read only after: the functions, or why there are none. */
static struct {
#define X(name, ret, args) ret(*name) args;
	CURL_FUNCS(X)
#undef X
	const char *version;	 /* curl_version_info()'s, at run time */
	char err[RC_CH_ERR_LEN]; /* empty when loaded */
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_code;

static void load(void)
{
	/*
	 * The tests' hook, not honoured in a setuid or file-capability run
	 * (README: setcap cap_bpf,cap_perfmon+ep): code loaded there would
	 * run with those capabilities.
	 */
	const char *path = secure_getenv("RINGCAP_LIBCURL") ?: LIBCURL;
	const char *missing = NULL;
	char version[64] = "";
	void *h;

	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(curl.err, sizeof(curl.err), LIBCURL_FIX ": %s", dlerror());
		return;
	}
	/* POSIX defines the conversion of dlsym()'s void * to a function pointer */
#define X(fn, ret, args)                                                                           \
	if (!(curl.fn = (ret(*) args)dlsym(h, "curl_" #fn)) && !missing)                           \
		missing = "curl_" #fn;
	CURL_FUNCS(X)
#undef X
	if (missing) {
		/* 7.74 has no curl_url_strerror(), say: its version, when it tells it */
		if (curl.version_info)
			snprintf(version, sizeof(version), " (%s)",
				 curl.version_info(CURLVERSION_NOW)->version);
		snprintf(curl.err, sizeof(curl.err),
			 "%s%s has no %s: ringcap export needs libcurl 7.80.0 or later "
			 "(Debian: apt install libcurl4)",
			 path, version, missing);
		dlclose(h); /* the pointers are not used: curl.version stays NULL */
		return;
	}
	curl.version = curl.version_info(CURLVERSION_NOW)->version;
	/* never closed: libcurl, and the TLS library it starts, are not made to be unloaded */
}

static void init(void)
{
	init_code = curl.global_init(CURL_GLOBAL_DEFAULT);
}

const char *rc_ch_http__libcurl_version(char *err, size_t errlen)
{
	pthread_once(&load_once, load);
	if (!curl.version) {
		snprintf(err, errlen, "%s", curl.err);
		errno = EOPNOTSUPP;
		return NULL;
	}
	return curl.version;
}

struct rc_ch_http {
	CURL *curl;
	CURLU *base; /* the URL given, its query string kept: ?user=...&password=... */
	char *url;   /* for messages: no user:password@, no query string */
	long timeout_s;
	char curl_err[CURL_ERROR_SIZE];
};

static size_t on_answer(char *ptr, size_t size, size_t n, void *ctx)
{
	struct rc_strbuf *sb = ctx;

	if (sb && rc_strbuf__append(sb, ptr, size * n))
		return 0; /* out of memory: curl fails the transfer */
	return size * n;
}

/* @url without its user:password@ and query string, which may hold a password */
static char *shown_url(CURLU *base)
{
	CURLU *u = curl.url_dup(base);
	char *s = NULL, *ret = NULL;

	if (u && !curl.url_set(u, CURLUPART_USER, NULL, 0) &&
	    !curl.url_set(u, CURLUPART_PASSWORD, NULL, 0) &&
	    !curl.url_set(u, CURLUPART_OPTIONS, NULL, 0) &&
	    !curl.url_set(u, CURLUPART_QUERY, NULL, 0) &&
	    !curl.url_set(u, CURLUPART_FRAGMENT, NULL, 0) &&
	    !curl.url_get(u, CURLUPART_URL, &s, 0)) {
		size_t n = strlen(s);

		while (n > 1 && s[n - 1] == '/' && s[n - 2] != '/')
			s[--n] = '\0';
		ret = strdup(s);
	}
	curl.free(s);
	curl.url_cleanup(u);
	return ret;
}

struct rc_ch_http *rc_ch_http__new(const char *url, long timeout_s, char *err, size_t errlen)
{
	struct rc_ch_http *h;
	CURLUcode uc;

	pthread_once(&load_once, load);
	if (!curl.version) {
		snprintf(err, errlen, "%s", curl.err);
		errno = EOPNOTSUPP;
		return NULL;
	}
	pthread_once(&init_once, init);
	if (init_code != CURLE_OK) {
		snprintf(err, errlen, "libcurl failed to start: %s", curl.easy_strerror(init_code));
		errno = EIO;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h || !(h->base = curl.url()) || !(h->curl = curl.easy_init())) {
		rc_ch_http__free(h);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	uc = curl.url_set(h->base, CURLUPART_URL, url, CURLU_GUESS_SCHEME);
	if (uc == CURLUE_OK && !(h->url = shown_url(h->base)))
		uc = CURLUE_OUT_OF_MEMORY;
	if (uc != CURLUE_OK) {
		rc_ch_http__free(h);
		if (uc == CURLUE_OUT_OF_MEMORY) {
			snprintf(err, errlen, "out of memory");
			errno = ENOMEM;
		} else {
			/* not the URL itself: it may hold a password */
			snprintf(err, errlen,
				 "--clickhouse: not a URL (%s): give one like "
				 "http://127.0.0.1:8123",
				 curl.url_strerror(uc));
			errno = EINVAL;
		}
		return NULL;
	}
	h->timeout_s = timeout_s > 0 ? timeout_s : 60;
	return h;
}

/* The first line of the server's answer, trimmed, after "clickhouse at URL: " */
static void answer_line(const struct rc_ch_http *h, long status, const struct rc_strbuf *a,
			char *err, size_t errlen)
{
	const char *s = a->len ? a->buf : "";
	size_t n = a->len;
	const char *nl;

	while (n && (*s == ' ' || *s == '\n' || *s == '\r')) {
		s++;
		n--;
	}
	nl = memchr(s, '\n', n);
	if (nl)
		n = nl - s;
	if (n)
		snprintf(err, errlen, "clickhouse at %s: HTTP %ld: %.*s", h->url, status, (int)n, s);
	else
		snprintf(err, errlen, "clickhouse at %s: HTTP %ld, and no reason given", h->url,
			 status);
}

/* a body in pieces, as libcurl reads it: the piece at, and the offset in it */
struct body_src {
	const struct iovec *iov;
	size_t n, at, off;
};

static size_t on_read(char *buf, size_t size, size_t nitems, void *arg)
{
	struct body_src *b = arg;
	size_t room = size * nitems, done = 0;

	while (room && b->at < b->n) {
		const struct iovec *v = &b->iov[b->at];
		size_t k = v->iov_len - b->off < room ? v->iov_len - b->off : room;

		memcpy(buf + done, (const char *)v->iov_base + b->off, k);
		done += k;
		room -= k;
		b->off += k;
		if (b->off == v->iov_len) {
			b->at++;
			b->off = 0;
		}
	}
	return done;
}

/* libcurl sending the body again (a kept-alive connection the server had closed) */
static int on_seek(void *arg, curl_off_t offset, int origin)
{
	struct body_src *b = arg;
	curl_off_t left = offset;

	if (origin != SEEK_SET || offset < 0)
		return CURL_SEEKFUNC_CANTSEEK;
	for (b->at = 0, b->off = 0; b->at < b->n; b->at++) {
		if ((size_t)left < b->iov[b->at].iov_len) {
			b->off = (size_t)left;
			return CURL_SEEKFUNC_OK;
		}
		left -= (curl_off_t)b->iov[b->at].iov_len;
	}
	return left ? CURL_SEEKFUNC_FAIL : CURL_SEEKFUNC_OK;
}

static int post(struct rc_ch_http *h, const char *query, const char *params, const void *body,
		struct body_src *src, size_t len, struct rc_strbuf *answer, char *err,
		size_t errlen);

int rc_ch_http__post(struct rc_ch_http *h, const char *query, const char *params,
		     const void *body, size_t len, struct rc_strbuf *answer, char *err,
		     size_t errlen)
{
	return post(h, query, params, body, NULL, len, answer, err, errlen);
}

int rc_ch_http__postv(struct rc_ch_http *h, const char *query, const char *params,
		      const struct iovec *iov, size_t n, size_t len, struct rc_strbuf *answer,
		      char *err, size_t errlen)
{
	struct body_src src = { .iov = iov, .n = n };

	return post(h, query, params, NULL, &src, len, answer, err, errlen);
}

/* POST @body, or with @src its pieces */
static int post(struct rc_ch_http *h, const char *query, const char *params, const void *body,
		struct body_src *src, size_t len, struct rc_strbuf *answer, char *err,
		size_t errlen)
{
	struct rc_strbuf own = {};
	struct rc_strbuf *a = answer ? answer : &own;
	struct curl_slist *hdrs = NULL, *more;
	struct rc_strbuf qs = {};
	long status = 0;
	CURLU *u = NULL;
	CURLcode cc;
	char *q = NULL;
	int ret = 0;

	if (answer)
		answer->len = 0;
	/* the URL given, with query= and @params appended to any query string of its own */
	if (query && !(q = curl.easy_escape(h->curl, query, 0)))
		goto nomem;
	if (!(u = curl.url_dup(h->base)))
		goto nomem;
	if (q && (rc_strbuf__printf(&qs, "query=%s", q) ||
		  curl.url_set(u, CURLUPART_QUERY, qs.buf, CURLU_APPENDQUERY)))
		goto nomem;
	if (params && curl.url_set(u, CURLUPART_QUERY, params, CURLU_APPENDQUERY))
		goto nomem;
	curl.free(q);
	q = NULL;
	rc_strbuf__free(&qs);
	/*
	 * No "Expect: 100-continue", which libcurl sends for bodies past 1 MiB
	 * and then waits a second for: 18.16 does not answer it
	 */
	hdrs = curl.slist_append(NULL, "Content-Type: application/octet-stream");
	more = hdrs ? curl.slist_append(hdrs, "Expect:") : NULL;
	if (!more) {
		curl.slist_free_all(hdrs);
		goto nomem;
	}
	hdrs = more;
	curl.easy_reset(h->curl);
	h->curl_err[0] = '\0';
	curl.easy_setopt(h->curl, CURLOPT_CURLU, u);
	curl.easy_setopt(h->curl, CURLOPT_POST, 1L);
	if (src) {
		curl.easy_setopt(h->curl, CURLOPT_READFUNCTION, on_read);
		curl.easy_setopt(h->curl, CURLOPT_READDATA, src);
		curl.easy_setopt(h->curl, CURLOPT_SEEKFUNCTION, on_seek);
		curl.easy_setopt(h->curl, CURLOPT_SEEKDATA, src);
		/* fewer, larger writes to the socket than its 64 KiB */
		curl.easy_setopt(h->curl, CURLOPT_UPLOAD_BUFFERSIZE, 1L << 20);
	} else {
		curl.easy_setopt(h->curl, CURLOPT_POSTFIELDS, body ? body : "");
	}
	curl.easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl.easy_setopt(h->curl, CURLOPT_HTTPHEADER, hdrs);
	curl.easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_answer);
	curl.easy_setopt(h->curl, CURLOPT_WRITEDATA, a);
	curl.easy_setopt(h->curl, CURLOPT_ERRORBUFFER, h->curl_err);
	curl.easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT, h->timeout_s < 10 ? h->timeout_s : 10L);
	curl.easy_setopt(h->curl, CURLOPT_TIMEOUT, h->timeout_s);
	curl.easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(h->curl, CURLOPT_USERAGENT, "ringcap/" RINGCAP_VERSION);
	cc = curl.easy_perform(h->curl);
	curl.slist_free_all(hdrs);
	if (cc != CURLE_OK) {
		snprintf(err, errlen, "clickhouse at %s: %s", h->url,
			 h->curl_err[0] ? h->curl_err : curl.easy_strerror(cc));
		ret = -EIO;
		goto out;
	}
	curl.easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		answer_line(h, status, a, err, errlen);
		ret = -EIO;
	}
out:
	curl.easy_setopt(h->curl, CURLOPT_CURLU, NULL);
	curl.url_cleanup(u);
	rc_strbuf__free(&own);
	return ret;
nomem:
	curl.free(q);
	curl.url_cleanup(u);
	rc_strbuf__free(&qs);
	snprintf(err, errlen, "out of memory");
	rc_strbuf__free(&own);
	return -ENOMEM;
}

void rc_ch_http__free(struct rc_ch_http *h)
{
	if (!h)
		return;
	if (h->curl)
		curl.easy_cleanup(h->curl);
	curl.url_cleanup(h->base);
	free(h->url);
	free(h);
}

#endif /* RC_NO_CURL */
