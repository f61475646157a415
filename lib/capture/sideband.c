// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's side-band records: the dummy events, their reading thread, and
 * what it hands to the writer's symbolizer (sideband.h).
 *
 * Why a thread of its own, rather than the drain's: the drain waits on a
 * different thing per transport (a BPF ring buffer's epoll, the perf
 * rings' poll, or nothing at all with --drain busy), and the side-band
 * must be read within milliseconds of a mapping, whatever the drain does;
 * its work is small (an open and an fstat per code mapping of a file).
 * The symbolizer stays the writer's alone: the thread hands records over
 * under a lock, and only the writer parses files.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "util/util.h"
#include "capture/sideband.h"
#include "capture/perf/ring.h"
#include "symbol/usym.h"
#include "util/file.h"
#include "util/keymap.h"
#include "util/mem.h"

#define RING_BYTES   (128u << 10) /* each CPU's data ring: 2^n pages */
#define PENDING_MAX  65536	  /* records waiting for the writer, at most */
#define SAMPLE_ID_SZ 24		  /* sample_id_all's trailer: pid, tid, time, cpu, res */
#define SYNC_WAIT_MS 500	  /* rc_sideband__sync(): a pass of the thread waited for, at most */

enum note_kind { NOTE_EXEC, NOTE_FORK, NOTE_MAP };

/* What a record said, for the writer. */
struct note {
	uint64_t ts, seq;
	enum note_kind kind;
	int pid, ppid;
	struct rc_usym_mapping mp; /* NOTE_MAP: mp.path is malloc()'d, mp.fd ours until handed */
};

struct rc_sideband {
	int ncpus;
	int *fds; /* -1 where a CPU is offline */
	struct rc_perf_ring *rings;
	int stop_fd;	 /* an eventfd: the thread's end */
	uint64_t ts_fix; /* added to each record's time: the boot clock's lead, if not on it */
	pthread_t thr;
	bool running;
	bool stop;		/* atomic: the thread's end, also told through @stop_fd */
	struct rc_keymap files; /* the identities of the files handed over with their fd */
	uint32_t nfiles;
	uint64_t seq;
	pthread_mutex_t mu; /* guards what follows */
	pthread_cond_t passed; /* @pass_ts moved on, or the thread is done */
	uint64_t pass_ts;      /* the boot clock when the last whole pass over the rings began */
	bool done;	       /* the thread returned */
	struct note *q;
	size_t nq, qcap;
	struct rc_sideband_stats st;
};

static int perf_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Each CPU's dummy event. What this kernel lacks is left out at the first
 * CPU: build-ids (5.12), ksymbol (4.19), the boot clock for this PMU.
 */
static int open_cpu(struct rc_sideband *sb, struct perf_event_attr *a, int cpu)
{
	int fd;

	for (;;) {
		fd = perf_open(a, cpu);
		if (fd >= 0 || errno != EINVAL)
			return fd;
		if (a->build_id) {
			a->build_id = 0;
		} else if (a->ksymbol) {
			a->ksymbol = 0;
		} else if (a->clockid == CLOCK_BOOTTIME) {
			a->clockid = CLOCK_MONOTONIC;
			sb->ts_fix = rc_now_ns(CLOCK_BOOTTIME) - rc_now_ns(CLOCK_MONOTONIC);
		} else {
			return -1;
		}
	}
}

struct rc_sideband *rc_sideband__open(int ncpus)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		.disabled = 1,
		.mmap = 1,
		.comm = 1,
		.task = 1,
		.watermark = 1, /* a wakeup at each record: see it while the process lives */
		.sample_id_all = 1,
		.mmap2 = 1,
		.comm_exec = 1,
		.use_clockid = 1,
		.ksymbol = 1,
		.build_id = 1,
		.wakeup_watermark = 1,
		.clockid = CLOCK_BOOTTIME, /* bpf_ktime_get_boot_ns(): the records' time */
	};
	struct rc_sideband *sb = calloc(1, sizeof(*sb));
	pthread_condattr_t ca;
	int cpu, err, opened = 0;

	if (!sb)
		return NULL;
	pthread_mutex_init(&sb->mu, NULL);
	if (pthread_condattr_init(&ca)) {
		free(sb);
		errno = ENOMEM;
		return NULL;
	}
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	err = pthread_cond_init(&sb->passed, &ca);
	pthread_condattr_destroy(&ca);
	if (err) {
		pthread_mutex_destroy(&sb->mu);
		free(sb);
		errno = err;
		return NULL;
	}
	sb->ncpus = ncpus;
	sb->stop_fd = -1;
	sb->fds = malloc(ncpus * sizeof(*sb->fds));
	sb->rings = calloc(ncpus, sizeof(*sb->rings));
	if (!sb->fds || !sb->rings) {
		err = -ENOMEM;
		goto err_out;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		sb->fds[cpu] = -1;
		sb->rings[cpu].fd = -1;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		int fd = open_cpu(sb, &a, cpu);

		if (fd < 0 && errno == ENODEV)
			continue; /* offline */
		if (fd < 0) {
			err = -errno;
			goto err_out;
		}
		sb->fds[cpu] = fd;
		err = rc_perf_ring__map(&sb->rings[cpu], fd, RING_BYTES, false);
		if (err)
			goto err_out;
		opened++;
	}
	if (!opened) {
		err = -ENODEV;
		goto err_out;
	}
	sb->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sb->stop_fd < 0) {
		err = -errno;
		goto err_out;
	}
	pr_debug("side-band: dummy events on %d CPUs%s%s, %s\n", opened,
		 a.build_id ? ", build-ids" : "", a.ksymbol ? ", ksymbol" : "",
		 a.clockid == CLOCK_BOOTTIME ? "CLOCK_BOOTTIME" : "CLOCK_MONOTONIC");
	return sb;
err_out:
	rc_sideband__free(sb);
	errno = -err;
	return NULL;
}

/* ---- the reading thread ------------------------------------------------- */

static void note_drop(struct note *n)
{
	if (n->kind == NOTE_MAP) {
		if (n->mp.fd >= 0)
			close(n->mp.fd);
		free((char *)n->mp.path);
	}
}

static void queue(struct rc_sideband *sb, struct note *n)
{
	int err = 0;

	pthread_mutex_lock(&sb->mu);
	if (sb->nq >= PENDING_MAX)
		err = -ENOSPC;
	else
		err = rc_ensure_arr(&sb->q, &sb->qcap, sb->nq + 1, 256);
	if (!err) {
		n->seq = sb->seq++;
		sb->q[sb->nq++] = *n;
		sb->st.maps += n->kind == NOTE_MAP;
		sb->st.opened += n->kind == NOTE_MAP && n->mp.has_st;
		sb->st.execs += n->kind == NOTE_EXEC;
		sb->st.forks += n->kind == NOTE_FORK;
	} else {
		sb->st.dropped++;
	}
	pthread_mutex_unlock(&sb->mu);
	if (err)
		note_drop(n);
}

/* A file's identity, as the symbolizer's dsos are found by (symbol/usym.h). */
struct file_id {
	uint64_t dev, ino, size, mtime, mtime_ns, ctime, ctime_ns;
};

static void file_id_of(const struct stat *st, struct file_id *id)
{
	memset(id, 0, sizeof(*id));
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime = st->st_mtim.tv_sec;
	id->mtime_ns = st->st_mtim.tv_nsec;
	id->ctime = st->st_ctim.tv_sec;
	id->ctime_ns = st->st_ctim.tv_nsec;
}

/*
 * The file of code mapping @n, opened now: through map_files, which gives
 * the very file mapped (deleted, or in another mount namespace), else by
 * its path under the process's root, else, the process gone, by its path
 * here. A file whose identity was handed
 * over already is closed again: the writer finds it by its identity.
 */
static void open_mapping(struct rc_sideband *sb, struct note *n, const char *path)
{
	struct file_id id;
	char buf[PATH_MAX + 64];
	size_t len = strlen(path);
	uint32_t found;
	int k, fd;

	n->mp.fd = -1;
	if (path[0] != '/')
		return;
	k = snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, n->pid,
		     n->mp.start, n->mp.end);
	fd = k > 0 && (size_t)k < sizeof(buf) ? rc_open_regular(buf) : -1;
	if (fd < 0 && (len < 10 || strcmp(path + len - 10, " (deleted)"))) {
		k = snprintf(buf, sizeof(buf), "/proc/%d/root%s", n->pid, path);
		errno = ENAMETOOLONG;
		if (k > 0 && (size_t)k < sizeof(buf))
			fd = rc_open_regular(buf);
		/*
		 * Gone already (a loaded machine kept us from it): the path as
		 * we see it, as the /proc snapshot does; a build-id from the
		 * kernel that this file does not have rules it out later.
		 */
		if (fd < 0 && (errno == ENOENT || errno == ESRCH))
			fd = rc_open_regular(path);
	}
	if (fd < 0)
		return;
	if (fstat(fd, &n->mp.st) || !S_ISREG(n->mp.st.st_mode)) {
		close(fd);
		return;
	}
	n->mp.has_st = true;
	file_id_of(&n->mp.st, &id);
	if (rc_keymap__intern(&sb->files, &id, sizeof(id), sb->nfiles, &found) == 1) {
		sb->nfiles++;
		n->mp.fd = fd;
		return;
	}
	close(fd); /* known already (or no memory to know it: its path is left) */
}

/* The time of a record, from its sample_id_all trailer; false if it has none. */
static bool rec_time(struct rc_sideband *sb, const struct rc_perf_rec *rec, size_t body,
		     uint64_t *ts)
{
	if (rec->size < sizeof(struct perf_event_header) + body + SAMPLE_ID_SZ)
		return false;
	memcpy(ts, (const unsigned char *)rec->data + rec->size - SAMPLE_ID_SZ + 8, sizeof(*ts));
	*ts += sb->ts_fix;
	return true;
}

/* PERF_RECORD_MMAP2: pid, tid, addr, len, pgoff, file or build-id (24), prot, flags, name */
static void on_mmap2(struct rc_sideband *sb, const struct rc_perf_rec *rec)
{
	const unsigned char *p =
	    (const unsigned char *)rec->data + sizeof(struct perf_event_header);
	struct note n = { .kind = NOTE_MAP };
	uint32_t pid, prot;
	uint64_t addr, len;
	size_t max, nlen;
	char *path;

	if (!rec_time(sb, rec, 64 + 8, &n.ts))
		return;
	memcpy(&pid, p, 4);
	memcpy(&addr, p + 8, 8);
	memcpy(&len, p + 16, 8);
	memcpy(&n.mp.pgoff, p + 24, 8);
	memcpy(&prot, p + 56, 4);
	if (!(prot & PROT_EXEC) || !len || addr + len < addr || pid > INT32_MAX)
		return;
	if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		n.mp.build_id_size = p[32] < sizeof(n.mp.build_id) ? p[32] : sizeof(n.mp.build_id);
		memcpy(n.mp.build_id, p + 36, n.mp.build_id_size);
	}
	max = rec->size - sizeof(struct perf_event_header) - 64 - SAMPLE_ID_SZ;
	nlen = strnlen((const char *)p + 64, max);
	path = malloc(nlen + 1);
	if (!path) {
		pthread_mutex_lock(&sb->mu);
		sb->st.dropped++;
		pthread_mutex_unlock(&sb->mu);
		return;
	}
	memcpy(path, p + 64, nlen);
	path[nlen] = '\0';
	n.pid = pid;
	n.mp.start = addr;
	n.mp.end = addr + len;
	n.mp.path = path;
	open_mapping(sb, &n, path);
	queue(sb, &n);
}

static void on_record(struct rc_sideband *sb, const struct rc_perf_rec *rec)
{
	const unsigned char *p =
	    (const unsigned char *)rec->data + sizeof(struct perf_event_header);
	struct note n = {};
	uint32_t v[2];
	uint64_t lost;

	switch (rec->type) {
	case PERF_RECORD_MMAP2:
		on_mmap2(sb, rec);
		return;
	case PERF_RECORD_COMM: /* pid, tid, comm */
		if (!(rec->misc & PERF_RECORD_MISC_COMM_EXEC) || !rec_time(sb, rec, 8, &n.ts))
			return;
		memcpy(v, p, sizeof(v));
		if (v[0] != v[1] || v[0] > INT32_MAX)
			return; /* a thread's exec: the leader's tid is the process's by then */
		n.kind = NOTE_EXEC;
		n.pid = v[0];
		queue(sb, &n);
		return;
	case PERF_RECORD_FORK: /* pid, ppid, tid, ptid, time */
		if (!rec_time(sb, rec, 24, &n.ts))
			return;
		memcpy(v, p, sizeof(v));
		if (v[0] == v[1] || v[0] > INT32_MAX || v[1] > INT32_MAX)
			return; /* a new thread */
		n.kind = NOTE_FORK;
		n.pid = v[0];
		n.ppid = v[1];
		queue(sb, &n);
		return;
	case PERF_RECORD_LOST: /* id, lost */
		if (rec->size < sizeof(struct perf_event_header) + 16)
			return;
		memcpy(&lost, p + 8, sizeof(lost));
		pthread_mutex_lock(&sb->mu);
		sb->st.lost += lost;
		pthread_mutex_unlock(&sb->mu);
		return;
	default: /* EXIT: its mappings stay, for the samples still to come; KSYMBOL */
		return;
	}
}

static void read_rings(struct rc_sideband *sb)
{
	/* what the kernel published before now is read in this pass */
	uint64_t n = 0, start = rc_now_ns(CLOCK_BOOTTIME);
	int cpu;

	for (cpu = 0; cpu < sb->ncpus; cpu++) {
		struct rc_perf_ring *r = &sb->rings[cpu];
		struct rc_perf_rec rec;
		uint64_t pos, head;

		if (r->fd < 0)
			continue;
		head = rc_perf_ring__head(r);
		pos = r->meta->data_tail;
		while (rc_perf_ring__next(r, &pos, head, &rec) > 0) {
			on_record(sb, &rec);
			n++;
		}
		rc_perf_ring__store_tail(r, head);
	}
	pthread_mutex_lock(&sb->mu);
	sb->st.records += n;
	sb->pass_ts = start;
	pthread_cond_broadcast(&sb->passed);
	pthread_mutex_unlock(&sb->mu);
}

static void reader_done(struct rc_sideband *sb)
{
	pthread_mutex_lock(&sb->mu);
	sb->done = true;
	pthread_cond_broadcast(&sb->passed);
	pthread_mutex_unlock(&sb->mu);
}

static void *reader_main(void *arg)
{
	struct rc_sideband *sb = arg;
	struct pollfd *pfd = calloc(sb->ncpus + 1, sizeof(*pfd));
	const char *lag = getenv("RINGCAP_SIDEBAND_LAG_MS");
	int cpu, n = 0, nwait, timeout = 50;
	uint64_t kicks;

	if (!pfd) {
		pr_warn("side-band: out of memory: mappings are read from /proc alone\n");
		reader_done(sb);
		return NULL;
	}
	pfd[n].fd = sb->stop_fd;
	pfd[n++].events = POLLIN;
	for (cpu = 0; cpu < sb->ncpus; cpu++) {
		if (sb->fds[cpu] < 0)
			continue;
		pfd[n].fd = sb->fds[cpu];
		pfd[n++].events = POLLIN;
	}
	/* a thread that lags (tests): the rings read every LAG ms, or when asked */
	nwait = n;
	if (lag && atoi(lag) > 0) {
		timeout = atoi(lag);
		nwait = 1;
	}
	for (;;) {
		/* a timeout too: a wakeup the kernel folded into another is not waited for long */
		int k = poll(pfd, nwait, timeout);

		if (k < 0 && errno != EINTR) {
			pr_warn("side-band: poll: %s\n", strerror(errno));
			break;
		}
		/* woken by rc_sideband__sync() or __free(): clear it (@stop says which) */
		if (k > 0 && (pfd[0].revents & POLLIN) &&
		    read(sb->stop_fd, &kicks, sizeof(kicks)) < 0 && errno != EAGAIN)
			pr_debug("side-band: eventfd: %s\n", strerror(errno));
		read_rings(sb);
		if (__atomic_load_n(&sb->stop, __ATOMIC_ACQUIRE))
			break;
	}
	free(pfd);
	reader_done(sb);
	return NULL;
}

int rc_sideband__start(struct rc_sideband *sb)
{
	int cpu, err;

	for (cpu = 0; cpu < sb->ncpus; cpu++)
		if (sb->fds[cpu] >= 0 && ioctl(sb->fds[cpu], PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	err = rc_thread_start(&sb->thr, reader_main, sb);
	if (err)
		return -err;
	sb->running = true;
	return 0;
}

/* ---- the writer's side ---------------------------------------------------- */

static int note_cmp(const void *pa, const void *pb)
{
	const struct note *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * The thread hands a file's descriptor with the first mapping of it that
 * it reads, CPU after CPU: in time order, a mapping of the same file on
 * a ring read later may come first, and the symbolizer, finding no file
 * of that identity yet and no descriptor, would leave it unnamed. The
 * descriptor goes to the first in time. What was applied before holds it
 * already: the descriptor was with a record read earlier, so applied at
 * the latest with this one.
 */
static void fds_to_first(struct note *q, size_t nq)
{
	struct rc_keymap first = {};
	struct file_id id;
	uint32_t at;
	size_t i;

	for (i = 0; i < nq; i++) {
		struct note *n = &q[i];

		if (n->kind != NOTE_MAP || !n->mp.has_st)
			continue;
		file_id_of(&n->mp.st, &id);
		if (rc_keymap__intern(&first, &id, sizeof(id), i, &at) != 0)
			continue; /* the first (or no memory: left as it is) */
		if (n->mp.fd >= 0 && q[at].mp.fd < 0) {
			q[at].mp.fd = n->mp.fd;
			n->mp.fd = -1;
		}
	}
	rc_keymap__free(&first);
}

int rc_sideband__apply(struct rc_sideband *sb, struct rc_usym *u)
{
	struct note *q;
	size_t i, nq;
	int err = 0, e;

	if (!sb)
		return 0;
	pthread_mutex_lock(&sb->mu);
	q = sb->q;
	nq = sb->nq;
	sb->q = NULL;
	sb->nq = sb->qcap = 0;
	pthread_mutex_unlock(&sb->mu);
	if (!nq)
		return 0; /* q is NULL: qsort() must not see it */
	/* in time order: each CPU's ring is, the rings together are not */
	qsort(q, nq, sizeof(*q), note_cmp);
	fds_to_first(q, nq);
	for (i = 0; i < nq; i++) {
		struct note *n = &q[i];

		switch (n->kind) {
		case NOTE_EXEC:
			e = rc_usym__note_image(u, n->pid, n->ts, 0);
			break;
		case NOTE_FORK:
			e = rc_usym__note_image(u, n->pid, n->ts, n->ppid);
			break;
		default:
			e = rc_usym__note_map(u, n->pid, n->ts, &n->mp); /* takes the fd */
			n->mp.fd = -1;
			break;
		}
		note_drop(n);
		if (e == -ENOMEM)
			err = e;
	}
	free(q);
	return err;
}

void rc_sideband__sync(struct rc_sideband *sb, uint64_t ts)
{
	uint64_t one = 1, until;
	struct timespec abs;

	if (!sb || !sb->running)
		return;
	until = rc_now_ns(CLOCK_MONOTONIC) + SYNC_WAIT_MS * 1000000ull;
	abs.tv_sec = until / 1000000000ull;
	abs.tv_nsec = until % 1000000000ull;
	pthread_mutex_lock(&sb->mu);
	if (sb->pass_ts <= ts && !sb->done &&
	    write(sb->stop_fd, &one, sizeof(one)) != sizeof(one))
		pr_debug("side-band: cannot wake its thread: %s\n", strerror(errno));
	while (sb->pass_ts <= ts && !sb->done)
		if (pthread_cond_timedwait(&sb->passed, &sb->mu, &abs) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&sb->mu);
}

struct rc_sideband_stats rc_sideband__stats(struct rc_sideband *sb)
{
	struct rc_sideband_stats st;

	pthread_mutex_lock(&sb->mu);
	st = sb->st;
	pthread_mutex_unlock(&sb->mu);
	return st;
}

void rc_sideband__free(struct rc_sideband *sb)
{
	uint64_t one = 1;
	size_t i;
	int cpu;

	if (!sb)
		return;
	if (sb->running) {
		__atomic_store_n(&sb->stop, true, __ATOMIC_RELEASE);
		/* failing, the thread sees @stop at its poll's timeout */
		if (write(sb->stop_fd, &one, sizeof(one)) != sizeof(one))
			pr_debug("side-band: cannot wake its thread: %s\n", strerror(errno));
		pthread_join(sb->thr, NULL);
	}
	for (cpu = 0; sb->rings && cpu < sb->ncpus; cpu++)
		rc_perf_ring__unmap(&sb->rings[cpu]);
	for (cpu = 0; sb->fds && cpu < sb->ncpus; cpu++)
		if (sb->fds[cpu] >= 0)
			close(sb->fds[cpu]);
	for (i = 0; i < sb->nq; i++)
		note_drop(&sb->q[i]);
	if (sb->stop_fd >= 0)
		close(sb->stop_fd);
	rc_keymap__free(&sb->files);
	free(sb->q);
	free(sb->rings);
	free(sb->fds);
	pthread_cond_destroy(&sb->passed);
	pthread_mutex_destroy(&sb->mu);
	free(sb);
}
