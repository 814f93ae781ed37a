/*
 * tests/host/c/test_pio.c - suite pio's data checks on a fake fw_cfg device
 * (tests/host/c/fake_fw_cfg.c) with the real driver, framework and suite:
 * every fw_cfg case checks the bytes it read against the blob, so one bad
 * byte in the device's blob fails the fwcfg.cases check (and fwcfg.blob).
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_io.h"
#include "tests/host/c/fake_fw_cfg.h"
#include "tests/host/c/fake_console.h"
#include "tests/host/c/fake_tsc.h"
#include "kernel/bench.h"
#include "kernel/console.h"
#include "kernel/suites/suites.h"
#include "kernel/suites/pio.h"
#include "drivers/fw_cfg.h"
#include "drivers/uart16550.h"
#include "arch/x86/tsc.h"
#include "arch/x86/trap.h"
#include "arch/x86/paging.h"
#include <stdio.h>
#include <unistd.h>

#define BLOB_SIZE 65536

static u8 blob[BLOB_SIZE];

/* What the suite's other cases probe with (none of them runs here). */
void trap_expect(u32 vector, u32 insn_len)
{
	(void)vector;
	(void)insn_len;
}

bool trap_caught(void)
{
	return true;
}

int paging_map_mmio(u64 phys, u64 size)
{
	(void)phys;
	(void)size;
	return -ENODEV;
}

int uart_getc_ready(void)
{
	return 's';
}

void uart_tx_drain(void)
{
}

static const char *check_line(const char *name)
{
	char pat[64];
	u32 i;

	snprintf(pat, sizeof(pat), "\"name\":\"%s\"", name);
	for (i = 0; i < fake_console_n; i++)
		if (strstr(fake_console_lines[i], "\"type\":\"check\"") && strstr(fake_console_lines[i], pat))
			return fake_console_lines[i];
	return "";
}

#define CASES "case=fwcfg.in8.*.512,fwcfg.in8.*.4096.split"

/* Writes that take time (1000 cycles each), so that an OUT case's op is
 * long enough to be sampled one op at a time. */
static bool costly_writes;

static void costly_write(u16 port, u8 width, u32 value)
{
	fake_tsc_now += 1000;
	fake_console_fw_cfg_write(port, width, value);
}

/* Boot the suite with these kernel words on a blob whose byte `bad` (or
 * none, -1) is wrong. */
static void run_suite_words(int bad, const char *words)
{
	static struct tm_config cfg;
	char err[160];
	u32 i;

	/* the blob of tools/trapmeterlib/guest/qemu.py make_blob */
	for (i = 0; i < BLOB_SIZE; i++)
		blob[i] = (u8)(i * 7 + (i >> 8) + 0x5a);
	if (bad >= 0)
		blob[bad] ^= 0x40;
	fake_console_n = 0;
	fake_io_reset();
	fake_fw_cfg_reset();
	fake_fw_cfg_read_cycles = 1000;
	fake_io_read_hook = fake_console_fw_cfg_read;
	fake_io_write_hook = costly_writes ? costly_write : fake_console_fw_cfg_write;
	fake_fw_cfg_add("opt/trapmeter/blob", blob, BLOB_SIZE);
	fake_tsc_now = 1;
	fake_tsc_on = true;
	fake_tsc_read_cost = 400;
	tsc.khz = 2000000;
	CHECK(fw_cfg_init());
	cmdline_defaults(&cfg);
	CHECK_EQ_S64(cmdline_parse(words, &cfg, err, sizeof(err)), 0);
	bench_init(&cfg);
	for (i = 0; i < cfg.rounds; i++)      /* all of pio's rounds in a row */
		suite_pio_round(&cfg, i);
}

static void run_suite(int bad)
{
	run_suite_words(bad, CASES);
}

static u32 lines_with(const char *a, const char *b)
{
	u32 i, n = 0;

	for (i = 0; i < fake_console_n; i++)
		n += strstr(fake_console_lines[i], a) && strstr(fake_console_lines[i], b);
	return n;
}

static void test_good_blob(void)
{
	run_suite(-1);
	CHECK_CONTAINS(check_line("fwcfg.cases"), "\"ok\":true");
	CHECK_CONTAINS(check_line("fwcfg.cases"), "4 fw_cfg cases, 0 with wrong data");
	CHECK_CONTAINS(check_line("fwcfg.blob"), "\"ok\":true");
}

/* Byte 300: inside every 512-byte read; 4000: only the 4096-byte split
 * cases (and the blob check) see it. */
static void test_bad_byte_fails_cases(void)
{
	run_suite(300);
	CHECK_CONTAINS(check_line("fwcfg.cases"), "\"ok\":false");
	CHECK_CONTAINS(check_line("fwcfg.cases"), "4 fw_cfg cases, 4 with wrong data");
	CHECK_CONTAINS(check_line("fwcfg.blob"), "\"ok\":false");
	run_suite(4000);
	CHECK_CONTAINS(check_line("fwcfg.cases"), "4 fw_cfg cases, 2 with wrong data");
	run_suite(4095);                       /* the last byte of the split reads */
	CHECK_CONTAINS(check_line("fwcfg.cases"), "4 fw_cfg cases, 2 with wrong data");
}

/* The breakdown's extra sweep points are extended cases: not in the
 * default table (it must fit the default run's 15 s), in suite=all. */
static bool table_has(const char *name)
{
	u32 i;

	for (i = 0; pio_case_name(i); i++)
		if (strcmp(pio_case_name(i), name) == 0)
			return true;
	return false;
}

static void test_breakdown_extras_only_extended(void)
{
	static const char *const extras[] = {
		"pic.in8.single.64", "elcr.out8.rep.2048", "port80.out8.rep.4",
		"acpi.tmr.in32.rep.8192", "fwcfg.in8.single.4096.split",
	};
	u32 i, plain = pio_build_table(false, false);

	CHECK(table_has("pic.in8.single.512"));
	for (i = 0; i < ARRAY_SIZE(extras); i++)
		CHECK(!table_has(extras[i]));
	CHECK_EQ_U64(pio_build_table(false, true) - plain, 23);
	for (i = 0; i < ARRAY_SIZE(extras); i++)
		CHECK(table_has(extras[i]));
}

/* A row's name says what it does: target, direction and bits, method,
 * bytes, ".split" off a page start (edk2's shapes: target.fifo.shape.N);
 * no name twice. */
static void test_names_say_what_rows_do(void)
{
	static const char *const shape_names[] = { "", "loop", "rep", "probe_rep" };
	char want[64];
	u32 i, k;

	CHECK(pio_n_rows > 100);
	for (i = 0; i < pio_n_rows; i++) {
		const struct pio_row *r = &pio_rows[i];

		if (r->kind == PIO_FIFO)
			snprintf(want, sizeof(want), "%s.fifo.%s.%u", r->target,
				 shape_names[r->shape], r->bytes);
		else
			snprintf(want, sizeof(want), "%s.%s%u.%s.%u%s", r->target,
				 r->dir == DIR_IN ? "in" : "out", r->width * 8,
				 bench_method_name(r->method), r->bytes, r->off ? ".split" : "");
		CHECK_STR(r->name, want);
		for (k = 0; k < i; k++)
			CHECKF(strcmp(pio_rows[k].name, r->name) != 0, "%s twice", r->name);
	}
}

/* rounds=2: a result line per case, then a short round record (schema 4);
 * one check over both rounds that counts cases, not case-rounds. */
static void test_rounds_check_once(void)
{
	run_suite_words(4000, CASES " rounds=2");
	CHECK_EQ_U64(lines_with("\"type\":\"result\"", "\"round\":0"), 4);
	CHECK_EQ_U64(lines_with("\"type\":\"result\"", "\"round\":1"), 0);
	CHECK_EQ_U64(lines_with("\"type\":\"round\"", "\"case\":"), 4);
	CHECK_EQ_U64(lines_with("\"type\":\"check\"", "fwcfg.cases"), 1);
	CHECK_CONTAINS(check_line("fwcfg.cases"), "4 fw_cfg cases, 2 with wrong data");
}

/* The second round: its suite line names it, no "case" lines, and round
 * records carry neither the suite nor what round 0 said (the host has
 * it): every COM1 byte costs ~45 us under a software hypervisor. */
static void test_later_rounds_short(void)
{
	u32 i;

	run_suite_words(4000, CASES " rounds=2");
	CHECK_EQ_U64(lines_with("\"type\":\"suite\"", "\"round\":1"), 1);
	CHECK_EQ_U64(lines_with("\"type\":\"suite\"", "\"round\""), 1);
	CHECK_EQ_U64(lines_with("\"type\":\"case\"", "\"case\":"), 4);
	for (i = 0; i < fake_console_n; i++) {
		const char *l = fake_console_lines[i];

		if (!strstr(l, "\"type\":\"round\""))
			continue;
		CHECK(!strstr(l, "\"suite\""));
		CHECK(!strstr(l, "exits_model"));
		CHECK(!strstr(l, "\"stop\":\"stable\""));
		CHECK(!strstr(l, "\"round\":"));
		CHECK_CONTAINS(l, "\"c\":[");
		CHECK_CONTAINS(l, "\"ms\":");
		CHECK(strlen(l) < 200);
	}
}

/* The table is matched against the case globs once per boot: a second
 * and a third round ask about no case again (under PVM each round's
 * matching of the whole table cost about 0.2 s). */
static void test_selection_once_per_boot(void)
{
	u32 one_round;

	bench_selection_queries = 0;
	run_suite_words(-1, CASES);
	one_round = bench_selection_queries;
	CHECK(one_round > 20);
	bench_selection_queries = 0;
	run_suite_words(-1, CASES " rounds=3");
	CHECK_EQ_U64(bench_selection_queries, one_round);
	CHECK_EQ_U64(lines_with("\"type\":\"round\"", "\"case\":"), 8);
}

/* The DMA case's control: the descriptor writes and the poll, no port
 * access and no data moved (the device moves it, inside the trap). */
static void test_dma_control_traps_nothing(void)
{
	static u8 buf[4096];

	run_suite(-1);
	fake_io_reset();
	memset(buf, 0x33, sizeof(buf));
	CHECK_EQ_S64(fw_cfg_dma_read_control(0x20, buf, sizeof(buf)), 0);
	CHECK_EQ_U64(fake_io_total, 0);
	CHECK_EQ_U64(buf[0], 0x33);
	CHECK_EQ_U64(buf[4095], 0x33);
}

/* A DMA transfer the device never completes (this fake bus ignores the
 * doorbell): the poll ends by the clock after its 1000 ms bound, counted
 * by the fake TSC's reads (0.5 ms each here).  An unbounded poll never
 * ends: the alarm kills the test binary instead. */
static void test_dma_that_never_completes(void)
{
	static u8 buf[64];
	u64 t0;

	run_suite(-1);
	fake_io_write_hook = NULL;
	fake_tsc_read_cost = 1000000;           /* 0.5 ms at 2 GHz */
	t0 = fake_tsc_now;
	alarm(20);
	CHECK_EQ_S64(fw_cfg_dma_read(0x20, buf, sizeof(buf)), -ETIMEDOUT);
	alarm(0);
	CHECK(fake_tsc_now - t0 >= 1000ull * 2000000);
	CHECK(fake_tsc_now - t0 <= 1000ull * 2000000 + 2 * 1000000);
	fake_tsc_read_cost = 400;
}

/* What OUT cases write: the blob's pattern to QEMU's ports (debugcon
 * here, from byte 0 of the buffer at every op), all ones to the PIC's mask
 * and what ELCR held (all ones on this fake bus), whatever ran before. */
static void test_out_cases_write_the_pattern(void)
{
	u32 i, k = 0, pic = 0, elcr = 0, wrong = 0;

	costly_writes = true;
	run_suite_words(-1, "case=pic.out8.single.512,debugcon.out8.single.512,"
			"elcr.out8.single.512");
	costly_writes = false;
	for (i = 0; i < fake_io_len; i++) {
		const struct fake_io_access *a = &fake_io_log[i];

		if (!a->out)
			continue;
		if (a->port == 0x402) {
			wrong += a->value != (u8)((k % 512) * 7 + ((k % 512) >> 8) + 0x5a);
			k++;
		} else if (a->port == 0x21) {
			wrong += a->value != 0xff;
			pic++;
		} else if (a->port == 0x4d0) {
			wrong += a->value != 0xff;
			elcr++;
		}
	}
	CHECK(k >= 5 * 512 && k % 512 == 0);
	CHECK(pic >= 5 * 512);
	CHECK(elcr >= 5 * 512);
	CHECK_EQ_U64(wrong, 0);
}

int main(void)
{
	RUN(test_good_blob, "pio: fw_cfg cases read the blob right, checks pass");
	RUN(test_rounds_check_once, "pio: rounds=2 runs each case twice and checks it once");
	RUN(test_later_rounds_short, "pio: rounds after the first send short round records, no case lines");
	RUN(test_selection_once_per_boot, "pio: the case globs are matched once per boot, not once per round");
	RUN(test_names_say_what_rows_do, "pio: every row's name says its target, direction, width, method and size");
	RUN(test_breakdown_extras_only_extended, "pio: the breakdown's extra sweep points are extended cases, not default ones");
	RUN(test_bad_byte_fails_cases, "pio: one wrong blob byte fails the per-case data check");
	RUN(test_out_cases_write_the_pattern, "pio: OUT cases write the pattern, PIC and ELCR what they held");
	RUN(test_dma_that_never_completes, "pio: a fw_cfg DMA that never completes times out after 1000 ms by the clock");
	RUN(test_dma_control_traps_nothing, "pio: the fw_cfg DMA control makes no port access");
	return check_summary();
}
