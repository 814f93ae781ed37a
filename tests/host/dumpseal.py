"""tests/host/dumpseal.py - the CRC-32 of a dump's end record, for tests
that write dumps.  It is computed here, not by the parser under test:
zlib's CRC-32 over each @tm line's JSON text and a newline, as the guest
counts it (kernel/dump.c), so a parser that checks it wrongly fails."""
import zlib


def crc_of_lines(texts):
    """"%08x" of the CRC-32 over each text (bytes or str) plus b"\\n"."""
    crc = 0
    for text in texts:
        data = text.encode("utf-8") if isinstance(text, str) else text
        crc = zlib.crc32(data + b"\n", crc)
    return "%08x" % crc
