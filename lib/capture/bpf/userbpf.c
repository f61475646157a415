// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --bpf (userbpf.h). The records are the user's own structs, with
 * no ringcap header. A BPF ring buffer's are stamped when read
 * (CLOCK_BOOTTIME), in the ring's order; all CPUs share it, so their CPU
 * is unknown. A perf event array's rings are ringcap's own
 * (capture/bpf/perfbuf.h, user samples): the kernel stamps each record
 * with its time, pid, tid and CPU as it writes it, and the CPUs' rings are
 * merged in time order. The struct's fields named pid, tid and comm, when
 * it has them, give those. What nothing gives is unknown: the event's
 * flags say so.
 */
#include <linux/types.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "capture/bpf/btfdesc.h"
#include "capture/bpf/perfbuf.h"
#include "events.h"
#include "capture/bpf/userbpf.h"
#include "capture/session.h"
#include "format/schema_int.h"
#include "util/util.h"

#define FIRST_ENUM_ID 64			     /* above the built-in enums' ids */
#define RAW_HDR	      (sizeof(struct rc_rec_hdr) + 8) /* header, then u32 loc, u32 pad */
#define RAW_MAX	      (RC_REC_MAX - RAW_HDR)
#define PERF_SIZE     (8u << 20) /* a CPU's perf ring, as for ringcap's own: -m */
#ifndef PROC_PID_INIT_INO
#define PROC_PID_INIT_INO 0xEFFFFFFCU /* include/linux/proc_ns.h */
#endif

struct rc_user {
	struct rc_user_opts o;
	struct bpf_object *obj;
	struct bpf_map *map;
	struct bpf_link **links;
	size_t nlinks;
	struct ring_buffer *rb;
	struct rc_perfbuf pb;
	bool perf; /* pb is open */
	struct rc_btf_desc desc;
	uint16_t id, raw_id;
	const struct rc_field *pid, *tid, *comm; /* in the struct, or NULL */
	uint64_t mismatched;
	unsigned char *rec; /* a record is built here */
	int err;	    /* the first put's failure */
};

static bool is_ring(const struct bpf_map *m)
{
	enum bpf_map_type t = bpf_map__type(m);

	return t == BPF_MAP_TYPE_RINGBUF || t == BPF_MAP_TYPE_PERF_EVENT_ARRAY;
}

static int find_map(struct rc_user *u)
{
	struct bpf_map *m, *found = NULL;
	int n = 0;

	bpf_object__for_each_map(m, u->obj)
	{
		if (u->o.map ? !strcmp(bpf_map__name(m), u->o.map) : is_ring(m)) {
			found = m;
			n++;
		}
	}
	if (u->o.map && !found) {
		pr_warn("'%s' has no map named '%s'\n", u->o.path, u->o.map);
		return -ENOENT;
	}
	if (!found) {
		pr_warn("'%s' has no BPF_MAP_TYPE_RINGBUF or BPF_MAP_TYPE_PERF_EVENT_ARRAY map to "
			"drain\n",
			u->o.path);
		return -ENOENT;
	}
	if (n > 1) {
		pr_warn("'%s' has %d ring buffer and perf event array maps: name the one to drain "
			"with --map NAME\n",
			u->o.path, n);
		return -EINVAL;
	}
	if (!is_ring(found)) {
		pr_warn("map '%s' of '%s' is not a ring buffer or a perf event array\n",
			bpf_map__name(found), u->o.path);
		return -EINVAL;
	}
	u->map = found;
	return 0;
}

static const struct rc_field *header_field(const struct rc_btf_desc *d, const char *name,
					   enum rc_field_kind kind)
{
	uint16_t i;

	for (i = 0; i < d->nfields; i++) {
		const struct rc_field *f = &d->fields[i];

		if (strcmp(f->name, name) || f->count != 1)
			continue;
		if (kind == RC_FIELD_STR
			? f->kind == RC_FIELD_STR
			: (f->kind == RC_FIELD_UINT || f->kind == RC_FIELD_SINT) && f->size == 4)
			return f;
	}
	return NULL;
}

/*
 * What the headers of the struct's records (@raw: of the raw event's, bytes
 * of no struct) will not know: RC_EVENT_NO_*.
 */
/*
 * Is ringcap in the initial pid namespace? The kernel gives a perf sample
 * the writer's pid as the opener's namespace sees it: 0 for a task outside.
 */
static bool init_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) || st.st_ino == PROC_PID_INIT_INO;
}

static uint16_t unknowns(const struct rc_user *u, bool raw)
{
	/* a BPF ring buffer is shared by all CPUs and tells nothing of the writer */
	bool ring = bpf_map__type(u->map) == BPF_MAP_TYPE_RINGBUF;
	bool task = !ring && init_pidns();
	uint16_t flags = 0;

	if (!task && (raw || !u->pid))
		flags |= RC_EVENT_NO_PID;
	if (!task && (raw || !u->tid))
		flags |= RC_EVENT_NO_TID;
	if (raw || !u->comm)
		flags |= RC_EVENT_NO_COMM; /* a perf sample has no comm */
	if (ring)
		flags |= RC_EVENT_NO_CPU;
	return flags;
}

/* The event of --event-type STRUCT: its fields from the object's BTF, which goes in a note. */
static int describe_struct(struct rc_user *u, struct rc_dyn_set *d, struct rc_schema *schema)
{
	struct rc_event_desc ev = {};
	const struct btf *btf;
	char name[300], why[256];
	const void *blob;
	__u32 blen;
	uint16_t i;
	int err, id;

	btf = bpf_object__btf(u->obj);
	if (!btf) {
		pr_warn("'%s' has no BTF to describe struct %s with: build it with clang -g\n",
			u->o.path, u->o.event_type);
		return -ENOENT;
	}
	err = rc_btf__describe(btf, u->o.event_type, sizeof(struct rc_rec_hdr), FIRST_ENUM_ID,
			       &u->desc, why, sizeof(why));
	if (err) {
		pr_warn("--event-type %s: %s%s\n", u->o.event_type, why,
			err == -ENOENT
			    ? " (clang keeps in the BTF only the types a global or a function "
			      "uses: declare one, like 'struct NAME *unused;')"
			    : "");
		return err;
	}
	if (u->desc.size > RC_REC_MAX - sizeof(struct rc_rec_hdr)) {
		pr_warn("struct %s is %u bytes: records of ringcap hold at most %zu\n",
			u->o.event_type, u->desc.size, RC_REC_MAX - sizeof(struct rc_rec_hdr));
		return -E2BIG;
	}
	u->pid = header_field(&u->desc, "pid", RC_FIELD_UINT);
	u->tid = header_field(&u->desc, "tid", RC_FIELD_UINT);
	u->comm = header_field(&u->desc, "comm", RC_FIELD_STR);
	ev.size = (sizeof(struct rc_rec_hdr) + u->desc.size + 7) & ~7u;
	ev.nfields = u->desc.nfields;
	ev.fields = u->desc.fields;
	ev.flags = unknowns(u, false);
	snprintf(name, sizeof(name), "bpf:%s", u->o.event_type);
	id = rc_dyn__add(d, RC_DYN_USER, name, &ev);
	if (id < 0)
		return id;
	u->id = id;
	for (i = 0; i < u->desc.nenums; i++) {
		err = rc_schema__add_enum(schema, &u->desc.enums[i]);
		if (err)
			return err;
	}
	blob = btf__raw_data(btf, &blen);
	err = rc_dyn__note(d, u->id, "btf", blob, blen);
	return err ?: rc_dyn__note(d, u->id, "struct", u->o.event_type, strlen(u->o.event_type));
}

/* The events: the struct's (with --event-type), and the raw one. */
static int describe(struct rc_user *u, struct rc_dyn_set *d, struct rc_schema *schema)
{
	static const struct rc_field raw_fields[] = {
		{ .name = "data",
		  .offset = sizeof(struct rc_rec_hdr),
		  .size = 1,
		  .count = 1,
		  .kind = RC_FIELD_DATA_LOC,
		  .hint = RC_HINT_HEX },
	};
	struct rc_event_desc raw = { .size = RAW_HDR, .nfields = 1, .fields = raw_fields };
	const char *mapname = bpf_map__name(u->map);
	char name[300];
	int err, id;

	if (u->o.event_type) {
		err = describe_struct(u, d, schema);
		if (err)
			return err;
	}
	raw.flags = unknowns(u, true);
	snprintf(name, sizeof(name), "bpf:%s:raw", mapname);
	id = rc_dyn__add(d, RC_DYN_USER_RAW, name, &raw);
	if (id < 0)
		return id;
	u->raw_id = id;
	err = rc_dyn__note(d, 0, "bpf_object", u->o.path, strlen(u->o.path));
	err = err ?: rc_dyn__note(d, u->raw_id, "map", mapname, strlen(mapname));
	/* report warns that these are records that did not match the struct */
	if (!err && u->o.event_type) {
		snprintf(name, sizeof(name), "bpf:%s", u->o.event_type);
		err = rc_dyn__note(d, u->raw_id, "raw_of", name, strlen(name));
	}
	return err;
}

/*
 * Is a record of @len bytes one of the user's struct? A perf event array
 * pads each raw sample so that its u32 size and data end on 8 bytes
 * (perf_prepare_sample()): a 16-byte struct arrives as 20 bytes.
 */
static bool fits(const struct rc_user *u, size_t len)
{
	size_t padded = ((u->desc.size + 4 + 7) & ~7ul) - 4;

	return len == u->desc.size || (u->perf && len == padded);
}

/* Wrap @smp, a record the user's program made, and hand it on. */
static int wrap(struct rc_user *u, const struct rc_perf_sample *smp)
{
	struct rc_rec_hdr *h = (void *)u->rec;
	const void *data = smp->data;
	size_t size, len = smp->len;

	memset(h, 0, sizeof(*h));
	h->ts = smp->ts;
	h->cpu = smp->cpu;
	h->pid = smp->pid;
	h->tid = smp->tid;
	if (u->id && fits(u, len)) {
		len = u->desc.size;
		size = (sizeof(*h) + len + 7) & ~7ul;
		h->type = u->id;
		memcpy(u->rec + sizeof(*h), data, len);
		memset(u->rec + sizeof(*h) + len, 0, size - sizeof(*h) - len);
		if (u->pid)
			h->pid = rc_field__u64(u->pid, u->rec, 0);
		if (u->tid)
			h->tid = rc_field__u64(u->tid, u->rec, 0);
		if (u->comm)
			memcpy(h->comm, u->rec + u->comm->offset,
			       u->comm->size < sizeof(h->comm) ? u->comm->size : sizeof(h->comm));
	} else {
		uint32_t loc;

		if (len > RAW_MAX)
			len = RAW_MAX; /* cannot be: a ring record is smaller */
		loc = (uint32_t)len << 16 | 8;
		size = (RAW_HDR + len + 7) & ~7ul;
		h->type = u->raw_id;
		memcpy(u->rec + sizeof(*h), &loc, sizeof(loc));
		memset(u->rec + sizeof(*h) + 4, 0, 4);
		memcpy(u->rec + RAW_HDR, data, len);
		memset(u->rec + RAW_HDR + len, 0, size - RAW_HDR - len);
		if (u->id)
			u->mismatched++;
	}
	h->size = size;
	return u->o.put(u->o.ctx, u->rec, size);
}

static int on_ringbuf(void *ctx, void *data, size_t len)
{
	struct rc_perf_sample smp = { .ts = rc_now_ns(CLOCK_BOOTTIME), .data = data, .len = len };
	struct rc_user *u = ctx;
	int err = wrap(u, &smp);

	if (err && !u->err)
		u->err = err;
	return err;
}

static int on_sample(void *ctx, const struct rc_perf_sample *smp)
{
	return wrap(ctx, smp);
}

static int on_lost(void *ctx, uint32_t cpu, uint64_t n, uint64_t ts)
{
	struct rc_user *u = ctx;

	return u->o.lost(u->o.ctx, cpu, n, ts, 0);
}

static int on_lost_at_end(void *ctx, uint32_t cpu, uint64_t n, uint64_t ts)
{
	struct rc_user *u = ctx;

	return u->o.lost(u->o.ctx, cpu, n, ts, RC_LOST_F_AT_END);
}

static int open_ring(struct rc_user *u)
{
	int fd = bpf_map__fd(u->map);
	size_t size = u->o.perf_size ?: PERF_SIZE;
	struct rc_perfbuf_opts po = { .size = size, .wakeup_bytes = size / 4, .user_samples = true };
	int ncpus, err;

	if (bpf_map__type(u->map) == BPF_MAP_TYPE_RINGBUF) {
		u->rb = ring_buffer__new(fd, on_ringbuf, u, NULL);
		if (!u->rb) {
			err = -errno;
			goto fail;
		}
		return 0;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus < 0) {
		err = ncpus;
		goto fail;
	}
	/* an array smaller than the CPUs: those past it have no ring (as libbpf does) */
	if (bpf_map__max_entries(u->map) && bpf_map__max_entries(u->map) < (uint32_t)ncpus)
		ncpus = bpf_map__max_entries(u->map);
	err = rc_perfbuf__init(&u->pb, fd, ncpus, &po);
	if (err)
		goto fail;
	u->perf = true;
	return 0;
fail:
	pr_warn("failed to map the ring '%s': %s\n", bpf_map__name(u->map), strerror(-err));
	return err;
}

int rc_bpf_object__check_sets(const char *path, const char *const *sets, size_t n)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	char why[256];
	size_t i;
	int err = 0;

	if (!obj)
		return 0; /* opening it for the capture says why */
	for (i = 0; !err && i < n; i++) {
		err = rc_btf__set_global(obj, sets[i], why, sizeof(why));
		if (err == -ENOMEM)
			break;
		if (err) {
			pr_warn("--set %s: %s\n", sets[i], why);
			err = -EINVAL;
		}
	}
	bpf_object__close(obj);
	return err;
}

struct rc_user *rc_user__open(const struct rc_user_opts *o, struct rc_dyn_set *d,
			      struct rc_schema *schema)
{
	struct rc_user *u = calloc(1, sizeof(*u));
	char why[256];
	size_t i;
	int err;

	if (!u)
		return rc_err_ptr(-ENOMEM);
	u->o = *o;
	u->rec = malloc(RC_REC_MAX);
	if (!u->rec) {
		err = -ENOMEM;
		goto fail;
	}
	u->obj = bpf_object__open_file(o->path, NULL);
	if (!u->obj) {
		err = -errno;
		pr_warn("cannot open BPF object '%s': %s%s\n", o->path, strerror(errno),
			errno == ENOENT ? "" : " (an object built with clang -target bpf -g?)");
		goto fail;
	}
	for (i = 0; i < o->nsets; i++) {
		err = rc_btf__set_global(u->obj, o->sets[i], why, sizeof(why));
		if (err) {
			pr_warn("--set %s: %s\n", o->sets[i], why);
			goto fail;
		}
	}
	err = find_map(u);
	err = err ?: describe(u, d, schema);
	if (err)
		goto fail;
	err = bpf_object__load(u->obj);
	if (err) {
		pr_warn("failed to load '%s': %s (run with -v to see the verifier's log)\n",
			o->path, strerror(-err));
		goto fail;
	}
	err = open_ring(u);
	if (err)
		goto fail;
	return u;
fail:
	rc_user__free(u);
	return rc_err_ptr(err);
}

enum rc_transport rc_user__transport(const struct rc_user *u)
{
	return u->perf ? RC_TRANSPORT_PERFBUF : RC_TRANSPORT_RINGBUF;
}

int rc_user__attach(struct rc_user *u)
{
	struct bpf_program *p;
	size_t n = 0;

	bpf_object__for_each_program(p, u->obj) n++;
	u->links = calloc(n ? n : 1, sizeof(*u->links));
	if (!u->links)
		return -ENOMEM;
	bpf_object__for_each_program(p, u->obj)
	{
		struct bpf_link *l;

		if (!bpf_program__autoload(p) || !bpf_program__autoattach(p))
			continue;
		l = bpf_program__attach(p);
		if (!l && errno == EOPNOTSUPP) {
			/* a section libbpf cannot attach by itself (SEC("xdp")...): as a skeleton
			 * does */
			pr_debug("program '%s' (SEC(\"%s\")) is not attached: no target in its "
				 "section name\n",
				 bpf_program__name(p), bpf_program__section_name(p));
			continue;
		}
		if (!l) {
			int err = -errno;

			pr_warn("failed to attach program '%s' (SEC(\"%s\")) of '%s': %s\n",
				bpf_program__name(p), bpf_program__section_name(p), u->o.path,
				strerror(errno));
			return err;
		}
		u->links[u->nlinks++] = l;
	}
	return 0;
}

void rc_user__detach(struct rc_user *u)
{
	size_t i;

	for (i = 0; u && i < u->nlinks; i++)
		bpf_link__destroy(u->links[i]);
	if (u)
		u->nlinks = 0;
}

static long result(struct rc_user *u, long n)
{
	if (u->err)
		return u->err;
	return n;
}

long rc_user__consume(struct rc_user *u, uint64_t until)
{
	if (u->perf)
		return rc_perfbuf__read_samples(&u->pb, until, on_sample, on_lost, u);
	return result(u, ring_buffer__consume(u->rb));
}

long rc_user__poll(struct rc_user *u, int ms)
{
	long n;

	if (u->perf) {
		n = rc_perfbuf__wait(&u->pb, ms);
		return n < 0 ? n : 0; /* the drain reads next, with its hold */
	}
	n = ring_buffer__poll(u->rb, ms);
	return n == -EINTR ? result(u, 0) : result(u, n);
}

size_t rc_user__pending(const struct rc_user *u, bool sum)
{
	return u->perf ? rc_perfbuf__pending(&u->pb, sum) : 0;
}

int rc_user__put_owed(struct rc_user *u, uint64_t ts)
{
	return u->perf ? rc_perfbuf__put_owed(&u->pb, ts, on_lost, on_lost_at_end, u) : 0;
}

uint16_t rc_user__event_id(const struct rc_user *u)
{
	return u->id ? u->id : u->raw_id;
}

uint64_t rc_user__mismatched(const struct rc_user *u)
{
	return u->mismatched;
}

void rc_user__free(struct rc_user *u)
{
	if (!u)
		return;
	rc_user__detach(u);
	free(u->links);
	ring_buffer__free(u->rb);
	if (u->perf)
		rc_perfbuf__destroy(&u->pb);
	bpf_object__close(u->obj);
	rc_btf_desc__free(&u->desc);
	free(u->rec);
	free(u);
}
