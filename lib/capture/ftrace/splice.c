// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ftrace backend's rings read without mapping them (the default;
 * mapped with --ftrace-read=mmap, rings.c), as trace-cmd reads them: each CPU's
 * per_cpu/cpuN/trace_pipe_raw spliced into a pipe, whole sub-buffers (the
 * kernel's pages) at a time, then read from the pipe into a buffer of
 * ours that c->cur walks.
 *
 * A splice moves only sub-buffers the kernel no longer writes. The one it
 * is writing, the last of a ring, comes with a read() of trace_pipe_raw
 * instead, which copies its committed events into a sub-buffer of the same
 * layout and counts them as read: at each look where a splice finds
 * nothing, so that a CPU that writes slowly gives its events to the
 * watermark in time (a mapped ring shows them in place), and at the stop,
 * where nothing is left behind.
 *
 * Losses: a sub-buffer that follows overwritten events has
 * RB_MISSED_EVENTS in its commit word, and with RB_MISSED_STORED their
 * count after its data. The gap is owed at that sub-buffer's time: the
 * count stored, never more than per_cpu/cpuN/stats says was overwritten
 * and is not yet owed (all of that when no count was stored). The stop
 * owes the rest, so that the ringcap:lost records add up to the kernel's
 * overrun, as with a mapped ring.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/ftrace/ft.h"
#include "util/util.h"
#include "util/sysfs.h"

/*
 * The size of the ring's sub-buffers: buffer_subbuf_size_kb (Linux 6.8),
 * else a page, which is what trace_pipe_raw hands out.
 */
static int subbuf_size(const struct rc_ftrace *f, uint32_t *size)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[PATH_MAX], *text = NULL;
	unsigned long kb;
	char *end;
	int err;

	*size = page;
	err = rc_tracefs_instance__path(&f->inst, path, sizeof(path), "buffer_subbuf_size_kb");
	if (err)
		return err;
	if (rc_sysfs__read(path, SIZE_MAX, &text, NULL))
		return 0; /* no such file: a page */
	text[strcspn(text, "\n")] = '\0';
	errno = 0;
	kb = strtoul(text, &end, 10);
	if (errno || end == text || *end || !kb || kb > (1ul << 20) || (kb << 10) % page) {
		pr_warn("%s: '%s' is not a sub-buffer size ringcap can read (whole pages, up to "
			"1G): report it as a bug\n",
			path, text);
		free(text);
		return -EPROTO;
	}
	free(text);
	*size = kb << 10;
	return 0;
}

static int open_cpu(struct rc_ftrace *f, struct rc_ftrace_cpu *c)
{
	char file[64], path[PATH_MAX];
	int err;

	err = subbuf_size(f, &c->subbuf_size);
	if (err)
		return err;
	c->nr_subbufs = f->buf_size / c->subbuf_size ?: 1;
	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	err = rc_tracefs_instance__path(&f->inst, path, sizeof(path), file);
	if (err)
		return err;
	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		err = -errno;
		pr_warn("cannot open %s: %s\n", path, strerror(errno));
		return err;
	}
	if (pipe2(c->pipe, O_NONBLOCK | O_CLOEXEC)) {
		err = -errno;
		c->pipe[0] = c->pipe[1] = -1;
		pr_warn("cpu %d: cannot make a pipe to splice its ring through: %s\n", c->cpu,
			strerror(errno));
		return err;
	}
	c->pages = malloc((size_t)SPLICE_PAGES * c->subbuf_size);
	return c->pages ? 0 : -ENOMEM;
}

static void close_cpu(struct rc_ftrace_cpu *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->pipe[0] >= 0)
		close(c->pipe[0]);
	if (c->pipe[1] >= 0)
		close(c->pipe[1]);
	free(c->pages);
	c->pages = NULL;
	c->fd = c->pipe[0] = c->pipe[1] = -1;
}

/* Read @len bytes from the pipe, which the splice that returned @len put there. */
static int drain_pipe(struct rc_ftrace_cpu *c, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(c->pipe[0], c->pages + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 && errno != EAGAIN ? -errno : -EIO;

			pr_warn("cpu %d: the pipe gave %zu of the %zu bytes spliced into it: %s\n",
				c->cpu, got, len, strerror(-err));
			return err;
		}
		got += n;
	}
	return 0;
}

/* Splice the sub-buffers the kernel is done with: how many (0: none), or -errno. */
static int splice_pages(struct rc_ftrace_cpu *c)
{
	size_t room = (size_t)SPLICE_PAGES * c->subbuf_size;
	ssize_t n;
	int err;

	do
		n = splice(c->fd, NULL, c->pipe[1], NULL, room, SPLICE_F_NONBLOCK);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n < 0) {
		err = -errno;
		pr_warn("cpu %d: splice from trace_pipe_raw failed: %s\n", c->cpu, strerror(errno));
		return err;
	}
	if ((size_t)n % c->subbuf_size || (size_t)n > room) {
		pr_warn("cpu %d: splice moved %zd bytes, not whole sub-buffers of %u\n", c->cpu, n,
			c->subbuf_size);
		return -EPROTO;
	}
	err = drain_pipe(c, n);
	if (err)
		return err;
	c->npages = n / c->subbuf_size;
	c->next = 0;
	return c->npages;
}

/*
 * read() the events committed to the sub-buffer the kernel is writing: 1
 * when it gave a sub-buffer, 0 when the ring is empty, or -errno. It hands
 * out a whole sub-buffer of bytes each time, but may take reads to do so.
 */
static int read_partial(struct rc_ftrace_cpu *c)
{
	size_t got = 0;

	while (got < c->subbuf_size) {
		ssize_t n = read(c->fd, c->pages + got, c->subbuf_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (!got && (n == 0 || (n < 0 && errno == EAGAIN)))
			return 0;
		if (n <= 0) {
			int err = n < 0 && errno != EAGAIN ? -errno : -EIO;

			pr_warn("cpu %d: trace_pipe_raw gave %zu bytes of a %u-byte sub-buffer: "
				"%s\n",
				c->cpu, got, c->subbuf_size, strerror(-err));
			return err;
		}
		got += n;
	}
	c->npages = 1;
	c->next = 0;
	return 1;
}

/*
 * A sub-buffer that follows overwritten events: owe them at its time (see
 * the top of the file). @len is its bytes of events, already checked.
 */
static void note_missed(struct rc_ftrace *f, struct rc_ftrace_cpu *c, const unsigned char *sb,
			uint32_t commit, uint32_t len)
{
	uint64_t owed = c->overrun + c->lost_pending, stored, more;
	struct rc_ftrace_kstats k;

	if (rc_ftrace__read_kstats(f, c, &k))
		return; /* the stop owes what the stats file says then */
	if (k.overrun <= owed)
		return;
	more = k.overrun - owed;
	if ((commit & MISSED_STORED) && len <= c->subbuf_size - SUBBUF_HDR - sizeof(stored)) {
		memcpy(&stored, sb + SUBBUF_HDR + len, sizeof(stored));
		pr_debug(
		    "cpu %d: %llu events lost before the sub-buffer of %llu, %llu not owed yet\n",
		    c->cpu, (unsigned long long)stored, (unsigned long long)c->cur.ts,
		    (unsigned long long)more);
		if (stored < more)
			more = stored;
	} else {
		pr_debug("cpu %d: events lost before the sub-buffer of %llu, not counted there: "
			 "%llu not owed yet\n",
			 c->cpu, (unsigned long long)c->cur.ts, (unsigned long long)more);
	}
	rc_ftrace__owe_overrun(c, owed + more, c->cur.ts);
}

/* Point c->cur at the events of the next sub-buffer held. */
static void take_page(struct rc_ftrace *f, struct rc_ftrace_cpu *c)
{
	const unsigned char *sb = c->pages + (size_t)c->next++ * c->subbuf_size;
	uint32_t data = c->subbuf_size - SUBBUF_HDR, commit, len;
	uint64_t ts, word;

	memcpy(&ts, sb, sizeof(ts));
	memcpy(&word, sb + 8, sizeof(word));
	/* local_t, flags in bits 30 and 31 (RB_MISSED_EVENTS' int sign above): as committed() */
	commit = (uint32_t)word;
	len = commit & ~COMMIT_FLAGS;
	if (len > data) {
		/* what is past the sub-buffer is not read; what is in it, walked as events */
		if (!f->malformed++)
			pr_warn(
			    "cpu %d: a sub-buffer claims %u bytes of events, of %u: cut there\n",
			    c->cpu, len, data);
		len = data;
	}
	rc_ftrace__note_rate(c);
	c->taken++;
	c->cur = (struct rc_ft_cursor){ .buf = sb + SUBBUF_HDR, .len = len, .ts = ts };
	c->page_ts = ts;
	if (commit & MISSED_EVENTS)
		note_missed(f, c, sb, commit, len);
}

/*
 * The next events: the rest of the sub-buffer c->cur walks, else the next
 * one held, else those spliced now, else those read from the sub-buffer
 * the kernel is writing. 1 when an event is waiting, 0 when none is.
 */
static int refill(struct rc_ftrace *f, struct rc_ftrace_cpu *c)
{
	int r;

	for (;;) {
		if (c->cur.pos < c->cur.len)
			return 1;
		if (c->next < c->npages) {
			take_page(f, c);
			continue;
		}
		r = splice_pages(c);
		if (r == 0)
			r = read_partial(c);
		if (r <= 0)
			return r;
	}
}

const struct rc_ftrace_reader rc_ftrace_splice_reader = {
	.name = "splice",
	.open_cpu = open_cpu,
	.close_cpu = close_cpu,
	.refill = refill,
};
