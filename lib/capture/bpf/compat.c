// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compat objects: each source's programs built a second time with
 * -DRC_COMPAT, for kernels without what the default ones use
 * (bpf/common.bpf.h; rc_features__compat() says which). Their skeletons
 * have the default ones' names and structs (the Makefile refuses them
 * otherwise), so a source's pointer holds either and everything after the
 * open is the same. They are included here alone: the two headers of a
 * source define the same names.
 */
#include <bpf/libbpf.h>
#include "capture/bpf/bpf.h"
#include "syscalls.compat.skel.h"
#include "sched.compat.skel.h"
#include "follow.compat.skel.h"
#include "dyn.compat.skel.h"
#include "profile.compat.skel.h"
#include "offcpu.compat.skel.h"

struct syscalls_bpf *rc_bpf__open_compat_syscalls(const struct bpf_object_open_opts *o)
{
	return syscalls_bpf__open_opts(o);
}

struct sched_bpf *rc_bpf__open_compat_sched(const struct bpf_object_open_opts *o)
{
	return sched_bpf__open_opts(o);
}

struct follow_bpf *rc_bpf__open_compat_follow(const struct bpf_object_open_opts *o)
{
	return follow_bpf__open_opts(o);
}

struct dyn_bpf *rc_bpf__open_compat_dyn(const struct bpf_object_open_opts *o)
{
	return dyn_bpf__open_opts(o);
}

struct profile_bpf *rc_bpf__open_compat_profile(const struct bpf_object_open_opts *o)
{
	return profile_bpf__open_opts(o);
}

struct offcpu_bpf *rc_bpf__open_compat_offcpu(const struct bpf_object_open_opts *o)
{
	return offcpu_bpf__open_opts(o);
}
