/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user-space symbolizer's own state, shared by its files: usym.c (the
 * processes and objects, resolving through a snapshot, the file lists),
 * usym_proc.c (snapshots of /proc/PID/maps) and usym_sb.c (the side-band's
 * timeline of images and mappings).
 */
#ifndef RINGCAP_SYMBOL_USYM_INT_H
#define RINGCAP_SYMBOL_USYM_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "symbol/dso.h"
#include "symbol/perfmap.h"
#include "symbol/usym.h"
#include "util/idmap.h"

#define FD_BUDGET_MAX 256	/* files held open for later, at most */
#define VDSO_MAX      (1 << 20) /* bytes; the vdso is a few pages */
#define ANON_NAME     "//anon"	/* perf's name for anonymous memory */

/* An executable mapping of a snapshot. */
struct usym_map {
	uint64_t start, end, pgoff;
	struct rc_dso *dso; /* NULL: not readable, or anonymous */
	const char *name;   /* the dso's name, own_name, or a constant */
	char *own_name;	    /* the process's path when the dso has another, or a [name] */
	bool file;	    /* a file's mapping (dso NULL: the file could not be opened) */
};

/* A process as a snapshot saw it. */
struct usym_snap {
	struct usym_map *maps;
	size_t nr_maps, maps_cap;
	struct rc_symtab perfmap;
	char *perfmap_name;	/* "[perf-PID.map]"; NULL when none was read */
	uint64_t taken[2];	/* CLOCK_BOOTTIME before and after /proc/PID/maps was read */
	struct usym_snap *next; /* in the list of those replaced */
};

struct usym_proc {
	int tgid;
	struct usym_snap *snap;
};

/* The maps are the one map of lib/ (util/idmap.h), their values pointers. */
struct rc_usym {
	struct rc_idmap procs; /* struct usym_proc, by tgid */
	struct rc_idmap dsos;  /* struct rc_dso, by the hash of its identity (dso_key) */
	struct usym_snap *replaced;
	int fds, fd_budget;
	struct rc_idmap sbprocs; /* struct usym_sbproc, by tgid: what the side-band saw */
	bool lines;	     /* read DWARF for source lines (rc_usym__set_lines()) */
};

/* What identifies a dso: a file's identity, or an image's bytes. */
struct dso_key {
	const struct stat *st;
	uint64_t img_hash;
	size_t img_len;
};

static inline uint64_t mix64(uint64_t x)
{
	/* splitmix64's finalizer */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* usym.c */
/* The dso of @k, or NULL; rc_usym__dso_add() adds one. */
struct rc_dso *rc_usym__dso_find(const struct rc_usym *u, const struct dso_key *k);
int rc_usym__dso_add(struct rc_usym *u, const struct dso_key *k, struct rc_dso *d);
/* @p as the process @tgid: 0 or -ENOMEM. */
int rc_usym__proc_add(struct rc_usym *u, int tgid, struct usym_proc *p);
struct usym_proc *rc_usym__proc(const struct rc_usym *u, int tgid);
void rc_usym__snap_free(struct usym_snap *s);
/* Read a file's symbols now, if not yet done, and count the files closed. */
void rc_usym__dso_load(struct rc_usym *u, struct rc_dso *d);
/*
 * The symbol at out->file_off of @dso (loaded first), with its build-id,
 * address and source lines, into @out: 0, or 1 when nothing names it.
 */
int rc_usym__dso_hit(struct rc_usym *u, struct rc_dso *dso, struct rc_usym_hit *out);
/* @fn of @m when it maps an ELF file's bytes: 0 when it does not; else @fn's return, or 1. */
int rc_usym__file_map_out(const struct usym_map *m,
			  int (*fn)(const struct rc_usym_map *m, void *arg), void *arg);
/* The snapshot's file mappings to @fn: how many, or @fn's error. */
int rc_usym__snap_files(const struct usym_snap *s,
			int (*fn)(const struct rc_usym_map *m, void *arg), void *arg);

/* usym_proc.c */
int rc_usym__file_dso(struct rc_usym *u, int fd, const char *path, const struct rc_dso_where *w,
		      struct rc_dso **out);
struct rc_dso_where rc_usym__where_of(const struct rc_usym *u, int tgid, char *root);
int rc_usym__snap_add_vdso(struct rc_usym *u, int tgid, struct usym_map *m);

/* usym_sb.c */
void rc_usym__sb_free(struct rc_usym *u);

#endif /* RINGCAP_SYMBOL_USYM_INT_H */
