/*
 * tests/host/c/test_fwaudit.c - the firmware suite's instruction audit on
 * hand-made single-step traces: the decoder by prefix and form, the
 * hand-counted path of platform/efi_call.asm's efi_audit_selftest, a FIFO
 * read (one rep insb) told from the plain width (an inb per unit), and a
 * runaway call cut at the budget.
 */
#include "tests/host/c/check.h"
#include "model/fwaudit.h"
#include "model/model.h"

#define RIP0      0x7e000000ull
#define BUF       0x300000ull      /* page-aligned */
#define PORT_FW   0x511
#define PORT_POST 0x80

struct insn {
	uint8_t b[FWAUDIT_INSN_MAX];
};

static bool decode(const uint8_t *b, uint64_t rdx, uint64_t rcx, struct fwaudit_port_insn *p)
{
	uint8_t buf[FWAUDIT_INSN_MAX] = { 0 };

	memcpy(buf, b, 4);
	return fwaudit_decode(buf, rdx, rcx, p);
}

static void test_decode(void)
{
	struct fwaudit_port_insn p;

	CHECK(decode((const uint8_t[]){ 0xec, 0, 0, 0 }, PORT_FW, 0, &p));
	CHECK_EQ_U64(p.kind, FWAUDIT_IN);
	CHECK_EQ_U64(p.width, 1);
	CHECK_EQ_U64(p.port, PORT_FW);
	CHECK(decode((const uint8_t[]){ 0x66, 0xed, 0, 0 }, 0x1f0, 0, &p));
	CHECK_EQ_U64(p.width, 2);
	CHECK(decode((const uint8_t[]){ 0xef, 0, 0, 0 }, 0xcfc, 0, &p));
	CHECK_EQ_U64(p.kind, FWAUDIT_OUT);
	CHECK_EQ_U64(p.width, 4);
	CHECK(decode((const uint8_t[]){ 0xe6, 0x80, 0, 0 }, 0x1234, 0, &p));
	CHECK_EQ_U64(p.port, 0x80);          /* imm8, not DX */
	CHECK(decode((const uint8_t[]){ 0xf3, 0x66, 0x6d, 0 }, 0x1f0, 256, &p));
	CHECK_EQ_U64(p.kind, FWAUDIT_REP_INS);
	CHECK_EQ_U64(p.width, 2);
	CHECK_EQ_U64(p.units, 256);
	CHECK(decode((const uint8_t[]){ 0x66, 0xf3, 0x6d, 0 }, 0x1f0, 256, &p));
	CHECK_EQ_U64(p.kind, FWAUDIT_REP_INS);  /* prefixes in either order */
	CHECK(decode((const uint8_t[]){ 0xf3, 0x48, 0x6d, 0 }, 0x1f0, 8, &p));
	CHECK_EQ_U64(p.width, 4);            /* REX.W does not widen ins */
	CHECK(decode((const uint8_t[]){ 0x6e, 0, 0, 0 }, 0x402, 99, &p));
	CHECK_EQ_U64(p.kind, FWAUDIT_OUTS);
	CHECK_EQ_U64(p.units, 1);            /* no rep: RCX does not count */
	CHECK(!decode((const uint8_t[]){ 0x90, 0, 0, 0 }, 0, 0, &p));
	CHECK(!decode((const uint8_t[]){ 0x0f, 0xa2, 0, 0 }, 0, 0, &p));
}

/* One trap: rip about to run, its bytes, DX and RCX before it. */
static bool step(struct fwaudit *a, uint64_t rip, const uint8_t *b, uint64_t rdx,
		 uint64_t rcx, uint64_t rdi)
{
	uint8_t buf[FWAUDIT_INSN_MAX] = { 0 };

	memcpy(buf, b, 4);
	return fwaudit_step(a, rip, buf, rdx, rcx, rdi, 0);
}

static const uint8_t PUSH_RSI[] = { 0x56, 0, 0, 0 };
static const uint8_t MOV[] = { 0x48, 0x89, 0xce, 0 };
static const uint8_t REP_OUTSB[] = { 0xf3, 0x6e, 0, 0 };
static const uint8_t REP_INSB[] = { 0xf3, 0x6c, 0, 0 };
static const uint8_t IN_DX[] = { 0xec, 0, 0, 0 };
static const uint8_t RET[] = { 0xc3, 0, 0, 0 };
static const uint8_t CPUID[] = { 0x0f, 0xa2, 0, 0 };
static const uint8_t JMP_SELF[] = { 0xeb, 0xfe, 0, 0 };

/* efi_audit_selftest, trap by trap, as the CPU delivers them: push, 3
 * movs, rep outsb (16 iterations: a trap after each, the first 15 at its
 * own RIP), in, pop, ret.  The hand count of platform/efi_call.asm. */
static void test_selftest_hand_count(void)
{
	struct fwaudit a;
	uint64_t rip = RIP0;
	int i;

	fwaudit_reset(&a);
	fwaudit_call_begin(&a);
	step(&a, rip++, PUSH_RSI, 0, 0, 0);
	for (i = 0; i < 3; i++)
		step(&a, rip++, MOV, 0, 0, 0);
	for (i = 16; i > 0; i--)
		step(&a, rip, REP_OUTSB, PORT_POST, (uint64_t)i, 0);
	rip += 2;
	step(&a, rip++, IN_DX, PORT_POST, 0, 0);
	step(&a, rip++, PUSH_RSI, 0, 0, 0);       /* pop: not port I/O either */
	step(&a, rip, RET, 0, 0, 0);
	CHECK_EQ_U64(a.insns, 8);
	CHECK_EQ_U64(a.traps, 23);
	CHECK_EQ_U64(a.io[FWAUDIT_REP_OUTS][0], 1);
	CHECK_EQ_U64(a.io[FWAUDIT_IN][0], 1);
	CHECK_EQ_U64(a.units, 17);
	CHECK_EQ_U64(a.bytes, 17);
	CHECK_EQ_U64(a.max_rep, 16);
	CHECK_EQ_U64(a.exits, 17);               /* 16 outs units + 1 inb */
	CHECK_EQ_U64(a.n_ports, 1);
	CHECK_EQ_U64(a.ports[0], PORT_POST);
	CHECK_STR(fwaudit_path(&a), "rep");
}

/* CpuIo2's FIFO read of 4 KiB (IoFifoSev: two cpuid, one rep insb)
 * against the plain width called once a unit (one inb each). */
static void test_fifo_told_from_plain(void)
{
	struct fwaudit fifo, plain;
	uint64_t i;

	fwaudit_reset(&fifo);
	fwaudit_call_begin(&fifo);
	step(&fifo, RIP0, CPUID, 0, 0, 0);
	step(&fifo, RIP0 + 2, CPUID, 0, 0, 0);
	for (i = 4096; i > 0; i--)
		step(&fifo, RIP0 + 4, REP_INSB, PORT_FW, i, BUF + 4096 - i);
	step(&fifo, RIP0 + 6, RET, 0, 0, 0);
	CHECK_STR(fwaudit_path(&fifo), "rep");
	CHECK_EQ_U64(fifo.io[FWAUDIT_REP_INS][0], 1);
	CHECK_EQ_U64(fifo.insns, 4);
	CHECK_EQ_U64(fifo.cpuid, 2);
	CHECK_EQ_U64(fifo.exits, model_rep_in_exits(BUF, 4096, 1) + 2);
	CHECK_EQ_U64(fifo.exits, 6);

	fwaudit_reset(&plain);
	for (i = 0; i < 4096; i++) {
		fwaudit_call_begin(&plain);
		step(&plain, RIP0 + 16, IN_DX, PORT_FW, 1, BUF + i);
		step(&plain, RIP0 + 17, RET, 0, 0, 0);
	}
	CHECK_STR(fwaudit_path(&plain), "single");
	CHECK_EQ_U64(plain.io[FWAUDIT_IN][0], 4096);
	CHECK_EQ_U64(plain.io[FWAUDIT_REP_INS][0], 0);
	CHECK_EQ_U64(plain.exits, 4096);
	CHECK_EQ_U64(plain.calls, 4096);
}

/* Back-to-back plain calls at one RIP are new instructions, not REP
 * iterations: only a rep string instruction repeats in place. */
static void test_same_rip_not_rep(void)
{
	struct fwaudit a;

	fwaudit_reset(&a);
	fwaudit_call_begin(&a);
	step(&a, RIP0, IN_DX, PORT_FW, 0, 0);
	step(&a, RIP0, IN_DX, PORT_FW, 0, 0);
	CHECK_EQ_U64(a.insns, 2);
	CHECK_EQ_U64(a.io[FWAUDIT_IN][0], 2);
}

static void test_budget_cut(void)
{
	struct fwaudit a;
	uint64_t n = 0;

	fwaudit_reset(&a);
	fwaudit_call_begin(&a);
	while (step(&a, RIP0, JMP_SELF, 0, 0, 0))
		n++;
	CHECK_EQ_U64(n, FWAUDIT_BUDGET_TRAPS);
	CHECK(a.cut);
	fwaudit_call_begin(&a);                  /* a new call: a new budget */
	CHECK(step(&a, RIP0, RET, 0, 0, 0));
}

static void test_in_kernel_port(void)
{
	struct fwaudit a;
	uint64_t i;

	fwaudit_reset(&a);
	fwaudit_call_begin(&a);
	for (i = 2048; i > 0; i--)
		step(&a, RIP0, REP_OUTSB, 0x20, i, 0);   /* the PIC: KVM's own */
	CHECK_EQ_U64(a.exits, model_rep_out_kernel_exits(2048));
	CHECK(fwaudit_port_in_kernel(0x40) && !fwaudit_port_in_kernel(0x511));
}

int main(void)
{
	RUN(test_decode, "fwaudit: port instructions by prefix and form");
	RUN(test_selftest_hand_count, "fwaudit: efi_audit_selftest's hand count");
	RUN(test_fifo_told_from_plain, "fwaudit: FIFO (rep insb) told from plain (inb per unit)");
	RUN(test_same_rip_not_rep, "fwaudit: a repeated RIP is a new insn unless rep");
	RUN(test_budget_cut, "fwaudit: a runaway call is cut at the budget");
	RUN(test_in_kernel_port, "fwaudit: rep to an in-kernel port");
	return check_summary();
}
