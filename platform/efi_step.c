/*
 * platform/efi_step.c - single-step a firmware call (see efi_step.h).  The
 * firmware's IDT is not written: a copy with our vector-1 gate is loaded
 * for the call and the firmware's IDTR restored after, so its timer and
 * exception handlers stay in place throughout (Intel SDM vol. 3, 6.14.1
 * 64-bit IDT gates; 17.3.1.4 single-step: one trap per instruction, one
 * per iteration of a REP string instruction).
 */
#include "platform/efi_step.h"
#include "platform/efi.h"
#include "arch/x86/cpu.h"
#include "lib/string.h"

#define IDT_ENTRIES     256
#define IDT_GATE_SIZE   16
#define VEC_DB          1
#define GATE_INTR64     0x8e      /* present, DPL0, 64-bit interrupt gate */
#define EFLAGS_TF       (1ull << 8)

struct idt_gate {
	u16 off_lo;     /* handler bits 0..15 */
	u16 sel;        /* code segment selector */
	u8 ist;         /* interrupt stack table index, 0: none */
	u8 type;        /* P, DPL, gate type */
	u16 off_mid;    /* handler bits 16..31 */
	u32 off_hi;     /* handler bits 32..63 */
	u32 zero;
};
_Static_assert(sizeof(struct idt_gate) == IDT_GATE_SIZE, "64-bit IDT gate");

extern char efi_step_return[];
extern char efi_db_entry[];

static struct idt_gate step_idt[IDT_ENTRIES] __attribute__((aligned(16)));
static efi_step_fn stepping;      /* where the traps go, NULL: nowhere */
static void *stepping_ctx;
static bool returned;              /* the trap at efi_step_return was seen */

/* Our IDT: the firmware's gates, vector 1 ours. */
static void build_idt(const struct desc_ptr *fw, struct desc_ptr *ours)
{
	u64 h = (u64)(uintptr_t)efi_db_entry;
	size_t len = (size_t)fw->limit + 1;
	struct idt_gate *g = &step_idt[VEC_DB];

	if (len > sizeof(step_idt))
		len = sizeof(step_idt);
	kmemcpy(step_idt, (const void *)(uintptr_t)fw->base, len);
	g->off_lo = (u16)h;
	g->sel = read_cs();
	g->ist = 0;
	g->type = GATE_INTR64;
	g->off_mid = (u16)(h >> 16);
	g->off_hi = (u32)(h >> 32);
	g->zero = 0;
	ours->limit = (u16)(sizeof(step_idt) - 1);
	ours->base = (u64)(uintptr_t)step_idt;
}

void efi_step_trap(struct efi_step_frame *f)
{
	if (f->rip == (u64)(uintptr_t)efi_step_return || !stepping) {
		f->rflags &= ~EFLAGS_TF;
		returned = true;
		return;
	}
	if (!stepping(stepping_ctx, f))
		f->rflags &= ~EFLAGS_TF;   /* stop: the call runs on unstepped */
}

u64 efi_step_call(efi_step_fn on_step, void *ctx, bool *returned_out, u64 fn,
		  u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct desc_ptr fw, ours;
	u64 status;

	sidt(&fw);
	build_idt(&fw, &ours);
	stepping = on_step;
	stepping_ctx = ctx;
	returned = false;
	lidt(&ours);
	status = efi_call5_stepped(fn, a1, a2, a3, a4, a5);
	lidt(&fw);
	stepping = NULL;
	*returned_out = returned;
	return status;
}
