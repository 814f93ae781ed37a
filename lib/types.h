/*
 * lib/types.h - fixed-width types for the freestanding kernel and for the
 * host unit tests that compile the same pure files.
 */
#ifndef LIB_TYPES_H
#define LIB_TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/* A buffer that is always written before it is read: boot/boot.asm does
 * not clear it (the loader zeroes it with the rest of the image's bss, as
 * multiboot asks).  Clearing is a rep stos, which a software backend
 * (PVM) runs one iteration at a time: 4 MiB cost 0.46 s of every boot. */
#define NOCLEAR __attribute__((section(".bss.noclear")))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))

/* Named error codes: functions return 0 or one of these negated. */
#define EIO 5
#define ENODEV 19
#define EINVAL 22
#define ERANGE 34
#define EAGAIN 11
#define ETIMEDOUT 110
#define ENOSPC 28
#define ENOENT 2

#endif
