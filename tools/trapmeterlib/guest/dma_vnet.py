"""Suite dma's virtio-net difference (kernel/suites/dma_vnet.c names the
cases): what writing the frame into NIC B's receive buffer adds to NIC A
transmitting it,

  receive write = vnet.txrx.X - vnet.tx.X        (the same mode)

a difference of means over boots with its t-interval, by the figure rule
(guest/dma.py combines them: at or below zero, an interval holding zero,
or fewer than three boots, not resolved).  It is labelled a difference wherever it
is shown: the two cases send from different NICs (A on the pair's hub, C
on a hub of its own), so it also holds what the hub's delivery costs.
annotate() stores one boot's on the txrx rows, render_boots() prints
the table over boots."""

from ..values import figure
from ..values.texttable import aligned
from . import dma

TX = "vnet.tx."
TXRX = "vnet.txrx."
RX_WRITE = "cycles_rx_write"          # on vnet.txrx rows
LABEL = "difference txrx - tx"


def pairs(results, table=None):
    """(txrx base name, mode, txrx row(s), tx row(s) or None) per txrx
    case and mode: of one boot's results, or of a dma.mode_table over
    boots (then lists of rows, one per boot)."""
    table = dma.by_mode(results) if table is None else table
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
    """One boot's table ("" without vnet rows)."""
    return render_boots([dump.results] if dump else [])


def render_boots(boot_results):
    """One line per txrx case, a column per mode, over the boots ("" without
    vnet rows)."""
    cells, modes = {}, []
    for base, mode, rows, tx in pairs(None, dma.mode_table(boot_results)):
        cells.setdefault(base, {})[mode] = dma.band_text(dma._diff(rows, tx))
        modes += [] if mode in modes else [mode]
    if not cells:
        return ""
    modes = [m for m in dma.MODES if m in modes]
    rows = [["case"] + modes] + [[b] + [by.get(m, "-") for m in modes]
                                 for b, by in cells.items()]
    lines = ["", "vnet receive write (%s, the same mode; cycles per op, nets "
             "of means, %s; n.r.: not resolved):" % (LABEL, dma.HOW)]
    lines += aligned(rows)
    return "\n".join(lines) + "\n"
