"""Matrix products. All of them reach NumPy's BLAS-backed matmul."""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.function import Function
from .pointwise import float_math

METHODS = ["matmul", "mm", "bmm"]

__all__ = ["matmul", "mm", "bmm"]


def _check_same_dtype(a: Tensor, b: Tensor, opname: str) -> None:
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{a.dtype.name} != {b.dtype.name}" if opname != "dot" else
                           f"dot : expected both vectors to have same dtype, but found "
                           f"{a.dtype.name.capitalize()} and {b.dtype.name.capitalize()}")


def _shape_error(a: Tensor, b: Tensor) -> RuntimeError:
    sa, sb = a._data.shape, b._data.shape
    if len(sa) == 2 and len(sb) == 2 or len(sa) == 1 or len(sb) == 1:
        return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa[0] if len(sa) > 1 else 1}"
                            f"x{sa[-1]} and {sb[0]}x{sb[-1] if len(sb) > 1 else 1})")
    return RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                        f"[{sb[0]}, {sa[-1]}] but got: [{sb[0]}, {sb[-2]}].")


class MatMul(Function):
    backward_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        _check_same_dtype(a, b, "matmul")
        x, y = a._data, b._data
        if x.ndim == 0 or y.ndim == 0:
            raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                               f"{x.ndim}D and {y.ndim}D")
        if x.shape[-1] != y.shape[-2 if y.ndim > 1 else 0]:
            raise _shape_error(a, b)
        ctx.save_for_backward(a, b)
        if x.dtype == _dtype.bfloat16.numpy or x.dtype == np.float16:
            return float_math(np.matmul, x, y.astype(np.float32))
        return np.matmul(x, y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        a2 = a.unsqueeze(0) if a.ndim == 1 else a
        b2 = b.unsqueeze(-1) if b.ndim == 1 else b
        g = grad
        if a.ndim == 1:
            g = g.unsqueeze(-2)
        if b.ndim == 1:
            g = g.unsqueeze(-1)
        grad_a = grad_b = None
        if need_a:
            grad_a = g.matmul(b2.mT)
            if a.ndim == 1:
                grad_a = grad_a.squeeze(-2)
        if need_b:
            grad_b = a2.mT.matmul(g)
            if b.ndim == 1:
                grad_b = grad_b.squeeze(-1)
        return grad_a, grad_b


def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    result = MatMul.apply(input, other)
    if result._grad_fn is not None:
        nd = (input.ndim, other.ndim)
        result._grad_fn.backward_name = ("MmBackward0" if nd == (2, 2) else
                                         "DotBackward0" if nd == (1, 1) else
                                         "MvBackward0" if nd == (2, 1) else
                                         "BmmBackward0" if nd == (3, 3) else "UnsafeViewBackward0")
    if out is not None:
        from .pointwise import _with_out
        return _with_out(result, out)
    return result


def mm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(input, mat2, out=out)


def bmm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return matmul(input, mat2, out=out)
