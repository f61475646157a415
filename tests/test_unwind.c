// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CFI unwinder (lib/symbol/unwind.h) on the test's own stack, without
 * BPF: registers taken by a few instructions, a copy of the stack above
 * them read as the sampling program reads it (page by page, stopping at
 * the first that cannot be read), and the frames unwound must be the
 * calls that led there, named. test_progs is built at -O2 without frame
 * pointers: only the CFI can find the callers.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/types.h>
#include "events.h"
#include "symbol/unwind.h"
#include "symbol/usym.h"
#include "run_util.h"
#include "test_progs.h"

#define COPY 8192

/* global, so that their names are in .symtab under these names */
struct snap;
int rc_test_unwind_leaf(struct snap *s);
int rc_test_unwind_mid(struct snap *s);
int rc_test_unwind_top(struct snap *s);

struct snap {
	uint64_t regs[RC_USTACK_NREGS];
	unsigned char stack[COPY];
	size_t len;
};

/* Copy what can be read of [sp, sp + COPY) into @s, a page at a time. */
static void copy_stack(struct snap *s, uint64_t sp)
{
	size_t off = 0, len;

	while (off < COPY) {
		struct iovec local, remote;

		len = 4096 - ((sp + off) & 4095);
		if (len > COPY - off)
			len = COPY - off;
		local = (struct iovec){ .iov_base = s->stack + off, .iov_len = len };
		remote =
		    (struct iovec){ .iov_base = (void *)(uintptr_t)(sp + off), .iov_len = len };
		if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)len)
			break;
		off += len;
	}
	s->len = off & ~(size_t)7;
}

/* The registers here, in the kernel's layout (records.h struct rc_ustack), and the stack. */
__attribute__((noinline, noipa)) int rc_test_unwind_leaf(struct snap *s)
{
#if defined(__x86_64__)
	uint64_t ip, sp, bp;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	s->regs[16] = ip;
	s->regs[19] = sp;
	s->regs[4] = bp;
#elif defined(__aarch64__)
	uint64_t pc, sp, fp, lr;

	__asm__ volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29\n\tmov %3, x30"
			 : "=r"(pc), "=r"(sp), "=r"(fp), "=r"(lr));
	s->regs[32] = pc;
	s->regs[31] = sp;
	s->regs[29] = fp;
	s->regs[30] = lr;
#else
	return -EOPNOTSUPP;
#endif
	copy_stack(s, sp);
	return 0;
}

__attribute__((noinline, noipa)) int rc_test_unwind_mid(struct snap *s)
{
	int err = rc_test_unwind_leaf(s);

	__asm__ volatile("" ::: "memory"); /* not a tail call */
	return err;
}

__attribute__((noinline, noipa)) int rc_test_unwind_top(struct snap *s)
{
	int err = rc_test_unwind_mid(s);

	__asm__ volatile("" ::: "memory");
	return err;
}

/* The symbol of frame @i: the sampled address itself, callers at their call (ip - 1). */
static const char *name_of(struct rc_usym *u, const uint64_t *ips, size_t i)
{
	struct rc_usym_hit hit;

	if (rc_usym__resolve(u, getpid(), ips[i] - (i > 0), &hit) != 0)
		return "?";
	return hit.sym;
}

/*
 * A sampled address in no file (a JIT's code: anonymous memory) has no
 * CFI. libdw then tries the frame pointer, a register like any other in
 * code built without them, here a small number: its reads fall outside
 * the copy, below it, which is no sign that a bigger copy would have gone
 * further. Without CFI, and said so; not stopped at the copy's end.
 */
static void no_cfi(struct rc_unwind *uw, struct snap *s)
{
	struct rc_unwind_regs in = { .regs = s->regs, .stack = s->stack, .len = s->len };
	uint64_t ips[RC_STACK_MAX], saved[RC_USTACK_NREGS];
	void *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t n = 0;
	int end;

	if (!ASSERT_TRUE(jit != MAP_FAILED, "mmap"))
		return;
	memcpy(saved, s->regs, sizeof(saved));
#if defined(__x86_64__)
	s->regs[16] = (uintptr_t)jit + 16;
	s->regs[4] = 0x1000;
#elif defined(__aarch64__)
	s->regs[32] = (uintptr_t)jit + 16;
	s->regs[29] = 0x1000;
#endif
	end = rc_unwind__stack(uw, getpid(), gettid(), 0, &in, ips, NULL, RC_STACK_MAX, &n);
	ASSERT_EQ(end, RC_UNWIND_NOCFI, "an address in no file: no CFI, not the copy's end");
	ASSERT_LT(n, 2, "the sampled address at most");
	memcpy(s->regs, saved, sizeof(saved));
	munmap(jit, 4096);
}

/* Unwind from @pc with no frame pointer to follow, as no_cfi() does. */
static int unwind_at(struct rc_unwind *uw, struct snap *s, uint64_t pc, size_t *n)
{
	struct rc_unwind_regs in = { .regs = s->regs, .stack = s->stack, .len = s->len };
	uint64_t ips[RC_STACK_MAX], saved[RC_USTACK_NREGS];
	int end;

	memcpy(saved, s->regs, sizeof(saved));
#if defined(__x86_64__)
	s->regs[16] = pc;
	s->regs[4] = 0x1000;
#elif defined(__aarch64__)
	s->regs[32] = pc;
	s->regs[29] = 0x1000;
#endif
	end = rc_unwind__stack(uw, getpid(), gettid(), 0, &in, ips, NULL, RC_STACK_MAX, n);
	memcpy(s->regs, saved, sizeof(saved));
	return end;
}

/*
 * The code at an ELF's entry point: ld.so's _start, where every process
 * starts, has no CFI on x86-64, and a stack that ends there is whole (on
 * arm64 its CFI says so). Our own _start has CFI, which ends the stack,
 * and the bytes after it are other functions: the gcc runtime's
 * deregister_tm_clones, with no CFI, is no stack's start. Nor is a
 * library's entry point without CFI (librc_entry.so).
 */
void test_symbol_unwind_entry(void)
{
	const Elf64_Ehdr *ld = (const Elf64_Ehdr *)getauxval(AT_BASE);
	uint64_t ours = getauxval(AT_ENTRY) + 0x30;
	struct snap *s = calloc(1, sizeof(*s));
	struct rc_unwind *uw = NULL;
	struct rc_usym *u = NULL;
	struct rc_usym_hit hit;
	void *lib = NULL, *fn;
	char what[128];
	size_t n = 0;
	int end;

	if (!ASSERT_OK_PTR(s, "calloc"))
		return;
#ifdef RC_NO_DLOPEN
	test__skip("a static build: no dlopen()");
	goto out;
#endif
	if (rc_test_unwind_top(s) == -EOPNOTSUPP || !ld) {
		test__skip(ld ? "no unwinding test for this architecture"
			      : "test_progs has no interpreter (AT_BASE)");
		goto out;
	}
	lib = dlopen(bin("librc_entry.so"), RTLD_NOW);
	if (!lib) {
		snprintf(what, sizeof(what), "%s (make test builds it)", dlerror());
		ASSERT_OK_PTR(lib, what);
		goto out;
	}
	fn = dlsym(lib, "rc_entry_nocfi");
	u = rc_usym__new();
	uw = u ? rc_unwind__new(u) : NULL;
	if (!ASSERT_OK_PTR(fn, "rc_entry_nocfi") || !ASSERT_OK_PTR(uw, "rc_unwind__new") ||
	    !ASSERT_OK(rc_usym__add_process(u, getpid()), "snapshot of ourselves"))
		goto out;
	end = unwind_at(uw, s, (uintptr_t)ld + ld->e_entry + 8, &n);
	snprintf(what, sizeof(what), "8 bytes into ld.so's _start: how it ended: %d, %zu frames",
		 end, n);
	ASSERT_EQ(end, RC_UNWIND_FULL, what);
	end = unwind_at(uw, s, (uintptr_t)fn, &n);
	snprintf(what, sizeof(what), "a library's entry point: how it ended: %d, %zu frames", end,
		 n);
	ASSERT_EQ(end, RC_UNWIND_NOCFI, what);
	if (rc_usym__resolve(u, getpid(), ours, &hit) != 0 || !hit.sym ||
	    strcmp(hit.sym, "deregister_tm_clones") != 0) {
		printf("%s: _start + 0x30 is not deregister_tm_clones here: not checked\n",
		       __func__);
		goto out;
	}
	end = unwind_at(uw, s, ours, &n);
	snprintf(what, sizeof(what), "deregister_tm_clones: how it ended: %d, %zu frames", end, n);
	ASSERT_EQ(end, RC_UNWIND_NOCFI, what);
out:
	rc_unwind__free(uw);
	rc_usym__free(u);
	if (lib)
		dlclose(lib);
	free(s);
}

static struct snap *sig_snap;
static int sig_err;

__attribute__((noinline, noipa)) static void on_sig(int sig)
{
	(void)sig;
	sig_err = rc_test_unwind_top(sig_snap);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

/*
 * Through a signal handler: the handler returns to the signal trampoline
 * (its sa_restorer on x86-64, __restore_rt) at its first instruction,
 * and the trampoline resumes the interrupted frame where it was: both are
 * activations, whose address named as a call's (address - 1) is the byte
 * before, another function's or none. They are said so, and the frames
 * under the signal, down to this function, unwind and are named.
 */
void test_symbol_unwind_signal(void)
{
	struct snap *s = calloc(1, sizeof(*s));
	struct sigaction sa = { .sa_handler = on_sig }, old;
	uint64_t ips[RC_STACK_MAX], act[2];
	struct rc_unwind_regs in;
	struct rc_unwind *uw = NULL;
	struct rc_usym *u = NULL;
	size_t n = 0, i, nact = 0, top = 0, mine = 0;
	char what[128];
	int end;

	if (!ASSERT_OK_PTR(s, "calloc"))
		return;
	sig_snap = s;
	if (!ASSERT_OK(sigaction(SIGUSR1, &sa, NULL), "sigaction") ||
	    !ASSERT_OK(raise(SIGUSR1), "raise") ||
	    !ASSERT_OK(sigaction(SIGUSR1, NULL, &old), "the handler's restorer"))
		goto out;
	signal(SIGUSR1, SIG_DFL);
#if !defined(__x86_64__)
	/* arm64's trampoline is the vdso's, which is no file: not given to libdw (unwind.c) */
	sig_err = -EOPNOTSUPP;
#endif
	if (sig_err == -EOPNOTSUPP) {
		test__skip("no signal unwinding test for this architecture");
		goto out;
	}
	u = rc_usym__new();
	uw = u ? rc_unwind__new(u) : NULL;
	if (!ASSERT_OK_PTR(uw, "rc_unwind__new") ||
	    !ASSERT_OK(rc_usym__add_process(u, getpid()), "snapshot of ourselves"))
		goto out;
	in = (struct rc_unwind_regs){ .regs = s->regs, .stack = s->stack, .len = s->len };
	end = rc_unwind__stack(uw, getpid(), gettid(), 0, &in, ips, act, RC_STACK_MAX, &n);
	snprintf(what, sizeof(what), "how it ended: %d, %zu frames", end, n);
	ASSERT_EQ(end, RC_UNWIND_FULL, what);
	for (i = 0; i < n; i++) {
		bool a = act[i / 64] >> (i % 64) & 1;
		struct rc_usym_hit hit;
		const char *sym = NULL;

		if (!rc_usym__resolve(u, getpid(), ips[i] - (i > 0 && !a), &hit))
			sym = hit.sym;
		nact += a;
		if (sym && !strcmp(sym, "rc_test_unwind_top"))
			top = i;
		if (sym && !strcmp(sym, "test_symbol_unwind_signal"))
			mine = i;
	}
	/* leaf, mid, top, on_sig, the trampoline, the frames raise() was in, ..., this one */
	snprintf(what, sizeof(what), "rc_test_unwind_top at %zu, this function at %zu, of %zu", top,
		 mine, n);
	if (!ASSERT_TRUE(top == 2 && mine > top + 3, what))
		goto out;
	snprintf(what, sizeof(what), "%zu activations past the first frame", nact);
	ASSERT_EQ(nact, 2, what);
	ASSERT_TRUE(act[0] >> (top + 2) & act[0] >> (top + 3) & 1,
		    "the trampoline and the interrupted frame are those");
#if defined(__x86_64__)
	/* glibc gives the kernel its trampoline, and gives it back */
	ASSERT_EQ(ips[top + 2], (uint64_t)(uintptr_t)old.sa_restorer,
		  "the frame after the handler's: the trampoline, at its start");
#endif
out:
	rc_unwind__free(uw);
	rc_usym__free(u);
	free(s);
}

void test_symbol_unwind(void)
{
	static const char *const want[] = { "rc_test_unwind_leaf", "rc_test_unwind_mid",
					    "rc_test_unwind_top", "test_symbol_unwind" };
	struct snap *s = calloc(1, sizeof(*s));
	struct rc_unwind_regs in;
	struct rc_unwind *uw = NULL;
	struct rc_usym *u = NULL;
	uint64_t ips[RC_STACK_MAX];
	size_t n = 0, i;
	char what[96];
	int end;

	if (!ASSERT_OK_PTR(s, "calloc"))
		return;
	if (rc_test_unwind_top(s) == -EOPNOTSUPP) {
		test__skip("no unwinding test for this architecture");
		goto out;
	}
	u = rc_usym__new();
	uw = u ? rc_unwind__new(u) : NULL;
	if (!ASSERT_OK_PTR(uw, "rc_unwind__new") ||
	    !ASSERT_OK(rc_usym__add_process(u, getpid()), "snapshot of ourselves"))
		goto out;
	in = (struct rc_unwind_regs){ .regs = s->regs, .stack = s->stack, .len = s->len };
	end = rc_unwind__stack(uw, getpid(), gettid(), 0, &in, ips, NULL, RC_STACK_MAX, &n);
	snprintf(what, sizeof(what), "how it ended: %d, %zu frames, %zu bytes copied", end, n,
		 s->len);
	ASSERT_TRUE(end >= 0 && end != RC_UNWIND_NOCFI && end != RC_UNWIND_EARLY, what);
	if (!ASSERT_TRUE(n >= 4, "four frames at least"))
		goto out;
	for (i = 0; i < 4; i++) {
		snprintf(what, sizeof(what), "frame %zu: %s", i, want[i]);
		ASSERT_STREQ(name_of(u, ips, i) ?: "(null)", want[i], what);
	}
	/* too small a copy stops at its end, and says so */
	in.len = 16;
	end = rc_unwind__stack(uw, getpid(), gettid(), 0, &in, ips, NULL, RC_STACK_MAX, &n);
	ASSERT_EQ(end, RC_UNWIND_COPY_END, "a 16-byte copy: stopped at its end");
	/* no more frames than room for */
	in.len = s->len;
	end = rc_unwind__stack(uw, getpid(), gettid(), 0, &in, ips, NULL, 2, &n);
	ASSERT_EQ(end, RC_UNWIND_CUT, "two frames of room: cut");
	ASSERT_EQ(n, 2, "two frames");
	no_cfi(uw, s);
out:
	rc_unwind__free(uw);
	rc_usym__free(u);
	free(s);
}
