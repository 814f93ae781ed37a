/*
 * drivers/uart16550.h - polled 16550 UART (COM1).
 */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H

#include "lib/types.h"

void uart_init(void);
void uart_putc(char c);
/* Write n bytes untranslated. */
void uart_write(const char *s, size_t n);
/* Wait (one status poll when idle) until the transmit FIFO is empty, so
 * that what follows costs the same polls whatever came before. */
void uart_tx_drain(void);
/* Next received byte, or -ETIMEDOUT after `spins` empty polls. */
int uart_getc_timeout(u64 spins);

#endif
