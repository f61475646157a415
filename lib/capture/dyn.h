/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Events described at record time: tracepoints by name (their tracefs
 * format), uprobes, and the records of a user's BPF object. Each gets an
 * id from RC_DYN_BASE up, an event in the capture's schema, and notes.
 */
#ifndef RINGCAP_DYN_H
#define RINGCAP_DYN_H

#include "format/meta.h"
#include "tracefs/tpformat.h"

enum rc_dyn_kind {
	RC_DYN_TP = 1,
	RC_DYN_UPROBE,
	RC_DYN_URETPROBE,
	RC_DYN_USER,	 /* a user object's records, decoded as its struct */
	RC_DYN_USER_RAW, /* a user object's records of another size: bytes */
};

#define RC_BUILD_ID_MAX 20

struct rc_dyn_event {
	uint16_t id;
	enum rc_dyn_kind kind;
	char *name;		   /* the event's name in the schema */
	struct rc_event_desc desc; /* fields owned by tp, or by this event */
	struct rc_tpformat tp;	   /* RC_DYN_TP */
	char *path;		   /* uprobes: the binary, absolute */
	char *symbol;
	unsigned char build_id[RC_BUILD_ID_MAX];
	size_t build_id_len; /* 0: the binary has none */
	struct bpf_link *link;
	const struct bpf_program *prog; /* the program attached, once it is */
};

struct rc_dyn_set {
	struct rc_dyn_event *ev;
	size_t n;
	/* ringcap's own events being recorded: a tracepoint of the same name is skipped */
	uint32_t builtin_mask;
	/* the notes about them, for the capture header */
	struct rc_note *notes;
	uint32_t nnotes;
};

/* Add every tracepoint @pattern matches; -ENOENT, said, when none does. */
int rc_dyn__add_tracepoints(struct rc_dyn_set *d, const char *pattern);
/* Add "uprobe:PATH:SYMBOL" or "uretprobe:PATH:SYMBOL"; -EINVAL or -ENOENT, said. */
int rc_dyn__add_uprobe(struct rc_dyn_set *d, const char *spec);
/*
 * Add an event of @kind described by @desc, whose fields stay the caller's
 * and must live until rc_dyn__describe(); returns its id, or -errno.
 */
int rc_dyn__add(struct rc_dyn_set *d, enum rc_dyn_kind kind, const char *name,
		const struct rc_event_desc *desc);
/* Add a note about event @id (0: the capture); @data is copied. */
int rc_dyn__note(struct rc_dyn_set *d, uint16_t id, const char *key, const void *data,
		 uint32_t len);
/* The event of id @id, or NULL. */
struct rc_dyn_event *rc_dyn__event(const struct rc_dyn_set *d, uint16_t id);
/* Add every event's description to @s. */
int rc_dyn__describe(const struct rc_dyn_set *d, struct rc_schema *s);
/* Destroys the links too. */
void rc_dyn__free(struct rc_dyn_set *d);

#endif
