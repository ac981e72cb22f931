"""A traced call as straight-line Python: the plan compile replays.

The tracer (`_tracer.py`) adds one statement per recorded event; `build` turns them into
a function of the input arrays that returns the output arrays:

    def plan(T, a0, a1):            # T: the input tensors, a0, a1: their arrays
        a2 = L0._data                                       # a parameter, read at the start
        c3 = new(_LinearFn); c3.needs_input_grad = K0
        a4 = _LinearFn.forward(c3, a0, a2, a5)              # aten::linear
        # (one statement per recorded event)
        return (a9,)

Each op is its primitive's forward on arrays with a fresh ctx: no Tensor objects, no graph,
no grad-mode or version bookkeeping. Names the statements use (classes, constants, the
existing tensors read at the start, the calls replayed whole) live in the function's
namespace; `source` is what `ember.compiler.explain` and `compiled.plan_source()` print.
"""
from __future__ import annotations

import keyword
import re
import sys
import types

import numpy as np

from .._cpu import buffers
from .._memory_format import copy_with_layout, follows_layout, grad_layout_for
from .._tensor import Tensor
from ._aot import replay
from ._fusion import ARRAY_OR_CTX, Pointwise, code, fuse, fusing


def accumulate(var: Tensor, grad: np.ndarray, kept: bool, last_use: bool) -> np.ndarray:
    """Add `grad` into `var.grad` as the engine does (AccumulateGrad): the first gradient
    becomes .grad, later ones are added in place. A first gradient is kept as it is if the
    traced call kept it, or, as the engine decides, if nothing else holds it (the plan
    uses it no more, it owns its memory and it is in the leaf's layout); otherwise it is
    copied in the leaf's layout. Returns .grad's array."""
    if var._grad is None:
        layout = grad_layout_for(var._data)
        if kept or last_use and \
                sys.getrefcount(grad) <= _PLAN_REFERENCES + buffers.held(grad) and \
                grad.base is None and grad.flags.writeable and follows_layout(grad, layout):
            var._grad = Tensor._wrap(grad)
        else:
            var._grad = Tensor._wrap(copy_with_layout(grad, var._data, layout))
    else:
        var._grad._data += grad
    return var._grad._data


# References to a gradient array inside `accumulate` when only the plan's variable holds
# it: that variable, the argument, and getrefcount's own.
_PLAN_REFERENCES = 3


def array_of(value):
    """A call's result as the plan holds it: a Tensor's array, an array, or None."""
    return value._data if isinstance(value, Tensor) else value


_BUILTINS = {"new": object.__new__, "asarray": np.asarray, "copyto": np.copyto,
             "wrap": Tensor._wrap, "accumulate": accumulate, "array_of": array_of}


class Plan:
    """The statements of a traced call, and the names they use."""

    def __init__(self):
        self.inputs = []            # names of the input arrays, in argument order
        self.prologue = []          # arrays read from existing tensors when the plan starts
        self.lines = []
        self.namespace = dict(_BUILTINS)
        self._ids = {}              # id(object) -> its name in the namespace
        self._count = 0

    def new_name(self, prefix: str = "a") -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def add_input(self) -> str:
        name = self.new_name()
        self.inputs.append(name)
        return name

    def _global(self, value, hint: str) -> str:
        """A namespace name for `value` (one per object)."""
        name = self._ids.get(id(value))
        if name is None:
            base = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "K"
            if base[0].isdigit() or keyword.iskeyword(base):
                base = "_" + base
            name, n = base, 1
            while name in self.namespace:
                n += 1
                name = f"{base}_{n}"
            self.namespace[name] = value
            self._ids[id(value)] = name
        return name

    def _const(self, value) -> str:
        return repr(value) if _literal(value) else self._global(value, "K")

    def _args(self, sources) -> list[str]:
        out = []
        for kind, value in sources:
            if kind == "array":
                out.append(value)
            elif kind == "tensor":
                out.append(f"wrap({value})")
            elif kind == "input":
                out.append(f"T[{value}]")
            elif kind == "sequence":
                container, parts = value
                items = "".join(f"{p}, " for p in self._args(parts))
                out.append(f"({items})" if container is tuple else f"[{items}]")
            else:
                out.append(self._const(value))
        return out

    def _kwargs(self, kwargs: dict) -> list[str]:
        return [f"**{self._global(kwargs, 'KW')}"] if kwargs else []

    def _assign(self, call: str, outs, comment: str) -> None:
        """`outs`: one (name, zero_dim) pair or a list of them (None for non-tensors)."""
        if outs is None:
            self.lines.append(f"{call}  # {comment}")
        elif isinstance(outs, tuple):
            name, zero_dim = outs
            self.lines.append(f"{name} = {f'asarray({call})' if zero_dim else call}"
                              f"  # {comment}")
        else:   # unpacked at once: no tuple keeps the outputs alive past their last use
            names = [out[0] if out is not None else "_" for out in outs]
            self.lines.append(f"{', '.join(names)}, = {call}  # {comment}")
            self.lines += [f"{name} = asarray({name})" for name, zero_dim in
                           filter(None, outs) if zero_dim]

    def add_op(self, cls, sources, kwargs, ctx, outs, pointwise=None) -> str | None:
        """A primitive's forward on arrays; returns the name of its ctx if a recorded node
        (ctx) may be read later (its saved arrays). `pointwise`: the op's description for
        fusion (`_fusion.describe`), if it may be fused."""
        start = len(self.lines)
        klass = self._global(cls, cls.__qualname__)
        args = self._args(sources)
        ctx_name = None
        if ctx is None:
            call = f"{klass}.forward(new({klass}), {', '.join(args + self._kwargs(kwargs))})"
        else:
            ctx_name = self.new_name("c")
            needs = self._const(tuple(ctx.needs_input_grad))
            self.lines.append(f"{ctx_name} = new({klass}); "
                              f"{ctx_name}.needs_input_grad = {needs}")
            call = f"{klass}.forward({', '.join([ctx_name] + args + self._kwargs(kwargs))})"
        self._assign(call, outs, cls.backward_name)
        if pointwise is not None and all(kind in ("array", "const") for kind, _ in sources):
            rule, raw, shape, dtype = pointwise
            operands = [(kind, value, getattr(arg, "shape", None))
                        for (kind, value), arg in zip(sources, raw)]
            self.lines[start:] = [Pointwise(self.lines[start:], outs[0], ctx_name, operands,
                                            pointwise)]
        return ctx_name

    def add_tensor_op(self, cls, sources, kwargs, outs) -> None:
        """An op that runs on Tensors (factories, ops without gradient, user Functions):
        through apply, its result's arrays taken."""
        klass = self._global(cls, cls.__qualname__)
        call = f"{klass}.apply({', '.join(self._args(sources) + self._kwargs(kwargs))})"
        self._assign_tensors(call, outs, cls.backward_name)

    def _assign_tensors(self, call: str, outs, comment: str) -> None:
        """Assign the arrays of a call's Tensor (or array) result(s)."""
        if outs is None:
            self._assign(call, None, comment)
        elif isinstance(outs, tuple):
            self._assign(f"array_of({call})", outs, comment)
        else:
            self._assign(f"tuple(map(array_of, {call}))", outs, comment)

    def add_copy(self, target: str, source: str) -> None:
        self.lines.append(f"copyto({target}, {source}, casting='unsafe')  # in-place write")

    def add_snapshot(self, source: str) -> str:
        name = self.new_name()
        self.lines.append(f"{name} = {source}.copy()  # the value before an in-place op")
        return name

    def add_read(self, expression: str) -> str:
        name = self.new_name()
        self.lines.append(f"{name} = {expression}")
        return name

    def add_live(self, tensor: Tensor) -> str:
        name = self.new_name()
        self.prologue.append(f"{name} = {self._global(tensor, 'L')}._data")
        return name

    def add_accumulate(self, var_source, grad: str, kept: bool) -> str:
        name = self.new_name()
        var, = self._args([var_source])
        self.lines.append(_Accumulate(name, var, grad, kept))
        return name

    def add_call(self, fn, arg_sources, kwarg_sources, outs) -> None:
        """A call replayed whole; `outs` as for add_tensor_op (None: no tensor result)."""
        callee = self._global(fn, getattr(fn, "__qualname__", "call").replace(".", "_"))
        args = self._args(arg_sources) + [f"{k}={v}" for k, v in
                                          zip(kwarg_sources, self._args(kwarg_sources.values()))]
        self._assign_tensors(f"{callee}({', '.join(args)})", outs, "replayed whole")

    def add_gradient_input(self) -> str:
        """A gradient of a result, given to the plan's backward part (see `_aot.py`)."""
        return self.new_name("g")

    def build(self, outputs, op_names: list, backward=None) -> "BuiltPlan":
        """The plan as a function of the input arrays that returns the output arrays.
        `backward` (for a call whose backward was traced after it, `_aot.py`): (index of
        its first line, the results' gradient input names, the names of the gradients it
        finds (None: no gradient), the names of the outputs that take a gradient, and
        where each differentiated tensor comes from)."""
        returned = []
        _collect_arrays(outputs, returned)
        if backward is None:
            source = self._function("plan", ["T"] + self.inputs,
                                    self.prologue, self.lines, returned)
            return BuiltPlan(self._exec(source)["plan"], source, outputs, op_names)
        start, gradient_inputs, gradients, differentiable, targets = backward
        differentiable = [returned.index(name) for name in differentiable]
        forward_lines, backward_lines = self.lines[:start], self.lines[start:]
        defined_later = {name for line in backward_lines for name in _defines(line)}
        saved = list(dict.fromkeys(
            name for line in backward_lines for name in ARRAY_OR_CTX.findall(code(line))
            if name not in defined_later and name not in gradient_inputs))
        source = self._function("plan", ["T"] + self.inputs, self.prologue, forward_lines,
                                returned + saved) + "\n" + \
            self._function("backward", gradient_inputs + saved, [], backward_lines,
                           [g or "None" for g in gradients])
        namespace = self._exec(source)
        built = BuiltPlan(namespace["plan"], source, outputs, op_names)
        built.backward_function = namespace["backward"]
        built.output_count, built.differentiable = len(returned), differentiable
        built.saved_arrays = [name.startswith("a") for name in saved]
        built.targets = targets
        return built

    def _function(self, name: str, parameters: list, prologue: list, lines: list,
                  returned: list) -> str:
        """The source of one function of the plan: fused where it can be, each array
        deleted after its last use."""
        if fusing():
            lines = fuse(lines, set(returned), lambda kernel: self._global(kernel, "fused"))
        lines = [line for item in lines for line in
                 (item.lines if isinstance(item, Pointwise) else [item])]
        defined = set(parameters) | {line.split(" = ", 1)[0] for line in prologue} | \
            {name for line in lines for name in _defines(line)}
        body = prologue + _freeing(lines, defined - set(returned)) + \
            [f"return ({''.join(n + ', ' for n in returned)})"]
        return f"def {name}({', '.join(parameters)}):\n" + \
            "".join(f"    {line}\n" for line in body)

    def _exec(self, source: str) -> dict:
        namespace = dict(self.namespace)
        exec(compile(source, "<ember.compile plan>", "exec"), namespace)
        return namespace


_NAME = re.compile(r"\b[acg][0-9]+\b")       # arrays, ctxs and gradient inputs


class _Accumulate:
    """A gradient added into a leaf's .grad: its text depends on whether the plan uses
    the gradient after it (see `accumulate`), known once every line is written."""

    def __init__(self, name: str, var: str, grad: str, kept: bool):
        self.name, self.var, self.grad, self.kept = name, var, grad, kept

    def text(self, last_use: bool = False) -> str:
        return (f"{self.name} = accumulate({self.var}, {self.grad}, {self.kept}, "
                f"{last_use})  # into .grad")


def _freeing(lines: list, names: set) -> list[str]:
    """`lines` with each of `names` (arrays and ctxs) deleted after the last line that
    uses it, as eager code drops a temporary once no node holds it: memory is reused while
    the plan runs, instead of every intermediate array living until it returns."""
    last = {}
    for i, line in enumerate(lines):
        for name in _NAME.findall(code(line)):
            if name in names:
                last[name] = i
    dead = {}
    for name, i in last.items():
        dead.setdefault(i, []).append(name)
    out = []
    for i, line in enumerate(lines):
        out.append(line if isinstance(line, str) else line.text(last.get(line.grad) == i))
        if i in dead:
            out.append(f"del {', '.join(sorted(dead[i]))}")
    return out


def _defines(line) -> list[str]:
    """The names a plan line assigns."""
    if isinstance(line, Pointwise):
        return [name for text in line.lines for name in _defines(text)]
    if not isinstance(line, str):
        return [line.name]
    if " = " not in line:
        return []
    return [n.strip() for n in line.split(" = ", 1)[0].split(",") if n.strip() != "_"]


def _literal(value) -> bool:
    """Whether repr(value) rebuilds value (numbers, strings, tuples of them)."""
    if value is None or type(value) in (bool, int, str):
        return True
    if type(value) is float:
        return bool(np.isfinite(value))
    return type(value) is tuple and all(_literal(v) for v in value)


def _collect_arrays(description, names: list) -> None:
    kind = description[0]
    if kind == "array":
        names.append(description[1])
    elif kind == "sequence":
        for part in description[2]:
            _collect_arrays(part, names)
    elif kind == "dict":
        for part in description[2].values():
            _collect_arrays(part, names)


class BuiltPlan:
    """A plan ready to run: `run(arrays)` replays it and rebuilds the returned value."""

    def __init__(self, function, source: str, outputs, op_names: list):
        self.function = function
        self.source = source
        self.op_names = op_names        # the recorded ops and replayed calls, in order
        self._outputs = outputs

    backward_function = None        # the backward part, for plans that have one (_aot.py)

    def run(self, tensors: list):
        """Replay on the call's input tensors (in argument order)."""
        if self.backward_function is not None:
            return _rebuild(self._outputs, iter(replay(self, tensors)), tensors, wrap=False)
        results = iter(self.function(tensors, *[t._data for t in tensors]))
        return _rebuild(self._outputs, results, tensors)

    def difference(self, other: "BuiltPlan") -> str | None:
        """How a second trace of the same signature differs from this one, or None. The
        names of both plans must hold the same objects, or equal values where a call made
        them afresh (a shape tuple, a gradient of ones): a value that differs is one the
        plan would freeze, though each call computes it."""
        if self.source != other.source:
            return "the traced ops differ"
        mine, theirs = self.function.__globals__, other.function.__globals__
        for name, value in mine.items():
            if name not in ("__builtins__", "plan", "backward") and \
                    not _same_constant(value, theirs[name]):
                return f"{name} ({type(value).__name__}) differs"
        return None


def writes_into(source: str, name: str) -> bool:
    """Whether a plan's source writes into the array it reads from existing tensor `name`
    (a buffer kept per size, filled in place, say)."""
    read = re.search(rf"^\s*(a[0-9]+) = {re.escape(name)}\._data$", source, re.MULTILINE)
    return read is not None and f"copyto({read.group(1)}," in source


def _same_constant(a, b, depth: int = 0) -> bool:
    """Whether b, made by the second trace where the first made a, is the same constant."""
    if a is b:
        return True
    if type(a) is not type(b) or depth > 4:
        return False
    if isinstance(a, Tensor):
        return a._requires_grad == b._requires_grad and _same_constant(a._data, b._data)
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and a.strides == b.strides and \
            bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same_constant(x, y, depth + 1) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_constant(a[k], b[k], depth + 1) for k in a)
    if isinstance(a, (int, float, complex, str, bytes, np.generic, np.dtype, slice, range)):
        return bool(a == b) or (a != a and b != b)
    if type(a).__eq__ is not object.__eq__:
        return bool(a == b)
    if isinstance(a, types.FunctionType):   # a lambda made by each call: what it closes over
        return a.__code__ is b.__code__ and _same_constant(
            (a.__defaults__, [c.cell_contents for c in a.__closure__ or ()]),
            (b.__defaults__, [c.cell_contents for c in b.__closure__ or ()]), depth + 1)
    # Other objects made afresh by each call (a conv's geometry, an op's ctx): the same
    # if everything they hold is.
    return _same_constant(_fields(a), _fields(b), depth + 1)


def _fields(obj) -> dict:
    fields = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for slot in cls.__dict__.get("__slots__", ()):
            if hasattr(obj, slot):
                fields[slot] = getattr(obj, slot)
    return fields


def _rebuild(description, results, tensors: list, wrap: bool = True):
    """The returned value from its description, the results (arrays to wrap, or Tensors,
    in order) and the call's input tensors (an argument returned as it is)."""
    kind = description[0]
    if kind == "array":
        return Tensor._wrap(next(results)) if wrap else next(results)
    if kind == "input":
        return tensors[description[1]]
    if kind == "sequence":
        parts = [_rebuild(p, results, tensors, wrap) for p in description[2]]
        cls = description[1]
        return cls(parts) if cls in (tuple, list) else cls(*parts)
    if kind == "dict":
        return description[1]((k, _rebuild(p, results, tensors, wrap))
                              for k, p in description[2].items())
    return description[1]
