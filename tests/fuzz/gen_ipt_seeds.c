// SPDX-License-Identifier: GPL-2.0-only
/*
 * Write fuzz_ipt's seed corpus into a directory: Intel PT streams made
 * with libipt's encoder (a PSB+, branches, timing packets, a second PSB),
 * the same with garbage between two segments, and one cut mid-packet.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <intel-pt.h>

static const struct pt_packet packets[] = {
	{ .type = ppt_psb },
	{ .type = ppt_fup, .payload.ip = { .ipc = pt_ipc_sext_48, .ip = 0x401000 } },
	{ .type = ppt_mode, .payload.mode = { .leaf = pt_mol_exec, .bits.exec = { .csl = 1 } } },
	{ .type = ppt_tsc, .payload.tsc.tsc = 0x123456789a },
	{ .type = ppt_cbr, .payload.cbr.ratio = 0x20 },
	{ .type = ppt_psbend },
	{ .type = ppt_tnt_8, .payload.tnt = { .bit_size = 4, .payload = 0xa } },
	{ .type = ppt_tnt_64, .payload.tnt = { .bit_size = 40, .payload = 0x5a5a5a5a5a } },
	{ .type = ppt_tip, .payload.ip = { .ipc = pt_ipc_update_16, .ip = 0x1234 } },
	{ .type = ppt_mtc, .payload.mtc.ctc = 0x11 },
	{ .type = ppt_cyc, .payload.cyc.value = 0x345 },
	{ .type = ppt_tip_pgd, .payload.ip = { .ipc = pt_ipc_suppressed } },
	{ .type = ppt_tip_pge, .payload.ip = { .ipc = pt_ipc_update_32, .ip = 0x402000 } },
	{ .type = ppt_pip, .payload.pip.cr3 = 0x1000 },
	{ .type = ppt_tma, .payload.tma = { .ctc = 0x12, .fc = 0x3 } },
	{ .type = ppt_ovf },
	{ .type = ppt_psb },
	{ .type = ppt_tsc, .payload.tsc.tsc = 0x123456ffff },
	{ .type = ppt_psbend },
	{ .type = ppt_pad },
	{ .type = ppt_tnt_8, .payload.tnt = { .bit_size = 2, .payload = 0x2 } },
};

static int write_seed(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const unsigned char garbage[] = { 0x02, 0x02, 0xc8, 0x3f, 0x02, 0xff, 0x99, 0x19 };
	unsigned char buf[1024], two[2048];
	struct pt_encoder *enc;
	struct pt_config cfg;
	uint64_t len = 0;
	size_t i;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_ipt_seeds DIR\n");
		return 1;
	}
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + sizeof(buf);
	enc = pt_alloc_encoder(&cfg);
	if (!enc) {
		fprintf(stderr, "gen_ipt_seeds: pt_alloc_encoder failed\n");
		return 1;
	}
	for (i = 0; i < sizeof(packets) / sizeof(packets[0]); i++) {
		err = pt_enc_next(enc, &packets[i]);
		if (err < 0) {
			fprintf(stderr, "gen_ipt_seeds: packet %zu: %s\n", i,
				pt_errstr(pt_errcode(err)));
			pt_free_encoder(enc);
			return 1;
		}
	}
	err = pt_enc_get_offset(enc, &len);
	pt_free_encoder(enc);
	if (err < 0)
		return 1;
	memcpy(two, buf, len);
	memcpy(two + len, garbage, sizeof(garbage));
	memcpy(two + len + sizeof(garbage), buf, len);
	err = write_seed(argv[1], "stream", buf, len);
	if (!err)
		err = write_seed(argv[1], "garbage-between", two, 2 * len + sizeof(garbage));
	if (!err)
		err = write_seed(argv[1], "cut", buf, len - 3);
	if (err) {
		fprintf(stderr, "gen_ipt_seeds: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
