"""Compiled calls whose results need their autograd graph after the call (the plain
`model = torch.compile(model)` in a training loop that calls `loss.backward()` itself).

The tracer traces the backward of such a call right after its forward, with one gradient
input per result that requires grad, as AOT autograd does: the plan gets a forward part
that also returns the arrays the backward reads (saved arrays and ctxs) and a backward
part that turns the results' gradients into the gradients of the call's differentiable
tensors (its inputs and the parameters it read). A replay runs the forward part inside
one autograd node, `CompiledFunctionBackward` (torch's name), whose edges lead to those
tensors: the engine calls the backward part when the user's backward reaches it and
accumulates into `.grad` as for any node.
"""
from __future__ import annotations

import numpy as np

from .._modes import current as current_modes
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad


class CompiledFunction(Function):
    """One replay of a plan with a backward part, as a node of the autograd graph. The
    arrays the backward part reads are saved as a node's saved tensors are (so the engine
    frees them after backward and checks them for in-place changes); the ctxs it reads
    are kept beside them."""
    exposes_saved_tensors = True   # torch defines it as a Python autograd.Function

    backward_name = "CompiledFunctionBackward"

    @staticmethod
    def forward(ctx, plan, tensors, *targets):
        results = plan.function(tensors, *[t._data for t in tensors])
        count = plan.output_count
        saved = results[count:]
        ctx.plan = plan
        ctx.save_for_backward(*(v for v, is_array in zip(saved, plan.saved_arrays) if is_array))
        ctx.nodes = [v for v, is_array in zip(saved, plan.saved_arrays) if not is_array]
        outputs = results[:count]
        ctx.mark_non_differentiable(*(out for i, out in enumerate(outputs)
                                      if i not in plan.differentiable))
        return tuple(outputs)

    @staticmethod
    def backward(ctx, *grads):
        if current_modes().grad_enabled:
            raise RuntimeError("torch.compile with aot_autograd does not currently support "
                               "double backward")
        plan = ctx.plan
        arrays = iter(t._data for t in ctx._unpacked_saved)
        nodes = iter(ctx.nodes)
        saved = [next(arrays) if is_array else next(nodes) for is_array in plan.saved_arrays]
        outputs = ctx._output_meta
        given = [np.zeros(*outputs[i]) if grads[i] is None else grads[i]._data
                 for i in plan.differentiable]
        found = plan.backward_function(*given, *saved)
        return (None, None) + tuple(None if g is None else Tensor._wrap(g) for g in found)


def replay(plan, tensors: list):
    """Run `plan` (one with a backward part) on the call's input tensors: its outputs,
    recorded as outputs of one CompiledFunctionBackward node."""
    targets = [tensors[source] if isinstance(source, int) else source
               for source in plan.targets]
    # The traced results had a graph, so the node is recorded even where the caller
    # disabled grad (the call enabled it inside, with torch.enable_grad()).
    with enable_grad():
        return CompiledFunction.apply(plan, tensors, *targets)
