"""Tangent rules of sums, means and softmaxes."""
from __future__ import annotations

import functools

from ....ops.reduction import Mean, Sum
from ....ops.softmax import LogSoftmax, Softmax
from ..rules import register


def _same_reduction(cls, args, kwargs, out, tangents):
    """A linear reduction: the same reduction of the tangent."""
    return cls.apply(tangents[0], *args[1:], **kwargs)


for _cls in (Sum, Mean):
    register(_cls)(functools.partial(_same_reduction, _cls))


@register(Softmax)
def _softmax(args, kwargs, out, tangents):
    t, dim = tangents[0], args[1]
    return out * (t - (out * t).sum(dim, keepdim=True))


@register(LogSoftmax)
def _log_softmax(args, kwargs, out, tangents):
    t, dim = tangents[0], args[1]
    return t - (out.exp() * t).sum(dim, keepdim=True)
