/*
 * arch/x86/cpuinfo.c - CPU identification and hypervisor signature
 * (CPUID leaves 0, 1, 0x80000002-4 and the hypervisor range 0x40000000).
 */
#include "arch/x86/cpuinfo.h"
#include "arch/x86/cpu.h"
#include "lib/string.h"

struct cpu_info cpu;
struct hv_info hv;

#define CPUID1_ECX_HYPERVISOR (1u << 31)
#define CPUID_HV_BASE         0x40000000u
#define CPUID_EXT_MAX         0x80000000u
#define CPUID_BRAND_FIRST     0x80000002u
#define CPUID_BRAND_LAST      0x80000004u

static void put_regs(char *dst, u32 a, u32 b, u32 c)
{
	kmemcpy(dst, &a, 4);
	kmemcpy(dst + 4, &b, 4);
	kmemcpy(dst + 8, &c, 4);
	dst[12] = 0;
}

static void read_brand(void)
{
	u32 leaf, i = 0, start = 0, end;
	struct cpuid_regs r;
	char raw[49];

	if (cpuid(CPUID_EXT_MAX, 0).eax < CPUID_BRAND_LAST)
		return;
	for (leaf = CPUID_BRAND_FIRST; leaf <= CPUID_BRAND_LAST; leaf++, i += 16) {
		r = cpuid(leaf, 0);
		kmemcpy(raw + i, &r, 16);
	}
	raw[48] = 0;
	while (raw[start] == ' ')
		start++;
	end = kstrlen(raw);
	while (end > start && raw[end - 1] == ' ')
		end--;
	kmemcpy(cpu.brand, raw + start, end - start);
	cpu.brand[end - start] = 0;
}

void cpuinfo_init(void)
{
	struct cpuid_regs r = cpuid(0, 0);
	u32 fam, mod;

	put_regs(cpu.vendor, r.ebx, r.edx, r.ecx);
	cpu.amd = !kstrcmp(cpu.vendor, "AuthenticAMD") || !kstrcmp(cpu.vendor, "HygonGenuine");
	r = cpuid(1, 0);
	fam = (r.eax >> 8) & 0xf;
	mod = (r.eax >> 4) & 0xf;
	if (fam == 0xf)
		fam += (r.eax >> 20) & 0xff;
	if (fam == 0x6 || fam >= 0xf)
		mod |= ((r.eax >> 16) & 0xf) << 4;
	cpu.family = fam;
	cpu.model = mod;
	cpu.stepping = r.eax & 0xf;
	hv.present = r.ecx & CPUID1_ECX_HYPERVISOR;
	read_brand();

	if (!hv.present)
		return;
	r = cpuid(CPUID_HV_BASE, 0);
	hv.max_leaf = r.eax;
	put_regs(hv.signature, r.ebx, r.ecx, r.edx);
	hv.kvm = !kstrncmp(hv.signature, "KVMKVMKVM", 9);
}
