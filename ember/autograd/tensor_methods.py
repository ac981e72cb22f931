"""Tensor's autograd methods: where gradient enters a tensor (its graph node, or the
AccumulateGrad node of a leaf), hooks, retain_grad and backward(). They are bound onto
Tensor here, in the autograd layer, since the tensor layer below knows no graph nodes."""
from __future__ import annotations

from .._modes import current as modes
from .._tensor import bind_methods
from .graph import AccumulateGrad


def edge(self):
    """The (node, output_nr) through which gradient flows into this tensor."""
    if self._grad_fn is not None:
        return (self._grad_fn, self._output_nr)
    if self._accumulator is None:
        self._accumulator = AccumulateGrad(self)
    return (self._accumulator, 0)


def retain_grad(self) -> None:
    """Keep this non-leaf tensor's gradient in .grad after backward (leaves always do)."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None:
        return
    if self._grad_fn._retained is None:
        self._grad_fn._retained = {}
    self._grad_fn._retained[self._output_nr] = self


def register_hook(self, hook):
    """hook(grad) -> None or a replacement gradient, called when the grad is computed."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    record = getattr(modes().recorder, "record_hook", None)
    if record is not None:      # compile's tracer cannot replay a hook
        record("Tensor.register_hook")
    node, nr = self._edge()
    return node._add_tensor_hook(nr, hook)


def register_post_accumulate_grad_hook(self, hook):
    """hook(tensor), called after a leaf's gradient has been accumulated into .grad."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                           "tensors")
    node, _ = self._edge()

    def after_accumulate(grad_inputs, grad_outputs):
        hook(self)
    return node.register_hook(after_accumulate)


def tensor_backward(self, gradient=None, retain_graph=None, create_graph: bool = False,
                    inputs=None) -> None:
    """Accumulate the gradient of this tensor into the .grad of the graph's leaves."""
    from . import backward as run_backward
    run_backward(self, gradient, retain_graph, create_graph, inputs=inputs)


bind_methods(_edge=edge, retain_grad=retain_grad, register_hook=register_hook,
             register_post_accumulate_grad_hook=register_post_accumulate_grad_hook,
             backward=tensor_backward)
