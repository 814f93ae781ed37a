# trapmeter - build the guest kernel and ISO, run it, test it.
#   make            build/trapmeter.elf and build/trapmeter.iso
#   make run        boot it under QEMU (KVM when usable) and print results
#   make bench      BENCH_BOOTS boots: wall time and per-case precision
#   make test       host unit tests + boot tests; ends "N passed, N failed, N skipped"
#   make lava-test  only the LAVA tests (lava-run on the ISO under TCG)
#   make acceptance KVM acceptance of `trapmeter compare` (minutes)
#   make V=1        show full commands

.DELETE_ON_ERROR:
.SUFFIXES:

BUILD   := build
CC      := gcc
NASM    := nasm
LD      := ld
PYTHON  := python3

ifeq ($(V),1)
Q :=
else
Q := @
endif

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
KCFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdlib \
           -mgeneral-regs-only -mno-red-zone -march=x86-64 -mtune=generic \
           -fno-stack-protector -fno-pic -fno-pie -fno-asynchronous-unwind-tables \
           -fno-omit-frame-pointer $(WARN) -I. -MMD -MP
HOSTCFLAGS := -std=gnu11 -O1 -g -DTM_HOST -fsanitize=address,undefined \
           -fno-sanitize-recover=all -Wall -Wextra -Werror -Itests/host/c/shadow -I. -MMD -MP
LDFLAGS := -nostdlib -static -z noexecstack -z max-page-size=0x1000 --no-warn-rwx-segments -T linker.ld

ASM_SRCS := \
	boot/boot.asm \
	arch/x86/irq_entry.asm \
	arch/x86/isr.asm \
	arch/x86/trampoline.asm \
	platform/efi_call.asm

C_SRCS := \
	arch/x86/cpuinfo.c \
	arch/x86/irq.c \
	arch/x86/paging.c \
	arch/x86/smp.c \
	arch/x86/trap.c \
	arch/x86/tsc.c \
	drivers/acpi_pm.c \
	drivers/ata.c \
	drivers/debug_exit.c \
	drivers/fw_cfg.c \
	drivers/ide_bm.c \
	drivers/ide_prd.c \
	drivers/lapic.c \
	drivers/pci.c \
	drivers/pci_testdev.c \
	drivers/pit_watchdog.c \
	drivers/uart16550.c \
	drivers/virtio_net.c \
	drivers/virtio_pci.c \
	drivers/virtq.c \
	drivers/vtd.c \
	drivers/vtd_tables.c \
	lib/crc32.c \
	lib/fmt.c \
	lib/glob.c \
	lib/json.c \
	lib/stats.c \
	lib/string.c \
	model/model.c \
	model/model_mmio.c \
	platform/acpi_tables.c \
	platform/bootinfo.c \
	platform/efi.c \
	platform/efi_step.c \
	platform/firmware.c \
	platform/smbios.c \
	platform/tsc_check.c \
	kernel/bench.c \
	kernel/cmdline.c \
	kernel/console.c \
	kernel/dump.c \
	kernel/lava.c \
	kernel/main.c \
	kernel/phase_sync.c \
	kernel/plan.c \
	kernel/suites/dma.c \
	kernel/suites/dma_vnet.c \
	kernel/suites/dma_vtd.c \
	kernel/suites/edk2_fifo.c \
	kernel/suites/exits.c \
	kernel/suites/exits_ple.c \
	kernel/suites/exits_ipi.c \
	kernel/suites/exits_upages.c \
	kernel/suites/exits_vmexit.c \
	kernel/suites/firmware.c \
	model/fwaudit.c \
	kernel/suites/ide.c \
	kernel/suites/idepat.c \
	kernel/suites/irq.c \
	kernel/suites/mmio.c \
	kernel/suites/netframe.c \
	kernel/suites/pio.c \
	kernel/suites/pio_table.c \
	kernel/suites/virtio.c

OBJS := $(ASM_SRCS:%.asm=$(BUILD)/%.o) $(C_SRCS:%.c=$(BUILD)/%.o)
ELF  := $(BUILD)/trapmeter.elf
ISO  := $(BUILD)/trapmeter.iso
# suite firmware's image: the same objects, boot.asm with the multiboot2
# header tags 7 and 9 (GRUB-EFI keeps boot services, enters in 64-bit mode);
# every other boot uses ELF and ISO, which are built without them
FW_BOOT := $(BUILD)/boot/boot_fw.o
FW_OBJS := $(FW_BOOT) $(filter-out $(BUILD)/boot/boot.o,$(OBJS))
FW_ELF  := $(BUILD)/trapmeter-fw.elf
FW_ISO  := $(BUILD)/trapmeter-fw.iso
# LD_PRELOAD shim that delays every exit to QEMU (trapmeter sensitivity)
SHIM := $(BUILD)/kvm_delay.so

# Host unit tests: test name -> the pure files it links.
HOST_TESTS := fmt crc32 glob stats cmdline json dump string bootinfo smbios model lava virtq virtio_pci ata model_mmio tsc \
              virtio_net netframe bench plan pio pit lapic tsc_check uart ide_prd ide_bm vtd \
              acpi_tables fwaudit
HOST_DEPS_fmt      := lib/fmt.c lib/string.c
HOST_DEPS_crc32    := lib/crc32.c
HOST_DEPS_glob     := lib/glob.c
HOST_DEPS_stats    := lib/stats.c lib/string.c
HOST_DEPS_cmdline  := kernel/cmdline.c lib/glob.c lib/fmt.c lib/string.c
HOST_DEPS_json     := lib/json.c lib/fmt.c lib/string.c
HOST_DEPS_dump     := kernel/dump.c lib/crc32.c lib/fmt.c lib/string.c
HOST_DEPS_string   := lib/string.c
HOST_DEPS_bootinfo := platform/bootinfo.c lib/string.c
HOST_DEPS_smbios   := platform/smbios.c lib/string.c
HOST_DEPS_model    := model/model.c
HOST_DEPS_model_mmio := model/model_mmio.c
HOST_DEPS_lava     := kernel/lava.c lib/fmt.c lib/string.c
HOST_DEPS_virtq    := drivers/virtq.c
HOST_DEPS_virtio_pci := drivers/virtio_pci.c drivers/virtq.c drivers/pci.c tests/host/c/fake_io.c
HOST_DEPS_virtio_net := drivers/virtio_net.c drivers/virtio_pci.c drivers/virtq.c drivers/pci.c \
                        lib/string.c tests/host/c/fake_io.c
HOST_DEPS_netframe := kernel/suites/netframe.c
HOST_DEPS_ide_prd  := drivers/ide_prd.c
HOST_DEPS_ide_bm   := drivers/ide_bm.c drivers/ata.c drivers/pci.c lib/fmt.c lib/string.c \
                      arch/x86/tsc.c arch/x86/cpuinfo.c tests/host/c/fake_cpu.c tests/host/c/fake_io.c \
                      tests/host/c/fake_tsc.c
HOST_DEPS_vtd      := drivers/vtd_tables.c lib/string.c
HOST_DEPS_acpi_tables := platform/acpi_tables.c lib/string.c
HOST_DEPS_fwaudit  := model/fwaudit.c model/model.c lib/string.c
HOST_DEPS_ata      := drivers/ata.c drivers/pci.c kernel/suites/idepat.c model/model.c \
                      lib/fmt.c lib/string.c tests/host/c/fake_io.c arch/x86/tsc.c \
                      arch/x86/cpuinfo.c tests/host/c/fake_cpu.c tests/host/c/fake_tsc.c
BENCH_CORE := kernel/bench.c lib/stats.c kernel/plan.c model/model.c kernel/cmdline.c \
              lib/glob.c kernel/lava.c kernel/phase_sync.c lib/json.c lib/fmt.c lib/string.c \
              drivers/fw_cfg.c arch/x86/tsc.c arch/x86/cpuinfo.c tests/host/c/fake_cpu.c tests/host/c/fake_io.c \
              tests/host/c/fake_fw_cfg.c tests/host/c/fake_tsc.c tests/host/c/fake_console.c
HOST_DEPS_bench    := $(BENCH_CORE)
HOST_DEPS_plan     := kernel/plan.c lib/fmt.c lib/string.c
HOST_DEPS_pio      := $(BENCH_CORE) kernel/suites/pio.c kernel/suites/pio_table.c drivers/acpi_pm.c drivers/pci.c \
                      kernel/suites/edk2_fifo.c model/model_mmio.c drivers/pci_testdev.c
HOST_DEPS_tsc      := arch/x86/tsc.c tests/host/c/fake_cpu.c tests/host/c/fake_io.c tests/host/c/fake_tsc.c
HOST_DEPS_pit      := arch/x86/tsc.c tests/host/c/fake_cpu.c tests/host/c/fake_io.c tests/host/c/fake_tsc.c
HOST_DEPS_uart     := drivers/uart16550.c arch/x86/tsc.c arch/x86/cpuinfo.c tests/host/c/fake_cpu.c \
                      tests/host/c/fake_io.c tests/host/c/fake_tsc.c lib/string.c
HOST_DEPS_tsc_check := platform/tsc_check.c arch/x86/tsc.c arch/x86/cpuinfo.c tests/host/c/fake_cpu.c \
                      tests/host/c/fake_io.c tests/host/c/fake_tsc.c lib/string.c
HOST_DEPS_lapic    := drivers/lapic.c arch/x86/tsc.c arch/x86/cpuinfo.c tests/host/c/fake_cpu.c tests/host/c/fake_io.c \
                      tests/host/c/fake_tsc.c lib/string.c
HOST_BINS := $(HOST_TESTS:%=$(BUILD)/host/test_%)

.PHONY: all iso elf run bench test test-deps lava-test acceptance host-tests deps clean
all: $(ELF) $(ISO) $(FW_ISO) $(SHIM)
elf: $(ELF)
iso: $(ISO)

$(BUILD)/%.o: %.asm
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NASM    $<")
	$(Q)$(NASM) -f elf64 -g -F dwarf -MD $(@:.o=.d) -MP -o $@ $<

$(FW_BOOT): boot/boot.asm
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NASM    $@")
	$(Q)$(NASM) -f elf64 -g -F dwarf -DFIRMWARE_ENTRY -MD $(@:.o=.d) -MP -MT $@ -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KCFLAGS) -c -o $@ $<

$(ELF): $(OBJS) linker.ld tools/check-elf
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS)
	$(Q)$(PYTHON) tools/check-elf $@
	$(Q)! objdump -d $@ | grep -q -E '%[xyz]mm|%st\(' || \
		{ echo "$@: SSE/x87 instructions found; the kernel must use general registers only" >&2; exit 1; }

$(ISO): $(ELF) boot/grub.cfg
	@$(if $(Q),echo "  ISO     $@")
	@rm -rf $(BUILD)/isoroot && mkdir -p $(BUILD)/isoroot/boot/grub
	$(Q)cp $(ELF) $(BUILD)/isoroot/boot/trapmeter.elf
	$(Q)cp boot/grub.cfg $(BUILD)/isoroot/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $@ $(BUILD)/isoroot >$(BUILD)/grub-mkrescue.log 2>&1 || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

$(FW_ELF): $(FW_OBJS) linker.ld tools/check-elf
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(LDFLAGS) -o $@ $(FW_OBJS)
	$(Q)$(PYTHON) tools/check-elf $@

$(FW_ISO): $(FW_ELF) boot/grub.cfg
	@$(if $(Q),echo "  ISO     $@")
	@rm -rf $(BUILD)/isoroot-fw && mkdir -p $(BUILD)/isoroot-fw/boot/grub
	$(Q)cp $(FW_ELF) $(BUILD)/isoroot-fw/boot/trapmeter.elf
	$(Q)cp boot/grub.cfg $(BUILD)/isoroot-fw/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $@ $(BUILD)/isoroot-fw >$(BUILD)/grub-mkrescue-fw.log 2>&1 || \
		{ cat $(BUILD)/grub-mkrescue-fw.log; exit 1; }

$(SHIM): tools/shim/kvm_delay.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  SHIM    $@")
	$(Q)$(CC) -std=gnu11 -O2 -g -shared -fPIC $(WARN) -o $@ $< -ldl

.SECONDEXPANSION:
$(BUILD)/host/test_%: tests/host/c/test_%.c $$(HOST_DEPS_$$*)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(CC) $(HOSTCFLAGS) -o $@ $< $(HOST_DEPS_$*)
	@# -MMD keeps only the last source's headers: every source's, for $@
	$(Q)$(CC) $(filter-out -MMD,$(HOSTCFLAGS)) -MM -MT $@ $< \
		$(HOST_DEPS_$*) > $@.d

host-tests: $(HOST_BINS)

# The host tests' C files moved from tests/host to tests/host/c: a .d file
# written before names the old paths, and make would stop on them ("No rule
# to make target").  Those paths, with nothing to do, make the binary
# rebuild instead, which writes a fresh .d.
HOST_MOVED := $(patsubst tests/host/c/%,tests/host/%,$(wildcard \
              tests/host/c/*.[ch] tests/host/c/shadow/*.h tests/host/c/shadow/*/*.h \
              tests/host/c/shadow/*/*/*.h))
$(HOST_MOVED): ;

deps:
	$(Q)tools/deps

# what this run needs and no more: the default run boots the ELF directly
# (the runner builds what its options need: the ISO only for --boot iso or
# suite ide's CD).  On a bare machine the build's packages install first and
# the ELF builds while QEMU's install (docs/testing.md, "A newcomer's
# make run"); the runner waits for that build, and redoes it with its errors
# shown if it failed.
run:
	$(Q)tools/deps build-first
	$(Q)mkdir -p $(BUILD); $(MAKE) -s -j$$(nproc) elf >$(BUILD)/make-run-elf.log 2>&1 & \
	pid=$$!; tools/deps run $(ARGS); rc=$$?; wait $$pid; exit $$rc
	tools/trapmeter run $(ARGS)

# make bench: BENCH_BOOTS boots of the default run, then wall time per boot
# and every case's boot-to-boot spread (tools/bench-report)
BENCH_BOOTS ?= 3
bench: deps all
	tools/trapmeter run --no-build --repeat $(BENCH_BOOTS) --json $(BUILD)/bench.json $(ARGS); \
	rc=$$?; $(PYTHON) tools/bench-report $(BUILD)/bench.json && exit $$rc

# the packages first, then the kernel, the images and the ~30 sanitizer
# binaries on every CPU (serially they took twice as long: docs/testing.md)
test: test-deps
	$(Q)$(MAKE) -j$$(nproc) all host-tests
	$(Q)$(PYTHON) tests/run_tests.py

# what `make test` needs beyond `make run` (gnuplot, lava-run, ...), so
# that no test skips: installed as root, else the exact command is named
test-deps:
	$(Q)tools/deps test

lava-test: test-deps all host-tests
	$(Q)$(PYTHON) tests/run_tests.py lava

# KVM acceptance of `trapmeter compare` (A/A, kernel-irqchip off, rep=off;
# a few minutes): see tests/acceptance/test_kvm_compare.py
acceptance: deps all
	$(Q)$(PYTHON) tests/run_tests.py --acceptance

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d) $(FW_BOOT:.o=.d) $(HOST_BINS:=.d)
