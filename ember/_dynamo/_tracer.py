"""The recorder that captures one call of a compiled function as a plan.

While a call is traced it runs eagerly, as it would without compile; the tracer sits in
the thread's mode state (`ModeState.recorder`, the seam the profiler and the ONNX
exporter use) and writes down, as lines of Python, everything that computes or changes
tensor data:

- each primitive op (`Function.apply`): a call of its forward on the arrays, with a fresh
  ctx. Backward passes run inside the call are recorded the same way, since ember's
  backward functions are themselves primitives;
- the factories (zeros, randn ...), so that a replay makes new arrays and draws new
  random numbers as eager code does;
- in-place writes, the snapshots in-place ops take, and the accumulation of gradients
  into `.grad`;
- calls that change Python state rather than compute (an optimizer's step, zero_grad, a
  scheduler's step, batch norm's running statistics), replayed whole (`replayed_call`).

Arrays are named by identity: each array an op produced gets a name (`a7`); an array
first met as the data of an existing tensor (a parameter, a buffer, a tensor from outside
the call) is read from that tensor when the plan starts; one a node kept in its ctx (a
mask, saved statistics) is read from the replayed op's ctx. Anything the plan cannot
replay faithfully ends the trace with a reason (a graph break): tensor values leaving as
Python values, hooks, module attributes the call changed, outside autograd history.
"""
from __future__ import annotations

import contextlib
import functools
import random
import sys
from collections.abc import Iterator

import numpy as np

from .._modes import own as own_modes
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.graph import SavedTensor
from ._fusion import describe
from ._optimizer_settings import OptimizerSettings
from ._plan import Plan

# ctx attributes the autograd machinery sets: never arrays an op's backward reads.
_NODE_FIELDS = frozenset({"_edges", "_input_meta", "needs_input_grad", "_saved", "_raw_saved",
                          "_non_differentiable", "_outputs_saved", "_output_meta", "_dirty",
                          "_anomaly_trace", "materialize_grads"})


def _host_random_states() -> tuple:
    """The states of Python's random module and of NumPy's global generator."""
    kind, key, *position = np.random.get_state()
    return random.getstate(), (kind, key.tobytes(), *position)


class GraphBreak(Exception):
    """Raised inside a traced call when the plan cannot follow it (fullgraph=True)."""


class Tracer:
    """Records one call (see the module docstring); `plan()` gives the result."""

    records_factories = True    # factories run as ops under this recorder (see `recorded`)

    def __init__(self, fullgraph: bool = False, captures_scalars: bool = False):
        self.fullgraph = fullgraph
        self.captures_scalars = captures_scalars
        self.break_reason = None        # why the call cannot be replayed, if it cannot
        self.break_captured = False     # the break is a value torch would have captured
        self.break_stack = None         # the user's source line of the break
        self.break_lines = {}           # code object -> its line, for the frames of the break
        self.backward_ran = False       # a backward pass reached leaves inside the call
        self.modules = {}               # id -> (module, its state when first called)
        self.op_names = []              # the recorded ops, for explain()
        self._plan = Plan()
        self._names = {}                # id(array) -> the plan's name of that array
        self._in_ctx = {}               # id(array) -> expression reading it from a ctx
        self._live = set()              # names of arrays read from existing tensors
        self._keep = []                 # everything traced stays alive: ids stay unique
        self._inputs = {}               # id(input tensor) -> its position
        self._input_tensors = []
        self._live_tensors = {}         # name -> the existing tensor the plan reads it from
        self._backward = None           # what build needs of a backward traced after the call
        self._unknown = []              # (tensor, op name): tensors no recorded op made
        self._reading = None            # the op whose arguments are being named
        self._claimed = False
        self._optimizers = OptimizerSettings(())    # of the optimizers the call reaches
        self.stores = []                # (module, attribute name): tensors the call kept

    # -- start and end --------------------------------------------------------------
    def start(self, objects) -> None:
        """Note the settings of the optimizers among `objects` (what the function refers
        to, its arguments) before the call (_optimizer_settings.py)."""
        self._optimizers = OptimizerSettings(objects)
        self._host_random = _host_random_states()

    def _check_host_random(self) -> None:
        """A plan replays ember's random ops, not Python code that draws from Python's or
        NumPy's global generators (`for _ in range(random.randint(0, 3))` in forward): a
        call that drew from them runs eagerly (torch breaks the graph there too)."""
        python_state, numpy_state = _host_random_states()
        for name, before, after in [("Python's random module", self._host_random[0],
                                     python_state),
                                    ("NumPy's global random generator", self._host_random[1],
                                     numpy_state)]:
            if after != before:
                self.graph_break(f"the call drew numbers from {name}, which a plan would "
                                 "not draw again")

    def _check_optimizer_settings(self) -> None:
        if self._optimizers.changed():
            self.graph_break("the call changed an optimizer's settings (param_groups) in "
                             "Python code, which a plan would not repeat")

    def add_input(self, tensor: Tensor) -> None:
        self._inputs[id(tensor)] = len(self._inputs)
        self._input_tensors.append(tensor)
        self._keep.append(tensor)
        self._name(tensor._data, self._plan.add_input())

    @contextlib.contextmanager
    def installed(self):
        """Record this thread's ops for the duration of the block."""
        modes = own_modes()
        previous, modes.recorder = modes.recorder, self
        try:
            yield self
        finally:
            modes.recorder = previous

    @contextlib.contextmanager
    def _suspended(self):
        """Run a block the plan replays as a whole (or not at all) untraced."""
        modes = own_modes()
        previous, modes.recorder = modes.recorder, None
        try:
            yield
        finally:
            modes.recorder = previous

    def finish(self, result, fn=None):
        """The plan of the traced call of `fn` whose return value is `result`, or None when
        the call broke the graph (see `break_reason`)."""
        self._check_optimizer_settings()
        self._check_host_random()
        if self.break_reason is None:
            self._check_unknown_tensors(fn)
        if self.break_reason is None:
            self._find_stores()
        if self.break_reason is None:
            result = self._with_stored(result)
            outputs = self._outputs(result)
            if self.break_reason is None:
                self._check_made_outside(result, fn)
            if self.break_reason is None:
                return self._plan.build(outputs, self.op_names, self._backward)
        return None

    def _find_stores(self) -> None:
        """The tensors the call kept on its modules' attributes (`self.last_loss = loss`,
        as karpathy/llama2.c's model does): a replay sets them again, from its own
        results. Any other change to a module is Python state a plan would not repeat."""
        self.stores = []
        for module, state in self.modules.values():
            changed = state.changed_attributes(module)
            if changed is None or any(not self._made_here(getattr(module, name))
                                      for name in changed):
                self.graph_break(f"the call changed attributes of {type(module).__name__} "
                                 "(compile replays tensor operations, not Python state)")
                return
            self.stores += [(module, name) for name in changed]

    def _made_here(self, value) -> bool:
        """Whether `value` is a tensor a recorded op of this call made."""
        if not isinstance(value, Tensor) or id(value) in self._inputs:
            return False
        name = self._names.get(id(value._data))
        return name is not None and name not in self._live

    def _with_stored(self, result):
        """The call's result, and the tensors it stored on modules, when it stored some:
        the plan returns both (and they get their backward traced alike)."""
        if not self.stores:
            return result
        return (result, tuple(getattr(module, name) for module, name in self.stores))

    def _check_made_outside(self, result, fn) -> None:
        """A returned tensor no recorded op made must have existed before the call (a
        parameter, a tensor the function holds): one made inside it by code outside the op
        layer would be returned again, with its first value, by every replay."""
        fresh = [t for t in _tensors_in(result) if id(t) not in self._inputs and
                 self._names.get(id(t._data)) in (None, *self._live)]
        if fresh and any(id(t) not in _tensors_held(fn, [m for m, _ in self.modules.values()])
                         for t in fresh):
            self.graph_break("the call returns a tensor made by code outside the ops compile "
                             "records")

    def trace_backward(self, result) -> None:
        """Results that need their autograd graph after the call: trace their backward now
        (see `_aot.py`), from one gradient input per such result to the gradients of the
        call's inputs and of the existing tensors it read that require grad. The eager
        graph the user gets from this call is kept (retain_graph)."""
        if self.break_reason is None:
            self._find_stores()
        if self.break_reason is not None:
            return
        outputs = [t for t in _tensors_in(self._with_stored(result))
                   if t._grad_fn is not None and id(t) not in self._inputs]
        if self.backward_ran or not outputs:
            return
        targets = [t for t in self._input_tensors if t._requires_grad]
        targets += [t for t in self._live_tensors.values()
                    if t._requires_grad and all(t is not u for u in targets)]
        if not targets:
            self.graph_break("the results need gradients only of tensors made in the call")
            return
        for t in targets:
            node = t._grad_fn if t._grad_fn is not None else t._accumulator
            if node is not None and _hooked(node):
                self.graph_break("a hook on a gradient the call's backward computes")
                return
        from ..autograd import engine
        start = len(self._plan.lines)
        gradient_inputs, seeds = [], []
        for out in outputs:
            seeds.append(Tensor._wrap(np.ones_like(out._data)))
            gradient_inputs.append(self._plan.add_gradient_input())
            self._name(seeds[-1]._data, gradient_inputs[-1])
        # The backward of this call alone: it stops at the inputs (their history, even
        # through a parameter the call reads, is the engine's to walk after the replay).
        edges = [t._edge() for t in targets]
        boundary = frozenset(t._grad_fn for t in self._input_tensors if t._grad_fn is not None)
        captured = engine.run_backward([t._edge() for t in outputs], seeds, True, False,
                                       capture=edges, accumulate=False, boundary=boundary)
        found = [captured.get(edge) for edge in edges]
        gradients = []
        for g in found:
            name = None if g is None else self._names.get(id(g._data))
            if g is not None and (name is None or name in self._live):
                self.graph_break("a gradient computed outside the ops compile records")
                return
            gradients.append(name)
        self._backward = (start, gradient_inputs, gradients,
                          [self._names.get(id(t._data)) for t in outputs],
                          [self._inputs[id(t)] if id(t) in self._inputs else t for t in targets])

    def _check_unknown_tensors(self, fn) -> None:
        """Tensors the plan reads as they are must exist outside the call (parameters,
        buffers, tensors the function or its modules hold): one made inside the call by
        code outside the op layer would be frozen into the plan. Arrays of one repeated
        value (a gradient of ones, zeros to scatter into) are constants and pass."""
        if not self._unknown:
            return
        known = _tensors_held(fn, [m for m, _ in self.modules.values()])
        for tensor, reader in self._unknown:
            data = tensor._data
            if id(tensor) in known or data.size == 0 or bool((data == data.flat[0]).all()):
                continue
            self.graph_break(f"{reader} reads a tensor of shape {tuple(data.shape)} made inside "
                             "the call by code compile does not record")
            return

    def _outputs(self, value):
        """The plan's description of the returned value: tensors as array names."""
        if isinstance(value, Tensor):
            if id(value) in self._inputs:       # an argument returned as it is
                return ("input", self._inputs[id(value)])
            if value._grad_fn is not None and self._backward is None and not self.backward_ran:
                self.graph_break("the result requires grad, and its backward could not be "
                                 "traced")
                return None
            name = self._names.get(id(value._data))
            if name is None or name in self._live:
                return ("object", value)
            return ("array", name)
        if isinstance(value, (tuple, list)):
            parts = [self._outputs(v) for v in value]
            return ("sequence", type(value), parts)
        if isinstance(value, dict):
            return ("dict", type(value), {k: self._outputs(v) for k, v in value.items()})
        return ("object", value)

    # -- graph breaks -----------------------------------------------------------------
    def graph_break(self, reason: str, captured: bool = False) -> None:
        """End the plan here, for `reason`. A `captured` break is one torch keeps in its
        graph (see record_python_value): no error under fullgraph=True, and no warning."""
        if self.break_reason is not None:
            return
        self.break_reason = reason
        self.break_captured = captured
        self.break_stack = _user_line()
        frame = sys._getframe(1)
        while frame is not None:
            self.break_lines.setdefault(frame.f_code, frame.f_lineno)
            frame = frame.f_back
        modes = own_modes()
        if modes.recorder is self:      # the rest of the call runs untraced
            modes.recorder = None
        if self.fullgraph and not captured:
            raise GraphBreak(reason)

    def record_python_value(self, op: str, kind: str, tensors: tuple) -> None:
        if kind == "size":
            # torch breaks there too (capture_dynamic_output_shape_ops): a size the plan
            # kept could reach Python (len(), .shape, a view) and be frozen with it.
            self.graph_break(f"the size of {op}'s result depends on tensor values")
            return
        what = {"text": "printed"}.get(kind, f"converted to a Python {kind}")
        # torch keeps numbers (item(), float(t), bool(t)) and NumPy conversions in its graph
        # under fullgraph=True or capture_scalar_outputs; ember ends the plan there and
        # runs the rest eagerly (the same values), quietly, as torch says nothing.
        captured = self.captures_scalars and kind in ("number", "boolean", "NumPy array")
        self.graph_break(f"a tensor was {what} (Tensor.{op}): the rest of the call depends "
                         "on tensor values", captured)

    def record_write(self, tensor: Tensor) -> None:
        self.graph_break("a tensor was written outside the ops compile records "
                         "(Tensor._data_to_write)")

    def record_hook(self, what: str) -> None:
        self.graph_break(f"{what}: a hook registered inside the call")

    def record_module_call(self, module) -> None:
        if id(module) not in self.modules:
            if _has_hooks(module):
                self.graph_break(f"{type(module).__name__} has forward or backward hooks")
                return
            self.modules[id(module)] = (module, module_state(module))

    # -- ops --------------------------------------------------------------------------
    def wants(self) -> bool:
        if self._claimed:               # the apply that record_op itself makes
            self._claimed = False
            return False
        return True

    def record_op(self, cls, args, kwargs):
        self._reading = cls.backward_name
        if not cls._arrays_in:
            return self._record_tensor_op(cls, args, kwargs)
        sources = [self._source(a) for a in args]
        self._check_kwargs(cls, kwargs)
        self._claimed = True
        result = cls.apply(*args, **kwargs)
        if self.break_reason is not None:
            return result
        outs = result if isinstance(result, tuple) else (result,)
        ctx = None
        for o in outs:
            if isinstance(o, Tensor) and type(o._grad_fn) is cls:
                ctx = o._grad_fn
                break
        ctx_name = self._plan.add_op(cls, sources, kwargs, ctx, self._out_names(result),
                                     describe(cls, args, kwargs, result))
        if ctx is not None:
            self._name(ctx, ctx_name)   # backward ops may take the node itself
            self._note_ctx_arrays(ctx, ctx_name)
        self.op_names.append(cls.backward_name)
        return result

    def _record_tensor_op(self, cls, args, kwargs):
        """An op whose forward runs ember code on the Tensors themselves (factories,
        ops without gradient, checkpointing, user Functions): replayed through apply, its
        own ops untraced."""
        sources = [self._source(a, as_tensor=True) for a in args]
        self._check_kwargs(cls, kwargs)
        with self._suspended():
            result = cls.apply(*args, **kwargs)
        if self.break_reason is not None:
            return result
        outs = result if isinstance(result, tuple) else (result,)
        if not cls._is_primitive and any(isinstance(o, Tensor) and o._grad_fn is not None
                                         for o in outs):
            self.graph_break(f"custom autograd.Function {cls.__qualname__} with a graph: its "
                             "backward is user code compile does not trace")
            return result
        self._plan.add_tensor_op(cls, sources, kwargs, self._out_names(result))
        self.op_names.append(cls.backward_name)
        return result

    def _check_kwargs(self, cls, kwargs) -> None:
        if any(isinstance(v, Tensor) for v in kwargs.values()):
            self.graph_break(f"{cls.__qualname__} got a tensor as a keyword argument")

    def _out_names(self, result):
        """Name each output array (a Tensor's, or an array); None for other outputs."""
        outs = result if isinstance(result, tuple) else (result,)
        names = []
        for o in outs:
            array = o._data if isinstance(o, Tensor) else o
            if isinstance(array, np.ndarray):
                names.append((self._plan.new_name(), array.ndim == 0))
                self._name(array, names[-1][0])
            else:
                names.append(None)
        return names if isinstance(result, tuple) else names[0]

    def record_inplace(self, tensor: Tensor, result: Tensor) -> None:
        self._plan.add_copy(self._array(tensor._data, tensor), self._array(result._data, result))

    def record_snapshot(self, snapshot: Tensor, tensor: Tensor) -> None:
        source = self._array(tensor._data, tensor)
        self._name(snapshot._data, self._plan.add_snapshot(source))

    def record_accumulate(self, node, grad: Tensor, create_graph: bool) -> None:
        var = node.variable
        if grad.is_sparse or var.is_sparse:
            self.graph_break("a sparse gradient (compile replays dense arrays only)")
        elif _hooked(node):
            self.graph_break("a hook on a leaf's gradient")
        elif create_graph:
            self.graph_break("backward(create_graph=True) accumulating into .grad")
        grad_name = self._array(grad._data, grad)
        with self._suspended():
            node.accumulate(grad, create_graph)
        if self.break_reason is None:
            self.backward_ran = True
            kept = var._grad._data is grad._data
            self._name(var._grad._data, self._plan.add_accumulate(
                self._object(var), grad_name, kept))

    def record_replayed_call(self, fn, args, kwargs):
        self._reading = getattr(fn, "__qualname__", repr(fn))
        # A generator argument (model.parameters()) would be spent at the first replay.
        args = tuple(list(a) if isinstance(a, Iterator) else a for a in args)
        arg_sources = [self._call_source(a) for a in args]
        kwarg_sources = {k: self._call_source(v) for k, v in kwargs.items()}
        self._check_optimizer_settings()
        with self._suspended():
            result = fn(*args, **kwargs)
        self._optimizers.seen()             # what a replayed call changes, replays change
        if self.break_reason is None:
            outs = result if isinstance(result, tuple) else (result,)
            arrays = [isinstance(o, (Tensor, np.ndarray)) for o in outs]
            if any(arrays) and not all(a or o is None for a, o in zip(arrays, outs)):
                self.graph_break(f"{getattr(fn, '__qualname__', fn)} returned arrays "
                                 "mixed with other values")
                return result
            out_names = self._out_names(result) if any(arrays) else None
            self._plan.add_call(fn, arg_sources, kwarg_sources, out_names)
            self.op_names.append(getattr(fn, "__qualname__", repr(fn)))
        return result

    # -- naming arrays ----------------------------------------------------------------
    def _name(self, array, name: str) -> None:
        self._names[id(array)] = name
        self._keep.append(array)

    def _array(self, array: np.ndarray, tensor: Tensor | None):
        """The plan's name of `array` (the data of `tensor`, if given)."""
        name = self._names.get(id(array))
        if name is not None:
            return name
        expression = self._in_ctx.get(id(array))
        if expression is not None:
            name = self._plan.add_read(expression)
        elif tensor is None:
            return None
        else:
            if tensor._grad_fn is not None:
                self.graph_break("a tensor with autograd history from outside the call "
                                 "(compile replays its own graph only)")
            name = self._plan.add_live(tensor)
            self._live.add(name)
            self._live_tensors[name] = tensor
            self._unknown.append((tensor, self._reading))
        self._name(array, name)
        return name

    def _source(self, value, as_tensor: bool = False):
        """How a replayed op gets argument `value`: ("array", name), ("tensor", name) for an
        array wrapped as a Tensor, or ("const", value)."""
        if isinstance(value, Tensor):
            if value.is_sparse:
                self.graph_break("a sparse tensor (compile replays dense arrays only)")
                return ("const", value)
            name = self._array(value._data, value)
            if name in self._live and as_tensor:
                return ("const", value)     # the existing tensor itself
            return ("tensor" if as_tensor else "array", name)
        if isinstance(value, (np.ndarray, np.generic, Function)):
            name = self._array(value, None)
            if name is None and self._viewed_in_call(value):
                self.graph_break(f"{self._reading} got a NumPy view of an array the call "
                                 "computed, made outside the ops compile records")
            return ("const", value) if name is None else ("array", name)
        if type(value) in (tuple, list):
            if any(isinstance(v, Tensor) for v in value):
                self.graph_break("a list of tensors passed to a primitive")
            parts = [self._source(v) for v in value]
            if any(kind != "const" for kind, _ in parts):   # holds arrays the plan makes
                return ("sequence", (type(value), parts))
        return ("const", value)

    def _viewed_in_call(self, array) -> bool:
        """Whether an array no op made views one the plan names (its values would be
        frozen into the plan, though each call computes them)."""
        base = getattr(array, "base", None)
        while isinstance(base, np.ndarray):
            if id(base) in self._names or id(base) in self._in_ctx:
                return True
            base = base.base
        return False

    def _call_source(self, value):
        """Arguments of replayed calls: tensors computed in the call as new Tensors on the
        replayed arrays, existing tensors and other objects as themselves, arrays (and
        tuples of them) as for ops."""
        if isinstance(value, Tensor):
            name = self._names.get(id(value._data))
            if id(value) in self._inputs or name is None or name in self._live:
                return self._object(value)
            return ("tensor", name)
        if isinstance(value, (np.ndarray, np.generic, tuple)):
            return self._source(value)
        return ("const", value)

    def _object(self, tensor: Tensor):
        """A tensor object itself: the call's input at its position, or the object."""
        position = self._inputs.get(id(tensor))
        return ("const", tensor) if position is None else ("input", position)

    def _note_ctx_arrays(self, ctx, ctx_name: str) -> None:
        """Arrays a recorded node keeps beyond its inputs and outputs (constants it saved,
        masks, statistics): readable from the replayed ctx if a later op uses them."""
        for j, saved in enumerate(ctx._saved or ()):
            if isinstance(saved, SavedTensor) and saved.tensor is not None:
                self._note(saved.tensor._data, f"{ctx_name}._raw_saved[{j}]")
        for field, value in vars(ctx).items():
            if field in _NODE_FIELDS:
                continue
            if isinstance(value, (np.ndarray, np.generic)):
                self._note(value, f"{ctx_name}.{field}")
            elif isinstance(value, (tuple, list)):
                for i, v in enumerate(value):
                    if isinstance(v, (np.ndarray, np.generic)):
                        self._note(v, f"{ctx_name}.{field}[{i}]")

    def _note(self, array: np.ndarray, expression: str) -> None:
        if id(array) not in self._names and id(array) not in self._in_ctx:
            self._in_ctx[id(array)] = expression
            self._keep.append(array)


def module_state(module, stored: tuple = ()) -> "ModuleState":
    """What a trace depends on in a module (see ModuleState)."""
    return ModuleState(module, stored)


class ModuleState:
    """A module as a plan depends on it at one moment: which objects its attributes and its
    dicts (parameters, buffers, submodules, hooks) hold, compared by identity, and each
    parameter's and buffer's requires_grad, shape and dtype. Identity makes the guard a
    few C-level tuple comparisons per module; an attribute reassigned to a new object of
    equal value counts as a change (the call traces again). The state keeps the objects it
    saw alive, so that no other object can take one of their ids meanwhile.

    `stored` names the attributes the plan itself sets (a tensor the call keeps on the
    module, `self.last_loss = loss`): they must be there, holding anything.

    `matches(module)`, run by every compiled call for every module it went through, checks
    the cheapest and likeliest changes first: attribute objects and names, the dicts' sizes,
    then what the non-empty dicts hold, then the tensors' metadata."""

    __slots__ = ("names", "ids", "dicts", "sizes", "filled", "tensors", "stored", "_held")

    def __init__(self, module, stored: tuple = ()):
        attrs = vars(module)
        values = tuple(attrs.values())
        self.stored = tuple(name in stored for name in attrs) if stored else None
        self.names, self.ids = tuple(attrs), self._ids(values)
        # the dict attributes (same objects while `ids` match) and their sizes
        self.dicts = tuple(v for v in values if isinstance(v, dict))
        self.sizes = tuple(map(len, self.dicts))
        self.filled = tuple((d, tuple(d), tuple(map(id, d.values()))) for d in self.dicts if d)
        self.tensors = _tensor_metadata(module)
        self._held = (values, tuple(v for d in self.dicts for v in d.values()))

    def _ids(self, values: tuple) -> tuple:
        if self.stored is None:
            return tuple(map(id, values))
        return tuple(0 if stored else id(v) for v, stored in zip(values, self.stored))

    def matches(self, module) -> bool:
        """Whether `module` is still in this state."""
        attrs = vars(module)
        if tuple(attrs) != self.names or self._ids(tuple(attrs.values())) != self.ids or \
                tuple(map(len, self.dicts)) != self.sizes:
            return False
        for d, keys, ids in self.filled:
            if tuple(d) != keys or tuple(map(id, d.values())) != ids:
                return False
        return _tensor_metadata(module) == self.tensors

    def changed_attributes(self, module) -> list | None:
        """The names of the plain attributes that `module` now holds other objects in (or
        that it has gained), when nothing else changed; None if something else did."""
        attrs = vars(module)
        if tuple(map(len, self.dicts)) != self.sizes or any(
                tuple(d) != keys or tuple(map(id, d.values())) != ids
                for d, keys, ids in self.filled) or _tensor_metadata(module) != self.tensors:
            return None
        before = dict(zip(self.names, self.ids))
        if any(name not in attrs for name in before):
            return None
        return [name for name, value in attrs.items() if before.get(name) != id(value)]

    def __eq__(self, other) -> bool:
        """Two states of the same objects (two traces of one signature)."""
        return isinstance(other, ModuleState) and self._key() == other._key()

    __hash__ = None

    def _key(self) -> tuple:
        return (self.names, self.ids, self.sizes,
                tuple((keys, ids) for _, keys, ids in self.filled), self.tensors)


def _tensor_metadata(module) -> tuple:
    return tuple((t._requires_grad, t._data.shape, t._data.dtype)
                 for t in (*module._parameters.values(), *module._buffers.values())
                 if t is not None)


def _tensors_held(fn, modules) -> set:
    """ids of the tensors that exist outside a call of fn: held by the modules it went
    through (parameters with their grads, buffers, tensor attributes) and by fn itself
    (see `referenced_objects`)."""
    found = set()
    for obj in list(modules) + referenced_objects(fn):
        if isinstance(obj, Tensor):
            found.add(id(obj))
        elif hasattr(obj, "modules") and hasattr(obj, "_parameters"):
            for module in obj.modules():
                for value in list(vars(module).values()) + list(module._parameters.values()) + \
                        list(module._buffers.values()):
                    if isinstance(value, Tensor):
                        found.add(id(value))
                        if value._grad is not None:
                            found.add(id(value._grad))
    return found


def referenced_objects(fn) -> list:
    """The objects a function refers to without making them: its closure's contents, the
    globals it names, a bound method's object, a partial's arguments."""
    objects = []
    pending = [fn]
    while pending:
        f = pending.pop()
        if f is None:
            continue
        if isinstance(f, functools.partial):
            pending.append(f.func)
            objects += list(f.args) + list(f.keywords.values())
            continue
        objects.append(getattr(f, "__self__", None))
        code = getattr(f, "__code__", None)
        if code is not None:
            objects += [c.cell_contents for c in (f.__closure__ or ()) if _filled(c)]
            globals_ = getattr(f, "__globals__", {})
            objects += [globals_[n] for n in code.co_names if n in globals_]
    return objects


def _tensors_in(value) -> list:
    """The tensors of a returned value, in the order `_outputs` describes them."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors_in(v)]
    return []


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:      # a free variable not bound yet
        return False
    return True


def global_module_hooks() -> bool:
    """Whether hooks registered for every module (register_module_forward_hook ...) exist."""
    from ..nn.modules import module as m
    return bool(m._global_forward_hooks or m._global_forward_pre_hooks or
                m._global_backward_hooks or m._global_backward_pre_hooks)


def _hooked(node) -> bool:
    """Whether a graph node has hooks (on itself or on the gradients of its outputs)."""
    return bool(node._pre_hooks or node._post_hooks or node._tensor_hooks)


def _has_hooks(module) -> bool:
    return bool(module._forward_hooks or module._forward_pre_hooks or module._backward_hooks
                or module._backward_pre_hooks or global_module_hooks())


def _user_line() -> str | None:
    """file:line of the innermost frame outside ember (where the user's code broke)."""
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame = sys._getframe(1)
    while frame is not None:
        if not os.path.abspath(frame.f_code.co_filename).startswith(root):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return None
