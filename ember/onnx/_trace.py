"""Tracing: run the model once while a recorder turns ember's primitives into ONNX nodes.

Export is a tracing mode, like the profiler: `tracing()` makes a `Tracer` this thread's
recorder (see ember/_modes.py), and `Function.apply` hands it every primitive the thread
runs. When one of a primitive's arguments is *live* (computed from the graph inputs), the
tracer runs it and hands its apply arguments and result to the symbolic function of its
Function class (see _symbolic.py), which appends ONNX nodes to a `Graph`. Nothing is
patched: other threads, and this one after the export, run ops exactly as before.

Applies nested inside a traced primitive (or inside a layer recorded whole, see
_symbolic_rnn.py) are not traced again (`Graph.depth`). A primitive reached with a live
argument and no symbolic function stops the export with an error naming it, rather than
being silently frozen into a constant.

The tracing side needs no `onnx` import: nodes are plain tuples and initializers are
NumPy arrays; _export.py turns them into protobufs.
"""
from __future__ import annotations

import contextlib
import re
import warnings

import numpy as np

from .._modes import own as own_modes
from .._tensor import Tensor

# ONNX TensorProto element types by NumPy dtype name.
ONNX_TYPES = {"float32": 1, "uint8": 2, "int8": 3, "int16": 5, "int32": 6, "int64": 7,
              "bool": 9, "float16": 10, "float64": 11, "bfloat16": 16}


def onnx_type(dtype: np.dtype) -> int:
    try:
        return ONNX_TYPES[np.dtype(dtype).name]
    except KeyError:
        raise NotImplementedError(f"ember.onnx.export: dtype {dtype} has no ONNX type") from None


class Graph:
    """The ONNX graph being recorded: nodes, initializers and the tensor -> name map."""

    def __init__(self, opset: int, param_names: dict, params_live: bool = False):
        self.opset = opset
        self.nodes = []               # (op_type, input names, output names, node name, attrs)
        self.initializers = {}        # name -> np.ndarray
        self.depth = 0                # > 0 while a recorded op runs (its inner ops are skipped)
        self.scope = []               # qualified names of the modules being called
        self._names = {}              # id(tensor) -> ONNX value name
        self.packed = {}              # id(packed sequence data) -> (padded, lengths) names
        self._arrays = {}             # id(live tensor's array) -> its value name
        self._alive = []              # every named tensor, so that its id stays unique
        self._param_names = param_names    # id(parameter or buffer) -> state_dict name
        self._node_names = set()
        self._live_params = set()
        if params_live:     # no constant folding: ops on parameters are recorded too
            self._names.update(param_names)
            self._live_params = set(param_names.values())

    # ---------------------------------------------------------------- values
    def is_live(self, value) -> bool:
        """Whether `value` is computed from the graph inputs: a live tensor, or the array of
        one (primitives may be handed a tensor's array, e.g. embedding's indices)."""
        if isinstance(value, Tensor):
            return id(value) in self._names
        return isinstance(value, np.ndarray) and id(value) in self._arrays

    def any_live(self, args: tuple, kwargs: dict) -> bool:
        for a in (*args, *kwargs.values()):
            if isinstance(a, (list, tuple)):
                if any(self.is_live(item) for item in a):
                    return True
            elif self.is_live(a):
                return True
        return False

    def bind(self, t: Tensor, name: str) -> None:
        """Make `name` the ONNX value of tensor t (also after t is modified in place)."""
        self._names[id(t)] = name
        if not t.is_sparse:     # a sparse tensor has no array (its ops refuse export later)
            self._arrays[id(t.numpy(force=True))] = name
        self._alive.append(t)

    def alias(self, out: Tensor, source: Tensor) -> None:
        """out holds the same values as source (contiguous, clone, dropout in eval ...)."""
        self.bind(out, self.name(source))

    def name(self, value, dtype=None) -> str:
        """The ONNX value name of an op argument: a live tensor's value (cast to `dtype` if
        given), or an initializer for a parameter, buffer, constant tensor or number."""
        if isinstance(value, Tensor):
            name = self._names.get(id(value))
            if name in self._live_params and name not in self.initializers:
                self.initializers[name] = value.numpy(force=True)
            if name is not None:
                if dtype is not None and value.dtype.numpy != np.dtype(dtype):
                    return self.op("Cast", [name], to=onnx_type(dtype))
                return name
            param = self._param_names.get(id(value))
            array = value.numpy(force=True)
            if param is not None and (dtype is None or array.dtype == np.dtype(dtype)):
                self.initializers.setdefault(param, array)
                return param
        elif self.is_live(value):
            name = self._arrays[id(value)]
            if dtype is not None and value.dtype != np.dtype(dtype):
                return self.op("Cast", [name], to=onnx_type(dtype))
            return name
        else:
            array = np.asarray(value)
        if dtype is not None:
            array = array.astype(dtype)
        elif array.dtype == np.float64 and not isinstance(value, Tensor):
            array = array.astype(np.float32)      # a Python float: torch's default dtype
        return self.const(array)

    def const(self, array, dtype=None) -> str:
        name = f"onnx::Constant_{len(self.initializers)}"
        self.initializers[name] = np.array(array, dtype=dtype)
        return name

    def ints(self, values) -> str:
        """An int64 1-D constant (shapes, axes, pads given as node inputs)."""
        return self.const([int(v) for v in values], np.int64)

    # ---------------------------------------------------------------- nodes
    def op(self, op_type: str, inputs: list, outputs=None, **attrs):
        """Append a node. `outputs` is a Tensor, a sequence of Tensors, a count, or None
        (one unnamed output). Returns the output name (a list of names for several)."""
        node = self._node_name(op_type)
        targets = outputs if isinstance(outputs, (list, tuple)) else \
            [None] * outputs if isinstance(outputs, int) else [outputs]
        names = [f"{node}_output_{i}" for i in range(len(targets))]
        for t, name in zip(targets, names):
            if t is not None:
                self.bind(t, name)
        self.nodes.append((op_type, list(inputs), names, node,
                           {k: v for k, v in attrs.items() if v is not None}))
        return names if isinstance(outputs, (list, tuple, int)) else names[0]

    def _node_name(self, op_type: str) -> str:
        base = "/".join(["", *self.scope[-1:], op_type]) if self.scope else f"/{op_type}"
        name, k = base, 0
        while name in self._node_names:
            k += 1
            name = f"{base}_{k}"
        self._node_names.add(name)
        return name

    def reduce(self, op_type: str, x: str, axes, keepdims: bool, out) -> str:
        """A Reduce* node; axes moved from attribute to input in opset 18 (13 for Sum)."""
        if axes is None:
            return self.op(op_type, [x], out, keepdims=int(keepdims))
        if op_type == "ReduceSum" or self.opset >= 18:
            return self.op(op_type, [x, self.ints(axes)], out, keepdims=int(keepdims))
        return self.op(op_type, [x], out, axes=list(axes), keepdims=int(keepdims))


# -------------------------------------------------------------------- recording
class Tracer:
    """The exporter's recorder: Function.apply hands it every primitive of the exporting
    thread (see ember/_modes.py); it runs each one and records the live ones."""

    def __init__(self, graph: Graph, symbolics: dict):
        self.graph = graph
        self.symbolics = symbolics    # Function class -> symbolic function

    def wants(self) -> bool:
        """Trace only outermost applies: not the ones a traced primitive makes itself."""
        return not self.graph.depth

    def writer(self, cls):
        """What writes the nodes of a live `cls` call: writer(graph, out, *args, **kwargs),
        the class's symbolic function (an error naming the op when it has none)."""
        symbolic = self.symbolics.get(cls)
        if symbolic is None:
            raise NotImplementedError(
                f"ember.onnx.export: operator '{op_name(cls)}' has no ONNX mapping")
        return symbolic

    def record_op(self, cls, args, kwargs):
        graph = self.graph
        write = self.writer(cls) if graph.any_live(args, kwargs) else None
        graph.depth += 1
        try:
            out = cls.apply(*args, **kwargs)
        finally:
            graph.depth -= 1
        if write is not None:
            write(graph, out, *args, **kwargs)
        return out

    def record_call(self, fn, args, kwargs):
        """A composite op's call (see ember/_recorded_call.py): recorded as one op when
        its symbolic (keyed by fn) accepts these arguments, else traced primitive by
        primitive."""
        graph = self.graph
        symbolic = self.symbolics.get(fn)
        if graph.depth or symbolic is None or not graph.any_live(args, kwargs) or \
                not symbolic.accepts(*args, **kwargs):
            return fn.__wrapped__(*args, **kwargs)
        graph.depth += 1
        try:
            out = fn.__wrapped__(*args, **kwargs)
        finally:
            graph.depth -= 1
        symbolic(graph, out, *args, **kwargs)
        return out

    def record_python_value(self, op: str, kind: str, tensors: tuple) -> None:
        """A live tensor's values leave the graph as a Python value: warn, as torch's
        tracer does, that the trace holds it as a constant."""
        if kind not in ("text", "size") and any(self.graph.is_live(t) for t in tensors):
            from ..jit import TracerWarning
            warnings.warn(f"Converting a tensor to a Python {kind} ({op}) might cause the "
                          "trace to be incorrect: the value is not computed by the exported "
                          "graph but recorded as a constant, so the graph might not "
                          "generalize to other inputs!", TracerWarning, stacklevel=4)

    def record_inplace(self, tensor: Tensor, result: Tensor) -> None:
        """`tensor` now holds `result`'s values (an in-place op wrote them into it)."""
        if self.graph.is_live(result) and not self.graph.depth:
            self.graph.alias(tensor, result)


def op_name(cls) -> str:
    """The name of a Function's op in messages: ember's own primitives by the op's lower
    case name, as torch names aten ops ('Cumsum' -> 'cumsum', 'LogicalNot' ->
    'logical_not'); user Functions by their class name."""
    name = cls.__qualname__.rsplit(".", 1)[-1]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower() if cls._is_primitive else name


@contextlib.contextmanager
def tracing(tracer: Tracer):
    """Make `tracer` this thread's recorder for the duration of the block."""
    modes = own_modes()
    previous = modes.recorder
    modes.recorder = tracer
    try:
        yield tracer.graph
    finally:
        modes.recorder = previous


@contextlib.contextmanager
def module_scopes(graph: Graph, model):
    """Name nodes after the submodule that creates them (torch's '/layer1/conv1/Conv')."""
    handles = []
    named = model.named_modules() if hasattr(model, "named_modules") else ()
    for qualname, module in named:
        if not qualname:
            continue
        handles.append(module.register_forward_pre_hook(
            lambda m, args, q=qualname: graph.scope.append(q)))
        handles.append(module.register_forward_hook(
            lambda m, args, out: graph.scope.pop() and None))
    try:
        yield
    finally:
        for h in handles:
            h.remove()
