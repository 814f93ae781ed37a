/*
 * model/model.h - how many VM exits KVM takes for a port I/O operation,
 * by the model in docs/design.md (read from KVM's x86 emulator).  The host runner's
 * measured counts are the truth; this is what we expect.
 */
#ifndef MODEL_MODEL_H
#define MODEL_MODEL_H

#include "lib/types.h"

/* The emulator's PIO read-ahead cache (struct read_cache) holds this much. */
#define MODEL_PIO_CACHE_BYTES 1024
/* Without read-ahead, a REP string instruction re-enters the guest after
 * this many iterations. */
#define MODEL_REP_ITER_CHUNK  1024
#define MODEL_PAGE_SIZE       4096

/*
 * `rep ins` of `bytes` into a buffer at address `addr` (DF=0): every exit
 * fills at most the read-ahead cache, and at most as many *units* as there
 * are *bytes* left in the page (KVM's rule, see model.c): 8-bit chunks end
 * at a page end, 16/32-bit chunks may run past it.
 */
u32 model_rep_in_exits(u64 addr, u32 bytes, u32 width);

/* `rep outs` to a port KVM handles itself: one exit per chunk of
 * iterations.  (To a QEMU port every unit is its own exit.) */
u32 model_rep_out_kernel_exits(u32 units);

/* ---- MMIO and coalesced I/O (model/model_mmio.c) ------------------------
 * Read from KVM's x86 emulator (arch/x86/kvm/x86.c emulator_read_write,
 * x86_emulate_instruction; emulate.c decode_operand, x86_emulate_insn):
 * an access to MMIO nobody in the kernel claims leaves KVM as
 * KVM_EXIT_MMIO, one exit per fragment of at most 8 bytes that never
 * crosses a page.  REP MOVS/STOS are emulated one iteration at a time
 * (their operand count is 1, unlike `rep ins`, which fills a read-ahead
 * cache), and a pending MMIO exit is taken before the emulator restarts
 * the next iteration: every unit is its own exit to QEMU.  What differs
 * is the way back (complete_emulated_mmio): after a read KVM resumes the
 * emulator in the kernel (complete_emulated_io), so the guest is not
 * re-entered until the 1024-iteration restart; after a write it returns
 * to the guest, which re-executes the REP instruction: one VM exit per
 * unit.  Accesses the kernel claims (in-kernel LAPIC/IOAPIC, ioeventfd,
 * coalesced zones) re-enter the guest only every 1024 iterations, like
 * in-kernel PIO.  Measured here (QMP mmio_exits / exits) as read.
 */
#define MODEL_MMIO_FRAGMENT     8
/* virt/kvm/coalesced_mmio.h: (PAGE_SIZE - ring header) / 24-byte entry;
 * one entry always stays free, so a write finds the ring full once per
 * this many writes, goes to QEMU as a plain exit, and QEMU drains it. */
#define MODEL_COALESCED_RING    170

/* Exits to QEMU of one access of `width` bytes at addr (1, or 2 when it
 * straddles a page end). */
u32 model_mmio_access_exits(u64 addr, u32 width);

/* VM exits of a REP MOVS/STOS of `units` units: every unit when QEMU
 * answers writes (user_write), one per 1024 iterations otherwise (the
 * kernel answers, or QEMU answers reads and KVM resumes the emulator).
 * Round trips to QEMU are `units` whenever QEMU answers. */
u32 model_mmio_string_exits(u32 units, bool user_write);

/* Round trips to QEMU per `writes` coalesced writes, in thousandths
 * (writes * 1000 / MODEL_COALESCED_RING, rounded): each write is still a
 * VM exit, but only one in MODEL_COALESCED_RING reaches QEMU. */
u32 model_coalesced_user_exits_milli(u32 writes);

/* The piece of a `width`-byte MMIO write at `addr` that QEMU's memory
 * core hands a device at `addr` itself (for a region whose ops set no
 * valid.max_access_size and no impl.unaligned, like pci-testdev's):
 * - after a KVM exit (KVM_EXIT_MMIO -> address_space_rw ->
 *   flatview_write_continue), memory_access_size cuts the write into
 *   pieces of at most 4 bytes, each no wider than its address's
 *   alignment: 4 bytes at 2050 go as 2 + 2, 8 bytes as 2 + 2 + 2 + 2;
 * - under TCG (accel/tcg/cputlb.c store_helper) an aligned write goes
 *   whole and an unaligned one "recurses through byte stores": 1.
 * The device's eventfds are matched against this piece (by KVM, or by
 * QEMU itself under TCG: memory.c memory_region_dispatch_write_eventfds),
 * before the device's impl sizes split it further. */
#define MODEL_QEMU_MMIO_PIECE_MAX 4
u32 model_qemu_mmio_piece(u64 addr, u32 width, bool kvm_exit);

#endif
