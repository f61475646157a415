// SPDX-License-Identifier: GPL-2.0-only
/*
 * What this kernel can do, probed rather than guessed from its version:
 * map types and helpers by loading trivial objects (libbpf's probes), and
 * what the BPF programs attach to from the kernel's own BTF (the
 * btf_trace_* typedef of each BTF tracepoint, and its prototype). Record
 * uses the answers to choose program variants before loading, and to
 * refuse in one line what this kernel cannot do; record --check prints
 * them. The kernel's BTF, walked for the probe, can be kept for the
 * loader: the few types an object's CO-RE relocations need, written out
 * for libbpf (rc_kbtf__write_core()).
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "util/cache.h"
#include "util/siphash.h"
#include "util/sysfs.h"
#include "util/util.h"
#include "events.h"
#include "capture/backend.h"

#define RC_STR_(x) #x
#define RC_STR(x)  RC_STR_(x)

/* Quiet while probing: a probe that fails is an answer, not an error. */
static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static bool map_ok(enum bpf_map_type t)
{
	return libbpf_probe_bpf_map_type(t, NULL) == 1;
}

static bool helper_ok(enum bpf_prog_type p, enum bpf_func_id h)
{
	return libbpf_probe_bpf_helper(p, h, NULL) == 1;
}

/*
 * BPF atomic and/or (Linux 5.12; before, the one atomic was add): a
 * program that ors into its stack loads.
 */
static bool atomics_ok(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1,
		  .off = -8,
		  .imm = BPF_OR },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd =
	    bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns, ARRAY_SIZE(insns), NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Does the kernel's BTF name enumerator @name (of any enum)? */
static bool btf_has_enum_value(const struct btf *btf, const char *name)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		__u16 i;

		if (!btf_is_enum(t))
			continue;
		for (e = btf_enum(t), i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
				return true;
	}
	return false;
}

/*
 * The arguments a BTF tracepoint passes to a tp_btf program: the
 * parameters of btf_trace_@tp's prototype, less the first (void *__data).
 * -1 when the kernel has no such tracepoint.
 */
static int tp_btf_nargs(const struct btf *btf, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL; /* the pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -1;
	return btf_vlen(t) - 1;
}

static const char *const tp_btf_needed[] = {
	"sys_enter",	      "sys_exit",	    "sched_switch",	  "sched_wakeup",
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
};

/*
 * The kernel's BTF walked once, for the few things probe_btf() asks.
 * libbpf's parse (btf__load_vmlinux_btf()) indexes every type, and each
 * lookup then walks them all again: a quarter of a short recording's
 * CPU. A file this walk does not know (another byte order, a new kind)
 * goes to libbpf's parse, as before.
 */
struct btf_walk {
	const char *types, *strs;
	__u32 types_len, strs_len;
	__u32 *off; /* each type's offset in types, by id - 1 */
	__u32 n;
	__u32 trace_id[ARRAY_SIZE(tp_btf_needed)]; /* btf_trace_@tp_btf_needed[i] */
	bool task_btf;				   /* BPF_FUNC_get_current_task_btf */
};

/*
 * The walk, kept for rc_kbtf__write_core(): the file's text, mapped or
 * read. Or, where the cache had the walk's answers (walked false), those
 * alone, w.trace_id among them: the walk is made the first time a CO-RE
 * subset is not in the cache either.
 */
struct rc_kbtf {
	struct btf_walk w;
	char *text;
	size_t len;
	bool mapped;
	bool walked;
	char key[512];	/* the cache's key for this kernel's BTF, "" for no cache */
	char name[128]; /* and its file's name */
};

static const char *walk_name(const struct btf_walk *w, __u32 off)
{
	return off < w->strs_len ? w->strs + off : "";
}

/*
 * The bytes a type of @kind with @vlen members takes after its struct
 * btf_type; -1: unknown. Inlined: a call for each of the kernel's types
 * was a tenth of the walk.
 */
static inline __attribute__((always_inline)) long kind_extra(__u32 kind, __u32 vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

static const struct btf_type *walk_type(const struct btf_walk *w, __u32 id)
{
	return id && id <= w->n ? (const struct btf_type *)(w->types + w->off[id - 1]) : NULL;
}

/*
 * One pass over the types: -EPROTO when one is of a kind this walk does not know.
 * The offsets' array is made once, for as many types as the section could
 * hold (none is shorter than its struct btf_type): untouched, its pages
 * past the last type are never faulted in, where growing it by doubling
 * copied it twice (256k offsets, a megabyte, for 6.18's 150k types).
 */
static int walk_types(struct btf_walk *w)
{
	__u32 pos = 0, cap = w->types_len / sizeof(struct btf_type) + 1, i;

	while (pos < w->types_len) {
		const struct btf_type *t = (const void *)(w->types + pos);
		__u32 kind, vlen;
		const char *name;
		long extra;

		if (w->types_len - pos < sizeof(*t) || pos % 4)
			return -EPROTO;
		kind = btf_kind(t);
		vlen = btf_vlen(t);
		extra = kind_extra(kind, vlen);
		if (extra < 0 || (__u64)w->types_len - pos - sizeof(*t) < (__u64)extra)
			return -EPROTO;
		if (!w->off) {
			w->off = malloc((size_t)cap * sizeof(*w->off));
			if (!w->off)
				return -ENOMEM;
		}
		if (w->n == cap)
			return -EPROTO; /* never: each type takes sizeof(*t) at least */
		w->off[w->n++] = pos;
		if (kind == BTF_KIND_TYPEDEF) {
			name = walk_name(w, t->name_off);
			/* a first byte that differs rules a name out: a call less, mostly */
			if (!strncmp(name, "btf_trace_", 10))
				for (i = 0; i < ARRAY_SIZE(tp_btf_needed); i++)
					if (name[10] == tp_btf_needed[i][0] &&
					    !strcmp(name + 10, tp_btf_needed[i]))
						w->trace_id[i] = w->n;
		} else if (kind == BTF_KIND_ENUM && !w->task_btf &&
			   !strcmp(walk_name(w, t->name_off), "bpf_func_id")) {
			/* the helpers' enum alone, not every enum's enumerators */
			const struct btf_enum *e = btf_enum(t);

			for (i = 0; i < vlen; i++)
				if (!strcmp(walk_name(w, e[i].name_off), "BPF_FUNC_get_current_task_btf"))
					w->task_btf = true;
		}
		pos += sizeof(*t) + extra;
	}
	return 0;
}

/* As tp_btf_nargs(), from the walk: the typedef's pointer's prototype's parameters, less one. */
static int walk_nargs(const struct btf_walk *w, size_t i)
{
	const struct btf_type *t = walk_type(w, w->trace_id[i]);

	t = t ? walk_type(w, t->type) : NULL;
	t = t && btf_is_ptr(t) ? walk_type(w, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -1;
	return btf_vlen(t) - 1;
}

static size_t needed_index(const char *tp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tp_btf_needed) - 1; i++)
		if (!strcmp(tp_btf_needed[i], tp))
			break;
	return i;
}

/*
 * /sys/kernel/btf/vmlinux, mapped where the kernel lets it be (Linux
 * 6.16), else read whole: sysfs gives it a page a read(), into a buffer
 * of the size it states.
 */
static int read_vmlinux_btf(char **out, size_t *len, bool *mapped)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	struct stat st;
	ssize_t n;
	char *buf;
	void *p;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0 || (uint64_t)st.st_size > 1ull << 30) {
		/* a size it does not state: read to the end */
		int err = rc_sysfs__read_fd(fd, 1u << 30, out, len);

		close(fd);
		return err;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p != MAP_FAILED) {
		close(fd);
		*out = p;
		*len = st.st_size;
		*mapped = true;
		return 0;
	}
	buf = malloc(st.st_size);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	*out = buf;
	*len = got; /* short: the header's bounds say so */
	return 0;
}

/*
 * The kernel's BTF read and walked into @k: 0, -ENOENT without the file,
 * -EPROTO when it is not raw BTF of this machine's byte order, or has a
 * kind the walk does not know.
 */
static int walk_kernel(struct rc_kbtf *k)
{
	struct btf_walk w = {};
	const struct btf_header *h;
	bool mapped = false;
	char *text = NULL;
	size_t len;
	int err;

	err = read_vmlinux_btf(&text, &len, &mapped);
	if (err)
		return err == -ENOENT ? err : -EPROTO;
	h = (const void *)text;
	err = -EPROTO;
	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len < sizeof(*h) ||
	    h->hdr_len > len || (__u64)h->type_off + h->type_len > len - h->hdr_len ||
	    (__u64)h->str_off + h->str_len > len - h->hdr_len || (h->hdr_len + h->type_off) % 4)
		goto out;
	w.types = text + h->hdr_len + h->type_off;
	w.types_len = h->type_len;
	w.strs = text + h->hdr_len + h->str_off;
	w.strs_len = h->str_len;
	if (!w.strs_len || w.strs[w.strs_len - 1])
		goto out; /* every name ends inside the section */
	err = walk_types(&w);
	if (err)
		goto out;
	k->w = w;
	k->text = text;
	k->len = len;
	k->mapped = mapped;
	k->walked = true;
	return 0;
out:
	free(w.off);
	if (mapped)
		munmap(text, len);
	else
		free(text);
	return err;
}

/* Bumped when the answers, or the CO-RE subset made for an object, change meaning. */
#define KBTF_CACHE_VERSION 1u
#define CORE_CACHE_VERSION 1u

/*
 * What the probe learns from the kernel's BTF, as the cache keeps it:
 * each needed tracepoint's type and count of arguments (-1: none).
 */
struct kbtf_answers {
	__u32 trace_id[ARRAY_SIZE(tp_btf_needed)];
	__s8 nargs[ARRAY_SIZE(tp_btf_needed)];
	__u8 current_task_btf;
};

static void answers_of_walk(const struct btf_walk *w, struct kbtf_answers *a)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < ARRAY_SIZE(tp_btf_needed); i++) {
		a->trace_id[i] = w->trace_id[i];
		int n = walk_nargs(w, i);

		a->nargs[i] = n < 0 ? -1 : n > 127 ? 127 : (__s8)n;
	}
	a->current_task_btf = w->task_btf;
}

static void apply_answers(struct rc_features *f, const struct kbtf_answers *a)
{
	size_t i;

	f->btf = true;
	f->tp_btf = true;
	for (i = 0; i < ARRAY_SIZE(tp_btf_needed); i++) {
		if (a->nargs[i] < 0) {
			f->tp_btf = false;
			snprintf(f->tp_btf_missing, sizeof(f->tp_btf_missing), "%s",
				 tp_btf_needed[i]);
			break;
		}
	}
	f->exit_group_dead = a->nargs[needed_index("sched_process_exit")] >= 2;
	/* (preempt, prev, next) before 5.18; prev_state after them since */
	f->switch_prev_state = a->nargs[needed_index("sched_switch")] >= 4;
	f->current_task_btf = a->current_task_btf;
}

/*
 * The running kernel's build id (its ELF note, /sys/kernel/notes) in
 * hex: what names its BTF, built into it. 0, or -ENOENT.
 */
static int kernel_build_id(char *hex, size_t len)
{
	size_t n = 0;
	char *text = NULL;
	int err;

	err = rc_sysfs__read("/sys/kernel/notes", 1u << 16, &text, &n);
	if (err)
		return err;
	err = rc_build_id_of_notes(text, n, hex, len);
	free(text);
	return err;
}

/*
 * The cache's key and file name for this kernel's BTF (util/cache.h):
 * the kernel's build id and the BTF's size, and what the answers are
 * about (the tracepoints asked for, in order). false: no cache, the
 * kernel's build id unknown.
 */
static bool kbtf_cache_key(struct rc_kbtf *k)
{
	char id[129], needs[256] = "";
	struct stat st;
	size_t i, used;

	if (stat("/sys/kernel/btf/vmlinux", &st) || kernel_build_id(id, sizeof(id)))
		return false;
	for (i = 0; i < ARRAY_SIZE(tp_btf_needed); i++) {
		used = strlen(needs);
		snprintf(needs + used, sizeof(needs) - used, "%s%s", i ? "," : "",
			 tp_btf_needed[i]);
	}
	snprintf(k->key, sizeof(k->key),
		 "ringcap kernel BTF answers %u, %zu bytes: build id %s, %lld bytes of BTF; %s",
		 KBTF_CACHE_VERSION, sizeof(struct kbtf_answers), id, (long long)st.st_size, needs);
	snprintf(k->name, sizeof(k->name), "kbtf-%.64s-%lld", id, (long long)st.st_size);
	return true;
}

/*
 * The probe's answers from the cache, @k keeping them and the key for
 * rc_kbtf__write_core(): 0, or -errno (-ENOENT: none cached).
 */
static int answers_cached(struct rc_features *f, struct rc_kbtf *k)
{
	struct kbtf_answers a;
	size_t len = 0;
	void *data = NULL;
	int err;

	err = rc_cache__get(k->name, k->key, &data, &len);
	if (err)
		return err;
	if (len != sizeof(a)) {
		free(data);
		return -EBADMSG;
	}
	memcpy(&a, data, sizeof(a));
	free(data);
	apply_answers(f, &a);
	memcpy(k->w.trace_id, a.trace_id, sizeof(a.trace_id));
	return 0;
}

static void probe_btf(struct rc_features *f, struct rc_kbtf **keep)
{
	struct kbtf_answers a;
	struct rc_kbtf *k = calloc(1, sizeof(*k));
	struct btf *btf;
	size_t i;
	int err;

	if (k && kbtf_cache_key(k)) {
		err = answers_cached(f, k);
		if (!err) {
			pr_debug("the kernel's BTF: the answers cached in %s\n", k->name);
			goto keep;
		}
		if (err != -ENOENT)
			pr_debug("the kernel's BTF: cached answers not used (%s)\n",
				 strerror(-err));
	}
	if (k && !walk_kernel(k)) {
		answers_of_walk(&k->w, &a);
		apply_answers(f, &a);
		if (k->name[0]) {
			err = rc_cache__put(k->name, k->key, &a, sizeof(a));
			if (err && err != -ENOENT)
				pr_debug("the kernel's BTF: answers not cached (%s)\n",
					 strerror(-err));
		}
		goto keep;
	}
	rc_kbtf__free(k);
	/*
	 * No /sys/kernel/btf/vmlinux, a BTF the walk does not know, or no
	 * memory: libbpf's parse, which also looks for a vmlinux with BTF
	 * under /boot and /lib/modules, as before the walk.
	 */
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return;
	f->btf = true;
	f->tp_btf = true;
	for (i = 0; i < ARRAY_SIZE(tp_btf_needed); i++) {
		if (tp_btf_nargs(btf, tp_btf_needed[i]) < 0) {
			f->tp_btf = false;
			snprintf(f->tp_btf_missing, sizeof(f->tp_btf_missing), "%s",
				 tp_btf_needed[i]);
			break;
		}
	}
	f->exit_group_dead = tp_btf_nargs(btf, "sched_process_exit") >= 2;
	/* (preempt, prev, next) before 5.18; prev_state after them since */
	f->switch_prev_state = tp_btf_nargs(btf, "sched_switch") >= 4;
	f->current_task_btf = btf_has_enum_value(btf, "BPF_FUNC_get_current_task_btf");
	btf__free(btf);
	return;
keep:
	if (keep)
		*keep = k;
	else
		rc_kbtf__free(k);
}

/*
 * How the kernel preempts: "rt" when uname -v says PREEMPT_RT (the kernel
 * writes its build's preemption model there; /sys/kernel/realtime is the
 * out-of-tree RT patches' and counts only when present), else the dynamic
 * mode debugfs shows in parentheses ("full", "voluntary", "none"), else
 * what uname -v says ("dynamic", "full"), else "".
 */
static void probe_preempt(struct rc_features *f)
{
	char buf[128], *lp, *rp, *text;
	struct utsname uts;
	int fd;

	if (uname(&uts))
		uts.version[0] = '\0';
	if (strstr(uts.version, "PREEMPT_RT")) {
		snprintf(f->preempt, sizeof(f->preempt), "rt");
		return;
	}
	if (rc_sysfs__read_line("/sys/kernel/realtime", buf, sizeof(buf)) > 0 && buf[0] == '1') {
		snprintf(f->preempt, sizeof(f->preempt), "rt");
		return;
	}
	/* a file opened is the answer, read or not: one that could not be opened is not */
	fd = open("/sys/kernel/debug/sched/preempt", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (!rc_sysfs__read_fd(fd, 4096, &text, NULL)) {
			text[strcspn(text, "\n")] = '\0'; /* its first line */
			if ((lp = strchr(text, '(')) && (rp = strchr(lp, ')'))) {
				*rp = '\0';
				snprintf(f->preempt, sizeof(f->preempt), "%s", lp + 1);
			}
			free(text);
		}
		close(fd);
		return;
	}
	snprintf(f->preempt, sizeof(f->preempt), "%s",
		 strstr(uts.version, "PREEMPT_DYNAMIC") ? "dynamic"
		 : strstr(uts.version, "PREEMPT ")	? "full"
							: "");
}

/* tracefs's ring-buffer mapping: Linux 6.10 (--transport ftrace). */
static bool ftrace_mappable(const char *release)
{
	unsigned int major = 0, minor = 0;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 10);
}

/*
 * RINGCAP_FEATURES_OFF=NAME[,NAME...]: features taken as missing whatever
 * the probe found, so that the variants older kernels get run on this
 * one too (the tests do). ringcap-record(1), ENVIRONMENT. An unknown name
 * is said, and ignored.
 */
static void mask_features(struct rc_features *f, bool say)
{
	static const struct {
		const char *name;
		size_t off;
	} names[] = {
#define FEATURE(n) { #n, offsetof(struct rc_features, n) }
		FEATURE(ringbuf),
		FEATURE(task_storage),
		FEATURE(current_task_btf),
		FEATURE(attach_cookie),
		FEATURE(atomics),
		FEATURE(task_pt_regs),
		FEATURE(ftrace_mmap),
		FEATURE(exit_group_dead),
#undef FEATURE
		{ "sched_switch_prev_state", offsetof(struct rc_features, switch_prev_state) },
	};
	const char *off = getenv("RINGCAP_FEATURES_OFF"), *p;
	size_t i, n, used;

	f->masked[0] = '\0';
	for (p = off; p && *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n && !strncmp(p, names[i].name, n))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			if (n && say)
				pr_warn("RINGCAP_FEATURES_OFF: no feature named '%.*s' (ignored)\n",
					(int)n, p);
			continue;
		}
		*(bool *)((char *)f + names[i].off) = false;
		used = strlen(f->masked);
		snprintf(f->masked + used, sizeof(f->masked) - used, "%s%s", used ? "," : "",
			 names[i].name);
	}
}

void rc_features__probe_ftrace(struct rc_features *f)
{
	struct utsname uts;

	if (!uname(&uts))
		snprintf(f->release, sizeof(f->release), "%s", uts.release);
	f->tracefs = !access("/sys/kernel/tracing/events", F_OK) ||
		     !access("/sys/kernel/debug/tracing/events", F_OK);
	f->tracefs_denied = !f->tracefs && errno == EACCES;
	f->ftrace_mmap = f->tracefs && ftrace_mappable(f->release);
	mask_features(f, true);
}

int rc_features__probe_keep(struct rc_features *f, struct rc_kbtf **kbtf)
{
	libbpf_print_fn_t old = libbpf_set_print(silent);
	int ret;

	if (kbtf)
		*kbtf = NULL;
	memset(f, 0, sizeof(*f));
	rc_features__probe_ftrace(f);
	ret = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACEPOINT, NULL);
	f->bpf = ret == 1;
	if (!f->bpf) {
		/* refused for want of privileges (the probe says only "no"), or absent? */
		int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);

		if (fd >= 0)
			close(fd);
		f->bpf_denied = fd < 0 && (errno == EPERM || errno == EACCES);
	}
	if (f->bpf) {
		f->ringbuf = map_ok(BPF_MAP_TYPE_RINGBUF);
		f->perf_event_array = map_ok(BPF_MAP_TYPE_PERF_EVENT_ARRAY);
		f->task_storage = map_ok(BPF_MAP_TYPE_TASK_STORAGE);
		f->ktime_boot = helper_ok(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_ktime_get_boot_ns);
		f->attach_cookie = helper_ok(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_get_attach_cookie);
		f->atomics = atomics_ok();
		f->task_pt_regs = helper_ok(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs);
	}
	probe_btf(f, kbtf); /* a file anyone may read: known without privileges too */
	f->uprobes = !access("/sys/bus/event_source/devices/uprobe/type", F_OK);
	probe_preempt(f);
	mask_features(f, false); /* again, over the BPF answers: said once, above */
	libbpf_set_print(old);
	return 0;
}

int rc_features__probe(struct rc_features *f)
{
	return rc_features__probe_keep(f, NULL);
}

/*
 * What the built-in sources need, in the words of the refusal: NULL when
 * this kernel has it all, else the first missing feature.
 */
const char *rc_features__missing(const struct rc_features *f, enum rc_feature_need need)
{
	if (!f->bpf)
		/*
		 * transport auto never moves to ftrace on its own: the same
		 * names mean other events there (ringcap's syscalls pairs
		 * entry and exit; ftrace's are the kernel's two events)
		 */
		return "BPF (CONFIG_BPF_SYSCALL), or the privileges to use it (CAP_BPF and "
		       "CAP_PERFMON); --transport ftrace records the kernel's tracepoints "
		       "without BPF";
	if (!f->ktime_boot)
		return "the BPF helper bpf_ktime_get_boot_ns (Linux 5.8)";
	switch (need) {
	case RC_NEED_SYSCALLS:
	case RC_NEED_SCHED:
	case RC_NEED_FOLLOW:
		if (!f->btf)
			return "kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)";
		if (!f->tp_btf)
			return "BTF tracepoints (tp_btf, Linux 5.5)";
		/* the rest, the compat programs make up for (rc_features__compat()) */
		return NULL;
	case RC_NEED_OFFCPU:
		if (!f->btf)
			return "kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)";
		return f->tp_btf ? NULL : "BTF tracepoints (tp_btf, Linux 5.5)";
	case RC_NEED_PROFILE:
		/* the compat program reads the task with CO-RE */
		if (!f->current_task_btf && !f->btf)
			return "kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)";
		return NULL;
	case RC_NEED_TRACEPOINTS:
		return NULL;
	case RC_NEED_UPROBES:
		return f->uprobes ? NULL : "uprobes (CONFIG_UPROBE_EVENTS)";
	}
	return NULL;
}

const char *rc_features__variant(const struct rc_features *f, enum rc_feature_need need)
{
	switch (need) {
	case RC_NEED_TRACEPOINTS:
		if (!f->attach_cookie)
			return "no attach cookies: a BPF program per tracepoint, " RC_STR(
			    RC_SLOTS_TP) " at most; syscall events on the raw tracepoints";
		return NULL;
	case RC_NEED_UPROBES:
		if (!f->attach_cookie)
			return "no attach cookies: a BPF program per probe, " RC_STR(
			    RC_SLOTS_PROBE) " uprobes and " RC_STR(RC_SLOTS_PROBE) " uretprobes at "
										   "most";
		return NULL;
	default:
		return NULL;
	}
}

/* A reason for the compat programs: "@a: @b", after "; " when @why has one already. */
static bool add_reason(char *why, size_t len, const char *a, const char *b)
{
	size_t used = len ? strnlen(why, len - 1) : 0;

	if (len)
		snprintf(why + used, len - used, "%s%s: %s", used ? "; " : "", a, b);
	return true;
}

bool rc_features__compat(const struct rc_features *f, enum rc_feature_need need, char *why,
			 size_t len)
{
	/* the current task: every source's, but those that read only their tracepoints' tasks */
	bool current = need != RC_NEED_OFFCPU && need != RC_NEED_FOLLOW;
	bool state = need == RC_NEED_SCHED || need == RC_NEED_OFFCPU;
	bool compat = false;

	if (len)
		why[0] = '\0';
	if (current && !f->current_task_btf)
		compat = add_reason(why, len, "no bpf_get_current_task_btf",
				    "bpf_get_current_task and CO-RE reads");
	if (need == RC_NEED_SYSCALLS && !f->task_storage)
		compat = add_reason(why, len, "no task storage",
				    "a hash map of " RC_STR(RC_PENDING_MAX) " calls in progress");
	if (state && !f->switch_prev_state)
		compat =
		    add_reason(why, len, "no sched_switch prev_state", "the task's state by CO-RE");
	if (need == RC_NEED_FOLLOW && !f->atomics)
		compat =
		    add_reason(why, len, "no BPF atomic and/or",
			       "atomic adds and a hash map of " RC_STR(RC_FOLLOW_MAX) " processes");
	return compat;
}

/* ---- the kernel's types CO-RE needs, for libbpf ----------------------- */

/*
 * libbpf 1.1 relocates an object's CO-RE accesses against the kernel's
 * BTF, and looks for each local type's candidates by walking every one
 * of the kernel's 100k and more types: about 1.5 ms a type, 4.5 ms of a
 * short recording's start. Given a BTF of its own (btf_custom_path), it
 * looks there instead. rc_kbtf__write_core() writes one: the kernel's
 * types named as the object's local ones are (their essential names, a
 * ___flavour suffix cut), whole, with every type they hold by value
 * (members, arrays, typedefs, qualifiers), and their pointers made
 * void pointers, which CO-RE never looks behind in field accesses, the
 * only relocations ringcap's programs make. Member offsets and sizes are
 * the kernel's, so what libbpf computes is what the whole BTF gives.
 */

/*
 * @name's essential length (up to a "___" flavour suffix), and its hash
 * over that: one pass, for every named type of the kernel's.
 */
static size_t essential(const char *name, __u32 *hash)
{
	__u32 h = 2166136261u; /* FNV-1a */
	size_t i;

	for (i = 0; name[i]; i++) {
		if (name[i] == '_' && name[i + 1] == '_' && name[i + 2] == '_')
			break;
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	}
	*hash = h;
	return i;
}

static bool named_kind(__u32 kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION || kind == BTF_KIND_ENUM ||
	       kind == BTF_KIND_ENUM64 || kind == BTF_KIND_FWD || kind == BTF_KIND_TYPEDEF;
}

/*
 * The local names: a set, open addressing, its size a power of two; and
 * the pairs of first bytes they begin with, a bit each (the second byte
 * 0 for a one-byte name), so that most of the kernel's names are ruled
 * out without hashing them.
 */
struct core_names {
	const char **name;
	size_t *len;
	size_t mask;
	__u64 first2[65536 / 64];
};

/* The first two bytes of @name's essential name (essential()), 0 past its end. */
static unsigned int first2(const char *name)
{
	unsigned int a = (unsigned char)name[0], b;

	if (!a)
		return 0;
	b = (unsigned char)name[1];
	if (b == '_' && name[2] == '_' && name[3] == '_')
		b = 0;
	return a | b << 8;
}

static bool first2_has(const struct core_names *n, const char *name)
{
	unsigned int f = first2(name);

	return n->first2[f / 64] & (1ull << (f % 64));
}

static bool names_has(const struct core_names *n, const char *name, size_t len, __u32 h)
{
	size_t i;

	for (i = h & n->mask; n->name[i]; i = (i + 1) & n->mask)
		if (n->len[i] == len && !memcmp(n->name[i], name, len))
			return true;
	return false;
}

static int local_names(const struct btf *local, struct core_names *n)
{
	__u32 id, cnt = btf__type_cnt(local), h;
	size_t size = 64;

	while (size < 2 * (size_t)cnt)
		size *= 2;
	n->mask = size - 1;
	n->name = calloc(size, sizeof(*n->name));
	n->len = calloc(size, sizeof(*n->len));
	if (!n->name || !n->len)
		return -ENOMEM;
	for (id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(local, id);
		const char *name = btf__name_by_offset(local, t->name_off);
		size_t len, i;

		if (!named_kind(btf_kind(t)) || !name || !*name)
			continue;
		len = essential(name, &h);
		if (!len || names_has(n, name, len, h))
			continue;
		for (i = h & n->mask; n->name[i]; i = (i + 1) & n->mask)
			;
		n->name[i] = name;
		n->len[i] = len;
		n->first2[first2(name) / 64] |= 1ull << (first2(name) % 64);
	}
	return 0;
}

/*
 * How many types @t holds by value (its references but a pointer's, made
 * void * in the copy), -EPROTO for a kind not expected among them;
 * held_at() is the place of the @i-th one's id in @t.
 */
static int nheld(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
	case BTF_KIND_PTR:
		return 0;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return 1;
	case BTF_KIND_ARRAY:
		return 2;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return btf_vlen(t);
	case BTF_KIND_FUNC_PROTO:
		return btf_vlen(t) + 1;
	}
	return -EPROTO;
}

static __u32 *held_at(struct btf_type *t, int i)
{
	switch (btf_kind(t)) {
	case BTF_KIND_ARRAY:
		return i ? &btf_array(t)->index_type : &btf_array(t)->type;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return &btf_members(t)[i].type;
	case BTF_KIND_FUNC_PROTO:
		return i ? &btf_params(t)[i - 1].type : &t->type;
	}
	return &t->type;
}

/* A growing buffer. */
struct core_buf {
	char *p;
	size_t len, cap;
};

static void *buf_add(struct core_buf *b, const void *data, size_t len)
{
	void *at;

	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return NULL;
		b->p = p;
		b->cap = cap;
	}
	at = b->p + b->len;
	memcpy(at, data, len);
	b->len += len;
	return at;
}

/* @off's name in the kernel's strings, appended to @strs: its new offset, 0 for none. */
static int add_name(const struct btf_walk *w, struct core_buf *strs, __u32 *off)
{
	const char *name = walk_name(w, *off);
	size_t at = strs->len;

	if (!*name) {
		*off = 0;
		return 0;
	}
	if (!buf_add(strs, name, strlen(name) + 1))
		return -ENOMEM;
	*off = at;
	return 0;
}

/* Every name offset of @t (a copy, in the new BTF), made the new strings'. */
static int rename_type(const struct btf_walk *w, struct btf_type *t, struct core_buf *strs)
{
	__u32 kind = btf_kind(t), vlen = btf_vlen(t), i;
	int err = add_name(w, strs, &t->name_off);

	for (i = 0; !err && i < vlen; i++) {
		if (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION)
			err = add_name(w, strs, &btf_members(t)[i].name_off);
		else if (kind == BTF_KIND_ENUM)
			err = add_name(w, strs, &btf_enum(t)[i].name_off);
		else if (kind == BTF_KIND_ENUM64)
			err = add_name(w, strs, &btf_enum64(t)[i].name_off);
		else if (kind == BTF_KIND_FUNC_PROTO)
			err = add_name(w, strs, &btf_params(t)[i].name_off);
	}
	return err;
}

/* A set of the kernel's type ids: a bit each, and the ids in the order they came in. */
struct core_set {
	__u64 *bits;
	__u32 *ids;
	size_t n, cap;
};

static int set_add(struct core_set *c, __u32 id)
{
	if (c->bits[id / 64] & (1ull << (id % 64)))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		__u32 *p = realloc(c->ids, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->ids = p;
		c->cap = cap;
	}
	c->bits[id / 64] |= 1ull << (id % 64);
	c->ids[c->n++] = id;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* The new id of kernel type @id, which is in @c (its ids sorted): its place, from 1. */
static __u32 new_id(const struct core_set *c, __u32 id)
{
	const __u32 *p = bsearch(&id, c->ids, c->n, sizeof(*c->ids), cmp_id);

	return p ? (__u32)(p - c->ids) + 1 : 0;
}

/* @len bytes at @p, the whole of @fd: 0, or -errno. */
static int write_fd(int fd, const void *p, size_t len)
{
	size_t done = 0;
	ssize_t n;

	if (ftruncate(fd, 0))
		return -errno;
	while (done < len) {
		n = pwrite(fd, (const char *)p + done, len - done, done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	return 0;
}

/* The walk @k's answers came without, made now: 0, or -errno. */
static int kbtf_walked(struct rc_kbtf *k)
{
	__u32 ids[ARRAY_SIZE(tp_btf_needed)];
	int err;

	if (k->walked)
		return 0;
	memcpy(ids, k->w.trace_id, sizeof(ids));
	err = walk_kernel(k);
	if (err)
		return err;
	if (memcmp(ids, k->w.trace_id, sizeof(ids))) {
		/* never (the key names this kernel's BTF): the file made right for the next start
		 */
		struct kbtf_answers a;

		pr_warn("the cache's answers about the kernel's BTF (%s) were wrong: made again; "
			"if this recording fails, run it again\n",
			k->name);
		answers_of_walk(&k->w, &a);
		rc_cache__put(k->name, k->key, &a, sizeof(a));
		return -ESTALE;
	}
	return 0;
}

/*
 * The cache's key and name for @local's subset (in @key and @name):
 * this kernel's, and a hash of the object's BTF. false: no cache.
 */
static bool core_cache_key(const struct rc_kbtf *k, const struct btf *local, char *key, size_t klen,
			   char *name, size_t nlen)
{
	const void *raw;
	__u32 size = 0;
	__u64 h;

	if (!k->name[0] || !(raw = btf__raw_data(local, &size)))
		return false;
	h = rc_siphash24(0x636f7265, 0x62746600, raw, size);
	snprintf(key, klen, "%s; CO-RE subset %u for an object's BTF of %u bytes, %016llx", k->key,
		 CORE_CACHE_VERSION, size, (unsigned long long)h);
	snprintf(name, nlen, "%s-core-%016llx", k->name, (unsigned long long)h);
	return true;
}

/*
 * The types taken are a set (a bit a kernel type, a list of the few
 * taken), numbered in the kernel's order by sorting the list: arrays of
 * every kernel type's new id and of a stack as deep (1.2 MB for 6.18's
 * 150k types) were faulted in and walked whole at every start.
 */
int rc_kbtf__write_core(struct rc_kbtf *k, const struct btf *local, int fd)
{
	char ckey[sizeof(k->key) + 128], cname[sizeof(k->name) + 32];
	bool cache = core_cache_key(k, local, ckey, sizeof(ckey), cname, sizeof(cname));
	const struct btf_walk *w = &k->w;
	struct core_buf types = {}, strs = {}, blob = {};
	void *data = NULL;
	size_t dlen = 0;
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(h) };
	struct core_names names = {};
	struct core_set set = {};
	size_t i;
	__u32 id, hash;
	int err = -ENOMEM, r, j;

	if (cache) {
		err = rc_cache__get(cname, ckey, &data, &dlen);
		if (!err) {
			err = write_fd(fd, data, dlen);
			free(data);
			if (!err)
				pr_debug(
				    "CO-RE relocations against the kernel's types cached in %s\n",
				    cname);
			return err;
		}
		if (err != -ENOENT)
			pr_debug("CO-RE subset: the cached one not used (%s)\n", strerror(-err));
	}
	err = kbtf_walked(k);
	if (err)
		return err;
	err = -ENOMEM;
	if (local_names(local, &names))
		goto out;
	set.bits = calloc((size_t)w->n / 64 + 1, sizeof(*set.bits));
	if (!set.bits || !buf_add(&strs, "", 1))
		goto out;
	/* the kernel's types of the local names */
	for (id = 1; id <= w->n; id++) {
		const struct btf_type *t = walk_type(w, id);
		const char *name;
		size_t len;

		if (!t->name_off || !named_kind(btf_kind(t)))
			continue;
		name = walk_name(w, t->name_off);
		if (!first2_has(&names, name))
			continue;
		len = essential(name, &hash);
		if (len && names_has(&names, name, len, hash) && set_add(&set, id))
			goto out;
	}
	/* and what they hold by value: the list grows as it is walked */
	for (i = 0; i < set.n; i++) {
		const struct btf_type *t = walk_type(w, set.ids[i]);

		r = nheld(t);
		if (r < 0) {
			err = r;
			goto out;
		}
		for (j = 0; j < r; j++) {
			__u32 ref = *held_at((struct btf_type *)t, j);

			if (ref > w->n) {
				err = -EPROTO;
				goto out;
			}
			if (ref && set_add(&set, ref))
				goto out;
		}
	}
	/* numbered in the kernel's order, then copied with their references and names made new */
	qsort(set.ids, set.n, sizeof(*set.ids), cmp_id);
	for (i = 0; i < set.n; i++) {
		const struct btf_type *src = walk_type(w, set.ids[i]);
		size_t size = sizeof(*src) + kind_extra(btf_kind(src), btf_vlen(src));
		struct btf_type *t = buf_add(&types, src, size);

		if (!t) {
			err = -ENOMEM;
			goto out;
		}
		r = nheld(t); /* known by now */
		for (j = 0; j < r; j++) {
			__u32 *ref = held_at(t, j);

			*ref = *ref ? new_id(&set, *ref) : 0;
		}
		if (btf_is_ptr(t))
			t->type = 0;
		err = rename_type(w, t, &strs);
		if (err)
			goto out;
	}
	h.type_off = 0;
	h.type_len = types.len;
	h.str_off = types.len;
	h.str_len = strs.len;
	if (!buf_add(&blob, &h, sizeof(h)) || (types.len && !buf_add(&blob, types.p, types.len)) ||
	    !buf_add(&blob, strs.p, strs.len)) {
		err = -ENOMEM;
		goto out;
	}
	err = write_fd(fd, blob.p, blob.len);
	if (err)
		goto out;
	pr_debug("CO-RE relocations against %zu of the kernel's %u types\n", set.n, w->n);
	if (cache) {
		r = rc_cache__put(cname, ckey, blob.p, blob.len);
		if (r && r != -ENOENT)
			pr_debug("CO-RE subset not cached (%s)\n", strerror(-r));
	}
out:
	free(blob.p);
	free(names.name);
	free(names.len);
	free(set.bits);
	free(set.ids);
	free(types.p);
	free(strs.p);
	return err;
}

int rc_kbtf__write_whole(struct rc_kbtf *k, int fd)
{
	int err = kbtf_walked(k);

	return err ?: write_fd(fd, k->text, k->len);
}

int rc_kbtf__trace_id(const struct rc_kbtf *k, const char *tp)
{
	size_t i;

	for (i = 0; k && i < ARRAY_SIZE(tp_btf_needed); i++)
		if (!strcmp(tp_btf_needed[i], tp))
			return k->w.trace_id[i] ? (int)k->w.trace_id[i] : -ENOENT;
	return -ENOENT;
}

bool rc_kbtf__walked(const struct rc_kbtf *k)
{
	return k && k->walked;
}

void rc_kbtf__free(struct rc_kbtf *k)
{
	if (!k)
		return;
	free(k->w.off);
	if (k->mapped)
		munmap(k->text, k->len);
	else
		free(k->text);
	free(k);
}
