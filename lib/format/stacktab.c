// SPDX-License-Identifier: GPL-2.0-only
/*
 * STACKS blocks (ringcap-file(5)) read into a table: a payload is checked
 * whole before anything of it is taken, so a bad block adds nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "format/format.h"
#include "format/stacktab.h"
#include <xxhash.h>
#include "util/mem.h"

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * Ids a block may use: up to those defined so far, plus its own, plus a
 * gap for blocks lost to damage. Ids are given in order from 1, so a
 * file of a few bytes cannot make the table allocate for 4M of them.
 */
#define ID_GAP 65536

/*
 * Walk the payload, checking it against @bounds (the table as it is); with
 * @t, take what it defines.
 */
static int walk(const struct rc_stacktab *bounds, struct rc_stacktab *t, const unsigned char *p,
		size_t len, const char **why)
{
	struct rc_disk_stacks ds;
	size_t pos = sizeof(ds);
	uint64_t max_sym, max_stack;
	uint32_t i;

	if (len < sizeof(ds)) {
		*why = "stacks block shorter than its counts";
		return -EBADMSG;
	}
	memcpy(&ds, p, sizeof(ds));
	max_sym = (uint64_t)bounds->nsyms + ds.nsyms + ID_GAP;
	max_stack = (uint64_t)bounds->nstacks + ds.nstacks + ID_GAP;
	for (i = 0; i < ds.nsyms; i++) {
		struct rc_disk_sym sy;
		size_t n;

		if (len - pos < sizeof(sy)) {
			*why = "stacks block: symbol past its end";
			return -EBADMSG;
		}
		memcpy(&sy, p + pos, sizeof(sy));
		n = pad8(sizeof(sy) + (size_t)sy.name_len + sy.dso_len);
		if (!sy.id || sy.id > RC_MAX_SYM_ID || sy.id > max_sym || n > len - pos) {
			*why = "stacks block: symbol id or length out of range";
			return -EBADMSG;
		}
		if (t && (sy.id > t->nsyms || !(t->syms[sy.id - 1].name || t->syms[sy.id - 1].dso))) {
			struct rc_stacktab_sym *s;
			const char *str = (const char *)p + pos + sizeof(sy);
			size_t need = sy.id > t->nsyms ? sy.id : t->nsyms;

			if (rc_ensure_arr(&t->syms, &t->syms_cap, need, 64))
				return -ENOMEM;
			if (need > t->nsyms)
				memset(t->syms + t->nsyms, 0, (need - t->nsyms) * sizeof(*t->syms));
			t->nsyms = need;
			s = &t->syms[sy.id - 1];
			s->name = sy.name_len ? strndup(str, sy.name_len) : NULL;
			s->dso = sy.dso_len ? strndup(str + sy.name_len, sy.dso_len) : NULL;
			if ((sy.name_len && !s->name) || (sy.dso_len && !s->dso))
				return -ENOMEM;
			if (!s->name && !s->dso)
				s->dso = strdup("[unknown]"); /* defined, and names nothing */
			if (!s->dso && !s->name)
				return -ENOMEM;
		}
		pos += n;
	}
	for (i = 0; i < ds.nstacks; i++) {
		struct rc_disk_stack dk;
		size_t nf, k;

		if (len - pos < sizeof(dk)) {
			*why = "stacks block: stack past its end";
			return -EBADMSG;
		}
		memcpy(&dk, p + pos, sizeof(dk));
		nf = (size_t)dk.nkernel + dk.nuser;
		if (!dk.id || dk.id > RC_MAX_STACK_ID || dk.id > max_stack || dk.nkernel > RC_MAX_FRAMES ||
		    dk.nuser > RC_MAX_FRAMES || nf * sizeof(struct rc_disk_frame) > len - pos - sizeof(dk)) {
			*why = "stacks block: stack id or length out of range";
			return -EBADMSG;
		}
		pos += sizeof(dk);
		if (t && (dk.id > t->nstacks || !t->stacks[dk.id - 1].frames)) {
			size_t need = dk.id > t->nstacks ? dk.id : t->nstacks;
			struct rc_frame *fr;
			struct rc_stack *st;

			if (rc_ensure_arr(&t->stacks, &t->stacks_cap, need, 64))
				return -ENOMEM;
			if (need > t->nstacks)
				memset(t->stacks + t->nstacks, 0,
				       (need - t->nstacks) * sizeof(*t->stacks));
			t->nstacks = need;
			fr = calloc(nf ? nf : 1, sizeof(*fr));
			if (!fr)
				return -ENOMEM;
			for (k = 0; k < nf; k++) {
				struct rc_disk_frame df;

				memcpy(&df, p + pos + k * sizeof(df), sizeof(df));
				fr[k].addr = df.addr;
				fr[k].off = df.off;
				if (df.sym && df.sym <= t->nsyms) {
					fr[k].sym = t->syms[df.sym - 1].name;
					fr[k].dso = t->syms[df.sym - 1].dso;
				}
			}
			st = &t->stacks[dk.id - 1];
			st->id = dk.id;
			st->pid = dk.pid;
			st->nkernel = dk.nkernel;
			st->nuser = dk.nuser;
			st->flags = dk.flags;
			st->frames = fr;
		}
		pos += nf * sizeof(struct rc_disk_frame);
	}
	if (pos != len) {
		*why = "stacks block: bytes after its entries";
		return -EBADMSG;
	}
	return 0;
}

int rc_stacktab__add_block(struct rc_stacktab *t, const void *p, size_t len, const char **why)
{
	return walk(t, NULL, p, len, why) ?: walk(t, t, p, len, why);
}

/* ---- LINES blocks ------------------------------------------------------ */

/* Grow a table of @elem-sized slots to hold id @id, new slots zeroed. */
static int grow_zeroed(void **arr, size_t *n, size_t *cap, size_t elem, size_t id)
{
	int err;

	if (id <= *n)
		return 0;
	err = rc_ensure_mem(arr, cap, elem, id, 64);
	if (err)
		return err;
	memset((char *)*arr + *n * elem, 0, (id - *n) * elem);
	*n = id;
	return 0;
}

/*
 * Of location @l's entries, how many a frame takes: none when @l is not a
 * location; all while its side's inlined entries stay within @room, which
 * they use; else only the last, the frame's own line.
 */
static size_t loc_take(const struct rc_stacktab *t, uint32_t l, size_t *room)
{
	size_t n;

	if (!l || l > t->nlocs || !t->locs[l - 1].n)
		return 0;
	n = t->locs[l - 1].n;
	if (n - 1 > *room)
		return 1;
	*room -= n - 1;
	return n;
}

/*
 * A stack's frames with its locations' lines and inline frames, at most
 * RC_MAX_INLINED inlined entries a side (a file's stacks are read whole:
 * a few bytes of locations must not make thousands of frames a stack);
 * NULL on -ENOMEM.
 */
static struct rc_frame *expand(const struct rc_stacktab *t, const struct rc_stack *st,
			       const uint32_t *locs, size_t nf, uint16_t *nkernel, uint16_t *nuser)
{
	size_t k, j, total = 0, out = 0, room = 0;
	struct rc_frame *fr;

	for (k = 0; k < nf; k++) {
		if (k == 0 || k == st->nkernel)
			room = RC_MAX_INLINED;
		total += loc_take(t, locs[k], &room) ?: 1;
	}
	fr = calloc(total ? total : 1, sizeof(*fr));
	if (!fr)
		return NULL;
	*nkernel = *nuser = 0;
	for (k = 0; k < nf; k++) {
		const struct rc_stacktab_loc *loc = NULL;
		const struct rc_frame *f = &st->frames[k];
		size_t n, first = 0;

		if (k == 0 || k == st->nkernel)
			room = RC_MAX_INLINED;
		n = loc_take(t, locs[k], &room);
		if (n) {
			loc = &t->locs[locs[k] - 1];
			first = loc->n - n; /* past the room: the frame's own entry alone */
		} else {
			n = 1;
		}
		for (j = first; j < first + n; j++, out++) {
			const struct rc_disk_locframe *lf = loc ? &loc->frames[j] : NULL;

			fr[out] = *f;
			if (!lf)
				continue;
			fr[out].file =
			    lf->file && lf->file <= t->nfiles ? t->files[lf->file - 1] : NULL;
			fr[out].line = lf->line;
			if (j + 1 < loc->n) { /* inlined into the frame after it */
				fr[out].sym = lf->sym && lf->sym <= t->nsyms ? t->syms[lf->sym - 1].name
									      : NULL;
				fr[out].off = 0;
				fr[out].flags |= RC_FRAME_F_INLINE;
			}
		}
		if (k < st->nkernel)
			*nkernel += n;
		else
			*nuser += n;
	}
	return fr;
}

/* Walk a LINES payload, checking it against @bounds; with @t, take what it defines. */
static int walk_lines(const struct rc_stacktab *bounds, struct rc_stacktab *t,
		      const unsigned char *p, size_t len, const char **why)
{
	uint64_t max_file, max_loc;
	struct rc_disk_lines dl;
	size_t pos = sizeof(dl), k;
	uint32_t i;

	if (len < sizeof(dl)) {
		*why = "lines block shorter than its counts";
		return -EBADMSG;
	}
	memcpy(&dl, p, sizeof(dl));
	max_file = (uint64_t)bounds->nfiles + dl.nfiles + ID_GAP;
	max_loc = (uint64_t)bounds->nlocs + dl.nlocs + ID_GAP;
	for (i = 0; i < dl.nfiles; i++) {
		struct rc_disk_srcfile sf;
		size_t n;

		if (len - pos < sizeof(sf)) {
			*why = "lines block: file past its end";
			return -EBADMSG;
		}
		memcpy(&sf, p + pos, sizeof(sf));
		n = pad8(sizeof(sf) + (size_t)sf.len);
		if (!sf.id || sf.id > RC_MAX_FILE_ID || sf.id > max_file || !sf.len ||
		    n > len - pos) {
			*why = "lines block: file id or length out of range";
			return -EBADMSG;
		}
		if (t && (sf.id > t->nfiles || !t->files[sf.id - 1])) {
			if (grow_zeroed((void **)&t->files, &t->nfiles, &t->files_cap,
					sizeof(*t->files), sf.id))
				return -ENOMEM;
			t->files[sf.id - 1] = strndup((const char *)p + pos + sizeof(sf), sf.len);
			if (!t->files[sf.id - 1])
				return -ENOMEM;
		}
		pos += n;
	}
	for (i = 0; i < dl.nlocs; i++) {
		struct rc_disk_loc dloc;
		size_t n;

		if (len - pos < sizeof(dloc)) {
			*why = "lines block: location past its end";
			return -EBADMSG;
		}
		memcpy(&dloc, p + pos, sizeof(dloc));
		n = (size_t)dloc.nframes * sizeof(struct rc_disk_locframe);
		if (!dloc.id || dloc.id > RC_MAX_LOC_ID || dloc.id > max_loc || !dloc.nframes ||
		    dloc.nframes > RC_MAX_LOC_FRAMES || n > len - pos - sizeof(dloc)) {
			*why = "lines block: location id or length out of range";
			return -EBADMSG;
		}
		pos += sizeof(dloc);
		if (t && (dloc.id > t->nlocs || !t->locs[dloc.id - 1].n)) {
			struct rc_stacktab_loc *l;

			if (grow_zeroed((void **)&t->locs, &t->nlocs, &t->locs_cap, sizeof(*t->locs),
					dloc.id))
				return -ENOMEM;
			l = &t->locs[dloc.id - 1];
			l->frames = malloc(n);
			if (!l->frames)
				return -ENOMEM;
			memcpy(l->frames, p + pos, n);
			l->n = dloc.nframes;
		}
		pos += n;
	}
	for (i = 0; i < dl.nstacks; i++) {
		uint32_t locs[2 * RC_MAX_FRAMES];
		struct rc_disk_stacklines sl;
		struct rc_stack *st;
		struct rc_frame *fr;
		uint16_t nk, nu;
		size_t n;

		if (len - pos < sizeof(sl)) {
			*why = "lines block: stack past its end";
			return -EBADMSG;
		}
		memcpy(&sl, p + pos, sizeof(sl));
		n = pad8(sizeof(sl) + (size_t)sl.nframes * sizeof(uint32_t));
		if (!sl.id || sl.id > RC_MAX_STACK_ID || sl.nframes > 2 * RC_MAX_FRAMES ||
		    n > len - pos) {
			*why = "lines block: stack id or length out of range";
			return -EBADMSG;
		}
		memcpy(locs, p + pos + sizeof(sl), sl.nframes * sizeof(uint32_t));
		pos += n;
		for (k = 0; k < sl.nframes; k++) {
			if (locs[k] > RC_MAX_LOC_ID) {
				*why = "lines block: location id out of range";
				return -EBADMSG;
			}
		}
		if (!t || sl.id > t->nstacks || !t->stacks[sl.id - 1].frames ||
		    (sl.id <= t->nlined && t->lined[sl.id - 1]))
			continue;
		st = &t->stacks[sl.id - 1];
		if ((size_t)st->nkernel + st->nuser != sl.nframes)
			continue; /* not the stack it was written for: its frames stay as they are */
		if (grow_zeroed((void **)&t->lined, &t->nlined, &t->lined_cap, 1, sl.id))
			return -ENOMEM;
		fr = expand(t, st, locs, sl.nframes, &nk, &nu);
		if (!fr)
			return -ENOMEM;
		free((void *)st->frames);
		st->frames = fr;
		st->nkernel = nk;
		st->nuser = nu;
		t->lined[sl.id - 1] = 1;
	}
	if (pos != len) {
		*why = "lines block: bytes after its entries";
		return -EBADMSG;
	}
	return 0;
}

int rc_stacktab__add_lines(struct rc_stacktab *t, const void *p, size_t len, const char **why)
{
	return walk_lines(t, NULL, p, len, why) ?: walk_lines(t, t, p, len, why);
}

const struct rc_stack *rc_stacktab__stack(const struct rc_stacktab *t, uint32_t id)
{
	if (!id || id > t->nstacks || !t->stacks[id - 1].frames)
		return NULL;
	return &t->stacks[id - 1];
}

void rc_stacktab__free(struct rc_stacktab *t)
{
	size_t i;

	for (i = 0; i < t->nsyms; i++) {
		free(t->syms[i].name);
		free(t->syms[i].dso);
	}
	for (i = 0; i < t->nstacks; i++)
		free((void *)t->stacks[i].frames);
	for (i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	for (i = 0; i < t->nlocs; i++)
		free(t->locs[i].frames);
	for (i = 0; i < t->nbids; i++) {
		free(t->bids[i].file);
		free(t->bids[i].hex);
	}
	free(t->bids);
	rc_idmap__free(&t->bidmap);
	free(t->syms);
	free(t->stacks);
	free(t->lined);
	free(t->files);
	free(t->locs);
	memset(t, 0, sizeof(*t));
}

/* ---- BUILDIDS blocks --------------------------------------------------- */

static uint64_t bid_hash(const char *file, size_t n)
{
	return XXH64(file, n, 0) | 1; /* never 0, an empty slot */
}

/* The build-id of the file named by the @n bytes at @file, or NULL. */
static const char *bid_of(const struct rc_stacktab *t, const char *file, size_t n)
{
	size_t pos = RC_IDMAP_START;
	uint64_t *i;

	while ((i = rc_idmap__next(&t->bidmap, bid_hash(file, n), &pos)))
		if (!strncmp(t->bids[*i].file, file, n) && !t->bids[*i].file[n])
			return t->bids[*i].hex;
	return NULL;
}

const char *rc_stacktab__build_id(const struct rc_stacktab *t, const char *file)
{
	return file ? bid_of(t, file, strlen(file)) : NULL;
}

/* Walk a BUILDIDS payload; with @t, take what it defines. */
static int walk_bids(struct rc_stacktab *t, const unsigned char *p, size_t len, const char **why)
{
	static const char hexd[] = "0123456789abcdef";
	struct rc_disk_buildids dh;
	size_t pos = sizeof(dh);
	uint32_t i;

	if (len < sizeof(dh)) {
		*why = "build-id block shorter than its count";
		return -EBADMSG;
	}
	memcpy(&dh, p, sizeof(dh));
	for (i = 0; i < dh.n; i++) {
		struct rc_disk_buildid db;
		const unsigned char *id;
		const char *file;
		size_t n, k;

		if (len - pos < sizeof(db)) {
			*why = "build-id block: entry past its end";
			return -EBADMSG;
		}
		memcpy(&db, p + pos, sizeof(db));
		n = pad8(sizeof(db) + (size_t)db.file_len + db.id_len);
		if (!db.file_len || db.file_len > RC_MAX_BUILDID_FILE || !db.id_len ||
		    db.id_len > RC_MAX_BUILDID || n > len - pos) {
			*why = "build-id block: a length out of range";
			return -EBADMSG;
		}
		file = (const char *)p + pos + sizeof(db);
		/* a name is its bytes, with no NUL: bid_of() compares them as a string */
		if (memchr(file, 0, db.file_len)) {
			*why = "build-id block: a file name with a NUL byte in it";
			return -EBADMSG;
		}
		if (t && !bid_of(t, file, db.file_len)) {
			char *f = strndup(file, db.file_len), *hex = malloc(2 * (size_t)db.id_len + 1);

			if (!f || !hex || rc_ensure_arr(&t->bids, &t->bids_cap, t->nbids + 1, 16) ||
			    rc_idmap__put(&t->bidmap, bid_hash(file, db.file_len), t->nbids)) {
				free(f);
				free(hex);
				return -ENOMEM;
			}
			id = p + pos + sizeof(db) + db.file_len;
			for (k = 0; k < db.id_len; k++) {
				hex[2 * k] = hexd[id[k] >> 4];
				hex[2 * k + 1] = hexd[id[k] & 15];
			}
			hex[2 * k] = 0;
			t->bids[t->nbids++] = (struct rc_stacktab_bid){ .file = f, .hex = hex };
		}
		pos += n;
	}
	if (pos != len) {
		*why = "build-id block: bytes past its entries";
		return -EBADMSG;
	}
	return 0;
}

int rc_stacktab__add_buildids(struct rc_stacktab *t, const void *p, size_t len, const char **why)
{
	int err = walk_bids(NULL, p, len, why);

	return err ?: walk_bids(t, p, len, why);
}
