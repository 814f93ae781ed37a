/*
 * kernel/main.c - init order and the run: probe, parse the command line,
 * run the selected suites, end the dump and exit through isa-debug-exit.
 */
#include "lib/types.h"
#include "kernel/console.h"
#include "platform/bootinfo.h"
#include "platform/firmware.h"
#include "platform/acpi_tables.h"
#include "kernel/cmdline.h"
#include "kernel/bench.h"
#include "kernel/phase_sync.h"
#include "lib/json.h"
#include "kernel/lava.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "kernel/version.h"
#include "platform/tsc_check.h"
#include "kernel/suites/suites.h"
#include "arch/x86/cpu.h"
#include "arch/x86/cpuinfo.h"
#include "arch/x86/trap.h"
#include "arch/x86/tsc.h"
#include "drivers/debug_exit.h"
#include "drivers/fw_cfg.h"

#define CMDLINE_FW_CFG_NAME "opt/trapmeter/cmdline"
/* the run record: ~720 bytes of fields at their longest beside the
 * command line (at most BOOTINFO_CMDLINE_MAX - 1 bytes, JSON-escaped) */
#define RUN_LINE_MAX 1536

static struct bootinfo boot;
static char fw_vendor[FIRMWARE_VENDOR_MAX];   /* SMBIOS BIOS vendor */
static struct tm_config config;
static char err_buf[320];
static char cmdline[BOOTINFO_CMDLINE_MAX];
static const char *cmdline_source = "loader";
static bool cmdline_cut;	/* longer than BOOTINFO_CMDLINE_MAX - 1 */
/* Entered by kmain_uefi: inside UEFI with boot services alive, on the
 * firmware's descriptor tables, which stay untouched (no trap_init) */
static bool in_uefi;

static const char *const status_names[] = {
	[TM_STATUS_OK] = "ok",
	[TM_STATUS_CHECK_FAILED] = "check-failed",
	[TM_STATUS_BAD_INPUT] = "bad-input",
	[TM_STATUS_EXCEPTION] = "exception",
};

/* A dropped machine line is lost data: never "ok". */
static void __attribute__((noreturn)) finish(enum tm_status status)
{
	if (status == TM_STATUS_OK && tm_lines_dropped())
		status = TM_STATUS_CHECK_FAILED;
	tm_end(status_names[status], bench_failed_checks());
	lava_case("trapmeter.", "status", status == TM_STATUS_OK ? LAVA_PASS :
		  LAVA_FAIL, status, "status");
	kprintf("trapmeter END status=%s\n", status_names[status]);
	debug_exit(status);
}

static void emit_error(const char *kind, const char *msg)
{
	char line[512];
	struct jw w;

	jw_record(&w, line, sizeof(line), "error");
	jw_str(&w, "kind", kind);
	jw_str(&w, "message", msg);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
	lava_case("error.", kind, LAVA_FAIL, 0, "none");
}

static void __attribute__((noreturn)) bad_input(const char *msg)
{
	kprintf("error: %s\n", msg);
	emit_error("bad-input", msg);
	finish(TM_STATUS_BAD_INPUT);
}

static void print_frame(const struct trap_frame *f)
{
	kprintf("\nexception %s (vector %lu) error_code=0x%lx\n",
		trap_name(f->vector), f->vector, f->error_code);
	kprintf("  rip=%016lx cs=%04lx rflags=%016lx rsp=%016lx ss=%04lx\n",
		f->rip, f->cs, f->rflags, f->rsp, f->ss);
	kprintf("  cr0=%016lx cr2=%016lx cr3=%016lx cr4=%016lx\n",
		read_cr0(), read_cr2(), read_cr3(), read_cr4());
	kprintf("  rax=%016lx rbx=%016lx rcx=%016lx rdx=%016lx\n",
		f->rax, f->rbx, f->rcx, f->rdx);
	kprintf("  rsi=%016lx rdi=%016lx rbp=%016lx r8 =%016lx\n",
		f->rsi, f->rdi, f->rbp, f->r8);
	kprintf("  r9 =%016lx r10=%016lx r11=%016lx r12=%016lx\n",
		f->r9, f->r10, f->r11, f->r12);
	kprintf("  r13=%016lx r14=%016lx r15=%016lx\n", f->r13, f->r14, f->r15);
}

static void on_fatal_trap(const struct trap_frame *f)
{
	static bool once;
	char line[256];
	struct jw w;

	if (once)          /* faulted while reporting a fault */
		debug_exit(TM_STATUS_EXCEPTION);
	once = true;
	print_frame(f);
	jw_record(&w, line, sizeof(line), "exception");
	jw_u64(&w, "vector", f->vector);
	jw_str(&w, "name", trap_name(f->vector));
	jw_hex(&w, "error_code", f->error_code);
	jw_hex(&w, "rip", f->rip);
	jw_hex(&w, "cr2", read_cr2());
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
	lava_case("exception.", trap_name(f->vector), LAVA_FAIL, f->vector,
		  "vector");
	finish(TM_STATUS_EXCEPTION);
}

/* The runner's fw_cfg file overrides the loader's line, so one ISO serves
 * every configuration. */
static void pick_cmdline(void)
{
	struct fw_cfg_file f;
	u32 len;

	kmemcpy(cmdline, boot.cmdline, sizeof(cmdline));
	cmdline_cut = boot.truncated;
	if (fw_cfg_find(CMDLINE_FW_CFG_NAME, &f) != 0)
		return;
	cmdline_cut = f.size > sizeof(cmdline) - 1;
	len = cmdline_cut ? sizeof(cmdline) - 1 : f.size;
	fw_cfg_read(f.select, cmdline, len);
	cmdline[len] = 0;
	cmdline_source = "fw_cfg";
}

/* "check": the second opinion from the ACPI PM timer (null: none) */
static void emit_tsc_check(struct jw *w)
{
	if (!tsc_check.done) {
		jw_null(w, "check");
		return;
	}
	jw_key_obj(w, "check");
	jw_str(w, "source", "acpi-pm");
	jw_u64(w, "khz", tsc_check.khz);
	jw_u64(w, "ms", tsc_check.ms);
	jw_s64(w, "diff_ppm", tsc_check.diff_ppm);
	jw_bool(w, "disagree", tsc_check.disagree);
	jw_bool(w, "replaced_guess", tsc_check.replaced);
	jw_obj_end(w);
}

/* The TSC against the PM timer; a warning when they disagree or the
 * timer never got there. */
static void check_tsc(void)
{
	if (tsc_check_run() == -ETIMEDOUT)
		kprintf("warning: the ACPI PM timer did not advance %u ms within %u ms: TSC not cross-checked\n",
			TSC_CHECK_MS, TSC_CHECK_WAIT_MS);
	if (tsc_check.disagree)
		kprintf("warning: TSC %lu kHz from %s but %lu kHz against the ACPI PM timer over %u ms (%ld ppm apart)\n",
			tsc.khz, tsc.source, tsc_check.khz, tsc_check.ms, tsc_check.diff_ppm);
}

static void emit_run_line(void)
{
	char line[RUN_LINE_MAX];
	struct jw w;

	jw_record(&w, line, sizeof(line), "run");
	jw_u64(&w, "schema", TM_SCHEMA);
	jw_str(&w, "version", TM_VERSION);
	jw_key_obj(&w, "cpu");
	jw_str(&w, "vendor", cpu.vendor);
	jw_u64(&w, "family", cpu.family);
	jw_u64(&w, "model", cpu.model);
	jw_u64(&w, "stepping", cpu.stepping);
	jw_str(&w, "brand", cpu.brand);
	jw_obj_end(&w);
	jw_str(&w, "hypervisor", hv.present ? hv.signature : "");
	jw_str(&w, "firmware", boot.firmware);
	jw_str(&w, "firmware_vendor", fw_vendor);
	jw_str(&w, "boot", boot.protocol);
	jw_str(&w, "loader", boot.loader);
	jw_key_obj(&w, "tsc");
	jw_u64(&w, "khz", tsc.khz);
	jw_str(&w, "source", tsc.source);
	jw_bool(&w, "invariant", tsc.invariant);
	jw_str(&w, "close", tsc.rdtscp ? "rdtscp;lfence" : "lfence;rdtsc;lfence");
	jw_bool(&w, "guess", tsc.guess);
	emit_tsc_check(&w);
	jw_obj_end(&w);
	jw_u64(&w, "timer_overhead_cycles", bench_timer_overhead);
	jw_str(&w, "cmdline", cmdline);
	jw_str(&w, "cmdline_source", cmdline_source);
	jw_u64(&w, "samples", config.samples);
	jw_bool(&w, "quick", config.quick);
	jw_bool(&w, "rep", config.rep);
	jw_bool(&w, "sync", config.sync);
	jw_u64(&w, "budget_ms", config.budget_ms);
	jw_u64(&w, "rounds", config.rounds);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
}

static void print_probe(void)
{
	kprintf("cpu: %s family %u model %u stepping %u \"%s\"\n", cpu.vendor,
		cpu.family, cpu.model, cpu.stepping, cpu.brand);
	kprintf("hypervisor: %s\n", hv.present ? hv.signature : "(none)");
	kprintf("boot: %s via %s (%s), firmware %s\n", boot.protocol,
		boot.loader[0] ? boot.loader : "?", cmdline_source, boot.firmware);
	kprintf("tsc: %lu kHz from %s%s, %sinvariant, closed by %s; timer overhead %lu cycles\n",
		tsc.khz, tsc.source, tsc.guess ? " (A GUESS: time figures are marked)" : "", tsc.invariant ? "" : "not ",
		tsc.rdtscp ? "rdtscp;lfence" : "lfence;rdtsc;lfence", bench_timer_overhead);
	kprintf("cmdline: \"%s\"\n", cmdline);
}

/* Test hook (fault=...): raise the named exception on purpose. */
static void raise_fault(enum cmdline_fault f)
{
	static const u32 vectors[] = {
		[FAULT_UD] = TRAP_UD, [FAULT_GP] = TRAP_GP, [FAULT_PF] = TRAP_PF,
		[FAULT_DE] = TRAP_DE, [FAULT_BP] = TRAP_BP,
	};

	if (f == FAULT_NONE || f >= ARRAY_SIZE(vectors))
		return;
	kprintf("fault hook: raising %s on purpose\n", trap_name(vectors[f]));
	trap_raise(vectors[f]);
}

/*
 * pio, mmio, exits.  With rounds=N the rounds of pio and exits alternate
 * (pio 0, exits 0, pio 1, ...), so that each case's rounds are spread
 * over the whole boot: the host's slow episodes last seconds and cover
 * neighbouring cases (docs/design.md, "Statistics and verdicts").  mmio
 * runs once, before exits: its last cases leave the local APIC in x2APIC
 * mode.
 */
static void run_timing_suites(void)
{
	u32 r;

	for (r = 0; r < config.rounds; r++) {
		if (config.suites & SUITE_PIO)
			suite_pio_round(&config, r);
		if (r == 0 && (config.suites & SUITE_MMIO))
			suite_mmio(&config);
		if (config.suites & SUITE_EXITS)
			suite_exits_round(&config, r);
	}
}

/*
 * build/trapmeter-fw.elf (boot/boot.asm's _start_efi64): suite firmware
 * runs on the firmware's tables, then the run ends.  That image runs this
 * suite alone; the others run from the default image.
 */
static void __attribute__((noreturn)) run_in_uefi(void)
{
	if (config.suites != SUITE_FIRMWARE)
		bad_input("this image (build/trapmeter-fw.elf) runs suite=firmware alone; "
			  "the other suites run from build/trapmeter.iso");
	suite_firmware(&config, boot.efi_system_table, boot.efi_image_handle,
		       boot.efi_boot_services);
	bench_plan_report();
	if (cmdline_unmatched_globs(&config, err_buf, sizeof(err_buf)))
		bad_input(err_buf);
	finish(bench_failed_checks() ? TM_STATUS_CHECK_FAILED : TM_STATUS_OK);
}

void kmain(u32 magic, u32 info);
void kmain_uefi(u32 magic, u32 info);
void kmain_uefi(u32 magic, u32 info)
{
	in_uefi = true;
	kmain(magic, info);
}

void kmain(u32 magic, u32 info)
{
	char err[320];

	console_init();
	if (!in_uefi)
		trap_init(on_fatal_trap);
	kprintf("\ntrapmeter %s START\n", TM_VERSION);
	if (bootinfo_parse(magic, (const void *)(uintptr_t)info, &boot) != 0)
		kprintf("warning: unknown boot magic 0x%x; no command line\n", magic);
	boot.firmware = firmware_detect(boot.firmware, fw_vendor, sizeof(fw_vendor));
	acpi_use_rsdp(boot.rsdp, boot.rsdp_len);
	cpuinfo_init();
	fw_cfg_init();
	pick_cmdline();
	lava_init(console_write, cmdline_lava_requested(cmdline));
	cmdline_defaults(&config);
	if (cmdline_cut) {
		/* the words after the cut were never seen: refuse the line */
		fmt_snprintf(err, sizeof(err), "command line longer than %u bytes (%s): "
			     "words past the limit would be lost; shorten it",
			     (unsigned)(sizeof(cmdline) - 1), cmdline_source);
		bad_input(err);
	}
	if (cmdline_parse(cmdline, &config, err, sizeof(err)) != 0)
		bad_input(err);
	tsc_init();
	check_tsc();
	bench_init(&config);
	if (bench_load_plan(err, sizeof(err)) != 0) {
		kprintf("error: %s\n", err);
		emit_error("bad-input", err);
		finish(TM_STATUS_BAD_INPUT);
	}
	print_probe();
	emit_run_line();
	if (config.sync)
		sync_background();
	if (in_uefi)
		run_in_uefi();
	if (config.fault != FAULT_NONE)
		raise_fault(config.fault);
	run_timing_suites();
	if (config.suites & SUITE_IDE)
		suite_ide(&config);
	if (config.suites & SUITE_VIRTIO)
		suite_virtio(&config);
	if (config.suites & SUITE_DMA)
		suite_dma(&config);
	if (config.suites & SUITE_FIRMWARE)   /* here only to say why it skips */
		suite_firmware(&config, boot.efi_system_table, boot.efi_image_handle,
			       boot.efi_boot_services);
	bench_plan_report();
	if (cmdline_unmatched_globs(&config, err, sizeof(err)))
		bad_input(err);
	if (config.fail_check)
		bench_check("hook.fail_check", false,
			    "test hook fail_check=on: fails on purpose");
	finish(bench_failed_checks() ? TM_STATUS_CHECK_FAILED : TM_STATUS_OK);
}
