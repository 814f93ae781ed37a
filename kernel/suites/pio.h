/*
 * kernel/suites/pio.h - suite pio's case table (kernel/suites/pio_table.c):
 * one row per case, its name written out so that a case can be found by
 * grepping for it; kernel/suites/pio.c turns rows into bench cases.
 */
#ifndef KERNEL_SUITES_PIO_H
#define KERNEL_SUITES_PIO_H

#include "lib/types.h"

/* What a row's case does beyond in/out on a fixed port. */
enum pio_kind {
	PIO_PORT,        /* in/out of a fixed port */
	PIO_FWCFG,       /* select the runner's blob, then read it */
	PIO_ACPI,        /* a register of the ACPI PM block (port: offset) */
	PIO_FIFO,        /* one of edk2's FIFO shapes (shape: enum pio_shape) */
	PIO_COALESCED,   /* coalesced PIO, checked by a read back */
	PIO_PTD,         /* a pci-testdev I/O test (shape: the test's index) */
};

/* Which runs hold a row.  QUICK: every run; FULL: all but quick;
 * MORE: the cost breakdown's extra sweep points, extended runs that are
 * not quick; EXT: the extended cases (suite=all or case=, quick too). */
enum pio_set { PIO_QUICK, PIO_FULL, PIO_MORE, PIO_EXT };

enum pio_shape { SHAPE_NONE, SHAPE_LOOP, SHAPE_REP, SHAPE_PROBE_REP };

struct pio_row {
	const char *name;    /* TARGET.DIRBITS.METHOD.BYTES[.split] */
	const char *target;
	u16 port;
	u8 kind;             /* enum pio_kind */
	u8 handler;          /* enum bench_handler */
	u8 dir;              /* enum bench_dir */
	u8 width;
	u8 method;           /* enum bench_method */
	u8 set;              /* enum pio_set */
	u8 shape;            /* PIO_FIFO: enum pio_shape; PIO_PTD: the test */
	u32 bytes;
	u32 off;             /* buffer offset from a page start */
};

/* The table in run order: each run takes the rows of its sets, in order. */
#define PIO_MAX_ROWS 176
extern const struct pio_row pio_rows[];
extern const u32 pio_n_rows;

#endif
