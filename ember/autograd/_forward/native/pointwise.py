"""Tangent rules of the elementwise ops: unary math and arithmetic."""
from __future__ import annotations

import functools

from ....ops.pointwise import arithmetic, unary
from ....ops.pointwise.where import Where
from ..rules import register
from ._terms import plus


class _UnaryNode:
    """Stands in for a unary op's graph node in its backward: what that backward reads (the
    input it saved, or the op's output)."""

    def __init__(self, x, y):
        self._unpacked_saved = (x,)
        self._y = y

    def output(self, index: int = 0):
        return self._y


def _via_backward(cls, args, kwargs, out, tangents):
    """An elementwise op of one input has a diagonal Jacobian, so J t = J^T t: the op's own
    backward applied to the tangent."""
    return cls.backward(_UnaryNode(args[0], out), tangents[0])


def _built_by_unary(op) -> bool:
    cls = getattr(op, "Function", None)
    return cls is not None and cls.backward.__qualname__ == "unary.<locals>.backward"


for _name in unary.METHODS:
    _op = getattr(unary, _name, None)
    if _built_by_unary(_op):
        register(_op.Function)(functools.partial(_via_backward, _op.Function))


def _alpha(args, kwargs):
    return args[2] if len(args) > 2 else kwargs.get("alpha", 1)


@register(arithmetic.Add)
def _add(args, kwargs, out, tangents):
    ta, tb = tangents[:2]
    alpha = _alpha(args, kwargs)
    return plus(ta, tb if tb is None or alpha == 1 else tb * alpha)


@register(arithmetic.Sub)
def _sub(args, kwargs, out, tangents):
    ta, tb = tangents[:2]
    return plus(ta, None if tb is None else tb * -_alpha(args, kwargs))


@register(arithmetic.Mul)
def _mul(args, kwargs, out, tangents):
    (a, b), (ta, tb) = args[:2], tangents[:2]
    return plus(None if ta is None else ta * b, None if tb is None else a * tb)


def _true_division(args, kwargs) -> bool:
    return (args[2] if len(args) > 2 else kwargs.get("rounding_mode")) is None


@register(arithmetic.Div, when=_true_division)
def _div(args, kwargs, out, tangents):
    (a, b), (ta, tb) = args[:2], tangents[:2]
    return plus(None if ta is None else ta / b, None if tb is None else -out * tb / b)


@register(arithmetic.Neg)
def _neg(args, kwargs, out, tangents):
    return -tangents[0]


@register(Where)
def _where(args, kwargs, out, tangents):
    condition, tx, ty = args[0], tangents[1], tangents[2]
    return Where.apply(condition, 0.0 if tx is None else tx, 0.0 if ty is None else ty)
