"""NumPy kernels for special functions NumPy lacks: erf, erfc, erfinv, lgamma, digamma,
trigamma. All work elementwise on float64 arrays (the ops cast in and out), without
Python loops over elements.

erf/erfc use the rational approximations of the Cephes library (S. L. Moshier), accurate
to about 1e-15; erfinv refines a closed-form first guess by Newton steps on erf; lgamma
uses Lanczos' series (g = 7); digamma and trigamma shift the argument up with the
recurrence and finish with their asymptotic series.
"""
from __future__ import annotations

import numpy as np

_SQRT_PI = np.sqrt(np.pi)

# Cephes ndtr.c: erf(x) = x T(x^2) / U(x^2) for |x| < 1; erfc(x) = exp(-x^2) P(x) / Q(x)
# for 1 <= x < 8 and exp(-x^2) R(x) / S(x) beyond. U, Q, S have an implicit leading 1.
_T = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
      7.00332514112805075473E3, 5.55923013010394962768E4)
_U = (1.0, 3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
      2.26290000613890934246E4, 4.92673942608635921086E4)
_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
      4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
      9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_Q = (1.0, 1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
      9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
      1.65666309194161350182E3, 5.57535340817727675546E2)
_R = (5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
      6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0)
_S = (1.0, 2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
      1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0)

# Lanczos coefficients for g = 7, n = 9.
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)


def _poly(x: np.ndarray, coefs) -> np.ndarray:
    """Horner evaluation, highest power first."""
    result = np.full_like(x, coefs[0])
    for c in coefs[1:]:
        result = result * x + c
    return result


def _erf_small(x: np.ndarray) -> np.ndarray:
    z = x * x
    return x * _poly(z, _T) / _poly(z, _U)


def _erfc_large(a: np.ndarray) -> np.ndarray:
    """erfc for a >= 1 (values below 1 are computed too but not meaningful)."""
    mid = _poly(a, _P) / _poly(a, _Q)
    far = _poly(a, _R) / _poly(a, _S)
    # exp(-a^2) underflows past a ~ 26.6 (and inf / inf would give NaN at a = inf).
    return np.where(a >= 27.0, 0.0, np.exp(-a * a) * np.where(a < 8.0, mid, far))


def erf(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        a = np.abs(x)
        big = np.sign(x) * (1.0 - _erfc_large(a))
        return np.where(a < 1.0, _erf_small(x), big)


def erfc(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        a = np.abs(x)
        tail = _erfc_large(a)
        big = np.where(x < 0, 2.0 - tail, tail)
        return np.where(a < 1.0, 1.0 - _erf_small(x), big)


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
        series = np.log(z) - 0.5 / z - inv2 * _poly(
            inv2, (1 / 12, -691 / 32760, 1 / 132, -1 / 240, 1 / 252, -1 / 120, 1 / 12))
        out = series - acc
        # Reflection: psi(1 - x) - psi(x) = pi / tan(pi x).
        out = np.where(reflect, out - np.pi / np.tan(np.pi * x), out)
        out = np.where((x <= 0) & (x == np.floor(x)), np.nan, out)
        out = np.where(x == 0, -np.inf, out)
        return np.where(x == np.inf, np.inf, out)


def trigamma(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        z = np.where(reflect, 1.0 - x, x)
        z, acc = _shift_up(z, lambda v: 1.0 / (v * v))
        inv = 1.0 / z
        inv2 = inv * inv
        tail = inv2 * inv * _poly(inv2, (7 / 6, -691 / 2730, 5 / 66, -1 / 30, 1 / 42, -1 / 30,
                                         1 / 6))
        out = inv + 0.5 * inv2 + tail + acc
        # Reflection: psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x).
        out = np.where(reflect, (np.pi / np.sin(np.pi * x)) ** 2 - out, out)
        return np.where((x <= 0) & (x == np.floor(x)), np.inf, out)
