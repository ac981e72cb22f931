"""Tangent rule of cross-entropy with class-index targets (no class weights, no label
smoothing; the other forms take the generic rule): loss_n = -log_softmax(x)_n[t_n], so
d loss_n = sum_c softmax(x)_nc dx_nc - dx_n[t_n], zero for ignored targets."""
from __future__ import annotations

import numpy as np

from ....nn.functional.loss import CrossEntropy
from ..rules import register


def _plain_class_indices(args, kwargs) -> bool:
    input, target, weight, _, label_smoothing, _ = args
    return (input.ndim == 2 and target.ndim == 1 and weight is None and not label_smoothing
            and np.asarray(target).dtype.kind in "iu")


@register(CrossEntropy, when=_plain_class_indices)
def _cross_entropy(args, kwargs, out, tangents):
    input, target, _, ignore_index, _, reduction = args
    t = tangents[0]
    if t is None:
        return None
    target = np.asarray(target)         # forward received the target's array
    keep = target != ignore_index
    picked = t[np.arange(len(target)), np.where(keep, target, 0)]
    per_row = ((input.softmax(1) * t).sum(1) - picked) * t.new_tensor(keep)
    if reduction == "none":
        return per_row
    total = per_row.sum()
    return total / float(keep.sum()) if reduction == "mean" else total
