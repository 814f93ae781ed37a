"""Input files read as streams with a cap, so that /dev/zero, /dev/urandom
or a huge file ends in a named error after a bounded read instead of
filling memory: the serial parser has its own caps (dump.py), results
files and LAVA inputs get the ones here.  Their failure is the one
input-error base, values/errors.InputError."""

from ..values.errors import InputError  # noqa: F401 (inputfile.InputError)

CHUNK = 1 << 16
TEXT_CAP = 64 << 20     # results.json of 1000 boots is ~16 MiB


def chunks(path):
    """The file's bytes, CHUNK at a time; InputError if it cannot be
    opened or read."""
    try:
        with open(path, "rb") as fh:
            while True:
                piece = fh.read(CHUNK)
                if not piece:
                    return
                yield piece
    except OSError as exc:
        raise InputError("cannot read %s: %s" % (path, exc.strerror or exc))


def read_text(path, cap=TEXT_CAP):
    """A text file's bytes, at most cap of them; a NUL byte or more than
    cap bytes is an InputError (not a text file / too large)."""
    parts, size = [], 0
    for piece in chunks(path):
        if b"\0" in piece:
            raise InputError("%s: not a text file (a NUL byte at offset %d)"
                             % (path, size + piece.index(b"\0")))
        size += len(piece)
        if size > cap:
            raise InputError("%s: input too large (more than %d MiB)"
                             % (path, cap >> 20))
        parts.append(piece)
    return b"".join(parts)
