/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One document served over HTTP from a thread of its own (lib/util/httpd.c):
 * record --metrics' /metrics. The thread answers one connection at a time,
 * each bounded by a timeout, and never takes a lock the caller holds for
 * longer than a copy: a slow, stuck or absent scraper costs the caller
 * nothing.
 */
#ifndef RINGCAP_UTIL_HTTPD_H
#define RINGCAP_UTIL_HTTPD_H

#include <stddef.h>

struct rc_httpd;

/**
 * rc_httpd__start() - listen, and serve from a thread
 * @addr: "PORT" (on 127.0.0.1), "ADDRESS:PORT" or "[IPV6-ADDRESS]:PORT";
 *        ADDRESS numeric, or "localhost"
 * @path: the document's path ("/metrics"); other paths get 404
 * @type: its Content-Type
 * @err: on failure, why, naming the address: "127.0.0.1:9100: Address
 *       already in use"
 * @errlen: bytes at @err
 *
 * Until the first rc_httpd__set(), the document is empty.
 *
 * Return: the server, or NULL with @err filled.
 */
struct rc_httpd *rc_httpd__start(const char *addr, const char *path, const char *type, char *err,
				 size_t errlen);

/**
 * rc_httpd__set() - the document served from now on
 * @h: the server (NULL: nothing)
 * @body: its bytes, copied
 * @len: how many
 *
 * Return: 0, or -ENOMEM (the document before stays).
 */
int rc_httpd__set(struct rc_httpd *h, const void *body, size_t len);

/**
 * rc_httpd__port() - the port listened on (for a PORT of 0: the kernel's choice)
 * @h: the server
 *
 * Return: the port.
 */
int rc_httpd__port(const struct rc_httpd *h);

/**
 * rc_httpd__stop() - stop the thread, close the socket and free @h
 * @h: the server, or NULL
 */
void rc_httpd__stop(struct rc_httpd *h);

#endif /* RINGCAP_UTIL_HTTPD_H */
