"""add_graph: a TensorBoard GraphDef of the ember ops a model's forward calls.

torch traces the model with the JIT and converts its graph; ember reuses the ONNX
exporter's tracer (ember/onnx/_trace.py), a recorder of Function.apply: while the model
runs once, every primitive applied to a tensor computed from the inputs or the parameters
becomes a node whose op type is the op's aten name, as the profiler gives it ('linear',
'relu', 'add' ...). Node names are scoped by module path as torch's are
('Net/Linear[fc1]/linear'), so TensorBoard groups them per layer.
"""
from __future__ import annotations

import functools
import inspect

from ...autograd.grad_mode import no_grad
from ...onnx import _export, _trace
from ...profiler._recorder import op_name

_OPSET = 17      # the tracer's Graph wants one; it has no effect on what add_graph records


def module_paths(model) -> dict:
    """Module qualified name -> TensorBoard scope: '' -> 'Net', 'fc1' -> 'Net/Linear[fc1]'."""
    paths = {"": type(model).__name__}
    for qualname, module in model.named_modules():
        if qualname:
            parent, _, name = qualname.rpartition(".")
            paths[qualname] = f"{paths[parent]}/{type(module).__name__}[{name}]"
    return paths


class GraphRecorder:
    """Turns the ops the tracer reports into NodeDefs."""

    def __init__(self, model) -> None:
        self.paths = module_paths(model)
        self.nodes = []
        self._used_names = set()

    def add_node(self, name: str, op: str, inputs=(), outputs=(), attr: str = "") -> str:
        from tensorboard.compat.proto.attr_value_pb2 import AttrValue
        from tensorboard.compat.proto.node_def_pb2 import NodeDef
        from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
        unique, k = name, 0
        while unique in self._used_names:
            k += 1
            unique = f"{name}_{k}"
        self._used_names.add(unique)
        attrs = {"attr": AttrValue(s=attr.encode("utf-8"))}
        if outputs:
            shapes = [TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in t.shape])
                      for t in outputs]
            attrs["_output_shapes"] = AttrValue(list=AttrValue.ListValue(shape=shapes))
        self.nodes.append(NodeDef(name=unique, op=op, input=list(inputs), attr=attrs))
        return unique

    def record(self, cls, graph, out, *args, **kwargs) -> None:
        """A node for one primitive, reading its live tensor arguments; its outputs then
        stand for the op's result tensors."""
        name = op_name(cls).split("::")[-1]
        bound = inspect.signature(cls.forward).bind(None, *args, **kwargs).arguments
        inputs, settings = [], []
        for key, value in list(bound.items())[1:]:          # skip ctx
            tensors = _export._flat_tensors(value)
            if tensors:
                inputs += [graph.name(t) for t in tensors if graph.is_live(t)]
            elif value is not None:
                settings.append(f"{key}={value!r}")
        outputs = _export._flat_tensors(out)
        scope = self.paths[graph.scope[-1]] if graph.scope else self.paths[""]
        node = self.add_node(f"{scope}/{name}", name, inputs, outputs,
                             "{" + ", ".join(settings) + "}")
        for i, t in enumerate(outputs):
            graph.bind(t, node if len(outputs) == 1 else f"{node}:{i}")


class _NodePerOp(_trace.Tracer):
    """The exporter's tracer, recording every live primitive as a GraphRecorder node
    instead of through ONNX symbolics."""

    def __init__(self, graph, recorder: GraphRecorder):
        super().__init__(graph, {})
        self.recorder = recorder

    def writer(self, cls):
        return functools.partial(self.recorder.record, cls)


def graph(model, input_to_model=None, verbose: bool = False, use_strict_trace: bool = True):
    """(GraphDef, RunMetadata) of one eval-mode forward of `model` on `input_to_model`
    (a tensor or a tuple of them; None calls the model without arguments), for
    FileWriter.add_graph. As torch's strict JIT trace, a dict output is refused
    unless use_strict_trace=False."""
    from tensorboard.compat.proto.graph_pb2 import GraphDef
    from tensorboard.compat.proto.config_pb2 import RunMetadata
    from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats
    from tensorboard.compat.proto.versions_pb2 import VersionDef
    args, kwargs = _export._split_args(() if input_to_model is None else input_to_model, {})
    recorder = GraphRecorder(model)
    traced = _trace.Graph(_OPSET, {})
    inputs = _export._flat_tensors((list(args), kwargs))
    input_names = _export._default_input_names(model, len(inputs))
    for t, name in zip(inputs, input_names):
        traced.bind(t, recorder.add_node(f"input/{name}", "IO Node", outputs=[t]))
    for kind, named in (("Parameter", model.named_parameters()),
                        ("Buffer", model.named_buffers())):
        for qualname, t in named:
            owner, _, attr = qualname.rpartition(".")
            node = recorder.add_node(f"{recorder.paths[owner]}/{attr}", kind, outputs=[t])
            traced.bind(t, node)
    modes = [(m, m.training) for m in model.modules()]
    model.eval()
    try:
        with _trace.module_scopes(traced, model), no_grad(), \
                _trace.tracing(_NodePerOp(traced, recorder)):
            result = model(*args, **kwargs)
    finally:
        for module, mode in modes:
            module.training = mode
    if use_strict_trace and isinstance(result, dict):
        raise RuntimeError("Encountering a dict at the output of the tracer might cause the "
                           "trace to be incorrect. Return a tuple instead, or pass "
                           "use_strict_trace=False to allow this.")
    for i, t in enumerate(_export._flat_tensors(result)):
        source = [traced.name(t)] if traced.is_live(t) else []
        recorder.add_node(f"output/output.{i + 1}", "IO Node", source, [t])
    graph_def = GraphDef(node=recorder.nodes, versions=VersionDef(producer=22))
    if verbose:
        print(graph_def)
    # torch reports the graph as run on the CPU; so does ember (it only runs there).
    run = RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0")]))
    return graph_def, run
