"""ember.fft: discrete Fourier transforms, as torch.fft.

Every transform here reduces to one of three primitives in ember/ops/spectral.py (complex
to complex, real to complex, complex to real), after its input is promoted (integers to the
default float dtype), the transformed dims are resolved and each is zero-padded or trimmed
to the requested signal size. Gradients come from the primitives, whose backward is again
a transform, so double backward works.

The `norm` argument names the scaling, as in torch: "backward" (the default) leaves the
forward transform unscaled and divides the inverse by n; "ortho" scales both by
1/sqrt(n); "forward" divides the forward transform by n and leaves the inverse unscaled.
"""
from __future__ import annotations

import numpy as np

from . import _dtype
from ._tensor import Tensor
from .autograd.function import Function
from .ops.padding import ConstantPad
from .ops.creation import _finish
from .ops.pointwise import _with_out, scalar_type_name
from .ops.shape import roll
from .ops.spectral import FftC2C, FftC2R, FftR2C
from .ops.windows import check_real_dtype

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_FORWARD, _INVERSE = -1, 1      # the sign of the exponent: exp(sign * 2 pi i k n / N)
_NORMS = ("backward", "ortho", "forward")
_REAL_ONLY_MESSAGES = {"rfftn": "rfftn expects a real-valued input tensor, but got ",
                       "ihfftn": "Only supports floating-point dtypes, but found: "}


# ---------------------------------------------------------------- argument checks
def _type_error(op: str, name: str, expected: str, value) -> TypeError:
    return TypeError(f"fft_{op}(): argument '{name}' must be {expected}, not "
                     f"{type(value).__name__}")


def _check_int(op: str, name: str, value) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise _type_error(op, name, "int", value)


def _check_norm(op: str, norm) -> str:
    """torch's norm argument: None means "backward"."""
    if norm is None:
        return "backward"
    if not isinstance(norm, str):
        raise _type_error(op, "norm", "str", norm)
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _check_size(n: int) -> int:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _floating(op: str, input, real_only: bool = False) -> Tensor:
    """The input as a float or complex tensor (integers and bools become the default dtype)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"fft_{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if real_only and input.is_complex():
        message = _REAL_ONLY_MESSAGES.get(op, op + " expects a real input tensor, but got ")
        raise RuntimeError(message + scalar_type_name(input.dtype))
    if input.dtype.numpy.kind in "biu":
        return input.to(_dtype.get_default_dtype())
    if input.dtype.itemsize == 2:     # float16 and bfloat16
        raise RuntimeError(f"Unsupported dtype {scalar_type_name(input.dtype)}")
    return input


def _wrap_dim(input: Tensor, dim: int) -> int:
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return input._wrap_dim(dim)


# ---------------------------------------------------------------- dims and sizes
def _one_dim(op: str, input: Tensor, n, dim, real_length: bool = False) -> tuple:
    """((axis,), (n,)) of a one-dimensional transform. n defaults to the input's size, or
    with `real_length` (a real signal from its one-sided spectrum of m bins) to 2 * (m - 1)."""
    _check_int(op, "dim", dim)
    axis = _wrap_dim(input, dim)
    if n is None:
        n = input.shape[axis]
        n = 2 * (n - 1) if real_length else n
    else:
        _check_int(op, "n", n)
    return (axis,), (_check_size(n),)


def _as_tuple(value) -> tuple | None:
    if value is None or isinstance(value, (tuple, list)):
        return value if value is None else tuple(value)
    return (value,)


def _many_dims(op: str, input: Tensor, s, dim, real_length: bool = False) -> tuple:
    """(axes, sizes) of an n-dimensional transform, with torch's rules: s alone picks the
    last len(s) dims; dim alone keeps the input's sizes; -1 in s keeps that dim's size
    (with `real_length`, the last size defaults as in _one_dim)."""
    s, dim = _as_tuple(s), _as_tuple(dim)
    for value in s or ():
        _check_int(op, "s", value)
    if dim is not None:
        axes = tuple(_wrap_dim(input, d) for d in dim)
        if len(set(axes)) != len(axes):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(s) != len(axes):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > input.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{input.ndim} dimensions.")
        axes = tuple(range(input.ndim - len(s), input.ndim))
    else:
        axes = tuple(range(input.ndim))
    if s is None:
        s = (-1,) * len(axes)
    if real_length:
        if not axes:
            raise RuntimeError(f"{op} must transform at least one axis")
        if s[-1] == -1:
            s = s[:-1] + (2 * (input.shape[axes[-1]] - 1),)
    sizes = tuple(_check_size(input.shape[a] if n == -1 else n) for a, n in zip(axes, s))
    return axes, sizes


def _resized(x: Tensor, axes: tuple, sizes: tuple) -> Tensor:
    """x zero-padded or trimmed (at the end) to `sizes` along `axes`."""
    pads = [(0, 0)] * x.ndim
    for axis, n in zip(axes, sizes):
        pads[axis] = (0, n - x.shape[axis])
    return ConstantPad.apply(x, tuple(pads), 0) if any(hi for _, hi in pads) else x


class _RealToComplex(Function):
    """A real tensor as complex (for real input to transforms of complex tensors); its
    gradient is the real part of the complex one, as in torch."""
    backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x):
        return x.astype(np.result_type(x.dtype, np.complex64))

    @staticmethod
    def backward(ctx, grad):
        return _RealPart.apply(grad)


class _RealPart(Function):
    backward_name = "RealBackward0"

    @staticmethod
    def forward(ctx, z):
        return z.real.copy()

    @staticmethod
    def backward(ctx, grad):
        return _RealToComplex.apply(grad)


def _as_complex(x: Tensor) -> Tensor:
    return x if x.is_complex() else _RealToComplex.apply(x)


# ---------------------------------------------------------------- the transforms
def _full(op: str, input, axes_and_sizes, sign: int, norm, out) -> Tensor:
    """fft / ifft / fftn ...: the full complex transform of a real or complex tensor."""
    axes, sizes = axes_and_sizes
    x = _resized(input, axes, sizes)
    if not x.is_complex() and axes:
        result = FftR2C.apply(x, axes, sign, norm, False)
    else:
        result = FftC2C.apply(_as_complex(x), axes, sign, norm)
    return _with_complex_out(op, result, out)


def _from_real(op: str, input, axes_and_sizes, sign: int, norm, out) -> Tensor:
    """rfft / ihfft ...: the one-sided transform of a real tensor."""
    axes, sizes = axes_and_sizes
    if not axes:
        raise RuntimeError(f"{op} must transform at least one axis")
    result = FftR2C.apply(_resized(input, axes, sizes), axes, sign, norm, True)
    return _with_complex_out(op, result, out)


def _to_real(op: str, input, axes_and_sizes, sign: int, norm, out) -> Tensor:
    """irfft / hfft ...: the real signal of a one-sided (Hermitian) spectrum."""
    axes, sizes = axes_and_sizes
    length = sizes[-1]
    x = _as_complex(_resized(input, axes, sizes[:-1] + (length // 2 + 1,)))
    result = FftC2R.apply(x, axes, length, sign, norm)
    if out is not None and out.is_complex():
        raise RuntimeError(f"{op} expects a floating point output tensor, but got "
                           f"{scalar_type_name(out.dtype)}")
    return _with_out(result, out)


def _with_complex_out(op: str, result: Tensor, out) -> Tensor:
    if out is not None and not out.is_complex():
        raise RuntimeError(f"{op} expects a complex output tensor, but got "
                           f"{scalar_type_name(out.dtype)}")
    return _with_out(result, out)


def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
        out: Tensor | None = None) -> Tensor:
    """The one-dimensional discrete Fourier transform along `dim` (n: signal length)."""
    x = _floating("fft", input)
    return _full("fft", x, _one_dim("fft", x, n, dim), _FORWARD, _check_norm("fft", norm), out)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The one-dimensional inverse discrete Fourier transform along `dim`."""
    x = _floating("ifft", input)
    return _full("ifft", x, _one_dim("ifft", x, n, dim), _INVERSE, _check_norm("ifft", norm),
                 out)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The transform of a real signal: its n // 2 + 1 non-negative frequency bins."""
    x = _floating("rfft", input, real_only=True)
    return _from_real("rfft", x, _one_dim("rfft", x, n, dim), _FORWARD,
                      _check_norm("rfft", norm), out)


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The inverse of rfft: the real signal of length n (default 2 * (m - 1)) whose
    non-negative frequency bins are `input`."""
    x = _floating("irfft", input)
    return _to_real("irfft", x, _one_dim("irfft", x, n, dim, real_length=True),
                    _INVERSE, _check_norm("irfft", norm), out)


def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The (real) transform of a Hermitian-symmetric signal given by its first half."""
    x = _floating("hfft", input)
    return _to_real("hfft", x, _one_dim("hfft", x, n, dim, real_length=True),
                    _FORWARD, _check_norm("hfft", norm), out)


def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The inverse of hfft: the first n // 2 + 1 bins of the inverse transform of a real
    signal."""
    x = _floating("ihfft", input, real_only=True)
    return _from_real("ihfft", x, _one_dim("ihfft", x, n, dim), _INVERSE,
                      _check_norm("ihfft", norm), out)


def fftn(input: Tensor, s=None, dim=None, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The n-dimensional discrete Fourier transform over `dim` (default: all dims)."""
    x = _floating("fftn", input)
    return _full("fftn", x, _many_dims("fftn", x, s, dim), _FORWARD,
                 _check_norm("fftn", norm), out)


def ifftn(input: Tensor, s=None, dim=None, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The n-dimensional inverse discrete Fourier transform over `dim`."""
    x = _floating("ifftn", input)
    return _full("ifftn", x, _many_dims("ifftn", x, s, dim), _INVERSE,
                 _check_norm("ifftn", norm), out)


def rfftn(input: Tensor, s=None, dim=None, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The n-dimensional transform of a real tensor, one-sided along the last of `dim`."""
    x = _floating("rfftn", input, real_only=True)
    return _from_real("rfftn", x, _many_dims("rfftn", x, s, dim), _FORWARD,
                      _check_norm("rfftn", norm), out)


def irfftn(input: Tensor, s=None, dim=None, norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """The inverse of rfftn: a real tensor of sizes `s` from its one-sided spectrum."""
    x = _floating("irfftn", input)
    return _to_real("irfftn", x, _many_dims("irfftn", x, s, dim, real_length=True), _INVERSE,
                    _check_norm("irfftn", norm), out)


def hfftn(input: Tensor, s=None, dim=None, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The n-dimensional hfft: the real transform of a signal Hermitian along `dim`,
    given by its first half along the last of them."""
    x = _floating("hfftn", input)
    return _to_real("hfftn", x, _many_dims("hfftn", x, s, dim, real_length=True), _FORWARD,
                    _check_norm("hfftn", norm), out)


def ihfftn(input: Tensor, s=None, dim=None, norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """The inverse of hfftn."""
    x = _floating("ihfftn", input, real_only=True)
    return _from_real("ihfftn", x, _many_dims("ihfftn", x, s, dim), _INVERSE,
                      _check_norm("ihfftn", norm), out)


def _two_dim(transform):
    """The 2-D variant of an n-dimensional transform: dim defaults to the last two dims."""
    def two_dim(input: Tensor, s=None, dim=(-2, -1), norm: str | None = None, *,
                out: Tensor | None = None) -> Tensor:
        return transform(input, s, dim, norm, out=out)
    two_dim.__name__ = two_dim.__qualname__ = transform.__name__[:-1] + "2"
    two_dim.__doc__ = f"{transform.__name__} over two dims (default: the last two)."
    return two_dim


fft2 = _two_dim(fftn)
ifft2 = _two_dim(ifftn)
rfft2 = _two_dim(rfftn)
irfft2 = _two_dim(irfftn)
hfft2 = _two_dim(hfftn)
ihfft2 = _two_dim(ihfftn)


# ---------------------------------------------------------------- frequencies and shifts
def _frequencies(op: str, steps: np.ndarray, n: int, d: float, out, dtype,
                 requires_grad: bool) -> Tensor:
    """steps / (d * n) in `dtype` (default: the default float dtype)."""
    dtype = _dtype.get_default_dtype() if dtype is None else dtype
    check_real_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"{op} requires a floating point or complex dtype")
    with np.errstate(divide="ignore"):
        scale = np.divide(1.0, n * d)       # d = 0 gives inf (and nan at 0), as in torch
    # torch multiplies by the reciprocal in the tensor's dtype; so do we, for equal rounding.
    with np.errstate(invalid="ignore"):
        data = steps.astype(dtype.numpy) * np.asarray(scale, dtype=dtype.numpy)
    return _with_out(_finish(data, requires_grad), out)


def _check_count(op: str, n) -> None:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"fft_{op}(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")


def fftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype=None, layout=None,
            device=None, requires_grad: bool = False) -> Tensor:
    """The sample frequencies of fft(x, n) for sample spacing d:
    [0, 1, ..., ceil(n / 2) - 1, -floor(n / 2), ..., -1] / (d * n)."""
    _check_count("fftfreq", n)
    steps = np.arange(n)
    steps[(n + 1) // 2:] -= n
    return _frequencies("fftfreq", steps, n, d, out, dtype, requires_grad)


def rfftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype=None, layout=None,
             device=None, requires_grad: bool = False) -> Tensor:
    """The sample frequencies of rfft(x, n): [0, 1, ..., n // 2] / (d * n)."""
    _check_count("rfftfreq", n)
    return _frequencies("rfftfreq", np.arange(n // 2 + 1), n, d, out, dtype, requires_grad)


def _shifted(input: Tensor, dim, shift_of) -> Tensor:
    dims = range(input.ndim) if dim is None else _as_tuple(dim)
    dims = tuple(input._wrap_dim(d) for d in dims)
    if not dims:
        raise RuntimeError("`shifts` required")
    return roll(input, tuple(shift_of(input.shape[d]) for d in dims), dims)


def fftshift(input: Tensor, dim=None) -> Tensor:
    """Moves the zero-frequency bin to the middle of `dim` (default: every dim)."""
    return _shifted(input, dim, lambda n: n // 2)


def ifftshift(input: Tensor, dim=None) -> Tensor:
    """The inverse of fftshift."""
    return _shifted(input, dim, lambda n: (n + 1) // 2)
