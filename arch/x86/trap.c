/*
 * arch/x86/trap.c - the interrupt descriptor table and the C side of the
 * exception stubs.  Vectors 0-31 are CPU exceptions (arch/x86/isr.asm);
 * 32-255 go to arch/x86/irq.c's handlers (arch/x86/irq_entry.asm).  Interrupts
 * stay disabled except inside the irq cases, which enable them around the
 * interrupt they measure.
 */
#include "arch/x86/trap.h"
#include "arch/x86/cpu.h"

#define IDT_VECTORS       32     /* exceptions */
#define IDT_ENTRIES       256
#define GDT_KERNEL_CODE   0x08
#define IDT_TYPE_INTGATE  0x8e   /* present, DPL0, 64-bit interrupt gate */
#define NO_EXPECTATION    0xffffffffu

struct idt_entry {
	u16 offset_lo;   /* handler bits 0..15 */
	u16 selector;    /* code segment */
	u8 ist;          /* interrupt stack table slot, 0 = none */
	u8 type_attr;    /* gate type, DPL, present */
	u16 offset_mid;  /* handler bits 16..31 */
	u32 offset_hi;   /* handler bits 32..63 */
	u32 reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_entry) == 16, "IDT entry is 16 bytes");

struct idt_ptr {
	u16 limit;
	u64 base;
} __attribute__((packed));

extern const u64 isr_table[IDT_VECTORS];
extern const u64 irq_stub_table[IDT_ENTRIES - IDT_VECTORS];

static struct idt_entry idt[IDT_ENTRIES] __attribute__((aligned(16)));
static trap_fatal_fn trap_fatal;
static volatile u32 expect_vector = NO_EXPECTATION;
static volatile u32 expect_len;
static volatile bool expect_hit;

static const char *const names[IDT_VECTORS] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
	"#DF", "CSO", "#TS", "#NP", "#SS", "#GP", "#PF", "RSV15",
	"#MF", "#AC", "#MC", "#XM", "#VE", "#CP", "RSV22", "RSV23",
	"RSV24", "RSV25", "RSV26", "RSV27", "#HV", "#VC", "#SX", "RSV31",
};

const char *trap_name(u32 vector)
{
	return vector < IDT_VECTORS ? names[vector] : "?";
}

void trap_load_idt(void)
{
	struct idt_ptr p = { sizeof(idt) - 1, (u64)(uintptr_t)idt };

	__asm__ volatile("lidt %0" : : "m"(p));
}

static void set_entry(u32 i, u64 h)
{
	idt[i].offset_lo = h & 0xffff;
	idt[i].selector = GDT_KERNEL_CODE;
	idt[i].ist = 0;
	idt[i].type_attr = IDT_TYPE_INTGATE;
	idt[i].offset_mid = (h >> 16) & 0xffff;
	idt[i].offset_hi = h >> 32;
	idt[i].reserved = 0;
}

void trap_init(trap_fatal_fn fatal)
{
	u32 i;

	trap_fatal = fatal;
	for (i = 0; i < IDT_ENTRIES; i++)
		set_entry(i, i < IDT_VECTORS ? isr_table[i] : irq_stub_table[i - IDT_VECTORS]);
	trap_load_idt();
}

u64 trap_set_gate(u32 vector, u64 entry)
{
	u64 before = (u64)idt[vector].offset_lo | (u64)idt[vector].offset_mid << 16 |
		     (u64)idt[vector].offset_hi << 32;

	set_entry(vector, entry);
	return before;
}

void trap_expect(u32 vector, u32 insn_len)
{
	expect_hit = false;
	expect_len = insn_len;
	expect_vector = vector;
	barrier();
}

bool trap_caught(void)
{
	bool hit = expect_hit;

	expect_vector = NO_EXPECTATION;
	expect_hit = false;
	return hit;
}

void trap_handler(struct trap_frame *f);
void trap_handler(struct trap_frame *f)
{
	if (f->vector == expect_vector) {
		expect_vector = NO_EXPECTATION;
		expect_hit = true;
		f->rip += expect_len;
		return;
	}
	if (trap_fatal)      /* the kernel prints and reports it */
		trap_fatal(f);
	cpu_halt_forever();
}

/* bit 63 set, bits 47..62 clear: outside the canonical range */
#define NONCANONICAL_ADDR 0x8000000000000000ull

void trap_raise(u32 vector)
{
	switch (vector) {
	case TRAP_DE:
		__asm__ volatile("xor %%edx, %%edx; div %%ecx" : : "a"(1), "c"(0) : "rdx");
		break;
	case TRAP_BP:
		__asm__ volatile("int3");
		break;
	case TRAP_UD:
		__asm__ volatile("ud2");
		break;
	case TRAP_GP:
		__asm__ volatile("mov (%0), %%rax" : : "r"(NONCANONICAL_ADDR) : "rax", "memory");
		break;
	case TRAP_PF:
		__asm__ volatile("mov (%0), %%rax" : : "r"(TRAP_UNMAPPED_ADDR) : "rax", "memory");
		break;
	default:
		break;
	}
}
