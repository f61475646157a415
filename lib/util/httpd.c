// SPDX-License-Identifier: GPL-2.0-only
/*
 * One document over HTTP/1.0-style exchanges (httpd.h): read a request
 * line, answer, close. The listening socket and each connection are
 * non-blocking and polled with a timeout, so that the thread always comes
 * back to its stop pipe within a fraction of a second.
 */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "util/httpd.h"

#define HTTPD_TICK_MS	 200  /* the longest the thread waits before it looks at its stop pipe */
#define HTTPD_HEAD_MS	 1000 /* a request's head, read: a client that says nothing holds up others no longer */
#define HTTPD_CONN_MS	 5000 /* a connection's whole life: request read, answer written */
#define HTTPD_BACKOFF_MS 200  /* after accept() fails but for EAGAIN: out of descriptors, ... */
#define HTTPD_REQ_MAX	 8192 /* a request's head, at most */

struct rc_httpd {
	int fd;	     /* listening */
	int stop[2]; /* a byte written to [1] stops the thread */
	int port;
	pthread_t thread;
	pthread_mutex_t lock; /* over body, len */
	char *body;
	size_t len;
	char path[64], type[96];
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd or the stop pipe until @deadline: >0 ready, 0 time up, <0 stop. */
static int wait_fd(struct rc_httpd *h, int fd, short events, long long deadline)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = events },
				       { .fd = h->stop[0], .events = POLLIN } };
		long long left = deadline - now_ms();
		int n;

		if (left <= 0)
			return 0;
		n = poll(p, 2, left > HTTPD_TICK_MS ? HTTPD_TICK_MS : (int)left);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0 && p[1].revents)
			return -1;
		if (n > 0 && p[0].revents)
			return 1;
	}
}

static bool send_all(struct rc_httpd *h, int fd, const char *p, size_t len, long long deadline)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    wait_fd(h, fd, POLLOUT, deadline) > 0)
			continue;
		return false;
	}
	return true;
}

/* The request's head, up to its blank line: its length, or 0 when none came in time. */
static size_t read_head(struct rc_httpd *h, int fd, char *buf, size_t cap, long long deadline)
{
	size_t len = 0;

	while (len < cap - 1) {
		ssize_t n = recv(fd, buf + len, cap - 1 - len, 0);

		if (n > 0) {
			len += (size_t)n;
			buf[len] = '\0';
			if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
				return len;
			continue;
		}
		if (n == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_fd(h, fd, POLLIN, deadline) > 0)
			continue;
		return 0;
	}
	return 0;
}

static void answer(struct rc_httpd *h, int fd, const char *status, const char *type,
		   const char *body, size_t len, bool head_only, long long deadline)
{
	char hdr[512];
	int n;

	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n",
		     status, type, len);
	if (n > 0 && (size_t)n < sizeof(hdr) && send_all(h, fd, hdr, (size_t)n, deadline) &&
	    !head_only)
		send_all(h, fd, body, len, deadline);
}

static void serve_one(struct rc_httpd *h, int fd)
{
	static const char not_found[] = "not found: ringcap serves its metrics at ";
	long long deadline = now_ms() + HTTPD_CONN_MS;
	char req[HTTPD_REQ_MAX], target[256], msg[512];
	bool head;
	size_t plen = strlen(h->path);
	char *copy = NULL;
	size_t len = 0, want;

	if (!read_head(h, fd, req, sizeof(req), now_ms() + HTTPD_HEAD_MS))
		return;
	head = !strncmp(req, "HEAD ", 5);
	if (!head && strncmp(req, "GET ", 4)) {
		answer(h, fd, "405 Method Not Allowed", "text/plain; charset=utf-8", "", 0, false,
		       deadline);
		return;
	}
	if (sscanf(req + (head ? 5 : 4), "%255s", target) != 1)
		return;
	/* the path, with or without a query string */
	if (strncmp(target, h->path, plen) || (target[plen] && target[plen] != '?')) {
		int n = snprintf(msg, sizeof(msg), "%s%s\n", not_found, h->path);

		answer(h, fd, "404 Not Found", "text/plain; charset=utf-8", msg,
		       n > 0 ? (size_t)n : 0, head, deadline);
		return;
	}
	pthread_mutex_lock(&h->lock);
	want = h->len;
	if (want && (copy = malloc(want))) {
		memcpy(copy, h->body, want);
		len = want;
	}
	pthread_mutex_unlock(&h->lock);
	if (want && !copy)
		answer(h, fd, "503 Service Unavailable", "text/plain; charset=utf-8", "", 0, head,
		       deadline);
	else
		answer(h, fd, "200 OK", h->type, copy ? copy : "", len, head, deadline);
	free(copy);
}

static void *serve(void *arg)
{
	struct rc_httpd *h = arg;

	for (;;) {
		int r = wait_fd(h, h->fd, POLLIN, now_ms() + 3600 * 1000LL);
		int c;

		if (r < 0)
			break;
		if (!r)
			continue;
		c = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c < 0) {
			/*
			 * EAGAIN or a connection reset before it was taken: the
			 * next. Anything else (EMFILE, ENFILE, ENOBUFS) leaves the
			 * connection waiting and the socket readable: a pause on
			 * the stop pipe alone, not a spin.
			 */
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED &&
			    errno != EINTR && wait_fd(h, h->stop[0], POLLIN, now_ms() + HTTPD_BACKOFF_MS) < 0)
				break;
			continue;
		}
		serve_one(h, c);
		close(c);
	}
	return NULL;
}

/* "PORT", "HOST:PORT", "[V6]:PORT" into @host and @port; false when malformed. */
static bool split_addr(const char *addr, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon = strrchr(addr, ':');
	size_t n;

	if (!colon) {
		snprintf(host, hlen, "127.0.0.1");
		n = strlen(addr);
		if (!n || n >= plen)
			return false;
		memcpy(port, addr, n + 1);
		return strspn(port, "0123456789") == n;
	}
	n = (size_t)(colon - addr);
	if (n && addr[0] == '[') {
		if (addr[n - 1] != ']')
			return false;
		addr++;
		n -= 2;
	}
	if (!n || n >= hlen || !colon[1] || strlen(colon + 1) >= plen ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return false;
	memcpy(host, addr, n);
	host[n] = '\0';
	snprintf(port, plen, "%s", colon + 1);
	return true;
}

/*
 * A numeric address only (inet_pton(3)), or "localhost": no resolver, which
 * a static build could not load.
 */
static int listen_on(const char *addr, int *port, char *err, size_t errlen)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	char host[256], serv[16], where[300];
	socklen_t sl;
	long p;
	int fd, one = 1;

	if (!split_addr(addr, host, sizeof(host), serv, sizeof(serv)) ||
	    (p = strtol(serv, NULL, 10)) > 65535) {
		snprintf(err, errlen, "%s: not PORT, ADDRESS:PORT or [IPV6-ADDRESS]:PORT", addr);
		return -1;
	}
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	snprintf(where, sizeof(where), strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, serv);
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)p);
		sl = sizeof(*in4);
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		sl = sizeof(*in6);
	} else {
		snprintf(err, errlen, "%s: '%s' is not a numeric IPv4 or IPv6 address", where, host);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", where, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 16)) {
		snprintf(err, errlen, "%s: %s", where, strerror(errno));
		close(fd);
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		*port = (int)p;
	else
		*port = ntohs(ss.ss_family == AF_INET ? in4->sin_port : in6->sin6_port);
	return fd;
}

struct rc_httpd *rc_httpd__start(const char *addr, const char *path, const char *type, char *err,
				 size_t errlen)
{
	struct rc_httpd *h = calloc(1, sizeof(*h));
	sigset_t all, old;
	int e;

	if (!h) {
		snprintf(err, errlen, "%s: %s", addr, strerror(ENOMEM));
		return NULL;
	}
	h->stop[0] = h->stop[1] = -1;
	snprintf(h->path, sizeof(h->path), "%s", path);
	snprintf(h->type, sizeof(h->type), "%s", type);
	h->fd = listen_on(addr, &h->port, err, errlen);
	if (h->fd < 0)
		goto fail;
	if (pipe2(h->stop, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(err, errlen, "%s: %s", addr, strerror(errno));
		goto fail;
	}
	pthread_mutex_init(&h->lock, NULL);
	/* every signal to the caller's threads: its handlers wake its own waits */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&h->thread, NULL, serve, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		snprintf(err, errlen, "%s: %s", addr, strerror(e));
		pthread_mutex_destroy(&h->lock);
		goto fail;
	}
	return h;
fail:
	if (h->fd >= 0)
		close(h->fd);
	if (h->stop[0] >= 0) {
		close(h->stop[0]);
		close(h->stop[1]);
	}
	free(h);
	return NULL;
}

int rc_httpd__set(struct rc_httpd *h, const void *body, size_t len)
{
	char *copy;

	if (!h)
		return 0;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, body, len);
	pthread_mutex_lock(&h->lock);
	free(h->body);
	h->body = copy;
	h->len = len;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

int rc_httpd__port(const struct rc_httpd *h)
{
	return h->port;
}

void rc_httpd__stop(struct rc_httpd *h)
{
	ssize_t n;

	if (!h)
		return;
	do
		n = write(h->stop[1], "x", 1);
	while (n < 0 && errno == EINTR);
	pthread_join(h->thread, NULL);
	pthread_mutex_destroy(&h->lock);
	close(h->fd);
	close(h->stop[0]);
	close(h->stop[1]);
	free(h->body);
	free(h);
}
