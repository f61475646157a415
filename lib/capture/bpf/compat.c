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

struct syscalls_bpf *rc_bpf__open_compat_syscalls(void)
{
	return syscalls_bpf__open();
}

struct sched_bpf *rc_bpf__open_compat_sched(void)
{
	return sched_bpf__open();
}

struct follow_bpf *rc_bpf__open_compat_follow(void)
{
	return follow_bpf__open();
}

struct dyn_bpf *rc_bpf__open_compat_dyn(void)
{
	return dyn_bpf__open();
}

struct profile_bpf *rc_bpf__open_compat_profile(void)
{
	return profile_bpf__open();
}

struct offcpu_bpf *rc_bpf__open_compat_offcpu(void)
{
	return offcpu_bpf__open();
}
