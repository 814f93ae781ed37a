/*
 * platform/efi_step.h - single-step one firmware call (the trap flag and
 * a debug-exception handler in a copy of the firmware's IDT, the
 * firmware's IDT back after) and hand every trap to a callback (suite
 * firmware's: the audit, model/fwaudit.h).
 */
#ifndef PLATFORM_EFI_STEP_H
#define PLATFORM_EFI_STEP_H

#include "lib/types.h"

/* The general registers as platform/efi_call.asm's efi_db_entry pushes
 * them, then the CPU's interrupt frame. */
struct efi_step_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 rip, cs, rflags, rsp, ss;
};
_Static_assert(sizeof(struct efi_step_frame) == 20 * 8, "frame of efi_db_entry");

/* One trap: the registers before the instruction at f->rip runs.  False
 * stops the stepping (the call runs on unstepped). */
typedef bool (*efi_step_fn)(void *ctx, const struct efi_step_frame *f);

/* fn(a1..a5) by efi_call5, every instruction of it a trap to on_step;
 * its status.  *returned: the trap at the call's return came (false when
 * the stepping stopped early or the callee cleared TF). */
u64 efi_step_call(efi_step_fn on_step, void *ctx, bool *returned, u64 fn,
		  u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);

/* Called by efi_db_entry only. */
void efi_step_trap(struct efi_step_frame *f);

#endif
