/*
 * drivers/uart16550.c - the 16550 UART at COM1 (0x3f8), 115200 8N1, polled,
 * FIFOs on, no interrupts.  QEMU: `-serial ...` (the runner uses a stdio
 * chardev; `-nodefaults` needs an explicit `-serial`).
 *
 * Every register access traps under a hypervisor, so transmit waits only
 * when the transmit holding register is full, and never without bound: if
 * no UART answers (THRE never sets) the byte is dropped after a while
 * rather than hanging the run.
 */
#include "drivers/uart16550.h"
#include "arch/x86/io.h"
#include "arch/x86/tsc.h"
#include "drivers/platform.h"

#define UART_THR  0   /* transmit holding (write), DLAB=0 */
#define UART_RBR  0   /* receive buffer (read), DLAB=0 */
#define UART_DLL  0   /* divisor low, DLAB=1 */
#define UART_IER  1   /* interrupt enable, DLAB=0 */
#define UART_DLM  1   /* divisor high, DLAB=1 */
#define UART_FCR  2   /* FIFO control (write) */
#define UART_LCR  3   /* line control */
#define UART_MCR  4   /* modem control */
#define UART_LSR  5   /* line status */

#define LCR_8N1   0x03
#define LCR_DLAB  0x80
#define FCR_ENABLE_CLEAR 0x07  /* enable FIFOs, clear RX and TX */
#define MCR_DTR_RTS_OUT2 0x0b
#define LSR_DR    0x01  /* data ready */
#define LSR_THRE  0x20  /* transmit holding register empty */
#define UART_CLOCK_DIV_115200 1
/* THRE not set after this long: the port is taken for dead and output
 * dropped (a console must never hang the run) */
#define TX_WAIT_MS    1000
#define TX_FIFO_DEPTH 16    /* 16550A transmit FIFO, enabled by uart_init */

static bool uart_dead;
static u32 tx_room;         /* bytes the TX FIFO takes without a status poll */

void uart_init(void)
{
	outb(0x00, COM1_BASE + UART_IER);
	outb(LCR_DLAB, COM1_BASE + UART_LCR);
	outb(UART_CLOCK_DIV_115200, COM1_BASE + UART_DLL);
	outb(0, COM1_BASE + UART_DLM);
	outb(LCR_8N1, COM1_BASE + UART_LCR);
	outb(FCR_ENABLE_CLEAR, COM1_BASE + UART_FCR);
	outb(MCR_DTR_RTS_OUT2, COM1_BASE + UART_MCR);
}

/* THRE in FIFO mode means the whole TX FIFO is empty: poll once per
 * TX_FIFO_DEPTH bytes, not per byte (each poll is a VM exit). */
static void wait_tx_empty(void)
{
	struct tsc_wait wait = TSC_WAIT((u64)TX_WAIT_MS * 1000);

	while (!uart_dead && !(inb(COM1_BASE + UART_LSR) & LSR_THRE)) {
		if (tsc_wait_over(&wait))
			uart_dead = true;
	}
	tx_room = TX_FIFO_DEPTH;
}

/* Bytes as they are, a FIFO's worth per rep outsb: under a software
 * hypervisor each guest instruction costs microseconds, so a per-byte
 * loop would cost more than the exits themselves. */
void uart_write(const char *s, size_t n)
{
	size_t k;

	while (n) {
		if (!tx_room)
			wait_tx_empty();
		k = n < tx_room ? n : tx_room;
		outsb(COM1_BASE + UART_THR, s, k);
		s += k;
		n -= k;
		tx_room -= (u32)k;
	}
}

/* Wait until the TX FIFO is empty: whatever was written before, the
 * next bytes then cost the same status polls. */
void uart_tx_drain(void)
{
	wait_tx_empty();
}

int uart_getc_ready(void)
{
	if (!(inb(COM1_BASE + UART_LSR) & LSR_DR))
		return -EAGAIN;
	return inb(COM1_BASE + UART_RBR);
}
