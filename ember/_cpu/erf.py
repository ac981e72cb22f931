"""The error function on NumPy arrays, accurate to float64: erf, erfc and the tail
exp(a^2) erfc(a), evaluated elementwise with the rational approximations of the Cephes
library (S. L. Moshier), accurate to about 1e-15. ops/_special_math.py builds the other
special functions on these; the activation kernels use them for float64 GELU.
"""
from __future__ import annotations

import numpy as np

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


def polynomial(x: np.ndarray, coefs) -> np.ndarray:
    """sum(c x^k) by Horner's rule, `coefs` highest power first."""
    result = np.full_like(x, coefs[0])
    for c in coefs[1:]:
        result = result * x + c
    return result


def _erf_small(x: np.ndarray) -> np.ndarray:
    z = x * x
    return x * polynomial(z, _T) / polynomial(z, _U)


def erfcx_tail(a: np.ndarray) -> np.ndarray:
    """exp(a^2) erfc(a) for a >= 1: Cephes' rational tail without its exp(-a^2) factor."""
    return np.where(a < 8.0, polynomial(a, _P) / polynomial(a, _Q),
                    polynomial(a, _R) / polynomial(a, _S))


def _erfc_large(a: np.ndarray) -> np.ndarray:
    """erfc for a >= 1 (values below 1 are computed too but not meaningful)."""
    # exp(-a^2) underflows past a ~ 26.6 (and inf / inf would give NaN at a = inf).
    return np.where(a >= 27.0, 0.0, np.exp(-a * a) * erfcx_tail(a))


def erf(x: np.ndarray) -> np.ndarray:
    """The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x, elementwise."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        big = np.sign(x) * (1.0 - _erfc_large(a))
        return np.where(a < 1.0, _erf_small(x), big)


def erfc(x: np.ndarray) -> np.ndarray:
    """The complementary error function 1 - erf(x), accurate in the right tail."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        tail = _erfc_large(a)
        big = np.where(x < 0, 2.0 - tail, tail)
        return np.where(a < 1.0, 1.0 - _erf_small(x), big)
