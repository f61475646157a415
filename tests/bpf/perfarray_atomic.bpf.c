// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfarray.bpf.c with one sequence counter for every CPU's records, by
 * BPF atomic fetch-add (Linux 5.12): for the order check of records made
 * on both CPUs at once (test_dyn.c, dyn_bpf_perf_order).
 */
#define PA_ATOMIC_SEQ
#include "perfarray.bpf.c"
