"""Plans for sizes never traced (`torch.compile(dynamic=True)`, `mark_dynamic`).

torch traces with symbolic sizes. ember's tracer sees only the concrete sizes of one
call, so it generalises from concrete plans instead: two plans of one function whose
guards differ only in some dims' sizes are compared token by token. They must be the
same code but for integer literals (and integers inside the constants the plan holds: a
slice, a shape tuple, an op's keyword arguments); each integer that differs must be an
affine function of the varying sizes that fits both plans, such as `B * T` in
`x.view(B * T, C)`, found by solving for `k * (product of sizes) + b` on the two calls.
The result is a `Template`, and a candidate only: at a third size the call is traced
again, and the template is kept only if its plan for that size is exactly the traced
one (a size the function loops over, or a constant that is not affine, fails here).
From then on a new size gets its plan from the template, with no trace.

What this cannot see, as torch's symbolic sizes would, is a Python branch on a size
that takes the same way at the three sizes traced and another way later: hence dynamic
plans only where the user asks for them (module docs, docs/compile.md). Sizes 0 and 1
are never generalised (torch specialises them too): broadcasting changes with them.
"""
from __future__ import annotations

import io
import itertools
import math
import tokenize
from fractions import Fraction

import numpy as np

from .._tensor import Tensor
from ._plan import BuiltPlan, _same_constant, writes_into


class NotGeneral(Exception):
    """Two plans are not one plan at different sizes."""


class Template:
    """A plan as a function of the sizes of some input dims (see the module docstring),
    made from `points`: (plan, sizes) of two or more traced calls, sizes given as the
    values of those dims in one order."""

    def __init__(self, points: list):
        (model, _), plans = points[0], [plan for plan, _ in points]
        if any(p.op_names != model.op_names or _structure(p) != _structure(model)
               for p in plans):
            raise NotGeneral("the traced ops differ")
        # Dims with equal sizes in every call are one symbol, and must stay equal.
        columns = list(zip(*(sizes for _, sizes in points)))
        self._groups = [[i for i, c in enumerate(columns) if c == column]
                        for column in dict.fromkeys(columns)]
        fit = _Fitter([[sizes[g[0]] for g in self._groups] for _, sizes in points])
        self._segments, self._literals = _unify_source([p.source for p in plans], fit)
        names = [_constants(p) for p in plans]
        if any(n.keys() != names[0].keys() for n in names):
            raise NotGeneral("the plans name other constants")
        self._constants = {name: _unify([n[name] for n in names], fit) for name in names[0]}
        for name, build in self._constants.items():
            if getattr(build, "filled", False) and writes_into(model.source, name):
                raise NotGeneral(f"the plans write into {name}, a tensor of one value")
        self._outputs = _unify([p._outputs for p in plans], fit)
        self._model = model
        self.points = points
        self.verified = False

    def plan(self, sizes: tuple) -> BuiltPlan | None:
        """The plan for a call with these sizes, or None where the template does not
        apply (a size below 2, dims that were equal no longer are, a constant that would
        not be an integer)."""
        if any(size < 2 for size in sizes) or \
                any(len({sizes[i] for i in group}) > 1 for group in self._groups):
            return None
        symbols = [sizes[g[0]] for g in self._groups]
        try:
            source = "".join(itertools.chain.from_iterable(itertools.zip_longest(
                self._segments, (str(literal(symbols)) for literal in self._literals),
                fillvalue="")))
            namespace = {name: build(symbols) for name, build in self._constants.items()}
            outputs = self._outputs(symbols)
        except _NotInteger:
            return None
        exec(compile(source, "<ember.compile plan>", "exec"), namespace)
        model = self._model
        plan = BuiltPlan(namespace["plan"], source, outputs, model.op_names)
        if model.backward_function is not None:
            plan.backward_function = namespace["backward"]
            plan.output_count, plan.differentiable = model.output_count, model.differentiable
            plan.saved_arrays, plan.targets = model.saved_arrays, model.targets
        return plan


def _structure(plan: BuiltPlan) -> tuple:
    """What must be equal in two plans beyond their code and constants."""
    if plan.backward_function is None:
        return ()
    return (plan.output_count, plan.differentiable, plan.saved_arrays,
            [t if isinstance(t, int) else id(t) for t in plan.targets])


def _constants(plan: BuiltPlan) -> dict:
    """The names a plan's code uses besides its own functions."""
    return {name: value for name, value in plan.function.__globals__.items()
            if name not in ("__builtins__", "plan", "backward")}


class _NotInteger(Exception):
    """A size expression gave a fraction for these sizes."""


class _Fitter:
    """Finds, for an integer seen with one value per traced call, a function of the
    calls' sizes that gives each: `k * prod(sizes in S)` (S a set of the sizes, fewest
    first), else `k * prod(sizes in S) + c`. With two calls a line always fits, so
    products come first (`B * T` rather than `15 * B - 18`), and a third call checks."""

    def __init__(self, points: list):
        self._points = points
        indices = range(len(points[0]))
        self._subsets = [s for n in range(1, len(indices) + 1)
                         for s in itertools.combinations(indices, n)]

    def __call__(self, values: list):
        products = {s: [math.prod(p[i] for i in s) for p in self._points]
                    for s in self._subsets}
        for subset, p in products.items():
            k = Fraction(values[0], p[0])
            if all(k * x == v for x, v in zip(p, values)):
                return _affine(k, Fraction(0), subset)
        for subset, p in products.items():
            j = next((j for j in range(1, len(p)) if p[j] != p[0]), None)
            if j is None:
                continue
            k = Fraction(values[j] - values[0], p[j] - p[0])
            c = values[0] - k * p[0]
            if all(k * x + c == v for x, v in zip(p, values)):
                return _affine(k, c, subset)
        raise NotGeneral(f"{values} is no function of the sizes")


def _affine(k: Fraction, c: Fraction, subset: tuple):
    def value(symbols: list) -> int:
        result = k * math.prod(symbols[i] for i in subset) + c
        if result.denominator != 1:
            raise _NotInteger
        return int(result)
    return value


def _unify_source(sources: list, fit) -> tuple:
    """The text between integer literals (equal in every source) and, for each literal,
    a function of the sizes giving it."""
    cuts = [_split(source) for source in sources]
    segments, literals = cuts[0]
    if any(s != segments or len(l) != len(literals) for s, l in cuts):
        raise NotGeneral("the plans' code differs")
    columns = zip(*(l for _, l in cuts))
    return segments, [_constant(c[0]) if len(set(c)) == 1 else fit(list(c)) for c in columns]


def _split(source: str) -> tuple:
    """The source cut at its integer literals: (the text around them, their values)."""
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    segments, literals, at = [], [], 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NUMBER and token.string.isdigit():
            start = offsets[token.start[0] - 1] + token.start[1]
            segments.append(source[at:start])
            literals.append(int(token.string))
            at = start + len(token.string)
    segments.append(source[at:])
    return segments, literals


def _constant(value):
    return lambda symbols: value


def _unify(values: list, fit):
    """A function of the sizes giving each of `values` (one per traced call) at that
    call's sizes: integers fitted (see _Fitter), containers built item by item, anything
    else the same constant in every plan."""
    first = values[0]
    if all(_same_constant(first, v) for v in values[1:]):
        return _constant(first)
    if any(type(v) is not type(first) for v in values):
        raise NotGeneral(f"a constant of type {type(first).__name__} differs")
    if isinstance(first, (int, np.integer)) and not isinstance(first, (bool, np.bool_)):
        value = fit([int(v) for v in values])
        return lambda symbols: type(first)(value(symbols))
    if isinstance(first, slice):
        parts = [_unify([getattr(v, f) for v in values], fit) for f in ("start", "stop", "step")]
        return lambda symbols: slice(*(part(symbols) for part in parts))
    if isinstance(first, (tuple, list)) and not hasattr(first, "_fields"):
        if any(len(v) != len(first) for v in values):
            raise NotGeneral("a sequence's length differs")
        parts = [_unify(list(items), fit) for items in zip(*values)]
        return lambda symbols: type(first)([part(symbols) for part in parts])
    if type(first) is dict and all(v.keys() == first.keys() for v in values):
        parts = {key: _unify([v[key] for v in values], fit) for key in first}
        return lambda symbols: {key: part(symbols) for key, part in parts.items()}
    if isinstance(first, (Tensor, np.ndarray)) and _one_value(values):
        return _filled(first, _unify([_array(v).shape for v in values], fit))
    raise NotGeneral(f"a constant of type {type(first).__name__} differs")


def _array(value) -> np.ndarray:
    return value.numpy(force=True) if isinstance(value, Tensor) else value


def _one_value(values: list) -> bool:
    """Whether `values` (each a fresh tensor or array of some call: the engine's zero
    gradient of an unused output, say) hold one repeated value, the same in each."""
    first = _array(values[0])
    if first.size == 0 or isinstance(values[0], Tensor) and values[0].requires_grad:
        return False
    fill = first.flat[0]
    return all(_array(v).dtype == first.dtype and _array(v).size and
               bool((_array(v) == fill).all()) for v in values)


def _filled(first, shape):
    """The constant of one repeated value, at the sizes of each call (made afresh: a plan
    that writes into it is not generalised, see `_plan.writes_into`)."""
    array, wrap = _array(first), isinstance(first, Tensor)
    fill, dtype = array.flat[0], array.dtype

    def build(symbols):
        return (Tensor._wrap if wrap else np.asarray)(np.full(shape(symbols), fill, dtype))
    build.filled = True
    return build
