/*
 * model/fwaudit.c - decode and count what a single-stepped firmware
 * call executed, and the exits that takes (see model/fwaudit.h).
 * Opcodes: Intel SDM vol. 2, IN/OUT/INS/OUTS/CPUID/RDMSR/WRMSR/HLT.
 */
#include "model/fwaudit.h"
#include "model/model.h"
#include "lib/string.h"

#define OP_IN_IMM8    0xe4   /* +1: 16/32-bit */
#define OP_OUT_IMM8   0xe6
#define OP_IN_DX      0xec
#define OP_OUT_DX     0xee
#define OP_INS        0x6c
#define OP_OUTS       0x6e
#define OP_HLT        0xf4
#define OP_TWO_BYTE   0x0f
#define OP2_WRMSR     0x30
#define OP2_RDMSR     0x32
#define OP2_CPUID     0xa2
#define PFX_OPSIZE    0x66
#define PFX_REP       0xf3
#define PFX_REPNE     0xf2
#define PFX_ADDRSIZE  0x67
#define PFX_LOCK      0xf0
#define REX_MIN       0x40
#define REX_MAX       0x4f

/* KVM's in-kernel PIO devices on `pc`/`q35` (kernel-irqchip=on): the
 * PICs, the PIT and the ELCR. */
#define PORT_PIC1     0x20
#define PORT_PIC2     0xa0
#define PORT_PIT      0x40
#define PORT_PIT_END  0x43
#define PORT_ELCR     0x4d0

static const char *const kind_names[FWAUDIT_KINDS][FWAUDIT_WIDTHS] = {
	[FWAUDIT_IN]       = { "inb", "inw", "inl" },
	[FWAUDIT_OUT]      = { "outb", "outw", "outl" },
	[FWAUDIT_INS]      = { "insb", "insw", "insd" },
	[FWAUDIT_OUTS]     = { "outsb", "outsw", "outsd" },
	[FWAUDIT_REP_INS]  = { "rep insb", "rep insw", "rep insd" },
	[FWAUDIT_REP_OUTS] = { "rep outsb", "rep outsw", "rep outsd" },
};

void fwaudit_reset(struct fwaudit *a)
{
	kmemset(a, 0, sizeof(*a));
}

static bool is_prefix(u8 b)
{
	return b == PFX_OPSIZE || b == PFX_REP || b == PFX_REPNE || b == PFX_ADDRSIZE ||
	       b == PFX_LOCK || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 ||
	       b == 0x64 || b == 0x65 || (b >= REX_MIN && b <= REX_MAX);
}

bool fwaudit_decode(const u8 *insn, u64 rdx, u64 rcx, struct fwaudit_port_insn *out)
{
	bool opsize = false, rep = false;
	u32 i = 0;
	u8 op;

	/* a REX prefix must come last; REX.W does not widen port I/O */
	while (i < FWAUDIT_INSN_MAX - 1 && is_prefix(insn[i])) {
		opsize |= insn[i] == PFX_OPSIZE;
		rep |= insn[i] == PFX_REP || insn[i] == PFX_REPNE;
		i++;
	}
	op = insn[i];
	out->width = (op & 1) ? (opsize ? 2 : 4) : 1;
	out->units = 1;
	switch (op & ~1u) {
	case OP_IN_IMM8:
	case OP_OUT_IMM8:
		out->kind = (op & ~1u) == OP_IN_IMM8 ? FWAUDIT_IN : FWAUDIT_OUT;
		out->port = insn[i + 1];
		return true;
	case OP_IN_DX:
	case OP_OUT_DX:
		out->kind = (op & ~1u) == OP_IN_DX ? FWAUDIT_IN : FWAUDIT_OUT;
		out->port = (u16)rdx;
		return true;
	case OP_INS:
	case OP_OUTS:
		out->kind = (op & ~1u) == OP_INS ? FWAUDIT_INS : FWAUDIT_OUTS;
		if (rep) {
			out->kind += FWAUDIT_REP_INS - FWAUDIT_INS;
			out->units = rcx;   /* 32-bit address size would use ECX */
		}
		out->port = (u16)rdx;
		return true;
	}
	return false;
}

/* The other instructions KVM always intercepts, each one exit. */
static bool note_other(struct fwaudit *a, const u8 *insn)
{
	u32 i = 0;

	while (i < FWAUDIT_INSN_MAX - 2 && is_prefix(insn[i]))
		i++;
	if (insn[i] == OP_HLT) {
		a->hlt++;
		return true;
	}
	if (insn[i] != OP_TWO_BYTE)
		return false;
	if (insn[i + 1] == OP2_CPUID)
		a->cpuid++;
	else if (insn[i + 1] == OP2_RDMSR || insn[i + 1] == OP2_WRMSR)
		a->msr++;
	else
		return false;
	return true;
}

void fwaudit_call_begin(struct fwaudit *a)
{
	a->calls++;
	a->call_traps = 0;
	a->last_rep = false;
}

bool fwaudit_port_in_kernel(u16 port)
{
	return port == PORT_PIC1 || port == PORT_PIC1 + 1 || port == PORT_PIC2 ||
	       port == PORT_PIC2 + 1 || (port >= PORT_PIT && port <= PORT_PIT_END) ||
	       port == PORT_ELCR || port == PORT_ELCR + 1;
}

/* Exits of one port instruction by the model (docs/design.md). */
static u64 port_exits(const struct fwaudit_port_insn *p, u64 rdi)
{
	if (p->kind != FWAUDIT_REP_INS && p->kind != FWAUDIT_REP_OUTS)
		return 1;
	if (!p->units)
		return 0;
	if (fwaudit_port_in_kernel(p->port))
		return model_rep_out_kernel_exits((u32)p->units);
	if (p->kind == FWAUDIT_REP_OUTS)
		return p->units;       /* em_out: one exit per unit */
	return model_rep_in_exits(rdi, (u32)(p->units * p->width), p->width);
}

static void note_port(struct fwaudit *a, u16 port)
{
	u32 i, kept = a->n_ports < FWAUDIT_PORTS ? a->n_ports : FWAUDIT_PORTS;

	for (i = 0; i < kept; i++)
		if (a->ports[i] == port)
			return;
	if (a->n_ports < FWAUDIT_PORTS)
		a->ports[a->n_ports] = port;
	a->n_ports++;
}

static u32 width_index(u32 width)
{
	return width == 1 ? 0 : width == 2 ? 1 : 2;
}

bool fwaudit_step(struct fwaudit *a, u64 rip, const u8 *insn, u64 rdx, u64 rcx,
		  u64 rdi, u64 rsi)
{
	struct fwaudit_port_insn p;

	(void)rsi;
	a->traps++;
	if (++a->call_traps > FWAUDIT_BUDGET_TRAPS) {
		a->cut = true;
		return false;
	}
	if (a->last_rep && rip == a->last_rip)
		return true;            /* the next iteration of the same rep */
	a->insns++;
	a->last_rip = rip;
	a->last_rep = false;
	if (!fwaudit_decode(insn, rdx, rcx, &p)) {
		a->exits += note_other(a, insn);
		return true;
	}
	a->last_rep = p.kind == FWAUDIT_REP_INS || p.kind == FWAUDIT_REP_OUTS;
	a->io[p.kind][width_index(p.width)]++;
	a->units += p.units;
	a->bytes += p.units * p.width;
	if (a->last_rep && p.units > a->max_rep)
		a->max_rep = p.units;
	a->exits += port_exits(&p, rdi);
	note_port(a, p.port);
	return true;
}

const char *fwaudit_path(const struct fwaudit *a)
{
	u32 w;
	bool rep = false, single = false;

	for (w = 0; w < FWAUDIT_WIDTHS; w++) {
		rep |= a->io[FWAUDIT_REP_INS][w] || a->io[FWAUDIT_REP_OUTS][w];
		single |= a->io[FWAUDIT_IN][w] || a->io[FWAUDIT_OUT][w] ||
			  a->io[FWAUDIT_INS][w] || a->io[FWAUDIT_OUTS][w];
	}
	return rep ? "rep" : single ? "single" : "none";
}

const char *fwaudit_kind_name(u32 kind, u32 width_index_)
{
	if (kind >= FWAUDIT_KINDS || width_index_ >= FWAUDIT_WIDTHS)
		return "?";
	return kind_names[kind][width_index_];
}
