"""gnuplot's SVG terminal, for figures inlined in an HTML report.

gnuplot (Debian gnuplot-nox, the plotter compare --plot already uses)
draws every figure; this module only runs it: data into temporary files,
one script, the SVG read back with its XML prolog removed and its ids made
unique per figure, so several can live in one HTML document.  No mouse
scripts (the terminal's `mouse` option would link gnuplot's JavaScript),
no fonts but the generic family "sans".  Where gnuplot is missing or
fails, Unavailable says why and the report keeps its tables."""

import os
import re
import shutil
import subprocess
import tempfile

from ..system import children
from ..values import exitstatus
from ..values.errors import TrapmeterError

TIMEOUT_S = 60
FONT = "sans,10"
INSTALL_HINT = "gnuplot is not installed (apt-get install gnuplot-nox)"


class Unavailable(TrapmeterError):
    """No figure: gnuplot is missing or failed (the message says which)."""

    code = exitstatus.BAD_INPUT


def missing():
    """Why no figure can be drawn here, or None when gnuplot is there."""
    return None if shutil.which("gnuplot") else INSTALL_HINT


def quote(text):
    """A gnuplot string literal (single quotes, none inside)."""
    return "'%s'" % str(text).replace("'", "").replace("\\", "")


def _write_data(tmp, index, rows):
    path = os.path.join(tmp, "d%d.dat" % index)
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            if row is None:
                fh.write("\n")          # a blank line breaks a line plot
            else:
                fh.write(" ".join(_field(v) for v in row) + "\n")
    return path


def _field(value):
    if isinstance(value, str):
        return '"%s"' % value.replace('"', "")
    return "%.9g" % value


def _inline(svg, prefix):
    """The SVG element alone, its ids prefixed so figures do not clash."""
    start = svg.find("<svg")
    if start < 0:
        raise Unavailable("gnuplot wrote no SVG")
    svg = svg[start:]
    svg = re.sub(r"""\bid=(["'])([^"']+)\1""",
                 lambda m: 'id="%s%s"' % (prefix, m.group(2)), svg)
    svg = re.sub(r"""href=(["'])#([^"']+)\1""",
                 lambda m: 'href="#%s%s"' % (prefix, m.group(2)), svg)
    return svg


def render(script, datasets, size, prefix):
    """The inline SVG of `script` (gnuplot commands; "$D0", "$D1", ... name
    the data files of `datasets`, each a list of tuples, None for a
    break); size (width, height) in pixels; prefix for its ids."""
    reason = missing()
    if reason:
        raise Unavailable(reason)
    with tempfile.TemporaryDirectory(prefix="trapmeter-svg-") as tmp:
        names = {}
        for i, rows in enumerate(datasets):
            names["$D%d" % i] = quote(_write_data(tmp, i, rows))
        out = os.path.join(tmp, "figure.svg")
        body = "\n".join(script)
        for key in sorted(names, key=len, reverse=True):
            body = body.replace(key, names[key])
        text = ("set terminal svg size %d,%d dynamic noenhanced font %s "
                "background rgb 'white'\nset output %s\n%s\nunset output\n"
                % (size[0], size[1], quote(FONT), quote(out), body))
        try:
            done = children.run(["gnuplot"], input=text, text=True,
                                capture_output=True, timeout=TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise Unavailable("gnuplot failed: %s" % exc)
        if done.returncode != 0 or not os.path.exists(out):
            tail = (done.stderr or "").strip().splitlines()[-1:]
            raise Unavailable("gnuplot failed: %s" % (tail[0] if tail
                                                      else done.returncode))
        with open(out, encoding="utf-8", errors="replace") as fh:
            return _inline(fh.read(), prefix)
