"""The one layout of a plain-text table: columns as wide as their widest
cell, two spaces apart, the first `left` columns left-aligned and the rest
right-aligned (numbers), each line indented by two spaces and without
trailing blanks.  Pure."""


def aligned(rows, left=1):
    """Rows of cells (any values, shown with str) as aligned lines."""
    cells = [[str(c) for c in row] for row in rows]
    if not cells:
        return []
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return ["  " + "  ".join(c.ljust(w) if i < left else c.rjust(w)
                             for i, (c, w) in enumerate(zip(row, widths))).rstrip()
            for row in cells]
