/*
 * kernel/suites/edk2_fifo.h - the per-call checks of edk2's string-I/O FIFO
 * routines, so the suites can time firmware's own code shapes:
 *
 *   fifo.loop       MdePkg/Library/BaseIoLibIntrinsic/IoLibFifo.c: a C loop
 *                   of single IoRead8/16/32 - one exit per unit
 *   fifo.rep        the old X64/IoFifo.nasm: one `rep ins`/`rep outs`
 *   fifo.probe_rep  X64/IoFifoSev.nasm: TdxNoRepIo and SevNoRepIo on every
 *                   call, then `rep ins`/`rep outs` (or the loop, in a TDX
 *                   guest or an SEV guest without SEV-ES)
 *
 * Read at tianocore/edk2 commit 4cbc02a725f27e862e863b1b5c1d82c3dad15086
 * (IoFifoSev.nasm) and 6504120933f79bc4003a3bd8e81350a1728cbc83
 * (IoLibFifo.c).  Which checks run depends on the CPU vendor: TdxNoRepIo
 * stops after CPUID 0 unless the vendor is GenuineIntel (then CPUID 1,
 * CPUID 0 again and, with leaf 0x21 present, CPUID 0x21); SevNoRepIo runs
 * CPUID 1, CPUID 0x80000000, CPUID 0x8000001f when that leaf exists, and
 * RDMSR 0xc0010131 (SEV status) only when 0x8000001f says SEV is there.
 */
#ifndef KERNEL_SUITES_EDK2_FIFO_H
#define KERNEL_SUITES_EDK2_FIFO_H

#include "lib/types.h"

/* Run one call's checks.  True when edk2 would unroll the string I/O;
 * *traps = the CPUID and RDMSR instructions executed (each a VM exit). */
bool edk2_fifo_no_rep(u32 *traps);

#endif
