// SPDX-License-Identifier: GPL-2.0-only
/*
 * Follow the processes a launched command forks: a child of a traced
 * process becomes a target itself. Threads share their tgid and need
 * nothing. A target is forgotten when its whole thread group is dead.
 * The targets bits change with atomic ors and ands (Linux 5.12).
 *
 * The compat object (RC_COMPAT: kernels before 5.12, whose one atomic is
 * add) sets and clears a bit with an atomic add of it, or of its negation:
 * right only when the bit was clear, or set, and no other CPU changes it
 * at the same time. The followed map makes it so: a tgid's entry is made
 * (BPF_NOEXIST) before its bit is set, and deleted before it is cleared,
 * and only the one that made or deleted it changes the bit. user space
 * adds its targets the same way (rc_bpf__add_target()). Without it, the
 * exit of two threads that both see their group dead (rc_group_dead())
 * would clear a bit twice, and borrow from the next tgid's. A fork that
 * finds the map full leaves its child unfollowed, counted in unfollowed.
 *
 * User space attaches these programs after every source's, so on the same
 * tracepoint the sources see a dying target before it is forgotten.
 *
 * The programs are in follow.bpf.h: a source's object carries them too
 * (dyn.bpf.c), and this object is loaded only when none of those is.
 */
#include "common.bpf.h"
#include "follow.bpf.h"
