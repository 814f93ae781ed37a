/*
 * drivers/debug_exit.c - QEMU isa-debug-exit at 0xf4
 * (`-device isa-debug-exit,iobase=0xf4,iosize=0x04`).  Without the device
 * the write is ignored and the CPU halts with interrupts off; the host
 * runner's timeout ends such a run.
 */
#include "drivers/debug_exit.h"
#include "arch/x86/io.h"
#include "arch/x86/cpu.h"
#include "drivers/platform.h"

void debug_exit(enum tm_status code)
{
	outb((u8)code, DEBUG_EXIT_PORT);
	cpu_halt_forever();
}
