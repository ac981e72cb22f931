"""Symbolic functions: how each ember primitive is written as ONNX nodes.

A symbolic function `fn(g, out, *args)` receives the Graph being recorded, the
primitive's result `out` (already computed by ember, so its shape and dtype are known)
and the arguments its Function's `apply` was called with (`Add.apply(a, b, alpha)` gives
`fn(g, out, a, b, alpha)`). It appends nodes with `g.op(...)`, naming the node outputs
after `out`. `@symbolic(Add, Sub)` registers it for those Function classes.

Shapes of the traced example become constants except where ONNX can copy a dimension
from the input (Reshape's 0, Expand's 1), so a dynamic batch axis survives
`x.view(x.size(0), -1)`.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..nn.functional import activation, conv, normalization, pooling
from ..nn.functional import sparse
from ..nn.functional.linear import _LinearFn
from ..ops import indexing, joining, linalg, padding, pointwise, reduction, shape, softmax
from ._trace import onnx_type

SYMBOLICS = {}      # Function class -> symbolic function

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def symbolic(*functions):
    def register(fn):
        for function in functions:
            SYMBOLICS[function] = fn
        return fn
    return register


def _dt(t: Tensor) -> np.dtype:
    return t.dtype.numpy


def _wrap(dim: int, ndim: int) -> int:
    return dim + ndim if dim < 0 else dim


def _unsupported(name: str, value) -> None:
    raise NotImplementedError(f"ember.onnx.export: {name}={value!r} is not supported")


# ---------------------------------------------------------------- pointwise
def _unary(onnx_op: str):
    def fn(g, out, x):
        g.op(onnx_op, [g.name(x, _dt(out))], out)
    return fn


for _op, _onnx_op in {pointwise.exp: "Exp", pointwise.log: "Log", pointwise.sqrt: "Sqrt",
                      pointwise.abs: "Abs", pointwise.sigmoid: "Sigmoid",
                      pointwise.tanh: "Tanh", pointwise.erf: "Erf", pointwise.sin: "Sin",
                      pointwise.cos: "Cos", pointwise.reciprocal: "Reciprocal",
                      pointwise.floor: "Floor", pointwise.ceil: "Ceil",
                      pointwise.sign: "Sign"}.items():
    symbolic(_op.Function)(_unary(_onnx_op))
symbolic(pointwise.Neg)(_unary("Neg"))
symbolic(activation._Relu, pointwise.relu.Function)(_unary("Relu"))


@symbolic(pointwise.rsqrt.Function)
def rsqrt(g, out, x):
    g.op("Reciprocal", [g.op("Sqrt", [g.name(x, _dt(out))])], out)


def _binary(onnx_op: str):
    """Elementwise binary op computing in the result's dtype; `alpha` scales the second
    operand (add and sub)."""
    def fn(g, out, a, b, alpha=1):
        other = g.name(b, _dt(out))
        if alpha != 1:
            other = g.op("Mul", [other, g.name(alpha, _dt(out))])
        g.op(onnx_op, [g.name(a, _dt(out)), other], out)
    return fn


for _function, _onnx_op in {pointwise.Add: "Add", pointwise.Sub: "Sub", pointwise.Mul: "Mul",
                            pointwise.Pow: "Pow", pointwise.maximum.Function: "Max",
                            pointwise.minimum.Function: "Min", linalg.MatMul: "MatMul"}.items():
    symbolic(_function)(_binary(_onnx_op))


@symbolic(pointwise.Div)
def div(g, out, a, b, rounding_mode=None):
    if rounding_mode is not None:
        raise NotImplementedError(
            f"ember.onnx.export: div with rounding_mode='{rounding_mode}' is not supported")
    g.op("Div", [g.name(a, _dt(out)), g.name(b, _dt(out))], out)


@symbolic(pointwise.binary.Clamp)
def clamp(g, out, x, lo, hi):
    x = g.name(x, _dt(out))
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        for bound, op_type in ((lo, "Max"), (hi, "Min")):
            if bound is not None:
                x = g.op(op_type, [x, g.name(bound, _dt(out))])
        g.op("Identity", [x], out)
        return
    bounds = ["" if b is None else g.name(b, _dt(out)) for b in (lo, hi)]
    g.op("Clip", [x, *bounds], out)


@symbolic(pointwise.Where)
def where(g, out, condition, x, y):
    g.op("Where", [g.name(condition, np.bool_), g.name(x, _dt(out)), g.name(y, _dt(out))],
         out)


# ---------------------------------------------------------------- copies and casts
@symbolic(pointwise.Clone)
def clone(g, out, x, memory_format=None):
    g.alias(out, x)


@symbolic(pointwise.ToCopy)
def to_copy(g, out, x, dtype, memory_format):
    g.bind(out, g.name(x, _dt(out)))


# ---------------------------------------------------------------- reductions
def _reduce(onnx_op: str):
    def fn(g, out, x, axes, keepdim, *rest):
        axes = None if axes is None else sorted(_wrap(d, x.ndim) for d in axes)
        g.reduce(onnx_op, g.name(x, _dt(out)), axes, keepdim, out)
    return fn


symbolic(reduction.Mean)(_reduce("ReduceMean"))
symbolic(reduction.Sum)(_reduce("ReduceSum"))


@symbolic(reduction.Extremum)
def extremum(g, out, x, fn, axes, keepdim, nan_shared):
    ops = {np.amax: "ReduceMax", np.amin: "ReduceMin"}
    if fn not in ops:
        raise NotImplementedError(f"ember.onnx.export: operator '{fn.__name__}' has no ONNX "
                                  "mapping")
    _reduce(ops[fn])(g, out, x, axes, keepdim)


# ---------------------------------------------------------------- shapes
def _reshape_target(shape, in_shape: tuple) -> list:
    """Reshape target with 0 ('copy the input's dim') for the leading dims that keep their
    input size, so those dims may differ at run time (a dynamic batch axis)."""
    target = [int(s) for s in shape]
    for i, (want, have) in enumerate(zip(target, in_shape)):
        if want != have:
            break
        if have != 0:
            target[i] = 0
    return target


@symbolic(shape.View, shape.CopyReshape)
def view(g, out, x, new_shape):
    g.op("Reshape", [g.name(x), g.ints(_reshape_target(out.shape, x.shape))], out)


@symbolic(shape.Transpose)
def transpose(g, out, x, dim0, dim1):
    perm = list(range(x.ndim))
    if x.ndim:
        i, j = _wrap(dim0, x.ndim), _wrap(dim1, x.ndim)
        perm[i], perm[j] = perm[j], perm[i]
    if perm == sorted(perm):
        g.alias(out, x)
    else:
        g.op("Transpose", [g.name(x)], out, perm=perm)


@symbolic(shape.Permute)
def permute(g, out, x, dims):
    g.op("Transpose", [g.name(x)], out, perm=[_wrap(d, x.ndim) for d in dims])


def _expand_target(sizes, in_shape: tuple) -> list:
    """Expand's target with 1 wherever the input's own size is kept (Expand broadcasts 1)."""
    offset = len(sizes) - len(in_shape)
    return [1 if i >= offset and (s == -1 or s == in_shape[i - offset]) else int(s)
            for i, s in enumerate(sizes)]


@symbolic(shape.Expand)
def expand(g, out, x, sizes):
    g.op("Expand", [g.name(x), g.ints(_expand_target(out.shape, x.shape))], out)


@symbolic(shape.Flip)
def flip(g, out, x, dims):
    axes = [_wrap(d, x.ndim) for d in dims]
    n = len(axes)
    g.op("Slice", [g.name(x), g.ints([-1] * n), g.ints([INT64_MIN] * n), g.ints(axes),
                   g.ints([-1] * n)], out)


@symbolic(joining.Cat)
def cat(g, out, dim, *tensors):
    inputs = [g.name(t, _dt(out)) for t in tensors if t.numel() or t.ndim > 1]
    g.op("Concat", inputs, out, axis=_wrap(dim, out.ndim))


@symbolic(joining.Split)
def split(g, out, x, dim, bounds):
    dim = _wrap(dim, x.ndim)
    covered = bounds[0][0] == 0 and bounds[-1][1] == x.shape[dim] and all(
        b == a for (_, b), (a, _) in zip(bounds, bounds[1:]))
    if covered:
        g.op("Split", [g.name(x), g.ints([b - a for a, b in bounds])], list(out), axis=dim)
        return
    for (start, stop), o in zip(bounds, out):
        g.op("Slice", [g.name(x), g.ints([start]), g.ints([stop]), g.ints([dim])], o)


@symbolic(joining.Unbind)
def unbind(g, out, x, dim):
    dim = _wrap(dim, x.ndim)
    parts = g.op("Split", [g.name(x), g.ints([1] * len(out))], len(out), axis=dim)
    for part, o in zip(parts, out):
        g.op("Squeeze", [part, g.ints([dim])], o)


@symbolic(indexing.BasicIndex)
def basic_index(g, out, x, key):
    """Basic indexing (ints, slices, None, Ellipsis): Slice, then Gather per int, then
    Unsqueeze for each None."""
    key = key if isinstance(key, tuple) else (key,)
    consumed = sum(k is not None and k is not Ellipsis for k in key)
    if Ellipsis in key:
        at = key.index(Ellipsis)
        key = key[:at] + (slice(None),) * (x.ndim - consumed) + key[at + 1:]
    value = g.name(x)
    starts, ends, axes, steps, picks, new_axes = [], [], [], [], [], []
    dim = out_dim = 0
    for k in key:
        if k is None:
            new_axes.append(out_dim)
            out_dim += 1
        elif isinstance(k, slice):
            step = 1 if k.step is None else k.step
            if k != slice(None) and k != slice(None, None, 1):
                lo_default, hi_default = (0, INT64_MAX) if step > 0 else (INT64_MAX, INT64_MIN)
                starts.append(lo_default if k.start is None else k.start)
                ends.append(hi_default if k.stop is None else k.stop)
                axes.append(dim)
                steps.append(step)
            dim += 1
            out_dim += 1
        else:
            picks.append((dim, int(k)))
            dim += 1
    if axes:
        value = g.op("Slice", [value, g.ints(starts), g.ints(ends), g.ints(axes),
                               g.ints(steps)])
    for d, index in reversed(picks):
        value = g.op("Gather", [value, g.const(index, np.int64)], axis=d)
    if new_axes:
        value = g.op("Unsqueeze", [value, g.ints(new_axes)])
    g.bind(out, value)


@symbolic(indexing.IndexPut)
def index_put(g, out, x, key, value, accumulate=False):
    """Writing through a boolean mask of x's shape (masked_fill): a Where."""
    mask = key.numpy(force=True) if isinstance(key, Tensor) else key
    if accumulate or not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and
                          mask.shape == tuple(x.shape)):
        raise NotImplementedError("ember.onnx.export: operator 'IndexPut' other than "
                                  "masked_fill has no ONNX mapping")
    if not g.is_live(mask):     # a constant mask broadcast to x: keep its own shape
        mask = mask[tuple(slice(0, 1) if stride == 0 else slice(None)
                          for stride in mask.strides)]
    g.op("Where", [g.name(mask, np.bool_), g.name(value, _dt(out)), g.name(x, _dt(out))], out)


def _pad_ends(pads) -> list:
    """(before, after) pairs per dimension as ONNX's Pad wants them: all befores, then all
    afters."""
    return [p[0] for p in pads] + [p[1] for p in pads]


@symbolic(padding.ConstantPad)
def constant_pad(g, out, x, pads, value):
    g.op("Pad", [g.name(x), g.ints(_pad_ends(pads)), g.name(value, _dt(out))], out,
         mode="constant")


_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _mode_pad(mode: str):
    """The symbolic of reflect, replicate or circular padding."""
    def write(g, out, x, key, pairs):
        if mode == "circular" and g.opset < 19:
            raise NotImplementedError("ember.onnx.export: circular padding needs "
                                      "opset_version >= 19 (ONNX Pad's 'wrap' mode)")
        g.op("Pad", [g.name(x), g.ints(_pad_ends(pairs))], out, mode=_PAD_MODES[mode])
    return write


SYMBOLICS.update({cls: _mode_pad(cls.mode) for cls in padding.ModePad.__subclasses__()})


# ---------------------------------------------------------------- nn.functional: layers
@symbolic(_LinearFn)
def linear(g, out, x, weight, bias=None):
    inputs = [g.name(x), g.name(weight)]
    b = g.name(bias) if bias is not None else None
    if x.ndim == 2:
        g.op("Gemm", inputs + ([b] if b else []), out, transB=1)
        return
    y = g.op("MatMul", [inputs[0], g.op("Transpose", [inputs[1]], perm=[1, 0])],
             None if b else out)
    if b:
        g.op("Add", [y, b], out)


def _window_attrs(kernel, stride, pads) -> dict:
    """ONNX attributes of a sliding window: (before, after) pads become all befores, then
    all afters."""
    return {"kernel_shape": list(kernel), "strides": list(stride),
            "pads": _pad_ends(pads)}


@symbolic(conv.Conv)
def convolution(g, out, x, weight, bias, geo):
    inputs = [g.name(x), g.name(weight)] + ([g.name(bias)] if bias is not None else [])
    g.op("Conv", inputs, out, dilations=list(geo.dilation), group=geo.groups,
         **_window_attrs(weight.shape[2:], geo.stride, geo.pads))


@symbolic(pooling.WindowSelect)
def max_pool(g, out, x, arg, window, out_size, selected=None):
    kernel, stride, dilation, pads = window
    g.op("MaxPool", [g.name(x)], out, dilations=list(dilation),
         **_window_attrs(kernel, stride, pads))


@symbolic(pooling.WindowSum)
def window_sum(g, out, x, window, out_size):
    """The sum over each zero-padded window: its mean over the whole window, times its size."""
    kernel, stride, pads = window
    mean = g.op("AveragePool", [g.name(x)], count_include_pad=1,
                **_window_attrs(kernel, stride, pads))
    g.op("Mul", [mean, g.name(math.prod(kernel), _dt(out))], out)


@symbolic(pooling.Gather)
def picked_max(g, out, x, indices, out_shape):
    """The maxima of adaptive max pooling: a MaxPool when the sizes divide (checked against
    the values ember picked, since other poolings pick by index too)."""
    spatial, sizes = tuple(x.shape[2:]), tuple(out_shape[2:])
    if any(s % o for s, o in zip(spatial, sizes)):
        raise NotImplementedError(
            f"ember.onnx.export: adaptive pooling from {list(spatial)} to {list(sizes)} (sizes "
            "that do not divide) has no ONNX mapping")
    kernel = [s // o for s, o in zip(spatial, sizes)]
    blocks = x.numpy(force=True).reshape(tuple(x.shape[:2]) + tuple(
        v for o, k in zip(sizes, kernel) for v in (o, k)))
    window_max = blocks.max(axis=tuple(range(3, 3 + 2 * len(sizes), 2)))
    if not np.array_equal(window_max, out.numpy(force=True), equal_nan=True):
        raise NotImplementedError("ember.onnx.export: operator 'Gather' (a pooling that picks "
                                  "its windows' maxima by index) has no ONNX mapping")
    if all(o == 1 for o in sizes):
        g.op("GlobalMaxPool", [g.name(x)], out)
    else:
        g.op("MaxPool", [g.name(x)], out, kernel_shape=kernel, strides=kernel)


@symbolic(normalization.LayerNorm)
def layer_norm(g, out, x, weight, bias, ndim, eps):
    shape = tuple(x.shape[-ndim:])
    scale = g.name(weight) if weight is not None else g.const(np.ones(shape, _dt(out)))
    shift = g.name(bias) if bias is not None else g.const(np.zeros(shape, _dt(out)))
    value = g.name(x)
    if g.opset >= 17:
        g.op("LayerNormalization", [value, scale, shift], out, axis=-ndim, epsilon=float(eps))
        return
    axes = list(range(-ndim, 0))
    centered = g.op("Sub", [value, g.reduce("ReduceMean", value, axes, True, None)])
    var = g.reduce("ReduceMean", g.op("Mul", [centered, centered]), axes, True, None)
    std = g.op("Sqrt", [g.op("Add", [var, g.name(eps, _dt(out))])])
    y = g.op("Mul", [g.op("Div", [centered, std]), scale])
    g.op("Add", [y, shift], out)


@symbolic(sparse.EmbeddingLookup)
def embedding(g, out, weight, indices, padding_idx, scale_grad_by_freq, sparse=False):
    g.op("Gather", [g.name(weight), g.name(indices)], out, axis=0)


# ---------------------------------------------------------------- nn.functional: activations
symbolic(activation._LeakyRelu)(lambda g, out, x, slope: g.op(
    "LeakyRelu", [g.name(x)], out, alpha=float(slope)))


@symbolic(activation._Elu, activation._Celu)
def elu(g, out, x, alpha, scale, input_scale):
    """scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1)): Elu, Selu or Celu."""
    value = g.name(x)
    if scale == 1 and input_scale == 1:
        g.op("Elu", [value], out, alpha=float(alpha))
    elif input_scale == 1:
        g.op("Selu", [value], out, alpha=float(alpha), gamma=float(scale))
    elif scale == 1 and math.isclose(alpha * input_scale, 1):
        g.op("Celu", [value], out, alpha=float(alpha))
    else:
        _unsupported("input_scale", input_scale)


@symbolic(activation._Hardtanh)
def hardtanh(g, out, x, lo, hi):
    g.op("Clip", [g.name(x), g.name(lo, _dt(out)), g.name(hi, _dt(out))], out)


symbolic(activation._Hardsigmoid)(lambda g, out, x: g.op(
    "HardSigmoid", [g.name(x)], out, alpha=1.0 / 6, beta=0.5))


@symbolic(activation._Hardswish)
def hardswish(g, out, x):
    value = g.name(x)
    if g.opset >= 14:
        g.op("HardSwish", [value], out)
    else:
        g.op("Mul", [value, g.op("HardSigmoid", [value], alpha=1.0 / 6, beta=0.5)], out)


@symbolic(activation._Silu)
def silu(g, out, x):
    value = g.name(x)
    g.op("Mul", [value, g.op("Sigmoid", [value])], out)


@symbolic(activation._Gelu)
def gelu(g, out, x, approximate="none"):
    value, dt = g.name(x), _dt(out)
    if g.opset >= 20:
        g.op("Gelu", [value], out, approximate=approximate)
        return
    if approximate == "tanh":     # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = g.op("Mul", [g.op("Mul", [value, value]), value])
        inner = g.op("Add", [value, g.op("Mul", [cube, g.name(0.044715, dt)])])
        core = g.op("Tanh", [g.op("Mul", [inner, g.name(math.sqrt(2 / math.pi), dt)])])
    else:                         # 0.5 x (1 + erf(x / sqrt 2))
        core = g.op("Erf", [g.op("Div", [value, g.name(math.sqrt(2.0), dt)])])
    half_x = g.op("Mul", [value, g.name(0.5, dt)])
    g.op("Mul", [half_x, g.op("Add", [core, g.name(1.0, dt)])], out)


def _softplus(g, x: str, beta: float, dt, out):
    if beta == 1:
        return g.op("Softplus", [x], out)
    scaled = g.op("Softplus", [g.op("Mul", [x, g.name(beta, dt)])])
    return g.op("Div", [scaled, g.name(beta, dt)], out)


symbolic(activation._Softplus)(
    lambda g, out, x, beta, threshold: _softplus(g, g.name(x), beta, _dt(out), out))
symbolic(activation._LogSigmoid)(lambda g, out, x: g.op(
    "Neg", [_softplus(g, g.op("Neg", [g.name(x)]), 1, _dt(out), None)], out))


@symbolic(activation._Mish)
def mish(g, out, x):
    value = g.name(x)
    if g.opset >= 18:
        g.op("Mish", [value], out)
    else:
        g.op("Mul", [value, g.op("Tanh", [g.op("Softplus", [value])])], out)


@symbolic(activation.PreluKernel)
def prelu(g, out, x, weight):
    slope = g.name(weight)
    if weight.numel() > 1 and x.ndim > 2:       # (C,) -> (C, 1, ...) for NCHW
        slope = g.op("Reshape", [slope, g.ints([-1] + [1] * (x.ndim - 2))])
    g.op("PRelu", [g.name(x), slope], out)


symbolic(softmax.Softmax)(lambda g, out, x, dim: g.op(
    "Softmax", [g.name(x, _dt(out))], out, axis=_wrap(dim, max(x.ndim, 1))))
symbolic(softmax.LogSoftmax)(lambda g, out, x, dim: g.op(
    "LogSoftmax", [g.name(x, _dt(out))], out, axis=_wrap(dim, max(x.ndim, 1))))


# ---------------------------------------------------------------- comparisons and logic
# These ops have no gradient and compute outside Function.apply unless a recorder is set
# (see ember/ops/_nondifferentiable.py); their Function classes are read off the ops.
def _common(a, b) -> np.dtype:
    """The dtype a comparison computes in (ONNX's Less and Greater take no bool)."""
    dtype = _dtype.result_type(a, b).numpy
    return np.dtype(np.int64) if dtype == np.bool_ else dtype


def _compare(onnx_op: str, negate: bool = False):
    def fn(g, out, a, b):
        dtype = _common(a, b)
        value = g.op(onnx_op, [g.name(a, dtype), g.name(b, dtype)], None if negate else out)
        if negate:
            g.op("Not", [value], out)
    return fn


for _op, (_onnx_op, _negate) in {pointwise.eq: ("Equal", False), pointwise.ne: ("Equal", True),
                                 pointwise.lt: ("Less", False),
                                 pointwise.le: ("LessOrEqual", False),
                                 pointwise.gt: ("Greater", False),
                                 pointwise.ge: ("GreaterOrEqual", False)}.items():
    symbolic(_op.Function)(_compare(_onnx_op, _negate))


def _logical(onnx_op: str):
    def fn(g, out, *operands):
        g.op(onnx_op, [g.name(x, np.bool_) for x in operands], out)
    return fn


for _op, _onnx_op in {pointwise.logical_and: "And", pointwise.logical_or: "Or",
                      pointwise.logical_xor: "Xor"}.items():
    symbolic(_op.Function)(_logical(_onnx_op))
symbolic(pointwise.arithmetic.LogicalNot)(_logical("Not"))


def _bitwise(logical_op: str, bitwise_op: str):
    """And/Or/Xor/Not on bool tensors; the Bitwise* ops (opset 18) on integers."""
    def fn(g, out, *operands):
        if _dt(out) == np.bool_:
            return _logical(logical_op)(g, out, *operands)
        if g.opset < 18:
            raise NotImplementedError(f"ember.onnx.export: operator '{bitwise_op}' on integer "
                                      "tensors needs opset_version >= 18")
        g.op(bitwise_op, [g.name(x, _dt(out)) for x in operands], out)
    return fn


for _op, _ops in {pointwise.bitwise_and: ("And", "BitwiseAnd"),
                  pointwise.bitwise_or: ("Or", "BitwiseOr"),
                  pointwise.bitwise_xor: ("Xor", "BitwiseXor")}.items():
    symbolic(_op.Function)(_bitwise(*_ops))
symbolic(pointwise.arithmetic.BitwiseNot)(_bitwise("Not", "BitwiseNot"))


def _as_float(g, x) -> str:
    return g.name(x, x.dtype.numpy if x.is_floating_point() else np.float32)


symbolic(pointwise.isnan.Function)(lambda g, out, x: g.op("IsNaN", [_as_float(g, x)], out))
symbolic(pointwise.isinf.Function)(lambda g, out, x: g.op("IsInf", [_as_float(g, x)], out))
symbolic(pointwise.isposinf.Function)(lambda g, out, x: g.op(
    "IsInf", [_as_float(g, x)], out, detect_negative=0))
symbolic(pointwise.isneginf.Function)(lambda g, out, x: g.op(
    "IsInf", [_as_float(g, x)], out, detect_positive=0))


@symbolic(pointwise.isfinite.Function)
def isfinite(g, out, x):
    value = _as_float(g, x)
    g.op("Not", [g.op("Or", [g.op("IsInf", [value]), g.op("IsNaN", [value])])], out)


def _arg_extreme(onnx_op: str):
    """ArgMax/ArgMin: of the flattened input when axis is None."""
    def fn(g, out, x, axis, keepdim):
        value = g.name(x, np.int32 if _dt(x) == np.bool_ else None)
        if x.ndim == 0:
            g.op("Reshape", [g.const(0, np.int64), g.ints([])], out)
            return
        if axis is None:
            flat = g.op("Reshape", [value, g.ints([-1])])
            picked = g.op(onnx_op, [flat], axis=0, keepdims=0)
            g.op("Reshape", [picked, g.ints(out.shape)], out)
            return
        g.op(onnx_op, [value], out, axis=axis, keepdims=int(keepdim))
    return fn


symbolic(reduction.ArgMax)(_arg_extreme("ArgMax"))
symbolic(reduction.ArgMin)(_arg_extreme("ArgMin"))


def _any_all(onnx_op: str):
    """any / all: the largest / smallest 0-or-1 value of the elements tested for non-zero."""
    def fn(g, out, x, axes, keepdim):
        ones = g.op("Cast", [g.name(x, np.bool_)], to=onnx_type(np.int32))
        picked = g.reduce(onnx_op, ones, axes, keepdim, None)
        g.op("Cast", [picked], out, to=onnx_type(_dt(out)))
    return fn


symbolic(reduction.Any)(_any_all("ReduceMax"))
symbolic(reduction.All)(_any_all("ReduceMin"))


@symbolic(reduction.CountNonzero)
def count_nonzero(g, out, x, axes):
    ones = g.op("Cast", [g.name(x, np.bool_)], to=onnx_type(np.int64))
    g.reduce("ReduceSum", ones, axes, False, out)


@symbolic(indexing.Nonzero)
def nonzero(g, out, x):
    g.op("Transpose", [g.op("NonZero", [g.name(x)])], out, perm=[1, 0])


@symbolic(indexing.NonzeroTuple)
def nonzero_tuple(g, out, x):
    if x.ndim == 0:
        _unsupported("nonzero of a 0-d tensor with as_tuple", True)
    rows = g.op("Split", [g.op("NonZero", [g.name(x)]), g.ints([1] * len(out))], len(out),
                axis=0)
    for row, o in zip(rows, out):
        g.op("Squeeze", [row, g.ints([0])], o)


symbolic(shape.Detach)(lambda g, out, x: g.op("Identity", [g.name(x)], out))
