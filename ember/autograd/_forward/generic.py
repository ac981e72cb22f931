"""Tangents of one op's outputs, from whichever rule the op has.

- A native rule (rules.py, native/), for the ops where one was written and measured faster.
- View ops: the same view of the input's tangent (views are linear in their input), so the
  tangent of a view shares memory with its base's tangent, as in torch.
- User Functions: their `jvp(ctx, *tangents)` staticmethod, as in torch.
- Everything else: the generic rule, by the double-vjp trick. An op's vjp u -> J^T u is
  linear in u, so the vjp of the vjp, seeded with the input tangent v, is J v. ember's
  backward is written in ember ops, so it can be differentiated once more (create_graph).
  The op runs once, with its graph node recorded even where autograd would record none; the
  node's backward then gives J^T u, and autograd.grad with respect to u gives J v.
"""
from __future__ import annotations

import numpy as np

from ..._modes import own as own_modes
from ..._tensor import Tensor
from .. import engine
from ..function import Function
from ..graph import SavedTensor
from .rules import rule_for


def propagate(cls, args: tuple, kwargs: dict, tangents: list):
    """(the op's result, its outputs' tangents) for an op whose arguments have `tangents`."""
    if cls.is_view and tangents[0] is not None:
        out = cls.apply(*args, **kwargs)
        return out, _view_tangents(cls, args, kwargs, out, tangents[0])
    out, out_tangents = _tangents(cls, args, kwargs, tangents)
    return out, _unaliased(out_tangents, tangents)


def _unaliased(out_tangents, in_tangents):
    """Output tangents of an op that is not a view, copied where they share memory with an
    input's tangent (a rule may pass one through, as identity-like backwards do): an
    in-place change of one must not show in the other."""
    single = not isinstance(out_tangents, (tuple, list))
    outs = [out_tangents] if single else list(out_tangents)
    for i, t in enumerate(outs):
        if t is not None and any(s is not None and np.may_share_memory(t._data, s._data)
                                 for s in in_tangents):
            outs[i] = t.clone()
    return outs[0] if single else outs


def _tangents(cls, args, kwargs, tangents):
    rule = rule_for(cls, args, kwargs)
    if rule is not None:
        out = cls.apply(*args, **kwargs)
        return out, rule(args, kwargs, out, tangents)
    if not cls._is_primitive:
        if "jvp" not in _overridden(cls):
            raise NotImplementedError("You must implement the jvp function for custom "
                                      "autograd.Function to use it with forward mode AD.")
        return _user_jvp(cls, args, kwargs, tangents)
    if cls.backward is Function.backward:   # ops without a gradient give no tangent
        return cls.apply(*args, **kwargs), None
    return _double_vjp(cls, args, kwargs, tangents)


def _overridden(cls) -> set:
    names = set()
    for klass in cls.__mro__:
        if klass is Function:
            break
        names.update(klass.__dict__)
    return names


def _view_tangents(cls, args, kwargs, out, tangent):
    """The same view of the input's tangent (laid out like the input, as views assume)."""
    primal = args[0]
    if tangent._data.strides != primal._data.strides and tangent.shape == primal.shape:
        tangent = tangent.new_empty_strided(primal.shape, primal.stride()).copy_(tangent)
    return cls.apply(tangent, *args[1:], **kwargs)


# ------------------------------------------------------------------ the recorded call
class _RecordedCall:
    """One run of an op with its graph node recorded for every argument that has a tangent,
    even where autograd records nothing (no argument requires grad, or grad mode is off).
    `settle()` then leaves the result as an ordinary run would have: no graph, or the
    node with edges only to the arguments that really require grad."""

    def __init__(self, cls, args: tuple, kwargs: dict, tangents: list):
        self.wanted = [i for i, t in enumerate(tangents) if t is not None]
        modes = own_modes()
        grad_enabled = modes.grad_enabled
        self.recorded = grad_enabled and any(isinstance(a, Tensor) and a._requires_grad
                                             for a in args)
        flipped = []
        for i in self.wanted:
            a = args[i]
            if not a._requires_grad:
                flipped.append((i, a, a._accumulator))
                a._requires_grad = True
        modes.grad_enabled = True
        try:
            out = cls.apply(*args, **kwargs)
        finally:
            modes.grad_enabled = grad_enabled
            for _, a, accumulator in flipped:
                a._requires_grad = False
                a._accumulator = accumulator
        self.flipped = [i for i, _, _ in flipped]
        self.out = out
        self.outs = out if isinstance(out, tuple) else (out,)
        self.node = None
        for o in self.outs:
            if isinstance(o, Tensor) and isinstance(o._grad_fn, cls):
                self.node = o._grad_fn
                break

    def settle(self) -> None:
        node = self.node
        if node is None:
            return
        if not self.recorded:
            for o in self.outs:
                if isinstance(o, Tensor) and o._grad_fn is node:
                    o._grad_fn = None
                    o._requires_grad = False
            return
        needs = list(node.needs_input_grad)
        for i in self.flipped:
            node._edges[i] = None
            node._input_meta[i] = None
            needs[i] = False
        node.needs_input_grad = tuple(needs)


def _zeros(like: Tensor, requires_grad: bool = False) -> Tensor:
    return Tensor._wrap(np.zeros(like._data.shape, like._data.dtype), requires_grad)


def _keeps_graph(args, tangents) -> bool:
    """Whether a tangent must be differentiable: grad mode is on and something it depends
    on requires grad."""
    if not own_modes().grad_enabled:
        return False
    return any(isinstance(a, Tensor) and a._requires_grad for a in args) or any(
        t is not None and t._requires_grad for t in tangents)


def _double_vjp(cls, args, kwargs, tangents):
    from .. import grad      # the package's grad, defined after this module is imported
    call = _RecordedCall(cls, args, kwargs, tangents)
    node = call.node
    try:
        if node is None:     # no differentiable output
            return call.out, None
        outs = call.outs
        differentiable = [isinstance(o, Tensor) and o._data.dtype.kind in "fc" for o in outs]
        modes = own_modes()
        grad_enabled = modes.grad_enabled
        modes.grad_enabled = True
        try:
            seeds = [_zeros(o, requires_grad=True) if d else None
                     for o, d in zip(outs, differentiable)]
            vjps = engine._call_node(node, list(seeds))
        finally:
            modes.grad_enabled = grad_enabled
        pairs = []
        for i in call.wanted:
            g = vjps[i] if i < len(vjps) else None
            if g is not None and g._requires_grad:
                pairs.append((engine._fit_to_input(g, (args[i]._data.shape,
                                                       args[i]._data.dtype)), tangents[i]))
        used_seeds = [s for s in seeds if s is not None]
        products = [None] * len(used_seeds)
        if pairs:
            products = grad([g for g, _ in pairs], used_seeds, [t for _, t in pairs],
                            allow_unused=True, create_graph=_keeps_graph(args, tangents))
        products = iter(products)
        result = []
        for o, d in zip(outs, differentiable):
            p = next(products) if d else None
            result.append(_zeros(o) if d and p is None else p)
        return call.out, tuple(result)
    finally:
        call.settle()


def _user_jvp(cls, args, kwargs, tangents):
    """A user Function's jvp(ctx, *tangents): zeros stand for missing tangents, and
    ctx.saved_tensors gives what forward passed to ctx.save_for_forward."""
    call = _RecordedCall(cls, args, kwargs, tangents)
    ctx = call.node
    try:
        if ctx is None:
            return call.out, None
        inputs = [_zeros(a) if t is None and isinstance(a, Tensor) else t
                  for a, t in zip(args, tangents)]
        saved = ctx._saved
        ctx._saved = tuple(SavedTensor(t) for t in getattr(ctx, "_saved_for_forward", ()))
        try:
            out_tangents = cls.jvp(ctx, *inputs)
        finally:
            ctx._saved = saved
        return call.out, out_tangents
    finally:
        call.settle()
