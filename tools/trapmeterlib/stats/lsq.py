"""Weighted least squares on relative error, for the fits that are not
lower envelopes (fw_cfg DMA, and the test of which terms the rows can
tell apart), and the well-posedness test of a design."""
import math

from .lowfit import solve


def normal_equations(rows, ys, scales=None):
    """Column-scaled normal equations of the relative-error fit (errors
    relative to `scales`, by default to the ys themselves)."""
    k = len(rows[0])
    ata = [[0.0] * k for _ in range(k)]
    aty = [0.0] * k
    for x, y, z in zip(rows, ys, scales or ys):
        w = 1.0 / (z * z)
        for i in range(k):
            aty[i] += w * x[i] * y
            for j in range(k):
                ata[i][j] += w * x[i] * x[j]
    # scale columns so that the pivot test compares like with like
    scale = [math.sqrt(ata[i][i]) or 1.0 for i in range(k)]
    ata_s = [[ata[i][j] / (scale[i] * scale[j]) for j in range(k)] for i in range(k)]
    return ata_s, [aty[i] / scale[i] for i in range(k)], scale


def wls(rows, ys, scales=None):
    """Weighted least squares on relative error: coefficients or None."""
    ata, aty, scale = normal_equations(rows, ys, scales)
    if not well_posed(ata):
        return None
    sol = solve(ata, aty)
    return None if sol is None else [s / scale[i] for i, s in enumerate(sol)]


def well_posed(m):
    """Reject near-collinear designs (exits == units in every row): the
    scaled normal matrix has ones on its diagonal, so its determinant is
    near 0 exactly when a column is near a combination of the others."""
    return abs(_det(m)) > 1e-9


def _det(m):
    """Determinant by elimination (the matrices are at most 6 x 6)."""
    a = [list(row) for row in m]
    n, det = len(a), 1.0
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[piv][col]) < 1e-15:
            return 0.0
        if piv != col:
            a[col], a[piv] = a[piv], a[col]
            det = -det
        det *= a[col][col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return det
