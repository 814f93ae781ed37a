/*
 * tests/host/c/shadow/arch/x86/cpu.h - what "arch/x86/cpu.h" means in host
 * unit tests (see shadow/arch/x86/io.h): CPUID and MSR accesses go to the
 * test's fake CPU (tests/host/c/fake_cpu.h), fences and pause are no-ops.
 * A host test that links a file including arch/x86/cpu.h links
 * tests/host/c/fake_cpu.c too.
 */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include "tests/host/c/fake_cpu.h"

static inline void cpu_relax(void) { }
static inline void barrier(void) { __asm__ volatile("" ::: "memory"); }
static inline void mfence(void) { }

#endif
