"""What the pointwise ops share: operand promotion and casting, float math for the
low-precision types, out= handling and saved operands."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._dtype import scalar_type_name
from ..._meta import MetaArray
from ..._modes import current as modes
from ..._tensor import Tensor

_LOW_PRECISION = _dtype.LOW_PRECISION_NUMPY
_F32 = np.dtype(np.float32)


_unsupported = _dtype.unsupported_kernel   # torch's error for a kernel without code for a dtype
_LIMITED = _dtype.LIMITED_NUMPY
check_limited = _dtype.check_limited


def data_of(x):
    """The NumPy array (or Python scalar) behind an operand."""
    return x._data if isinstance(x, Tensor) else x


# A primitive's forward sees its Tensor inputs as arrays; torch's promotion reads them
# as the Tensors they belong to.
result_type = _dtype.result_type


def _integral(x) -> bool:
    """Whether an operand (an array or a number) holds integers or bools."""
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "biu"
    return isinstance(x, (int, np.integer, np.bool_))


def _check_broadcast(a: np.ndarray, b: np.ndarray) -> None:
    """torch's error for shapes that do not broadcast (NumPy would raise ValueError)."""
    sa, sb = a.shape, b.shape
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            raise RuntimeError(f"The size of tensor a ({sa[-i]}) must match the size of tensor "
                               f"b ({sb[-i]}) at non-singleton dimension "
                               f"{max(len(sa), len(sb)) - i}")


def operands(a, b, dtype: _dtype.dtype | None = None):
    """a and b (NumPy arrays or Python scalars) as NumPy operands already in their common
    torch dtype (or `dtype`)."""
    if isinstance(a, np.ndarray):
        if isinstance(b, np.ndarray):
            if a.shape != b.shape:
                _check_broadcast(a, b)
            if dtype is None and a.dtype == b.dtype:
                return a, b, a.dtype
        elif dtype is None and type(b) in _WEAK_SCALARS and a.dtype in _NATIVE_FLOATS:
            # A Python number never changes a float tensor's dtype; NumPy agrees for
            # its native float types (weak scalars), so no promotion work is needed.
            return a, b, a.dtype
    if dtype is None:
        dtype = result_type(a, b)
    target = dtype.numpy
    return _cast(a, target), _cast(b, target), target


_WEAK_SCALARS = (int, float)
_NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def _cast(x, target: np.dtype):
    if isinstance(x, (np.ndarray, MetaArray)):
        return x if x.dtype == target else x.astype(target)
    if isinstance(x, (complex, np.generic)) or target.kind == "b" or \
            target == _dtype.bfloat16.numpy:
        # NumPy would widen these with a Python scalar; a NumPy scalar is strong in NumPy
        # but weak (a plain number) in torch.
        return np.asarray(x, dtype=target)
    return x


def float_math(fn, x: np.ndarray, *args) -> np.ndarray:
    """Apply a NumPy math function, computing 16-bit floats in float32 (NumPy has no fast
    half-precision kernels) and rounding the result back."""
    if x.dtype in _LOW_PRECISION:
        return fn(x.astype(_F32), *args).astype(x.dtype)
    return fn(x, *args)


def to_float(x: np.ndarray) -> np.ndarray:
    """Integer and bool inputs of float-valued ops become the default dtype, as in torch."""
    if x.dtype.kind in "biu":
        return x.astype(_dtype.get_default_dtype().numpy)
    return x


def _float_result_type(*operands_) -> _dtype.dtype:
    """result_type, with integer and bool results raised to the default float dtype."""
    dt = result_type(*operands_)
    return dt if dt.is_floating_point or dt.is_complex else _dtype.get_default_dtype()


def _save_operands(ctx, a, b) -> None:
    """Keep both operands of a binary op for backward: input arrays saved (as their Tensors),
    scalars as they are (an op on a Tensor and a number saves no tensor at all)."""
    ctx.scalars = (a, b)
    a_array, b_array = isinstance(a, np.ndarray), isinstance(b, np.ndarray)
    if a_array or b_array:
        ctx.save_for_backward(a if a_array else None, b if b_array else None)
    else:       # nothing for apply to map; the node is still freed after backward, as torch's
        ctx._saved = (None, None)


def _saved_operands(ctx):
    a, b = ctx._unpacked_saved
    return (ctx.scalars[0] if a is None else a), (ctx.scalars[1] if b is None else b)


# ---------------------------------------------------------------- dtype conversion
def _check_int_divisor(y) -> None:
    if np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")


def _scalar(value, like) -> Tensor:
    from ..creation import scalar_tensor_like
    return scalar_tensor_like(value, like)


def _with_out(result: Tensor, out) -> Tensor:
    """Support the `out=` keyword: copy the result into `out` (resized as torch does)."""
    if out is None:
        return result
    if result._requires_grad and modes().grad_enabled:
        op = result._grad_fn.name().split("Backward")[0].lower()
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if out.shape != result.shape:
        out._data = np.empty(result._data.shape, dtype=out._data.dtype)
    out._assign_result(result.detach())
    return out


def _compute(fn, x, y, target: np.dtype):
    """fn(x, y) in the target dtype; 16-bit floats are computed in float32."""
    with np.errstate(all="ignore"):
        if target in _LOW_PRECISION:
            return np.asarray(fn(_cast(x, _F32), _cast(y, _F32))).astype(target)
        return np.asarray(fn(x, y)).astype(target, copy=False)


def _zeros_like(input: Tensor) -> Tensor:
    """Zeros shaped like a gradient (a constant: nothing to differentiate)."""
    return Tensor._wrap(np.zeros_like(input._data))
