/*
 * arch/x86/trap.h - the IDT (CPU exceptions 0-31, interrupts 32-255 via
 * arch/x86/irq.h), register dumps, and a way
 * for a case to expect one fault (e.g. #UD from vmcall under TCG).
 */
#ifndef ARCH_X86_TRAP_H
#define ARCH_X86_TRAP_H

#include "lib/types.h"

/* Layout pushed by arch/x86/isr.asm, lowest address first. */
struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss;  /* pushed by the CPU */
};
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "trap frame layout");

#define TRAP_DE 0
#define TRAP_BP 3
#define TRAP_UD 6
#define TRAP_GP 13
#define TRAP_PF 14

/* Called on an unexpected exception, after the registers are printed. */
typedef void (*trap_fatal_fn)(const struct trap_frame *f);

void trap_init(trap_fatal_fn fatal);
/* Load the IDT trap_init() built (an application processor's start). */
void trap_load_idt(void);

/* Point vector's interrupt gate at entry, code of its own that ends in
 * IRETQ (kernel/suites/exits_vmexit.c); returns the entry it replaced,
 * to be put back the same way.  The IDT is shared: every CPU sees it. */
u64 trap_set_gate(u32 vector, u64 entry);

/*
 * Arm a one-shot expectation: if `vector` is raised next, skip `insn_len`
 * bytes at the faulting RIP and continue.  trap_caught() says whether it
 * fired and disarms it.
 */
void trap_expect(u32 vector, u32 insn_len);
bool trap_caught(void);

const char *trap_name(u32 vector);

/* Test hook: raise one of #DE, #BP, #UD, #GP, #PF on purpose. */
void trap_raise(u32 vector);

/* An address inside the canonical range that the boot page tables leave
 * unmapped (only the first 4 GiB are mapped): touching it raises #PF. */
#define TRAP_UNMAPPED_ADDR 0x4000000000ull

#endif
