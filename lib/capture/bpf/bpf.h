/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF backend's own state, shared by its files: open.c (privileges,
 * maps, rings, teardown), load.c (programs, --bpf), attach.c, rings.c,
 * bpf.c (drain, snapshots, start and stop) and counters.c (the BPF
 * counters, read into rc_stats).
 */
#ifndef RINGCAP_CAPTURE_BPF_BPF_H
#define RINGCAP_CAPTURE_BPF_BPF_H

#include <linux/types.h>
#include "events.h"
#include "capture/backend.h"
#include "capture/batch.h"
#include "capture/dyn.h"
#include "capture/perf/auxsrc.h"
#include "capture/sideband.h"
#include "capture/bpf/perfbuf.h"
#include "capture/bpf/ringbuf.h"
#include "capture/bpf/sampler.h"
#include "capture/bpf/userbpf.h"

struct syscalls_bpf;
struct sched_bpf;
struct follow_bpf;
struct dyn_bpf;
struct profile_bpf;
struct offcpu_bpf;
struct bpf_object_open_opts;

/* compat.c: a source's compat object (rc_features__compat()), opened; NULL and errno on error */
struct syscalls_bpf *rc_bpf__open_compat_syscalls(const struct bpf_object_open_opts *o);
struct sched_bpf *rc_bpf__open_compat_sched(const struct bpf_object_open_opts *o);
struct follow_bpf *rc_bpf__open_compat_follow(const struct bpf_object_open_opts *o);
struct dyn_bpf *rc_bpf__open_compat_dyn(const struct bpf_object_open_opts *o);
struct profile_bpf *rc_bpf__open_compat_profile(const struct bpf_object_open_opts *o);
struct offcpu_bpf *rc_bpf__open_compat_offcpu(const struct bpf_object_open_opts *o);

#define BATCH_ROOM  (RC_REC_MAX + sizeof(struct rc_rec_lost)) /* the largest record, and a loss */
/*
 * With stacks, the writer names them, reading a process's mappings when
 * its first stack comes: batches go to it at least this often, and the
 * drain wakes as often (RC_STACKS_WAKEUP_MS), so that a process running
 * before the capture is still there. Those started since are known from
 * perf's side-band records (sideband.h), read at once.
 */
#define RC_STACKS_HANDOFF_NS 100000000ull
#define RC_STACKS_WAKEUP_MS  100
struct rc_bpf;

/* A kind of ring the programs write to, as the drain sees it. */
struct ring_ops {
	/* bytes waiting: in the fullest ring, or with @sum, in all */
	size_t (*pending)(const struct rc_bpf *s, bool sum);
	long (*read)(struct rc_bpf *s, uint64_t until); /* into the current batch */
	int (*wait)(struct rc_bpf *s, int ms);		/* until data or @ms */
};

struct rc_bpf {
	struct rc_capture c; /* first: the engine frees the struct through it */
	const struct ring_ops *ring;
	struct syscalls_bpf *sys;
	struct sched_bpf *sched;
	struct follow_bpf *follow; /* follow's own object, when no source's carries its programs */
	bool follow_compat; /* follow's compat programs: targets added through its map too */
	__u32 follow_max;   /* their map's size, RINGCAP_FOLLOW_MAX's; 0: RC_FOLLOW_MAX */
	/* the follow programs: follow's object's, or a source's (bpf/follow.bpf.h); NULL: none */
	struct rc_follow {
		struct bpf_program *fork, *exit;
		struct bpf_map *followed; /* compat: the processes followed */
		__u64 *unfollowed;	  /* compat: children a full map left unfollowed (.bss) */
		struct bpf_link *fork_link, *exit_link;
	} fw;
	struct dyn_bpf *dyn;	      /* tracepoints by name, uprobes */
	struct profile_bpf *prof;     /* record -F / -c */
	struct rc_sampler sampler;    /* its perf events */
	struct rc_sideband *sb;	      /* with stacks: perf's mapping records (sideband.h) */
	struct offcpu_bpf *offcpu;    /* record --off-cpu */
	struct rc_features feat;      /* what this kernel has, probed at open */
	struct rc_kbtf *kbtf;	      /* the kernel's BTF the probe walked, until loaded */
	int core_fd;		      /* > 0: the BTF CO-RE relocates against (load.c) */
	char core_path[32];	      /* /proc/self/fd/core_fd, btf_custom_path */
	uint64_t *dcaptured;	      /* [cpu * dset.n + index] */
	uint64_t *dpaused, *dpre; /* as paused and pre_dropped, of dset: [cpu * dset.n + index] */
	struct rc_dyn_stats *dpercpu; /* one dstats element, every CPU's */
	size_t nentries_max;
	struct rc_user *user; /* --bpf: the user's object, instead of ours */
	uint64_t *ulost;      /* --bpf: each CPU's perf ring's losses */
	uint64_t *ddropped;   /* each CPU's drops of dset's events, at the last count */
	int events_fd, targets_fd, stats_fd, notify_fd, reader_fd;
	int rings_fd;	     /* the rings map: a ring per CPU, or a stand-in (common.bpf.h) */
	uint32_t nrings;     /* ringbuf: BPF ring buffers, one a CPU of ring_cpus when > 1 */
	uint32_t *ring_cpus; /* the CPUs online at open, ascending */
	size_t ring_size;    /* each ring's bytes: --ringbuf-size, or a CPU's share of it */
	int stackbufs_fd, stacknest_fd; /* record -g: common.bpf.h, rc_emit_stack() */
	uint64_t *targets;  /* the targets map's bits, mapped; NULL: no pid filter */
	size_t targets_len; /* bytes mapped */
	struct rc_ringbuf rb;
	struct rc_perfbuf pb;	 /* perfbuf: the CPUs' rings */
	struct rc_perfbuf nb;	 /* perfbuf --snapshot-on: the trigger rings */
	struct rc_snapshot snap; /* overwrite: the last snapshot taken */
	uint64_t nsnap;
	uint64_t snap_last_ts; /* the newest record (or marker) of the snapshots so far */
	uint64_t (*captured)[RC_EV_SLOTS];
	/* overwrite: refused while a snapshot paused the rings, out of dropped */
	uint64_t (*paused)[RC_EV_SLOTS];
	uint64_t (*pre_dropped)[RC_EV_SLOTS]; /* dropped when the last pause began */
	uint64_t malformed;
	struct rc_bpf_stats *percpu;
	/* add_sampling(): the largest not_run/throttled estimates given so far, per CPU */
	struct rc_sample_est {
		uint64_t not_run, throttled;
	} * est;
	bool attached;
	bool stats_held; /* c.last taken at a snapshot's pause: rc_bpf__snapshot_stats() */
	bool warned_throttle_lost; /* add_sampling() said throttle records were lost */
	bool sc_refused; /* the raw syscall programs did not load: rc_bpf__sc_key() */
	uint64_t ring_hwm;
	uint64_t handed_off; /* stacks: CLOCK_MONOTONIC of the last batch given to the writer */
	struct rc_batcher bt; /* the batches the drain fills, and the writer thread */
	struct rc_auxsrc aux; /* -e PMU//: AUX events, when aux.nev */
	pid_t aux_pid;	      /* the process they trace (a command's, -p's); 0: every task */
	int64_t aux_perf_to_boot; /* capture clock less perf time, at their start */
};

static inline struct rc_bpf *to_bpf(struct rc_capture *c)
{
	return (struct rc_bpf *)c;
}

/*
 * The backend's files, each depending only on those listed after it:
 * bpf.c (the drain, start and stop, rc_bpf_ops) -> open.c (open and
 * teardown) -> load.c (the sources' programs) -> attach.c (attaching, and
 * the program each event takes); rings.c (the ring operations), aux.c and
 * counters.c beside them, depending on none of those.
 */

/* open.c */
struct rc_capture *rc_bpf__open(const struct rc_record_opts *opts);
int rc_bpf__add_target(struct rc_capture *c, pid_t pid);
void rc_bpf__teardown(struct rc_capture *c);

/* load.c: at open, every source's programs opened and loaded */
int rc_bpf__describe(struct rc_bpf *s); /* the events described at record time, in dset */
int rc_bpf__load_sources(struct rc_bpf *s);
/* The objects loaded, or given up: the kernel's BTF kept for their CO-RE given back (load.c). */
void rc_bpf__loaded(struct rc_bpf *s);

/* attach.c */
int rc_bpf__attach(struct rc_bpf *s);
void rc_bpf__detach(struct rc_bpf *s);
struct bpf_program *rc_bpf__tp_prog(const struct rc_bpf *s, const struct rc_dyn_event *e);
int rc_bpf__sc_key(const struct rc_bpf *s, const struct rc_dyn_event *e);
/* Where a syscall event's format puts __syscall_nr (rc_tp_conf.nr_off); 0: not one */
uint16_t rc_bpf__sc_nr_off(const struct rc_dyn_event *e);
/*
 * Where the kernel has no BPF attach cookies: the slot of event @e's own
 * program (dyn.bpf.c, RC_SLOTS), or -1 for an event that needs none (a
 * syscall event on the raw tracepoints, or a kernel with cookies).
 */
int rc_bpf__slot(const struct rc_bpf *s, const struct rc_dyn_event *e);
/* The uprobe or uretprobe program of event @e. */
struct bpf_program *rc_bpf__probe_prog(const struct rc_bpf *s, const struct rc_dyn_event *e);

/* rings.c */
/* Is @rec a record a BPF program of ours made? Counts it malformed if not (@ctx: the rc_bpf). */
bool rc_bpf__check_record(void *ctx, const void *rec, uint32_t len);
void rc_bpf__count_captured(struct rc_bpf *s, const void *rec);
const struct ring_ops *rc_bpf__pick_ring(const struct rc_bpf *s);

/* aux.c: -e PMU// beside the BPF sources */
int rc_bpf__aux_parse(struct rc_bpf *s);
int rc_bpf__aux_start(struct rc_bpf *s);
long rc_bpf__aux_read(struct rc_bpf *s);
int rc_bpf__aux_stop(struct rc_bpf *s);

/* counters.c */
int rc_bpf__snapshot_stats(struct rc_bpf *s);
int rc_bpf__hold_stats(struct rc_bpf *s);
void rc_bpf__recount_captured(struct rc_bpf *s);
int rc_bpf__push_stats(struct rc_bpf *s);

#endif /* RINGCAP_CAPTURE_BPF_BPF_H */
