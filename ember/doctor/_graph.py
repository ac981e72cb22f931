"""Checks that watch the autograd graph at backward() and at `+`: nan-loss,
loss-accumulated-with-graph.

loss-accumulated-with-graph: each backward() remembers the loss's node and the nodes just
below it, with the optimizer step count and the backward pass's number. A scalar `a + b`
where an operand is built from (not is) such a loss, found a few nodes below it, and that
loss was backpropagated before the latest optimizer step and before the latest backward
pass, adds to a value that holds an earlier iteration's graph (`total += loss`). Sums of
the current iteration's losses (`loss_a + loss_b`, a GAN's `errD_real + errD_fake`,
before or after the step) do not meet all three conditions and stay silent.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor

NAN_LOSS = (
    "backward() was called on a loss that is {value}{source} — find the op that first "
    "produced it (torch.autograd.detect_anomaly() names it), e.g. log of 0, division by 0 or "
    "an exploding learning rate")
FROM_OP = (", and the deepest op whose output the graph saved as non-finite is {op}"
           "{inputs}")
FROM_LEAF = ", and a leaf tensor (an input or a parameter) already held non-finite values"
LOSS_ACCUMULATED_WITH_GRAPH = (
    "a loss that carries autograd history is added to a sum kept across iterations, which "
    "keeps every iteration's graph alive (memory grows each step) — accumulate a number "
    "instead: total += loss.item() (or loss.detach())")

_DEPTH = 3      # nodes searched below an operand of `+` (total + loss * n: two levels)
_KEPT_PASSES = 16   # backward passes whose losses are remembered


def _nodes_below(node, depth: int):
    """node and the nodes up to `depth` edges below it."""
    level = [node]
    for _ in range(depth + 1):
        following = []
        for n in level:
            yield n
            following.extend(fn for fn, _ in n.next_functions if fn is not None)
        level = following


class GraphChecks:
    """The checks at backward() and at the `+` operators."""

    def __init__(self, doctor):
        self.doctor = doctor
        # id(node) -> (node, doctor.steps, doctor.backwards) at its backward pass
        self.losses: dict[int, tuple] = {}

    def before_backward(self, tensors) -> None:
        steps, number = self.doctor.steps, self.doctor.backwards
        # a sum reaches back one step at most before it is caught; the cap on backward
        # passes bounds the memory of programs that never step an optimizer
        for key in [k for k, seen in self.losses.items()
                    if seen[1] < steps - 1 or seen[2] < number - _KEPT_PASSES]:
            del self.losses[key]
        for t in tensors:
            if not isinstance(t, Tensor):   # backward() raises its own error for it
                continue
            node = t.grad_fn
            if node is not None:
                for n in _nodes_below(node, 1):
                    self.losses[id(n)] = (n, steps, number)
            self._check_finite(t)

    def add(self, a, b) -> None:
        for x in (a, b):
            if isinstance(x, Tensor) and x.grad_fn is not None and x.numel() == 1:
                self._check_accumulation(x.grad_fn)

    def _check_accumulation(self, node) -> None:
        steps, latest = self.doctor.steps, self.doctor.backwards - 1
        below = _nodes_below(node, _DEPTH)
        next(below)     # the operand itself may be a loss: a sum of this iteration's losses
        for n in below:
            seen = self.losses.get(id(n))
            if seen is not None and seen[0] is n and seen[1] < steps and seen[2] < latest:
                self.doctor.report.add("loss-accumulated-with-graph",
                                       LOSS_ACCUMULATED_WITH_GRAPH)
                return

    def _check_finite(self, t) -> None:
        if not t.is_floating_point() or t.numel() != 1:
            return
        value = float(t.detach())
        if math.isfinite(value):
            return
        source = ""
        if t.grad_fn is not None:
            origin, from_finite = _first_non_finite(t.grad_fn)
            if origin is _LEAF:
                source = FROM_LEAF
            elif origin is not None:
                source = FROM_OP.format(op=origin.name(),
                                        inputs=" from finite inputs" if from_finite else "")
        self.doctor.report.add("nan-loss", NAN_LOSS.format(value=value, source=source))


_LEAF = object()    # _first_non_finite's answer when a leaf tensor held the first bad value


def _finite(array) -> bool:
    return array.dtype.kind not in "fc" or bool(np.isfinite(array).all())


def _first_non_finite(root):
    """(node, from_finite): the deepest node below `root` whose output the graph saved for
    backward as non-finite (saved by itself or by a node above it), and whether the inputs
    it saved are all finite (then it made the first bad value). (_LEAF, False) when a saved
    leaf tensor is non-finite; (None, False) when nothing saved shows one (an op that saves
    nothing hides its output). Runs only for a non-finite loss: it walks the whole graph."""
    producers, clean, seen, order = set(), set(), {root}, [root]
    for node in order:          # breadth first: `order` grows while it is walked
        inputs = [s.tensor for s in getattr(node, "_saved", ()) or ()
                  if getattr(s, "tensor", None) is not None]
        inputs_finite = True
        for tensor in inputs:
            if not _finite(tensor.numpy(force=True)):
                inputs_finite = False
                producers.add(_LEAF if tensor.grad_fn is None else tensor.grad_fn)
        if inputs and inputs_finite:
            clean.add(node)
        for saved in getattr(node, "_outputs_saved", ()) or ():
            if saved.data is not None and not _finite(saved.data):   # (None: packed by hooks)
                producers.add(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                order.append(child)
    if _LEAF in producers:
        return _LEAF, False
    found = [node for node in order if node in producers]
    return (found[-1], found[-1] in clean) if found else (None, False)
