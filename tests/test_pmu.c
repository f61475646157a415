// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's PMU event syntax to a perf_event_attr: against a sysfs tree of the
 * test's own (exact bits for each spec, exact refusals), and against this
 * machine's /sys (no intel_pt here; software// opens).
 */

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "capture/perf/pmu.h"
#include "test_progs.h"

static char root[64]; /* /tmp/ringcap-pmu.XXXXXX */

/* Write @text to ROOT/@rel, making its directories. */
static bool put(const char *rel, const char *text)
{
	char path[PATH_MAX], *s;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
		return false;
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return false;
		*s = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_tree(void)
{
	if (root[0])
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	root[0] = '\0';
}

static bool build_tree(void)
{
	static const char *const files[][2] = {
		{ "intel_pt/type", "8\n" },
		{ "intel_pt/format/pt", "config:0\n" },
		{ "intel_pt/format/cyc", "config:1\n" },
		{ "intel_pt/format/mtc", "config:9\n" },
		{ "intel_pt/format/tsc", "config:10\n" },
		{ "intel_pt/format/noretcomp", "config:11\n" },
		{ "intel_pt/format/branch", "config:13\n" },
		{ "intel_pt/format/mtc_period", "config:14-17\n" },
		{ "intel_pt/format/psb_period", "config:24-27\n" },
		{ "made_up/type", "42\n" },
		{ "made_up/format/scat", "config:0-1,4-5\n" },
		{ "made_up/format/c1", "config1:8-10\n" },
		{ "made_up/format/wide", "config2:0-63\n" },
		{ "made_up/format/broken", "config:5-3\n" },
		{ "made_up/format/bigbit", "config:64\n" },
		{ "made_up/format/c3", "config3:0\n" },
		{ "made_up/events/ev1", "scat=3\n" },
		{ "arm_spe_0/type", "12\n" },
		{ "arm_spe_0/format/ts_enable", "config:0\n" },
		{ "arm_spe_0/format/pa_enable", "config:1\n" },
		{ "arm_spe_0/format/event_filter", "config1:0-63\n" },
		{ "arm_spe_0/format/min_latency", "config2:0-11\n" },
		{ "arm_spe_1/type", "13\n" },
		{ "spe_dev_10/type", "30\n" },
		{ "spe_dev_2/type", "31\n" },
		{ "cs_etm/type", "14\n" },
		{ "cs_etm/format/cycacc", "config:12\n" },
		{ "software/type", "1\n" },
		{ "badtype/type", "0x8\n" },
		{ "bigtype/type", "4294967296\n" },
	};
	size_t i;

	snprintf(root, sizeof(root), "/tmp/ringcap-pmu.XXXXXX");
	if (!ASSERT_OK_PTR(mkdtemp(root), "mkdtemp")) {
		root[0] = '\0';
		return false;
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!ASSERT_TRUE(put(files[i][0], files[i][1]), files[i][0]))
			return false;
	return true;
}

/* Parse @spec in the tree: its return, and @attr and @err filled. */
static int parse(const char *spec, struct perf_event_attr *attr, char *err, size_t len)
{
	return rc_pmu__parse(root, spec, attr, err, len);
}

/* A spec that parses: its type, config words and exclude bits, exactly. */
static void expect_ok(const char *spec, unsigned int type, __u64 config, __u64 config1,
		      __u64 config2, const char *excl)
{
	struct perf_event_attr a;
	char err[512], got[8];
	int ret, n = 0;

	memset(&a, 0xa5, sizeof(a));
	ret = parse(spec, &a, err, sizeof(err));
	if (!ASSERT_OK(ret, spec)) {
		fprintf(stderr, "  %s: %s\n", spec, err);
		return;
	}
	ASSERT_STREQ(err, "", spec);
	ASSERT_EQ(a.size, sizeof(a), spec);
	ASSERT_EQ(a.type, type, spec);
	ASSERT_EQ(a.config, config, spec);
	ASSERT_EQ(a.config1, config1, spec);
	ASSERT_EQ(a.config2, config2, spec);
	/* u k h: exclude_user, _kernel, _hv; G H: exclude_guest, _host */
	if (a.exclude_user)
		got[n++] = 'u';
	if (a.exclude_kernel)
		got[n++] = 'k';
	if (a.exclude_hv)
		got[n++] = 'h';
	if (a.exclude_guest)
		got[n++] = 'G';
	if (a.exclude_host)
		got[n++] = 'H';
	got[n] = '\0';
	ASSERT_STREQ(got, excl, spec);
	/* nothing else set: the rest is the caller's */
	a.size = a.type = 0;
	a.config = a.config1 = a.config2 = 0;
	a.exclude_user = a.exclude_kernel = a.exclude_hv = a.exclude_guest = a.exclude_host = 0;
	ASSERT_TRUE(!memcmp(&a, &(struct perf_event_attr){}, sizeof(a)), spec);
}

/* A spec refused: its return and its whole message, exactly; the attr left zeroed. */
static void expect_err(const char *spec, int want, const char *message)
{
	struct perf_event_attr a;
	char err[1024];
	int ret;

	memset(&a, 0xa5, sizeof(a));
	ret = parse(spec, &a, err, sizeof(err));
	ASSERT_EQ(ret, want, spec);
	ASSERT_STREQ(err, message, spec);
	ASSERT_TRUE(!memcmp(&a, &(struct perf_event_attr){}, sizeof(a)), spec);
}

#define PT_BASE 0x2401ull /* pt (0), tsc (10), branch (13): intel_pt's defaults with no caps */

void test_aux_pmu_parse(void)
{
	char msgbuf[1024], name[16];

	if (!build_tree())
		goto cleanup;

	if (test__start_subtest("syntax")) {
		ASSERT_TRUE(rc_pmu__is_spec("intel_pt//u"), "intel_pt//u");
		ASSERT_TRUE(rc_pmu__is_spec("intel_pt/cyc,noretcomp/"), "terms");
		ASSERT_TRUE(rc_pmu__is_spec("arm_spe//"), "arm_spe//");
		ASSERT_TRUE(!rc_pmu__is_spec("sched:sched_switch"), "tracepoint");
		ASSERT_TRUE(!rc_pmu__is_spec("u:/bin/bash:readline"), "uprobe");
		ASSERT_TRUE(!rc_pmu__is_spec("p:/usr/lib/x/y"), "colon before slashes");
		ASSERT_TRUE(!rc_pmu__is_spec("/intel_pt/"), "empty name");
		ASSERT_TRUE(!rc_pmu__is_spec("intel_pt/"), "one slash");
		ASSERT_TRUE(!rc_pmu__is_spec("a/b/c/d"), "three slashes");
		ASSERT_TRUE(!rc_pmu__is_spec("syscalls"), "no slash");
		ASSERT_TRUE(!rc_pmu__is_spec(NULL), "NULL");

		ASSERT_OK(rc_pmu__name("intel_pt/cyc/u", name, sizeof(name)), "name");
		ASSERT_STREQ(name, "intel_pt", "name");
		ASSERT_EQ(rc_pmu__name("intel_pt/cyc/u", name, 8), -ENAMETOOLONG, "name too long");
		ASSERT_STREQ(name, "", "name too long");
		ASSERT_EQ(rc_pmu__name("sched:x", name, sizeof(name)), -EINVAL, "name not spec");

		ASSERT_TRUE(rc_pmu__is_aux("intel_pt"), "aux intel_pt");
		ASSERT_TRUE(rc_pmu__is_aux("intel_bts"), "aux intel_bts");
		ASSERT_TRUE(rc_pmu__is_aux("cs_etm"), "aux cs_etm");
		ASSERT_TRUE(rc_pmu__is_aux("arm_spe"), "aux arm_spe");
		ASSERT_TRUE(rc_pmu__is_aux("arm_spe_0"), "aux arm_spe_0");
		ASSERT_TRUE(rc_pmu__is_aux("arm_spe_12"), "aux arm_spe_12");
		ASSERT_TRUE(!rc_pmu__is_aux("arm_spe_"), "aux arm_spe_");
		ASSERT_TRUE(!rc_pmu__is_aux("arm_spe_x"), "aux arm_spe_x");
		ASSERT_TRUE(!rc_pmu__is_aux("software"), "aux software");
		ASSERT_TRUE(!rc_pmu__is_aux("cpu"), "aux cpu");
		ASSERT_TRUE(!rc_pmu__is_aux(NULL), "aux NULL");
	}

	if (test__start_subtest("intel_pt")) {
		expect_ok("intel_pt//", 8, PT_BASE, 0, 0, "");
		expect_ok("intel_pt//u", 8, PT_BASE, 0, 0, "kh");
		expect_ok("intel_pt//k", 8, PT_BASE, 0, 0, "uh");
		expect_ok("intel_pt//h", 8, PT_BASE, 0, 0, "uk");
		expect_ok("intel_pt//uk", 8, PT_BASE, 0, 0, "h");
		expect_ok("intel_pt//ku", 8, PT_BASE, 0, 0, "h");
		expect_ok("intel_pt//uG", 8, PT_BASE, 0, 0, "khH");
		expect_ok("intel_pt//H", 8, PT_BASE, 0, 0, "G");
		/* the defaults are the base the terms change */
		expect_ok("intel_pt/cyc,noretcomp/", 8, PT_BASE | 1 << 1 | 1 << 11, 0, 0, "");
		expect_ok("intel_pt/mtc_period=3,psb_period=2/", 8,
			  PT_BASE | 3ull << 14 | 2ull << 24, 0, 0, "");
		expect_ok("intel_pt/mtc_period=0xf,psb_period=0XA/u", 8,
			  PT_BASE | 0xfull << 14 | 0xaull << 24, 0, 0, "kh");
		expect_ok("intel_pt/tsc=0,branch=0/k", 8, 1, 0, 0, "uh");
		expect_ok("intel_pt/mtc_period=0/", 8, PT_BASE, 0, 0, "");
		expect_ok("intel_pt/cyc=1,mtc=1/", 8, PT_BASE | 1 << 1 | 1 << 9, 0, 0, "");
		/* whole fields first, then the format terms, as perf applies them */
		expect_ok("intel_pt/cyc,config=0x100/", 8, 0x102, 0, 0, "");
		expect_ok("intel_pt/config1=7,config2=0x8000000000000000/", 8, PT_BASE, 7,
			  0x8000000000000000ull, "");
	}

	if (test__start_subtest("intel_pt_caps")) {
		/* perf's intel_pt_default_config(): mtc, mtc_period and psb_period from caps */
		if (!ASSERT_TRUE(put("intel_pt/caps/mtc", "1\n") &&
				     put("intel_pt/caps/mtc_periods", "249\n") &&
				     put("intel_pt/caps/psb_cyc", "1\n") &&
				     put("intel_pt/caps/psb_periods", "3f\n"),
				 "caps"))
			goto cleanup;
		/* 0x249: periods 0, 3, 6, 9: 3 is picked; 0x3f: 0-5: 3 */
		expect_ok("intel_pt//u", 8, PT_BASE | 1 << 9 | 3ull << 14 | 3ull << 24, 0, 0, "kh");
		expect_ok("intel_pt/mtc_period=6,mtc=0/", 8, PT_BASE | 6ull << 14 | 3ull << 24, 0,
			  0, "");
		/* 0x6: periods 1 and 2, none above: the highest below 3 */
		put("intel_pt/caps/mtc_periods", "6\n");
		expect_ok("intel_pt//", 8, PT_BASE | 1 << 9 | 2ull << 14 | 3ull << 24, 0, 0, "");
		/* 0x30: periods 4 and 5, none at or below 3: the lowest */
		put("intel_pt/caps/mtc_periods", "30\n");
		expect_ok("intel_pt//", 8, PT_BASE | 1 << 9 | 4ull << 14 | 3ull << 24, 0, 0, "");
		/* no psb_cyc: no psb_period */
		put("intel_pt/caps/psb_cyc", "0\n");
		expect_ok("intel_pt//", 8, PT_BASE | 1 << 9 | 4ull << 14, 0, 0, "");
		/* no mtc: neither mtc nor the periods that hang on it */
		put("intel_pt/caps/mtc", "0\n");
		put("intel_pt/caps/psb_cyc", "1\n");
		expect_ok("intel_pt//", 8, PT_BASE, 0, 0, "");
		/* without branch's format file, neither pt nor branch (perf wants both) */
		put("intel_pt/caps/mtc", "1\n");
		snprintf(msgbuf, sizeof(msgbuf), "%s/intel_pt/format/branch", root);
		ASSERT_OK(unlink(msgbuf), "unlink branch");
		expect_ok("intel_pt//", 8, 1 << 10 | 1 << 9 | 4ull << 14 | 3ull << 24, 0, 0, "");
		put("intel_pt/format/branch", "config:13\n");
		snprintf(msgbuf, sizeof(msgbuf), "%s/intel_pt/caps", root);
		nftw(msgbuf, rm_one, 4, FTW_DEPTH | FTW_PHYS);
		expect_ok("intel_pt//", 8, PT_BASE, 0, 0, "");
	}

	if (test__start_subtest("others")) {
		/* config:0-1,4-5: a value's bits low to high over 0, 1, 4, 5 */
		expect_ok("made_up/scat=0xf/", 42, 0x33, 0, 0, "");
		expect_ok("made_up/scat=5/", 42, 0x11, 0, 0, "");
		expect_ok("made_up/scat=10/", 42, 0x22, 0, 0, "");
		expect_ok("made_up/scat=3,c1=7/", 42, 0x3, 0x700, 0, "");
		expect_ok("made_up/wide=0xffffffffffffffff/", 42, 0, 0, UINT64_MAX, "");
		expect_ok("made_up/wide=18446744073709551615/", 42, 0, 0, UINT64_MAX, "");
		expect_ok("made_up//", 42, 0, 0, 0, "");
		/* arm_spe// is arm_spe_0; spe_dev// the lowest N (2), not the first by name (10) */
		expect_ok("arm_spe//", 12, 0, 0, 0, "");
		expect_ok("arm_spe/ts_enable,pa_enable,event_filter=0x8000000000000002,"
			  "min_latency=4095/u",
			  12, 3, 0x8000000000000002ull, 0xfff, "kh");
		expect_ok("arm_spe_1//", 13, 0, 0, 0, "");
		expect_ok("spe_dev//", 31, 0, 0, 0, "");
		expect_ok("cs_etm//k", 14, 0, 0, 0, "uh");
		expect_ok("cs_etm/cycacc/k", 14, 1 << 12, 0, 0, "uh");
		/* no format directory: no terms, and none needed */
		expect_ok("software//", 1, 0, 0, 0, "");
		expect_ok("software//u", 1, 0, 0, 0, "kh");
	}

	if (test__start_subtest("refusals")) {
		snprintf(msgbuf, sizeof(msgbuf),
			 "this machine has no PMU 'intel_bts' (none in %s); its PMUs: arm_spe_0, "
			 "arm_spe_1, badtype, bigtype, cs_etm, intel_pt, made_up, software, "
			 "spe_dev_10, spe_dev_2",
			 root);
		expect_err("intel_bts//u", -ENODEV, msgbuf);
		/* a prefix that is not NAME_N is no match */
		snprintf(msgbuf, sizeof(msgbuf),
			 "this machine has no PMU 'arm' (none in %s); its PMUs: arm_spe_0, "
			 "arm_spe_1, badtype, bigtype, cs_etm, intel_pt, made_up, software, "
			 "spe_dev_10, spe_dev_2",
			 root);
		expect_err("arm//", -ENODEV, msgbuf);
		expect_err("intel_pt/foo/", -EINVAL,
			   "PMU 'intel_pt' has no term 'foo'; its terms: branch, cyc, mtc, "
			   "mtc_period, noretcomp, psb_period, pt, tsc");
		expect_err("intel_pt/cyc,foo=1/u", -EINVAL,
			   "PMU 'intel_pt' has no term 'foo'; its terms: branch, cyc, mtc, "
			   "mtc_period, noretcomp, psb_period, pt, tsc");
		expect_err("intel_pt/mtc_period=16/", -EINVAL,
			   "value 16 too large for term 'mtc_period' of PMU 'intel_pt' (4 bits, "
			   "config:14-17): at most 15");
		expect_err("intel_pt/cyc=2/", -EINVAL,
			   "value 2 too large for term 'cyc' of PMU 'intel_pt' (1 bit, config:1): "
			   "at most 1");
		expect_err("made_up/scat=16/", -EINVAL,
			   "value 16 too large for term 'scat' of PMU 'made_up' (4 bits, "
			   "config:0-1,4-5): at most 15");
		expect_err("intel_pt/mtc_period/", -EINVAL,
			   "term 'mtc_period' of PMU 'intel_pt' takes a value (4 bits, "
			   "config:14-17): give mtc_period=N, N at most 15");
		expect_err("intel_pt//x", -EINVAL,
			   "bad modifier 'x' in 'intel_pt//x': ringcap takes u (user), k (kernel), "
			   "h (hypervisor), G (guest), H (host) after the second '/'");
		expect_err(
		    "intel_pt//up", -EINVAL,
		    "bad modifier 'p' in 'intel_pt//up': ringcap takes u (user), k (kernel), "
		    "h (hypervisor), G (guest), H (host) after the second '/'");
		expect_err("intel_pt/cyc=18446744073709551616/", -EINVAL,
			   "bad value '18446744073709551616' for term 'cyc' in "
			   "'intel_pt/cyc=18446744073709551616/': more than 64 bits");
		expect_err("intel_pt/cyc=0x10000000000000000/", -EINVAL,
			   "bad value '0x10000000000000000' for term 'cyc' in "
			   "'intel_pt/cyc=0x10000000000000000/': more than 64 bits");
		expect_err("intel_pt/cyc=-1/", -EINVAL,
			   "bad value '-1' for term 'cyc' in 'intel_pt/cyc=-1/': give a decimal or "
			   "0x hex number");
		expect_err("intel_pt/cyc=/", -EINVAL,
			   "bad value '' for term 'cyc' in 'intel_pt/cyc=/': give a decimal or 0x "
			   "hex number");
		expect_err("intel_pt/cyc=0x/", -EINVAL,
			   "bad value '0x' for term 'cyc' in 'intel_pt/cyc=0x/': give a decimal or "
			   "0x hex number");
		expect_err("intel_pt/cyc= 1/", -EINVAL,
			   "bad value ' 1' for term 'cyc' in 'intel_pt/cyc= 1/': give a decimal or "
			   "0x hex number");
		expect_err("intel_pt/cyc,cyc=0/", -EINVAL,
			   "term 'cyc' given twice in 'intel_pt/cyc,cyc=0/': give it once");
		expect_err("intel_pt/cyc,,tsc/", -EINVAL,
			   "empty term in 'intel_pt/cyc,,tsc/': terms are a comma list of TERM or "
			   "TERM=VALUE");
		expect_err("intel_pt/cyc,/", -EINVAL,
			   "empty term in 'intel_pt/cyc,/': terms are a comma list of TERM or "
			   "TERM=VALUE");
		expect_err("intel_pt/a.b=1/", -EINVAL,
			   "bad term 'a.b' in 'intel_pt/a.b=1/': a term's name is at most "
			   "127 letters, digits, '_' and '-'");
		expect_err(
		    "../x/", -EINVAL,
		    "bad PMU name in '../x/': at most 127 letters, digits, '_', '-' and '.'");
		expect_err("../x//", -EINVAL,
			   "'../x//' is not in the PMU syntax NAME/TERMS/MODS (intel_pt//u)");
		expect_err("..//", -EINVAL,
			   "bad PMU name in '..//': at most 127 letters, digits, '_', '-' and '.'");
		expect_err("intel_pt/config/", -EINVAL,
			   "term 'config' takes a value: give config=N");
		snprintf(msgbuf, sizeof(msgbuf),
			 "PMU 'software' has no format terms (no %s/software/format), so no 'foo': "
			 "give it as software//",
			 root);
		expect_err("software/foo/", -EINVAL, msgbuf);
		expect_err(
		    "made_up/ev1/", -EINVAL,
		    "'ev1' is one of PMU 'made_up''s named events (events/ev1: scat=3), which "
		    "ringcap does not expand: give its terms, made_up/scat=3/; the PMU's "
		    "terms: bigbit, broken, c1, c3, scat, wide");
		snprintf(msgbuf, sizeof(msgbuf),
			 "term 'broken' of PMU 'made_up': %s/made_up/format/broken is not "
			 "FIELD:BITS (such as config:0-7,32): malformed",
			 root);
		expect_err("made_up/broken=1/", -EINVAL, msgbuf);
		snprintf(msgbuf, sizeof(msgbuf),
			 "term 'bigbit' of PMU 'made_up': %s/made_up/format/bigbit is not "
			 "FIELD:BITS (such as config:0-7,32): malformed",
			 root);
		expect_err("made_up/bigbit=1/", -EINVAL, msgbuf);
#ifdef PERF_ATTR_SIZE_VER8
		expect_ok("made_up/c3/", 42, 0, 0, 0, "");
#else
		expect_err("made_up/c3/", -EINVAL,
			   "term 'c3' of PMU 'made_up' sets config3:0, a field this ringcap's "
			   "linux/perf_event.h lacks: build ringcap with newer kernel headers");
#endif
		snprintf(msgbuf, sizeof(msgbuf),
			 "PMU 'badtype''s type, %s/badtype/type, is '0x8', not a 32-bit number",
			 root);
		expect_err("badtype//", -EINVAL, msgbuf);
		snprintf(msgbuf, sizeof(msgbuf),
			 "PMU 'bigtype''s type, %s/bigtype/type, is '4294967296', not a 32-bit "
			 "number",
			 root);
		expect_err("bigtype//", -EINVAL, msgbuf);
		expect_err("sched:sched_switch", -EINVAL,
			   "'sched:sched_switch' is not in the PMU syntax NAME/TERMS/MODS "
			   "(intel_pt//u)");
	}

	if (test__start_subtest("short_err")) {
		struct perf_event_attr a;
		char small[16];

		/* a message cut to the buffer, NUL-terminated; none at all with a NULL one */
		ASSERT_EQ(parse("intel_pt/foo/", &a, small, sizeof(small)), -EINVAL, "small");
		ASSERT_EQ(strlen(small), sizeof(small) - 1, "small");
		ASSERT_EQ(parse("intel_pt/foo/", &a, NULL, 0), -EINVAL, "no buffer");
		ASSERT_EQ(parse("intel_pt//u", &a, NULL, 0), 0, "no buffer ok");
	}
cleanup:
	rm_tree();
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void test_aux_pmu_real(void)
{
	char want[2048] = "", err[2048], *names[256], path[PATH_MAX];
	struct perf_event_attr a;
	struct dirent *de;
	size_t n = 0, i;
	int ret, fd;
	DIR *d;

	if (access(RC_PMU_ROOT "/intel_pt", F_OK) == 0) {
		test__skip("this machine has intel_pt");
		return;
	}
	d = opendir(RC_PMU_ROOT);
	if (!ASSERT_OK_PTR(d, RC_PMU_ROOT))
		return;
	while ((de = readdir(d)) && n < 256)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	snprintf(want, sizeof(want),
		 "this machine has no PMU 'intel_pt' (none in " RC_PMU_ROOT "); its PMUs: ");
	for (i = 0; i < n; i++) {
		if (names[i])
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
				 i ? ", " : "", names[i]);
		free(names[i]);
	}

	/* the refusal ringcap record -e intel_pt//u gives here */
	ret = rc_pmu__parse(NULL, "intel_pt//u", &a, err, sizeof(err));
	ASSERT_EQ(ret, -ENODEV, "intel_pt");
	ASSERT_STREQ(err, want, "intel_pt message");
	ASSERT_HAS(err, "software", "lists software");
	ASSERT_HAS(err, "tracepoint", "lists tracepoint");

	/* PMUs without a format directory: their real type, config 0 */
	ret = rc_pmu__parse(NULL, "software//u", &a, err, sizeof(err));
	if (ASSERT_OK(ret, "software//u")) {
		ASSERT_EQ(a.type, PERF_TYPE_SOFTWARE, "software type");
		ASSERT_EQ(a.config, PERF_COUNT_SW_CPU_CLOCK, "software config");
		ASSERT_EQ(a.exclude_kernel, 1, "software exclude_kernel");
		/* the kernel takes the attr as it is: software//u is cpu-clock, user only */
		fd = syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (ASSERT_TRUE(fd >= 0, "perf_event_open software//u"))
			close(fd);
	}
	ret = rc_pmu__parse(NULL, "tracepoint//", &a, err, sizeof(err));
	if (ASSERT_OK(ret, "tracepoint//"))
		ASSERT_EQ(a.type, PERF_TYPE_TRACEPOINT, "tracepoint type");

	/* a real format directory: uprobe's retprobe (config:0 on x86 and arm64) */
	test__start_subtest("uprobe_format");
	snprintf(path, sizeof(path), RC_PMU_ROOT "/uprobe/format/retprobe");
	if (access(path, F_OK)) {
		test__skip("this kernel has no uprobe PMU with a format directory");
	} else {
		FILE *f = fopen(RC_PMU_ROOT "/uprobe/type", "r");
		unsigned int type = 0;

		ASSERT_TRUE(f && fscanf(f, "%u", &type) == 1, "uprobe type");
		if (f)
			fclose(f);
		ret = rc_pmu__parse(NULL, "uprobe/retprobe/", &a, err, sizeof(err));
		if (ASSERT_OK(ret, "uprobe/retprobe/")) {
			ASSERT_EQ(a.type, type, "uprobe type");
			ASSERT_EQ(a.config, 1, "retprobe");
		}
		ret = rc_pmu__parse(NULL, "uprobe/nosuch/", &a, err, sizeof(err));
		ASSERT_EQ(ret, -EINVAL, "uprobe/nosuch/");
		ASSERT_HAS(err, "PMU 'uprobe' has no term 'nosuch'; its terms: ", "uprobe terms");
		ASSERT_HAS(err, "retprobe", "uprobe terms");
	}
}
