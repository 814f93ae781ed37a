/*
 * arch/x86/barrier.h - memory barriers between the driver and a device
 * that shares memory with it (virtio 1.x, 2.7.13 "the driver MUST perform
 * a suitable memory barrier").  x86 keeps stores in order and loads in
 * order (TSO), so the write and read barriers only stop the compiler; the
 * full barrier orders an earlier store before a later load, which x86
 * does not do by itself.  TM_HOST builds (unit tests) use the compiler's
 * fences so the same bookkeeping code runs on the host.
 */
#ifndef ARCH_X86_BARRIER_H
#define ARCH_X86_BARRIER_H

#ifdef TM_HOST
#define virt_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define virt_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define virt_mb()  __atomic_thread_fence(__ATOMIC_SEQ_CST)
#else
/* a locked add to the stack top is a full fence, cheaper than mfence */
#define virt_wmb() __asm__ volatile("" ::: "memory")
#define virt_rmb() __asm__ volatile("" ::: "memory")
#define virt_mb()  __asm__ volatile("lock; addl $0, (%%rsp)" ::: "memory", "cc")
#endif

#endif
