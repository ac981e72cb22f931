"""Elementwise ops: arithmetic, unary math, comparisons, logical and bitwise ops.

Binary ops promote their operands with torch's rules (`_dtype.result_type`) and
broadcast with NumPy; the engine sums broadcast gradients back to each input's
shape, so backward here is written as if shapes matched.

The family spans three files: this one holds the shared helpers, arithmetic, `where`,
comparisons and logical/bitwise ops, and gathers the other two (pointwise_unary: unary
math; pointwise_binary: binary math, clamp/lerp/addcmul and the direct in-place ops)
into one namespace, METHODS and INPLACE list.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype
from .._memory_format import check_format, in_format, memory_order, preserve_format
from .._tensor import Tensor
from ..autograd.function import Function
from .._modes import current as modes
from .indexing import _named

_LOW_PRECISION = (np.dtype(np.float16), _dtype.bfloat16.numpy)
_F32 = np.dtype(np.float32)

_OPS = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "neg", "pow", "square",
        "float_power", "clone", "subtract", "multiply", "divide", "negative", "eq", "ne", "lt",
        "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
        "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
        "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "isclose",
        "allclose", "equal"]
_INPLACE = ["neg", "pow", "square", "float_power", "true_divide", "floor_divide", "subtract",
            "multiply", "divide", "negative", "eq", "ne", "lt", "le", "gt", "ge", "greater",
            "greater_equal", "less", "less_equal", "not_equal", "logical_and", "logical_or",
            "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
            "bitwise_not", "bitwise_left_shift", "bitwise_right_shift"]

_SCALAR_TYPE_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
    "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def scalar_type_name(dtype) -> str:
    """torch's C++ name of a dtype ('Float', 'Long' ...), as its error messages print it."""
    return _SCALAR_TYPE_NAMES[dtype.name if isinstance(dtype, _dtype.dtype) else
                              np.dtype(dtype).name]


def _unsupported(kernel: str, dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dtype)}\'')


def data_of(x):
    """The NumPy array (or Python scalar) behind an operand."""
    return x._data if isinstance(x, Tensor) else x


def _check_broadcast(a: np.ndarray, b: np.ndarray) -> None:
    """torch's error for shapes that do not broadcast (NumPy would raise ValueError)."""
    sa, sb = a.shape, b.shape
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            raise RuntimeError(f"The size of tensor a ({sa[-i]}) must match the size of tensor "
                               f"b ({sb[-i]}) at non-singleton dimension "
                               f"{max(len(sa), len(sb)) - i}")


def operands(a, b, dtype: _dtype.dtype | None = None):
    """a and b as NumPy operands already in their common torch dtype (or `dtype`)."""
    if isinstance(a, Tensor):
        x = a._data
        if isinstance(b, Tensor):
            y = b._data
            if x.shape != y.shape:
                _check_broadcast(x, y)
            if dtype is None and x.dtype == y.dtype:
                return x, y, x.dtype
        elif dtype is None and type(b) in _WEAK_SCALARS and x.dtype in _NATIVE_FLOATS:
            # A Python number never changes a float tensor's dtype; NumPy agrees for
            # its native float types (weak scalars), so no promotion work is needed.
            return x, b, x.dtype
    if dtype is None:
        dtype = _dtype.result_type(a, b)
    target = dtype.numpy
    return _cast(a, target), _cast(b, target), target


_WEAK_SCALARS = (int, float)
_NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def _cast(x, target: np.dtype):
    if isinstance(x, Tensor):
        d = x._data
        return d if d.dtype == target else d.astype(target)
    if isinstance(x, np.ndarray):
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


def zero_unless(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """values where `keep` (bool) holds and +0 elsewhere, NaN and inf included: the bits
    ANDed with an all-ones/all-zeros mask. NumPy's masked selection (np.where, boolean
    indexing) branches on every element and costs about ten times more on random masks."""
    bits = np.dtype(f"u{values.itemsize}")
    mask = keep.astype(bits)
    np.negative(mask, out=mask)             # 1 -> all ones (unsigned wrap-around)
    np.bitwise_and(values.view(bits), mask, out=mask)
    return mask.view(values.dtype)


def to_float(x: Tensor) -> np.ndarray:
    """Integer and bool inputs of float-valued ops become the default dtype, as in torch."""
    d = x._data
    if d.dtype.kind in "biu":
        return d.astype(_dtype.get_default_dtype().numpy)
    return d


def _float_result_type(*operands_) -> _dtype.dtype:
    """result_type, with integer and bool results raised to the default float dtype."""
    dt = _dtype.result_type(*operands_)
    return dt if dt.is_floating_point or dt.is_complex else _dtype.get_default_dtype()


def _save_operands(ctx, a, b) -> None:
    """Keep both operands of a binary op for backward: Tensors saved, scalars as they are."""
    ctx.save_for_backward(a if isinstance(a, Tensor) else None,
                          b if isinstance(b, Tensor) else None)
    ctx.scalars = (a, b)


def _saved_operands(ctx):
    a, b = ctx.saved_tensors
    return (ctx.scalars[0] if a is None else a), (ctx.scalars[1] if b is None else b)


# ---------------------------------------------------------------- dtype conversion
class ToCopy(Function):
    backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, dtype, memory_format):
        ctx.source_dtype = x.dtype
        data = x._data.astype(dtype.numpy)              # keeps x's layout
        return data if memory_format is preserve_format else in_format(data, memory_format)

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.source_dtype), None, None


def to_dtype(x: Tensor, dtype: _dtype.dtype, memory_format=preserve_format) -> Tensor:
    """A copy of x converted to dtype and laid out in memory_format."""
    return ToCopy.apply(x, dtype, memory_format)


class Clone(Function):
    backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x, memory_format=None):
        # preserve_format (None) keeps a dense permuted layout (e.g. a transpose), as
        # torch's clone does; see _memory_format.py for the others.
        return in_format(x._data, memory_format)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def clone(input: Tensor, *, memory_format=preserve_format) -> Tensor:
    check_format(memory_format, "clone")
    memory_order(memory_format, input.ndim)          # the channels-last formats' rank
    return Clone.apply(input, memory_format)


# ---------------------------------------------------------------- arithmetic
class Add(Function):
    backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        x, y, _ = operands(a, b)
        if alpha != 1:
            y = y * alpha
        ctx.alpha = alpha
        return np.add(x, y)

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad if ctx.alpha == 1 else grad * ctx.alpha), None


class Sub(Function):
    backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        x, y, dt = operands(a, b)
        if dt.kind == "b":
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        ctx.alpha = alpha
        return np.subtract(x, y if alpha == 1 else y * alpha)

    @staticmethod
    def backward(ctx, grad):
        return grad, (-grad if ctx.alpha == 1 else grad * -ctx.alpha), None


class Mul(Function):
    backward_name = "MulBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx, a, b):
        x, y, _ = operands(a, b)
        if ctx._edges:
            # Each gradient needs only the other operand: keep just what is needed.
            need_a, need_b = ctx.needs_input_grad
            _save_operands(ctx, b if need_a else None, a if need_b else None)
        return np.multiply(x, y)

    @staticmethod
    def backward(ctx, grad):
        b_for_a, a_for_b = _saved_operands(ctx)
        need_a, need_b = ctx.needs_input_grad
        return (grad * b_for_a if need_a else None), (grad * a_for_b if need_b else None)


def _rounded_divide(x, y, rounding_mode: str, dt: _dtype.dtype):
    if rounding_mode == "floor":
        return _floor_divide(x, y)
    if rounding_mode == "trunc":
        if dt.is_floating_point:
            q = np.true_divide(x, y)
            return np.trunc(q).astype(q.dtype)
        _check_int_divisor(y)
        return (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(dt.numpy)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                       f"but found '{rounding_mode}'")


class Div(Function):
    backward_name = "DivBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx, a, b, rounding_mode=None):
        dt = _float_result_type(a, b) if rounding_mode is None else _dtype.result_type(a, b)
        x, y, _ = operands(a, b, dt)
        _save_operands(ctx, a, b)
        ctx.rounding_mode = rounding_mode
        with np.errstate(divide="ignore", invalid="ignore"):
            if rounding_mode is None:
                return np.true_divide(x, y)
            return _rounded_divide(x, y, rounding_mode, dt)

    @staticmethod
    def backward(ctx, grad):
        a, b = _saved_operands(ctx)
        need_a, need_b = ctx.needs_input_grad[:2]
        if ctx.rounding_mode is not None:
            return (grad * 0 if need_a else None), (grad * 0 if need_b else None), None
        return (grad / b if need_a else None), \
            (-grad * a / (b * b) if need_b else None), None


def _check_int_divisor(y) -> None:
    if np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")


def _floor_divide(x, y):
    if np.result_type(x, y).kind in "iu":
        _check_int_divisor(y)
        return np.floor_divide(x, y)
    return np.floor(np.true_divide(x, y))


class Neg(Function):
    backward_name = "NegBackward0"

    @staticmethod
    def forward(ctx, x):
        if x._data.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        return np.negative(x._data)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Pow(Function):
    backward_name = "PowBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx, a, b):
        x, y, dt = operands(a, b)
        if dt.kind in "iu" and np.any(np.asarray(y) < 0):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        _save_operands(ctx, a, b)
        with np.errstate(all="ignore"):
            return float_math(np.power, x, y) if not isinstance(y, np.ndarray) \
                else np.power(x, y)

    @staticmethod
    def backward(ctx, grad):
        a, b = _saved_operands(ctx)
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:
            if isinstance(b, Tensor):
                grad_a = grad * b * a ** (b - 1)
            else:
                grad_a = grad * 0 if b == 0 else grad * b * a ** (b - 1)
        if need_b:
            base = a if isinstance(a, Tensor) else _scalar(a, grad)
            # d/db a^b = a^b log a, defined as 0 where a == 0 and b >= 0 (torch's convention)
            grad_b = where((base == 0) & (b >= 0), 0.0, grad * (a ** b) * base.log())
        return grad_a, grad_b


def add(input, other, *, alpha=1, out=None) -> Tensor:
    result = Add.apply(input, other, alpha)
    return result if out is None else _with_out(result, out)


def sub(input, other, *, alpha=1, out=None) -> Tensor:
    return _with_out(Sub.apply(input, other, alpha), out)


def mul(input, other, *, out=None) -> Tensor:
    result = Mul.apply(input, other)
    return result if out is None else _with_out(result, out)


def div(input, other, *, rounding_mode=None, out=None) -> Tensor:
    return _with_out(Div.apply(input, other, rounding_mode), out)


def true_divide(input, other, *, out=None) -> Tensor:
    return div(input, other, out=out)


def floor_divide(input, other, *, out=None) -> Tensor:
    return div(input, other, rounding_mode="floor", out=out)


def neg(input, *, out=None) -> Tensor:
    return _with_out(Neg.apply(input), out)


def pow(input, exponent, *, out=None) -> Tensor:
    scalar_base = not isinstance(input, Tensor)
    if scalar_base:
        input = _scalar(input, exponent)
    result = Pow.apply(input, exponent)
    if isinstance(exponent, Tensor):
        _named(result, "PowBackward2" if scalar_base else "PowBackward1")
    return _with_out(result, out)


subtract, multiply, divide, negative = sub, mul, div, neg


def square(input: Tensor, *, out=None) -> Tensor:
    return pow(input, 2, out=out)


def float_power(input, exponent, *, out=None) -> Tensor:
    """pow computed in double precision (complex128 when an operand is complex)."""
    is_complex = [isinstance(v, complex) or (isinstance(v, Tensor) and v.is_complex())
                  for v in (input, exponent)]
    wide = _dtype.complex128 if any(is_complex) else _dtype.float64
    input = input.to(wide) if isinstance(input, Tensor) else _scalar(input, exponent).to(wide)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(wide)
    return pow(input, exponent, out=out)


def rsub(input, other, *, alpha=1) -> Tensor:
    """other - alpha * input (torch names the node after whether `other` is a number)."""
    scalar_other = not isinstance(other, Tensor)
    result = Sub.apply(_scalar(other, input) if scalar_other else other, input, alpha)
    return _named(result, "RsubBackward1" if scalar_other else "RsubBackward0")


def reflected_div(input: Tensor, other) -> Tensor:
    """other / input for `number / tensor`: torch computes reciprocal(input) * number."""
    if isinstance(other, Tensor):
        return div(other, input)
    from .pointwise_unary import reciprocal
    return mul(reciprocal(input), other)


def _scalar(value, like) -> Tensor:
    from .creation import scalar_tensor_like
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


# ---------------------------------------------------------------- where
class Where(Function):
    backward_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, condition, x, y):
        ctx.save_for_backward(condition)
        a, b, target = operands(x, y)
        return np.where(condition._data, a, b).astype(target, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (condition,) = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad[1:]
        return (None, where(condition, grad, 0.0) if need_x else None,
                where(condition, 0.0, grad) if need_y else None)


def where(condition: Tensor, input=None, other=None, *, out=None):
    """Elementwise choice: input where condition holds, other elsewhere (either may be a
    number). With only a condition, the indices of its nonzero elements (nonzero)."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    kind = condition._data.dtype
    if kind == np.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated "
                      "and will be removed in a future version of PyTorch. Use a boolean "
                      "condition instead.", UserWarning, stacklevel=2)
    elif kind != np.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {scalar_type_name(kind)}")
    return _with_out(Where.apply(condition, input, other), out)


# ---------------------------------------------------------------- comparison, logic, bits
def _nondiff_binary(name: str, np_fn, kinds: str | None = None, kernel: str | None = None,
                    tensor_other: bool = False):
    """A non-differentiable two-operand op on the operands' common dtype.

    kinds: the NumPy dtype kinds the op accepts (e.g. "biu" for bitwise ops); others raise
    torch's NotImplementedError naming `kernel`.
    """
    def op(input, other, *, out=None) -> Tensor:
        if tensor_other and not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        if not isinstance(input, Tensor):
            input = _scalar(input, other)
        x, y, dt = operands(input, other)
        if kinds is not None and dt.kind not in kinds:
            raise _unsupported(kernel or name + "_cpu", dt)
        return _with_out(Tensor._wrap(np.asarray(np_fn(x, y))), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} (torch.{name}); not differentiable."
    return op


eq = _nondiff_binary("eq", np.equal)
ne = _nondiff_binary("ne", np.not_equal)
lt = _nondiff_binary("lt", np.less)
le = _nondiff_binary("le", np.less_equal)
gt = _nondiff_binary("gt", np.greater)
ge = _nondiff_binary("ge", np.greater_equal)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

logical_and = _nondiff_binary("logical_and", np.logical_and, tensor_other=True)
logical_or = _nondiff_binary("logical_or", np.logical_or, tensor_other=True)
logical_xor = _nondiff_binary("logical_xor", np.logical_xor, tensor_other=True)
bitwise_and = _nondiff_binary("bitwise_and", np.bitwise_and, "biu")
bitwise_or = _nondiff_binary("bitwise_or", np.bitwise_or, "biu")
bitwise_xor = _nondiff_binary("bitwise_xor", np.bitwise_xor, "biu")
bitwise_left_shift = _nondiff_binary("bitwise_left_shift", np.left_shift, "iu", "lshift_cpu")
bitwise_right_shift = _nondiff_binary("bitwise_right_shift", np.right_shift, "iu",
                                      "rshift_cpu")


def logical_not(input: Tensor, *, out=None) -> Tensor:
    return _with_out(Tensor._wrap(np.logical_not(input._data)), out)


def bitwise_not(input: Tensor, *, out=None) -> Tensor:
    if input._data.dtype.kind not in "biu":
        raise _unsupported("bitwise_not_cpu", input._data.dtype)
    return _with_out(Tensor._wrap(np.invert(input._data)), out)


def _same_dtype(input: Tensor, other: Tensor) -> None:
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{scalar_type_name(input.dtype)} did not match "
                           f"{scalar_type_name(other.dtype)}")


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other|, elementwise (infinities equal themselves)."""
    _same_dtype(input, other)
    x, y, _ = operands(input, other)
    if x.dtype.kind in "biuV" or x.dtype in _LOW_PRECISION:
        x, y = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        gap = np.abs(x - y)
        close = (x == y) | (np.isfinite(gap) & (gap <= atol + rtol * np.abs(y)))
    if equal_nan:
        close |= np.isnan(x) & np.isnan(y)
    return Tensor._wrap(np.asarray(close))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape and the same values."""
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


# ---------------------------------------------------------------- the rest of the family
# Imported last: both modules build on the helpers above.
from . import pointwise_binary, pointwise_unary  # noqa: E402
from .pointwise_binary import *  # noqa: E402,F401,F403
from .pointwise_unary import *  # noqa: E402,F401,F403
from .pointwise_binary import (add_, addcdiv_, addcmul_, clamp_, copy_, div_,  # noqa: E402,F401
                               fill_, lerp_, mul_, sqrt_, sub_, zero_)

METHODS = [n for n in _OPS] + pointwise_unary.METHODS + pointwise_binary.METHODS
INPLACE = _INPLACE + pointwise_unary.INPLACE + pointwise_binary.INPLACE
__all__ = _OPS + ["rsub", "where"] + pointwise_unary.__all__ + pointwise_binary.__all__


def _where_method(self: Tensor, condition: Tensor, other) -> Tensor:
    return where(condition, self, other)


# Bound here rather than through METHODS: Tensor.where takes self as the chosen values,
# not as the condition, and real/imag are properties.
Tensor.where = _where_method
Tensor.real = property(pointwise_unary.real)
Tensor.imag = property(pointwise_unary.imag)
