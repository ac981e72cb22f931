"""Binary elementwise math (maximum, remainder, atan2, xlogy ...), clamp, lerp,
addcmul/addcdiv, and the in-place ops with a direct path.

Optimizers call add_, mul_, addcdiv_, lerp_ ... on every parameter every step. When
autograd has nothing to record, these compute straight into the tensor's array with
NumPy's `out=` (no temporary result, no copy back) and bump its version counter;
otherwise they go through `Tensor._inplace`, which records the op.
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import _dtype
from ..._tensor import Tensor, is_inference_tensor
from .._return_types import return_types
from ...autograd.function import Function
from ..._modes import current as modes
from ..indexing import _named
from ._common import (_F32, _LIMITED, _LOW_PRECISION, _NATIVE_FLOATS, _cast, _check_broadcast,
                      _check_int_divisor, _compute, _integral, _save_operands, _saved_operands,
                      _scalar, _unsupported, _with_out, _zeros_like, check_limited, data_of,
                      operands, result_type)
from .arithmetic import _nondiff_binary, _refuse_bool_subtraction, add, div, mul, pow, sub
from ._deprecated import scalar_first
from .unary import sqrt
from .where import where

_OPS = ["maximum", "minimum", "fmax", "fmin", "remainder", "fmod", "atan2", "arctan2", "hypot",
        "copysign", "xlogy", "logaddexp", "logaddexp2", "clamp", "clip", "clamp_min",
        "clamp_max", "lerp", "addcmul", "addcdiv", "gcd", "lcm", "heaviside", "nextafter",
        "ldexp", "frexp", "renorm"]
# In-place ops with a hand-written direct path (bound as methods, not built from INPLACE).
_DIRECT_INPLACE = ["add_", "sub_", "mul_", "div_", "addcmul_", "addcdiv_", "lerp_", "sqrt_",
                   "clamp_", "copy_", "fill_", "zero_"]
METHODS = _OPS + _DIRECT_INPLACE
INPLACE = ["remainder", "fmod", "atan2", "arctan2", "hypot", "copysign", "xlogy", "clamp_min",
           "clamp_max", "clip", "gcd", "lcm", "heaviside", "nextafter", "ldexp", "renorm"]
__all__ = _OPS + ["clamp_", "fill", "fill_", "zero_"]


def binary(name: str, np_fn, grad_a=None, grad_b=None, *, float_only: bool = True,
           ints: bool = True, tensor_other: bool = False, uses_output: bool = False,
           backward_name: str | None = None, scalar_backward_name: str | None = None,
           scalar_input_backward_name: str | None = None):
    """Build a two-operand elementwise op from a NumPy function and gradient rules.

    grad_a(g, a, b, y) and grad_b(g, a, b, y) give the gradient of each operand (a and b
    may be Python scalars; y is the output when uses_output is set). float_only: integer
    results become the default float dtype; ints=False: integer inputs are refused.
    tensor_other: `other` must be a Tensor, as torch's signature demands.
    scalar_backward_name: torch's node name when `other` is a Python number, where it
    differs; scalar_input_backward_name: the same when `input` is one.
    """
    op_name = name.lower()

    def computing_dtype(dt: _dtype.dtype) -> _dtype.dtype:
        """The dtype the op computes in when its operands promote to dt."""
        if not (dt.is_floating_point or dt.is_complex):
            if not ints:
                raise _unsupported(op_name + "_cpu", dt)
            check_limited(dt, op_name, op_name + "_cpu")
            if float_only:
                dt = _dtype.get_default_dtype()
        return dt

    def forward(ctx, a, b):
        if _integral(a) and _integral(b):
            x, y, target = operands(a, b, computing_dtype(result_type(a, b)))
        else:
            x, y, target = operands(a, b)
        _save_operands(ctx, a, b)
        return _compute(np_fn, x, y, target)

    def backward(ctx, g):
        a, b = _saved_operands(ctx)
        y = ctx.output(0) if uses_output else None
        need_a, need_b = ctx.needs_input_grad
        return (grad_a(g, a, b, y) if need_a else None), (grad_b(g, a, b, y) if need_b else None)

    cls = type(name, (Function,), {
        "backward_name": backward_name or name + "Backward0",
        "saves_outputs": uses_output,
        "saved_names": ("self", "other"),
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
    })

    def op(input, other, *, out=None) -> Tensor:
        if tensor_other and not isinstance(other, Tensor):
            raise TypeError(f"{op_name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        input_is_scalar = not isinstance(input, Tensor)
        if input_is_scalar:
            input = _scalar(input, other)
        if out is not None and isinstance(np_fn, np.ufunc) and \
                _direct_out(out, input, other, computing_dtype(result_type(input, other))):
            x, y, _ = operands(input._data, data_of(other), out.dtype)
            np_fn(x, y, out=out._data)
            out._bump_version()
            return out
        result = cls.apply(input, other)
        if scalar_backward_name and not isinstance(other, Tensor):
            _named(result, scalar_backward_name)
        if scalar_input_backward_name and input_is_scalar:
            _named(result, scalar_input_backward_name)
        return _with_out(result, out)

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = f"Elementwise {op_name} (torch.{op_name})."
    op.Function = cls
    return op


def _direct_out(out: Tensor, a: Tensor, b, dt: _dtype.dtype) -> bool:
    """True when out= can receive the result straight from NumPy (nothing to record, out
    already has the result's dtype and shape; an inference tensor takes the general path,
    which checks whether it may be written)."""
    if _recording(a, b) or out.dtype is not dt or dt.numpy in _LOW_PRECISION or \
            is_inference_tensor(out):
        return False
    shape = a._data.shape if not isinstance(b, Tensor) else \
        np.broadcast_shapes(a._data.shape, b._data.shape)
    return out._data.shape == shape


def _int_safe(np_fn):
    """An integer-capable division-like NumPy function that raises torch's error for x % 0."""
    def fn(x, y):
        if np.result_type(x, y).kind in "iu":
            _check_int_divisor(y)
        return np_fn(x, y)
    return fn


def _max_grad(g, a, b, y):
    return where(a < b, 0.0, where(a == b, g / 2, g))


def _min_grad(g, a, b, y):
    return where(a > b, 0.0, where(a == b, g / 2, g))


maximum = binary("Maximum", np.maximum, _max_grad, lambda g, a, b, y: _max_grad(g, b, a, y),
                 float_only=False, tensor_other=True)
minimum = binary("Minimum", np.minimum, _min_grad, lambda g, a, b, y: _min_grad(g, b, a, y),
                 float_only=False, tensor_other=True)
# fmax/fmin ignore NaN; ties send the whole gradient to `input`.
fmax = binary("Fmax", np.fmax, lambda g, a, b, y: where((a >= b) | b.isnan(), g, 0.0),
              lambda g, a, b, y: where((a >= b) | b.isnan(), 0.0, g),
              float_only=False, tensor_other=True)
fmin = binary("Fmin", np.fmin, lambda g, a, b, y: where((a <= b) | b.isnan(), g, 0.0),
              lambda g, a, b, y: where((a <= b) | b.isnan(), 0.0, g),
              float_only=False, tensor_other=True)
def _remainder(x, y):
    """Python's modulo as torch computes it: fmod, plus y where the signs differ. A zero
    keeps fmod's sign (-1.0 % 1.0 is -0.0), where NumPy's remainder gives +0."""
    if np.result_type(x, y).kind in "iu":
        return np.remainder(x, y)
    mod = np.fmod(x, y)
    return np.where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod)


remainder = binary("Remainder", _int_safe(_remainder), lambda g, a, b, y: g,
                   lambda g, a, b, y: -g * div(a, b, rounding_mode="floor"), float_only=False,
                   backward_name="RemainderBackward1", scalar_backward_name="RemainderBackward0")
fmod = binary("Fmod", _int_safe(np.fmod), lambda g, a, b, y: g,
              lambda g, a, b, y: -g * div(a, b, rounding_mode="trunc"), float_only=False,
              backward_name="FmodBackward1", scalar_backward_name="FmodBackward0")


def _atan2_scale(a, b):
    """1 / (a^2 + b^2), 0 at the origin (as torch's atan2_backward: no NaN there)."""
    scale = (a * a + b * b).reciprocal()
    return where(scale.isinf(), 0.0, scale)


atan2 = binary("Atan2", np.arctan2, lambda g, a, b, y: g * b * _atan2_scale(a, b),
               lambda g, a, b, y: -g * a * _atan2_scale(a, b), tensor_other=True)
hypot = binary("Hypot", np.hypot, lambda g, a, b, y: g * a / y, lambda g, a, b, y: g * b / y,
               ints=False, tensor_other=True, uses_output=True)
copysign = binary("Copysign", np.copysign,
                  lambda g, a, b, y: g * where(a == 0, 0.0, y / a),
                  lambda g, a, b, y: _zeros_like(g), uses_output=True,
                  scalar_backward_name="CopysignBackward1")
logaddexp = binary("Logaddexp", np.logaddexp, lambda g, a, b, y: g / (1 + (b - a).exp()),
                   lambda g, a, b, y: g / (1 + (a - b).exp()), ints=False, tensor_other=True)
logaddexp2 = binary("Logaddexp2", np.logaddexp2, lambda g, a, b, y: g / (1 + (b - a).exp2()),
                    lambda g, a, b, y: g / (1 + (a - b).exp2()), ints=False, tensor_other=True)


def _xlogy(x, y):
    """x * log(y), taken as 0 where x == 0 unless y is NaN."""
    return np.where((x == 0) & ~np.isnan(y), 0, x * np.log(y))


# d/da a log b = log b, with torch's 0 where a == 0 and b <= 0 (log b undefined or -inf)
xlogy = binary("Xlogy", _xlogy, lambda g, a, b, y: where((a == 0) & (b <= 0), 0.0, xlogy(g, b)),
               lambda g, a, b, y: g * a / b, scalar_backward_name="XlogyBackward2",
               scalar_input_backward_name="XlogyBackward1")
arctan2 = atan2


# ---------------------------------------------------------------- number functions
gcd = _nondiff_binary("gcd", np.gcd, "iu", "gcd_cpu", tensor_other=True)
lcm = _nondiff_binary("lcm", np.lcm, "iu", "lcm_cpu", tensor_other=True)


def _no_derivative(name: str):
    def grad(g, a, b, y):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return grad


def _step(x, values):
    """0 below zero, 1 above, `values` at zero; NaN gives 0 (neither test holds)."""
    return np.where(x == 0, values, x > 0)


_heaviside = binary("Heaviside", _step, _no_derivative("heaviside"),
                    _no_derivative("heaviside"), float_only=False, backward_name="NotImplemented")


def heaviside(input: Tensor, values: Tensor, *, out=None) -> Tensor:
    """Heaviside step function: 0 where input < 0, 1 where input > 0, and `values` where input is 0.
    """
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _heaviside(input, values, out=out)


# torch passes the gradient straight through to `input` and gives `other` none.
nextafter = binary("Nextafter", np.nextafter, lambda g, a, b, y: g,
                   lambda g, a, b, y: _zeros_like(g), float_only=False, ints=False,
                   tensor_other=True)


def ldexp(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """input * 2 ** other (differentiable in both)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"ldexp(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    return _with_out(_named(mul(input, pow(2.0, other)), "LdexpBackward0"), out)


class Frexp(Function):
    backward_name = "FrexpBackward0"

    @staticmethod
    def forward(ctx, x):
        mantissa, exponent = np.frexp(x.astype(_F32) if x.dtype in _LOW_PRECISION else x)
        ctx.exponent = exponent
        return mantissa.astype(x.dtype), exponent.astype(np.int32)

    @staticmethod
    def backward(ctx, grad_mantissa, grad_exponent):
        return grad_mantissa / Tensor._wrap(np.exp2(ctx.exponent).astype(grad_mantissa._data.dtype))


def frexp(input: Tensor, *, out=None):
    """(mantissa, exponent) with input = mantissa * 2 ** exponent and 0.5 <= |mantissa| < 1."""
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return return_types.frexp(*Frexp.apply(input))


def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """Each slice along `dim` whose p-norm exceeds maxnorm, scaled down to norm maxnorm."""
    if input._data.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got "
                           f"{input._data.ndim} dimensions")
    dim = input._wrap_dim(dim)
    maxnorm = data_of(maxnorm)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    others = tuple(d for d in range(input._data.ndim) if d != dim)
    norms = input.norm(p, others, keepdim=True)
    # torch divides by norm + 1e-7, so a slice just above maxnorm stays a hair above it
    factor = where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return _named(input * factor, "RenormBackward0")


# ---------------------------------------------------------------- clamp, where, lerp, addc*
_NUMBER_BOUNDS = (int, float, type(None))


def _clamp_kernel(lo, hi) -> str:
    """The kernel torch's clamp runs: one for number bounds, maximum/minimum for tensors."""
    if isinstance(lo, np.ndarray) or isinstance(hi, np.ndarray):
        return "clamp_cpu" if lo is not None and hi is not None else \
            "maximum_cpu" if lo is not None else "minimum_cpu"
    return "clamp_min_scalar_cpu" if hi is None else \
        "clamp_max_scalar_cpu" if lo is None else "clamp_scalar_cpu"


class Clamp(Function):
    backward_name = "ClampBackward0"

    @staticmethod
    def forward(ctx, x, lo, hi):
        if x.dtype in _NATIVE_FLOATS and type(lo) in _NUMBER_BOUNDS and type(hi) in _NUMBER_BOUNDS:
            dt = x.dtype        # Python numbers never change a float tensor's dtype
        else:
            dt = result_type(*(v for v in (x, lo, hi) if v is not None)).numpy
            if dt in _LIMITED:
                raise _unsupported(_clamp_kernel(lo, hi), dt)
        ctx.save_for_backward(x, *(v if isinstance(v, np.ndarray) else None for v in (lo, hi)))
        ctx.bounds = (lo, hi)
        out = _cast(x, dt)
        with np.errstate(invalid="ignore"):
            if lo is not None:
                out = np.maximum(out, _cast(lo, dt))
            if hi is not None:
                out = np.minimum(out, _cast(hi, dt))
        return out if out is not x else out.copy()

    @staticmethod
    def backward(ctx, grad):
        x, lo_t, hi_t = ctx._unpacked_saved
        lo, hi = (lo_t if lo_t is not None else ctx.bounds[0]), \
            (hi_t if hi_t is not None else ctx.bounds[1])
        need_x, need_lo, need_hi = ctx.needs_input_grad
        inside = None
        if lo is not None:
            inside = x >= lo
        if hi is not None:
            inside = x <= hi if inside is None else inside & (x <= hi)
        grad_x = where(inside, grad, 0.0) if need_x else None
        grad_lo = grad_hi = None
        if need_lo:
            below = x < lo if hi is None else (x < lo) & (lo < hi)
            grad_lo = where(below, grad, 0.0)
        if need_hi:
            above = x > hi if lo is None else (x > hi) | (hi < lo)
            grad_hi = where(above, grad, 0.0)
        return grad_x, grad_lo, grad_hi


def clamp(input: Tensor, min=None, max=None, *, out=None) -> Tensor:
    """Limit every element to [min, max]; min and max may be numbers or tensors."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    result = Clamp.apply(input, min, max)
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        _named(result, "ClampBackward1")
    return _with_out(result, out)


def clamp_min(input: Tensor, min, *, out=None) -> Tensor:
    """max(input, min), elementwise: clamp with a lower bound only."""
    name = "ClampMinBackward1" if isinstance(min, Tensor) else "ClampMinBackward0"
    return _with_out(_named(Clamp.apply(input, min, None), name), out)


def clamp_max(input: Tensor, max, *, out=None) -> Tensor:
    """min(input, max), elementwise: clamp with an upper bound only."""
    name = "ClampMaxBackward1" if isinstance(max, Tensor) else "ClampMaxBackward0"
    return _with_out(_named(Clamp.apply(input, None, max), name), out)


clip = clamp


def _lerp_array(start: np.ndarray, end: np.ndarray, weight, out=None) -> np.ndarray:
    """start + weight (end - start), evaluated from the nearer end as torch does (exact at
    weight 0 and 1)."""
    diff = np.asarray(end - start)   # an array even for 0-d inputs, so out= works
    if isinstance(weight, np.ndarray):
        near = np.abs(weight) < 0.5
        result = np.where(near, start + weight * diff, end - diff * (1 - weight))
        if out is None:
            return result
        np.copyto(out, result)
        return out
    if abs(weight) < 0.5:  # |weight|: complex weights too
        return np.add(start, np.multiply(diff, weight, out=diff), out=out)
    return np.subtract(end, np.multiply(diff, 1 - weight, out=diff), out=out)


def _check_lerp(start: Tensor, end: Tensor, weight) -> None:
    dt = start._data.dtype
    if dt.kind not in "fcV":
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise _unsupported(kernel, dt)
    for name, other in (("end", end), ("weight", weight)):
        if isinstance(other, Tensor) and other._data.dtype != dt and \
                (name == "end" or other.ndim):
            raise RuntimeError(f"expected dtype {_c_type_name(start.dtype)} for `{name}` but "
                               f"got dtype {_c_type_name(other.dtype)}")


def _c_type_name(dt: _dtype.dtype) -> str:
    """The C++ element type torch names in some messages ('float', 'double' ...)."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16"}.get(dt.name, dt.name)


class Lerp(Function):
    backward_name = "LerpBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx, start, end, weight):
        is_array = isinstance(weight, np.ndarray)
        ctx.save_for_backward(start, end, weight if is_array else None)
        ctx.weight = weight
        w = weight.astype(_F32) if is_array and weight.dtype in _LOW_PRECISION else weight
        return _compute(lambda s, e: _lerp_array(s, e, w), start, end, start.dtype)

    @staticmethod
    def backward(ctx, grad):
        start, end, weight_t = ctx._unpacked_saved
        weight = ctx.weight if weight_t is None else weight_t
        need_s, need_e, need_w = ctx.needs_input_grad
        return (grad * (1 - weight) if need_s else None), (grad * weight if need_e else None), \
            (grad * (end - start) if need_w else None)


def lerp(input: Tensor, end: Tensor, weight, *, out=None) -> Tensor:
    """Linear interpolation input + weight * (end - input), elementwise."""
    _check_lerp(input, end, weight)
    result = Lerp.apply(input, end, weight)
    return _with_out(_named(result, "LerpBackward1") if isinstance(weight, Tensor) else result,
                     out)


class Addcmul(Function):
    """input + value * tensor1 * tensor2 (divide=False) or input + value * t1 / t2."""
    backward_name = "AddcmulBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx, x, t1, t2, value, divide):
        dt = result_type(x, t1, t2)
        if divide and not (dt.is_floating_point or dt.is_complex):
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  "
                "release addcdiv will perform a true division of tensor1 and tensor2. The "
                "historic addcdiv behavior can be implemented as (input + value * "
                "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                "behavior is just the latter implementation: (input + value * tensor1 / "
                "tensor2), for all dtypes.")
        ctx.save_for_backward(t1, t2)
        ctx.value, ctx.divide = value, divide
        return _compute(lambda a, b: _addc_array(x.astype(a.dtype), a, b, value, divide),
                        _cast(t1, dt.numpy), _cast(t2, dt.numpy), dt.numpy)

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx._unpacked_saved
        value = ctx.value
        need_x, need_1, need_2 = ctx.needs_input_grad[:3]
        if ctx.divide:
            return (grad if need_x else None), (grad * value / t2 if need_1 else None), \
                (-grad * value * t1 / (t2 * t2) if need_2 else None), None, None
        return (grad if need_x else None), (grad * value * t2 if need_1 else None), \
            (grad * value * t1 if need_2 else None), None, None


def _addc_array(x, t1, t2, value, divide: bool, out=None) -> np.ndarray:
    term = np.true_divide(t1, t2) if divide else np.multiply(t1, t2)
    if value != 1:
        if term.dtype.kind in "fc":
            term *= value
        else:
            term = term * value
    return np.add(x, term, out=out)


@scalar_first("value")
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1, out=None) -> Tensor:
    """input + value * tensor1 * tensor2, elementwise."""
    _dtype.refuse_limited(input._data, "addcmul_cpu_out")
    return _with_out(Addcmul.apply(input, tensor1, tensor2, value, False), out)


@scalar_first("value")
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1, out=None) -> Tensor:
    """input + value * tensor1 / tensor2, elementwise."""
    return _with_out(_named(Addcmul.apply(input, tensor1, tensor2, value, True),
                            "AddcdivBackward0"), out)


# ---------------------------------------------------------------- in-place ops
def _recording(*operands_) -> bool:
    """Whether an op over these operands must go through its Function: autograd records
    it, or a recorder (profiler, ONNX export) wants to see it."""
    state = modes()
    return state.recorder is not None or state.grad_enabled and any(
        isinstance(o, Tensor) and o._requires_grad for o in operands_)


def _direct(self: Tensor, *others, floating: bool = False) -> bool:
    """True when an in-place op on self may compute straight into self._data: nothing to
    record, and the result already fits self's dtype and shape (anything else takes the
    general path, which also raises torch's errors, among them an inference tensor's)."""
    if _recording(self, *others) or is_inference_tensor(self) or 0 in self._data.strides:
        return False                # (the general path refuses an expanded self)
    dt = self._data.dtype
    if dt in _LOW_PRECISION or dt in _LIMITED or (floating and dt.kind not in "fc"):
        return False
    if not _dtype.can_cast(_dtype.result_type(self, *others), self.dtype):
        return False
    shape = dt_shape = self._data.shape
    for o in others:
        if isinstance(o, Tensor) and o._data.shape != dt_shape:
            try:
                shape = np.broadcast_shapes(shape, o._data.shape)
            except ValueError:
                return False
    return shape == dt_shape


def _done(self: Tensor) -> Tensor:
    self._bump_version()
    return self


@scalar_first("alpha")
def add_(self: Tensor, other, *, alpha=1) -> Tensor:
    """In-place self += alpha * other; returns self."""
    if _direct(self, other):
        y = data_of(other)
        np.add(self._data, y if alpha == 1 else y * alpha, out=self._data)
        return _done(self)
    return self._inplace(lambda s, o: add(s, o, alpha=alpha), other)


@scalar_first("alpha")
def sub_(self: Tensor, other, *, alpha=1) -> Tensor:
    """In-place self -= alpha * other; returns self."""
    _refuse_bool_subtraction(self._data, data_of(other))
    if _direct(self, other):
        y = data_of(other)
        np.subtract(self._data, y if alpha == 1 else y * alpha, out=self._data)
        return _done(self)
    return self._inplace(lambda s, o: sub(s, o, alpha=alpha), other)


def mul_(self: Tensor, other) -> Tensor:
    """In-place self *= other; returns self."""
    if _direct(self, other):
        np.multiply(self._data, data_of(other), out=self._data)
        return _done(self)
    return self._inplace(mul, other)


def div_(self: Tensor, other, *, rounding_mode=None) -> Tensor:
    """In-place self /= other (rounded as rounding_mode says); returns self."""
    if rounding_mode is None and _direct(self, other, floating=True):
        with np.errstate(divide="ignore", invalid="ignore"):
            np.true_divide(self._data, data_of(other), out=self._data)
        return _done(self)
    return self._inplace(lambda s, o: div(s, o, rounding_mode=rounding_mode), other)


@scalar_first("value")
def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """In-place self += value * tensor1 * tensor2; returns self."""
    if _direct(self, tensor1, tensor2, value):
        _addc_array(self._data, tensor1._data, tensor2._data, value, False, out=self._data)
        return _done(self)
    return self._inplace(lambda s, a, b: addcmul(s, a, b, value=value), tensor1, tensor2)


@scalar_first("value")
def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """In-place self += value * tensor1 / tensor2; returns self."""
    if _direct(self, tensor1, tensor2, value, floating=True):
        with np.errstate(divide="ignore", invalid="ignore"):
            _addc_array(self._data, tensor1._data, tensor2._data, value, True, out=self._data)
        return _done(self)
    return self._inplace(lambda s, a, b: addcdiv(s, a, b, value=value), tensor1, tensor2)


def lerp_(self: Tensor, end: Tensor, weight) -> Tensor:
    """In-place self += weight * (end - self); returns self."""
    _check_lerp(self, end, weight)
    if end.dtype is self.dtype and _direct(self, end, weight, floating=True):
        _lerp_array(self._data, end._data, data_of(weight), out=self._data)
        return _done(self)
    return self._inplace(lerp, end, weight)


def sqrt_(self: Tensor) -> Tensor:
    """In-place square root of every element; returns self."""
    if _direct(self, floating=True):
        with np.errstate(invalid="ignore"):
            np.sqrt(self._data, out=self._data)
        return _done(self)
    return self._inplace(sqrt)


def clamp_(self: Tensor, min=None, max=None) -> Tensor:
    """In-place clamp of every element into [min, max] (either bound may be None)."""
    bounds = [b for b in (min, max) if b is not None]
    if bounds and _direct(self, *bounds):
        np.clip(self._data, data_of(min), data_of(max), out=self._data)
        return _done(self)
    return self._inplace(lambda s, lo, hi: clamp(s, lo, hi), min, max)


class Copy(Function):
    backward_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, x, src):
        _check_copy_shape(x, src)
        return np.broadcast_to(src, x.shape).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        need_x, need_src = ctx.needs_input_grad
        return (_zeros_like(grad) if need_x else None), (grad if need_src else None)


def _check_copy_shape(dest: np.ndarray, src: np.ndarray) -> None:
    _check_broadcast(dest, src)
    shape = np.broadcast_shapes(dest.shape, src.shape)
    if shape != dest.shape:
        raise RuntimeError(f"output with shape {list(dest.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")


def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copy src's values (a tensor, or a number as torch accepts) into self, broadcasting
    and converting to self's dtype."""
    if isinstance(src, numbers.Number):
        src = Tensor._wrap(np.asarray(src))
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    if _recording(self, src):
        return self._inplace(Copy.apply, src)
    self._check_inplace()
    self._refuse_internal_overlap()
    _check_copy_shape(self._data, src._data)
    np.copyto(self._data, src._data, casting="unsafe")
    return _done(self)


class Fill(Function):
    backward_name = "FillBackward2"

    @staticmethod
    def forward(ctx, x, value):
        if isinstance(value, np.ndarray) and value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
        return np.full(x.shape, value, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        need_x, need_value = ctx.needs_input_grad
        return (_zeros_like(grad) if need_x else None), (grad.sum() if need_value else None)


def fill(input: Tensor, value) -> Tensor:
    """Tensor of input's shape and dtype filled with `value` (out of place; fill_ writes in place).
    """
    return _named(Fill.apply(input, value), "FillBackward0")


def fill_(self: Tensor, value) -> Tensor:
    """Set every element to value (a number or a zero-dim tensor)."""
    if _recording(self, value) or (isinstance(value, Tensor) and value.ndim):
        name = "FillBackward3" if isinstance(value, Tensor) else "FillBackward2"
        return self._inplace(lambda s, v: _named(Fill.apply(s, v), name), value)
    self._check_inplace()
    self._data.fill(data_of(value))
    return _done(self)


def zero_(self: Tensor) -> Tensor:
    """Fill self with zeros in place; returns self."""
    if _recording(self):
        return self._inplace(lambda s: _named(Fill.apply(s, 0), "ZeroBackward0"))
    self._check_inplace()
    self._data.fill(0)
    return _done(self)
