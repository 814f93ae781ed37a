/*
 * tests/host/c/test_cmdline.c - unit tests for kernel/cmdline.c: defaults,
 * every key and flag, error messages, atomicity on error, case selection.
 */
#include "tests/host/c/check.h"
#include "kernel/cmdline.h"

static struct tm_config cfg;
static char err[256];

/* Parse on top of fresh defaults; returns the parse result. */
static int parse(const char *line)
{
	cmdline_defaults(&cfg);
	memset(err, 'X', sizeof(err));
	return cmdline_parse(line, &cfg, err, sizeof(err));
}

static void test_defaults(void)
{
	CHECK_EQ_S64(parse(""), 0);
	CHECK_STR(err, "");
	CHECK_EQ_U64(cfg.suites, SUITE_PIO | SUITE_EXITS);
	CHECK_EQ_U64(cfg.suites, SUITE_DEFAULT);
	CHECK_EQ_U64(cfg.n_case_globs, 0);
	CHECK_EQ_U64(cfg.samples, 63);
	CHECK(!cfg.quick && !cfg.verbose);
	CHECK(cfg.fault == FAULT_NONE);
	CHECK(cfg.hypercall && cfg.rep && !cfg.sync);
	CHECK(!cfg.lava && !cfg.fail_check);
	CHECK(!cfg.virtio_mergeable);
	CHECK(cfg.table && cfg.controls && cfg.stable);
	CHECK_EQ_U64(cfg.budget_ms, 60);
	CHECK_EQ_S64(parse(NULL), 0);
	CHECK_EQ_S64(parse("  \t\n "), 0);
	CHECK_EQ_U64(cfg.samples, 63);
}

static void test_virtio_path(void)
{
	CHECK_EQ_S64(parse("virtio_path=mergeable"), 0);
	CHECK(cfg.virtio_mergeable);
	CHECK_EQ_S64(parse("virtio_path=mergeable virtio_path=normal"), 0);
	CHECK(!cfg.virtio_mergeable);
}

static void test_suite(void)
{
	CHECK_EQ_S64(parse("suite=pio"), 0);
	CHECK_EQ_U64(cfg.suites, SUITE_PIO);
	CHECK_EQ_S64(parse("suite=exits,ide"), 0);
	CHECK_EQ_U64(cfg.suites, SUITE_EXITS | SUITE_IDE);
	CHECK_EQ_S64(parse("suite=virtio"), 0);
	CHECK_EQ_U64(cfg.suites, SUITE_VIRTIO);
	CHECK_EQ_S64(parse("suite=all"), 0);
	CHECK_EQ_U64(cfg.suites, SUITE_ALL | SUITE_EXTENDED);
	CHECK_EQ_S64(parse("suite=mmio"), 0);
	CHECK_EQ_U64(cfg.suites, SUITE_MMIO);	/* no extended cases */
	CHECK_EQ_S64(parse("suite=pio,pio"), 0);
	CHECK_EQ_U64(cfg.suites, SUITE_PIO);
	CHECK_EQ_S64(parse("suite=ide suite=pio"), 0);	/* last wins */
	CHECK_EQ_U64(cfg.suites, SUITE_PIO);
}

static void test_numbers(void)
{
	CHECK_EQ_S64(parse("samples=3"), 0);
	CHECK_EQ_U64(cfg.samples, 3);
	CHECK_EQ_S64(parse("samples=10000"), 0);
	CHECK_EQ_U64(cfg.samples, 10000);
	CHECK_EQ_S64(parse("samples=101 samples=7"), 0);
	CHECK_EQ_U64(cfg.samples, 7);
	CHECK_EQ_S64(parse("stable=off"), 0);
	CHECK(!cfg.stable);
	CHECK_EQ_S64(parse("budget_ms=10"), 0);
	CHECK_EQ_U64(cfg.budget_ms, 10);
	CHECK_EQ_S64(parse("budget_ms=600000"), 0);
	CHECK_EQ_U64(cfg.budget_ms, 600000);
	CHECK_EQ_S64(parse("budget_ms=0600"), 0);
	CHECK_EQ_U64(cfg.budget_ms, 600);
	CHECK_EQ_S64(parse(""), 0);
	CHECK_EQ_U64(cfg.rounds, 1);
	CHECK_EQ_S64(parse("rounds=4"), 0);
	CHECK_EQ_U64(cfg.rounds, 4);
	CHECK_EQ_S64(parse("rounds=16"), 0);
	CHECK_EQ_U64(cfg.rounds, 16);
}

static void test_bools(void)
{
	static const char *const keys[] = { "quick", "verbose", "hypercall", "rep",
					    "lava", "fail_check", "table", "controls" };
	static const struct { const char *v; bool b; } vals[] = {
		{ "1", true }, { "0", false }, { "on", true }, { "off", false },
		{ "yes", true }, { "no", false }, { "true", true }, { "false", false },
	};
	char line[64];

	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		for (size_t v = 0; v < ARRAY_SIZE(vals); v++) {
			bool *const fields[] = { &cfg.quick, &cfg.verbose,
						 &cfg.hypercall, &cfg.rep,
						 &cfg.lava, &cfg.fail_check,
						 &cfg.table, &cfg.controls };
			bool *field = fields[k];

			snprintf(line, sizeof(line), "%s=%s", keys[k], vals[v].v);
			CHECKF(parse(line) == 0, "%s: %s", line, err);
			CHECKF(*field == vals[v].b, "%s", line);
		}
	}
	CHECK_EQ_S64(parse("quick verbose"), 0);
	CHECK(cfg.quick && cfg.verbose);
	CHECK_EQ_S64(parse("quick quick=off"), 0);
	CHECK(!cfg.quick);
	CHECK_EQ_S64(parse("hypercall=off rep=off"), 0);
	CHECK(!cfg.hypercall && !cfg.rep && !cfg.quick);
	CHECK_EQ_S64(parse("sync=on"), 0);
	CHECK(cfg.sync);
	CHECK(parse("sync=maybe") != 0);
}

static void test_fault(void)
{
	static const struct { const char *v; enum cmdline_fault f; } faults[] = {
		{ "fault=ud", FAULT_UD }, { "fault=gp", FAULT_GP },
		{ "fault=pf", FAULT_PF }, { "fault=de", FAULT_DE },
		{ "fault=bp", FAULT_BP }, { "fault=none", FAULT_NONE },
		{ "fault=timer", FAULT_TIMER }, { "fault=ple", FAULT_PLE },
		{ "fault=selfipi", FAULT_SELF_IPI },
	};

	for (size_t i = 0; i < ARRAY_SIZE(faults); i++) {
		CHECKF(parse(faults[i].v) == 0, "%s", faults[i].v);
		CHECKF(cfg.fault == faults[i].f, "%s", faults[i].v);
	}
	CHECK_EQ_S64(parse("fault=gp fault=de"), 0);
	CHECK(cfg.fault == FAULT_DE);
}

static void test_case_key(void)
{
	CHECK_EQ_S64(parse("case=pio_*,exit_cpuid,ide_?[0-9]"), 0);
	CHECK_EQ_U64(cfg.n_case_globs, 3);
	CHECK_STR(cfg.case_globs[0], "pio_*");
	CHECK_STR(cfg.case_globs[1], "exit_cpuid");
	CHECK_STR(cfg.case_globs[2], "ide_?[0-9]");
	for (u32 i = 0; i < cfg.n_case_globs; i++)
		CHECK(cfg.case_globs[i] >= cfg.case_buf &&
		      cfg.case_globs[i] < cfg.case_buf + sizeof(cfg.case_buf));
	CHECK(cmdline_case_selected(&cfg, "pio_outb"));
	CHECK(cmdline_case_selected(&cfg, "exit_cpuid"));
	CHECK(cmdline_case_selected(&cfg, "ide_x7"));
	CHECK(!cmdline_case_selected(&cfg, "ide_x"));
	CHECK(!cmdline_case_selected(&cfg, "exit_cpuid2"));
	CHECK(!cmdline_case_selected(&cfg, "virtio_notify"));

	CHECK_EQ_S64(parse("case=a case=b,c"), 0);	/* last wins */
	CHECK_EQ_U64(cfg.n_case_globs, 2);
	CHECK_STR(cfg.case_globs[0], "b");
	CHECK_STR(cfg.case_globs[1], "c");
	CHECK_EQ_S64(parse("case=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32"), 0);
	CHECK_EQ_U64(cfg.n_case_globs, 32);
	CHECK_STR(cfg.case_globs[31], "32");

	CHECK_EQ_S64(parse(""), 0);
	CHECK(cmdline_case_selected(&cfg, "anything"));
}

/* Every error names the key (or the word) and says what is accepted. */
static void test_errors(void)
{
	static const struct {
		const char *line;
		const char *want;
	} bad[] = {
		{ "foo=1", "unknown key 'foo'" },
		{ "=1", "unknown key ''" },
		{ "Samples=5", "unknown key 'Samples'" },
		{ "rounds=0", "bad value '0' for key 'rounds' (expected 1..16)" },
		{ "rounds=17", "bad value '17' for key 'rounds' (expected 1..16)" },
		{ "samples=2", "bad value '2' for key 'samples' (expected 3..10000)" },
		{ "samples=10001", "bad value '10001' for key 'samples' (expected 3..10000)" },
		{ "samples=", "bad value '' for key 'samples' (expected 3..10000)" },
		{ "samples=x", "bad value 'x' for key 'samples' (expected 3..10000)" },
		{ "samples=5x", "bad value '5x' for key 'samples'" },
		{ "samples=-5", "bad value '-5' for key 'samples'" },
		{ "samples=99999999999999999999999", "for key 'samples'" },
		{ "suite=pio,foo", "bad value 'pio,foo' for key 'suite' (expected pio, exits, ide, virtio, mmio, dma, firmware, all)" },
		{ "suite=", "bad value '' for key 'suite' (expected pio, exits, ide, virtio, mmio, dma, firmware, all)" },
		{ "suite=pio,", "for key 'suite' (expected pio, exits, ide, virtio, mmio, dma, firmware, all)" },
		{ "suite=,pio", "for key 'suite'" },
		{ "suite=PIO", "for key 'suite'" },
		{ "case=", "bad value '' for key 'case' (expected " },
		{ "case=a,,b", "bad value 'a,,b' for key 'case'" },
		{ "case=a,", "for key 'case'" },
		{ "case=,a", "for key 'case'" },
		{ "case=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33",
		  "for key 'case' (expected comma list of 1..32 globs" },
		{ "quick=maybe", "bad value 'maybe' for key 'quick' (expected on, off, yes, no, true, false, 1, 0)" },
		{ "verbose=", "bad value '' for key 'verbose' (expected on, off" },
		{ "hypercall=2", "bad value '2' for key 'hypercall' (expected on, off" },
		{ "rep=ON", "bad value 'ON' for key 'rep' (expected on, off" },
		{ "fault=xx", "bad value 'xx' for key 'fault' (expected none, ud, gp, pf, de, bp, timer)" },
		{ "fault=", "bad value '' for key 'fault'" },
		{ "budget_ms=9", "bad value '9' for key 'budget_ms' (expected 10..600000)" },
		{ "budget_ms=600001", "bad value '600001' for key 'budget_ms' (expected 10..600000)" },
		{ "budget_ms=", "for key 'budget_ms' (expected 10..600000)" },
		{ "bogus", "unknown flag 'bogus' (expected quick, verbose or key=value)" },
		{ "quick verbose hypercall", "unknown flag 'hypercall'" },
		{ "samples=5 samples=1", "bad value '1' for key 'samples'" },
		{ "lava=maybe", "bad value 'maybe' for key 'lava' (expected on, off" },
		{ "fail_check=", "bad value '' for key 'fail_check' (expected on, off" },
		{ "lava", "unknown flag 'lava'" },
		{ "virtio_path=vector", "bad value 'vector' for key 'virtio_path' (expected normal, mergeable)" },
		{ "virtio_path=", "for key 'virtio_path' (expected normal, mergeable)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECKF(parse(bad[i].line) == -EINVAL, "'%s' accepted", bad[i].line);
		CHECKF(strstr(err, bad[i].want) != NULL, "'%s': err \"%s\" lacks \"%s\"",
		       bad[i].line, err, bad[i].want);
		CHECKF(strlen(err) < sizeof(err), "'%s': err not terminated", bad[i].line);
	}
	CHECK_EQ_S64(parse("foo=1"), -EINVAL);
	CHECK_CONTAINS(err, "expected suite, case, samples, quick, verbose, fault, hypercall, rep, sync, budget_ms");
}

static void test_error_buffers(void)
{
	char small[8];

	cmdline_defaults(&cfg);
	memset(small, 'X', sizeof(small));
	CHECK_EQ_S64(cmdline_parse("foo=1", &cfg, small, sizeof(small)), -EINVAL);
	CHECK_STR(small, "unknown");
	CHECK_EQ_S64(cmdline_parse("foo=1", &cfg, NULL, 0), -EINVAL);
	small[0] = 'Z';
	CHECK_EQ_S64(cmdline_parse("foo=1", &cfg, small, 0), -EINVAL);
	CHECK(small[0] == 'Z');
	memset(small, 'X', sizeof(small));
	CHECK_EQ_S64(cmdline_parse("quick", &cfg, small, sizeof(small)), 0);
	CHECK_STR(small, "");
}

static void test_unchanged_on_error(void)
{
	struct tm_config before;
	const char *line = "samples=99 case=x* quick suite=ide bogus=1";
	char copy[128];

	cmdline_defaults(&cfg);
	CHECK_EQ_S64(cmdline_parse("case=keep,me samples=5", &cfg, err, sizeof(err)), 0);
	memcpy(&before, &cfg, sizeof(cfg));
	strcpy(copy, line);
	CHECK_EQ_S64(cmdline_parse(copy, &cfg, err, sizeof(err)), -EINVAL);
	CHECK_STR(copy, line);			/* input untouched */
	CHECK(memcmp(&before, &cfg, sizeof(cfg)) == 0);
	CHECK_STR(cfg.case_globs[0], "keep");
	CHECK_STR(cfg.case_globs[1], "me");
	CHECK_EQ_U64(cfg.samples, 5);

	/* a successful parse keeps earlier globs pointing into cfg itself */
	CHECK_EQ_S64(cmdline_parse("verbose", &cfg, err, sizeof(err)), 0);
	CHECK(cfg.case_globs[0] == cfg.case_buf);
	CHECK_STR(cfg.case_globs[1], "me");
	CHECK(cfg.verbose && cfg.samples == 5);
}

static void test_full_line(void)
{
	const char *line = "\tsuite=pio,virtio  case=pio_*\nsamples=101 quick=no "
			   "verbose fault=pf hypercall=off rep=0 budget_ms=5000 ";
	char copy[256];

	strcpy(copy, line);
	cmdline_defaults(&cfg);
	CHECKF(cmdline_parse(copy, &cfg, err, sizeof(err)) == 0, "%s", err);
	CHECK_STR(copy, line);
	CHECK_EQ_U64(cfg.suites, SUITE_PIO | SUITE_VIRTIO);
	CHECK_EQ_U64(cfg.n_case_globs, 1);
	CHECK_STR(cfg.case_globs[0], "pio_*");
	CHECK_EQ_U64(cfg.samples, 101);
	CHECK(!cfg.quick && cfg.verbose && cfg.fault == FAULT_PF);
	CHECK(!cfg.hypercall && !cfg.rep);
	CHECK_EQ_U64(cfg.budget_ms, 5000);
}

static void test_case_too_long(void)
{
	char line[700] = "case=";

	memset(line + 5, 'a', CMDLINE_CASE_MAX - 1);
	line[CMDLINE_CASE_MAX + 4] = '\0';
	CHECK_EQ_S64(parse(line), 0);		/* 511 chars fit */
	CHECK_EQ_U64(strlen(cfg.case_globs[0]), CMDLINE_CASE_MAX - 1);
	line[CMDLINE_CASE_MAX + 4] = 'a';
	line[CMDLINE_CASE_MAX + 5] = '\0';
	CHECK_EQ_S64(parse(line), -EINVAL);	/* 512 do not */
	CHECK_CONTAINS(err, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' for key 'case'");
	memset(line, 'k', 300);
	line[300] = '\0';
	CHECK_EQ_S64(parse(line), -EINVAL);	/* long words are cut too */
	CHECK_CONTAINS(err, "kkk...' (expected quick, verbose or key=value)");
	CHECK(strlen(err) < 160);
}

static void test_lava_requested(void)
{
	static const struct { const char *line; bool on; } cases[] = {
		{ NULL, false }, { "", false }, { "quick", false },
		{ "lava=on", true }, { "lava=1 quick", true },
		{ "lava=off", false }, { "lava=on lava=off", false },
		{ "lava=off lava=yes", true },
		/* a bad word elsewhere must not hide lava=on */
		{ "lava=on foo=1", true }, { "bogus\tlava=true\n", true },
		/* a bad lava value keeps the value before it */
		{ "lava=on lava=maybe", true }, { "lava=maybe", false },
		{ "lava=", false }, { "xlava=on", false }, { "lava=onx", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		CHECKF(cmdline_lava_requested(cases[i].line) == cases[i].on,
		       "'%s'", cases[i].line ? cases[i].line : "(null)");
	/* agrees with the parser whenever the line parses */
	CHECK_EQ_S64(parse("suite=pio lava=on quick"), 0);
	CHECK(cfg.lava && cmdline_lava_requested("suite=pio lava=on quick"));
	CHECK_EQ_S64(parse("fail_check=on"), 0);
	CHECK(cfg.fail_check && !cfg.lava);
}

/* A glob that matches no offered case is named, with the closest names. */
static void test_unmatched_glob(void)
{
	static const char *const offered[] = {
		"fwcfg.in8.single.512", "fwcfg.in8.rep.512", "debugcon.out8.rep.512", "cpuid",
	};

	CHECK_EQ_S64(parse("case=fwcfg.in8.*,fwcfg.in9.*"), 0);
	cmdline_case_reset();
	for (size_t i = 0; i < ARRAY_SIZE(offered); i++)
		cmdline_case_selected(&cfg, offered[i]);
	CHECK_EQ_S64(cmdline_unmatched_globs(&cfg, err, sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, "case=fwcfg.in9.* matches no case");
	CHECK_CONTAINS(err, "(close: fwcfg.in8.single.512, fwcfg.in8.rep.512");
	/* every glob met a case: fine */
	CHECK_EQ_S64(parse("case=fwcfg.in8.*,cpu?d"), 0);
	cmdline_case_reset();
	for (size_t i = 0; i < ARRAY_SIZE(offered); i++)
		cmdline_case_selected(&cfg, offered[i]);
	CHECK_EQ_S64(cmdline_unmatched_globs(&cfg, err, sizeof(err)), 0);
	/* a whole suite skipped: its names were never offered, no verdict */
	CHECK_EQ_S64(parse("case=kick.*"), 0);
	cmdline_case_reset();
	cmdline_case_selected(&cfg, "cpuid");
	cmdline_note_suite_skipped();
	CHECK_EQ_S64(cmdline_unmatched_globs(&cfg, err, sizeof(err)), 0);
}

int main(void)
{
	RUN(test_defaults, "cmdline: defaults and empty lines");
	RUN(test_virtio_path, "cmdline: virtio_path=normal|mergeable, last wins");
	RUN(test_suite, "cmdline: suite= lists and suite names");
	RUN(test_numbers, "cmdline: samples= and budget_ms= ranges");
	RUN(test_bools, "cmdline: boolean keys and flags");
	RUN(test_fault, "cmdline: fault=");
	RUN(test_case_key, "cmdline: case= globs and case selection");
	RUN(test_errors, "cmdline: error messages name key and accepted values");
	RUN(test_error_buffers, "cmdline: err buffer truncation and NULL");
	RUN(test_unchanged_on_error, "cmdline: config untouched on error, input const");
	RUN(test_full_line, "cmdline: full command line");
	RUN(test_case_too_long, "cmdline: case= length limit");
	RUN(test_lava_requested, "cmdline: lava= found even in a bad line");
	RUN(test_unmatched_glob, "cmdline: a glob matching no case is named with close names");
	return check_summary();
}
