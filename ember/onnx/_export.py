"""`ember.onnx.export`: trace the model once, then write the recorded graph as ONNX."""
from __future__ import annotations

import enum
import os
import sys

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import _trace
from ._symbolic import SYMBOLICS
from . import _symbolic_rnn  # noqa: F401  (registers the recurrent layers' symbolics)

DEFAULT_OPSET = 17
SUPPORTED_OPSETS = range(13, 21)


class TrainingMode(enum.IntEnum):
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


_EXPORTING = [False]


def is_in_onnx_export() -> bool:
    return _EXPORTING[0]


# -------------------------------------------------------------------- the op table
_TENSOR_CONVERSIONS = ("to", "type", "float", "double", "half", "bfloat16", "long", "int",
                       "short", "char", "byte", "bool", "detach", "cpu", "cuda")
_NOT_OPS = {"requires_grad_", "share_memory_", "apply_", "detach_"}


def _op_table() -> dict:
    """original function -> (public name, symbolic function or None, signature source).

    Every public op gets an entry: the ones without a symbolic function raise a clear
    error when a traced model calls them on live tensors."""
    from ..nn import functional as F
    from ..nn.modules.rnn import RNNBase
    from ..nn.utils import rnn as rnn_utils
    from ..ops import indexing, joining, linalg, pointwise, reduction, shape, sorting
    table = {}

    def add(name, fn, namespace, prefix=""):
        """Enter fn; an in-place `name_` without its own mapping records as `name`, bound
        with the out-of-place function's signature."""
        if not callable(fn) or isinstance(fn, type) or fn in table:
            return
        handler = SYMBOLICS.get(prefix + name, SYMBOLICS.get(name))
        sig_fn = fn
        base = namespace.get(name[:-1]) if name.endswith("_") else None
        if handler is None and base is not None:
            handler = SYMBOLICS.get(prefix + name[:-1], SYMBOLICS.get(name[:-1]))
            sig_fn = base
        table[fn] = (name, handler, sig_fn)

    for module in (pointwise, reduction, shape, joining, indexing, linalg, sorting):
        for name in [*getattr(module, "__all__", ()), *getattr(module, "METHODS", ())]:
            add(name, getattr(module, name, None), vars(module))
    add("getitem", indexing.getitem, {})
    add("setitem", indexing.setitem, {})
    # Recorded as whole layers: ember runs them as fused primitives (see _symbolic_rnn.py).
    add("nn.RNNBase.forward", RNNBase.forward, {})
    add("pack_padded_sequence", rnn_utils.pack_padded_sequence, {})
    add("pad_packed_sequence", rnn_utils.pad_packed_sequence, {})
    for name in dir(F):
        fn = getattr(F, name)
        if getattr(fn, "__module__", "").startswith("ember.nn.functional"):
            add(name, fn, vars(F), prefix="F.")
    methods = vars(Tensor)
    for name in _TENSOR_CONVERSIONS:
        add(name, methods[name], methods, prefix="Tensor.")
    for name, fn in list(methods.items()):
        if name.endswith("_") and not name.startswith("_") and name not in _NOT_OPS:
            add(name, fn, methods)
    return table


def _operators() -> dict:
    """Tensor's arithmetic operators re-routed through the (patched) public ops, so that
    `x + y` and `2 - x` are recorded like `ember.add(x, y)` and `ember.sub(2, x)` however
    the operators are bound for speed."""
    from ..ops import creation, linalg, pointwise

    def forward(module, name):
        return lambda self, other: getattr(module, name)(self, other)

    def reflected(module, name):
        def method(self, other):
            if not isinstance(other, Tensor):
                other = creation.scalar_tensor_like(other, self)
            return getattr(module, name)(other, self)
        return method

    ops = {"add": pointwise, "sub": pointwise, "mul": pointwise, "truediv": pointwise,
           "floordiv": pointwise, "pow": pointwise, "matmul": linalg, "mod": pointwise}
    names = {"truediv": "div", "floordiv": "floor_divide", "mod": "remainder"}
    table = {}
    for op, module in ops.items():
        table[f"__{op}__"] = forward(module, names.get(op, op))
        table[f"__r{op}__"] = reflected(module, names.get(op, op))
    table["__radd__"] = table["__add__"]
    table["__rmul__"] = table["__mul__"]
    return table


# -------------------------------------------------------------------- argument handling
def _refuse(name: str, value) -> None:
    raise NotImplementedError(f"ember.onnx.export: {name}={value!r} is not supported")


def _split_args(args, kwargs) -> tuple:
    """torch's convention: one tensor, or a tuple whose last item may be a dict of kwargs."""
    if isinstance(args, Tensor):
        args = (args,)
    args = tuple(args)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):
        kwargs = {**args[-1], **kwargs}
        args = args[:-1]
    return args, kwargs


def _default_input_names(model, count: int) -> list:
    import inspect
    forward = getattr(model, "forward", model)
    try:
        params = [p.name for p in inspect.signature(forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"input_{i}" for i in range(count)]


def _flat_tensors(value) -> list:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flat_tensors(v)]
    return []


def _dim_names(dynamic_axes: dict | None) -> dict:
    """{value name: {axis: dim name}}, naming list-given axes as torch does."""
    result = {}
    for key, axes in (dynamic_axes or {}).items():
        if isinstance(axes, dict):
            result[key] = {int(k): str(v) for k, v in axes.items()}
        else:
            result[key] = {int(k): f"{key}_dynamic_axes_{i + 1}" for i, k in enumerate(axes)}
    return result


def _model_modules(model) -> list:
    """The Python modules that define the model's classes (their globals may hold direct
    references to ember ops, e.g. `from ember.nn.functional import relu`)."""
    owners = [type(m).__module__ for m in model.modules()] if hasattr(model, "modules") \
        else [getattr(model, "__module__", None)]
    return [sys.modules.get(name) for name in dict.fromkeys(owners) if name]


# -------------------------------------------------------------------- export
def export(model, args=(), f=None, export_params: bool = True, verbose: bool = False,
           training=TrainingMode.EVAL, input_names=None, output_names=None,
           operator_export_type=OperatorExportTypes.ONNX, opset_version: int | None = None,
           do_constant_folding: bool = True, dynamic_axes=None,
           keep_initializers_as_inputs: bool | None = None, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining: bool = True, *,
           kwargs=None, dynamo: bool = False, external_data: bool = True,
           dynamic_shapes=None, custom_translation_table=None, report: bool = False,
           optimize: bool = True, verify: bool = False, profile: bool = False,
           dump_exported_program: bool = False, artifacts_dir=".",
           fallback: bool = False) -> None:
    """Export `model` to the ONNX file (path or binary file object) `f` by running it once
    on `args` and recording the ember ops it calls.

    As torch's TorchScript-based exporter: control flow is frozen to the path the example
    took, and sizes read from tensors (`x.size(1)`) become constants, except that a
    reshape or expand keeps the input's own leading sizes dynamic. Constant subexpressions
    (ops on parameters only) are computed once and stored as initializers.
    """
    if dynamo:
        _refuse("dynamo", dynamo)
    for name, value, default in (("dynamic_shapes", dynamic_shapes, None),
                                 ("custom_translation_table", custom_translation_table, None),
                                 ("report", report, False), ("verify", verify, False),
                                 ("profile", profile, False), ("fallback", fallback, False),
                                 ("dump_exported_program", dump_exported_program, False),
                                 ("export_modules_as_functions", export_modules_as_functions,
                                  False)):
        if value is not default and value != default:
            _refuse(name, value)
    if operator_export_type != OperatorExportTypes.ONNX:
        _refuse("operator_export_type", operator_export_type)
    if training == TrainingMode.TRAINING:
        _refuse("training", training)
    try:
        import onnx
    except ImportError as e:
        raise ImportError("ember.onnx.export needs the 'onnx' package: pip install "
                          "ember[onnx]") from e
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    if opset not in SUPPORTED_OPSETS:
        raise ValueError(f"Unsupported ONNX opset version: {opset}. ember exports opsets "
                         f"{SUPPORTED_OPSETS.start} to {SUPPORTED_OPSETS.stop - 1}.")
    if f is None:
        raise ValueError("ember.onnx.export: f (a file path or a binary file object) is "
                         "required")

    args, kwargs = _split_args(args, kwargs)
    graph, outputs, inputs = _trace_model(model, args, kwargs, opset, training,
                                          fold=do_constant_folding)
    input_names = list(input_names or []) + \
        _default_input_names(model, len(inputs))[len(input_names or []):]
    proto = _to_onnx(onnx, graph, inputs, outputs, input_names[:len(inputs)], output_names,
                     _dim_names(dynamic_axes), opset, custom_opsets or {},
                     export_params, bool(keep_initializers_as_inputs))
    onnx.checker.check_model(proto)
    if verbose:
        print(onnx.printer.to_text(proto.graph))
    data = proto.SerializeToString()
    if hasattr(f, "write"):
        f.write(data)
    else:
        with open(os.fspath(f), "wb") as fh:
            fh.write(data)


def _trace_model(model, args: tuple, kwargs: dict, opset: int, training, fold: bool):
    """Run the model once under the recorder; returns the graph, the output tensors and
    the input tensors (in graph-input order)."""
    named = {}
    if hasattr(model, "named_parameters"):
        named = {id(t): n for n, t in [*model.named_parameters(), *model.named_buffers()]}
    graph = _trace.Graph(opset, named, params_live=not fold)
    inputs = _flat_tensors((list(args), kwargs))
    for i, t in enumerate(inputs):
        graph.bind(t, f"__input_{i}")
    modes = [(m, m.training) for m in model.modules()] if hasattr(model, "modules") else []
    if modes and training == TrainingMode.EVAL:
        model.eval()
    _EXPORTING[0] = True
    try:
        with _trace.recording(graph, _op_table(), _operators(),
                              _model_modules(model)), \
                _trace.module_scopes(graph, model), no_grad():
            result = model(*args, **kwargs)
    finally:
        _EXPORTING[0] = False
        for module, mode in modes:
            module.training = mode
    outputs = _flat_tensors(result)
    if not outputs:
        raise RuntimeError("ember.onnx.export: the model returned no tensors")
    return graph, [(t, graph.name(t)) for t in outputs], inputs


def _to_onnx(onnx, graph, inputs, outputs, input_names, output_names, dims, opset,
             custom_opsets, export_params, initializers_as_inputs):
    """Assemble the ModelProto: rename the traced values, declare inputs and outputs."""
    helper, numpy_helper = onnx.helper, onnx.numpy_helper
    rename = {f"__input_{i}": name for i, name in enumerate(input_names)}
    nodes = list(graph.nodes)
    produced = {o for node in nodes for o in node[2]}
    if output_names is None:
        output_names = ["output"] if len(outputs) == 1 else \
            [f"output_{i}" for i in range(len(outputs))]
    final = []
    for (t, value), wanted in zip(outputs, list(output_names) + [None] * len(outputs)):
        wanted = wanted or value
        if value in produced and value not in rename:
            rename[value] = wanted
        elif rename.get(value, value) != wanted:
            nodes.append(("Identity", [value], [wanted], f"/Identity_{wanted}", {}))
        final.append((t, wanted))

    def renamed(names):
        return [rename.get(n, n) for n in names]

    dynamic = bool(dims)

    def value_info(name, t, declare_unknown):
        axes = dims.get(name, {})
        shape = [axes.get(i, None if declare_unknown else s) for i, s in enumerate(t.shape)]
        return helper.make_tensor_value_info(name, _trace.onnx_type(t._data.dtype), shape)

    graph_inputs = [value_info(name, t, False) for t, name in zip(inputs, input_names)]
    graph_outputs = [value_info(name, t, dynamic) for t, name in final]
    params = set(graph._param_names.values())
    initializers = []
    for name, array in graph.initializers.items():
        if name in params and not export_params:
            graph_inputs.append(helper.make_tensor_value_info(
                name, _trace.onnx_type(array.dtype), list(array.shape)))
            continue
        initializers.append(numpy_helper.from_array(np.array(array, order="C"), name))
        if initializers_as_inputs:
            graph_inputs.append(helper.make_tensor_value_info(
                name, _trace.onnx_type(array.dtype), list(array.shape)))
    onnx_nodes = [helper.make_node(op, renamed(ins), renamed(outs), name=name, **attrs)
                  for op, ins, outs, name, attrs in nodes]
    main = helper.make_graph(onnx_nodes, "main_graph", graph_inputs, graph_outputs,
                             initializers)
    default_opset = helper.make_opsetid("", opset)
    imports = [default_opset] + [helper.make_opsetid(d, v) for d, v in custom_opsets.items()]
    from ..version import ember_version
    proto = helper.make_model(main, opset_imports=imports, producer_name="ember",
                              producer_version=ember_version)
    # onnx writes its newest IR version, which runtimes may not read yet: declare the
    # oldest one that supports the opset instead.
    proto.ir_version = helper.find_min_ir_version_for([default_opset])
    return proto
