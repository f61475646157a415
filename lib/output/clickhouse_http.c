// SPDX-License-Identifier: GPL-2.0-only
/*
 * ClickHouse's HTTP interface through libcurl (clickhouse_int.h): a
 * well-kept client, with keep-alive, timeouts, proxies and TLS, rather
 * than an HTTP client of our own. Built without it (NO_CURL=1, as a static
 * build may be), every client fails with EOPNOTSUPP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/clickhouse_int.h"

#ifdef RC_NO_CURL

struct rc_ch_http *rc_ch_http__new(const char *url, long timeout_s, char *err, size_t errlen)
{
	snprintf(err, errlen, "ringcap was built without libcurl (make NO_CURL=1): no export");
	errno = EOPNOTSUPP;
	return NULL;
}

int rc_ch_http__post(struct rc_ch_http *h, const char *query, const char *params,
		     const void *body, size_t len, struct rc_strbuf *answer, char *err,
		     size_t errlen)
{
	return -EOPNOTSUPP;
}

void rc_ch_http__free(struct rc_ch_http *h)
{
}

#else

#include <pthread.h>
#include <curl/curl.h>

struct rc_ch_http {
	CURL *curl;
	CURLU *base; /* the URL given, its query string kept: ?user=...&password=... */
	char *url;   /* for messages: no user:password@, no query string */
	long timeout_s;
	char curl_err[CURL_ERROR_SIZE];
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_code;

static void curl_init(void)
{
	curl_init_code = curl_global_init(CURL_GLOBAL_DEFAULT);
}

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
	CURLU *u = curl_url_dup(base);
	char *s = NULL, *ret = NULL;

	if (u && !curl_url_set(u, CURLUPART_USER, NULL, 0) &&
	    !curl_url_set(u, CURLUPART_PASSWORD, NULL, 0) &&
	    !curl_url_set(u, CURLUPART_OPTIONS, NULL, 0) &&
	    !curl_url_set(u, CURLUPART_QUERY, NULL, 0) &&
	    !curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) &&
	    !curl_url_get(u, CURLUPART_URL, &s, 0)) {
		size_t n = strlen(s);

		while (n > 1 && s[n - 1] == '/' && s[n - 2] != '/')
			s[--n] = '\0';
		ret = strdup(s);
	}
	curl_free(s);
	curl_url_cleanup(u);
	return ret;
}

struct rc_ch_http *rc_ch_http__new(const char *url, long timeout_s, char *err, size_t errlen)
{
	struct rc_ch_http *h;
	CURLUcode uc;

	pthread_once(&curl_once, curl_init);
	if (curl_init_code != CURLE_OK) {
		snprintf(err, errlen, "libcurl failed to start: %s",
			 curl_easy_strerror(curl_init_code));
		errno = EIO;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h || !(h->base = curl_url()) || !(h->curl = curl_easy_init())) {
		rc_ch_http__free(h);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	uc = curl_url_set(h->base, CURLUPART_URL, url, CURLU_GUESS_SCHEME);
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
				 "--clickhouse: not a URL (%s): give one like http://127.0.0.1:8123",
				 curl_url_strerror(uc));
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

int rc_ch_http__post(struct rc_ch_http *h, const char *query, const char *params,
		     const void *body, size_t len, struct rc_strbuf *answer, char *err,
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
	if (query && !(q = curl_easy_escape(h->curl, query, 0)))
		goto nomem;
	if (!(u = curl_url_dup(h->base)))
		goto nomem;
	if (q && (rc_strbuf__printf(&qs, "query=%s", q) ||
		  curl_url_set(u, CURLUPART_QUERY, qs.buf, CURLU_APPENDQUERY)))
		goto nomem;
	if (params && curl_url_set(u, CURLUPART_QUERY, params, CURLU_APPENDQUERY))
		goto nomem;
	curl_free(q);
	q = NULL;
	rc_strbuf__free(&qs);
	/*
	 * No "Expect: 100-continue", which libcurl sends for bodies past 1 MiB
	 * and then waits a second for: 18.16 does not answer it
	 */
	hdrs = curl_slist_append(NULL, "Content-Type: application/octet-stream");
	more = hdrs ? curl_slist_append(hdrs, "Expect:") : NULL;
	if (!more) {
		curl_slist_free_all(hdrs);
		goto nomem;
	}
	hdrs = more;
	curl_easy_reset(h->curl);
	h->curl_err[0] = '\0';
	curl_easy_setopt(h->curl, CURLOPT_CURLU, u);
	curl_easy_setopt(h->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body ? body : "");
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_answer);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, h->curl_err);
	curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT, h->timeout_s < 10 ? h->timeout_s : 10L);
	curl_easy_setopt(h->curl, CURLOPT_TIMEOUT, h->timeout_s);
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->curl, CURLOPT_USERAGENT, "ringcap/" RINGCAP_VERSION);
	cc = curl_easy_perform(h->curl);
	curl_slist_free_all(hdrs);
	if (cc != CURLE_OK) {
		snprintf(err, errlen, "clickhouse at %s: %s", h->url,
			 h->curl_err[0] ? h->curl_err : curl_easy_strerror(cc));
		ret = -EIO;
		goto out;
	}
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		answer_line(h, status, a, err, errlen);
		ret = -EIO;
	}
out:
	curl_easy_setopt(h->curl, CURLOPT_CURLU, NULL);
	curl_url_cleanup(u);
	rc_strbuf__free(&own);
	return ret;
nomem:
	curl_free(q);
	curl_url_cleanup(u);
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
		curl_easy_cleanup(h->curl);
	curl_url_cleanup(h->base);
	free(h->url);
	free(h);
}

#endif /* RC_NO_CURL */
