"""Arithmetic (add, sub, mul, div, neg, pow ...), dtype conversion (to, clone), and the
comparison, logical and bitwise ops."""
from __future__ import annotations


import numpy as np

from ... import _dtype
from ..._device import device as as_device, factory_device
from ..._meta import MetaArray
from ...autograd.grad_mode import is_grad_enabled
from ..._memory_format import (check_format, in_format, memory_order, preserve_format,
                               suggested_format)
from ..._tensor import Tensor, _python_value, parse_to_args
from ...autograd.function import Function
from .._nondifferentiable import nondifferentiable, recorded, run
from ..indexing import _named
from ._common import (_LIMITED, _LOW_PRECISION, _check_int_divisor, _integral,
                      _save_operands, _saved_operands, _scalar, _unsupported, _with_out,
                      _zeros_like, check_limited, data_of, float_math, operands,
                      scalar_type_name)
from ._deprecated import scalar_first
from .unary import reciprocal
from .where import where

_OPS = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "neg", "pow", "square",
        "float_power", "clone", "subtract", "multiply", "divide", "negative", "eq", "ne", "lt",
        "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
        "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
        "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "isclose",
        "allclose", "equal"]
_INPLACE = ["neg", "pow", "square", "true_divide", "floor_divide", "subtract",
            "multiply", "divide", "negative", "eq", "ne", "lt", "le", "gt", "ge", "greater",
            "greater_equal", "less", "less_equal", "not_equal", "logical_and", "logical_or",
            "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
            "bitwise_not", "bitwise_left_shift", "bitwise_right_shift"]
METHODS = _OPS
INPLACE = _INPLACE
__all__ = _OPS + ["rsub"]


class ToCopy(Function):
    backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, dtype, memory_format):
        ctx.source_dtype = x.dtype                      # a NumPy dtype
        with np.errstate(invalid="ignore"):             # torch casts inf/nan to int silently
            data = x.astype(dtype.numpy)                # keeps x's layout
        return data if memory_format is preserve_format else in_format(data, memory_format)

    @staticmethod
    def backward(ctx, grad):
        return grad.to(_dtype.from_numpy_dtype(ctx.source_dtype)), None, None


def to_dtype(x: Tensor, dtype: _dtype.dtype, memory_format=preserve_format) -> Tensor:
    """A copy of x converted to dtype and laid out in memory_format."""
    return ToCopy.apply(x, dtype, memory_format)


def to(self: Tensor, *args, **kwargs) -> Tensor:
    """to(dtype) / to(device[, dtype]) / to(other); returns self when nothing changes. Moving
    to the meta device keeps only shape, dtype and strides; a meta tensor has no data to move
    to the CPU."""
    copy = kwargs.pop("copy", False)
    dtype, dev, fmt = parse_to_args(args, kwargs)
    memory_order(fmt, self.ndim)     # the channels-last formats' rank
    if dev is not None and (factory_device(as_device(dev)).type == "meta") != self.is_meta:
        return _to_other_device(self, dtype or self.dtype)
    same_layout = fmt is preserve_format or suggested_format(self._data) is fmt
    if (dtype is None or dtype is self.dtype) and same_layout and not copy:
        return self
    return to_dtype(self, dtype or self.dtype, fmt)


def _to_other_device(self: Tensor, dtype: _dtype.dtype) -> Tensor:
    """self moved between the CPU and the meta device: its metadata, no data."""
    self._refuse_meta_copy()
    if self.requires_grad and is_grad_enabled():
        raise NotImplementedError("to('meta') of a tensor that requires grad (ember records no "
                                  "graph across devices); detach() it first")
    data = self._data
    return Tensor._wrap(MetaArray(data.shape, data.dtype, data.strides).astype(dtype.numpy))


class Clone(Function):
    backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x, memory_format=None):
        # preserve_format (None) keeps a dense permuted layout (e.g. a transpose), as
        # torch's clone does; see _memory_format.py for the others.
        return in_format(x, memory_format)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def clone(input: Tensor, *, memory_format=preserve_format) -> Tensor:
    """A copy of input in new memory that stays in the autograd graph (gradients flow back to
    input)."""
    check_format(memory_format, "clone")
    memory_order(memory_format, input.ndim)          # the channels-last formats' rank
    return Clone.apply(input, memory_format)


# ---------------------------------------------------------------- arithmetic
class Add(Function):
    backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        x, y, dt = operands(a, b)
        if dt in _LIMITED:
            raise _unsupported("add_stub", dt)
        if alpha != 1:
            y = y * alpha
        ctx.alpha = alpha
        return np.add(x, y)

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad if ctx.alpha == 1 else grad * ctx.alpha), None


def _refuse_bool_subtraction(a, b) -> None:
    """torch refuses `-` when either side is bool (a Python bool counts as a bool tensor)."""
    bools = [x.dtype.kind == "b" if isinstance(x, np.ndarray) else isinstance(x, (bool, np.bool_))
             for x in (a, b)]
    if all(bools):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if any(bools):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


class Sub(Function):
    backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _refuse_bool_subtraction(a, b)
        x, y, dt = operands(a, b)
        if dt in _LIMITED:
            raise _unsupported("add_stub", dt)
        ctx.alpha = alpha
        return np.subtract(x, y if alpha == 1 else y * alpha)

    @staticmethod
    def backward(ctx, grad):
        return grad, (-grad if ctx.alpha == 1 else grad * -ctx.alpha), None


class Mul(Function):
    backward_name = "MulBackward0"
    saved_names = ("other", "self")     # saved in this order, as torch does
    holomorphic = True

    @staticmethod
    def forward(ctx, a, b):
        x, y, dt = operands(a, b)
        if dt in _dtype.FLOAT8_NUMPY and (np.ndim(x) == 0 or np.ndim(y) == 0):
            raise _unsupported("mul_cpu_reduced_float", dt)    # torch's scalar kernel
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


def _rounded_divide(x, y, rounding_mode: str, dt: np.dtype):
    if rounding_mode in ("floor", "trunc"):
        check_limited(dt, "div", f"div_{rounding_mode}_cpu")
    if rounding_mode == "floor":
        return _floor_divide(x, y)
    if rounding_mode == "trunc":
        if dt.kind in "fV":
            q = np.true_divide(x, y)
            return np.trunc(q).astype(q.dtype)
        _check_int_divisor(y)
        return (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(dt)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                       f"but found '{rounding_mode}'")


class Div(Function):
    backward_name = "DivBackward0"
    saved_names = ("self", "other")
    holomorphic = True

    @staticmethod
    def forward(ctx, a, b, rounding_mode=None):
        if rounding_mode is None and _integral(a) and _integral(b):
            # true division of integers (and bools) gives the default float dtype
            x, y, dt = operands(a, b, _dtype.get_default_dtype())
        else:
            x, y, dt = operands(a, b)
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


def _floor_divide(x, y):
    """Python's floor division, as torch's: from the remainder, not floor(x / y), whose
    rounded quotient can cross an integer (1.0 // 0.1 is 9.0; floor(1.0 / 0.1) is 10.0)."""
    if np.result_type(x, y).kind in "iu":
        _check_int_divisor(y)
    return np.floor_divide(x, y)


class Neg(Function):
    backward_name = "NegBackward0"

    @staticmethod
    def forward(ctx, x):
        if x.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        if x.dtype in _LIMITED:
            raise _unsupported("neg_cpu", x.dtype)
        return np.negative(x)

    @staticmethod
    def backward(ctx, grad):
        return -grad


def _integer_power(x, y: np.ndarray, dt) -> np.ndarray:
    """x ** y for integers with some y < 0, as torch: 1 ** y = 1, (-1) ** y = +-1 by
    parity, anything else to a negative power truncates to 0."""
    x = np.asarray(x)
    negative = y < 0
    result = np.power(x, np.where(negative, 0, y))
    reciprocal = np.where(x == 1, 1, np.where(x == -1, np.where(y % 2 == 0, 1, -1), 0))
    return np.where(negative, reciprocal, result).astype(dt)


_F32_F64 = (np.dtype(np.float32), np.dtype(np.float64))


def _power_by_scalar(x: np.ndarray, y) -> np.ndarray:
    """x ** y (float32 or float64) for a number y, with torch's products for the common
    real exponents: x * x * x
    for 3 (not the correctly rounded cube), 1 / (x * x) for -2, 1 / sqrt(x) for -0.5, so
    the values are torch's; they are also 10-50x faster than NumPy's general power (2 and
    -1 NumPy takes as fast already, with torch's values)."""
    if not isinstance(y, complex):
        if y == 3:
            return x * x * x
        if y == -2:
            return 1 / (x * x)
        if y == -0.5:
            return 1 / np.sqrt(x)
    return np.power(x, y)


class Pow(Function):
    backward_name = "PowBackward0"
    saved_names = ("self", "exponent")
    holomorphic = True

    @staticmethod
    def forward(ctx, a, b):
        x, y, dt = operands(a, b)
        if dt in _LIMITED:
            raise _unsupported("pow", dt)
        if dt.kind in "iu" and np.any(np.asarray(y) < 0):
            if not isinstance(y, np.ndarray):   # only a Python exponent is refused
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            return _integer_power(x, y, dt)
        if dt.kind == "b":
            if isinstance(b, np.ndarray):       # torch has no bool ** bool-tensor kernel
                raise _unsupported("pow", dt)
            return np.power(x, y).astype(dt)    # NumPy's bool power gives int8
        _save_operands(ctx, a, b)
        with np.errstate(all="ignore"):
            if not np.isscalar(y):          # an array (NumPy's, or the meta device's)
                return np.power(x, y)
            return _power_by_scalar(x, y) if x.dtype in _F32_F64 else float_math(np.power, x, y)

    @staticmethod
    def backward(ctx, grad):
        a, b = _saved_operands(ctx)
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:
            # 0 where the exponent is 0, whatever a and grad (0 ** -1 or a NaN gradient
            # would make grad * b * a ** (b - 1) NaN), as torch's pow_backward
            if isinstance(b, Tensor):
                grad_a = where(b == 0, 0.0, grad * b * a ** (b - 1))
            else:
                grad_a = _zeros_like(grad) if b == 0 else grad * b * a ** (b - 1)
        if need_b:
            base = a if isinstance(a, Tensor) else _scalar(a, grad)
            # d/db a^b = a^b log a, defined as 0 where a == 0 and b >= 0 (torch's convention;
            # a NaN or infinite gradient still gives NaN there, as torch multiplies after)
            grad_b = grad * where((base == 0) & (b >= 0), 0.0, (a ** b) * base.log())
        return grad_a, grad_b


@scalar_first("alpha")
def add(input, other, *, alpha=1, out=None) -> Tensor:
    """input + alpha * other, elementwise, with broadcasting and type promotion."""
    result = Add.apply(input, other, alpha)
    return result if out is None else _with_out(result, out)


@scalar_first("alpha")
def sub(input, other, *, alpha=1, out=None) -> Tensor:
    """input - alpha * other, elementwise, with broadcasting and type promotion."""
    return _with_out(Sub.apply(input, other, alpha), out)


def mul(input, other, *, out=None) -> Tensor:
    """input * other, elementwise, with broadcasting and type promotion."""
    result = Mul.apply(input, other)
    return result if out is None else _with_out(result, out)


def div(input, other, *, rounding_mode=None, out=None) -> Tensor:
    """input / other elementwise (true division); rounding_mode 'trunc' or 'floor' rounds the
    quotient."""
    return _with_out(Div.apply(input, other, rounding_mode), out)


def true_divide(input, other, *, out=None) -> Tensor:
    """input / other elementwise, always true division (div without rounding_mode)."""
    return div(input, other, out=out)


def floor_divide(input, other, *, out=None) -> Tensor:
    """input / other rounded down to an integer value (Python's //), elementwise."""
    return div(input, other, rounding_mode="floor", out=out)


def neg(input, *, out=None) -> Tensor:
    """-input, elementwise."""
    return _with_out(Neg.apply(input), out)


def pow(input, exponent, *, out=None) -> Tensor:
    """input ** exponent elementwise; either may be a scalar, with broadcasting."""
    scalar_base = not isinstance(input, Tensor)
    if scalar_base:
        input = _scalar(input, exponent)
    result = Pow.apply(input, exponent)
    if isinstance(exponent, Tensor):
        _named(result, "PowBackward2" if scalar_base else "PowBackward1")
    return _with_out(result, out)


subtract, multiply, divide, negative = sub, mul, div, neg


def square(input: Tensor, *, out=None) -> Tensor:
    """input * input, elementwise."""
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


def float_power_(self: Tensor, exponent) -> Tensor:
    """In-place float_power: self must already have the double dtype of the result."""
    complex_exponent = isinstance(exponent, complex) or (isinstance(exponent, Tensor)
                                                         and exponent.is_complex())
    wide = _dtype.complex128 if self.is_complex() or complex_exponent else _dtype.float64
    if self.dtype is not wide:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{scalar_type_name(self.dtype.numpy)} but the operation's result "
                           f"requires dtype {scalar_type_name(wide.numpy)}")
    return self._inplace(lambda s, e: float_power(s, e), exponent)


def rsub(input, other, *, alpha=1) -> Tensor:
    """other - alpha * input (torch names the node after whether `other` is a number)."""
    scalar_other = not isinstance(other, Tensor)
    result = Sub.apply(_scalar(other, input) if scalar_other else other, input, alpha)
    return _named(result, "RsubBackward1" if scalar_other else "RsubBackward0")


def reflected_div(input: Tensor, other) -> Tensor:
    """other / input, as Tensor.__rtruediv__/__rdiv__ (`number / tensor`): torch computes
    reciprocal(input) * other, also when `other` is a tensor."""
    return mul(reciprocal(input), other)


def _nondiff_binary(name: str, np_fn, kinds: str | None = None, kernel: str | None = None,
                    tensor_other: bool = False):
    """A non-differentiable two-operand op on the operands' common dtype.

    kinds: the NumPy dtype kinds the op accepts (e.g. "biu" for bitwise ops); others raise
    torch's NotImplementedError naming `kernel`.
    """
    def compute(input, other):
        x, y, dt = operands(data_of(input), data_of(other))
        if kinds is not None and dt.kind not in kinds:
            raise _unsupported(kernel or name + "_cpu", dt)
        check_limited(dt, name, kernel or name + "_cpu")
        return np_fn(x, y)
    function = nondifferentiable(name, compute)

    def op(input, other, *, out=None) -> Tensor:
        if tensor_other and not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        if not isinstance(input, Tensor):
            input = _scalar(input, other)
        return _with_out(run(function, input, other), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} (torch.{name}); not differentiable."
    op.Function = function      # the Function recorders see
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


def _logical_not(x: Tensor) -> np.ndarray:
    check_limited(x._data.dtype, "logical_not", "logical_not_cpu")
    return np.logical_not(x._data)


LogicalNot = nondifferentiable("logical_not", _logical_not)
BitwiseNot = nondifferentiable("bitwise_not", lambda x: np.invert(x._data))


def logical_not(input: Tensor, *, out=None) -> Tensor:
    """Elementwise logical NOT (zero is False), as a bool tensor."""
    return _with_out(run(LogicalNot, input), out)


def bitwise_not(input: Tensor, *, out=None) -> Tensor:
    """Elementwise bitwise NOT of an integer or bool tensor."""
    if input._data.dtype.kind not in "biu":
        raise _unsupported("bitwise_not_cpu", input._data.dtype)
    check_limited(input._data.dtype, "bitwise_not", "bitwise_not_cpu")
    return _with_out(run(BitwiseNot, input), out)


def _same_dtype(input: Tensor, other: Tensor) -> None:
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{scalar_type_name(input.dtype)} did not match "
                           f"{scalar_type_name(other.dtype)}")


@recorded("isclose")
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other|, elementwise (infinities equal themselves)."""
    _same_dtype(input, other)
    x, y, _ = operands(input._data, other._data)
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
    """Whether |input - other| <= atol + rtol * |other| for every element (a Python bool); NaNs are
    equal only when equal_nan=True."""
    _python_value("allclose", "boolean", input, other)
    return bool(isclose.__wrapped__(input, other, rtol, atol, equal_nan)._data.all())


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape and the same values."""
    _python_value("equal", "boolean", input, other)
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))
