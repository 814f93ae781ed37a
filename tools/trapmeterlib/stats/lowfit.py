"""The lower-envelope fit the cost breakdown (breakdown.py) uses: a linear
model that lies at or below every observation and as close to them as it
can.

Host noise here is one-sided: another tenant, a slower host phase, an
interrupt only ever add time to a measured minimum, never take it away.
So the model is not the least-squares line through the rows (which a row
measured in a slow phase pulls up) but the one under all of them:

    maximize  sum_i (x_i . b) / s_i     subject to  x_i . b <= y_i

(s_i: the row's scale, so that every row weighs by its relative error).
Rows above the fit do not bind it; the rows it touches are the fastest
measurements of the model's shape.  It is a small linear program, solved
here through its dual, min y . l subject to X^T l = c, l >= 0, by a
tableau simplex with Bland's rule (stdlib only; at most a few dozen rows
and seven terms).  The coefficients are then the solution of the binding
rows' equations.  Pure functions.
"""

EPS = 1e-10
MAX_PIVOTS = 1000


def frontier(rows, ys, scales=None):
    """Coefficients of the lower-envelope fit, or None when the rows do not
    determine it (too few, collinear, or no bounded optimum)."""
    n = len(rows)
    if not n:
        return None
    k = len(rows[0])
    scales = scales or [abs(y) or 1.0 for y in ys]
    c = [sum(rows[i][j] / scales[i] for i in range(n)) for j in range(k)]
    col = [max(abs(rows[i][j]) for i in range(n)) or 1.0 for j in range(k)]
    ysc = max(abs(y) for y in ys) or 1.0
    tab = _tableau(rows, c, col)
    basis = [n + j for j in range(k)]
    if not _simplex(tab, basis, [0.0] * n + [1.0] * k, n + k):
        return None
    if any(b >= n and abs(tab[i][-1]) > 1e-9 for i, b in enumerate(basis)):
        return None                   # no feasible dual: the fit is unbounded
    if not _drive_out_artificials(tab, basis, n):
        return None                   # a term the rows do not fix
    if not _simplex(tab, basis, [y / ysc for y in ys] + [0.0] * k, n):
        return None
    return solve([list(rows[i]) for i in basis], [ys[i] for i in basis])


def _tableau(rows, c, col):
    """The dual's equality rows (one per term, scaled by the term's
    largest value), right-hand sides made non-negative, then k
    artificial columns."""
    n, k = len(rows), len(c)
    tab = []
    for j in range(k):
        line = [rows[i][j] / col[j] for i in range(n)]
        rhs = c[j] / col[j]
        if rhs < 0:
            line, rhs = [-v for v in line], -rhs
        tab.append(line + [1.0 if r == j else 0.0 for r in range(k)] + [rhs])
    return tab


def _pivot(tab, basis, r, col):
    p = tab[r][col]
    tab[r] = [v / p for v in tab[r]]
    for i, line in enumerate(tab):
        if i != r and line[col] != 0.0:
            f = line[col]
            tab[i] = [a - f * b for a, b in zip(line, tab[r])]
    basis[r] = col


def _entering(tab, basis, cost, columns):
    """Bland's rule: the first column whose reduced cost improves."""
    for col in range(columns):
        if col in basis:
            continue
        reduced = cost[col] - sum(cost[b] * tab[i][col] for i, b in enumerate(basis))
        if reduced < -EPS:
            return col
    return None


def _leaving(tab, basis, col):
    best, row = None, None
    for i, line in enumerate(tab):
        if line[col] > 1e-12:
            ratio = line[-1] / line[col]
            if (best is None or ratio < best - 1e-15 or
                    (abs(ratio - best) <= 1e-15 and basis[i] < basis[row])):
                best, row = ratio, i
    return row


def _simplex(tab, basis, cost, columns):
    """Minimize cost over the first `columns` columns; False when
    unbounded or not done within MAX_PIVOTS."""
    for _ in range(MAX_PIVOTS):
        col = _entering(tab, basis, cost, columns)
        if col is None:
            return True
        row = _leaving(tab, basis, col)
        if row is None:
            return False
        _pivot(tab, basis, row, col)
    return False


def _drive_out_artificials(tab, basis, n):
    for i, b in enumerate(basis):
        if b < n:
            continue
        col = next((j for j in range(n) if j not in basis and abs(tab[i][j]) > 1e-9), None)
        if col is None:
            return False
        _pivot(tab, basis, i, col)
    return True


def solve(a, b):
    """Gaussian elimination with partial pivoting; None when singular."""
    n = len(b)
    m = [list(row) + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-12 * max(1.0, max(abs(v) for v in m[piv][:n])):
            return None
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]
