"""What torch.compile returns: a callable that traces a call once per signature and
replays the plan afterwards (`CompiledFunction`), and the module wrapper around one
(`OptimizedModule`).

A call's signature (its guards) is everything the plan took as fixed: the structure of
the arguments, each tensor's shape, dtype, strides and requires_grad, the other
arguments' values, grad mode, inference mode, autocast, and the state of every module the
call went through (training flag, plain attributes, which parameters, buffers, submodules
and hooks it holds, each parameter's requires_grad, shape and dtype), and which objects
the globals and closure variables the function reads hold (`_reads.py`). Parameter values
are not guards: the plan reads them when it starts, so updates (by the plan's own
optimizer step or outside it) never retrace.

The first call of a new signature runs eagerly under the tracer; later calls replay its
plan. With `dynamic=True` (or dims marked with `mark_dynamic`), plans of calls that differ
only in those dims' sizes are generalised into a template (`_dynamic.py`) that gives the
plan of a new size without tracing. A call the plan cannot follow (a graph break) makes
its signature run eagerly from then on, with one warning naming the reason, or, when the
break is in a top-level statement of the function, runs the statements before it
compiled and the rest eagerly (`_split.py`); `fullgraph=True` makes it an error instead.
The compiler's stance (`torch.compiler.set_stance`) can make calls run eagerly instead.
"""
from __future__ import annotations

import copy
import functools
import types
import warnings
import weakref

from .._cpu import kernels
from .._modes import current as current_modes
from .._tensor import Tensor
from ..autograd.anomaly_mode import STATE as ANOMALY_STATE
from ..nn.modules.module import Module
from . import config
from ._dynamic import NotGeneral, Template
from ._reads import NamedReads
from ._split import split
from ._tracer import (GraphBreak, Tracer, _has_hooks, global_module_hooks, module_state,
                      referenced_objects)
from .decorators import STANCES, marked, set_stance
from .exc import FailOnRecompileLimitHit, RecompileError, Unsupported

_ALL = weakref.WeakSet()        # every CompiledFunction, for reset()
# Plans a template made, kept per function (the oldest dropped beyond this many).
_SIZED_PLANS = 64
# Traced calls a template is fitted to at most, before its dims are given up on.
_TEMPLATE_POINTS = 4


class _Entry:
    """One traced signature: its guard key, the modules it went through (and their
    state then), and its plan (None: the signature runs eagerly, for `reason`)."""

    __slots__ = ("key", "modules", "plan", "reason", "where", "quiet", "confirmed", "split",
                 "stores")

    def __init__(self, key, modules, plan, reason, where, quiet=False, stores=()):
        self.key, self.modules, self.plan = key, modules, plan
        self.reason, self.where = reason, where
        self.quiet = quiet          # a break torch would not report: no warning
        self.confirmed = False      # a second trace gave the same plan
        self.split = None           # a break's (compiled prefix, rest): see _split.py
        self.stores = stores        # (module, name): the tensors the plan keeps on modules

    def matches(self, key) -> bool:
        return key == self.key and _modules_unchanged(self.modules)

    def run(self, tensors: list):
        """Replay the plan; set the tensors the call keeps on its modules' attributes."""
        if not self.stores:
            return self.plan.run(tensors)
        result, stored = self.plan.run(tensors)
        for (module, name), value in zip(self.stores, stored):
            setattr(module, name, value)
        return result


def _modules_unchanged(modules) -> bool:
    return all(state.matches(module) for module, state in modules)


class _Dynamic:
    """A template (`_dynamic.Template`; None: these dims could not be generalised) with
    what a call must match to use it: the guard key with the sizes (and C-order strides)
    of `dims` left out, and the modules' state."""

    __slots__ = ("template", "dims", "general_key", "modules")

    def __init__(self, template, dims, general_key, modules):
        self.template, self.dims = template, dims
        self.general_key, self.modules = general_key, modules

    def sizes(self, key) -> tuple | None:
        """The sizes of `dims` in a call with this key, or None if the call does not fit."""
        if _general_key(key, self.dims) != self.general_key or \
                not _modules_unchanged(self.modules):
            return None
        return _sizes(key, self.dims)


class CompiledFunction:
    """`fn` compiled: see the module docstring."""

    def __init__(self, fn, *, fullgraph: bool = False, recompile_limit=None, module=None,
                 dynamic=None):
        self._fn = fn
        self._module = module       # Module.compile: the module whose call fn is
        self._fullgraph = fullgraph
        self._recompile_limit = recompile_limit
        self._dynamic = dynamic     # True: any dim may vary; None: dims marked dynamic
        self._entries = []
        self._templates = []        # _Dynamic, verified or still candidates
        self._sized = []            # entries whose plan a verified template made
        self._warned = set()
        self._called = False        # for the "eager_then_compile" stances
        # the module whose forward the call runs, if any
        self._owner = module if module is not None else fn if isinstance(fn, Module) else None
        self._reads = NamedReads(self._user_function())
        self._held_reads = []       # what traced calls read: alive, so no id is reused
        functools.update_wrapper(self, fn, updated=())
        _ALL.add(self)

    def __call__(self, *args, **kwargs):
        stance = set_stance.current
        if stance != "default" and self._eager_by_stance(stance):
            return self._fn(*args, **kwargs)
        modes = current_modes()
        watching = _watching(modes)
        if watching is not None:
            if watching:
                self._warn(f"{watching} is on: compiled calls run eagerly so that it sees "
                           "every op")
            return self._fn(*args, **kwargs)
        tensors, key = [], []
        _flatten((args, kwargs), tensors, key)
        reads = self._reads.current()
        key = (modes.grad_enabled, modes.inference, modes.autocast_enabled,
               modes.autocast_dtype, global_module_hooks(), tuple(key), kernels.current(),
               tuple(map(id, reads)))
        for entry in self._entries:
            if entry.matches(key):
                if entry.plan is None:
                    if entry.split is not None:
                        return self._run_split(entry, args, kwargs)
                    return self._fn(*args, **kwargs)
                if not entry.confirmed:
                    return self._confirm(entry, tensors, args, kwargs)
                return entry.run(tensors)
        sized = self._sized_entry(key)
        if sized is not None:
            return sized.plan.run(tensors)
        if stance == "eager_on_recompile":
            return self._fn(*args, **kwargs)
        if stance == "fail_on_recompile":
            raise RuntimeError("Detected recompile when torch.compile stance is "
                               f"'fail_on_recompile'. function name: '{self._name()}' (a "
                               "call with a signature no plan was traced for)")
        if self._entries and config.error_on_recompile:
            code = getattr(self._user_function(), "__code__", None)
            where = f"{code.co_name} in {code.co_filename}:{code.co_firstlineno}" if code \
                else self._name()
            raise RecompileError(f"Recompiling function {where}: a call with a "
                                 "signature no plan was traced for "
                                 "(torch._dynamo.config.error_on_recompile is set)")
        limit = config.recompile_limit if self._recompile_limit is None else \
            self._recompile_limit
        if len(self._entries) >= limit:
            if self._dynamic is None and self._automatic(key, tensors, limit):
                return self._sized_entry(key).plan.run(tensors)
            if config.fail_on_recompile_limit_hit or self._fullgraph:
                setting = "fail_on_recompile_limit_hit" if config.fail_on_recompile_limit_hit \
                    else "fullgraph=True"
                raise FailOnRecompileLimitHit(f"Hard failure due to {setting} (the recompile "
                                              f"limit, {limit}, is reached)")
            self._warn(f"hit the recompile limit ({limit}): calls with a new signature run "
                       "eagerly (raise ember._dynamo.config.recompile_limit to allow more)")
            return self._fn(*args, **kwargs)
        self._held_reads.append(reads)
        return self._trace(tensors, key, args, kwargs)

    def _automatic(self, key, tensors, limit: int) -> bool:
        """At the recompile limit (dynamic=None): whether the traced signatures that
        differ from this call only in sizes, three or more, fit one template that gives
        this call's plan (torch's automatic dynamic shapes, which ember applies only here:
        a template fitted to many traced sizes, each one checking the others' fit)."""
        static = {(i, d) for i, t in enumerate(tensors) for d in marked(t, "static")}
        everything = _Everything()
        varying = [(e, _varying(e.key, key, everything)) for e in self._entries
                   if e.plan is not None and not e.stores]
        dims = tuple(sorted({d for _, ds in varying if ds for d in ds}))
        if not dims or static & set(dims):
            return False
        general_key = _general_key(key, dims)
        if general_key is None or any(d.general_key == general_key for d in self._templates):
            return False
        points = [e for e, _ in varying if _general_key(e.key, dims) == general_key and
                  _modules_unchanged(e.modules)]
        if len(points) < 3:
            return False
        try:
            template = Template([(e.plan, _sizes(e.key, dims)) for e in points])
            template.verified = True
        except NotGeneral:
            template = None     # kept, so that later calls do not fit the plans again
        self._templates.append(_Dynamic(template, dims, general_key, points[-1].modules))
        if template is None or self._sized_entry(key) is None:
            return False
        self._warn(f"hit the recompile limit ({limit}) with calls that differ in the sizes "
                   f"of {_dim_names(dims)}: new sizes replay a plan fitted to the "
                   f"{len(points)} traced ones, as torch's automatic dynamic shapes do "
                   "(dynamic=False runs them eagerly instead)")
        return True

    def _sized_entry(self, key) -> _Entry | None:
        """A plan for a call no trace matched, from a verified template (dynamic sizes)."""
        for entry in self._sized:
            if entry.matches(key):
                return entry
        for dynamic in self._templates:
            verified = dynamic.template is not None and dynamic.template.verified
            sizes = dynamic.sizes(key) if verified else None
            plan = None if sizes is None else dynamic.template.plan(sizes)
            if plan is not None:
                entry = _Entry(key, dynamic.modules, plan, None, None)
                entry.confirmed = True
                self._sized = self._sized[1 - _SIZED_PLANS:] + [entry]
                return entry
        return None

    def _generalise(self, entry: _Entry, tensors) -> None:
        """After a new signature's trace: check a candidate template this call fits (it
        is verified if its plan for these sizes is exactly the traced one, else refitted
        with this call too, up to `_TEMPLATE_POINTS` calls), or pair the trace with an
        earlier one that differs only in dims allowed to vary."""
        allowed = self._allowed(tensors)
        if entry.plan is None or not allowed:
            return
        for dynamic in self._templates:
            sizes = dynamic.sizes(entry.key)
            if sizes is None:
                continue
            template = dynamic.template
            if template is None or template.verified:
                return
            plan = template.plan(sizes)
            if plan is not None and plan.difference(entry.plan) is None:
                template.verified = entry.confirmed = True
                return
            points = template.points + [(entry.plan, sizes)]
            try:
                dynamic.template = Template(points) if len(points) <= _TEMPLATE_POINTS \
                    else None
            except NotGeneral:
                dynamic.template = None
            if dynamic.template is None:
                self._warn_not_general(dynamic.dims)
            return
        for other in reversed(self._entries):
            dims = _varying(other.key, entry.key, allowed)
            if other.plan is None or not dims or other.modules != entry.modules:
                continue
            try:
                template = Template([(other.plan, _sizes(other.key, dims)),
                                     (entry.plan, _sizes(entry.key, dims))])
            except NotGeneral:
                template = None
            self._templates.append(_Dynamic(template, dims, _general_key(entry.key, dims),
                                            entry.modules))
            if template is None:
                self._warn_not_general(dims)
            return

    def _warn_not_general(self, dims) -> None:
        self._warn(f"sizes of {_dim_names(dims)} change the traced code in a way ember "
                   "cannot generalise: each size traces its own plan")

    def _allowed(self, tensors) -> set:
        """(argument tensor, dim) pairs that may take new sizes without a new trace."""
        if self._dynamic is False:
            return set()
        found = set()
        for i, t in enumerate(tensors):
            dims = set(range(t.dim())) if self._dynamic else marked(t, "dynamic")
            found |= {(i, d) for d in dims - marked(t, "static")}
        return found

    def _eager_by_stance(self, stance: str) -> bool:
        """Whether the compiler's stance (decorators.set_stance) runs this call eagerly
        whatever the plans; the recompile stances act only on new signatures."""
        if stance not in STANCES:
            raise RuntimeError(f"invalid torch.compile stance '{stance}'")
        if stance == "force_eager":
            return True
        if stance.endswith("eager_then_compile") and not self._called:
            self._called = True
            return True
        return False

    def _confirm(self, entry: _Entry, tensors, args, kwargs):
        """The second call of a signature traces again: a plan is replayed only if both
        traces agree (a value that differs between them, such as an array an op made from
        the inputs outside its outputs, would otherwise be frozen into the plan)."""
        tracer, result = self._run_traced(tensors, args, kwargs)
        plan = _finish(tracer, result, self._fn)
        if plan is None and self._fullgraph and not tracer.break_captured:
            raise Unsupported(f"{tracer.break_reason} (fullgraph=True does not allow graph "
                              "breaks)")
        difference = "" if plan is None else entry.plan.difference(plan)
        if plan is not None and not difference and tracer.stores != entry.stores:
            difference = "the tensors kept on module attributes"
        if plan is None or difference:
            entry.plan = None
            entry.reason = tracer.break_reason or f"two traces of the call differ: {difference}"
            entry.where, entry.quiet = tracer.break_stack, tracer.break_captured
            self._warn_break(entry)
        else:
            entry.plan, entry.confirmed = plan, True
        return result

    def _run_traced(self, tensors, args, kwargs):
        tracer = Tracer(self._fullgraph,
                        captures_scalars=self._fullgraph or config.capture_scalar_outputs)
        tracer.start(referenced_objects(self._fn) + list(args) + list(kwargs.values()))
        for t in tensors:
            tracer.add_input(t)
        if self._module is not None:
            tracer.record_module_call(self._module)
        try:
            with tracer.installed():
                result = self._fn(*args, **kwargs)
                tracer.trace_backward(result)
        except GraphBreak as error:
            raise Unsupported(f"{error} (fullgraph=True does not allow graph breaks; at "
                              f"{tracer.break_stack})") from None
        return tracer, result

    def _trace(self, tensors, key, args, kwargs):
        tracer, result = self._run_traced(tensors, args, kwargs)
        plan = _finish(tracer, result, self._fn)
        if plan is None and self._fullgraph and not tracer.break_captured:
            raise Unsupported(f"{tracer.break_reason} (fullgraph=True does not allow graph "
                              "breaks)")
        modules = list(tracer.modules.values())
        if plan is None:
            # An eager signature is matched on the modules as the call left them: a call
            # that swaps their attributes meanwhile (torch.func.functional_call) would
            # otherwise never match again and trace at every call.
            modules = [(module, module_state(module)) for module, _ in modules]
        elif tracer.stores:
            # the attributes the plan sets hold a new tensor after every call
            modules = [(module, module_state(module, tuple(name for m, name in tracer.stores
                                                           if m is module)))
                       for module, _ in modules]
        entry = _Entry(key, modules, plan, tracer.break_reason, tracer.break_stack,
                       quiet=tracer.break_captured, stores=tracer.stores)
        self._entries.append(entry)
        if plan is None:
            entry.split = self._split(tracer)
            self._warn_break(entry)
        elif not tracer.stores:     # (templates for other sizes do not carry stores)
            self._generalise(entry, tensors)
        return result

    def _split(self, tracer: Tracer):
        """A break in a top-level statement of the function itself: (the statements before
        it compiled, the rest as a plain function), or None (see _split.py)."""
        module = self._owner
        if module is not None and _has_hooks(module):
            return None
        parts = split(self._user_function(), tracer.break_lines.get)
        if parts is None:
            return None
        prefix, rest = parts
        return (CompiledFunction(prefix, recompile_limit=self._recompile_limit, module=module,
                                 dynamic=self._dynamic), rest)

    def _run_split(self, entry: _Entry, args, kwargs):
        prefix, rest = entry.split
        names = prefix(*args, **kwargs)
        fresh = _made_in_call(names, self._fn, args, kwargs)
        if fresh is not None:
            # A plan of the prefix would return this object again at every call.
            entry.split = None
            self._warn(f"the statements before the graph break make {fresh}, which compile "
                       "cannot replay: calls with this signature run eagerly")
        return rest(**names)

    def _warn_break(self, entry: _Entry) -> None:
        if entry.quiet:
            return
        where = f" at {entry.where}" if entry.where else ""
        rest = "the statements before it run compiled, the rest eagerly" if entry.split \
            else "calls with this signature run eagerly"
        self._warn(f"graph break{where}: {entry.reason}; {rest}")

    def _warn(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            warnings.warn(f"ember.compile({self._name()}): {message}", UserWarning,
                          stacklevel=3)

    def _user_function(self):
        """The function whose code a call runs: the module's forward, or fn itself."""
        return self._owner.forward if self._owner is not None else self._fn

    def _name(self) -> str:
        return getattr(self._fn, "__qualname__", type(self._fn).__name__)

    def plan_source(self) -> list[str]:
        """The Python source of each plan traced so far (one per signature)."""
        return [e.plan.source for e in self._entries if e.plan is not None]

    def reset(self) -> None:
        self._entries.clear()
        self._templates.clear()
        self._sized.clear()
        self._warned.clear()
        self._held_reads.clear()

    # A copy compiles afresh: plans hold the tensors of the objects they were traced on.
    def __deepcopy__(self, memo):
        return CompiledFunction(copy.deepcopy(self._fn, memo), fullgraph=self._fullgraph,
                                recompile_limit=self._recompile_limit,
                                module=copy.deepcopy(self._module, memo),
                                dynamic=self._dynamic)

    def __reduce__(self):
        return (_rebuild, (self._fn, self._fullgraph, self._recompile_limit, self._module,
                           self._dynamic))


def _finish(tracer: Tracer, result, fn):
    """The traced call's plan; a failure to build one (a case the tracer does not know)
    is a graph break, never an error of the user's call, which has already run."""
    try:
        return tracer.finish(result, fn)
    except Exception as error:      # noqa: BLE001  (any failure: run eagerly instead)
        tracer.break_reason = f"ember could not build a plan ({type(error).__name__}: {error})"
        return None


def _rebuild(fn, fullgraph, recompile_limit, module, dynamic=None):
    return CompiledFunction(fn, fullgraph=fullgraph, recompile_limit=recompile_limit,
                            module=module, dynamic=dynamic)


def _watching(modes):
    """What watches every op now, so that compile must run eagerly: a name to warn with,
    "" to run eagerly without a warning (a compiled call inside a call being traced, whose
    tracer records its ops), or None."""
    if modes.recorder is not None:
        return "" if isinstance(modes.recorder, Tracer) else "the profiler (or another recorder)"
    if modes.doctor is not None:
        return "ember.doctor"
    if ANOMALY_STATE.enabled:
        return "anomaly detection"
    if modes.saved_hooks:
        return "saved tensor hooks"
    return None


def _flatten(value, tensors: list, key: list) -> None:
    """Collect the tensors of an argument structure and describe it for the guard key:
    tensors by their metadata (and which earlier argument shares their array), plain
    values by value, other objects by identity."""
    if isinstance(value, Tensor):
        data = value._data
        shared = next((i for i, t in enumerate(tensors) if t._data is data), None)
        key.append(("T", data.shape, data.dtype, data.strides, value._requires_grad,
                    value._grad_fn is None, shared))
        tensors.append(value)
    elif isinstance(value, (tuple, list)):
        key.append((type(value), len(value)))
        for v in value:
            _flatten(v, tensors, key)
    elif isinstance(value, dict):
        key.append((type(value), tuple(value)))
        for v in value.values():
            _flatten(v, tensors, key)
    elif value is None or type(value) in (bool, int, float, str, complex):
        key.append((type(value), value))
    else:
        key.append(("id", id(value)))


_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, type, types.FunctionType,
              types.BuiltinFunctionType, types.ModuleType)


def _made_in_call(names: dict, fn, args, kwargs) -> str | None:
    """The type of a value the split's prefix bound that a plan cannot give back (a list,
    an object made in the call: not a tensor, an immutable value, an argument, or an
    object the function, its arguments or its globals hold), or None."""
    existing = None
    for value in names.values():
        if isinstance(value, tuple):
            if all(isinstance(v, _IMMUTABLE) or isinstance(v, Tensor) for v in value):
                continue
        elif isinstance(value, _IMMUTABLE) or isinstance(value, Tensor):
            continue
        if existing is None:
            existing = _held_objects(fn, args, kwargs)
        if id(value) not in existing:
            return type(value).__name__
    return None


def _held_objects(fn, args, kwargs) -> set:
    """ids of the objects a call of fn can reach without making them: its arguments, fn,
    what fn refers to (_tracer.referenced_objects), and their attributes."""
    found = set()
    for root in list(args) + list(kwargs.values()) + [fn] + referenced_objects(fn):
        found.add(id(root))
        found.update(map(id, getattr(root, "__dict__", {}).values()))
    return found


# -- keys of calls with dynamic sizes ---------------------------------------------------
# A guard key (see __call__) holds, at index 5, one item per argument; a tensor's item is
# ("T", shape, dtype, strides, requires_grad, is_leaf, shared), in the order of the
# call's tensors.

class _Everything:
    """Every (tensor, dim) pair, for _varying."""

    def __contains__(self, item) -> bool:
        return True


def _tensor_items(key) -> list:
    return [item for item in key[5] if item[0] == "T"]


def _varying(first, second, allowed: set) -> tuple | None:
    """The (tensor, dim) pairs whose sizes differ between two guard keys, if nothing else
    does, every one is allowed to vary, has sizes of at least 2, and belongs to tensors
    in C order in both calls; else None."""
    if len(first[5]) != len(second[5]) or first[:5] != second[:5] or first[6:] != second[6:]:
        return None
    dims = []
    for i, (a, b) in enumerate(zip(_tensor_items(first), _tensor_items(second))):
        if a[1] == b[1]:
            continue
        if len(a[1]) != len(b[1]) or not (_c_order(a) and _c_order(b)):
            return None
        dims += [(i, d) for d, (x, y) in enumerate(zip(a[1], b[1])) if x != y]
    if not dims or any(d not in allowed or _sizes(k, [d])[0] < 2
                       for d in dims for k in (first, second)):
        return None
    dims = tuple(dims)
    return dims if _general_key(first, dims) == _general_key(second, dims) else None


def _c_order(item) -> bool:
    shape, strides, itemsize = item[1], item[3], item[2].itemsize
    expected = []
    step = itemsize
    for size in reversed(shape):
        expected.append(step)
        step *= max(size, 1)
    return tuple(reversed(expected)) == strides


def _sizes(key, dims) -> tuple:
    items = _tensor_items(key)
    return tuple(items[i][1][d] for i, d in dims)


def _general_key(key, dims) -> tuple | None:
    """The key with the sizes of `dims` left out, and the strides of their tensors (which
    must be in C order) marked "C"; None if one is not in C order."""
    varying = {i for i, _ in dims}
    items, position = [], 0
    for item in key[5]:
        if item[0] == "T":
            if position in varying:
                if not _c_order(item):
                    return None
                shape = tuple(None if (position, d) in dims else n
                              for d, n in enumerate(item[1]))
                item = (item[0], shape, item[2], "C") + item[4:]
            position += 1
        items.append(item)
    return key[:5] + (tuple(items),) + key[6:]


def _dim_names(dims) -> str:
    return ", ".join(f"argument tensor {i} dim {d}" for i, d in dims)


class OptimizedModule(Module):
    """A compiled module (torch._dynamo.eval_frame.OptimizedModule): its only child is the
    original, `_orig_mod`, so state_dict keys start with "_orig_mod." as in torch; other
    attributes read through to it. Calls go through the compiled call of the original."""

    def __init__(self, mod: Module, compiled: CompiledFunction | None = None) -> None:
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled"] = compiled if compiled is not None else CompiledFunction(mod)

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "_orig_mod":           # not registered yet (during construction)
                raise
            return getattr(self._orig_mod, name)
