/*
 * kernel/suites/dma_vtd.c - suite dma's Intel VT-d set-up (see dma_vtd.h).
 *
 * The tables: one root table (bus 0's entry), one context table, the
 * device's second-level tables from a pool, rebuilt for each mode.  After
 * each change the context cache and the IOTLB are invalidated globally
 * (register-based; the spec's order: context cache first, 6.5.3).
 * Translated modes map the kernel image (linker.ld: __load_start to
 * __bss_end, rounded out to 2 MiB) one to one, so every buffer and PRD
 * table the suite uses has IOVA = physical address.
 */
#include "kernel/suites/dma_vtd.h"
#include "kernel/bench.h"
#include "kernel/console.h"
#include "platform/acpi_tables.h"
#include "drivers/vtd.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"

#define POOL_PAGES     64              /* 4 KiB leaves for up to ~120 MiB */
#define DOMAIN_ID      1
#define UNMAPPED_IOVA  0x3fff0000ull   /* 1 GiB - 64 KiB: above the image */
#define VER_MAJOR_SHIFT 4              /* VER_REG: major 7:4, minor 3:0 */
#define VER_NIBBLE     0xfu
#define MAX_DEVICES    8               /* the IDE function and three NICs */

extern const u8 __load_start[], __bss_end[];

static struct vtd_root_entry root[VTD_ROOT_ENTRIES] __attribute__((aligned(VTD_PAGE)));
static struct vtd_context_entry ctx[VTD_CTX_ENTRIES] __attribute__((aligned(VTD_PAGE)));
static u64 pool_pages[POOL_PAGES][VTD_ENTRIES] __attribute__((aligned(VTD_PAGE))) NOCLEAR;
static struct vtd_pool pool = { pool_pages, POOL_PAGES, 0 };
static struct vtd_space spaces[2];     /* 4 KiB leaves, 2 MiB leaves */
static bool spaces_built;
static struct vtd_unit unit;
static struct dmar_unit drhd;
static bool have_unit, root_set, te_on;
static u8 devfns[MAX_DEVICES];         /* attached devices, all on bus 0 */
static u32 n_devices;
static u8 mode_now;
static bool devices_changed;           /* attached since the last enter */

static const char *const mode_names[DMA_MODE_COUNT] = {
	[DMA_MODE_NONE] = "none", [DMA_MODE_OFF] = "off", [DMA_MODE_PT] = "pt",
	[DMA_MODE_4K] = "4k", [DMA_MODE_2M] = "2m",
};
static const char *const mode_suffixes[DMA_MODE_COUNT] = {
	[DMA_MODE_NONE] = "", [DMA_MODE_OFF] = ".vtd_off", [DMA_MODE_PT] = ".vtd_pt",
	[DMA_MODE_4K] = "", [DMA_MODE_2M] = ".vtd_2m",
};

const char *dma_mode_name(u8 mode)
{
	return mode < DMA_MODE_COUNT ? mode_names[mode] : "?";
}

const char *dma_mode_suffix(u8 mode)
{
	return mode < DMA_MODE_COUNT ? mode_suffixes[mode] : "";
}

bool dma_mode_available(u8 mode)
{
	switch (mode) {
	case DMA_MODE_NONE: return !have_unit;
	case DMA_MODE_OFF: case DMA_MODE_4K: return have_unit;
	case DMA_MODE_PT: return have_unit && (unit.ecap & VTD_ECAP_PT);
	case DMA_MODE_2M: return have_unit && (unit.cap & VTD_CAP_SLLPS_2M);
	default: return false;
	}
}

static void emit_unit(void)
{
	char line[300];
	struct jw w;

	kprintf("  dma: VT-d unit at 0x%lx: version %u.%u, %u-level tables, cap 0x%lx ecap 0x%lx\n",
		(unsigned long)drhd.regbase, unit.version >> VER_MAJOR_SHIFT & VER_NIBBLE,
		unit.version & VER_NIBBLE,
		unit.levels, (unsigned long)unit.cap, (unsigned long)unit.ecap);
	jw_record(&w, line, sizeof(line), "iommu");
	jw_str(&w, "kind", "intel-vtd");
	jw_hex(&w, "regbase", drhd.regbase);
	jw_hex(&w, "cap", unit.cap);
	jw_hex(&w, "ecap", unit.ecap);
	jw_u64(&w, "levels", unit.levels);
	jw_bool(&w, "pass_through", unit.ecap & VTD_ECAP_PT);
	jw_bool(&w, "superpage_2m", unit.cap & VTD_CAP_SLLPS_2M);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
}

u8 dma_vtd_probe(void)
{
	const void *dmar;
	char detail[120];
	u32 len = 0;
	int rc;

	have_unit = root_set = te_on = spaces_built = devices_changed = false;
	n_devices = 0;
	mode_now = DMA_MODE_NONE;
	dmar = acpi_find_table("DMAR", &len);
	if (!dmar)
		return DMA_MODE_NONE;
	rc = acpi_dmar_first_unit(dmar, len, &drhd);
	if (!rc)
		rc = vtd_init(&unit, drhd.regbase);
	if (rc) {
		fmt_snprintf(detail, sizeof(detail), "DMAR table found, but its unit %s (%d)",
			     rc == -ENOENT ? "list has no DRHD" : "did not answer", rc);
		bench_check("dma.vtd.init", false, detail);
		return DMA_MODE_NONE;
	}
	have_unit = true;
	vtd_clear_faults(&unit);
	emit_unit();
	mode_now = DMA_MODE_OFF;
	return mode_now;
}

int dma_vtd_attach(u8 bus, u8 devfn)
{
	u32 i;

	if (bus != 0)
		return -EINVAL;
	for (i = 0; i < n_devices; i++)
		if (devfns[i] == devfn)
			return 0;
	if (n_devices == MAX_DEVICES)
		return -ENOSPC;
	devfns[n_devices++] = devfn;
	devices_changed = true;
	return 0;
}

u8 dma_vtd_mode(void)
{
	return mode_now;
}

/* Second-level tables mapping the kernel image, once with 4 KiB and once
 * with 2 MiB leaves, built the first time a translated mode is entered;
 * a mode change then rewrites only the context entry (the suite runs a
 * case's modes back to back, so that a host whose pace drifts moves
 * them together). */
static int build_spaces(void)
{
	u64 lo = (u64)(uintptr_t)__load_start & ~(VTD_PAGE_2M - 1);
	u64 hi = ALIGN_UP((u64)(uintptr_t)__bss_end, VTD_PAGE_2M);
	static const u64 leaf[2] = { VTD_PAGE, VTD_PAGE_2M };
	int rc = 0;
	u32 i;

	pool.used = 0;
	for (i = 0; i < 2 && !rc; i++) {
		rc = vtd_space_init(&spaces[i], &pool, unit.levels);
		if (!rc)
			rc = vtd_map(&spaces[i], lo, lo, hi - lo, leaf[i], VTD_SL_R | VTD_SL_W);
	}
	spaces_built = !rc;
	return rc;
}

static int set_context(u8 mode)
{
	int rc = spaces_built ? 0 : build_spaces();
	u32 i;

	if (rc)
		return rc;
	for (i = 0; i < n_devices; i++) {
		if (mode == DMA_MODE_PT)
			vtd_context_set(ctx, devfns[i], VTD_TT_PASS, NULL, unit.levels, DOMAIN_ID);
		else
			vtd_context_set(ctx, devfns[i], VTD_TT_TRANSLATED,
					spaces[mode == DMA_MODE_2M].top, unit.levels, DOMAIN_ID);
	}
	vtd_root_set(root, 0, ctx);
	return 0;
}

static int program(u8 mode, const char **step)
{
	int rc;

	*step = "second-level tables";
	rc = set_context(mode);
	if (!rc && !root_set) {
		*step = "root table pointer (GCMD.SRTP)";
		rc = vtd_set_root(&unit, root);
		root_set = !rc;
	}
	if (!rc) {
		*step = "context-cache invalidation";
		rc = vtd_flush_context(&unit);
	}
	if (!rc) {
		*step = "IOTLB invalidation";
		rc = vtd_flush_iotlb(&unit);
	}
	if (!rc && !te_on) {
		*step = "translation enable (GCMD.TE)";
		rc = vtd_translation(&unit, true);
		te_on = !rc;
	}
	return rc;
}

int dma_vtd_enter(u8 mode)
{
	const char *step = "translation disable (GCMD.TE)";
	char detail[160];
	int rc;

	if (!have_unit || mode == DMA_MODE_NONE)
		return 0;
	if (mode == mode_now && !devices_changed)
		return 0;
	if (mode == DMA_MODE_OFF) {
		rc = te_on ? vtd_translation(&unit, false) : 0;
		te_on = te_on && rc;
	} else {
		rc = program(mode, &step);
	}
	if (rc) {
		fmt_snprintf(detail, sizeof(detail), "mode %s: %s failed (%d)",
			     dma_mode_name(mode), step, rc);
		bench_check("dma.vtd.mode", false, detail);
		mode_now = DMA_MODE_COUNT;      /* unknown: the next enter programs */
		return rc;
	}
	mode_now = mode;
	devices_changed = devices_changed && mode == DMA_MODE_OFF;
	return 0;
}

int dma_vtd_invalidate_iotlb(void)
{
	return have_unit ? vtd_flush_iotlb(&unit) : 0;
}

u32 dma_vtd_inval_accesses(void)
{
	u64 before = unit.accesses;

	if (!have_unit || vtd_flush_iotlb(&unit))
		return 0;
	return (u32)(unit.accesses - before);
}

bool dma_vtd_fault(char *detail, size_t len, struct vtd_fault *f)
{
	if (!have_unit || !vtd_take_fault(&unit, f))
		return false;
	fmt_snprintf(detail, len, "VT-d fault: %s of IOVA 0x%lx by %02x:%02x.%u: reason %u (%s)",
		     f->read ? "read" : "write", (unsigned long)f->addr, f->sid >> 8,
		     (f->sid >> 3) & 0x1f, f->sid & 7, f->reason, vtd_fault_reason(f->reason));
	return true;
}

u64 dma_vtd_unmapped_iova(void)
{
	return UNMAPPED_IOVA;
}

void dma_vtd_leave(void)
{
	if (have_unit && te_on && !vtd_translation(&unit, false))
		te_on = false;
	if (have_unit && !te_on)
		mode_now = DMA_MODE_OFF;
}
