"""Tangent rules of the bilinear ops (matmul, linear, convolution): each term is the op
applied with one operand replaced by its tangent."""
from __future__ import annotations

from ....nn.functional.conv import Conv
from ....nn.functional.linear import _LinearFn
from ....ops.linalg import MatMul
from ..rules import register
from ._terms import plus


@register(MatMul)
def _matmul(args, kwargs, out, tangents):
    (x, y), (tx, ty) = args, tangents
    return plus(None if tx is None else MatMul.apply(tx, y),
                None if ty is None else MatMul.apply(x, ty))


@register(_LinearFn)
def _linear(args, kwargs, out, tangents):
    x, weight = args[:2]
    tx, tw = tangents[:2]
    tb = tangents[2] if len(tangents) > 2 else None
    return plus(None if tx is None else _LinearFn.apply(tx, weight),
                None if tw is None else _LinearFn.apply(x, tw), tb)


@register(Conv)
def _conv(args, kwargs, out, tangents):
    x, w, _, geo = args
    tx, tw, tb = tangents[:3]
    return plus(None if tx is None else Conv.apply(tx, w, None, geo),
                None if tw is None else Conv.apply(x, tw, None, geo),
                None if tb is None else tb.reshape((-1,) + (1,) * (out.ndim - 2)))
