"""Tracing: run the model once while ember's public ops record ONNX nodes.

During export, every public op (`ember.add`, `F.conv2d`, `Tensor.view`, the Python
operators ...) is temporarily replaced, wherever ember's modules and the model's own
modules refer to it, by a shim. The shim runs the real op and, when one of its tensor
arguments is *live* (computed from the graph inputs), hands the op's arguments and result
to the op's symbolic function (see _symbolic.py), which appends ONNX nodes to a `Graph`.

Ops called from inside a recorded op are not recorded again (`Graph.depth`), so
`F.silu` is one recording even if ember builds it from smaller ops. Anything that reaches
`Function.apply` with a live argument outside a recorded op has no mapping and stops the
export with an error naming it, rather than being silently frozen into a constant.

The tracing side needs no `onnx` import: nodes are plain tuples and initializers are
NumPy arrays; _export.py turns them into protobufs.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import sys
from types import SimpleNamespace

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function

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
        self._alive = []              # every named tensor, so that its id stays unique
        self._param_names = param_names    # id(parameter or buffer) -> state_dict name
        self._node_names = set()
        self._live_params = set()
        self.packed = {}              # id(PackedSequence.data) -> (padded input, lengths)
        if params_live:     # no constant folding: ops on parameters are recorded too
            self._names.update(param_names)
            self._live_params = set(param_names.values())

    # ---------------------------------------------------------------- values
    def is_live(self, t) -> bool:
        return isinstance(t, Tensor) and id(t) in self._names

    def any_live(self, args: tuple, kwargs: dict) -> bool:
        for a in (*args, *kwargs.values()):
            if isinstance(a, (list, tuple)):
                if any(id(t) in self._names for t in a if isinstance(t, Tensor)):
                    return True
            elif isinstance(a, Tensor) and id(a) in self._names:
                return True
        return False

    def bind(self, t: Tensor, name: str) -> None:
        """Make `name` the ONNX value of tensor t (also after t is modified in place)."""
        self._names[id(t)] = name
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
                self.initializers[name] = value._data
            if name is not None:
                if dtype is not None and value._data.dtype != np.dtype(dtype):
                    return self.op("Cast", [name], to=onnx_type(dtype))
                return name
            param = self._param_names.get(id(value))
            if param is not None and (dtype is None or value._data.dtype == np.dtype(dtype)):
                self.initializers.setdefault(param, value._data)
                return param
            array = value._data
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


# -------------------------------------------------------------------- patching
def _shim(graph: Graph, public_name: str, original, handler, signature):
    """Wrap `original` so that calls on live tensors record `handler`'s nodes."""

    @functools.wraps(original)
    def recording(*args, **kwargs):
        if graph.depth or not graph.any_live(args, kwargs):
            return original(*args, **kwargs)
        if handler is None:
            raise NotImplementedError(
                f"ember.onnx.export: operator '{public_name}' has no ONNX mapping")
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        graph.depth += 1
        try:
            out = original(*args, **kwargs)
        finally:
            graph.depth -= 1
        handler(graph, SimpleNamespace(**bound.arguments), out)
        return out

    return recording


def _unmapped_apply(graph: Graph, original_apply):
    """Function.apply that refuses primitives reached with live inputs outside any recorded
    op (an op ember builds without going through a public function the tracer knows)."""

    def apply(cls, *args, **kwargs):
        if not graph.depth and graph.any_live(args, kwargs):
            name = cls.__qualname__.rsplit(".", 1)[-1]
            raise NotImplementedError(
                f"ember.onnx.export: operator '{name}' has no ONNX mapping")
        return original_apply.__func__(cls, *args, **kwargs)

    return classmethod(apply)


def _owners(extra_modules) -> list:
    """Where ops are referenced: ember's modules and the classes they define (layers keep
    their function as a class attribute), the Tensor class, and the model's modules."""
    modules = [m for n, m in list(sys.modules.items())
               if (n == "ember" or n.startswith("ember.")) and not n.startswith("ember.onnx")]
    modules += [m for m in extra_modules if m is not None and m not in modules]
    classes = [v for m in modules for v in list(vars(m).values())
               if isinstance(v, type) and v.__module__ == m.__name__]
    return list({id(o): o for o in [*modules, *classes, Tensor]}.values())


@contextlib.contextmanager
def recording(graph: Graph, table: dict, operators: dict, extra_modules=()):
    """Patch every reference to the ops in `table` (original function -> (public name,
    handler, signature source)) inside ember's modules, the Tensor class and
    `extra_modules`, and set Tensor's `operators`; restore everything on exit."""
    shims = {id(fn): _shim(graph, name, fn, handler, inspect.signature(sig_fn))
             for fn, (name, handler, sig_fn) in table.items()}
    saved = []
    try:
        for owner in _owners(extra_modules):
            for attr, value in list(vars(owner).items()):
                plain = value.__func__ if isinstance(value, staticmethod) else value
                shim = shims.get(id(plain))
                if shim is not None:
                    saved.append((owner, attr, value))
                    setattr(owner, attr, staticmethod(shim) if plain is not value else shim)
        for attr, method in operators.items():
            saved.append((Tensor, attr, vars(Tensor)[attr]))
            setattr(Tensor, attr, method)
        saved.append((Function, "apply", vars(Function)["apply"]))
        Function.apply = _unmapped_apply(graph, vars(Function)["apply"])
        yield graph
    finally:
        for owner, attr, value in reversed(saved):
            setattr(owner, attr, value)


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
