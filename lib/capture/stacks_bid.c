// SPDX-License-Identifier: GPL-2.0-only
/*
 * The build-ids of the files stacks' frames are in (stacks_int.h), each
 * noted once a file and written as BUILDIDS blocks beside the STACKS
 * blocks that name the files (ringcap-file(5)). A user file's build-id is
 * its ELF note's, read with libelf when the file is opened for its
 * symbols (symbol/dso.h); the kernel's is the note of /sys/kernel/notes.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "capture/stacks_int.h"
#include "format/format.h"
#include "format/writer_int.h"
#include "util/util.h"

#define NT_GNU_BUILD_ID_ 3

static int unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rc_stacks__note_build_id(struct rc_stacks *t, const char *file, const char *hex)
{
	static const char zeros[8];
	struct rc_disk_buildid db = {};
	unsigned char id[RC_MAX_BUILDID];
	size_t flen, hlen, i;
	uint32_t one;
	int added, err;

	if (!file || !hex)
		return 0;
	flen = strnlen(file, NAME_MAX_LEN);
	hlen = strlen(hex);
	if (!flen || flen > RC_MAX_BUILDID_FILE || !hlen || hlen % 2 || hlen / 2 > RC_MAX_BUILDID)
		return 0;
	for (i = 0; i < hlen / 2; i++) {
		int hi = unhex(hex[2 * i]), lo = unhex(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return 0;
		id[i] = hi << 4 | lo;
	}
	added = rc_keymap__intern(&t->bidfiles, file, flen, 1, &one);
	if (added <= 0)
		return added;
	db.file_len = flen;
	db.id_len = hlen / 2;
	err = rc_strbuf__append(&t->pbids, &db, sizeof(db));
	err = err ?: rc_strbuf__append(&t->pbids, file, flen);
	err = err ?: rc_strbuf__append(&t->pbids, id, db.id_len);
	err = err ?: rc_strbuf__append(&t->pbids, zeros, (8 - (flen + db.id_len) % 8) % 8);
	t->npbids++;
	return err;
}

/* The GNU build-id note in the @len bytes of notes at @p, in hex into @hex; false: none. */
static bool notes_build_id(const unsigned char *p, size_t len, char *hex)
{
	static const char hexd[] = "0123456789abcdef";
	size_t pos = 0, i;

	while (len - pos >= 12) {
		uint32_t nh[3]; /* namesz, descsz, type */
		size_t name, desc;

		memcpy(nh, p + pos, sizeof(nh));
		name = (nh[0] + 3ull) & ~3ull;
		desc = (nh[1] + 3ull) & ~3ull;
		if (name > len - pos - 12 || desc > len - pos - 12 - name)
			return false;
		if (nh[2] == NT_GNU_BUILD_ID_ && nh[0] == 4 && !memcmp(p + pos + 12, "GNU", 4) &&
		    nh[1] && nh[1] <= RC_MAX_BUILDID) {
			for (i = 0; i < nh[1]; i++) {
				hex[2 * i] = hexd[p[pos + 12 + name + i] >> 4];
				hex[2 * i + 1] = hexd[p[pos + 12 + name + i] & 15];
			}
			hex[2 * i] = 0;
			return true;
		}
		pos += 12 + name + desc;
	}
	return false;
}

const char *rc_stacks__kernel_build_id(struct rc_stacks *t)
{
	unsigned char buf[4096];
	ssize_t n;
	int fd;

	if (t->kbid_tried)
		return t->kbid[0] ? t->kbid : NULL;
	t->kbid_tried = true;
	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pr_debug("stacks: no kernel build-id: cannot open /sys/kernel/notes: %s\n",
			 strerror(errno));
		return NULL;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0 || !notes_build_id(buf, n, t->kbid)) {
		t->kbid[0] = 0;
		pr_debug("stacks: no build-id note in /sys/kernel/notes\n");
		return NULL;
	}
	return t->kbid;
}

int rc_stacks__emit_build_ids(struct rc_stacks *t, struct rc_writer *w)
{
	struct rc_disk_buildids dh = { .n = t->npbids };
	struct rc_strbuf *p = &t->key;
	int err;

	if (!t->npbids)
		return 0;
	p->len = 0;
	err = rc_strbuf__append(p, &dh, sizeof(dh));
	err = err ?: rc_strbuf__append(p, t->pbids.buf, t->pbids.len);
	err = err ?: rc_writer__add_buildids(w, p->buf, p->len);
	t->pbids.len = 0;
	t->npbids = 0;
	return err;
}
