/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capture file, format v1: the constants and layouts of
 * man/ringcap-file.5.rst. Little-endian throughout.
 *
 * A file is a sequence of blocks. Each block is a zstd skippable frame, so
 * that `zstd -t` and `zstd -d` accept a capture:
 *
 *   u32 frame_magic  RC_FRAME_MAGIC
 *   u32 frame_size   bytes that follow (>= 8)
 *   u32 type         RC_BLOCK_*
 *   u32 crc          crc32 of type (4 bytes), then of the payload

 *   u8  payload[frame_size - 8]
 *
 * A chunk block is followed at once by its data: one zstd frame of
 * data_size bytes that decompresses to raw_size bytes of records.
 */
#ifndef RINGCAP_FORMAT_H
#define RINGCAP_FORMAT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "format/counters.h"
#include "format/records.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ringcap-file(5) v1 is little-endian; this host is not"
#endif

#define RC_FRAME_MAGIC	 0x184D2A5Eu /* zstd skippable frame, nibble 0xE */
#define RC_FILE_MAGIC	 "RCAPFILE"
#define RC_VERSION_MAJOR 1
#define RC_VERSION_MINOR 11

#define RC_BLOCK_HEADER	 1
#define RC_BLOCK_CHUNK	 2
#define RC_BLOCK_STATS	 3
#define RC_BLOCK_TRAILER 4
#define RC_BLOCK_END	 5
#define RC_BLOCK_STACKS	 6 /* v1.7: symbols and stacks, each defined once, before first use */
#define RC_BLOCK_LINES	 7 /* v1.8: source lines and inline frames of stacks already defined */
#define RC_BLOCK_BASE	 8 /* v1.9: a STATS payload: the run's counters when the file began */
#define RC_BLOCK_AUX                                                                               \
	9 /* v1.10: a stretch of a CPU's AUX stream: struct rc_disk_aux, then its frame */
#define RC_BLOCK_BUILDIDS 10 /* v1.11: the build-ids of files STACKS blocks name */

/* Header sections: u16 id, u16 reserved (0), u32 len, u8 data[len] */
#define RC_SEC_INFO    1
#define RC_SEC_HOST    2
#define RC_SEC_KERNEL  3
#define RC_SEC_ARCH    4
#define RC_SEC_CMDLINE 5
#define RC_SEC_ENUM    6
#define RC_SEC_EVENT   7 /* v1.5: u16 flags after the fields (RC_EVENT_*) */
#define RC_SEC_NOTE    8 /* v1.3: u16 event id, str16 key, u32 len, u8 data[len] */
#define RC_SEC_RUN     9 /* v1.9: struct rc_disk_run */

#define RC_CODEC_ZSTD	      1 /* a zstd frame of the records */
#define RC_CODEC_ZSTD_SHUFFLE 2 /* a zstd frame of the records shuffled (shuffle.h); v1.2 */
#define RC_CODEC_FTRACE	      3 /* v1.4: a zstd frame of fragments (struct rc_disk_frag) */
#define RC_CODEC_ZSTD_CLASSES 4 /* v1.6: a zstd frame of the records shuffled by size (shuffle.h) */

/* Limits a reader enforces before trusting a length. */
#define RC_MAX_BLOCK	  (16u << 20) /* payload of a metadata block */
#define RC_MAX_TRAILER	  (1u << 30)  /* payload of the trailer: 32 bytes a chunk */
#define RC_MAX_CHUNK_RAW  (64u << 20) /* records of one chunk, decompressed */
#define RC_MAX_CHUNK_DATA (RC_MAX_CHUNK_RAW + (RC_MAX_CHUNK_RAW >> 7) + 4096)
#define RC_MAX_CPUS	  65536 /* the INFO CPU count, and a bound on every record's cpu */
#define RC_MAX_FIELDS	  256
#define RC_MAX_NAME	  255
#define RC_MAX_NOTES	  65536

#define RC_BLOCK_HDR_SIZE 16 /* frame magic, frame size, type, crc */
#define RC_END_PAYLOAD	  8  /* u64 offset of the trailer block */

struct rc_disk_info {
	uint32_t clock_id;
	uint32_t ncpus;
	uint32_t page_size;
	uint32_t recorder_pid;
	uint64_t start_ts;
	int64_t wall_offset_ns;
	uint64_t ringbuf_size;
	uint32_t transport;
	uint32_t flags; /* RC_META_*; 0 in files before v1.1 */
};
_Static_assert(sizeof(struct rc_disk_info) == 48, "rc_disk_info layout");

/*
 * The RUN section (v1.9): which run of `ringcap record` wrote the file, and
 * where the file stands in it. Every file from v1.9 has one; a run that
 * never switches files writes seq 1, flags 0.
 */
struct rc_disk_run {
	uint8_t run_id[16];    /* random, the same in every file of one run */
	uint8_t boot_id[16];   /* /proc/sys/kernel/random/boot_id; zeros if unknown */
	uint32_t seq;	       /* 1 for a run's first file, +1 a file */
	uint32_t flags;	       /* RC_RUN_F_* (meta.h) */
	uint64_t run_start_ts; /* capture clock at the run's start */
};
_Static_assert(sizeof(struct rc_disk_run) == 48, "rc_disk_run layout");

struct rc_disk_chunk {
	uint32_t codec;
	uint32_t nrec;
	uint64_t first_ts;
	uint64_t last_ts;
	uint32_t raw_size;
	uint32_t data_size;
};
_Static_assert(sizeof(struct rc_disk_chunk) == 32, "rc_disk_chunk layout");

/*
 * The content of an RC_CODEC_FTRACE chunk's frame: fragments, each this
 * header, then len bytes, then zero padding to a multiple of 8. The chunk
 * header's raw_size and nrec are those of the records it decodes to.
 */
struct rc_disk_frag {
	uint16_t kind; /* RC_FRAG_* */
	uint16_t cpu;  /* EVENTS: the CPU whose ring they come from */
	uint32_t len;  /* bytes that follow, then zero padding to a multiple of 8 */
	uint64_t ts;   /* EVENTS: the time the first event's delta adds to */
};
_Static_assert(sizeof(struct rc_disk_frag) == 16, "rc_disk_frag layout");

#define RC_FRAG_EVENTS	1 /* whole ftrace events, as the ring holds them */
#define RC_FRAG_RECORDS 2 /* whole ringcap records (ringcap:lost records and the like) */
#define RC_FRAG_TASKS	3 /* struct rc_disk_task entries */

/* A task of an FTRACE chunk: the process and name of a thread its events name. */
struct rc_disk_task {
	uint32_t tid;  /* common_pid */
	uint32_t tgid; /* the process: the record's pid */
	char comm[16];
};
_Static_assert(sizeof(struct rc_disk_task) == 24, "rc_disk_task layout");

/*
 * AUX payload (v1.10): this, then data_size bytes: a zstd frame of the
 * stream's size bytes (RC_CODEC_ZSTD), or the bytes as they are
 * (RC_CODEC_NONE). Blocks of one CPU follow its stream in order: pos
 * grows, and where a block's pos is past the end of the one before, the
 * bytes between were lost (in lost, for an overwrite ring).
 */
struct rc_disk_aux {
	uint32_t cpu;
	uint32_t codec;	    /* RC_CODEC_NONE or RC_CODEC_ZSTD */
	uint64_t pos;	    /* the AUX position (aux_head's count) of the first byte */
	uint64_t size;	    /* the stream's bytes here */
	uint64_t lost;	    /* bytes overwritten before this copy (overwrite mode) */
	uint64_t ts;	    /* capture clock when copied */
	uint32_t pmu_type;  /* the perf event's attr.type */
	uint32_t flags;	    /* RC_AUX_F_* (aux.h) */
	uint64_t time_zero; /* the metadata page's hardware clock conversion: */
	uint32_t time_mult; /*   perf ns = time_zero + count * time_mult >> time_shift */
	uint16_t time_shift;
	uint16_t clock_valid; /* 1: cap_user_time_zero; else the three mean nothing */
	int64_t perf_to_boot; /* capture clock less perf time, measured at the copy; 0: unknown */
	uint32_t data_size;   /* bytes of data that follow */
	uint32_t __pad;
	char pmu[16]; /* the PMU's name (intel_pt, arm_spe_0, ...), NUL-padded */
};
_Static_assert(sizeof(struct rc_disk_aux) == 96, "rc_disk_aux layout");
#define RC_CODEC_NONE 0

/* stats payload: this, then nentries entries of entry_size bytes each */
struct rc_disk_stats {
	uint64_t ts;
	uint64_t ring_size;
	uint64_t ring_hwm;
	uint64_t ring_pending;
	uint64_t user_dropped;
	uint64_t writer_wait_ns;
	uint32_t nentries;
	uint32_t entry_size; /* 48 in v1.0, 80 in v1.8, 88 from v1.9 (struct rc_disk_stat);
				later minors may grow it */
};
_Static_assert(sizeof(struct rc_disk_stats) == 56, "rc_disk_stats layout");

struct rc_disk_stat {
	uint32_t cpu;
	uint32_t type;
	uint64_t made;
	uint64_t dropped;
	uint64_t filtered;
	uint64_t captured;
	uint64_t missed;
	/* from v1.8 (entry_size 80); a smaller entry_size has none: zeros */
	uint64_t not_run;
	uint64_t throttled;
	uint64_t throttled_ns;
	uint64_t throttles;
	/* from v1.9 (entry_size 88); a smaller entry_size has none: zero */
	uint64_t in_flight;
	/* from v1.10 (entry_size 96); a smaller entry_size has none: zero */
	uint64_t paused;
};
_Static_assert(sizeof(struct rc_disk_stat) == 96, "rc_disk_stat layout");
_Static_assert(sizeof(struct rc_disk_stat) == 8 + 8 * RC_NCOUNTERS,
	       "rc_disk_stat: a field for every counter of format/counters.h");
#define RC_DISK_STAT_V1_0 48 /* the smallest entry_size: v1.0's, up to missed */

/*
 * stacks payload: this, then nsyms symbol entries, then nstacks stack
 * entries. Ids count from 1 in a file; a frame names a symbol defined in
 * this block or an earlier one, a sample a stack defined so.
 */
struct rc_disk_stacks {
	uint32_t nsyms;
	uint32_t nstacks;
};
_Static_assert(sizeof(struct rc_disk_stacks) == 8, "rc_disk_stacks layout");

/*
 * A symbol: this, then name_len bytes of its name, dso_len bytes of the
 * file (or "[kernel.kallsyms]", a module's "[name]", "[vdso]"), then zero
 * padding to a multiple of 8. No name: the frame is only known to be in
 * that file, at the frame's off bytes into it.
 */
struct rc_disk_sym {
	uint32_t id;
	uint16_t name_len;
	uint16_t dso_len;
};
_Static_assert(sizeof(struct rc_disk_sym) == 8, "rc_disk_sym layout");

/* A stack: this, then nkernel, then nuser frames, each innermost first. */
struct rc_disk_stack {
	uint32_t id;
	uint32_t pid;	/* the process its user frames are in; 0 without user frames */
	uint16_t nkernel;
	uint16_t nuser;
	uint32_t flags; /* RC_STACK_F_* (reader.h) */
};
_Static_assert(sizeof(struct rc_disk_stack) == 16, "rc_disk_stack layout");

struct rc_disk_frame {
	uint64_t addr;
	uint32_t sym; /* 0: nothing known */
	uint32_t off; /* into the symbol; or, for a symbol without a name, into its file */
};
_Static_assert(sizeof(struct rc_disk_frame) == 16, "rc_disk_frame layout");

/*
 * lines payload (a LINES block, after the STACKS block of the stacks it
 * tells of): this, then nfiles source files, nlocs locations, nstacks
 * stacks' locations. Older readers skip the block: their stacks lack
 * inline frames and lines, and nothing else.
 */
struct rc_disk_lines {
	uint32_t nfiles;
	uint32_t nlocs;
	uint32_t nstacks;
	uint32_t reserved;
};
_Static_assert(sizeof(struct rc_disk_lines) == 16, "rc_disk_lines layout");

/* A source file: this, then len bytes of its path, then zero padding to a multiple of 8. */
struct rc_disk_srcfile {
	uint32_t id; /* 1, 2, ... in the file; its own numbering, not the symbols' */
	uint16_t len;
	uint16_t reserved;
};
_Static_assert(sizeof(struct rc_disk_srcfile) == 8, "rc_disk_srcfile layout");

/*
 * A location: this, then nframes struct rc_disk_locframe, innermost first:
 * the functions inlined at an address, then the frame's own function, last.
 */
struct rc_disk_loc {
	uint32_t id; /* 1, 2, ... in the file */
	uint16_t nframes;
	uint16_t reserved;
};
_Static_assert(sizeof(struct rc_disk_loc) == 8, "rc_disk_loc layout");

struct rc_disk_locframe {
	uint32_t sym;  /* an inlined function's symbol (its dso the frame's); 0 for the last */
	uint32_t file; /* a source file's id; 0: unknown */
	uint32_t line; /* 0: unknown */
	uint32_t reserved;
};
_Static_assert(sizeof(struct rc_disk_locframe) == 16, "rc_disk_locframe layout");

/* A stack's locations: this, then nframes u32 location ids (0: none), zero padding to 8. */
struct rc_disk_stacklines {
	uint32_t id; /* a stack defined before, whose nkernel + nuser is nframes */
	uint16_t nframes;
	uint16_t reserved;
};
_Static_assert(sizeof(struct rc_disk_stacklines) == 8, "rc_disk_stacklines layout");

/*
 * buildids payload (a BUILDIDS block): this, then n entries. Older readers
 * skip the block: their frames have no build-ids, and nothing else.
 */
struct rc_disk_buildids {
	uint32_t n;
	uint32_t reserved;
};
_Static_assert(sizeof(struct rc_disk_buildids) == 8, "rc_disk_buildids layout");

/*
 * A file's build-id: this, then file_len bytes of the file as STACKS names
 * it, id_len bytes of the build-id (its ELF note's), zero padding to 8.
 */
struct rc_disk_buildid {
	uint16_t file_len; /* 1 to RC_MAX_BUILDID_FILE */
	uint8_t id_len;	   /* 1 to RC_MAX_BUILDID */
	uint8_t reserved;
	uint32_t reserved2;
};
_Static_assert(sizeof(struct rc_disk_buildid) == 8, "rc_disk_buildid layout");

#define RC_MAX_BUILDID	    64	 /* bytes of a build-id (GNU's are 20: SHA-1) */
#define RC_MAX_BUILDID_FILE 4096 /* bytes of its file's name, as a symbol's are cut */

#define RC_MAX_LOC_FRAMES 32 /* frames of a location: 31 inlined functions at most */
#define RC_MAX_INLINED	  2048 /* inlined entries a reader takes a side of a stack */
#define RC_MAX_LOC_ID	  (1u << 24)
#define RC_MAX_FILE_ID	  (1u << 22)

#define RC_MAX_STACK_ID	 (1u << 22)
#define RC_MAX_SYM_ID	 (1u << 22)
#define RC_MAX_FRAMES	 512 /* a side, in a stack entry */

/* trailer payload: this, then nindex struct rc_disk_index */
struct rc_disk_trailer {
	uint64_t nrec;
	uint64_t nchunks;
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t raw_bytes;
	uint64_t late;
	uint32_t nindex;
	uint32_t reserved;
};
_Static_assert(sizeof(struct rc_disk_trailer) == 56, "rc_disk_trailer layout");

struct rc_disk_index {
	uint64_t offset;
	uint64_t first_ts;
	uint64_t last_ts;
	uint32_t nrec;
	uint32_t reserved;
};
_Static_assert(sizeof(struct rc_disk_index) == 32, "rc_disk_index layout");

/*
 * The next record of a run of @len bytes of records, from *@pos, which it
 * moves past: 1 and *@h; 0 at the end; -EBADMSG when the run ends inside a
 * record header, -EINVAL for a size that is not a whole record of it.
 */
static inline int rc_rec__next(const void *recs, size_t len, size_t *pos, struct rc_rec_hdr *h)
{
	if (*pos >= len)
		return 0;
	if (len - *pos < sizeof(*h))
		return -EBADMSG;
	memcpy(h, (const unsigned char *)recs + *pos, sizeof(*h));
	if (h->size < sizeof(*h) || h->size % RC_REC_ALIGN || h->size > len - *pos)
		return -EINVAL;
	*pos += h->size;
	return 1;
}

/* The CRC of a block: over its type, then its payload (zlib's crc32). */
uint32_t rc_block_crc(uint32_t type, const void *payload, size_t len);

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
/*
 * The fuzzer's switch: false (the default) lets every block's CRC pass, so
 * that mutations reach the parsers; true checks them, so that they reach
 * the resync.
 */
extern bool rc_fuzz_check_crc;
#endif

#endif /* RINGCAP_FORMAT_H */
