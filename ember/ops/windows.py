"""Window functions for spectral analysis: hann, hamming, blackman, bartlett and kaiser.

A window of length N is a curve over the sample positions n = 0 .. N - 1. A *periodic*
window (the default, meant for stft) is the symmetric window of length N + 1 without its
last sample, so that repeating it tiles without a doubled end point. Windows are
constants: computed in float64 and rounded once to the requested dtype; requires_grad=True
makes a leaf, as in torch.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from .creation import _finish
from .pointwise import scalar_type_name

METHODS: list = []
INPLACE: list = []

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def check_real_dtype(dtype: _dtype.dtype) -> None:
    """Complex dtypes fail where torch builds the positions with arange."""
    if dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for "
                                  f"'{scalar_type_name(dtype)}'")


def _window(name: str, window_length, periodic: bool, curve, dtype, requires_grad) -> Tensor:
    """curve(positions, length) over a symmetric window, cut to a periodic one if asked."""
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    dtype = _dtype.get_default_dtype() if dtype is None else dtype
    check_real_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if window_length <= 1:
        values = np.ones(window_length)
    else:
        length = window_length + 1 if periodic else window_length
        values = curve(np.arange(length, dtype=np.float64), length)[:window_length]
    return _finish(values.astype(dtype.numpy), requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype=None, layout=None, device=None,
                   pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """alpha - beta cos(2 pi n / (N - 1))."""
    def curve(n, length):
        return alpha - beta * np.cos(2 * np.pi * n / (length - 1))
    return _window("hamming_window", window_length, periodic, curve, dtype, requires_grad)


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None,
                device=None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """sin^2(pi n / (N - 1)): the hamming window with alpha = beta = 1/2."""
    def curve(n, length):
        return 0.5 - 0.5 * np.cos(2 * np.pi * n / (length - 1))
    return _window("hann_window", window_length, periodic, curve, dtype, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None,
                    device=None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    def curve(n, length):
        phase = 2 * np.pi * n / (length - 1)
        return 0.42 - 0.5 * np.cos(phase) + 0.08 * np.cos(2 * phase)
    return _window("blackman_window", window_length, periodic, curve, dtype, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None,
                    device=None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    """The triangle 1 - |2 n / (N - 1) - 1|."""
    def curve(n, length):
        return 1 - np.abs(2 * n / (length - 1) - 1)
    return _window("bartlett_window", window_length, periodic, curve, dtype, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype=None, layout=None, device=None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    """I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta), I0 the modified Bessel function
    of order zero."""
    def curve(n, length):
        return np.i0(beta * np.sqrt(1 - (2 * n / (length - 1) - 1) ** 2)) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, curve, dtype, requires_grad)
