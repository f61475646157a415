// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's types an object's CO-RE relocations need
 * (rc_kbtf__write_core()), against libbpf's parse of the whole: the same
 * sizes, member offsets and enumerator values, and no pointer looked
 * behind. Host only: the guests' loads show the rest (every record test
 * relocates against it).
 */
#include <bpf/btf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "capture/session.h"
#include "util/cache.h"
#include "util/file.h"
#include "run_util.h"
#include "test_progs.h"

/* @name's member @member in struct @id of @btf: its bit offset, -1 when absent */
static long member_off(const struct btf *btf, int id, const char *member)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	__u16 i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return btf_member_bit_offset(t, i);
	return -1;
}

static long long enum_val(const struct btf *btf, int id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_enum *e = btf_enum(t);
	__u16 i;

	for (i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			return e->val;
	return -1;
}

/* @name's value, to put back with env_restore(): malloc()ed, NULL when unset. */
static char *env_keep(const char *name)
{
	const char *v = getenv(name);

	return v ? strdup(v) : NULL;
}

static void env_restore(const char *name, char *val)
{
	if (val)
		setenv(name, val, 1);
	else
		unsetenv(name);
	free(val);
}

void test_core_btf(void)
{
	char *cache_env = env_keep("RINGCAP_CACHE");
	struct btf *local = NULL, *sub = NULL, *whole = NULL;
	struct rc_kbtf *k = NULL;
	struct rc_features f;
	char path[64];
	struct stat st, vst;
	int fd = -1, ws, ss, ptrs = 0;
	__u32 i;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		test__skip("no /sys/kernel/btf/vmlinux");
		free(cache_env);
		return;
	}
	setenv("RINGCAP_CACHE", "off", 1); /* the walk's, not the cache's (core_btf_cache) */
	if (!ASSERT_OK(rc_features__probe_keep(&f, &k), "probe") || !ASSERT_TRUE(k, "kept"))
		goto out;
	/* what a program names: a flavour of task_struct, an enum, a typedef */
	local = btf__new_empty();
	if (!ASSERT_TRUE(local, "local btf"))
		goto out;
	btf__add_struct(local, "task_struct___flavour", 0);
	btf__add_enum(local, "bpf_func_id", 4);
	btf__add_typedef(local, "pid_t", 0);
	fd = memfd_create("core", MFD_CLOEXEC);
	if (!ASSERT_TRUE(fd > 0, "memfd"))
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!ASSERT_OK(rc_kbtf__write_core(k, local, fd), "write core"))
		goto out;
	sub = btf__parse(path, NULL);
	whole = btf__load_vmlinux_btf();
	if (!ASSERT_TRUE(sub, "parse subset") || !ASSERT_TRUE(whole, "parse whole"))
		goto out;
	/* a few hundred types of the 100k and more */
	ASSERT_LT(btf__type_cnt(sub) * 20, btf__type_cnt(whole), "a small part");
	ws = btf__find_by_name_kind(whole, "task_struct", BTF_KIND_STRUCT);
	ss = btf__find_by_name_kind(sub, "task_struct", BTF_KIND_STRUCT);
	if (!ASSERT_TRUE(ws > 0 && ss > 0, "task_struct"))
		goto out;
	ASSERT_EQ(btf__resolve_size(sub, ss), btf__resolve_size(whole, ws), "its size");
	ASSERT_EQ(btf_vlen(btf__type_by_id(sub, ss)), btf_vlen(btf__type_by_id(whole, ws)),
		  "all its members");
	ASSERT_EQ(member_off(sub, ss, "tgid"), member_off(whole, ws, "tgid"), "tgid");
	ASSERT_EQ(member_off(sub, ss, "comm"), member_off(whole, ws, "comm"), "comm");
	ASSERT_TRUE(member_off(sub, ss, "tgid") > 0, "tgid found");
	/* held by value: thread_info whole, with its members */
	ws = btf__find_by_name_kind(whole, "thread_info", BTF_KIND_STRUCT);
	ss = btf__find_by_name_kind(sub, "thread_info", BTF_KIND_STRUCT);
	if (ASSERT_TRUE(ws > 0 && ss > 0, "thread_info"))
		ASSERT_EQ(btf__resolve_size(sub, ss), btf__resolve_size(whole, ws), "its size");
	ws = btf__find_by_name_kind(whole, "bpf_func_id", BTF_KIND_ENUM);
	ss = btf__find_by_name_kind(sub, "bpf_func_id", BTF_KIND_ENUM);
	if (ASSERT_TRUE(ws > 0 && ss > 0, "bpf_func_id"))
		ASSERT_EQ(enum_val(sub, ss, "BPF_FUNC_get_current_task_btf"),
			  enum_val(whole, ws, "BPF_FUNC_get_current_task_btf"), "an enumerator");
	ASSERT_TRUE(btf__find_by_name_kind(sub, "pid_t", BTF_KIND_TYPEDEF) > 0, "pid_t");
	/* pointers made void *: nothing behind them came along */
	for (i = 1; i < btf__type_cnt(sub); i++) {
		const struct btf_type *t = btf__type_by_id(sub, i);

		if (btf_is_ptr(t)) {
			ptrs++;
			ASSERT_EQ(t->type, 0, "void *");
		}
	}
	ASSERT_TRUE(ptrs > 0, "pointers kept");
	ASSERT_TRUE(btf__find_by_name_kind(sub, "mm_struct", BTF_KIND_STRUCT) < 0,
		    "mm_struct only pointed to");
	/* the fallback: the whole of it */
	if (ASSERT_OK(rc_kbtf__write_whole(k, fd), "write whole") && ASSERT_OK(fstat(fd, &st), "stat") &&
	    ASSERT_OK(stat("/sys/kernel/btf/vmlinux", &vst), "stat vmlinux"))
		ASSERT_EQ((long long)st.st_size, (long long)vst.st_size, "whole size");
out:
	env_restore("RINGCAP_CACHE", cache_env);
	btf__free(whole);
	btf__free(sub);
	btf__free(local);
	rc_kbtf__free(k);
	if (fd >= 0)
		close(fd);
}

/*
 * The types the BTF tracepoint programs load against, from the walk
 * (rc_kbtf__trace_id()): libbpf's, by its own parse. And a recording
 * that loads every such program of ringcap's has libbpf parse none of
 * the kernel's BTF: its log (-vv) says when it does.
 */
void test_core_btf_trace_ids(void)
{
	static const char *const tps[] = { "sys_enter",		 "sys_exit",
					   "sched_switch",	 "sched_wakeup",
					   "sched_process_fork", "sched_process_exec",
					   "sched_process_exit" };
	const char *out = tmpfile_path("tp.rcap");
	char *cache_env = env_keep("RINGCAP_CACHE");
	struct btf *whole = NULL;
	struct rc_kbtf *k = NULL;
	struct run r = {};
	struct rc_features f;
	char name[64];
	size_t i;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		test__skip("no /sys/kernel/btf/vmlinux");
		free(cache_env);
		return;
	}
	setenv("RINGCAP_CACHE", "off", 1); /* the walk's, and a recording's without the cache */
	if (!ASSERT_OK(rc_features__probe_keep(&f, &k), "probe") || !ASSERT_TRUE(k, "kept"))
		goto out;
	whole = btf__load_vmlinux_btf();
	if (!ASSERT_TRUE(whole, "parse whole"))
		goto out;
	for (i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", tps[i]);
		ASSERT_EQ(rc_kbtf__trace_id(k, tps[i]),
			  btf__find_by_name_kind(whole, name, BTF_KIND_TYPEDEF), tps[i]);
	}
	ASSERT_EQ(rc_kbtf__trace_id(k, "sched_nonesuch"), -ENOENT, "not one of them");
	ASSERT_EQ(rc_kbtf__trace_id(NULL, "sys_enter"), -ENOENT, "no walk");
	if (!need_root())
		goto out;
	/* syscalls.bpf.c, sched.bpf.c, offcpu.bpf.c, and dyn.bpf.c with follow's programs */
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-vv", "-e",
					    "syscalls,sched,syscalls:sys_enter_getppid",
					    "--off-cpu", "-o", (char *)out, "--", "true", NULL },
				60000),
		       0, "record"))
		goto out;
	ASSERT_TRUE(strstr(r.err, "CO-RE relocating"), "libbpf's log");
	ASSERT_TRUE(strstr(r.err, "handle_follow_fork"), "follow's programs");
	ASSERT_TRUE(!strstr(r.err, "loading kernel BTF"), "no parse of the kernel's BTF by libbpf");
out:
	env_restore("RINGCAP_CACHE", cache_env);
	run_free(&r);
	tmpdir_cleanup();
	btf__free(whole);
	rc_kbtf__free(k);
}

/* The bytes of @fd, or of the file at @path when @fd < 0: malloc()ed, NULL on error. */
static char *slurp(int fd, const char *path, size_t *len)
{
	struct stat st = {};
	char *buf = NULL;
	int own = fd < 0 ? open(path, O_RDONLY | O_CLOEXEC) : fd;

	if (own < 0)
		return NULL;
	if (!fstat(own, &st) && (buf = malloc(st.st_size + 1))) {
		if (pread(own, buf, st.st_size, 0) == st.st_size) {
			*len = st.st_size;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	if (fd < 0)
		close(own);
	return buf;
}

/*
 * The files in @dir: of the answers, of subsets (@core), or temporary
 * ones (a name beginning with a dot); the last one's path in @path.
 */
enum cache_kind { ANSWERS, SUBSET, TEMPORARY };

static long cache_files(const char *dir, enum cache_kind kind, char *path, size_t len)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	long n = 0;
	bool is;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		is = kind == TEMPORARY ? e->d_name[0] == '.'
		     : kind == SUBSET
			 ? !strncmp(e->d_name, "kbtf-", 5) && strstr(e->d_name, "-core-")
			 : !strncmp(e->d_name, "kbtf-", 5) && !strstr(e->d_name, "-core-");
		if (is && path)
			snprintf(path, len, "%s/%s", dir, e->d_name);
		n += is;
	}
	closedir(d);
	return n;
}

/* Does the kernel have a build id (/sys/kernel/notes), which names the cache's files? */
static bool kernel_build_id(void)
{
	char hex[129], buf[4096];
	ssize_t n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 && !rc_build_id_of_notes(buf, n, hex, sizeof(hex));
}

/* The BTF answers a probe gives, side by side: the ones the cache keeps. */
static bool same_answers(const struct rc_features *a, const struct rc_features *b)
{
	return a->btf == b->btf && a->tp_btf == b->tp_btf &&
	       !strcmp(a->tp_btf_missing, b->tp_btf_missing) &&
	       a->exit_group_dead == b->exit_group_dead &&
	       a->switch_prev_state == b->switch_prev_state &&
	       a->current_task_btf == b->current_task_btf;
}

static bool same_trace_ids(const struct rc_kbtf *a, const struct rc_kbtf *b)
{
	static const char *const tps[] = { "sys_enter",		 "sys_exit",
					   "sched_switch",	 "sched_wakeup",
					   "sched_process_fork", "sched_process_exec",
					   "sched_process_exit" };
	size_t i;

	for (i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		if (rc_kbtf__trace_id(a, tps[i]) != rc_kbtf__trace_id(b, tps[i]) ||
		    rc_kbtf__trace_id(a, tps[i]) <= 0)
			return false;
	return true;
}

/* A probe and a subset for @local, into @f, @k and @sub (the subset's bytes). */
static int probe_and_core(struct rc_features *f, struct rc_kbtf **k, const struct btf *local,
			  char **sub, size_t *len)
{
	int fd, err;

	*k = NULL;
	*sub = NULL;
	err = rc_features__probe_keep(f, k);
	if (err || !*k)
		return err ?: -ENOENT;
	fd = memfd_create("core", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = rc_kbtf__write_core(*k, (struct btf *)local, fd);
	if (!err && !(*sub = slurp(fd, NULL, len)))
		err = -EIO;
	close(fd);
	return err;
}

/* A recording's count of getppid events in its summary, -1 when it says none. */
static long getppid_count(const char *rcap)
{
	struct run r = {};
	const char *p;
	long n = -1;

	if (!run_sync(&r,
		      (char *[]){ (char *)bin("ringcap"), "report", "-i", (char *)rcap, "--summary",
				  NULL },
		      60000) &&
	    r.out && (p = strstr(r.out, "\nsyscalls:sys_enter_getppid ")))
		sscanf(p + 1, "%*s %ld", &n);
	run_free(&r);
	return n;
}

/*
 * The cache of what the probe learns from the kernel's BTF, and of the
 * CO-RE subsets (util/cache.h, ringcap-record(1) FILES): a second probe
 * takes the same answers and the same subset's bytes from it; a file
 * damaged, cut short, or in a directory others may write is not used;
 * RINGCAP_CACHE=off writes nothing. And recordings with the cache cold,
 * warm and off capture every event, the warm one from the cache (-vv).
 */
void test_core_btf_cache(void)
{
	char dir[PATH_MAX], off_dir[PATH_MAX], core_path[PATH_MAX], ans_path[PATH_MAX];
	char *sub1 = NULL, *sub2 = NULL, *file1 = NULL, *file2 = NULL;
	char *dir_env = env_keep("RINGCAP_CACHE_DIR"), *cache_env = env_keep("RINGCAP_CACHE");
	struct rc_kbtf *k1 = NULL, *k2 = NULL;
	struct rc_features f1, f2;
	struct btf *local = NULL;
	size_t len1 = 0, len2 = 0, flen1 = 0, flen2 = 0;
	struct run r = {};
	char byte;
	int fd;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		test__skip("no /sys/kernel/btf/vmlinux");
		goto out;
	}
	if (!kernel_build_id()) {
		test__skip("the kernel has no build id (/sys/kernel/notes): nothing is cached");
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s", tmpfile_path("cache"));
	snprintf(off_dir, sizeof(off_dir), "%s", tmpfile_path("cache-off"));
	if (!ASSERT_OK(mkdir(dir, 0700), "mkdir") || !ASSERT_OK(mkdir(off_dir, 0700), "mkdir"))
		goto out;
	setenv("RINGCAP_CACHE_DIR", dir, 1);
	unsetenv("RINGCAP_CACHE");
	local = btf__new_empty();
	if (!ASSERT_TRUE(local, "local btf"))
		goto out;
	btf__add_struct(local, "task_struct___flavour", 0);
	btf__add_typedef(local, "pid_t", 0);

	/* cold: both made by the walk, and kept */
	if (!ASSERT_OK(probe_and_core(&f1, &k1, local, &sub1, &len1), "cold"))
		goto out;
	ASSERT_TRUE(rc_kbtf__walked(k1), "cold: walked");
	if (!ASSERT_EQ(cache_files(dir, ANSWERS, ans_path, sizeof(ans_path)), 1, "answers kept") ||
	    !ASSERT_EQ(cache_files(dir, SUBSET, core_path, sizeof(core_path)), 1, "subset kept"))
		goto out;
	ASSERT_EQ(cache_files(dir, TEMPORARY, NULL, 0), 0, "no temporary file left");
	/* warm: the same, and no walk */
	if (!ASSERT_OK(probe_and_core(&f2, &k2, local, &sub2, &len2), "warm"))
		goto out;
	ASSERT_TRUE(!rc_kbtf__walked(k2), "warm: neither answers nor subset walked");
	ASSERT_TRUE(same_answers(&f1, &f2), "the same answers");
	ASSERT_TRUE(same_trace_ids(k1, k2), "the same tracepoint types");
	ASSERT_TRUE(len1 == len2 && !memcmp(sub1, sub2, len1), "the same subset");
	rc_kbtf__free(k2);
	free(sub2);
	sub2 = NULL;

	/* a byte of the subset's file changed: not used, made again by the walk, the file whole */
	file1 = slurp(-1, core_path, &flen1);
	fd = open(core_path, O_RDWR);
	if (!ASSERT_TRUE(file1 && fd >= 0, "open subset"))
		goto out;
	byte = file1[flen1 / 2] ^ 0xff;
	if (!ASSERT_EQ(pwrite(fd, &byte, 1, flen1 / 2), 1, "damage"))
		goto out;
	close(fd);
	if (!ASSERT_OK(probe_and_core(&f2, &k2, local, &sub2, &len2), "damaged subset"))
		goto out;
	ASSERT_TRUE(rc_kbtf__walked(k2), "damaged subset: walked");
	ASSERT_TRUE(len1 == len2 && !memcmp(sub1, sub2, len1), "made again");
	file2 = slurp(-1, core_path, &flen2);
	ASSERT_TRUE(file2 && flen1 == flen2 && !memcmp(file1, file2, flen1), "replaced whole");
	rc_kbtf__free(k2);
	free(sub2);
	sub2 = NULL;

	/* the subset's file cut inside its data, then the answers' inside their header */
	if (!ASSERT_OK(truncate(core_path, flen1 - 10), "cut subset") ||
	    !ASSERT_OK(probe_and_core(&f2, &k2, local, &sub2, &len2), "cut subset"))
		goto out;
	ASSERT_TRUE(rc_kbtf__walked(k2), "cut subset: walked");
	ASSERT_TRUE(len1 == len2 && !memcmp(sub1, sub2, len1), "made again");
	rc_kbtf__free(k2);
	free(sub2);
	sub2 = NULL;
	if (!ASSERT_OK(truncate(ans_path, 20), "cut answers") ||
	    !ASSERT_OK(rc_features__probe_keep(&f2, &k2), "cut answers"))
		goto out;
	ASSERT_TRUE(rc_kbtf__walked(k2), "cut answers: walked");
	ASSERT_TRUE(same_answers(&f1, &f2) && same_trace_ids(k1, k2), "answers walked again");
	rc_kbtf__free(k2);
	k2 = NULL;
	free(file2);
	file2 = slurp(-1, ans_path, &flen2);
	ASSERT_TRUE(file2 && flen2 > 20, "and kept again");

	/* a directory others may write to: its files are not used */
	{
		void *data = NULL;
		size_t dlen = 0;

		if (!ASSERT_OK(chmod(dir, 0770), "chmod"))
			goto out;
		ASSERT_EQ(rc_cache__get(strrchr(ans_path, '/') + 1, "any", &data, &dlen), -EPERM,
			  "group-writable: not ours alone");
		ASSERT_OK(probe_and_core(&f2, &k2, local, &sub2, &len2), "probe");
		ASSERT_TRUE(rc_kbtf__walked(k2), "group-writable: walked");
		ASSERT_TRUE(same_answers(&f1, &f2), "answers walked");
		rc_kbtf__free(k2);
		k2 = NULL;
		free(sub2);
		sub2 = NULL;
		chmod(dir, 0700);
	}

	/* making a file prunes the cache's files not written for 30 days, and only those */
	{
		struct timespec t[2] = { { .tv_sec = time(NULL) - 31 * 86400 },
					 { .tv_sec = time(NULL) - 31 * 86400 } };
		char old_entry[PATH_MAX + 32], other[PATH_MAX + 32];
		int ofd;

		snprintf(old_entry, sizeof(old_entry), "%s/kbtf-of-another-kernel", dir);
		snprintf(other, sizeof(other), "%s/not-the-cache's", dir);
		ofd = open(old_entry, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (!ASSERT_TRUE(ofd >= 0 && file2, "an old entry") ||
		    !ASSERT_OK(rc_write_all(ofd, file2, flen2), "write it"))
			goto out;
		close(ofd);
		ofd = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (!ASSERT_TRUE(ofd >= 0, "another file") ||
		    !ASSERT_OK(rc_write_all(ofd, "hello\n", 6), "write it"))
			goto out;
		close(ofd);
		if (!ASSERT_OK(utimensat(AT_FDCWD, old_entry, t, 0), "age") ||
		    !ASSERT_OK(utimensat(AT_FDCWD, other, t, 0), "age") ||
		    !ASSERT_OK(unlink(ans_path), "answers gone") ||
		    !ASSERT_OK(rc_features__probe_keep(&f2, &k2), "probe, answers made"))
			goto out;
		rc_kbtf__free(k2);
		k2 = NULL;
		ASSERT_TRUE(access(old_entry, F_OK) && errno == ENOENT, "the old entry pruned");
		ASSERT_OK(access(other, F_OK), "another file of the directory kept");
		ASSERT_OK(access(ans_path, F_OK), "the answers made");
	}

	/* off: nothing written */
	setenv("RINGCAP_CACHE_DIR", off_dir, 1);
	setenv("RINGCAP_CACHE", "off", 1);
	if (ASSERT_OK(probe_and_core(&f2, &k2, local, &sub2, &len2), "off"))
		ASSERT_TRUE(len1 == len2 && !memcmp(sub1, sub2, len1), "the same subset");
	ASSERT_TRUE(rc_kbtf__walked(k2), "off: walked");
	ASSERT_EQ(cache_files(off_dir, ANSWERS, NULL, 0) + cache_files(off_dir, SUBSET, NULL, 0) +
		      cache_files(off_dir, TEMPORARY, NULL, 0),
		  0, "nothing cached");

	/* recordings: cold (a new directory), warm, and off, each with every event */
	if (!need_root())
		goto out;
	{
		static const char *const modes[] = { "cold", "warm", "off" };
		char rec_dir[PATH_MAX], out[PATH_MAX];
		size_t i;

		snprintf(rec_dir, sizeof(rec_dir), "%s", tmpfile_path("cache-rec"));
		snprintf(out, sizeof(out), "%s", tmpfile_path("c.rcap"));
		setenv("RINGCAP_CACHE_DIR", rec_dir, 1);
		for (i = 0; i < 3; i++) {
			if (i == 2)
				setenv("RINGCAP_CACHE", "off", 1);
			else
				unsetenv("RINGCAP_CACHE");
			run_free(&r);
			if (!ASSERT_EQ(run_sync(&r,
						(char *[]){ (char *)bin("ringcap"), "record", "-vv",
							    "-e", "syscalls:sys_enter_getppid",
							    "-o", out, "--", (char *)bin("rc_load"),
							    "storm", "20000", "1", NULL },
						60000),
				       0, modes[i]))
				goto out;
			ASSERT_EQ(getppid_count(out), 20000, modes[i]);
			/* the walk's subset says how many types it took of how many */
			ASSERT_EQ(!!strstr(r.err, " of the kernel's "), i != 1,
				  "the subset walked when cold or off only");
			ASSERT_EQ(
			    !!strstr(r.err, "CO-RE relocations against the kernel's types cached"),
			    i == 1, "the subset from the cache when warm only");
			ASSERT_EQ(!!strstr(r.err, "the kernel's BTF: the answers cached"), i == 1,
				  "the answers from the cache when warm only");
			ASSERT_EQ(cache_files(rec_dir, ANSWERS, NULL, 0), 1, "the answers kept");
			/* one object here; two where follow's programs load from their own */
			ASSERT_TRUE(cache_files(rec_dir, SUBSET, NULL, 0) >= 1, "the subsets kept");
		}
		printf("    cold, warm and off: 20000 getppid events each\n");
	}
out:
	env_restore("RINGCAP_CACHE_DIR", dir_env);
	env_restore("RINGCAP_CACHE", cache_env);
	run_free(&r);
	rc_kbtf__free(k1);
	rc_kbtf__free(k2);
	btf__free(local);
	free(sub1);
	free(sub2);
	free(file1);
	free(file2);
	tmpdir_cleanup();
}
