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

from .._tensor import Tensor

NAN_LOSS = (
    "backward() was called on a loss that is {value} — find the op that first produced it "
    "(torch.autograd.detect_anomaly() names it), e.g. log of 0, division by 0 or an "
    "exploding learning rate")
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
        if not math.isfinite(value):
            self.doctor.report.add("nan-loss", NAN_LOSS.format(value=value))
