// SPDX-License-Identifier: GPL-2.0-only
/*
 * librc_entry.so: a library whose ELF entry point is a function without
 * CFI (built with -Wl,-e and no unwind tables), as some of Debian's
 * libraries have one at the start of .text. No process starts there: a
 * stack that stops there is not whole (test_unwind.c, symbol_unwind_entry).
 */
int rc_entry_nocfi(int x);

__attribute__((noinline)) int rc_entry_nocfi(int x)
{
	return x * 3 + 1;
}
