"""torch.signal.windows: scipy-style window functions of M points.

Each window is a curve sampled at M evenly spaced points k, built with ember's own ops
from `linspace`, as torch builds it, so the values round the same way and
requires_grad=True gives a result that carries the ops' history (torch's windows are
not leaves either). sym=True gives the symmetric window (filter design); sym=False the
periodic one (spectral analysis): the symmetric window of M + 1 points without its last.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import ember
from ember import Tensor

from ..._layout import strided

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _checks(name: str, M: int, dtype, layout) -> None:
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (ember.float32, ember.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _span(M: int, sym: bool) -> int:
    """The number of steps the window's period spans: M - 1 points apart when symmetric,
    M when periodic (the M + 1-point symmetric window's spacing)."""
    return M - 1 if sym else M


def _centered_span(M: int, sym: bool) -> int:
    """As _span, for the windows torch centres by (M or M-1) / 2 (1-point windows stay
    symmetric)."""
    return M if not sym and M > 1 else M - 1


def _positions(start, step, M: int, dtype, requires_grad: bool) -> Tensor:
    return ember.linspace(start * 1.0, start + (M - 1) * step, M, dtype=dtype,
                          requires_grad=requires_grad)


def _trivial(M: int, dtype, requires_grad: bool) -> Tensor | None:
    """The 0- and 1-point windows: empty, and a single 1."""
    if M == 0:
        return ember.empty((0,), dtype=dtype, requires_grad=requires_grad)
    if M == 1:
        return ember.ones((1,), dtype=dtype, requires_grad=requires_grad)
    return None


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype=None, layout=strided, device=None, requires_grad: bool = False) -> Tensor:
    """exp(-|n - center| / tau)."""
    dtype = dtype or ember.get_default_dtype()
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _trivial(M, dtype, requires_grad)
    if center is None:
        center = _centered_span(M, sym) / 2.0
    k = _positions(-center / tau, 1 / tau, M, dtype, requires_grad)
    return ember.exp(-ember.abs(k))


def cosine(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
           requires_grad: bool = False) -> Tensor:
    """sin(pi (n + 1/2) / M): a half period of a sine."""
    dtype = dtype or ember.get_default_dtype()
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _trivial(M, dtype, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return ember.sin(_positions(0.5 * step, step, M, dtype, requires_grad))


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=strided,
             device=None, requires_grad: bool = False) -> Tensor:
    """exp(-(n - center)^2 / (2 std^2))."""
    dtype = dtype or ember.get_default_dtype()
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(M, dtype, requires_grad)
    step = 1 / (std * math.sqrt(2))
    k = _positions(-_centered_span(M, sym) / 2.0 * step, step, M, dtype, requires_grad)
    return ember.exp(-(k ** 2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=strided,
           device=None, requires_grad: bool = False) -> Tensor:
    """I0(beta sqrt(1 - (2n / span - 1)^2)) / I0(beta), I0 the modified Bessel function."""
    dtype = dtype or ember.get_default_dtype()
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    trivial = _trivial(M, dtype, requires_grad)
    if trivial is not None:
        return trivial
    beta = ember.tensor(beta, dtype=dtype)        # in the window's dtype: no NaN at the ends
    step = 2.0 * beta / _span(M, sym)
    end = ember.minimum(beta, -beta + (M - 1) * step)
    k = ember.linspace(-beta, end, M, dtype=dtype, requires_grad=requires_grad)
    return ember.i0(ember.sqrt(beta * beta - ember.pow(k, 2))) / ember.i0(beta)


def general_cosine(M, *, a: Iterable, sym: bool = True, dtype=None, layout=strided,
                   device=None, requires_grad: bool = False) -> Tensor:
    """sum_i (-1)^i a_i cos(2 pi i n / span): the family of hann, hamming, blackman."""
    dtype = dtype or ember.get_default_dtype()
    _checks("general_cosine", M, dtype, layout)
    trivial = _trivial(M, dtype, requires_grad)
    if trivial is not None:
        return trivial
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _positions(0, 2 * math.pi / _span(M, sym), M, dtype, requires_grad)
    signed = ember.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype,
                          requires_grad=requires_grad)
    orders = ember.arange(signed.shape[0], dtype=dtype, requires_grad=requires_grad)
    return (signed.unsqueeze(-1) * ember.cos(orders.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=strided,
                    device=None, requires_grad: bool = False) -> Tensor:
    """alpha - (1 - alpha) cos(2 pi n / span)."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
            requires_grad: bool = False) -> Tensor:
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
         requires_grad: bool = False) -> Tensor:
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
             requires_grad: bool = False) -> Tensor:
    dtype = dtype or ember.get_default_dtype()
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
             requires_grad: bool = False) -> Tensor:
    """1 - |2n / span - 1|: a triangle."""
    dtype = dtype or ember.get_default_dtype()
    _checks("bartlett", M, dtype, layout)
    trivial = _trivial(M, dtype, requires_grad)
    if trivial is not None:
        return trivial
    return 1 - ember.abs(_positions(-1, 2 / _span(M, sym), M, dtype, requires_grad))


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
            requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
