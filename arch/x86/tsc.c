/*
 * arch/x86/tsc.c - TSC frequency discovery.
 *
 * Sources in order of trust:
 *   cpuid15   CPUID 0x15 with an enumerated crystal (ECX != 0): the TSC is
 *             defined as crystal * EBX / EAX (Intel SDM vol. 3, 19.7.3);
 *   hv-leaf   the hypervisor timing leaf 0x40000010 (EAX = TSC kHz; QEMU/KVM
 *             with invtsc, VMware);
 *   kvmclock  the pvclock scale KVM computes from its own TSC frequency;
 *   pit       a PIT channel 2 one-shot of known length, measured (TCG, any
 *             PC; a loaded host moves it: platform/tsc_check.c cross-checks
 *             it with the ACPI PM timer, which can also replace a guess).
 * Guesses, flagged tsc.guess so every time figure gets a mark:
 *   cpuid16-base  CPUID 0x16 EAX, the processor *base* frequency, which is
 *                 not the TSC's on many parts;
 *   assumed-1GHz  nothing answered.
 */
#include "arch/x86/tsc.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/cpuinfo.h"

struct tsc_info tsc;

#define CPUID_EXT_MAX          0x80000000u
#define CPUID_EXT_FEATURES     0x80000001u
#define CPUID_EXT_POWER        0x80000007u
#define EXT_EDX_RDTSCP         (1u << 27)
#define POWER_EDX_INVTSC       (1u << 8)
#define CPUID_TSC_CRYSTAL      0x15u
#define CPUID_FREQ             0x16u
#define HV_LEAF_TIMING         0x40000010u

#define KVM_CPUID_FEATURES     0x40000001u
#define KVM_FEATURE_CLOCKSOURCE  (1u << 0)
#define KVM_FEATURE_CLOCKSOURCE2 (1u << 3)
#define MSR_KVM_SYSTEM_TIME     0x12u
#define MSR_KVM_SYSTEM_TIME_NEW 0x4b564d01u
#define PVCLOCK_ENABLE          1u

#define PIT_HZ                 1193182u
#define PIT_PORT_CH2           0x42
#define PIT_PORT_CMD           0x43
#define PIT_CMD_CH2_ONESHOT    0xb0   /* channel 2, lo/hi byte, mode 0, binary */
#define PORT_NMI_SC            0x61   /* system control port B */
#define NMI_SC_GATE2           0x01
#define NMI_SC_SPEAKER         0x02
#define NMI_SC_OUT2            0x20
#define PIT_CAL_MS             10
#define PIT_CAL_ROUNDS         3
/* A round that has not ended after this long never will (the PIT's
 * one-shot is PIT_CAL_MS).  The TSC rate is not known yet here, so the
 * bound is counted at TSC_MAX_KHZ (tsc.h): at a 2.5 GHz TSC the wait
 * gives up after 4 s, not 1 s; still 100x the round, and bounded. */
#define PIT_WAIT_US            1000000u

/* pvclock_vcpu_time_info, as KVM writes it (Documentation/virt/kvm/msr.rst) */
struct pvclock_time_info {
	u32 version;           /* odd while KVM updates the record */
	u32 pad0;
	u64 tsc_timestamp;     /* TSC at the last update */
	u64 system_time;       /* guest ns at that TSC */
	u32 tsc_to_system_mul; /* ns = (tsc << shift) * mul >> 32 */
	s8 tsc_shift;
	u8 flags;
	u8 pad[2];
} __attribute__((packed));
_Static_assert(sizeof(struct pvclock_time_info) == 32, "pvclock record is 32 bytes");

static struct pvclock_time_info pvclock __attribute__((aligned(64)));

static u64 khz_from_crystal(void)
{
	struct cpuid_regs r;

	if (cpuid(0, 0).eax < CPUID_TSC_CRYSTAL)
		return 0;
	r = cpuid(CPUID_TSC_CRYSTAL, 0);
	if (!r.eax || !r.ebx || !r.ecx)     /* ECX 0: crystal not enumerated */
		return 0;
	return (u64)r.ecx * r.ebx / r.eax / 1000;
}

/* The base frequency: only a guess at the TSC's. */
static u64 khz_from_base_freq(void)
{
	if (cpuid(0, 0).eax < CPUID_FREQ)
		return 0;
	return (u64)(cpuid(CPUID_FREQ, 0).eax & 0xffff) * 1000;
}

static u64 khz_from_hv_leaf(void)
{
	if (!hv.present || hv.max_leaf < HV_LEAF_TIMING)
		return 0;
	return cpuid(HV_LEAF_TIMING, 0).eax;
}

static u64 khz_from_kvmclock(void)
{
	u32 feat, msr, mul;
	s8 shift;
	u64 khz;

	if (!hv.kvm)
		return 0;
	feat = cpuid(KVM_CPUID_FEATURES, 0).eax;
	if (feat & KVM_FEATURE_CLOCKSOURCE2)
		msr = MSR_KVM_SYSTEM_TIME_NEW;
	else if (feat & KVM_FEATURE_CLOCKSOURCE)
		msr = MSR_KVM_SYSTEM_TIME;
	else
		return 0;
	wrmsr(msr, (u64)(uintptr_t)&pvclock | PVCLOCK_ENABLE);
	barrier();
	mul = *(volatile u32 *)&pvclock.tsc_to_system_mul;
	shift = *(volatile s8 *)&pvclock.tsc_shift;
	wrmsr(msr, 0);
	if (!mul)
		return 0;
	/* tsc_hz = 1e9 * 2^32 / mul / 2^shift */
	khz = (1000000ull << 32) / mul;
	return shift >= 0 ? khz >> shift : khz << -shift;
}

/* One PIT channel 2 one-shot of PIT_CAL_MS; returns TSC ticks, 0 when
 * OUT2 did not rise within PIT_WAIT_US (the next source is tried). */
static u64 pit_round(void)
{
	u16 count = PIT_HZ * PIT_CAL_MS / 1000;
	u8 sc = inb(PORT_NMI_SC);
	struct tsc_wait wait = TSC_WAIT(PIT_WAIT_US);
	u64 t0, t1;

	outb((sc & ~NMI_SC_SPEAKER) | NMI_SC_GATE2, PORT_NMI_SC);
	outb(PIT_CMD_CH2_ONESHOT, PIT_PORT_CMD);
	outb(count & 0xff, PIT_PORT_CH2);
	outb(count >> 8, PIT_PORT_CH2);    /* counting starts with this write */
	t0 = tsc_begin();
	while (!(inb(PORT_NMI_SC) & NMI_SC_OUT2)) {
		if (tsc_wait_over(&wait)) {
			outb(sc, PORT_NMI_SC);
			return 0;
		}
	}
	t1 = tsc_end();
	outb(sc, PORT_NMI_SC);
	return t1 - t0;
}

static u64 khz_from_pit(void)
{
	u64 best = 0, t;
	int i;

	/* the shortest round had the least interference from the host */
	for (i = 0; i < PIT_CAL_ROUNDS; i++) {
		t = pit_round();
		if (t && (!best || t < best))
			best = t;
	}
	return best / PIT_CAL_MS;
}

void tsc_init(void)
{
	u32 ext_max = cpuid(CPUID_EXT_MAX, 0).eax;
	const char *src = "none";
	u64 khz;

	tsc.khz = 0;    /* unknown until the end: waits count at TSC_MAX_KHZ */
	if (ext_max >= CPUID_EXT_FEATURES)
		tsc.rdtscp = cpuid(CPUID_EXT_FEATURES, 0).edx & EXT_EDX_RDTSCP;
	if (ext_max >= CPUID_EXT_POWER)
		tsc.invariant = cpuid(CPUID_EXT_POWER, 0).edx & POWER_EDX_INVTSC;

	if ((khz = khz_from_crystal()))
		src = "cpuid15";
	if (!khz && (khz = khz_from_hv_leaf()))
		src = "hv-leaf";
	if (!khz && (khz = khz_from_kvmclock()))
		src = "kvmclock";
	if (!khz && (khz = khz_from_pit()))
		src = "pit";
	tsc.guess = !khz;
	if (!khz && (khz = khz_from_base_freq()))
		src = "cpuid16-base";
	if (!khz) {
		khz = 1000000;   /* a guess so that ns figures stay finite */
		src = "assumed-1GHz";
	}
	tsc.khz = khz;
	tsc.source = src;
}

u64 tsc_cycles_to_ps(u64 cycles)
{
	/* ps = cycles * 1e9 / khz; split to keep the product in range */
	return cycles / tsc.khz * 1000000000ull +
	       cycles % tsc.khz * 1000000000ull / tsc.khz;
}

void tsc_delay_us(u64 us)
{
	u64 start = tsc_begin();
	u64 ticks = us * tsc.khz / 1000 + 1;

	while (tsc_begin() - start < ticks)
		cpu_relax();
}

bool tsc_wait_over(struct tsc_wait *w)
{
	u64 now = tsc_begin();
	u64 khz = tsc.khz ? tsc.khz : TSC_MAX_KHZ;

	if (!w->deadline) {
		w->deadline = now + w->us * khz / 1000 + 1;
		return false;
	}
	return now > w->deadline;
}
