/*
 * kernel/suites/pio_table.c - every case of suite pio, one row each, in
 * run order (see pio.h).  The default run takes the QUICK and FULL rows
 * (quick: QUICK only), an extended run also the MORE and EXT ones.
 * tests/host/c/test_pio.c checks that every name says what its row does.
 */
#include "kernel/suites/pio.h"
#include "kernel/bench.h"
#include "drivers/platform.h"
#include "drivers/fw_cfg.h"
#include "drivers/acpi_pm.h"

#define SPLIT_OFFSET   (BENCH_PAGE - 512)   /* 512 B before a page end */
#define EXT_UNITS      512

/* fw_cfg reads of the runner's blob (DMA: through the DMA interface) */
#define FWCFG(name, m, bytes, off, set) \
	{ name, "fwcfg", FW_CFG_PORT_DATA, PIO_FWCFG, HANDLER_USER, DIR_IN, 1, \
	  METHOD_##m, PIO_##set, SHAPE_NONE, bytes, off }
#define PORT(name, target, port, h, d, width, m, bytes, set) \
	{ name, target, port, PIO_PORT, HANDLER_##h, DIR_##d, width, \
	  METHOD_##m, PIO_##set, SHAPE_NONE, bytes, 0 }
#define ACPI(name, target, reg, width, m, bytes, set) \
	{ name, target, reg, PIO_ACPI, HANDLER_USER, DIR_IN, width, \
	  METHOD_##m, PIO_##set, SHAPE_NONE, bytes, 0 }
/* edk2's FIFO code shapes (kernel/suites/edk2_fifo.h) over 512 B */
#define FIFO(name, target, port, d, shape) \
	{ name, target, port, PIO_FIFO, HANDLER_USER, DIR_##d, 1, \
	  SHAPE_##shape == SHAPE_LOOP ? METHOD_SINGLE : METHOD_REP, PIO_EXT, \
	  SHAPE_##shape, EXT_UNITS, 0 }
#define COALESCED(name, target, port, width, m, bytes) \
	{ name, target, port, PIO_COALESCED, HANDLER_COALESCED, DIR_OUT, width, \
	  METHOD_##m, PIO_EXT, SHAPE_NONE, bytes, 0 }
/* pci-testdev I/O test `test` (0: no eventfd, QEMU; then ioeventfds) */
#define PTD(name, target, test, m) \
	{ name, target, 0, PIO_PTD, test ? HANDLER_IOEVENTFD : HANDLER_USER, DIR_OUT, 1, \
	  METHOD_##m, PIO_EXT, test, EXT_UNITS, 0 }

const struct pio_row pio_rows[] = {
	/* fw_cfg by every method; a single loop above 4 KiB is extended: it
	 * shows the per-exit figure the 4 KiB loop already shows, at up to 16x
	 * its time (the 64 KiB loop took 2.1 s of an 18 s default run under
	 * KVM) */
	FWCFG("fwcfg.in8.single.1",           SINGLE,  1,      0,               FULL),
	FWCFG("fwcfg.in8.rep.1",              REP,     1,      0,               FULL),
	FWCFG("fwcfg.in8.dma.1",              DMA,     1,      0,               FULL),
	FWCFG("fwcfg.in8.single.16",          SINGLE,  16,     0,               FULL),
	FWCFG("fwcfg.in8.rep.16",             REP,     16,     0,               FULL),
	FWCFG("fwcfg.in8.dma.16",             DMA,     16,     0,               FULL),
	FWCFG("fwcfg.in8.single.512",         SINGLE,  512,    0,               FULL),
	FWCFG("fwcfg.in8.rep.512",            REP,     512,    0,               FULL),
	FWCFG("fwcfg.in8.dma.512",            DMA,     512,    0,               FULL),
	FWCFG("fwcfg.in8.single.1024",        SINGLE,  1024,   0,               FULL),
	FWCFG("fwcfg.in8.rep.1024",           REP,     1024,   0,               FULL),
	FWCFG("fwcfg.in8.dma.1024",           DMA,     1024,   0,               FULL),
	FWCFG("fwcfg.in8.single.2048",        SINGLE,  2048,   0,               FULL),
	FWCFG("fwcfg.in8.rep.2048",           REP,     2048,   0,               FULL),
	FWCFG("fwcfg.in8.dma.2048",           DMA,     2048,   0,               FULL),
	FWCFG("fwcfg.in8.single.4096",        SINGLE,  4096,   0,               QUICK),
	FWCFG("fwcfg.in8.rep.4096",           REP,     4096,   0,               QUICK),
	FWCFG("fwcfg.in8.dma.4096",           DMA,     4096,   0,               QUICK),
	FWCFG("fwcfg.in8.rep.16384",          REP,     16384,  0,               FULL),
	FWCFG("fwcfg.in8.dma.16384",          DMA,     16384,  0,               FULL),
	FWCFG("fwcfg.in8.rep.65536",          REP,     65536,  0,               FULL),
	FWCFG("fwcfg.in8.dma.65536",          DMA,     65536,  0,               FULL),
	/* the same reads into a buffer 512 B before a page end; more split
	 * reads, rep ins only: the exit a page split adds at the same size
	 * tells the breakdown's per-exit term from its per-unit term
	 * (tools/trapmeterlib/stats/breakdown.py); a single loop takes one exit per
	 * unit wherever its buffer lies, so its split twin is extended: it
	 * showed what fwcfg.in8.single.4096 shows, at 0.35 s of a default run */
	FWCFG("fwcfg.in8.single.4096.split",  SINGLE,  4096,   SPLIT_OFFSET,    MORE),
	FWCFG("fwcfg.in8.rep.4096.split",     REP,     4096,   SPLIT_OFFSET,    QUICK),
	FWCFG("fwcfg.in8.rep.1024.split",     REP,     1024,   SPLIT_OFFSET,    FULL),
	FWCFG("fwcfg.in8.rep.2048.split",     REP,     2048,   SPLIT_OFFSET,    FULL),
	FWCFG("fwcfg.in8.rep.16384.split",    REP,     16384,  SPLIT_OFFSET,    FULL),
	/* 16 B across a page end: 3 exits where 16 B take 2 */
	FWCFG("fwcfg.in8.rep.16.split",       REP,     16,     BENCH_PAGE - 8,  FULL),
	/* QEMU's ports: small sizes too, where a string instruction's own
	 * set-up shows beside its exits (4 B: a breakdown point) */
	PORT("debugcon.out8.single.1",     "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  SINGLE,  1,     FULL),
	PORT("debugcon.out8.rep.1",        "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  REP,     1,     FULL),
	PORT("debugcon.out8.single.4",     "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  SINGLE,  4,     MORE),
	PORT("debugcon.out8.rep.4",        "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  REP,     4,     MORE),
	PORT("debugcon.out8.single.16",    "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  SINGLE,  16,    FULL),
	PORT("debugcon.out8.rep.16",       "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  REP,     16,    FULL),
	PORT("debugcon.out8.single.64",    "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  SINGLE,  64,    FULL),
	PORT("debugcon.out8.rep.64",       "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  REP,     64,    FULL),
	PORT("debugcon.out8.single.512",   "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  SINGLE,  512,   QUICK),
	PORT("debugcon.out8.rep.512",      "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  REP,     512,   QUICK),
	PORT("debugcon.out8.single.4096",  "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  SINGLE,  4096,  FULL),
	PORT("debugcon.out8.rep.4096",     "debugcon",  DEBUGCON_PORT,   USER,    OUT,  1,  REP,     4096,  FULL),
	PORT("port80.out8.single.1",       "port80",    POST_PORT,       USER,    OUT,  1,  SINGLE,  1,     FULL),
	PORT("port80.out8.rep.1",          "port80",    POST_PORT,       USER,    OUT,  1,  REP,     1,     FULL),
	PORT("port80.out8.single.4",       "port80",    POST_PORT,       USER,    OUT,  1,  SINGLE,  4,     MORE),
	PORT("port80.out8.rep.4",          "port80",    POST_PORT,       USER,    OUT,  1,  REP,     4,     MORE),
	PORT("port80.out8.single.16",      "port80",    POST_PORT,       USER,    OUT,  1,  SINGLE,  16,    FULL),
	PORT("port80.out8.rep.16",         "port80",    POST_PORT,       USER,    OUT,  1,  REP,     16,    FULL),
	PORT("port80.out8.single.64",      "port80",    POST_PORT,       USER,    OUT,  1,  SINGLE,  64,    FULL),
	PORT("port80.out8.rep.64",         "port80",    POST_PORT,       USER,    OUT,  1,  REP,     64,    FULL),
	PORT("port80.out8.single.512",     "port80",    POST_PORT,       USER,    OUT,  1,  SINGLE,  512,   QUICK),
	PORT("port80.out8.rep.512",        "port80",    POST_PORT,       USER,    OUT,  1,  REP,     512,   QUICK),
	PORT("port80.out8.single.4096",    "port80",    POST_PORT,       USER,    OUT,  1,  SINGLE,  4096,  FULL),
	PORT("port80.out8.rep.4096",       "port80",    POST_PORT,       USER,    OUT,  1,  REP,     4096,  FULL),
	PORT("port80.out16.single.4",      "port80",    POST_PORT,       USER,    OUT,  2,  SINGLE,  4,     MORE),
	PORT("port80.out16.rep.4",         "port80",    POST_PORT,       USER,    OUT,  2,  REP,     4,     MORE),
	PORT("port80.out16.single.16",     "port80",    POST_PORT,       USER,    OUT,  2,  SINGLE,  16,    FULL),
	PORT("port80.out16.rep.16",        "port80",    POST_PORT,       USER,    OUT,  2,  REP,     16,    FULL),
	PORT("port80.out16.single.64",     "port80",    POST_PORT,       USER,    OUT,  2,  SINGLE,  64,    FULL),
	PORT("port80.out16.rep.64",        "port80",    POST_PORT,       USER,    OUT,  2,  REP,     64,    FULL),
	PORT("port80.out16.single.512",    "port80",    POST_PORT,       USER,    OUT,  2,  SINGLE,  512,   QUICK),
	PORT("port80.out16.rep.512",       "port80",    POST_PORT,       USER,    OUT,  2,  REP,     512,   QUICK),
	PORT("port80.out16.single.4096",   "port80",    POST_PORT,       USER,    OUT,  2,  SINGLE,  4096,  FULL),
	PORT("port80.out16.rep.4096",      "port80",    POST_PORT,       USER,    OUT,  2,  REP,     4096,  FULL),
	PORT("port80.out32.single.4",      "port80",    POST_PORT,       USER,    OUT,  4,  SINGLE,  4,     MORE),
	PORT("port80.out32.rep.4",         "port80",    POST_PORT,       USER,    OUT,  4,  REP,     4,     MORE),
	PORT("port80.out32.single.16",     "port80",    POST_PORT,       USER,    OUT,  4,  SINGLE,  16,    FULL),
	PORT("port80.out32.rep.16",        "port80",    POST_PORT,       USER,    OUT,  4,  REP,     16,    FULL),
	PORT("port80.out32.single.64",     "port80",    POST_PORT,       USER,    OUT,  4,  SINGLE,  64,    FULL),
	PORT("port80.out32.rep.64",        "port80",    POST_PORT,       USER,    OUT,  4,  REP,     64,    FULL),
	PORT("port80.out32.single.512",    "port80",    POST_PORT,       USER,    OUT,  4,  SINGLE,  512,   QUICK),
	PORT("port80.out32.rep.512",       "port80",    POST_PORT,       USER,    OUT,  4,  REP,     512,   QUICK),
	PORT("port80.out32.single.4096",   "port80",    POST_PORT,       USER,    OUT,  4,  SINGLE,  4096,  FULL),
	PORT("port80.out32.rep.4096",      "port80",    POST_PORT,       USER,    OUT,  4,  REP,     4096,  FULL),
	/* the ACPI registers' rep ins batch (1 KiB per exit): sizes between
	 * 512 and 4096 pin their per-unit slope, 8192 a second row above */
	ACPI("acpi.pm1.in16.single.16",    "acpi.pm1",  ACPI_PM1_STS,  2,  SINGLE,  16,    FULL),
	ACPI("acpi.pm1.in16.rep.16",       "acpi.pm1",  ACPI_PM1_STS,  2,  REP,     16,    FULL),
	ACPI("acpi.tmr.in32.single.16",    "acpi.tmr",  ACPI_PM_TMR,   4,  SINGLE,  16,    FULL),
	ACPI("acpi.tmr.in32.rep.16",       "acpi.tmr",  ACPI_PM_TMR,   4,  REP,     16,    FULL),
	ACPI("acpi.pm1.in16.single.64",    "acpi.pm1",  ACPI_PM1_STS,  2,  SINGLE,  64,    FULL),
	ACPI("acpi.pm1.in16.rep.64",       "acpi.pm1",  ACPI_PM1_STS,  2,  REP,     64,    FULL),
	ACPI("acpi.tmr.in32.single.64",    "acpi.tmr",  ACPI_PM_TMR,   4,  SINGLE,  64,    FULL),
	ACPI("acpi.tmr.in32.rep.64",       "acpi.tmr",  ACPI_PM_TMR,   4,  REP,     64,    FULL),
	ACPI("acpi.pm1.in16.single.512",   "acpi.pm1",  ACPI_PM1_STS,  2,  SINGLE,  512,   QUICK),
	ACPI("acpi.pm1.in16.rep.512",      "acpi.pm1",  ACPI_PM1_STS,  2,  REP,     512,   QUICK),
	ACPI("acpi.tmr.in32.single.512",   "acpi.tmr",  ACPI_PM_TMR,   4,  SINGLE,  512,   QUICK),
	ACPI("acpi.tmr.in32.rep.512",      "acpi.tmr",  ACPI_PM_TMR,   4,  REP,     512,   QUICK),
	ACPI("acpi.pm1.in16.single.1024",  "acpi.pm1",  ACPI_PM1_STS,  2,  SINGLE,  1024,  FULL),
	ACPI("acpi.pm1.in16.rep.1024",     "acpi.pm1",  ACPI_PM1_STS,  2,  REP,     1024,  FULL),
	ACPI("acpi.tmr.in32.single.1024",  "acpi.tmr",  ACPI_PM_TMR,   4,  SINGLE,  1024,  FULL),
	ACPI("acpi.tmr.in32.rep.1024",     "acpi.tmr",  ACPI_PM_TMR,   4,  REP,     1024,  FULL),
	ACPI("acpi.pm1.in16.single.2048",  "acpi.pm1",  ACPI_PM1_STS,  2,  SINGLE,  2048,  FULL),
	ACPI("acpi.pm1.in16.rep.2048",     "acpi.pm1",  ACPI_PM1_STS,  2,  REP,     2048,  FULL),
	ACPI("acpi.tmr.in32.single.2048",  "acpi.tmr",  ACPI_PM_TMR,   4,  SINGLE,  2048,  FULL),
	ACPI("acpi.tmr.in32.rep.2048",     "acpi.tmr",  ACPI_PM_TMR,   4,  REP,     2048,  FULL),
	ACPI("acpi.pm1.in16.single.4096",  "acpi.pm1",  ACPI_PM1_STS,  2,  SINGLE,  4096,  FULL),
	ACPI("acpi.pm1.in16.rep.4096",     "acpi.pm1",  ACPI_PM1_STS,  2,  REP,     4096,  FULL),
	ACPI("acpi.tmr.in32.single.4096",  "acpi.tmr",  ACPI_PM_TMR,   4,  SINGLE,  4096,  FULL),
	ACPI("acpi.tmr.in32.rep.4096",     "acpi.tmr",  ACPI_PM_TMR,   4,  REP,     4096,  FULL),
	ACPI("acpi.pm1.in16.rep.8192",     "acpi.pm1",  ACPI_PM1_STS,  2,  REP,     8192,  MORE),
	ACPI("acpi.tmr.in32.rep.8192",     "acpi.tmr",  ACPI_PM_TMR,   4,  REP,     8192,  MORE),
	/* the in-kernel ports: KVM's emulator returns to the guest every 1 KiB
	 * of units, so rep alone at 2048 B (1, 2 and 4 exits at 512, 2048 and
	 * 4096 B) pins the breakdown's per-exit term apart from per-unit */
	PORT("pic.in8.single.1",           "pic",       PIC1_DATA_PORT,  KERNEL,  IN,   1,  SINGLE,  1,     FULL),
	PORT("pic.in8.rep.1",              "pic",       PIC1_DATA_PORT,  KERNEL,  IN,   1,  REP,     1,     FULL),
	PORT("pic.out8.single.1",          "pic",       PIC1_DATA_PORT,  KERNEL,  OUT,  1,  SINGLE,  1,     FULL),
	PORT("pic.out8.rep.1",             "pic",       PIC1_DATA_PORT,  KERNEL,  OUT,  1,  REP,     1,     FULL),
	PORT("pic.in8.single.64",          "pic",       PIC1_DATA_PORT,  KERNEL,  IN,   1,  SINGLE,  64,    MORE),
	PORT("pic.in8.rep.64",             "pic",       PIC1_DATA_PORT,  KERNEL,  IN,   1,  REP,     64,    MORE),
	PORT("pic.out8.single.64",         "pic",       PIC1_DATA_PORT,  KERNEL,  OUT,  1,  SINGLE,  64,    MORE),
	PORT("pic.out8.rep.64",            "pic",       PIC1_DATA_PORT,  KERNEL,  OUT,  1,  REP,     64,    MORE),
	PORT("pic.in8.single.512",         "pic",       PIC1_DATA_PORT,  KERNEL,  IN,   1,  SINGLE,  512,   QUICK),
	PORT("pic.in8.rep.512",            "pic",       PIC1_DATA_PORT,  KERNEL,  IN,   1,  REP,     512,   QUICK),
	PORT("pic.out8.single.512",        "pic",       PIC1_DATA_PORT,  KERNEL,  OUT,  1,  SINGLE,  512,   QUICK),
	PORT("pic.out8.rep.512",           "pic",       PIC1_DATA_PORT,  KERNEL,  OUT,  1,  REP,     512,   QUICK),
	PORT("pic.in8.single.4096",        "pic",       PIC1_DATA_PORT,  KERNEL,  IN,   1,  SINGLE,  4096,  FULL),
	PORT("pic.in8.rep.4096",           "pic",       PIC1_DATA_PORT,  KERNEL,  IN,   1,  REP,     4096,  FULL),
	PORT("pic.out8.single.4096",       "pic",       PIC1_DATA_PORT,  KERNEL,  OUT,  1,  SINGLE,  4096,  FULL),
	PORT("pic.out8.rep.4096",          "pic",       PIC1_DATA_PORT,  KERNEL,  OUT,  1,  REP,     4096,  FULL),
	PORT("pic.in8.rep.2048",           "pic",       PIC1_DATA_PORT,  KERNEL,  IN,   1,  REP,     2048,  MORE),
	PORT("pic.out8.rep.2048",          "pic",       PIC1_DATA_PORT,  KERNEL,  OUT,  1,  REP,     2048,  MORE),
	PORT("elcr.in8.single.1",          "elcr",      ELCR1_PORT,      KERNEL,  IN,   1,  SINGLE,  1,     FULL),
	PORT("elcr.in8.rep.1",             "elcr",      ELCR1_PORT,      KERNEL,  IN,   1,  REP,     1,     FULL),
	PORT("elcr.out8.single.1",         "elcr",      ELCR1_PORT,      KERNEL,  OUT,  1,  SINGLE,  1,     FULL),
	PORT("elcr.out8.rep.1",            "elcr",      ELCR1_PORT,      KERNEL,  OUT,  1,  REP,     1,     FULL),
	PORT("elcr.in8.single.64",         "elcr",      ELCR1_PORT,      KERNEL,  IN,   1,  SINGLE,  64,    MORE),
	PORT("elcr.in8.rep.64",            "elcr",      ELCR1_PORT,      KERNEL,  IN,   1,  REP,     64,    MORE),
	PORT("elcr.out8.single.64",        "elcr",      ELCR1_PORT,      KERNEL,  OUT,  1,  SINGLE,  64,    MORE),
	PORT("elcr.out8.rep.64",           "elcr",      ELCR1_PORT,      KERNEL,  OUT,  1,  REP,     64,    MORE),
	PORT("elcr.in8.single.512",        "elcr",      ELCR1_PORT,      KERNEL,  IN,   1,  SINGLE,  512,   QUICK),
	PORT("elcr.in8.rep.512",           "elcr",      ELCR1_PORT,      KERNEL,  IN,   1,  REP,     512,   QUICK),
	PORT("elcr.out8.single.512",       "elcr",      ELCR1_PORT,      KERNEL,  OUT,  1,  SINGLE,  512,   QUICK),
	PORT("elcr.out8.rep.512",          "elcr",      ELCR1_PORT,      KERNEL,  OUT,  1,  REP,     512,   QUICK),
	PORT("elcr.in8.single.4096",       "elcr",      ELCR1_PORT,      KERNEL,  IN,   1,  SINGLE,  4096,  FULL),
	PORT("elcr.in8.rep.4096",          "elcr",      ELCR1_PORT,      KERNEL,  IN,   1,  REP,     4096,  FULL),
	PORT("elcr.out8.single.4096",      "elcr",      ELCR1_PORT,      KERNEL,  OUT,  1,  SINGLE,  4096,  FULL),
	PORT("elcr.out8.rep.4096",         "elcr",      ELCR1_PORT,      KERNEL,  OUT,  1,  REP,     4096,  FULL),
	PORT("elcr.in8.rep.2048",          "elcr",      ELCR1_PORT,      KERNEL,  IN,   1,  REP,     2048,  MORE),
	PORT("elcr.out8.rep.2048",         "elcr",      ELCR1_PORT,      KERNEL,  OUT,  1,  REP,     2048,  MORE),
	/* extended: the long fw_cfg loops, edk2's FIFO shapes reading 512 B of
	 * the blob and writing 512 B to debugcon (PlatformDebugLibIoPort's
	 * IoWriteFifo8), coalesced PIO (QEMU's RTC index port, one write in
	 * 170 a round trip; i440FX's config address), pci-testdev's I/O ports */
	FWCFG("fwcfg.in8.single.16384",       SINGLE,  16384,  0,               EXT),
	FWCFG("fwcfg.in8.single.65536",       SINGLE,  65536,  0,               EXT),
	FIFO("fwcfg.fifo.loop.512",          "fwcfg",     FW_CFG_PORT_DATA,  IN,   LOOP),
	FIFO("fwcfg.fifo.rep.512",           "fwcfg",     FW_CFG_PORT_DATA,  IN,   REP),
	FIFO("fwcfg.fifo.probe_rep.512",     "fwcfg",     FW_CFG_PORT_DATA,  IN,   PROBE_REP),
	FIFO("debugcon.fifo.loop.512",       "debugcon",  DEBUGCON_PORT,     OUT,  LOOP),
	FIFO("debugcon.fifo.rep.512",        "debugcon",  DEBUGCON_PORT,     OUT,  REP),
	FIFO("debugcon.fifo.probe_rep.512",  "debugcon",  DEBUGCON_PORT,     OUT,  PROBE_REP),
	COALESCED("rtc.out8.single.512",    "rtc",  RTC_INDEX_PORT,        1,  SINGLE,  512),
	COALESCED("rtc.out8.rep.512",       "rtc",  RTC_INDEX_PORT,        1,  REP,     512),
	COALESCED("cf8.out32.single.2048",  "cf8",  PCI_CONFIG_ADDR_PORT,  4,  SINGLE,  2048),
	COALESCED("cf8.out32.rep.2048",     "cf8",  PCI_CONFIG_ADDR_PORT,  4,  REP,     2048),
	PTD("ptd.io.nofd.out8.single.512",       "ptd.io.nofd",       0,  SINGLE),
	PTD("ptd.io.nofd.out8.rep.512",          "ptd.io.nofd",       0,  REP),
	PTD("ptd.io.wildcard.out8.single.512",   "ptd.io.wildcard",   1,  SINGLE),
	PTD("ptd.io.wildcard.out8.rep.512",      "ptd.io.wildcard",   1,  REP),
	PTD("ptd.io.datamatch.out8.single.512",  "ptd.io.datamatch",  2,  SINGLE),
	PTD("ptd.io.datamatch.out8.rep.512",     "ptd.io.datamatch",  2,  REP),
};

const u32 pio_n_rows = ARRAY_SIZE(pio_rows);
_Static_assert(ARRAY_SIZE(pio_rows) <= PIO_MAX_ROWS, "pio: PIO_MAX_ROWS too small");
