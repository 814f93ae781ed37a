/*
 * drivers/uart16550.h - polled 16550 UART (COM1).
 */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H

#include "lib/types.h"

void uart_init(void);
/* Write n bytes untranslated. */
void uart_write(const char *s, size_t n);
/* Wait (one status poll when idle) until the transmit FIFO is empty, so
 * that what follows costs the same polls whatever came before. */
void uart_tx_drain(void);
/* The received byte waiting, or -EAGAIN (one status poll; a caller that
 * waits bounds the wait by time: kernel/phase_sync.c). */
int uart_getc_ready(void);

#endif
