"""Elementwise ops: arithmetic, unary math, comparisons, logical and bitwise ops.

Binary ops promote their operands with torch's rules (`_dtype.result_type`) and
broadcast with NumPy; the engine sums broadcast gradients back to each input's
shape, so backward here is written as if shapes matched.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.function import Function

_LOW_PRECISION = (np.dtype(np.float16), _dtype.bfloat16.numpy)
_F32 = np.dtype(np.float32)

METHODS = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "neg", "pow", "exp", "log",
           "sqrt", "rsqrt", "tanh", "sigmoid", "sin", "cos", "abs", "sign", "eq", "ne", "lt",
           "le", "gt", "ge", "clone", "subtract", "multiply", "divide", "negative", "absolute"]
INPLACE = ["add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sqrt", "rsqrt", "tanh",
           "sigmoid", "sin", "cos", "abs", "sign", "true_divide", "floor_divide"]

__all__ = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "neg", "pow", "rsub", "exp", "log",
           "sqrt", "rsqrt", "tanh", "sigmoid", "sin", "cos", "abs", "sign", "eq", "ne", "lt",
           "le", "gt", "ge", "clone", "subtract", "multiply", "divide", "negative", "absolute"]


def data_of(x):
    """The NumPy array (or Python scalar) behind an operand."""
    return x._data if isinstance(x, Tensor) else x


def operands(a, b, dtype: _dtype.dtype | None = None):
    """a and b as NumPy operands already in their common torch dtype (or `dtype`)."""
    if dtype is None:
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.dtype == b._data.dtype:
            return a._data, b._data, a._data.dtype
        dtype = _dtype.result_type(a, b)
    target = dtype.numpy
    return _cast(a, target), _cast(b, target), target


def _cast(x, target: np.dtype):
    if isinstance(x, Tensor):
        d = x._data
        return d if d.dtype == target else d.astype(target)
    if isinstance(x, np.ndarray):
        return x if x.dtype == target else x.astype(target)
    return np.asarray(x, dtype=target) if isinstance(x, complex) or target.kind == "b" else x


def float_math(fn, x: np.ndarray, *args) -> np.ndarray:
    """Apply a NumPy math function, computing 16-bit floats in float32 (NumPy has no fast
    half-precision kernels) and rounding the result back."""
    if x.dtype in _LOW_PRECISION:
        return fn(x.astype(_F32), *args).astype(x.dtype)
    return fn(x, *args)


def to_float(x: Tensor) -> np.ndarray:
    """Integer and bool inputs of float-valued ops become the default dtype, as in torch."""
    d = x._data
    if d.dtype.kind in "biu":
        return d.astype(_dtype.get_default_dtype().numpy)
    return d


# ---------------------------------------------------------------- dtype conversion
class ToCopy(Function):
    backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, dtype):
        ctx.source_dtype = x.dtype
        return x._data.astype(dtype.numpy)

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.source_dtype), None


def to_dtype(x: Tensor, dtype: _dtype.dtype) -> Tensor:
    return ToCopy.apply(x, dtype)


class Clone(Function):
    backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x, memory_format=None):
        return x._data.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def clone(input: Tensor, *, memory_format=None) -> Tensor:
    return Clone.apply(input)


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

    @staticmethod
    def forward(ctx, a, b):
        x, y, _ = operands(a, b)
        ctx.save_for_backward(a if isinstance(a, Tensor) else None,
                              b if isinstance(b, Tensor) else None)
        ctx.scalars = (a, b)
        return np.multiply(x, y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a = ctx.scalars[0] if a is None else a
        b = ctx.scalars[1] if b is None else b
        need_a, need_b = ctx.needs_input_grad
        return (grad * b if need_a else None), (grad * a if need_b else None)


class Div(Function):
    backward_name = "DivBackward0"

    @staticmethod
    def forward(ctx, a, b, rounding_mode=None):
        dt = _dtype.result_type(a, b)
        if rounding_mode is None and not (dt.is_floating_point or dt.is_complex):
            dt = _dtype.get_default_dtype()
        x, y, _ = operands(a, b, dt)
        ctx.save_for_backward(a if isinstance(a, Tensor) else None,
                              b if isinstance(b, Tensor) else None)
        ctx.scalars = (a, b)
        ctx.rounding_mode = rounding_mode
        with np.errstate(divide="ignore", invalid="ignore"):
            if rounding_mode is None:
                return np.true_divide(x, y)
            if rounding_mode == "floor":
                return _floor_divide(x, y)
            if rounding_mode == "trunc":
                q = np.true_divide(x, y)
                return np.trunc(q).astype(q.dtype) if dt.is_floating_point \
                    else (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(dt.numpy)
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a = ctx.scalars[0] if a is None else a
        b = ctx.scalars[1] if b is None else b
        if ctx.rounding_mode is not None:
            return (grad * 0 if ctx.needs_input_grad[0] else None), \
                (grad * 0 if ctx.needs_input_grad[1] else None), None
        need_a, need_b = ctx.needs_input_grad[:2]
        return (grad / b if need_a else None), \
            (-grad * a / (b * b) if need_b else None), None


def _floor_divide(x, y):
    if np.result_type(x, y).kind in "iu":
        if np.any(np.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError")
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

    @staticmethod
    def forward(ctx, a, b):
        x, y, dt = operands(a, b)
        if dt.kind in "iu" and np.any(np.asarray(y) < 0):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        ctx.save_for_backward(a if isinstance(a, Tensor) else None,
                              b if isinstance(b, Tensor) else None)
        ctx.scalars = (a, b)
        return float_math(np.power, x, y) if not isinstance(y, np.ndarray) else np.power(x, y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a = ctx.scalars[0] if a is None else a
        b = ctx.scalars[1] if b is None else b
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:
            if isinstance(b, Tensor):
                grad_a = grad * b * a ** (b - 1)
            else:
                grad_a = grad * 0 if b == 0 else grad * b * a ** (b - 1)
        if need_b:
            from .. import where, log, tensor as _tensor_ctor
            base = a if isinstance(a, Tensor) else _tensor_ctor(a, dtype=grad.dtype)
            out = a ** b
            # d/db a^b = a^b log a, defined as 0 where a == 0 and b >= 0 (torch's convention)
            grad_b = where((base == 0) & (b >= 0), 0.0, grad * out * log(base))
        return grad_a, grad_b


def add(input, other, *, alpha=1, out=None) -> Tensor:
    return _with_out(Add.apply(input, other, alpha), out)


def sub(input, other, *, alpha=1, out=None) -> Tensor:
    return _with_out(Sub.apply(input, other, alpha), out)


def mul(input, other, *, out=None) -> Tensor:
    return _with_out(Mul.apply(input, other), out)


def div(input, other, *, rounding_mode=None, out=None) -> Tensor:
    return _with_out(Div.apply(input, other, rounding_mode), out)


def true_divide(input, other, *, out=None) -> Tensor:
    return div(input, other, out=out)


def floor_divide(input, other, *, out=None) -> Tensor:
    return div(input, other, rounding_mode="floor", out=out)


def neg(input, *, out=None) -> Tensor:
    return _with_out(Neg.apply(input), out)


def pow(input, exponent, *, out=None) -> Tensor:
    if not isinstance(input, Tensor):
        from .creation import scalar_tensor_like
        input = scalar_tensor_like(input, exponent)
    return _with_out(Pow.apply(input, exponent), out)


def rsub(input, other, *, alpha=1) -> Tensor:
    return Sub.apply(other if isinstance(other, Tensor) else _scalar(other, input), input, alpha)


def _scalar(value, like: Tensor) -> Tensor:
    from .creation import scalar_tensor_like
    return scalar_tensor_like(value, like)


def _with_out(result: Tensor, out) -> Tensor:
    """Support the `out=` keyword: copy the result into `out` (resized as torch does)."""
    if out is None:
        return result
    if out.shape != result.shape:
        out._data = np.empty(result._data.shape, dtype=out._data.dtype)
    out._assign_result(result.detach())
    return out


# ---------------------------------------------------------------- unary math
def unary(name: str, np_fn, grad=None, grad_from_output=None, float_only: bool = True,
          backward_name: str | None = None):
    """Build an elementwise op and its Function from a NumPy function and a gradient rule.

    grad(g, x) uses the input; grad_from_output(g, y) uses the result (then only the
    result is kept for backward). Ops without either are not differentiable.
    """
    uses_output = grad_from_output is not None

    def forward(ctx, x):
        data = to_float(x) if float_only else x._data
        if not uses_output and grad is not None:
            ctx.save_for_backward(x)
        with np.errstate(all="ignore"):
            return float_math(np_fn, data) if data.dtype.kind in "fV" else np_fn(data)

    def backward(ctx, g):
        if uses_output:
            return grad_from_output(g, ctx.output(0))
        return grad(g, ctx.saved_tensors[0])

    cls = type(name, (Function,), {
        "backward_name": backward_name or name + "Backward0",
        "saves_outputs": uses_output,
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
    })

    def op(input: Tensor, *, out=None) -> Tensor:
        return _with_out(cls.apply(input), out)

    op.__name__ = op.__qualname__ = name.lower()
    op.__doc__ = f"Elementwise {name.lower()} (torch.{name.lower()})."
    op.Function = cls
    return op


exp = unary("Exp", np.exp, grad_from_output=lambda g, y: g * y)
log = unary("Log", np.log, grad=lambda g, x: g / x)
sqrt = unary("Sqrt", np.sqrt, grad_from_output=lambda g, y: g / (2 * y))
rsqrt = unary("Rsqrt", lambda a: 1 / np.sqrt(a), grad_from_output=lambda g, y: -0.5 * g * y ** 3)
tanh = unary("Tanh", np.tanh, grad_from_output=lambda g, y: g * (1 - y * y))
sigmoid = unary("Sigmoid", lambda a: 0.5 * np.tanh(0.5 * a) + 0.5,
                grad_from_output=lambda g, y: g * y * (1 - y))
sin = unary("Sin", np.sin, grad=lambda g, x: g * x.cos())
cos = unary("Cos", np.cos, grad=lambda g, x: -g * x.sin())
abs = unary("Abs", np.abs, grad=lambda g, x: g * x.sign(), float_only=False)
sign = unary("Sign", np.sign, grad=lambda g, x: g * 0, float_only=False)


def _compare(np_fn, name):
    def op(input, other, *, out=None) -> Tensor:
        x, y, _ = operands(input, other)
        return _with_out(Tensor._wrap(np.asarray(np_fn(x, y))), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} comparison; the result is a bool tensor."
    return op


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")

subtract, multiply, divide, negative, absolute = sub, mul, div, neg, abs
