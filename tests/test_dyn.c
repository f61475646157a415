// SPDX-License-Identifier: GPL-2.0-only
/*
 * Events described at record time: tracepoints by name, decoded from the
 * format stored in the capture; uprobes; a user's BPF object decoded from
 * its BTF. Real programs, a workload with a known count, exact checks.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/types.h>
#include "capture_util.h"
#include "events.h"
#include "run_util.h"
#include "test_progs.h"

/* One event's records in a capture, with the file's counters for it. */
struct dyn_facts {
	long nrec;  /* records of the event */
	long other; /* records of other events */
	uint64_t made, dropped, captured;
	bool truncated;
};

/* Call @check on every record of event @name; counts into @f. */
static int walk(const char *path, const char *name, struct dyn_facts *f,
		bool (*check)(const struct rc_meta *m, const struct rc_event_desc *ev,
			      const struct rc_rec_hdr *rec, long i, void *ctx),
		void *ctx)
{
	const struct rc_event_desc *ev;
	const struct rc_rec_hdr *rec;
	const struct rc_stats *st;
	const struct rc_meta *m;
	struct rc_reader *r;
	long bad = 0;
	uint32_t i;
	int err;

	memset(f, 0, sizeof(*f));
	r = rc_reader__open(path);
	if (!r)
		return -errno;
	m = rc_reader__meta(r);
	ev = rc_schema__event_by_name(m->schema, name);
	if (!ev) {
		rc_reader__free(r);
		return -ENOENT;
	}
	while ((err = rc_reader__next(r, &rec)) > 0) {
		if (rec->type != ev->id) {
			f->other++;
			continue;
		}
		if (check && !check(m, ev, rec, f->nrec, ctx) && bad++ < 5)
			fprintf(stderr, "record %ld of %s is not as expected\n", f->nrec, name);
		f->nrec++;
	}
	f->truncated = rc_reader__truncated(r);
	if (rc_reader__corrupt(r, NULL)) /* a recorder's file is never damaged */
		test__fail(__FILE__, __LINE__, "read", "%s", rc_reader__error(r));
	st = rc_reader__stats(r);
	for (i = 0; st && i < st->nentries; i++) {
		if (st->entries[i].type != ev->id)
			continue;
		f->made += st->entries[i].made;
		f->dropped += st->entries[i].dropped;
		f->captured += st->entries[i].captured;
	}
	rc_reader__free(r);
	return err ?: (bad ? -EBADMSG : 0);
}

static uint64_t field_u64(const struct rc_event_desc *ev, const void *rec, const char *name,
			  unsigned int idx)
{
	const struct rc_field *f = rc_event__field(ev, name);

	return f ? rc_field__u64(f, rec, idx) : UINT64_MAX;
}

static int64_t field_s64(const struct rc_event_desc *ev, const void *rec, const char *name)
{
	const struct rc_field *f = rc_event__field(ev, name);

	return f ? rc_field__s64(f, rec, 0) : INT64_MIN;
}

/* A string field (a char array or __data_loc) of @rec, decoded into @buf. */
static const char *field_str(const struct rc_meta *m, const struct rc_event_desc *ev,
			     const void *rec, const char *name, char *buf, size_t len)
{
	const struct rc_field *f = rc_event__field(ev, name);
	struct rc_strbuf sb = {};

	snprintf(buf, len, "<none>");
	if (f && !rc_decode__field(&sb, m->schema, f, rec))
		snprintf(buf, len, "%.*s", (int)sb.len, sb.buf);
	rc_strbuf__free(&sb);
	return buf;
}

/* Note @key about event @event of the capture at @path, into @buf ("" when none). */
static const char *note_of(const char *path, const char *event, const char *key, char *buf,
			   size_t len)
{
	struct rc_reader *r = rc_reader__open(path);
	const struct rc_event_desc *ev;
	const struct rc_note *n = NULL;

	buf[0] = '\0';
	if (!r)
		return buf;
	ev = rc_schema__event_by_name(rc_reader__meta(r)->schema, event);
	if (ev)
		n = rc_meta__note(rc_reader__meta(r), ev->id, key);
	if (n)
		snprintf(buf, len, "%.*s", (int)n->len, (const char *)n->data);
	rc_reader__free(r);
	return buf;
}

#define N_SIG 300

struct sig_ctx {
	pid_t pid;
};

static bool check_generate(const struct rc_meta *m, const struct rc_event_desc *ev,
			   const struct rc_rec_hdr *rec, long i, void *ctx)
{
	struct sig_ctx *c = ctx;
	char comm[32];

	if (!c->pid)
		c->pid = rec->pid;
	return field_s64(ev, rec, "sig") == 10 && field_s64(ev, rec, "pid") == c->pid &&
	       field_s64(ev, rec, "result") == 0 && field_s64(ev, rec, "code") == 0 &&
	       !strcmp(field_str(m, ev, rec, "comm", comm, sizeof(comm)), "rc_workload") &&
	       (pid_t)rec->pid == c->pid && !strcmp(rec->comm, "rc_workload");
}

static bool check_deliver(const struct rc_meta *m, const struct rc_event_desc *ev,
			  const struct rc_rec_hdr *rec, long i, void *ctx)
{
	struct sig_ctx *c = ctx;

	return field_s64(ev, rec, "sig") == 10 && (pid_t)rec->pid == c->pid &&
	       field_u64(ev, rec, "sa_handler", 0) != 0;
}

/*
 * signal:* has no decoder of ringcap's own: every field comes from the
 * tracepoint's format, stored in the capture. N handled SIGUSR1s to
 * itself: N signal_generate and N signal_deliver, with the right values.
 */
void test_dyn_tracepoint(void)
{
	const char *out = tmpfile_path("sig.rcap");
	struct sig_ctx c = {};
	struct dyn_facts f;
	struct run r = {};
	char n[16];

	if (!need_root())
		return;
	snprintf(n, sizeof(n), "%d", N_SIG);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-e",
					    "signal:*", "-o", (char *)out, "--",
					    (char *)bin("rc_workload"), "signal", n, NULL },
				120000),
		       0, "record"))
		goto out;
	if (ASSERT_OK(walk(out, "signal:signal_generate", &f, check_generate, &c), "generate")) {
		ASSERT_EQ(f.nrec, N_SIG, "signal_generate records");
		ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
		ASSERT_EQ(f.captured, N_SIG, "captured, as counted");
		ASSERT_TRUE(!f.truncated, "complete");
	}
	if (ASSERT_OK(walk(out, "signal:signal_deliver", &f, check_deliver, &c), "deliver")) {
		ASSERT_EQ(f.nrec, N_SIG, "signal_deliver records");
		ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
	}
out:
	run_free(&r);
	tmpdir_cleanup();
}

#define N_SEEK 3000

static bool check_seek_enter(const struct rc_meta *m, const struct rc_event_desc *ev,
			     const struct rc_rec_hdr *rec, long i, void *ctx)
{
	return field_u64(ev, rec, "__syscall_nr", 0) == SYS_lseek &&
	       (uint32_t)field_u64(ev, rec, "fd", 0) == UINT32_MAX &&
	       field_u64(ev, rec, "offset", 0) == (uint64_t)i &&
	       field_u64(ev, rec, "whence", 0) == SEEK_SET;
}

static bool check_seek_exit(const struct rc_meta *m, const struct rc_event_desc *ev,
			    const struct rc_rec_hdr *rec, long i, void *ctx)
{
	return field_u64(ev, rec, "__syscall_nr", 0) == SYS_lseek &&
	       field_s64(ev, rec, "ret") == -EBADF;
}

/*
 * syscalls:sys_enter_NAME and sys_exit_NAME go through the raw sys_enter
 * and sys_exit tracepoints (handle_sc_*), and their records are the
 * kernel's syscall events' byte for byte: N numbered lseek() calls, each
 * an entry with its number and arguments and an exit with its error, for
 * both BPF rings. syscalls:sys_enter_getppid's bytes are checked in
 * matrix_tracepoint, on every kernel of the matrix.
 */
void test_dyn_syscall_events(void)
{
	const char *out = tmpfile_path("seek.rcap");
	static const char *const transports[] = { "ringbuf", "perfbuf" };
	struct dyn_facts f;
	struct run r = {};
	char n[16];
	size_t t;

	if (!need_root())
		return;
	snprintf(n, sizeof(n), "%d", N_SEEK);
	for (t = 0; t < 2; t++) {
		test__start_subtest(transports[t]);
		if (!ASSERT_EQ(run_sync(&r,
					(char *[]){ (char *)bin("ringcap"), "record", "-vv",
						    "--transport", (char *)transports[t], "-e",
						    "syscalls:sys_enter_lseek,syscalls:sys_exit_lseek",
						    "-o", (char *)out, "--", (char *)bin("rc_workload"),
						    "seq", n, NULL },
					120000),
			       0, "record"))
			goto next;
		ASSERT_TRUE(strstr(r.err, "handle_sc_enter, on the raw tracepoint") &&
				    strstr(r.err, "handle_sc_exit, on the raw tracepoint"),
			    "recorded from the raw tracepoints");
		if (ASSERT_OK(walk(out, "syscalls:sys_enter_lseek", &f, check_seek_enter, NULL),
			      "entries")) {
			ASSERT_EQ(f.nrec, N_SEEK, "an entry a call");
			ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
			ASSERT_EQ(f.captured, f.nrec, "captured, as counted");
		}
		if (ASSERT_OK(walk(out, "syscalls:sys_exit_lseek", &f, check_seek_exit, NULL),
			      "exits")) {
			ASSERT_EQ(f.nrec, N_SEEK, "an exit a call");
			ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
		}
next:
		run_free(&r);
	}
	tmpdir_cleanup();
}

/*
 * rc_workload args' calls: an entry of each size but lseek's three
 * arguments (1, 2, 4, 5, 6), each argument's value @base + @step * i at
 * the i-th call, none 0 (a store left out of a fresh reservation reads 0)
 */
static const struct sc_args {
	const char *event;
	long nr;
	const char *arg[6];
	uint64_t base[6], step[6];
} sc_args[] = {
	{ "syscalls:sys_enter_close", SYS_close, { "fd" }, { 1000000 }, { 1 } },
	{ "syscalls:sys_enter_flock", SYS_flock, { "fd", "cmd" }, { 1000000, 2000 }, { 1, 1 } },
	{ "syscalls:sys_enter_pread64", SYS_pread64, { "fd", "buf", "count", "pos" },
	  { 1000000, 0x1000, 3000, 4000 }, { 1, 1, 1, 1 } },
	{ "syscalls:sys_enter_waitid", SYS_waitid, { "which", "upid", "infop", "options", "ru" },
	  { P_PID, 0x3ff00000, 0xffff800000008000ull, WEXITED, 0xffff800000009000ull },
	  { 0, 1, 1, 0, 1 } },
	{ "syscalls:sys_enter_sendto", SYS_sendto,
	  { "fd", "buff", "len", "flags", "addr", "addr_len" },
	  { 1000000, 0x5000, 6000, 0x40, 0x7000, 16 }, { 1, 1, 1, 0, 1, 1 } },
};

static bool check_args(const struct rc_meta *m, const struct rc_event_desc *ev,
		       const struct rc_rec_hdr *rec, long i, void *ctx)
{
	const struct sc_args *a = ctx;
	size_t k;

	if (field_u64(ev, rec, "__syscall_nr", 0) != (uint64_t)a->nr)
		return false;
	for (k = 0; k < 6 && a->arg[k]; k++)
		if (field_u64(ev, rec, a->arg[k], 0) != a->base[k] + a->step[k] * (uint64_t)i)
			return false;
	return true;
}

#define N_ARGS 2000

/*
 * The entries of every size the raw tracepoint's program builds (in its
 * ring reservation on a BPF ring buffer, a path for each size; in a
 * per-CPU buffer for perf rings): each argument of each call exact, on
 * both transports. lseek's three arguments and the exit's size are
 * test_dyn_syscall_events'.
 */
void test_dyn_syscall_args(void)
{
	const char *out = tmpfile_path("args.rcap");
	static const char *const transports[] = { "ringbuf", "perfbuf" };
	char n[16], events[512] = "";
	struct dyn_facts f;
	struct run r = {};
	size_t t, k;

	if (!need_root())
		return;
	snprintf(n, sizeof(n), "%d", N_ARGS);
	for (k = 0; k < (sizeof(sc_args) / sizeof(sc_args[0])); k++)
		snprintf(events + strlen(events), sizeof(events) - strlen(events), "%s%s",
			 k ? "," : "", sc_args[k].event);
	for (t = 0; t < 2; t++) {
		test__start_subtest(transports[t]);
		if (!ASSERT_EQ(run_sync(&r,
					(char *[]){ (char *)bin("ringcap"), "record", "-q",
						    "--transport", (char *)transports[t], "-e",
						    events, "-o", (char *)out, "--",
						    (char *)bin("rc_workload"), "args", n, NULL },
					120000),
			       0, "record"))
			goto next;
		for (k = 0; k < (sizeof(sc_args) / sizeof(sc_args[0])); k++) {
			if (!ASSERT_OK(walk(out, sc_args[k].event, &f, check_args,
					    (void *)&sc_args[k]),
				       sc_args[k].event))
				continue;
			ASSERT_EQ(f.nrec, N_ARGS, "an entry a call");
			ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
			ASSERT_EQ(f.captured, f.nrec, "captured, as counted");
		}
next:
		run_free(&r);
	}
	tmpdir_cleanup();
}

struct exec_ctx {
	const char *path;
	long matched;
};

static bool check_exec(const struct rc_meta *m, const struct rc_event_desc *ev,
		       const struct rc_rec_hdr *rec, long i, void *ctx)
{
	struct exec_ctx *c = ctx;
	char name[4096];

	if (!strcmp(field_str(m, ev, rec, "filename", name, sizeof(name)), c->path))
		c->matched++;
	return true;
}

/*
 * A __data_loc string: sched_process_exec's filename, through the generic
 * program (a glob, not ringcap's own sched:sched_process_exec).
 */
void test_dyn_data_loc(void)
{
	const char *out = tmpfile_path("exec.rcap");
	struct exec_ctx c = { .path = "/bin/true" };
	struct dyn_facts f;
	struct run r = {};
	char note[4096];

	if (!need_root())
		return;
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ (char *)bin("ringcap"), "record", "-q", "-e",
				     "sched:sched_process_exe?", "-o", (char *)out, "--",
				     (char *)bin("rc_workload"), "forkexec", "/bin/true", NULL },
			 120000),
		0, "record"))
		goto out;
	if (ASSERT_OK(walk(out, "sched:sched_process_exec", &f, check_exec, &c), "walk")) {
		ASSERT_EQ(c.matched, 1, "one exec of /bin/true, its filename decoded");
		ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
	}
	ASSERT_HAS(note_of(out, "sched:sched_process_exec", "format", note, sizeof(note)),
		   "__data_loc char[] filename", "the format text is stored");
out:
	run_free(&r);
	tmpdir_cleanup();
}

#define N_PROBE 1000

/*
 * Without binutils (the arm64 guests of make vmtest): the build-id from the
 * file's PT_NOTE segments, read by hand, not by libelf as ringcap reads it.
 */
static void note_build_id(const char *path, char hex[128])
{
	unsigned char buf[1 << 16];
	const Elf64_Ehdr *eh = (const void *)buf;
	FILE *f = fopen(path, "rb");
	size_t len = f ? fread(buf, 1, sizeof(buf), f) : 0;
	unsigned int i;

	if (f)
		fclose(f);
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(buf + eh->e_phoff + i * sizeof(*ph));
		size_t off;

		if (eh->e_phoff + (i + 1) * sizeof(*ph) > len)
			return;
		if (ph->p_type != PT_NOTE || ph->p_offset + ph->p_filesz > len)
			continue;
		for (off = ph->p_offset; off + sizeof(Elf64_Nhdr) <= ph->p_offset + ph->p_filesz;) {
			const Elf64_Nhdr *nh = (const void *)(buf + off);
			size_t name = off + sizeof(*nh), desc = name + ((nh->n_namesz + 3) & ~3u);
			unsigned int k;

			if (desc + nh->n_descsz > len)
				return;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(buf + name, "GNU", 4) && nh->n_descsz <= 63) {
				for (k = 0; k < nh->n_descsz; k++)
					sprintf(hex + 2 * k, "%02x", buf[desc + k]);
				return;
			}
			off = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

/* The build-id as binutils reads it: an independent witness. */
static void readelf_build_id(const char *path, char hex[128])
{
	char cmd[4200], line[512];
	FILE *p;

	if (system("command -v readelf >/dev/null 2>&1")) {
		note_build_id(path, hex);
		return;
	}
	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		char *s = strstr(line, "Build ID: ");

		if (s && sscanf(s + 10, "%127s", hex) == 1)
			break;
	}
	if (p)
		pclose(p);
}

static bool check_uprobe(const struct rc_meta *m, const struct rc_event_desc *ev,
			 const struct rc_rec_hdr *rec, long i, void *ctx)
{
	return field_u64(ev, rec, "args", 0) == (uint64_t)i &&
	       field_u64(ev, rec, "args", 1) == 1000 + (uint64_t)i &&
	       !strcmp(rec->comm, "rc_workload");
}

static bool check_uretprobe(const struct rc_meta *m, const struct rc_event_desc *ev,
			    const struct rc_rec_hdr *rec, long i, void *ctx)
{
	return field_u64(ev, rec, "ret", 0) == 1000 + 2 * (uint64_t)i;
}

/* rc_probe_target(i, 1000 + i), N times: N hits in order, N returns, the build-id stored. */
void test_dyn_uprobe(void)
{
	const char *out = tmpfile_path("probe.rcap");
	char up[4200], uret[4200], n[16], rp[4096];
	char note[4096], hex[128] = "";
	struct dyn_facts f;
	struct run r = {};

	if (!need_root())
		return;
	snprintf(n, sizeof(n), "%d", N_PROBE);
	if (!ASSERT_OK_PTR(realpath(bin("rc_workload"), rp), "realpath"))
		return;
	snprintf(up, sizeof(up), "uprobe:%s:rc_probe_target", rp);
	snprintf(uret, sizeof(uret), "uretprobe:%s:rc_probe_target", rp);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-e", up, "-e",
					    uret, "-o", (char *)out, "--",
					    (char *)bin("rc_workload"), "probe", n, NULL },
				120000),
		       0, "record"))
		goto out;
	if (ASSERT_OK(walk(out, "uprobe:rc_workload:rc_probe_target", &f, check_uprobe, NULL),
		      "uprobe")) {
		ASSERT_EQ(f.nrec, N_PROBE, "uprobe hits");
		ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
		ASSERT_EQ(f.captured, N_PROBE, "captured, as counted");
	}
	if (ASSERT_OK(walk(out, "uretprobe:rc_workload:rc_probe_target", &f, check_uretprobe, NULL),
		      "uretprobe"))
		ASSERT_EQ(f.nrec, N_PROBE, "uretprobe hits");
	readelf_build_id(rp, hex);
	ASSERT_STREQ(note_of(out, "uprobe:rc_workload:rc_probe_target", "path", note, sizeof(note)),
		     rp, "binary path stored");
	ASSERT_TRUE(hex[0] != '\0', "readelf found a build-id");
	ASSERT_STREQ(
	    note_of(out, "uprobe:rc_workload:rc_probe_target", "build_id", note, sizeof(note)), hex,
	    "build-id stored");
out:
	run_free(&r);
	tmpdir_cleanup();
}

#define N_RT 500

static const char *rt_color(long seq)
{
	return seq % 3 == 0 ? "RT_RED" : seq % 3 == 1 ? "RT_GREEN" : "RT_BLUE";
}

/* What report prints for record @seq of tests/bpf/roundtrip.bpf.c, as text or JSON. */
static void rt_expect(const char *fmt, long s, char *buf, size_t len)
{
	if (!strcmp(fmt, "text"))
		snprintf(buf, len,
			 "comm=rc_workload seq=%ld inner.a=%ld inner.b=%ld inner.c=[%ld,1,2] "
			 "arr=[%ld,%ld,%ld,%ld] color=%s tag=tg%ld neg=%ld",
			 s, 3 * s, -s, s & 0xff, s, s + 1, s + 2, s + 3, rt_color(s), (3 + s) % 10,
			 -s);
	else
		snprintf(buf, len,
			 "\"comm\":\"rc_workload\",\"seq\":%ld,\"inner\":{\"a\":%ld,\"b\":%ld,"
			 "\"c\":[%ld,1,2]},\"arr\":[%ld,%ld,%ld,%ld],\"color\":\"%s\","
			 "\"tag\":\"tg%ld\",\"neg\":%ld}}",
			 s, 3 * s, -s, s & 0xff, s, s + 1, s + 2, s + 3, rt_color(s), (3 + s) % 10,
			 -s);
}

/* Split a CSV line (no quoted cells here) in place. */
static int csv_split(char *line, char **cells, int max)
{
	int n = 0;

	while (n < max) {
		cells[n++] = line;
		line = strchr(line, ',');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

/* The CSV row of record @s: each of the struct's columns, by name. */
static bool rt_csv_row(char **hdr, int nh, char **cells, int nc, long s)
{
	char want[8][96];
	static const char *const names[8] = { "seq", "inner.a", "inner.b", "inner.c",
					      "arr", "color",	"tag",	   "neg" };
	int i, k, ok = 0;

	snprintf(want[0], sizeof(want[0]), "%ld", s);
	snprintf(want[1], sizeof(want[1]), "%ld", 3 * s);
	snprintf(want[2], sizeof(want[2]), "%ld", -s);
	snprintf(want[3], sizeof(want[3]), "%ld 1 2", s & 0xff);
	snprintf(want[4], sizeof(want[4]), "%ld %ld %ld %ld", s, s + 1, s + 2, s + 3);
	snprintf(want[5], sizeof(want[5]), "%s", rt_color(s));
	snprintf(want[6], sizeof(want[6]), "tg%ld", (3 + s) % 10);
	snprintf(want[7], sizeof(want[7]), "%ld", -s);
	for (k = 0; k < 8; k++)
		for (i = 0; i < nh && i < nc; i++)
			if (!strcmp(hdr[i], names[k]) && !strcmp(cells[i], want[k]))
				ok++;
	return ok == 8;
}

/* Count the records report --format @fmt shows exactly as they were made, in order. */
static long rt_check(const char *path, const char *fmt)
{
	char *argv[] = { (char *)bin("ringcap"), "report",     "--format", (char *)fmt, "--event",
			 "bpf:rt_event",	 (char *)path, NULL };
	char want[512], *hdr[256], *cells[256], *line, *save = NULL;
	struct run r = {};
	int nh = 0;
	long seq = 0;

	if (run_sync(&r, argv, 60000) != 0) {
		fprintf(stderr, "report --format %s: %s\n", fmt, r.err ? r.err : "?");
		run_free(&r);
		return -1;
	}
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool ok;

		if (!strcmp(fmt, "csv") && !nh) {
			nh = csv_split(line, hdr, 256);
			continue;
		}
		if (!strcmp(fmt, "csv")) {
			ok = rt_csv_row(hdr, nh, cells, csv_split(line, cells, 256), seq);
		} else {
			/* the struct's fields: after the header's columns */
			const char *p =
			    strstr(line, !strcmp(fmt, "text") ? "bpf:rt_event:" : "\"fields\":");

			p = p ? strstr(p, !strcmp(fmt, "text") ? "comm=" : "\"comm\":") : NULL;

			rt_expect(fmt, seq, want, sizeof(want));
			ok = p && !strcmp(p, want);
			if (!ok)
				fprintf(stderr,
					"report --format %s, record %ld:\n  got  %s\n  want %s\n",
					fmt, seq, line, want);
		}
		if (!ok)
			break;
		seq++;
	}
	run_free(&r);
	return seq;
}

/*
 * A BPF object of the user's, with a nested struct, arrays, char arrays
 * and an enum, and --set for its globals: every record decoded from the
 * object's BTF, exactly, in text, JSON and CSV.
 */
void test_dyn_bpf_object(void)
{
	const char *out = tmpfile_path("rt.rcap"), *raw = tmpfile_path("raw.rcap");
	char obj[4096], n[16];
	struct dyn_facts f;
	struct run r = {};

	if (!need_root())
		return;
	snprintf(obj, sizeof(obj), "%s", bin("tests/bpf/roundtrip.bpf.o"));
	snprintf(n, sizeof(n), "%d", N_RT);
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ (char *)bin("ringcap"), "record", "-q", "--bpf", obj,
				     "--event-type", "rt_event", "--set", "target_comm=rc_workload",
				     "--set", "tag_base=3", "-o", (char *)out, "--",
				     (char *)bin("rc_workload"), "getppid", n, NULL },
			 120000),
		0, "record"))
		goto out;
	if (ASSERT_OK(walk(out, "bpf:rt_event", &f, NULL, NULL), "walk")) {
		ASSERT_EQ(f.nrec, N_RT, "one record a getppid");
		ASSERT_EQ(f.captured, N_RT, "captured, as counted");
		ASSERT_EQ(f.other, 0, "nothing else");
	}
	ASSERT_EQ(rt_check(out, "text"), N_RT, "text");
	ASSERT_EQ(rt_check(out, "json"), N_RT, "json");
	ASSERT_EQ(rt_check(out, "csv"), N_RT, "csv");
	run_free(&r);

	/* the wrong struct: nothing misparsed, every record kept as bytes, and said */
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "--bpf", obj,
					    "--event-type", "rt_inner", "--set",
					    "target_comm=rc_workload", "-o", (char *)raw, "--",
					    (char *)bin("rc_workload"), "getppid", n, NULL },
				120000),
		       0, "record, wrong struct"))
		goto out;
	ASSERT_TRUE(strstr(r.err, "not the size of struct rt_inner") != NULL, "record warns");
	if (ASSERT_OK(walk(raw, "bpf:rt_events:raw", &f, NULL, NULL), "raw"))
		ASSERT_EQ(f.nrec, N_RT, "every record raw");
	run_free(&r);
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "report", (char *)raw, NULL },
			       60000),
		      0, "report raw")) {
		ASSERT_TRUE(strstr(r.err, "not the size of bpf:rt_inner") != NULL, "report warns");
		ASSERT_TRUE(strstr(r.out, "bpf:rt_events:raw: data=[") != NULL, "shown as bytes");
	}
out:
	run_free(&r);
	tmpdir_cleanup();
}

/* --bpf over a perf event array, both CPUs at once: what the order check saw. */
struct pa_order {
	uint64_t prev_ts;
	long backwards, max_behind, far_behind, cpu_of[2];
	uint64_t max_seq;
	uint32_t pid[2];
	long mixed; /* a pid's records on another CPU than its first */
};

static bool check_pa_order(const struct rc_meta *m, const struct rc_event_desc *ev,
			   const struct rc_rec_hdr *rec, long i, void *ctx)
{
	struct pa_order *o = ctx;
	uint64_t seq = field_u64(ev, rec, "seq", 0);
	int k;

	o->backwards += rec->ts < o->prev_ts;
	o->prev_ts = rec->ts;
	if (i && seq < o->max_seq && (long)(o->max_seq - seq) > o->max_behind)
		o->max_behind = o->max_seq - seq;
	if (i && seq + 64 < o->max_seq)
		o->far_behind++;
	if (!i || seq > o->max_seq)
		o->max_seq = seq;
	for (k = 0; k < 2; k++) {
		if (!o->pid[k]) {
			o->pid[k] = rec->pid;
			o->cpu_of[k] = rec->cpu;
		}
		if (o->pid[k] == rec->pid) {
			o->mixed += o->cpu_of[k] != (long)rec->cpu;
			break;
		}
	}
	return rec->pid == field_u64(ev, rec, "pid", 0) && rec->tid == field_u64(ev, rec, "tid", 0);
}

/*
 * record --bpf with a perf event array, a workload on each CPU at once: the
 * kernel stamps each record as it writes it, and the CPUs' rings are merged
 * by that time. A record's sequence number (taken from one counter just
 * before output) is hardly ever far behind the file's highest so far;
 * stamped when read, a whole ring would come before the other's, and half
 * the records would be.
 */
void test_dyn_bpf_perf_order(void)
{
	const char *out = tmpfile_path("pa.rcap");
	struct pa_order o = {};
	struct dyn_facts f;
	struct run r = {};
	char obj[4096];

	if (!need_root())
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		test__skip("needs 2 online CPUs");
		return;
	}
	/* the test's own object, not ringcap, needs the kernel's atomics (not ringcap's probe) */
	if (!kernel_at_least(5, 12)) {
		test__skip("the sequence counter of tests/bpf/perfarray_atomic.bpf.c needs BPF "
			   "atomic fetch-add (Linux 5.12)");
		return;
	}
	snprintf(obj, sizeof(obj), "%s", bin("tests/bpf/perfarray_atomic.bpf.o"));
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ (char *)bin("ringcap"), "record", "-q", "--bpf", obj,
				     "--event-type", "pa_event", "--set", "target_comm=rc_workload",
				     "-o", (char *)out, "--", (char *)bin("rc_workload"), "uneven",
				     "20000", "20000", NULL },
			 120000),
		0, "record"))
		goto out;
	if (ASSERT_OK(walk(out, "bpf:pa_event", &f, check_pa_order, &o), "walk")) {
		ASSERT_EQ(f.nrec + f.dropped, 40000, "a record a getppid, or a drop");
		ASSERT_EQ(o.backwards, 0, "timestamps never go backwards");
		printf("    a record at most %ld behind the highest sequence number, "
		       "%ld more than 64 behind\n",
		       o.max_behind, o.far_behind);
		/*
		 * A program can stop between taking its number and its output
		 * while the other CPU runs on: under TCG (make vmtest), where
		 * one host thread runs the vCPUs in turn, for hundreds of calls
		 * (602 seen), and on a shared host whenever the hypervisor
		 * takes the vCPU away. Each such stop puts one record far
		 * behind; a ring read whole puts thousands there.
		 */
		ASSERT_TRUE(o.far_behind <= 40000 / 100, "merged in the kernel's time order");
		ASSERT_TRUE(o.pid[0] && o.pid[1] && o.cpu_of[0] != o.cpu_of[1],
			    "two processes, on two CPUs");
		ASSERT_EQ(o.mixed, 0, "each process's records on its own CPU");
	}
out:
	run_free(&r);
	tmpdir_cleanup();
}

#define N_NP 300

/* The flags of events @a and @b of capture @path: -1 for one it lacks. */
static void event_flags(const char *path, const char *a, const char *b, int *fa, int *fb)
{
	struct rc_reader *r = rc_reader__open(path);
	const struct rc_event_desc *ev;

	*fa = *fb = -1;
	if (!ASSERT_OK_PTR(r, "open"))
		return;
	ev = rc_schema__event_by_name(rc_reader__meta(r)->schema, a);
	*fa = ev ? ev->flags : -1;
	ev = rc_schema__event_by_name(rc_reader__meta(r)->schema, b);
	*fb = ev ? ev->flags : -1;
	rc_reader__free(r);
}

/* report --event bpf:np_event @a1.. (NULL-ended, at most 4) @cap: its stdout (free it), or NULL. */
static char *report_out(const char *cap, const char *a1, const char *a2, const char *a3,
			const char *a4)
{
	const char *args[] = { a1, a2, a3, a4 };
	char *argv[10] = { (char *)bin("ringcap"), "report", "--event", "bpf:np_event" };
	struct run r = {};
	char *out = NULL;
	int n = 4, i;

	for (i = 0; i < 4 && args[i]; i++)
		argv[n++] = (char *)args[i];
	argv[n] = (char *)cap;
	if (ASSERT_EQ(run_sync(&r, argv, 60000), 0, "report")) {
		out = r.out;
		r.out = NULL;
	}
	run_free(&r);
	return out;
}

/* Records of the struct whose JSON line says what it must: unknowns null, structs nested. */
static const char np_json_check[] =
    "import json,sys\n"
    "ok=0\n"
    "for l in open(sys.argv[1]):\n"
    "  e=json.loads(l); f=e['fields']; s=f['seq']\n"
    "  rb=sys.argv[2]=='ringbuf'\n"
    "  cpu=e['cpu'] is None if rb else type(e['cpu']) is int\n"
    "  task=e['pid'] is None and e['tid'] is None if rb else e['pid']>0 and e['tid']==e['pid']\n"
    "  ok+=(cpu and task and e['comm'] is None and\n"
    "       f['inner']=={'a':3*s,'b':-s,'c':s&0xff,'d':7} and\n"
    "       f['pairs']==[{'x':s,'y':0},{'x':s+1,'y':1}])\n"
    "print(ok)\n";

/* ... and whose CSV row has empty cells for them, and the struct's dotted columns. */
static const char np_csv_check[] =
    "import csv,sys\n"
    "ok=0\n"
    "for x in csv.DictReader(open(sys.argv[1])):\n"
    "  s=int(x['seq'])\n"
    "  rb=sys.argv[2]=='ringbuf'\n"
    "  cpu=x['cpu']=='' if rb else x['cpu'].isdigit()\n"
    "  task=x['pid']==x['tid']=='' if rb else x['pid'].isdigit() and x['tid']==x['pid']\n"
    "  ok+=(cpu and task and x['comm']=='' and x['inner.a']==str(3*s) and\n"
    "       x['pairs[1].x']==str(s+1))\n"
    "print(ok)\n";

/* Lines of @text that hold @needle. */
static long count_lines(const char *text, const char *needle)
{
	const char *p = text;
	long n = 0;

	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		n += memmem(p, len, needle, strlen(needle)) != NULL;
		p = e ? e + 1 : NULL;
	}
	return n;
}

/* Every CPU this machine may have: "0,1,...". */
static void all_cpus(char *buf, size_t len)
{
	long i, n = sysconf(_SC_NPROCESSORS_CONF);
	size_t used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%ld", i ? "," : "", i);
}

/* Lost records in a capture, and those written at the end. */
static void count_lost(const char *path, uint64_t *lost, uint64_t *at_end)
{
	struct rc_reader *r = rc_reader__open(path);
	const struct rc_rec_hdr *rec;

	*lost = *at_end = 0;
	if (!ASSERT_OK_PTR(r, "open"))
		return;
	while (rc_reader__next(r, &rec) > 0) {
		const struct rc_rec_lost *l = (const void *)rec;

		if (rec->type != RC_REC_LOST)
			continue;
		*lost += l->lost;
		if (l->flags & RC_LOST_F_AT_END)
			*at_end += l->lost;
	}
	rc_reader__free(r);
}

/*
 * record --bpf over a perf event array of one page a CPU: most records are
 * lost, and every loss is counted, those after the last record that fit
 * too (the kernel's count, read at the end: Linux 6.0's PERF_FORMAT_LOST).
 */
void test_dyn_bpf_perf_lost(void)
{
	const char *out = tmpfile_path("pl.rcap");
	uint64_t lost, at_end;
	struct dyn_facts f;
	struct run r = {};
	char obj[4096];

	if (!need_root())
		return;
	snprintf(obj, sizeof(obj), "%s", bin("tests/bpf/perfarray.bpf.o"));
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ (char *)bin("ringcap"), "record", "-q", "--bpf", obj,
				     "--event-type", "pa_event", "--set", "target_comm=rc_workload",
				     "-m", "4K", "-o", (char *)out, "--", (char *)bin("rc_workload"),
				     "getppid", "40000", NULL },
			 120000),
		0, "record"))
		goto out;
	if (!ASSERT_OK(walk(out, "bpf:pa_event", &f, NULL, NULL), "walk"))
		goto out;
	count_lost(out, &lost, &at_end);
	printf("    %ld captured, %llu lost (%llu at the end)\n", f.nrec,
	       (unsigned long long)lost, (unsigned long long)at_end);
	ASSERT_TRUE(lost > 0, "one-page rings lose");
	ASSERT_EQ(f.nrec + lost, 40000, "a record a getppid, or a lost one");
	ASSERT_EQ(f.dropped, lost, "the counters say as much");
	ASSERT_EQ(f.made, 40000, "made");
out:
	run_free(&r);
	tmpdir_cleanup();
}

/*
 * Is there a python3 to check JSON and CSV with? Not in make vmtest's
 * guests: there the @check is a skipped subtest.
 */
static bool python3(const char *check)
{
	if (!access("/usr/bin/python3", X_OK))
		return true;
	test__skip_subtest(check, "no python3 here: JSON and CSV are parsed on the host");
	return false;
}

/* One map of tests/bpf/nopid.bpf.o recorded, and what report makes of it. */
static void np_case(const char *transport, const char *map, int want_flags)
{
	const char *cap = tmpfile_path("np.rcap"), *tmp = tmpfile_path("np.out");
	bool ringbuf = !strcmp(transport, "ringbuf");
	char obj[4096], n[16], cpus[4096], *out = NULL, *res = NULL;
	int flags, raw_flags;
	struct dyn_facts f;
	struct run r = {};

	snprintf(obj, sizeof(obj), "%s", bin("tests/bpf/nopid.bpf.o"));
	snprintf(n, sizeof(n), "%d", N_NP);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "--bpf", obj,
					    "--map", (char *)map, "--event-type", "np_event",
					    "--set", "target_comm=rc_workload", "-o", (char *)cap,
					    "--", (char *)bin("rc_workload"), "getppid", n, NULL },
				120000),
		       0, "record")) {
		fprintf(stderr, "%s", r.err ? r.err : "");
		goto out;
	}
	if (ASSERT_OK(walk(cap, "bpf:np_event", &f, NULL, NULL), "walk"))
		ASSERT_EQ(f.nrec, N_NP, "one record a getppid");
	event_flags(cap, "bpf:np_event", ringbuf ? "bpf:np_ring:raw" : "bpf:np_perf:raw", &flags,
		    &raw_flags);
	ASSERT_EQ(flags, want_flags, "what the struct's records do not know");
	ASSERT_EQ(raw_flags, want_flags, "nor do raw ones");

	/* text: "-" for each, the columns where a known value's would be */
	if ((out = report_out(cap, NULL, NULL, NULL, NULL))) {
		ASSERT_EQ(count_lines(out, ringbuf ? "                       -/-       [  -] " : "-/-"),
			  ringbuf ? N_NP : 0, "text: -/- and the cpu where unknown");
		ASSERT_EQ(count_lines(out, " seq="), N_NP, "every record");
		ASSERT_EQ(count_lines(out, " inner.a="), N_NP, "dotted names in text");
	}
	free(out);
	out = report_out(cap, "--format", "json", NULL, NULL);
	if (out) {
		/* without python (the guests of make vmtest): the same, as text */
		ASSERT_EQ(count_lines(out, ringbuf ? "\"cpu\":null,\"pid\":null,\"tid\":null,"
						   : "\"comm\":null,"),
			  N_NP, "json: null");
		ASSERT_EQ(count_lines(out, "\"inner\":{\"a\":"), N_NP, "json: nested structs");
	}
	if (out && python3("json_parsed") && ASSERT_TRUE(save_text(tmp, out), "save") &&
	    !run_py(np_json_check, (char *[]){ (char *)tmp, (char *)transport, NULL }, &res))
		ASSERT_EQ(atol(res), N_NP, "json: null, and nested structs");
	free(out);
	free(res);
	res = NULL;
	out = report_out(cap, "--format", "csv", NULL, NULL);
	if (out && python3("csv_parsed") && ASSERT_TRUE(save_text(tmp, out), "save") &&
	    !run_py(np_csv_check, (char *[]){ (char *)tmp, (char *)transport, NULL }, &res))
		ASSERT_EQ(atol(res), N_NP, "csv: empty cells, dotted columns");
	free(out);
	free(res);
	res = NULL;

	/* filters: an unknown value is no value, 0 least of all */
	if ((out = report_out(cap, "--pid", "0", NULL, NULL)))
		ASSERT_STREQ(out, "", "--pid 0 matches no unknown pid");
	free(out);
	if ((out = report_out(cap, "--tid", "0", NULL, NULL)))
		ASSERT_STREQ(out, "", "--tid 0 matches no unknown tid");
	free(out);
	all_cpus(cpus, sizeof(cpus));
	if ((out = report_out(cap, "--cpu", cpus, NULL, NULL)))
		ASSERT_EQ(count_lines(out, " seq="), ringbuf ? 0 : N_NP,
			  "--cpu: every CPU, and the ring buffer's records on none");
	free(out);
	out = ringbuf ? report_out(cap, "--summary", NULL, NULL, NULL) : NULL;
	if (out) {
		char row[64];

		snprintf(row, sizeof(row), "\n%-16s %8s %12d\n", "", "-", N_NP);
		ASSERT_HAS(out, row, "summary: a process row of the unknown");
	}
	free(out);
out:
	run_free(&r);
	tmpdir_cleanup();
}

/*
 * A struct without pid, tid and comm, through a BPF ring buffer (no CPU
 * either) and a perf event array (whose samples the kernel stamps with
 * pid, tid and CPU, but no comm): unknowns shown as unknown in text, JSON
 * and CSV, matched by no filter; its nested structs as JSON objects.
 */
void test_dyn_bpf_unknown(void)
{
	const int no_task = RC_EVENT_NO_PID | RC_EVENT_NO_TID | RC_EVENT_NO_COMM;

	if (!need_root())
		return;
	if (test__start_subtest("ringbuf"))
		np_case("ringbuf", "np_ring", no_task | RC_EVENT_NO_CPU);
	if (test__start_subtest("perfbuf"))
		np_case("perfbuf", "np_perf", RC_EVENT_NO_COMM);
}

/* Bad names get a clear error, a non-zero exit, and no capture left behind. */
void test_dyn_errors(void)
{
	static const struct {
		const char *name, *args[6], *said;
	} cases[] = {
		{ "no_tracepoint", { "-e", "nosuchsystem:*" }, "unknown event 'nosuchsystem:*'" },
		{ "bad_tracepoint", { "-e", "sched:" }, "invalid event 'sched:'" },
		{ "bad_probe", { "-e", "uprobe:nocolon" }, "give uprobe:/path/to/binary:function" },
		{ "no_binary", { "-e", "uprobe:/nonexistent/bin:main" }, "cannot find the binary" },
		/* a path's slashes are not a PMU's: the list splits at the comma */
		{ "probe_in_list",
		  { "-e", "uprobe:/no/such/bin:main,syscalls" },
		  "'uprobe:/no/such/bin:main': cannot find the binary" },
		{ "no_function",
		  { "-e", "uprobe:/bin/true:no_such_function_here" },
		  "defines no function" },
		{ "no_object", { "--bpf", "/nonexistent.bpf.o" }, "cannot open BPF object" },
		{ "no_struct", { "--bpf", "@", "--event-type", "nosuch" }, "no struct nosuch" },
		{ "no_map", { "--bpf", "@", "--map", "nosuch" }, "has no map named 'nosuch'" },
		{ "bad_set", { "--bpf", "@", "--set", "nosuch=1" }, "nosuch" },
		{ "set_range", { "--bpf", "@", "--set", "tag_base=-1" }, "tag_base" },
		{ "bpf_and_e", { "--bpf", "@", "-e", "syscalls" }, "drop -e" },
	};
	const char *out = tmpfile_path("err.rcap");
	size_t i, k;

	if (!need_root())
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[16] = { (char *)bin("ringcap"), "record", "-q", "-o", (char *)out };
		char obj[4096];
		struct run r = {};
		int n = 5;

		if (!test__start_subtest(cases[i].name))
			continue;
		snprintf(obj, sizeof(obj), "%s", bin("tests/bpf/roundtrip.bpf.o"));
		for (k = 0; k < 6 && cases[i].args[k]; k++)
			argv[n++] = !strcmp(cases[i].args[k], "@") ? obj : (char *)cases[i].args[k];
		argv[n++] = "--";
		argv[n++] = "/bin/true";
		ASSERT_TRUE(run_sync(&r, argv, 60000) != 0, "fails");
		ASSERT_HAS(r.err, cases[i].said, "says why");
		ASSERT_TRUE(access(out, F_OK) != 0, "no capture left behind");
		run_free(&r);
	}
	tmpdir_cleanup();
}

/* record -l lists the kernel's tracepoints, as a glob selects them. */
void test_dyn_list(void)
{
	struct run r = {};

	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ (char *)bin("ringcap"), "record", "-l", "signal:*", NULL },
			 30000),
		0, "record -l"))
		goto out;
	ASSERT_TRUE(strstr(r.out, "signal:signal_generate") &&
			strstr(r.out, "signal:signal_deliver"),
		    "both signal tracepoints");
	ASSERT_TRUE(!strstr(r.out, "sched:"), "nothing else");
out:
	run_free(&r);
}
