"""`ember.onnx.export`: trace the model once, then write the recorded graph as ONNX."""
from __future__ import annotations

import enum
import os

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import _trace
from ._symbolic import SYMBOLICS
from ._symbolic_rnn import whole_layers
# imported for the symbolics they register
from . import _symbolic_composite, _symbolic_nondifferentiable  # noqa: F401

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

    As torch's TorchScript-based exporter: the primitives the model runs are recorded (on
    this thread only), control flow is frozen to the path the example took, and sizes read from tensors (`x.size(1)`) become constants, except that a
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
        # The layers' hooks go first: a layer's nodes are written inside its scope.
        with whole_layers(graph, model), _trace.module_scopes(graph, model), no_grad(), \
                _trace.tracing(_trace.Tracer(graph, SYMBOLICS)):
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
        return helper.make_tensor_value_info(name, _trace.onnx_type(t.dtype.numpy), shape)

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
    onnx_nodes = [helper.make_node(op, renamed(ins), renamed(outs), name=name,
                                   **{k: numpy_helper.from_array(v) if isinstance(v, np.ndarray)
                                      else v for k, v in attrs.items()})
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
