"""Complex tensors as pairs of reals: view_as_real, view_as_complex, complex and polar.

A complex64 (complex128) array is laid out in memory as float32 (float64) pairs
(real, imaginary), so the two views reinterpret the same memory without copying, as
torch's do: writing through one is seen through the other. Gradients follow torch's
convention for complex numbers, in which the gradient of a real input is the real
part of the complex gradient's matching component.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function
from .pointwise import _check_broadcast, _with_out, scalar_type_name
from .shape import _named

METHODS: list = []
INPLACE: list = []

__all__ = ["view_as_real", "view_as_complex", "complex", "polar"]

_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64),
            np.dtype(np.float64): np.dtype(np.complex128)}
_REAL = {c: r for r, c in _COMPLEX.items()}


class ViewAsReal(Function):
    backward_name = "ViewAsRealBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, z):
        # A trailing axis of length 1 is contiguous, so it can be reread as two reals.
        return z[..., None].view(_REAL[z.dtype])

    @staticmethod
    def backward(ctx, grad):
        return ViewAsComplex.apply(grad.contiguous())


class ViewAsComplex(Function):
    backward_name = "ViewAsComplexBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x):
        return x.view(_COMPLEX[x.dtype])[..., 0]

    @staticmethod
    def backward(ctx, grad):
        return ViewAsReal.apply(grad)


def view_as_real(input: Tensor) -> Tensor:
    """A real view of a complex tensor with a last dimension of 2: (real, imaginary)."""
    if not input.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return ViewAsReal.apply(input)


def view_as_complex(input: Tensor) -> Tensor:
    """A complex view of a real tensor whose last dimension (of size 2) holds (real, imag)."""
    dtype = input._data.dtype
    if dtype not in _COMPLEX:
        if dtype == np.float16:
            raise NotImplementedError("view_as_complex of float16 tensors (complex32) is not "
                                      "supported by ember")
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           "tensors, but got a tensor of scalar type: "
                           f"{scalar_type_name(input.dtype)}")
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = input.stride()
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last "
                           "dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return ViewAsComplex.apply(input)


class Complex(Function):
    backward_name = "ComplexBackward0"

    @staticmethod
    def forward(ctx, real, imag):
        _check_broadcast(real, imag)
        out = np.empty(np.broadcast_shapes(real.shape, imag.shape), dtype=_COMPLEX[real.dtype])
        out.real, out.imag = real, imag
        return out

    @staticmethod
    def backward(ctx, grad):
        parts = view_as_real(grad)
        return parts[..., 0], parts[..., 1]


def _check_parts(a: Tensor, b: Tensor) -> None:
    """Both float32 or both float64, as torch.complex and torch.polar require."""
    da, db = a._data.dtype, b._data.dtype
    if da not in _COMPLEX or db not in _COMPLEX:
        if da == np.float16 and db == np.float16:
            raise NotImplementedError("complex32 tensors (from float16 parts) are not "
                                      "supported by ember")
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{scalar_type_name(a.dtype)} and {scalar_type_name(b.dtype)}")
    if da != db:
        raise RuntimeError(f"Expected object of scalar type {scalar_type_name(a.dtype)} but "
                           f"got scalar type {scalar_type_name(b.dtype)} for second argument")


def complex(real: Tensor, imag: Tensor, *, out=None) -> Tensor:
    """real + i imag, elementwise (with broadcasting)."""
    _check_parts(real, imag)
    return _with_out(Complex.apply(real, imag), out)


def polar(abs: Tensor, angle: Tensor, *, out=None) -> Tensor:
    """abs * (cos(angle) + i sin(angle)), elementwise."""
    _check_parts(abs, angle)
    result = Complex.apply(abs * angle.cos(), abs * angle.sin())
    return _with_out(_named(result, "PolarBackward0"), out)
