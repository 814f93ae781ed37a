"""Suite dma's virtio-net difference (kernel/suites/dma_vnet.c names the
cases): what writing the frame into NIC B's receive buffer adds to NIC A
transmitting it,

  receive write = vnet.txrx.X - vnet.tx.X        (the same mode)

a difference of one boot's net medians with the band of single ops, by
the figure rule (guest/dma.py combines them: at or below zero, or a band
holding zero, is not resolved).  It is labelled a difference wherever it
is shown: the two cases send from different NICs (A on the pair's hub, C
on a hub of its own), so it also holds what the hub's delivery costs.
annotate() stores it on the txrx rows, render() prints the table."""

from ..output import figure
from . import dma

TX = "vnet.tx."
TXRX = "vnet.txrx."
RX_WRITE = "cycles_rx_write"          # on vnet.txrx rows
LABEL = "difference txrx - tx"


def pairs(results):
    """(txrx base name, mode, txrx row, tx row or None) per txrx row."""
    table = dma.by_mode(results)
    for base, modes in table.items():
        if not base.startswith(TXRX):
            continue
        tx = table.get(TX + base[len(TXRX):], {})
        for mode, row in modes.items():
            yield base, mode, row, tx.get(mode)


def annotate(results):
    """Store the receive write on each txrx row."""
    for _, _, row, tx in pairs(results):
        figure.put(row, RX_WRITE, dma._diff(row, tx))


def render(dump):
    """One line per txrx case, a column per mode ("" without vnet rows)."""
    cells, modes = {}, []
    for base, mode, row, tx in pairs(dump.results if dump else []):
        cells.setdefault(base, {})[mode] = dma.band_text(dma._diff(row, tx))
        modes += [] if mode in modes else [mode]
    if not cells:
        return ""
    modes = [m for m in dma.MODES if m in modes]
    rows = [["case"] + modes] + [[b] + [by.get(m, "-") for m in modes]
                                 for b, by in cells.items()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(modes) + 1)]
    lines = ["", "vnet receive write (%s, the same mode; cycles per op, nets "
             "of means, %s; n.r.: not resolved):" % (LABEL, dma.HOW)]
    for r in rows:
        lines.append("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                      for i, (c, w) in enumerate(zip(r, widths))))
    return "\n".join(lines) + "\n"
