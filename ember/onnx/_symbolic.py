"""Symbolic functions: how each ember op is written as ONNX nodes.

A symbolic function `fn(g, a, out)` receives the Graph being recorded, the op's bound
arguments by parameter name (`a.input`, `a.weight`, `a.stride` ...) and the op's result
`out` (already computed by ember, so its shape and dtype are known). It appends nodes with
`g.op(...)`, naming the node outputs after `out`. Register it under the op's public
name(s): "add" is `ember.add` (also `Tensor.add` and `+`), "F.relu" is
`ember.nn.functional.relu`, "Tensor.to" a method defined on Tensor itself.

Shapes of the traced example become constants except where ONNX can copy a dimension
from the input (Reshape's 0, Expand's 1), so a dynamic batch axis survives
`x.view(x.size(0), -1)`.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from .. import _dtype

SYMBOLICS = {}      # public name -> symbolic function

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def symbolic(*names):
    def register(fn):
        for name in names:
            SYMBOLICS[name] = fn
        return fn
    return register


def _dt(t: Tensor) -> np.dtype:
    return t._data.dtype


def _tuple(value, n: int) -> list:
    return list(value) if isinstance(value, (tuple, list)) else [value] * n


def _dims(args) -> list:
    """`*shape` arguments: view(2, 3) and view((2, 3)) alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return [int(a) for a in args]


def _wrap(dim: int, ndim: int) -> int:
    return dim + ndim if dim < 0 else dim


def _dim_list(dim, ndim: int) -> list | None:
    if dim is None or dim == ():
        return None
    return sorted(_wrap(d, ndim) for d in _tuple(dim, 1))


# ---------------------------------------------------------------- pointwise
def _unary(onnx_op: str):
    def fn(g, a, out):
        g.op(onnx_op, [g.name(a.input, _dt(out))], out)
    return fn


for _name, _op in {"neg": "Neg", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "abs": "Abs",
                   "sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "Relu", "erf": "Erf",
                   "sin": "Sin", "cos": "Cos", "reciprocal": "Reciprocal", "floor": "Floor",
                   "ceil": "Ceil", "round": "Round", "sign": "Sign",
                   "logical_not": "Not", "F.softsign": "Softsign"}.items():
    symbolic(_name, "F." + _name)(_unary(_op))


@symbolic("rsqrt")
def rsqrt(g, a, out):
    g.op("Reciprocal", [g.op("Sqrt", [g.name(a.input, _dt(out))])], out)


def _binary(onnx_op: str, common_type: bool = False):
    """Elementwise binary op; comparisons compute in the operands' common type."""
    def fn(g, a, out):
        dtype = _dtype.result_type(a.input, a.other).numpy if common_type else _dt(out)
        other = g.name(a.other, dtype)
        if getattr(a, "alpha", 1) != 1:
            other = g.op("Mul", [other, g.name(a.alpha, dtype)])
        g.op(onnx_op, [g.name(a.input, dtype), other], out)
    return fn


for _name, _op in {"add": "Add", "sub": "Sub", "mul": "Mul", "maximum": "Max",
                   "minimum": "Min", "matmul": "MatMul"}.items():
    symbolic(_name)(_binary(_op))
for _name, _op in {"eq": "Equal", "lt": "Less", "le": "LessOrEqual", "gt": "Greater",
                   "ge": "GreaterOrEqual"}.items():
    symbolic(_name)(_binary(_op, common_type=True))
symbolic("mm", "bmm")(lambda g, a, out: g.op(
    "MatMul", [g.name(a.input, _dt(out)), g.name(a.mat2, _dt(out))], out))


@symbolic("ne")
def ne(g, a, out):
    dtype = _dtype.result_type(a.input, a.other).numpy
    g.op("Not", [g.op("Equal", [g.name(a.input, dtype), g.name(a.other, dtype)])], out)


@symbolic("div")
def div(g, a, out):
    if a.rounding_mode is not None:
        raise NotImplementedError(
            f"ember.onnx.export: div with rounding_mode='{a.rounding_mode}' is not supported")
    g.op("Div", [g.name(a.input, _dt(out)), g.name(a.other, _dt(out))], out)


@symbolic("pow")
def pow(g, a, out):
    g.op("Pow", [g.name(a.input, _dt(out)), g.name(a.exponent, _dt(out))], out)


@symbolic("clamp", "clip")
def clamp(g, a, out):
    x = g.name(a.input, _dt(out))
    if isinstance(a.min, Tensor) or isinstance(a.max, Tensor):
        for bound, op_type in ((a.min, "Max"), (a.max, "Min")):
            if bound is not None:
                x = g.op(op_type, [x, g.name(bound, _dt(out))])
        g.op("Identity", [x], out)
        return
    bounds = ["" if b is None else g.name(b, _dt(out)) for b in (a.min, a.max)]
    g.op("Clip", [x, *bounds], out)


@symbolic("where")
def where(g, a, out):
    if a.input is None:
        raise NotImplementedError("ember.onnx.export: operator 'where' with one argument "
                                  "has no ONNX mapping")
    g.op("Where", [g.name(a.condition, np.bool_), g.name(a.input, _dt(out)),
                   g.name(a.other, _dt(out))], out)


@symbolic("masked_fill")
def masked_fill(g, a, out):
    g.op("Where", [g.name(a.mask, np.bool_), g.name(a.value, _dt(out)),
                   g.name(a.input, _dt(out))], out)


# ---------------------------------------------------------------- casts and aliases
@symbolic("contiguous", "clone", "Tensor.detach", "Tensor.cpu", "Tensor.cuda")
def alias(g, a, out):
    g.alias(out, a.input if hasattr(a, "input") else a.self)


@symbolic("Tensor.to", "Tensor.type", "Tensor.float", "Tensor.double", "Tensor.half",
          "Tensor.long", "Tensor.int", "Tensor.bool", "Tensor.short", "Tensor.byte",
          "Tensor.char", "Tensor.bfloat16")
def cast(g, a, out):
    if not isinstance(out, Tensor):          # x.type() returns the type name
        return
    g.bind(out, g.name(a.self, _dt(out)))


# ---------------------------------------------------------------- reductions
def _reduce(onnx_op: str):
    def fn(g, a, out):
        x = g.name(a.input, _dt(out))
        g.reduce(onnx_op, x, _dim_list(a.dim, a.input.ndim), a.keepdim, out)
    return fn


for _name, _op in {"mean": "ReduceMean", "sum": "ReduceSum", "amax": "ReduceMax",
                   "amin": "ReduceMin"}.items():
    symbolic(_name)(_reduce(_op))


# ---------------------------------------------------------------- shapes
def _reshape_target(shape: list, in_shape: tuple) -> list:
    """Reshape target with 0 ('copy the input's dim') for the leading dims that keep their
    input size, so those dims may differ at run time (a dynamic batch axis)."""
    target = list(shape)
    for i, (want, have) in enumerate(zip(target, in_shape)):
        if want != have:
            break
        if have != 0:
            target[i] = 0
    return target


def _reshape(g, x: Tensor, shape: list, out) -> None:
    g.op("Reshape", [g.name(x), g.ints(_reshape_target(shape, x.shape))], out)


@symbolic("view", "reshape")
def view(g, a, out):
    _reshape(g, a.input, _dims(a.shape), out)


@symbolic("view_as", "reshape_as")
def view_as(g, a, out):
    if g.is_live(a.other):
        g.op("Reshape", [g.name(a.input), g.op("Shape", [g.name(a.other)])], out)
    else:
        _reshape(g, a.input, list(a.other.shape), out)


@symbolic("flatten")
def flatten(g, a, out):
    ndim = a.input.ndim
    start, end = _wrap(a.start_dim, max(ndim, 1)), _wrap(a.end_dim, max(ndim, 1))
    if ndim >= 2 and start == 1 and end == ndim - 1:
        g.op("Flatten", [g.name(a.input)], out, axis=1)
        return
    shape = list(a.input.shape)
    _reshape(g, a.input, shape[:start] + [-1] + shape[end + 1:], out)


@symbolic("squeeze")
def squeeze(g, a, out):
    ndim = a.input.ndim
    dims = range(ndim) if a.dim is None else [_wrap(d, ndim) for d in _tuple(a.dim, 1)]
    axes = [d for d in dims if a.input.shape[d] == 1]
    if not axes:
        g.alias(out, a.input)
        return
    g.op("Squeeze", [g.name(a.input), g.ints(axes)], out)


@symbolic("unsqueeze")
def unsqueeze(g, a, out):
    g.op("Unsqueeze", [g.name(a.input), g.ints([_wrap(a.dim, out.ndim)])], out)


@symbolic("transpose", "swapaxes", "swapdims")
def transpose(g, a, out):
    dim0, dim1 = (a.dim0, a.dim1) if hasattr(a, "dim0") else (a.axis0, a.axis1)
    ndim = a.input.ndim
    perm = list(range(ndim))
    if ndim:
        i, j = _wrap(dim0, ndim), _wrap(dim1, ndim)
        perm[i], perm[j] = perm[j], perm[i]
    g.op("Transpose", [g.name(a.input)], out, perm=perm)


@symbolic("permute")
def permute(g, a, out):
    ndim = a.input.ndim
    g.op("Transpose", [g.name(a.input)], out, perm=[_wrap(d, ndim) for d in _dims(a.dims)])


@symbolic("t")
def t(g, a, out):
    if a.input.ndim < 2:
        g.alias(out, a.input)
    else:
        g.op("Transpose", [g.name(a.input)], out, perm=[1, 0])


def _expand_target(sizes: list, in_shape: tuple) -> list:
    """Expand's target with 1 wherever the input's own size is kept (Expand broadcasts 1)."""
    offset = len(sizes) - len(in_shape)
    return [1 if i >= offset and (s == -1 or s == in_shape[i - offset]) else s
            for i, s in enumerate(sizes)]


@symbolic("expand")
def expand(g, a, out):
    target = _expand_target(_dims(a.sizes), a.input.shape)
    g.op("Expand", [g.name(a.input), g.ints(target)], out)


@symbolic("expand_as", "broadcast_to")
def expand_as(g, a, out):
    other = getattr(a, "other", None)
    shape = g.op("Shape", [g.name(other)]) if g.is_live(other) else \
        g.ints(_expand_target(list(out.shape), a.input.shape))
    g.op("Expand", [g.name(a.input), shape], out)


@symbolic("cat", "concat", "concatenate")
def cat(g, a, out):
    inputs = [g.name(t, _dt(out)) for t in a.tensors if t.numel() or t.ndim > 1]
    g.op("Concat", inputs, out, axis=_wrap(a.dim if hasattr(a, "dim") else a.axis, out.ndim))


@symbolic("stack")
def stack(g, a, out):
    dim = _wrap(a.dim, out.ndim)
    axes = g.ints([dim])
    parts = [g.op("Unsqueeze", [g.name(t, _dt(out)), axes]) for t in a.tensors]
    g.op("Concat", parts, out, axis=dim)


@symbolic("split", "chunk", "tensor_split")
def split(g, a, out):
    x = a.tensor if hasattr(a, "tensor") else a.input
    dim = _wrap(a.dim, x.ndim)
    g.op("Split", [g.name(x), g.ints([o.shape[dim] for o in out])], list(out), axis=dim)


@symbolic("unbind")
def unbind(g, a, out):
    dim = _wrap(a.dim, a.input.ndim)
    parts = g.op("Split", [g.name(a.input), g.ints([1] * len(out))], len(out), axis=dim)
    for part, o in zip(parts, out):
        g.op("Squeeze", [part, g.ints([dim])], o)


@symbolic("getitem")
def getitem(g, a, out):
    """Basic indexing (ints, slices, None, Ellipsis): Slice, then Gather per int, then
    Unsqueeze for each None."""
    key = a.key if isinstance(a.key, tuple) else (a.key,)
    if any(not (k is None or k is Ellipsis or isinstance(k, (int, slice))) or
           isinstance(k, bool) for k in key):
        raise NotImplementedError("ember.onnx.export: operator 'getitem' with a tensor, list "
                                  "or bool index has no ONNX mapping")
    consumed = sum(k is not None and k is not Ellipsis for k in key)
    if Ellipsis in key:
        at = key.index(Ellipsis)
        key = key[:at] + (slice(None),) * (a.input.ndim - consumed) + key[at + 1:]
    x = g.name(a.input)
    starts, ends, axes, steps, picks, new_axes = [], [], [], [], [], []
    dim = out_dim = 0
    for k in key:
        if k is None:
            new_axes.append(out_dim)
            out_dim += 1
        elif isinstance(k, int):
            picks.append((dim, k))
            dim += 1
        else:
            step = 1 if k.step is None else k.step
            if k != slice(None) and k != slice(None, None, 1):
                lo_default, hi_default = (0, INT64_MAX) if step > 0 else (INT64_MAX, INT64_MIN)
                starts.append(lo_default if k.start is None else k.start)
                ends.append(hi_default if k.stop is None else k.stop)
                axes.append(dim)
                steps.append(step)
            dim += 1
            out_dim += 1
    if axes:
        x = g.op("Slice", [x, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps)])
    for d, index in reversed(picks):
        x = g.op("Gather", [x, g.const(index, np.int64)], axis=d)
    if new_axes:
        x = g.op("Unsqueeze", [x, g.ints(new_axes)])
    g.bind(out, x)


# ---------------------------------------------------------------- nn.functional: layers
@symbolic("F.linear")
def linear(g, a, out):
    x, w = g.name(a.input), g.name(a.weight)
    b = g.name(a.bias) if a.bias is not None else None
    if a.input.ndim == 2:
        g.op("Gemm", [x, w] + ([b] if b else []), out, transB=1)
        return
    y = g.op("MatMul", [x, g.op("Transpose", [w], perm=[1, 0])], None if b else out)
    if b:
        g.op("Add", [y, b], out)


def _conv_pads(padding, weight: Tensor, dilation: list, n: int) -> list:
    """ONNX pads (all begins, then all ends) for torch's padding argument."""
    if padding == "valid":
        return [0] * 2 * n
    if padding == "same":
        total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
        return [t // 2 for t in total] + [t - t // 2 for t in total]
    return _tuple(padding, n) * 2


@symbolic("F.conv1d", "F.conv2d", "F.conv3d")
def conv(g, a, out):
    n = a.weight.ndim - 2
    if a.input.ndim != n + 2:
        raise NotImplementedError("ember.onnx.export: unbatched convolution input is not "
                                  "supported; add a batch dimension")
    dilation = _tuple(a.dilation, n)
    inputs = [g.name(a.input), g.name(a.weight)]
    if a.bias is not None:
        inputs.append(g.name(a.bias))
    g.op("Conv", inputs, out, kernel_shape=list(a.weight.shape[2:]), strides=_tuple(a.stride, n),
         pads=_conv_pads(a.padding, a.weight, dilation, n), dilations=dilation, group=a.groups)


def _pool_attrs(a, n: int) -> dict:
    kernel = _tuple(a.kernel_size, n)
    stride = kernel if a.stride is None or a.stride == [] else _tuple(a.stride, n)
    return {"kernel_shape": kernel, "strides": stride, "pads": _tuple(a.padding, n) * 2,
            "ceil_mode": int(a.ceil_mode)}


def _unsupported(name: str, value) -> None:
    raise NotImplementedError(f"ember.onnx.export: {name}={value!r} is not supported")


@symbolic("F.max_pool1d", "F.max_pool2d", "F.max_pool3d")
def max_pool(g, a, out):
    if a.return_indices:
        _unsupported("return_indices", True)
    n = a.input.ndim - 2
    g.op("MaxPool", [g.name(a.input)], out, dilations=_tuple(a.dilation, n),
         **_pool_attrs(a, n))


@symbolic("F.avg_pool1d", "F.avg_pool2d", "F.avg_pool3d")
def avg_pool(g, a, out):
    if getattr(a, "divisor_override", None) is not None:
        _unsupported("divisor_override", a.divisor_override)
    n = a.input.ndim - 2
    g.op("AveragePool", [g.name(a.input)], out, count_include_pad=int(a.count_include_pad),
         **_pool_attrs(a, n))


def _adaptive(global_op: str, window_op: str):
    """Adaptive pooling: the global op for output 1, a fixed window when sizes divide."""
    def fn(g, a, out):
        if getattr(a, "return_indices", False):
            _unsupported("return_indices", True)
        spatial = a.input.shape[2:]
        wanted = _tuple(a.output_size, len(spatial))
        sizes = [s if o is None else o for o, s in zip(wanted, spatial)]
        if all(o == 1 for o in sizes):
            g.op(global_op, [g.name(a.input)], out)
        elif all(s % o == 0 for s, o in zip(spatial, sizes)):
            kernel = [s // o for s, o in zip(spatial, sizes)]
            g.op(window_op, [g.name(a.input)], out, kernel_shape=kernel, strides=kernel)
        else:
            raise NotImplementedError(
                f"ember.onnx.export: adaptive pooling from {list(spatial)} to {sizes} (sizes "
                "that do not divide) has no ONNX mapping")
    return fn


symbolic("F.adaptive_avg_pool1d", "F.adaptive_avg_pool2d", "F.adaptive_avg_pool3d")(
    _adaptive("GlobalAveragePool", "AveragePool"))
symbolic("F.adaptive_max_pool1d", "F.adaptive_max_pool2d")(
    _adaptive("GlobalMaxPool", "MaxPool"))


def _affine_params(g, weight, bias, shape, dtype) -> tuple:
    """Scale and bias names, with ones and zeros when the layer has no affine parameters."""
    scale = g.name(weight) if weight is not None else g.const(np.ones(shape, dtype))
    shift = g.name(bias) if bias is not None else g.const(np.zeros(shape, dtype))
    return scale, shift


@symbolic("F.batch_norm")
def batch_norm(g, a, out):
    if a.training or a.running_mean is None:
        raise NotImplementedError("ember.onnx.export: batch_norm with batch statistics "
                                  "(training=True or no running stats) is not supported; "
                                  "export the model in eval mode")
    scale, shift = _affine_params(g, a.weight, a.bias, (a.input.shape[1],), _dt(out))
    g.op("BatchNormalization", [g.name(a.input), scale, shift, g.name(a.running_mean),
                                g.name(a.running_var)], out, epsilon=float(a.eps))


@symbolic("F.layer_norm")
def layer_norm(g, a, out):
    shape = _tuple(a.normalized_shape, 1)
    scale, shift = _affine_params(g, a.weight, a.bias, shape, _dt(out))
    x = g.name(a.input)
    if g.opset >= 17:
        g.op("LayerNormalization", [x, scale, shift], out, axis=-len(shape),
             epsilon=float(a.eps))
        return
    axes = list(range(-len(shape), 0))
    centered = g.op("Sub", [x, g.reduce("ReduceMean", x, axes, True, None)])
    var = g.reduce("ReduceMean", g.op("Mul", [centered, centered]), axes, True, None)
    std = g.op("Sqrt", [g.op("Add", [var, g.name(a.eps, _dt(out))])])
    y = g.op("Mul", [g.op("Div", [centered, std]), scale])
    g.op("Add", [y, shift], out)


@symbolic("F.dropout", "F.dropout1d", "F.dropout2d", "F.dropout3d", "F.alpha_dropout",
          "F.feature_alpha_dropout")
def dropout(g, a, out):
    if a.training and a.p > 0:
        raise NotImplementedError("ember.onnx.export: dropout in training mode is not "
                                  "supported; export the model in eval mode")
    g.alias(out, a.input)


@symbolic("F.embedding")
def embedding(g, a, out):
    if a.max_norm is not None:
        _unsupported("max_norm", a.max_norm)
    g.op("Gather", [g.name(a.weight), g.name(a.input)], out, axis=0)


@symbolic("F.pad")
def pad(g, a, out):
    modes = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}
    if a.mode not in modes:
        _unsupported("mode", a.mode)
    pairs = [list(a.pad[i:i + 2]) for i in range(0, len(a.pad), 2)]   # last dim first
    lead = [[0, 0]] * (a.input.ndim - len(pairs))
    per_dim = lead + pairs[::-1]
    pads = [p[0] for p in per_dim] + [p[1] for p in per_dim]
    inputs = [g.name(a.input), g.ints(pads)]
    if a.mode == "constant":
        inputs.append(g.name(0 if a.value is None else a.value, _dt(out)))
    g.op("Pad", inputs, out, mode=modes[a.mode])


# ---------------------------------------------------------------- nn.functional: activations
def _simple(onnx_op: str, **attr_args):
    """An activation that is one ONNX op; attr_args maps ONNX attributes to arguments."""
    def fn(g, a, out):
        attrs = {k: float(getattr(a, v)) for k, v in attr_args.items()}
        g.op(onnx_op, [g.name(a.input)], out, **attrs)
    return fn


symbolic("F.relu", "relu_", "F.relu_")(_simple("Relu"))
symbolic("F.leaky_relu", "F.leaky_relu_")(_simple("LeakyRelu", alpha="negative_slope"))
symbolic("F.elu", "F.elu_")(_simple("Elu", alpha="alpha"))
symbolic("F.celu", "F.celu_")(_simple("Celu", alpha="alpha"))
symbolic("F.selu", "F.selu_")(_simple("Selu"))


def _clip(g, x: Tensor, lo: float, hi: float, out) -> None:
    g.op("Clip", [g.name(x), g.name(lo, _dt(out)), g.name(hi, _dt(out))], out)


symbolic("F.relu6")(lambda g, a, out: _clip(g, a.input, 0.0, 6.0, out))
symbolic("F.hardtanh", "F.hardtanh_")(lambda g, a, out: _clip(g, a.input, a.min_val,
                                                              a.max_val, out))
symbolic("F.hardsigmoid")(lambda g, a, out: g.op(
    "HardSigmoid", [g.name(a.input)], out, alpha=1.0 / 6, beta=0.5))


@symbolic("F.hardswish")
def hardswish(g, a, out):
    x = g.name(a.input)
    if g.opset >= 14:
        g.op("HardSwish", [x], out)
    else:
        g.op("Mul", [x, g.op("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)], out)


@symbolic("F.silu")
def silu(g, a, out):
    x = g.name(a.input)
    g.op("Mul", [x, g.op("Sigmoid", [x])], out)


@symbolic("F.gelu")
def gelu(g, a, out):
    x, dt = g.name(a.input), _dt(out)
    if g.opset >= 20:
        g.op("Gelu", [x], out, approximate=a.approximate)
        return
    if a.approximate == "tanh":     # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = g.op("Mul", [g.op("Mul", [x, x]), x])
        inner = g.op("Add", [x, g.op("Mul", [cube, g.name(0.044715, dt)])])
        core = g.op("Tanh", [g.op("Mul", [inner, g.name(math.sqrt(2 / math.pi), dt)])])
    else:                           # 0.5 x (1 + erf(x / sqrt 2))
        core = g.op("Erf", [g.op("Div", [x, g.name(math.sqrt(2.0), dt)])])
    half_x = g.op("Mul", [x, g.name(0.5, dt)])
    g.op("Mul", [half_x, g.op("Add", [core, g.name(1.0, dt)])], out)


def _softplus(g, x: str, beta: float, dt, out):
    if beta == 1:
        return g.op("Softplus", [x], out)
    scaled = g.op("Softplus", [g.op("Mul", [x, g.name(beta, dt)])])
    return g.op("Div", [scaled, g.name(beta, dt)], out)


symbolic("F.softplus")(lambda g, a, out: _softplus(g, g.name(a.input), a.beta, _dt(out), out))
symbolic("F.logsigmoid")(lambda g, a, out: g.op(
    "Neg", [_softplus(g, g.op("Neg", [g.name(a.input)]), 1, _dt(out), None)], out))


@symbolic("F.mish")
def mish(g, a, out):
    x = g.name(a.input)
    if g.opset >= 18:
        g.op("Mish", [x], out)
    else:
        g.op("Mul", [x, g.op("Tanh", [g.op("Softplus", [x])])], out)


@symbolic("F.prelu")
def prelu(g, a, out):
    slope = g.name(a.weight)
    if a.weight.numel() > 1 and a.input.ndim > 2:       # (C,) -> (C, 1, ...) for NCHW
        slope = g.op("Reshape", [slope, g.ints([-1] + [1] * (a.input.ndim - 2))])
    g.op("PRelu", [g.name(a.input), slope], out)


def _softmax(onnx_op: str, negate: bool = False):
    def fn(g, a, out):
        ndim = a.input.ndim
        dim = (0 if ndim in (0, 1, 3) else 1) if a.dim is None else _wrap(a.dim, max(ndim, 1))
        x = g.name(a.input, _dt(out))
        if negate:
            x = g.op("Neg", [x])
        g.op(onnx_op, [x], out, axis=dim)
    return fn


symbolic("F.softmax", "softmax")(_softmax("Softmax"))
symbolic("F.log_softmax", "log_softmax")(_softmax("LogSoftmax"))
symbolic("F.softmin")(_softmax("Softmax", negate=True))
