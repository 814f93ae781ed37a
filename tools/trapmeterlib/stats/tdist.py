"""Student's t distribution: the two-sided tail and its quantile.

Every t-interval of the tool goes through this module: t_interval for a
mean over boots (the breakdown's, the summary's, the runs' levels),
welch_interval for a signed sum of means of independent groups (the
attribution's difference of two means, suite dma's differences of
cases), each taking its critical value from t_quantile at any level and
any (also fractional) degrees of freedom.
The tail is the regularized incomplete beta function,
P(|T| > x) = I_{df / (df + x^2)}(df / 2, 1 / 2), evaluated by its continued
fraction (modified Lentz); the quantile is found by bisection on it.
Standard library only; accurate to about 1e-10, far below the printed
precision of any figure.
"""
import functools
import math

CF_STEPS = 300           # continued-fraction terms at most
CF_EPS = 1e-14           # ... stopping when a term changes it less
TINY = 1e-300            # Lentz's guard against a zero denominator
BISECTIONS = 100         # halvings of the quantile's bracket at most


def _beta_cf(a, b, x):
    """The continued fraction of the incomplete beta function I_x(a, b)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > TINY else TINY)
    frac = d
    for m in range(1, CF_STEPS + 1):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > TINY else TINY)
            c = 1.0 + num / c
            c = c if abs(c) > TINY else TINY
            frac *= c * d
        if abs(c * d - 1.0) < CF_EPS:
            break
    return frac


def beta_inc(a, b, x):
    """The regularized incomplete beta function I_x(a, b), 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_cf(b, a, 1.0 - x) / b


def two_sided_tail(x, df):
    """P(|T| > x) of Student's t with df > 0 degrees of freedom."""
    x = abs(x)
    return beta_inc(df / 2.0, 0.5, df / (df + x * x))


@functools.lru_cache(maxsize=None)
def t_quantile(alpha, df):
    """x with P(|T| > x) = alpha (two-sided) at df > 0 degrees of freedom:
    the critical value of a (1 - alpha) t-interval."""
    lo, hi = 0.0, 1.0
    while two_sided_tail(hi, df) > alpha:
        lo, hi = hi, hi * 2.0
    for _ in range(BISECTIONS):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if two_sided_tail(mid, df) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def t_interval(values, level):
    """(mean, [lo, hi]) of the values (None left out): the t-interval of
    the mean at `level`; (mean, None) of one value, (None, None) of none."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None, None
    mean = sum(vals) / len(vals)
    if len(vals) < 2:
        return mean, None
    t = t_quantile(1.0 - level, len(vals) - 1)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
    half = t * sd / math.sqrt(len(vals))
    return mean, [mean - half, mean + half]


def welch_interval(terms, level, df_rule="satterthwaite"):
    """(sum, [lo, hi], df) of sum(sign * mean(values)) over (sign, values)
    terms of independent groups, each of two values or more: the t
    interval at `level` with the variance sum(var_i / n_i) and
    Welch-Satterthwaite degrees of freedom, (sum var_i/n_i)^2 /
    sum((var_i/n_i)^2 / (n_i - 1)) -- or, with df_rule "smallest", the
    smallest n_i less one (conservative).  A zero variance gives the
    point as its interval."""
    parts = []
    for sign, values in terms:
        mean = sum(values) / len(values)
        var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
        parts.append((sign * mean, var / len(values), len(values)))
    total = sum(p[0] for p in parts)
    se2 = sum(p[1] for p in parts)
    if se2 == 0:
        return total, [total, total], None
    if df_rule == "smallest":
        df = min(p[2] for p in parts) - 1
    else:
        df = se2 ** 2 / sum(p[1] ** 2 / (p[2] - 1) for p in parts)
    half = t_quantile(1.0 - level, max(1.0, df)) * math.sqrt(se2)
    return total, [total - half, total + half], df
