/*
 * model/fwaudit.h - the instruction audit of suite firmware: what a
 * single-stepped firmware call executed (kernel/suites/firmware.c steps it,
 * platform/efi_step.c takes the traps), and the VM exits that trace takes
 * under KVM by the exit model (model/model.h, docs/design.md).
 *
 * Pure: it sees an instruction's bytes and the registers before it runs,
 * so the host tests feed it hand-made traces.
 */
#ifndef MODEL_FWAUDIT_H
#define MODEL_FWAUDIT_H

#include "lib/types.h"

/* Port instruction kinds, as the audit counts them. */
enum fwaudit_kind {
	FWAUDIT_IN,         /* in al/ax/eax, imm8 or dx */
	FWAUDIT_OUT,        /* out imm8 or dx, al/ax/eax */
	FWAUDIT_INS,        /* insb/w/d without rep: one unit */
	FWAUDIT_OUTS,       /* outsb/w/d without rep */
	FWAUDIT_REP_INS,    /* rep insb/w/d: RCX units */
	FWAUDIT_REP_OUTS,   /* rep outsb/w/d */
	FWAUDIT_KINDS
};
#define FWAUDIT_WIDTHS   3          /* 1, 2, 4 bytes */
#define FWAUDIT_PORTS    8          /* distinct ports kept (more: counted) */
#define FWAUDIT_INSN_MAX 15         /* longest x86 instruction */

/* One port instruction as decoded (fwaudit_decode). */
struct fwaudit_port_insn {
	u8 kind;            /* enum fwaudit_kind */
	u8 width;           /* 1, 2 or 4 */
	u16 port;
	u64 units;          /* 1, or RCX for a rep string instruction */
};

struct fwaudit {
	u64 insns;          /* instructions executed (a REP string one once) */
	u64 traps;          /* single-step traps (a REP iteration each) */
	u64 io[FWAUDIT_KINDS][FWAUDIT_WIDTHS];  /* instructions by kind, width */
	u64 units;          /* port units moved (a rep's RCX, else 1 each) */
	u64 bytes;          /* port bytes moved (units x width) */
	u64 max_rep;        /* the largest repeat count */
	u64 cpuid, msr, hlt;   /* other instructions KVM always intercepts */
	u64 exits;          /* VM exits the trace takes, by the model */
	u16 ports[FWAUDIT_PORTS];
	u32 n_ports;        /* distinct ports (may exceed FWAUDIT_PORTS) */
	u64 last_rip;       /* for telling a REP iteration from a new insn */
	bool last_rep;
	u64 call_traps;     /* traps of the call being stepped */
	u32 calls;          /* stepped calls in this audit */
	u32 returned;       /* calls whose return the handler saw */
	bool cut;           /* a call ran past the budget: stepping stopped */
};

/* Per stepped call: more single-step traps than this and the stepping
 * stops (the call runs on unstepped); the audit says "cut". */
#define FWAUDIT_BUDGET_TRAPS 4000000u

void fwaudit_reset(struct fwaudit *a);

/* A stepped call starts (its budget starts afresh). */
void fwaudit_call_begin(struct fwaudit *a);

/* Decode the port instruction at insn (rdx, rcx: before it runs): true
 * and *out filled for in/out/ins/outs (any prefixes), false otherwise. */
bool fwaudit_decode(const u8 *insn, u64 rdx, u64 rcx, struct fwaudit_port_insn *out);

/*
 * One single-step trap: rip is the instruction about to run, insn its
 * bytes, rdx/rcx/rdi/rsi the registers before it.  A trap at the same
 * rip right after a rep string instruction is one of its iterations.
 * Returns false when the budget is spent (the caller stops stepping).
 */
bool fwaudit_step(struct fwaudit *a, u64 rip, const u8 *insn, u64 rdx, u64 rcx,
		  u64 rdi, u64 rsi);

/* "rep" when a rep string instruction moved port data, "single" when
 * only single-unit port instructions did, "none" without port I/O. */
const char *fwaudit_path(const struct fwaudit *a);

/* Name of a kind and width ("rep insw", "inb", ...), for the output. */
const char *fwaudit_kind_name(u32 kind, u32 width_index);

/* Whether KVM answers the port itself (PIC, PIT, ELCR): a rep string
 * access re-enters the guest only every MODEL_REP_ITER_CHUNK units. */
bool fwaudit_port_in_kernel(u16 port);

#endif
