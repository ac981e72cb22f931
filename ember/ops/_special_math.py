"""NumPy kernels for special functions NumPy lacks: erf, erfc, erfcx, erfinv, ndtri,
lgamma, digamma, trigamma, the Hurwitz zeta function, the regularized incomplete gamma
functions, Bessel functions (I0 and I1 scaled, J0, J1, Y0, Y1, K0, K1), the Airy function
Ai and the classical orthogonal polynomials. All work elementwise on float64 arrays (the
ops cast in and out), without Python loops over elements (loops run over series terms or
iterations, each step on the whole array).

erf/erfc come from the kernel layer (ember/_cpu/erf.py: Cephes' rational
approximations, accurate to about 1e-15); erfinv refines a closed-form first guess by
Newton steps on erf; lgamma uses Lanczos' series (g = 7); digamma and trigamma shift the
argument up with the recurrence and finish with their asymptotic series.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._cpu.erf import erf, erfc, erfcx_tail, polynomial

_SQRT_PI = np.sqrt(np.pi)

# Lanczos coefficients for g = 7, n = 9.
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)


def erfinv(y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        a = np.abs(y)
        # Winitzki's closed form (relative error ~2e-3) as the starting point.
        k = 0.147
        ln = np.log1p(-a * a)
        t = 2.0 / (np.pi * k) + 0.5 * ln
        x = np.sqrt(np.sqrt(t * t - ln / k) - t)
        # Newton on erf(x) = a; near 1 compare tails (erfc) to keep the digits.
        for _ in range(4):
            near_one = a > 0.5
            residual = np.where(near_one, (1.0 - a) - erfc(x), erf(x) - a)
            step = residual * (0.5 * _SQRT_PI) * np.exp(x * x)
            x = x - np.where(np.isfinite(step), step, 0.0)
        x = np.where(a == 1.0, np.inf, x)
        x = np.where(a > 1.0, np.nan, x)
        return np.copysign(x, y)


def _lgamma_positive(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| for x >= 0.5."""
    x = x - 1.0
    series = np.full_like(x, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        series = series + c / (x + i)
    t = x + _LANCZOS_G + 0.5
    return 0.5 * np.log(2 * np.pi) + (x + 0.5) * np.log(t) - t + np.log(series)


def lgamma(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        safe = np.where(reflect, 1.0 - x, x)
        base = _lgamma_positive(safe)
        # Reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x).
        reflected = np.log(np.pi / np.abs(np.sin(np.pi * x))) - base
        out = np.where(reflect, reflected, base)
        pole = (x <= 0) & (x == np.floor(x))
        return np.where(pole | np.isinf(x), np.inf, out)


def _shift_up(x: np.ndarray, term, bound: int = 10):
    """Apply x -> x + 1 while x < bound (x >= 0.5 on entry), summing term(x) over the values
    stepped past."""
    acc = np.zeros_like(x)
    for _ in range(bound):
        low = x < bound
        acc = acc + np.where(low, term(x), 0.0)
        x = np.where(low, x + 1.0, x)
    return x, acc


def digamma(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        z = np.where(reflect, 1.0 - x, x)
        z, acc = _shift_up(z, lambda v: 1.0 / v)
        inv2 = 1.0 / (z * z)
        series = np.log(z) - 0.5 / z - inv2 * polynomial(
            inv2, (1 / 12, -691 / 32760, 1 / 132, -1 / 240, 1 / 252, -1 / 120, 1 / 12))
        out = series - acc
        # Reflection: psi(1 - x) - psi(x) = pi / tan(pi x).
        out = np.where(reflect, out - np.pi / np.tan(np.pi * x), out)
        out = np.where((x <= 0) & (x == np.floor(x)), np.nan, out)
        out = np.where(x == 0, np.copysign(np.inf, -x), out)    # -inf at +0, inf at -0
        return np.where(x == np.inf, np.inf, out)


def trigamma(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        z = np.where(reflect, 1.0 - x, x)
        z, acc = _shift_up(z, lambda v: 1.0 / (v * v))
        inv = 1.0 / z
        inv2 = inv * inv
        tail = inv2 * inv * polynomial(inv2, (7 / 6, -691 / 2730, 5 / 66, -1 / 30, 1 / 42,
                                              -1 / 30, 1 / 6))
        out = inv + 0.5 * inv2 + tail + acc
        # Reflection: psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x).
        out = np.where(reflect, (np.pi / np.sin(np.pi * x)) ** 2 - out, out)
        out = np.where((x <= 0) & (x == np.floor(x)), np.inf, out)
        return np.where(x == -np.inf, np.nan, out)


def erfcx(x: np.ndarray) -> np.ndarray:
    """The scaled complementary error function exp(x^2) erfc(x)."""
    with np.errstate(all="ignore"):
        direct = np.exp(x * x) * erfc(x)
        # Past 1e8 the leading asymptotic term 1 / (x sqrt(pi)) is exact to float64 (and
        # the rational tail's polynomials would overflow).
        tail = np.where(x > 1e8, 1.0 / (x * _SQRT_PI), erfcx_tail(np.maximum(x, 1.0)))
        return np.where(x >= 1.0, tail, direct)


def log_ndtr(x: np.ndarray) -> np.ndarray:
    """log of the standard normal CDF; the far left tail goes through erfcx so that
    exp(-x^2 / 2) never underflows."""
    with np.errstate(all="ignore"):
        t = x / np.sqrt(2.0)
        left = np.log(erfcx(-t) / 2) - t * t
        return np.where(x < -1.0, left, np.log1p(-erfc(t) / 2))


def ndtri(p: np.ndarray) -> np.ndarray:
    """Inverse of the standard normal CDF.

    For p <= 1/2, a rational first guess (Abramowitz & Stegun 26.2.23, error < 5e-4) is
    refined by Newton steps on log_ndtr(x) = log(p), which keep full precision deep in the
    tail; p > 1/2 uses the symmetry ndtri(p) = -ndtri(1 - p) (1 - p is exact there).
    """
    with np.errstate(all="ignore"):
        upper = p > 0.5
        q = np.where(upper, 1.0 - p, p)
        t = np.sqrt(-2.0 * np.log(q))
        x = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
              / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
        log_q = np.log(q)
        for _ in range(4):
            slope = np.sqrt(2.0 / np.pi) / erfcx(-x / np.sqrt(2.0))
            step = (log_ndtr(x) - log_q) / slope
            x = x - np.where(np.isfinite(step), step, 0.0)
        x = np.where(q == 0.0, -np.inf, np.where(q == 0.5, 0.0, x))
        x = np.where(upper, -x, x)
        return np.where((p < 0.0) | (p > 1.0) | np.isnan(p), np.nan, x)


def bessel_i_scaled(x: np.ndarray, order: int) -> np.ndarray:
    """exp(-|x|) I_order(x) for order 0 or 1 (torch's i0e and i1e).

    |x| <= 20: the power series sum (x/2)^(2k+order) / (k! (k+order)!) times exp(-|x|).
    Beyond: the asymptotic series sum_k c_k / |x|^k over sqrt(2 pi |x|), with
    c_k = c_(k-1) * -(4 order^2 - (2k-1)^2) / (8k).
    """
    with np.errstate(all="ignore"):
        a = np.abs(x)
        small = np.minimum(a, 20.0)
        term = (small / 2) ** order
        series = term.copy()
        for k in range(1, 60):
            term = term * (small / 2) ** 2 / (k * (k + order))
            series = series + term
        large = np.maximum(a, 20.0)
        coefficient, tail, power = 1.0, np.ones_like(large), np.ones_like(large)
        for k in range(1, 30):
            coefficient *= -(4 * order ** 2 - (2 * k - 1) ** 2) / (8 * k)
            power = power / large
            tail = tail + coefficient * power
        out = np.where(a <= 20.0, series * np.exp(-small), tail / np.sqrt(2 * np.pi * large))
        return np.sign(x) * out if order == 1 else out


# Euler-Maclaurin correction weights (2j)! / B_2j for the Hurwitz zeta tail, from the
# Bernoulli numbers B_2 ... B_24 (Cephes zeta.c tabulates the same values).
_BERNOULLI = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330), Fraction(854513, 138),
              Fraction(-236364091, 2730))
_ZETA_WEIGHTS = tuple(float(math.factorial(2 * j) / b) for j, b in enumerate(_BERNOULLI, start=1))


def zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hurwitz zeta sum_k (k + q)^-x, by Euler-Maclaurin summation as in Cephes: the first
    terms summed directly until k + q > 9, then the integral of the tail and its
    Bernoulli corrections."""
    x, q = np.broadcast_arrays(x, q)
    with np.errstate(all="ignore"):
        # Enough direct terms that w = q + n passes 9 for every element (q may be negative).
        lowest = np.nanmin(q, initial=0.0)
        n = 9 + (int(np.ceil(9.0 - lowest)) if np.isfinite(lowest) and lowest < 0 else 0)
        total = np.zeros(x.shape)
        for k in range(n + 1):
            total = total + (q + k) ** -x
        w = q + n
        last = w ** -x
        total = total + last * w / (x - 1.0) - 0.5 * last
        rising, power = np.ones(x.shape), last
        for j, weight in enumerate(_ZETA_WEIGHTS):
            rising = rising * (x + 2 * j)
            power = power / w
            total = total + rising * power / weight
            rising = rising * (x + 2 * j + 1)
            power = power / w
        total = np.where(x == 1.0, np.inf, total)
        total = np.where(x < 1.0, np.nan, total)
        on_pole = (q <= 0) & (q == np.floor(q))
        total = np.where((q < 0) & ~on_pole & (x != np.floor(x)), np.nan, total)
        return np.where(on_pole & (x >= 1.0), np.inf, total)


def _gamma_prefactor(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """x^a exp(-x) / Gamma(a), computed in logs."""
    return np.exp(a * np.log(x) - x - lgamma(a))


def _gamma_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Lower regularized P(a, x) by its series (converges fast for x < a + 1)."""
    term = 1.0 / a
    total = term
    for n in range(1, 10000):
        term = term * x / (a + n)
        total = total + term
        if not np.any(np.abs(term) > 1e-17 * np.abs(total)):
            break
    return total * _gamma_prefactor(a, x)


def _gamma_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Upper regularized Q(a, x) by its continued fraction (modified Lentz; converges fast
    for x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = np.full_like(b, 1.0 / tiny)
    d = 1.0 / np.where(b == 0, tiny, b)
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = 1.0 / np.where(d == 0, tiny, d)
        c = b + an / c
        c = np.where(c == 0, tiny, c)
        delta = d * c
        h = h * delta
        if not np.any(np.abs(delta - 1.0) > 1e-16):
            break
    return h * _gamma_prefactor(a, x)


def gammainc(a: np.ndarray, x: np.ndarray, upper: bool = False) -> np.ndarray:
    """Regularized incomplete gamma: P(a, x) (lower), or Q(a, x) = 1 - P(a, x) if upper.
    Each element takes the series or the continued fraction, whichever converges there;
    the other function is 1 minus it (it is at most ~0.7 there, so no digits are lost)."""
    a, x = np.broadcast_arrays(a, x)
    with np.errstate(all="ignore"):
        lower = _gamma_edges(a, x)
        inner = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
        by_series = inner & (x < a + 1.0)
        by_fraction = inner & ~by_series
        if by_series.any():
            lower[by_series] = _gamma_series(a[by_series], x[by_series])
        result = lower if not upper else 1.0 - lower
        if by_fraction.any():
            q = _gamma_fraction(a[by_fraction], x[by_fraction])
            result[by_fraction] = q if upper else 1.0 - q
        return result


def _gamma_edges(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) where a or x is 0 or infinite, as torch (Cephes) defines it; NaN for negative
    or NaN arguments."""
    out = np.full(a.shape, np.nan)
    out = np.where(x == 0, 0.0, out)
    out = np.where(np.isinf(x), 1.0, out)
    out = np.where((a == 0) & (x > 0), 1.0, out)
    out = np.where(np.isinf(a) & np.isfinite(x), 0.0, out)
    out = np.where(np.isinf(a) & np.isinf(x), np.nan, out)
    return np.where((a < 0) | (x < 0) | (a == 0) & (x == 0), np.nan, out)


# ---------------------------------------------------------------- orthogonal polynomials
# Each family evaluates p_n(x) for integer n >= 0 (torch's rules: n < 0 gives 0). The
# three-term recurrence runs only over elements that no closed form covers.
def _three_term(x: np.ndarray, n: np.ndarray, first: np.ndarray, step) -> np.ndarray:
    """p_n(x) from p_0 = 1, p_1 = first and p_(k+1) = step(k, x, p_k, p_(k-1))."""
    result = np.where(n == 0, 1.0, np.where(n == 1, first, 0.0))
    previous, current = np.ones_like(x), first
    for k in range(1, int(n.max(initial=0))):
        previous, current = current, step(k, x, current, previous)
        result = np.where(n == k + 1, current, result)
        if not np.any((n > k + 1) & np.isfinite(current)):
            break    # the rest stays inf or NaN
    return result


def _polynomial(x, n, first, step, closed_form=None, at_ends=None) -> np.ndarray:
    """Shared driver: closed_form(x, n) -> (mask, values) where a closed form applies,
    at_ends(x, n) the values at |x| == 1; the recurrence fills in the rest."""
    x, n = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(n))
    with np.errstate(all="ignore"):
        n = np.trunc(np.nan_to_num(n.astype(np.float64))).astype(np.int64)
        out = np.zeros(x.shape)
        direct = np.zeros(x.shape, bool)
        if at_ends is not None:
            ends = np.abs(x) == 1
            out = np.where(ends, at_ends(x, n), out)
            direct |= ends
        if closed_form is not None:
            mask, values = closed_form(x, n)
            mask &= ~direct
            out = np.where(mask, values, out)
            direct |= mask
        rest = ~direct & (n >= 0)
        if rest.any():
            xr = x[rest]
            out[rest] = _three_term(xr, n[rest], first(xr), step)
        return np.where(n < 0, 0.0, out)


def _odd_sign(n: np.ndarray) -> np.ndarray:
    return np.where(n % 2 == 0, 1.0, -1.0)


def _trig(x: np.ndarray, n: np.ndarray, above: int, fn):
    """(mask, fn(theta, n)) on |x| < 1 for n > above, with x = cos(theta)."""
    return (np.abs(x) < 1) & (n > above), fn(np.arccos(x), n)


def chebyshev_t(x, n) -> np.ndarray:
    return _polynomial(
        x, n, lambda x: x, lambda k, x, p, q: 2 * x * p - q,
        lambda x, n: _trig(x, n, 6, lambda t, n: np.cos(n * t)),
        lambda x, n: np.where(x > 0, 1.0, _odd_sign(n)))


def chebyshev_u(x, n) -> np.ndarray:
    return _polynomial(
        x, n, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - q,
        lambda x, n: _trig(x, n, 8, lambda t, n: np.sin((n + 1) * t) / np.sin(t)),
        lambda x, n: (n + 1) * np.where(x > 0, 1.0, _odd_sign(n)))


def chebyshev_v(x, n) -> np.ndarray:
    return _polynomial(
        x, n, lambda x: 2 * x - 1, lambda k, x, p, q: 2 * x * p - q,
        lambda x, n: _trig(x, n, 8, lambda t, n: np.cos((n + 0.5) * t) / np.cos(t / 2)),
        lambda x, n: np.where(x > 0, 1.0, (2 * n + 1) * _odd_sign(n)))


def chebyshev_w(x, n) -> np.ndarray:
    return _polynomial(
        x, n, lambda x: 2 * x + 1, lambda k, x, p, q: 2 * x * p - q,
        lambda x, n: _trig(x, n, 8, lambda t, n: np.sin((n + 0.5) * t) / np.sin(t / 2)),
        lambda x, n: np.where(x > 0, 2 * n + 1.0, _odd_sign(n)))


def hermite_h(x, n) -> np.ndarray:
    """Physicists' Hermite polynomials."""
    return _polynomial(x, n, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q)


def hermite_he(x, n) -> np.ndarray:
    """Probabilists' Hermite polynomials."""
    return _polynomial(x, n, lambda x: x, lambda k, x, p, q: x * p - k * q)


def laguerre_l(x, n) -> np.ndarray:
    return _polynomial(x, n, lambda x: 1 - x,
                       lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1),
                       lambda x, n: (x == 0, np.ones_like(x)))


def legendre_p(x, n) -> np.ndarray:
    return _polynomial(x, n, lambda x: x,
                       lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1),
                       at_ends=lambda x, n: np.where((x > 0) | (n == 0), 1.0, _odd_sign(n)))


# ---------------------------------------------------------------- Bessel functions
_EULER_GAMMA = 0.57721566490153286061


def _hankel_series(x: np.ndarray, order: float, terms: int = 20):
    """P and Q of Hankel's asymptotic expansion for large x: J = sqrt(2/(pi x)) (P cos(chi)
    - Q sin(chi)) and Y = sqrt(2/(pi x)) (P sin(chi) + Q cos(chi)), chi = x - (order/2 +
    1/4) pi. Term k is prod_(j<=k) (4 order^2 - (2j-1)^2) / (k! (8x)^k), signs alternating
    within P (even k) and within Q (odd k)."""
    mu = 4.0 * order * order
    term = np.ones_like(x)
    p, q = np.ones_like(x), np.zeros_like(x)
    for k in range(1, terms):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        sign = -1.0 if (k // 2) % 2 else 1.0
        if k % 2:
            q = q + sign * term
        else:
            p = p + sign * term
    return p, q


def _bessel_miller(x: np.ndarray, start: int = 110):
    """J0, J1, Y0, Y1 for 1e-10 <= x <= 25 by Miller's backward recurrence
    J_(k-1) = (2k / x) J_k - J_(k+1) from an arbitrary start, normalised with
    J0 + 2 sum J_2m = 1. The same pass sums Neumann's series for Y0 and Y1:
    Y0 = (2/pi) ((ln(x/2) + gamma) J0 - 2 sum_m (-1)^m J_2m / m)
    Y1 = (2/pi) ((ln(x/2) + gamma) J1 - J0 / x + sum_m (-1)^m (J_(2m-1) - J_(2m+1)) / m)
    (the second is minus the derivative of the first)."""
    upper, current = np.zeros_like(x), np.full_like(x, 1e-30)
    norm, y0_sum, y1_sum = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    for k in range(start, 0, -1):
        upper, current = current, (2.0 * k / x) * current - upper
        i = k - 1                      # current holds J_i (unnormalised)
        if i > 0 and i % 2 == 0:
            m = i // 2
            norm = norm + 2.0 * current
            y0_sum = y0_sum + (-1.0) ** m * current / m
        elif i % 2:
            m = (i + 1) // 2
            weight = 1.0 / m + (1.0 / (m - 1) if m > 1 else 0.0)
            y1_sum = y1_sum + (-1.0) ** m * weight * current
        # Keep the arbitrary scale from overflowing (everything is linear in it).
        scale = np.where(np.abs(current) > 1e200, 1e-200, 1.0)
        upper, current = upper * scale, current * scale
        norm, y0_sum, y1_sum = norm * scale, y0_sum * scale, y1_sum * scale
    norm = norm + current
    j0, j1 = current / norm, upper / norm
    log_term = np.log(x / 2) + _EULER_GAMMA
    y0 = (2 / np.pi) * (log_term * j0 - 2 * y0_sum / norm)
    y1 = (2 / np.pi) * (log_term * j1 - j0 / x + y1_sum / norm)
    return j0, j1, y0, y1


def bessel_jy(x: np.ndarray) -> tuple:
    """(J0, J1, Y0, Y1) of the first and second kind, elementwise. Miller's recurrence for
    |x| <= 25, Hankel's expansion beyond, the leading terms below 1e-10; the Y functions
    are NaN for x < 0 and -inf at 0."""
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    with np.errstate(all="ignore"):
        mid = (a >= 1e-10) & (a <= 25)
        j0, j1, y0, y1 = (np.zeros_like(a) for _ in range(4))
        if mid.any():
            for out, values in zip((j0, j1, y0, y1), _bessel_miller(a[mid])):
                out[mid] = values
        far = a > 25
        if far.any():
            af = a[far]
            root = np.sqrt(2 / (np.pi * af))
            for order, j, y in ((0, j0, y0), (1, j1, y1)):
                p, q = _hankel_series(af, order)
                chi = af - (order / 2 + 0.25) * np.pi
                j[far] = root * (p * np.cos(chi) - q * np.sin(chi))
                y[far] = root * (p * np.sin(chi) + q * np.cos(chi))
        tiny = a < 1e-10
        j0 = np.where(tiny, 1.0, j0)
        j1 = np.where(tiny, a / 2, j1)
        y0 = np.where(tiny, (2 / np.pi) * (np.log(a / 2) + _EULER_GAMMA), y0)
        y1 = np.where(tiny, -2 / (np.pi * a), y1)
        # J1 is odd; the limits at infinity are 0; Y is undefined for x < 0.
        j1 = np.where(x < 0, -j1, j1)
        j0, j1, y0, y1 = (np.where(np.isinf(a), 0.0, v) for v in (j0, j1, y0, y1))
        negative = (x < 0) | np.isnan(x)
        nan = np.full_like(a, np.nan)
        return (np.where(np.isnan(x), nan, j0), np.where(np.isnan(x), nan, j1),
                np.where(negative, nan, y0), np.where(negative, nan, y1))


def _bessel_k_small(x: np.ndarray, terms: int = 30) -> tuple:
    """K0 and K1 for 0 < x <= 2 from their series around 0 (with u = x^2 / 4):
    K0 = -(ln(x/2) + gamma) I0 + sum_(k>=1) H_k u^k / k!^2
    K1 = 1/x + ln(x/2) I1 - (x/4) sum_(k>=0) (psi(k+1) + psi(k+2)) u^k / (k! (k+1)!)."""
    u = x * x / 4
    log_half = np.log(x / 2)
    i0_sum, i1_sum = np.ones_like(x), np.ones_like(x)
    k0_sum, k1_sum = np.zeros_like(x), np.full_like(x, 1 - 2 * _EULER_GAMMA)
    power0, power1, harmonic = np.ones_like(x), np.ones_like(x), 0.0
    for k in range(1, terms):
        harmonic += 1.0 / k
        power0 = power0 * u / (k * k)              # u^k / k!^2
        power1 = power1 * u / (k * (k + 1))        # u^k / (k! (k+1)!)
        i0_sum = i0_sum + power0
        i1_sum = i1_sum + power1
        k0_sum = k0_sum + harmonic * power0
        # psi(k+1) + psi(k+2) = 2 H_k + 1/(k+1) - 2 gamma
        k1_sum = k1_sum + (2 * harmonic + 1.0 / (k + 1) - 2 * _EULER_GAMMA) * power1
    k0 = -(log_half + _EULER_GAMMA) * i0_sum + k0_sum
    k1 = 1 / x + log_half * (x / 2) * i1_sum - (x / 4) * k1_sum
    return k0, k1


def _bessel_k_scaled_integral(x: np.ndarray, orders=(0, 1), step: float = 0.1) -> list:
    """exp(x) K_n(x) for 1.5 <= x <= 25 and each n in orders, from K_n(x) =
    int_0^inf exp(-x cosh t) cosh(n t) dt by the trapezoidal rule, which converges
    exponentially fast for this smooth, rapidly decaying integrand (the tail past
    cosh t = 500 is below 1e-300)."""
    sums = [np.zeros_like(x) for _ in orders]
    for i in range(int(np.arccosh(501.0) / step) + 2):
        t = i * step
        weight = step * (0.5 if i == 0 else 1.0) * np.exp(-x * (np.cosh(t) - 1))
        for total, order in zip(sums, orders):
            total += weight * np.cosh(order * t)
    return sums


def _bessel_k_scaled_asymptotic(x: np.ndarray, order: float, terms: int = 30) -> np.ndarray:
    """exp(x) K_order(x) for x > 25: sqrt(pi / (2x)) sum_k a_k / x^k, with
    a_k = prod_(j<=k) (4 order^2 - (2j-1)^2) / (k! 8^k)."""
    mu = 4.0 * order * order
    term, total = np.ones_like(x), np.ones_like(x)
    for k in range(1, terms):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        total = total + term
    return np.sqrt(np.pi / (2 * x)) * total


def bessel_k_scaled(x: np.ndarray) -> tuple:
    """(exp(x) K0(x), exp(x) K1(x)) for x > 0: +inf at 0, NaN below 0, 0 at +inf.
    The series about 0 up to x = 2, the trapezoidal integral to 25, the asymptotic
    series beyond."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        k0, k1 = np.zeros_like(x), np.zeros_like(x)
        small = (x > 0) & (x <= 2)
        if small.any():
            xs = x[small]
            k0[small], k1[small] = (np.exp(xs) * v for v in _bessel_k_small(xs))
        mid = (x > 2) & (x <= 25)
        if mid.any():
            k0[mid], k1[mid] = _bessel_k_scaled_integral(x[mid])
        far = (x > 25) & np.isfinite(x)
        if far.any():
            k0[far] = _bessel_k_scaled_asymptotic(x[far], 0)
            k1[far] = _bessel_k_scaled_asymptotic(x[far], 1)
        k0, k1 = (np.where(x == 0, np.inf, v) for v in (k0, k1))
        return tuple(np.where((x < 0) | np.isnan(x), np.nan, v) for v in (k0, k1))


# Ai(0) and -Ai'(0).
_AIRY_C1 = 0.355028053887817239260
_AIRY_C2 = 0.258819403792806798405


def _airy_maclaurin(x: np.ndarray, terms: int = 30) -> np.ndarray:
    """Ai(x) = c1 f(x) - c2 g(x) with f = sum x^3k 1*4*...*(3k-2) / (3k)! and
    g = sum x^(3k+1) 2*5*...*(3k-1) / (3k+1)!; used for |x| <= 2."""
    cube = x * x * x
    f_term, g_term = np.ones_like(x), x.copy()
    f, g = f_term.copy(), g_term.copy()
    for k in range(1, terms):
        f_term = f_term * cube / ((3 * k - 1) * 3 * k)
        g_term = g_term * cube / (3 * k * (3 * k + 1))
        f, g = f + f_term, g + g_term
    return _AIRY_C1 * f - _AIRY_C2 * g


def _bessel_j_fractional(x: np.ndarray, order: float, start: int = 110) -> np.ndarray:
    """J_order(x) for 1 <= x <= 25 and -1 < order < 1 (order != 0) by Miller's backward
    recurrence J_(v-1) = (2v / x) J_v - J_(v+1), normalised with Gegenbauer's sum
    (x/2)^order = sum_k (order + 2k) Gamma(order + k) / k! J_(order+2k)(x)."""
    ratio = math.gamma(order)                  # Gamma(order + k) / k!, from k = 0
    weights = []
    for k in range(start // 2 + 1):
        weights.append((order + 2 * k) * ratio)
        ratio *= (order + k) / (k + 1)
    upper, current = np.zeros_like(x), np.full_like(x, 1e-30)
    total = np.zeros_like(x)
    for i in range(start, 0, -1):              # current holds J_(order+i), unnormalised
        if i % 2 == 0:
            total = total + weights[i // 2] * current
        upper, current = current, (2 * (order + i) / x) * current - upper
        scale = np.where(np.abs(current) > 1e200, 1e-200, 1.0)
        upper, current, total = upper * scale, current * scale, total * scale
    total = total + weights[0] * current
    return current * (x / 2) ** order / total


def airy_ai(x: np.ndarray) -> np.ndarray:
    """The Airy function Ai. |x| <= 2: its Maclaurin series. x > 2: (1/pi) sqrt(x/3)
    K_(1/3)(z) with z = (2/3) x^(3/2). x < -2: (sqrt(-x)/3) (J_(1/3)(z) + J_(-1/3)(z)),
    by Miller's recurrence for z <= 25 and Hankel's expansion beyond. Both tails tend
    to 0 at infinity."""
    x = np.asarray(x, np.float64)
    if x.ndim == 0:  # the branches below assign into masked entries
        return airy_ai(x.reshape(1)).reshape(())
    with np.errstate(all="ignore"):
        a = np.abs(x)
        z = (2.0 / 3.0) * a * np.sqrt(a)
        out = _airy_maclaurin(np.clip(x, -2.0, 2.0))
        right = (x > 2) & (z <= 25)
        if right.any():
            (scaled,) = _bessel_k_scaled_integral(z[right], orders=(1 / 3,))
            out[right] = np.sqrt(x[right] / 3) / np.pi * np.exp(-z[right]) * scaled
        far_right = (z > 25) & (x > 0)
        if far_right.any():
            zr = z[far_right]
            out[far_right] = (np.sqrt(x[far_right] / 3) / np.pi * np.exp(-zr)
                              * _bessel_k_scaled_asymptotic(zr, 1 / 3))
        left = (x < -2) & (z <= 25)
        if left.any():
            zl = z[left]
            pair = _bessel_j_fractional(zl, 1 / 3) + _bessel_j_fractional(zl, -1 / 3)
            out[left] = np.sqrt(a[left]) / 3 * pair
        far_left = (z > 25) & (x < 0)
        if far_left.any():
            zl = z[far_left]
            # The same sum as on the left, as Ai(-a) = sqrt(a) / 2 (J_(1/3)(z) -
            # Y_(1/3)(z) / sqrt(3)), with J and Y from Hankel's expansion.
            p, q = _hankel_series(zl, 1 / 3)
            chi = zl - 5 * np.pi / 12
            root = np.sqrt(2 / (np.pi * zl))
            j = root * (p * np.cos(chi) - q * np.sin(chi))
            y = root * (p * np.sin(chi) + q * np.cos(chi))
            out[far_left] = np.sqrt(a[far_left]) / 2 * (j - y / np.sqrt(3.0))
        out = np.where(np.isinf(x), 0.0, out)
        return np.where(np.isnan(x), np.nan, out)


def spherical_bessel_j0(x: np.ndarray) -> np.ndarray:
    """sin(x) / x: 1 at 0 and 0 at +-inf."""
    with np.errstate(all="ignore"):
        ratio = np.sin(x) / x
    return np.where(x == 0, 1.0, np.where(np.isinf(x), 0.0, ratio))
