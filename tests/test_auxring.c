// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AUX consumer (lib/capture/perf/aux.c) against a simulated kernel: a
 * thread plays the kernel's part on a perf_event_mmap_page, a data ring and
 * an AUX area in memory, as kernel/events/ring_buffer.c does it: in forward
 * mode it writes only into room up to aux_tail, and when a stretch does not
 * fit writes what fits, flags it TRUNCATED and disables the event until the
 * reader enables it again; in overwrite mode it writes on regardless; each
 * stretch gets a PERF_RECORD_AUX written before aux_head is published, and a
 * full data ring loses records, said by a PERF_RECORD_LOST once there is
 * room. Every AUX byte is a function of its position, so the reader's bytes
 * are checked one by one. And on the running kernel, a real perf event
 * without an AUX area: the mapping's layout is accepted up to the driver.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include "capture/perf/aux.h"
#include "capture/perf/auxsrc.h"
#include "run_util.h"
#include "test_progs.h"

#define DATA_MAX 8192
#define AUX_SZ	 65536
#define AUX_REC	 56 /* header, offset, size, flags, sample_id */

/* Never zero: the kernel's AUX area is zero where never written. */
static unsigned char byte_at(uint64_t pos)
{
	return (unsigned char)((pos * 2654435761u) >> 13) | 1;
}

/* The simulated kernel, and what it did. */
struct sim {
	unsigned char *page; /* metadata page, then the data area */
	unsigned char *aux;
	struct perf_event_mmap_page *meta;
	bool overwrite;
	uint64_t data_sz; /* the data ring's size */
	uint64_t total;	  /* bytes to try to write, in all */
	unsigned int seed;
	/* the kernel's */
	uint64_t head, dhead, tried;
	uint64_t written, records, truncated, partial, lost_pending, lost_said, rec_lost;
	int disabled; /* atomic: set by a truncation, cleared by the reader */
	int paused;   /* atomic: overwrite: the reader stops the event to read */
	int stopped_ack;
	int done; /* atomic */
};

static uint32_t next_rand(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* A data-ring record: room up to data_tail, else lost, as perf_output_begin(). */
static void put_rec(struct sim *k, uint32_t type, const uint64_t *body, unsigned int nbody)
{
	uint64_t rec[8] = {}, tail = __atomic_load_n(&k->meta->data_tail, __ATOMIC_ACQUIRE);
	struct perf_event_header h = { .type = type, .size = 8 + 8 * nbody + 24 };
	unsigned int i;

	if (k->lost_pending) {
		struct perf_event_header lh = { .type = PERF_RECORD_LOST, .size = 48 };

		if (k->dhead + 48 - tail > k->data_sz) {
			k->lost_pending++;
			k->rec_lost += type == PERF_RECORD_AUX;
			return;
		}
		memcpy(&rec[0], &lh, 8);
		rec[1] = 7;
		rec[2] = k->lost_pending;
		rec[5] = 0; /* cpu 0 */
		for (i = 0; i < 48; i++)
			k->page[4096 + (k->dhead + i) % k->data_sz] = ((unsigned char *)rec)[i];
		k->dhead += 48;
		k->lost_said += k->lost_pending;
		k->lost_pending = 0;
		memset(rec, 0, sizeof(rec));
	}
	if (k->dhead + h.size - tail > k->data_sz) {
		k->lost_pending++;
		k->rec_lost += type == PERF_RECORD_AUX;
		__atomic_store_n(&k->meta->data_head, k->dhead, __ATOMIC_RELEASE);
		return;
	}
	memcpy(&rec[0], &h, 8);
	memcpy(&rec[1], body, 8 * nbody);
	rec[1 + nbody] = 42 | (uint64_t)43 << 32; /* sample_id: pid 42, tid 43 */
	rec[2 + nbody] = k->records;		  /* time */
	for (i = 0; i < h.size; i++)
		k->page[4096 + (k->dhead + i) % k->data_sz] = ((unsigned char *)rec)[i];
	k->dhead += h.size;
	__atomic_store_n(&k->meta->data_head, k->dhead, __ATOMIC_RELEASE);
}

/* One stretch of the PMU's output, as perf_aux_output_begin() and _end() make it. */
static void output(struct sim *k, uint64_t want)
{
	uint64_t tail = __atomic_load_n(&k->meta->aux_tail, __ATOMIC_ACQUIRE), room, n, i;
	uint64_t flags = 0, body[3];

	/* CIRC_SPACE(): one byte is always left free */
	room = k->overwrite		      ? want
	       : k->head - tail >= AUX_SZ - 1 ? 0
					      : AUX_SZ - 1 - (k->head - tail);
	if (!room) { /* no room at all: the event is disabled, nothing said */
		__atomic_store_n(&k->disabled, 1, __ATOMIC_RELEASE);
		return;
	}
	n = want < room ? want : room;
	for (i = 0; i < n; i++)
		k->aux[(k->head + i) % AUX_SZ] = byte_at(k->head + i);
	if (n < want)
		flags |= PERF_AUX_FLAG_TRUNCATED;
	if (k->overwrite)
		flags |= PERF_AUX_FLAG_OVERWRITE;
	if (next_rand(&k->seed) % 7 == 0)
		flags |= PERF_AUX_FLAG_PARTIAL;
	flags |= 0x0100; /* a PMU-specific format bit: kept as it is */
	body[0] = k->head;
	body[1] = n;
	body[2] = flags;
	put_rec(k, PERF_RECORD_AUX, body, 3);
	k->records++;
	k->truncated += !!(flags & PERF_AUX_FLAG_TRUNCATED);
	k->partial += !!(flags & PERF_AUX_FLAG_PARTIAL);
	k->head += n;
	k->written += n;
	/* overwrite mode: the drivers give an offset into the area */
	__atomic_store_n(&k->meta->aux_head, k->overwrite ? k->head % AUX_SZ : k->head,
			 __ATOMIC_RELEASE);
	/* after the record and the head, as the kernel's irq_work does it */
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		__atomic_store_n(&k->disabled, 1, __ATOMIC_RELEASE);
}

static void *kernel_thread(void *arg)
{
	struct sim *k = arg;
	uint64_t body[1] = { 42 | (uint64_t)43 << 32 };

	put_rec(k, PERF_RECORD_ITRACE_START, body, 1);
	body[0] = 0x1234;
	put_rec(k, PERF_RECORD_AUX_OUTPUT_HW_ID, body, 1);
	while (k->tried < __atomic_load_n(&k->total, __ATOMIC_ACQUIRE)) {
		uint64_t want = 1 + next_rand(&k->seed) % 6000;

		if (__atomic_load_n(&k->paused, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&k->stopped_ack, 1, __ATOMIC_RELEASE);
			sched_yield();
			continue;
		}
		__atomic_store_n(&k->stopped_ack, 0, __ATOMIC_RELEASE);
		if (__atomic_load_n(&k->disabled, __ATOMIC_ACQUIRE)) {
			sched_yield();
			continue;
		}
		if (want > k->total - k->tried)
			want = k->total - k->tried;
		k->tried += want;
		output(k, want);
		if (k->overwrite && k->head < 4 * AUX_SZ)
			usleep(20); /* slowly at first: snapshots before the area wraps */
		else if (next_rand(&k->seed) % 4 == 0)
			sched_yield();
	}
	__atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The reader's side: what the sink got, checked as it comes. */
struct got {
	struct sim *k;
	uint64_t bytes, next_pos, bad_bytes, gaps;
	uint64_t records, rec_bytes, truncated, partial, pmu_bits, lost, itrace, hwid;
	uint64_t last_head;  /* overwrite: the head at the previous snapshot */
	uint64_t expect_end; /* overwrite: the true head at this snapshot */
};

static int sink_bytes(void *ctx, int cpu, const struct rc_aux_span *sp)
{
	struct got *g = ctx;
	uint64_t i, pos = sp->pos;
	int piece;

	(void)cpu;
	if (g->expect_end) /* a snapshot: the true positions end at the head */
		pos = g->expect_end - sp->len;
	if (pos != g->next_pos)
		g->gaps++;
	for (piece = 0; piece < 2; piece++)
		for (i = 0; i < sp->n[piece]; i++, pos++)
			g->bad_bytes += sp->p[piece][i] != byte_at(pos);
	g->bytes += sp->len;
	g->next_pos = pos;
	return 0;
}

static int sink_meta(void *ctx, int cpu, const struct rc_aux_meta *m)
{
	struct got *g = ctx;

	(void)cpu;
	switch (m->type) {
	case PERF_RECORD_AUX:
		g->records++;
		g->rec_bytes += m->size;
		g->truncated += !!(m->flags & PERF_AUX_FLAG_TRUNCATED);
		g->partial += !!(m->flags & PERF_AUX_FLAG_PARTIAL);
		g->pmu_bits += (m->flags & PERF_AUX_FLAG_PMU_FORMAT_TYPE_MASK) == 0x0100;
		break;
	case PERF_RECORD_LOST:
		g->lost += m->lost;
		break;
	case PERF_RECORD_ITRACE_START:
		g->itrace += m->pid == 42 && m->tid == 43;
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		g->hwid += m->hw_id == 0x1234;
		break;
	}
	return 0;
}

static int sink_enable(void *ctx, int cpu)
{
	struct got *g = ctx;

	(void)cpu;
	__atomic_store_n(&g->k->disabled, 0, __ATOMIC_RELEASE);
	return 0;
}

static bool sim_init(struct sim *k, struct rc_aux_cpu *ac, bool overwrite, uint64_t data_sz,
		     uint64_t total, unsigned int seed)
{
	memset(k, 0, sizeof(*k));
	memset(ac, 0, sizeof(*ac));
	k->page = aligned_alloc(4096, 4096 + DATA_MAX);
	k->aux = calloc(1, AUX_SZ); /* zero, as the kernel gives it */
	if (!ASSERT_OK_PTR(k->page, "page") || !ASSERT_OK_PTR(k->aux, "aux"))
		return false;
	memset(k->page, 0, 4096 + DATA_MAX);
	k->meta = (void *)k->page;
	k->meta->data_offset = 4096;
	k->meta->data_size = data_sz;
	k->data_sz = data_sz;
	k->overwrite = overwrite;
	k->total = total;
	k->seed = seed;
	return ASSERT_OK(rc_aux_ring__init(&ac->ring, k->page, data_sz, k->aux, AUX_SZ, overwrite),
			 "init");
}

static void sim_free(struct sim *k, struct rc_aux_cpu *ac)
{
	rc_aux_ring__unmap(&ac->ring);
	free(k->page);
	free(k->aux);
}

/*
 * Forward mode: every byte the kernel wrote is read once, in order, with
 * its own value; the records and their flags add up; truncations stop the
 * kernel until the reader has made room and enabled it again. @slow reads
 * rarely from a small data ring, so that it overflows and records are lost: the bytes
 * are not, and the records read and lost add up to those made.
 */
static void forward(bool slow, unsigned int seed)
{
	const struct rc_aux_sink sink = { sink_bytes, sink_meta, sink_enable, NULL };
	struct rc_aux_sink s = sink;
	struct rc_aux_cpu ac;
	time_t deadline = time(NULL) + 120;
	struct got g = {};
	struct sim k;
	pthread_t t;
	long n;

	if (!sim_init(&k, &ac, false, slow ? 512 : DATA_MAX, 16u << 20, seed))
		goto out;
	g.k = &k;
	s.ctx = &g;
	if (!ASSERT_OK(pthread_create(&t, NULL, kernel_thread, &k), "thread"))
		goto out;
	for (;;) {
		bool done = __atomic_load_n(&k.done, __ATOMIC_ACQUIRE);

		n = rc_aux_cpu__read(&ac, &s);
		if (!ASSERT_TRUE(n >= 0, "read") ||
		    !ASSERT_TRUE(time(NULL) < deadline, "the kernel finished within 120 s")) {
			__atomic_store_n(&k.total, 0, __ATOMIC_RELEASE);
			break;
		}
		if (done && !n)
			break;
		if (slow)
			usleep(200);
	}
	pthread_join(t, NULL);
	ASSERT_EQ(g.bad_bytes, 0, "every byte its position's");
	ASSERT_EQ(g.gaps, 0, "positions contiguous: nothing skipped");
	ASSERT_EQ(g.bytes, k.written, "bytes read: those written");
	ASSERT_EQ(ac.n.captured, k.written, "counted captured");
	ASSERT_EQ(ac.n.made, k.written, "counted made: aux_head's advance");
	ASSERT_TRUE(ac.n.enables >= g.truncated, "enabled at each read");
	ASSERT_EQ(ac.n.lost, 0, "forward mode: nothing overwritten");
	ASSERT_EQ(g.records + k.rec_lost, k.records, "AUX records: read + lost = made");
	ASSERT_EQ(g.lost, k.lost_said, "PERF_RECORD_LOST counts what was said");
	ASSERT_EQ(ac.n.meta_lost, k.lost_said, "counted meta_lost");
	ASSERT_EQ(g.pmu_bits, g.records, "PMU format bits kept");
	ASSERT_EQ(ac.n.truncated, g.truncated, "counted truncated");
	ASSERT_EQ(ac.n.bad, 0, "no bad record");
	if (!slow) {
		ASSERT_EQ(k.rec_lost, 0, "a prompt reader loses no record");
		ASSERT_EQ(g.rec_bytes, k.written, "records describe every byte");
		ASSERT_EQ(g.truncated, k.truncated, "truncations said");
		ASSERT_EQ(g.itrace + g.hwid, 2, "ITRACE_START and AUX_OUTPUT_HW_ID");
	} else {
		ASSERT_TRUE(k.rec_lost > 0, "records lost (the data ring is small)");
	}
	printf("    %s: %llu bytes, %llu records (%llu lost), %llu truncated, %llu partial\n",
	       slow ? "slow" : "prompt", (unsigned long long)g.bytes, (unsigned long long)k.records,
	       (unsigned long long)k.rec_lost, (unsigned long long)k.truncated,
	       (unsigned long long)k.partial);
out:
	sim_free(&k, &ac);
}

void test_aux_ring_forward(void)
{
	if (test__start_subtest("prompt"))
		forward(false, 1);
	if (test__start_subtest("slow"))
		forward(true, 2);
}

/*
 * Overwrite mode: the kernel writes on; the reader stops it, reads, and
 * starts it again (a snapshot). Each snapshot holds the newest bytes up
 * to aux_head, at most the area's size, with their own values; those
 * written since the last snapshot and not in it are counted lost.
 */
void test_aux_ring_overwrite(void)
{
	const struct rc_aux_sink sink = { sink_bytes, sink_meta, sink_enable, NULL };
	struct rc_aux_sink s = sink;
	struct rc_aux_cpu ac;
	struct got g = {};
	uint64_t snaps = 0, wrapped = 0, bad = 0;
	struct sim k;
	pthread_t t;

	if (!sim_init(&k, &ac, true, DATA_MAX, 64u << 20, 3))
		goto out;
	g.k = &k;
	s.ctx = &g;
	if (!ASSERT_OK(pthread_create(&t, NULL, kernel_thread, &k), "thread"))
		goto out;
	while (!__atomic_load_n(&k.done, __ATOMIC_ACQUIRE)) {
		uint64_t head, since, before = g.bytes;
		long n;

		usleep(snaps % 3 == 2 ? 3000 : 100);
		__atomic_store_n(&k.paused, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&k.stopped_ack, __ATOMIC_ACQUIRE) &&
		       !__atomic_load_n(&k.done, __ATOMIC_ACQUIRE))
			sched_yield();
		head = k.head; /* the true count: the kernel's head is an offset */
		since = head - g.last_head;
		g.expect_end = head;
		g.next_pos = head - (head >= AUX_SZ ? AUX_SZ : since); /* where it must start */
		n = rc_aux_cpu__read(&ac, &s);
		if (!ASSERT_TRUE(n >= 0, "read"))
			break;
		/* before the area wraps, the bytes since the last; after, all of it */
		bad += since && g.bytes - before != (head >= AUX_SZ ? AUX_SZ : since);
		wrapped += head >= AUX_SZ;
		g.last_head = head;
		snaps++;
		__atomic_store_n(&k.paused, 0, __ATOMIC_RELEASE);
	}
	pthread_join(t, NULL);
	g.expect_end = k.head;
	g.next_pos = k.head - (k.head >= AUX_SZ ? AUX_SZ : k.head - g.last_head);
	rc_aux_cpu__read(&ac, &s); /* the last, at exit */
	ASSERT_EQ(g.bad_bytes, 0, "every byte its position's");
	ASSERT_EQ(g.gaps, 0, "each snapshot ends at the head");
	ASSERT_EQ(bad, 0, "each snapshot: the bytes since the last, or the whole area");
	ASSERT_EQ(ac.n.made, ac.n.captured, "made: what was captured (overwritten: not known)");
	ASSERT_EQ(ac.n.enables, 0, "overwrite mode: the reader stops and starts the event");
	ASSERT_TRUE(wrapped > 0 && ac.n.wraps > 0, "some snapshots came after a wrap");
	ASSERT_TRUE(snaps > wrapped, "some before");
	printf("    %llu snapshots (%llu after a wrap): %llu bytes\n", (unsigned long long)snaps,
	       (unsigned long long)wrapped, (unsigned long long)ac.n.captured);
out:
	sim_free(&k, &ac);
}

/* Bad records in the data ring: counted, skipped to the head, never read past. */
void test_aux_ring_bad_meta(void)
{
	struct rc_perf_rec rec = { .type = PERF_RECORD_AUX, .size = 32 };
	unsigned char buf[64] = {};
	struct rc_aux_meta m;

	rec.data = buf;
	ASSERT_EQ(rc_aux__parse_meta(&rec, &m), -EBADMSG, "AUX record without its sample_id");
	rec.size = 56;
	ASSERT_EQ(rc_aux__parse_meta(&rec, &m), 1, "AUX record whole");
	rec.type = PERF_RECORD_SAMPLE;
	ASSERT_EQ(rc_aux__parse_meta(&rec, &m), 0, "another type: skipped");
	rec.type = PERF_RECORD_LOST;
	rec.size = 40;
	ASSERT_EQ(rc_aux__parse_meta(&rec, &m), -EBADMSG, "LOST too short");
}

/*
 * A real perf event on the running kernel, of a PMU without an AUX area
 * (cpu-clock): the kernel checks the AUX mapping's layout (offset, size,
 * a power of two) before it asks the driver, which says EOPNOTSUPP. So
 * EOPNOTSUPP here, not EINVAL, is the kernel accepting the layout.
 */
void test_aux_ring_kernel(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000,
		.disabled = 1,
	};
	size_t page = sysconf(_SC_PAGESIZE);
	struct rc_aux_ring a;
	int fd;

	if (!need_root())
		return;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (!ASSERT_TRUE(fd >= 0, "perf_event_open cpu-clock"))
		return;
	ASSERT_EQ(rc_aux_ring__map(&a, fd, 2 * page, 4 * page, false), -EOPNOTSUPP,
		  "layout accepted; the PMU has no AUX area");
	ASSERT_EQ(rc_aux_ring__map(&a, fd, 2 * page, 4 * page, true), -EOPNOTSUPP,
		  "overwrite: the same");
	ASSERT_EQ(rc_aux_ring__map(&a, fd, 2 * page, 3 * page, false), -EINVAL,
		  "3 pages: not a power of two");
	ASSERT_EQ(rc_aux_ring__map(&a, fd, 3 * page, 4 * page, false), -EINVAL,
		  "data area of 3 pages");
	ASSERT_EQ(a.data.fd, -1, "nothing left mapped");
	close(fd);
}

/*
 * The attr every AUX event gets, on a PMU that, like every AUX PMU, lacks
 * PERF_PMU_CAP_NO_NMI: a breakpoint. The kernel opens it; with
 * use_clockid CLOCK_BOOTTIME (not NMI-safe) it refuses it, which is why
 * the events keep perf's clock and their times are moved when read.
 */
void test_aux_attr_kernel(void)
{
	static volatile int watched;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (uintptr_t)&watched,
		.bp_len = HW_BREAKPOINT_LEN_4,
		.sample_period = 1,
	};
	int fd;

	if (!need_root())
		return;
	/* the breakpoint event as it is, before ringcap touches the attr */
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ENODEV || errno == EOPNOTSUPP)) {
		test__skip("this kernel has no breakpoint events: no PMU without NO_NMI to try");
		return;
	}
	if (fd >= 0)
		close(fd);
	rc_auxsrc__set_attr(&attr, false, 1u << 20, false);
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (!ASSERT_TRUE(fd >= 0, "the AUX attr opens on a PMU without NO_NMI"))
		return;
	close(fd);
	attr.use_clockid = 1;
	attr.clockid = CLOCK_BOOTTIME;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_TRUE(fd < 0 && errno == EINVAL, "with CLOCK_BOOTTIME: refused");
	if (fd >= 0)
		close(fd);
}

/* One line of stderr, and nothing that is a library's dump. */
static void one_line(const char *err, const char *what)
{
	const char *nl = err ? strchr(err, '\n') : NULL;

	ASSERT_TRUE(nl && !nl[1], what);
	ASSERT_TRUE(err && !strstr(err, "libbpf") && !strstr(err, "perf_event_open"),
		    "no library's dump");
}

/*
 * On this machine (no AUX-capable PMU) -e intel_pt//u is refused with one
 * line that names the PMU, says the machine has none, and lists its PMUs;
 * no file is left. A PMU without an AUX stream, and ftrace's transport,
 * are refused as clearly. With a tree of PMUs of the test's own
 * (RINGCAP_PMU_ROOT) whose intel_pt is the software PMU, the real path
 * runs up to the kernel: the events open on every CPU, and mapping their
 * AUX area is refused by the driver, said in one line.
 */
void test_aux_refuse(void)
{
	const char *out = tmpfile_path("aux.rcap"), *root = tmpfile_path("pmus");
	char dir[4200], *rc = (char *)bin("ringcap");
	struct run r = {};
	FILE *f;

	if (!need_root())
		return;
	if (access("/sys/bus/event_source/devices/intel_pt", F_OK) == 0) {
		test__skip("this machine has intel_pt: the refusal is not what it does");
		return;
	}
	ASSERT_EQ(run_sync(&r,
			   (char *[]){ rc, "record", "-e", "intel_pt//u", "-o", (char *)out, "--",
				       "true", NULL },
			   30000),
		  1, "intel_pt//u: exit 1");
	ASSERT_HAS(r.err, "this machine has no PMU 'intel_pt'", "names the PMU, says none here");
	ASSERT_HAS(r.err, "its PMUs: ", "lists the PMUs it has");
	ASSERT_HAS(r.err, "software", "software among them");
	one_line(r.err, "one line");
	ASSERT_TRUE(access(out, F_OK) != 0, "no file left");
	run_free(&r);

	ASSERT_EQ(run_sync(&r,
			   (char *[]){ rc, "record", "-e", "syscalls,intel_pt/cyc,noretcomp/", "-o",
				       (char *)out, "--", "true", NULL },
			   30000),
		  1, "beside syscalls, terms with a comma: exit 1");
	ASSERT_HAS(r.err, "no PMU 'intel_pt'", "the PMU spec kept whole");
	one_line(r.err, "one line");
	run_free(&r);

	ASSERT_EQ(run_sync(&r,
			   (char *[]){ rc, "record", "-e", "software//", "-o", (char *)out, "--",
				       "true", NULL },
			   30000),
		  1, "software//: exit 1");
	ASSERT_HAS(r.err, "writes no AUX stream", "a PMU without an AUX stream");
	one_line(r.err, "one line");
	run_free(&r);

	ASSERT_EQ(run_sync(&r,
			   (char *[]){ rc, "record", "--transport", "ftrace", "-e", "intel_pt//u",
				       "-o", (char *)out, "--", "true", NULL },
			   30000),
		  64, "--transport ftrace: bad arguments, exit 64");
	ASSERT_HAS(r.err, "drop --transport ftrace", "ftrace refused, the fix named");
	run_free(&r);

	/* intel_pt, played by the software PMU: the kernel says it has no AUX area */
	snprintf(dir, sizeof(dir), "%s/intel_pt", root);
	if (!ASSERT_OK(mkdir(root, 0755), "mkdir") || !ASSERT_OK(mkdir(dir, 0755), "mkdir"))
		goto out;
	snprintf(dir, sizeof(dir), "%s/intel_pt/type", root);
	f = fopen(dir, "w");
	if (!ASSERT_OK_PTR(f, "type file"))
		goto out;
	fprintf(f, "%d\n", PERF_TYPE_SOFTWARE);
	fclose(f);
	setenv("RINGCAP_PMU_ROOT", root, 1);
	ASSERT_EQ(run_sync(&r,
			   (char *[]){ rc, "record", "-e", "syscalls,intel_pt//u", "-o",
				       (char *)out, "--", "true", NULL },
			   30000),
		  1, "no AUX area: exit 1");
	unsetenv("RINGCAP_PMU_ROOT");
	ASSERT_HAS(r.err, "cannot map a 4096 KiB AUX area on CPU 0", "the mapping named");
	ASSERT_HAS(r.err, "(the PMU has no AUX area)", "the cause");
	one_line(r.err, "one line");
	ASSERT_TRUE(access(out, F_OK) != 0, "no file left");
	run_free(&r);
out:
	tmpdir_cleanup();
}
