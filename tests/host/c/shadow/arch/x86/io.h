/*
 * tests/host/c/shadow/arch/x86/io.h - what "arch/x86/io.h" means in host unit
 * tests: the Makefile puts tests/host/c/shadow ahead of the repo root on the
 * host include path, so drivers compiled for the host reach the recording
 * fake (tests/host/c/fake_io.h) instead of real port I/O, and the real header
 * needs no knowledge of tests.
 */
#ifndef ARCH_X86_IO_H
#define ARCH_X86_IO_H

#include "tests/host/c/fake_io.h"

#endif
