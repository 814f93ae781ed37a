/*
 * tests/host/c/test_ide_bm.c - drivers/ide_bm.c on the host, against a fake
 * bus-master function behind tests/host/c/fake_io.h: the port sequence of a
 * READ DMA and a WRITE DMA in the spec's order (PRD pointer, clear
 * ERROR/INTR, direction, task file, START, status polls, stop, drive
 * status), the RAM control making the same accesses with no port touched,
 * an engine that never stops ending in -ETIMEDOUT once the fake clock
 * passes the bound, and a drive error after the transfer named.
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_io.h"
#include "tests/host/c/fake_tsc.h"
#include "drivers/ide_bm.h"
#include "arch/x86/tsc.h"

#define BM_BASE     0xc040
#define CMD_BASE    ATA_PRIMARY_CMD
#define ACTIVE_POLLS 3
#define POLL_CYCLES 100000      /* fake time one status read takes */

static struct ata_channel ch = { .cmd = CMD_BASE, .ctl = ATA_PRIMARY_CTL, .index = 0 };
static struct ata_dev disk = { .ch = &ch, .dev = 0, .name = "ata0.0" };
static const struct ide_bm bm = { .base = BM_BASE };
static u8 bm_cmd, bm_status;
static u32 polls_left;
static bool stuck, drive_error;

static u32 dev_read(u16 port, u8 width)
{
	(void)width;
	if (port == BM_BASE + IDE_BM_STATUS) {
		fake_tsc_now += POLL_CYCLES;
		if ((bm_status & IDE_BM_ST_ACTIVE) && !stuck && !polls_left--)
			bm_status &= (u8)~IDE_BM_ST_ACTIVE;
		return bm_status;
	}
	if (port == CMD_BASE + ATA_REG_STATUS)
		return drive_error ? ATA_SR_DRDY | ATA_SR_ERR : ATA_SR_DRDY;
	return 0xff;
}

static void dev_write(u16 port, u8 width, u32 v)
{
	(void)width;
	if (port == BM_BASE + IDE_BM_STATUS)
		bm_status &= (u8)~(v & (IDE_BM_ST_ERROR | IDE_BM_ST_INTR));
	if (port == BM_BASE + IDE_BM_CMD) {
		if ((v & IDE_BM_CMD_START) && !(bm_cmd & IDE_BM_CMD_START))
			bm_status |= IDE_BM_ST_ACTIVE;
		bm_cmd = (u8)v;
	}
}

static void fresh(void)
{
	fake_io_reset();
	fake_io_read_hook = dev_read;
	fake_io_write_hook = dev_write;
	fake_tsc_on = true;
	fake_tsc_now = 1;
	tsc.khz = 1000000;              /* 1 GHz: 1 ms = 1e6 cycles */
	bm_cmd = 0;
	bm_status = IDE_BM_ST_INTR;     /* left from an earlier command */
	polls_left = ACTIVE_POLLS;
	stuck = drive_error = false;
	ide_bm_count.accesses = ide_bm_count.polls = 0;
}

static void check_access(u32 i, u16 port, bool out, u32 value)
{
	CHECKF(fake_io_log[i].port == port && fake_io_log[i].out == out &&
	       (!out || fake_io_log[i].value == value),
	       "access %u: port 0x%x %s 0x%x, want 0x%x %s 0x%x", i, fake_io_log[i].port,
	       fake_io_log[i].out ? "out" : "in", fake_io_log[i].value, port,
	       out ? "out" : "in", value);
}

/* The fixed part: PRDT, status clear, direction, drive ready, task file. */
static u32 check_setup(u8 dir, u8 command, u32 lba, u32 count)
{
	static const u8 regs[] = { ATA_REG_FEATURES, ATA_REG_COUNT, ATA_REG_LBA0,
				   ATA_REG_LBA1, ATA_REG_LBA2, ATA_REG_DEVICE, ATA_REG_COMMAND };
	u32 values[] = { 0, count & 0xff, lba & 0xff, (lba >> 8) & 0xff, (lba >> 16) & 0xff,
			 ATA_DEV_OBS | ATA_DEV_LBA | ((lba >> 24) & 0xf), command };
	u32 i, n = 0;

	check_access(n++, BM_BASE + IDE_BM_PRDT, true, 0x12340);
	check_access(n++, BM_BASE + IDE_BM_STATUS, true, IDE_BM_ST_ERROR | IDE_BM_ST_INTR);
	check_access(n++, BM_BASE + IDE_BM_CMD, true, dir);
	check_access(n++, CMD_BASE + ATA_REG_STATUS, false, 0);
	for (i = 0; i < ARRAY_SIZE(regs); i++)
		check_access(n++, CMD_BASE + regs[i], true, values[i]);
	check_access(n++, BM_BASE + IDE_BM_CMD, true, dir | IDE_BM_CMD_START);
	return n;
}

static void test_read_sequence(void)
{
	u32 n, i;

	fresh();
	CHECK_EQ_S64(ide_bm_transfer(&bm, &disk, false, 0x123456, 8, 0x12340, 100, false), 0);
	n = check_setup(IDE_BM_CMD_TO_MEM, ATA_CMD_READ_DMA, 0x123456, 8);
	for (i = 0; i <= ACTIVE_POLLS; i++)
		check_access(n++, BM_BASE + IDE_BM_STATUS, false, 0);
	check_access(n++, BM_BASE + IDE_BM_CMD, true, IDE_BM_CMD_TO_MEM);   /* stop */
	check_access(n++, CMD_BASE + ATA_REG_STATUS, false, 0);
	CHECK_EQ_U64(fake_io_len, n);
	CHECK_EQ_U64(ide_bm_count.accesses, n);
	CHECK_EQ_U64(ide_bm_count.polls, ACTIVE_POLLS + 1);
}

static void test_write_sequence(void)
{
	fresh();
	CHECK_EQ_S64(ide_bm_transfer(&bm, &disk, true, 7, 128, 0x12340, 100, false), 0);
	check_setup(0, ATA_CMD_WRITE_DMA, 7, 128);
}

/* The control: the same accesses counted, none reaching a port. */
static void test_ram_control(void)
{
	fresh();
	CHECK_EQ_S64(ide_bm_transfer(&bm, &disk, false, 0, 1, 0x12340, 100, true), 0);
	CHECK_EQ_U64(fake_io_total, 0);
	CHECK_EQ_U64(ide_bm_count.accesses, 15);     /* 11 set-up, START, 1 poll, stop, status */
}

static void test_engine_stuck_times_out(void)
{
	fresh();
	stuck = true;
	CHECK_EQ_S64(ide_bm_transfer(&bm, &disk, false, 0, 1, 0x12340, 50, false), -ETIMEDOUT);
	CHECK_CONTAINS(ide_bm_last_error(), "still active after 50 ms");
	/* bounded by time: 50 ms at 1 GHz is 5e7 cycles, 500 polls here */
	CHECK(ide_bm_count.polls >= 500 && ide_bm_count.polls <= 502);
}

static void test_errors_named(void)
{
	fresh();
	drive_error = true;
	CHECK_EQ_S64(ide_bm_transfer(&bm, &disk, false, 0, 1, 0x12340, 50, false), -EIO);
	/* a stale ERR before the command is allowed; after it, it fails */
	CHECK_CONTAINS(ide_bm_last_error(), "DMA ended with bus-master status 0x00, drive status 0x41");
	fresh();
	CHECK_EQ_S64(ide_bm_transfer(&bm, &disk, false, 0, 0, 0x12340, 50, false), -ERANGE);
	CHECK_EQ_S64(ide_bm_transfer(&bm, &disk, false, 0, 1, 0x12342, 50, false), -EINVAL);
}

int main(void)
{
	RUN(test_read_sequence, "ide_bm: READ DMA port sequence");
	RUN(test_write_sequence, "ide_bm: WRITE DMA direction and command");
	RUN(test_ram_control, "ide_bm: the RAM control touches no port");
	RUN(test_engine_stuck_times_out, "ide_bm: a stuck engine times out by the clock");
	RUN(test_errors_named, "ide_bm: drive error, bad count, unaligned table");
	return check_summary();
}
