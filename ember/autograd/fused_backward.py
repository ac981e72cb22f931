"""FusedBackward: the backward of a fused op as an op of its own (Chainer's pattern).

A fused primitive (linear, the normalizations, softmax, attention ...) computes its
gradients with one fast NumPy kernel. When the backward pass is itself recorded
(`create_graph=True`), those gradients must be differentiable too. Rather than a second,
slower first derivative in ember ops for that case, the fused op's backward calls a
FusedBackward Function:

- its forward is the fast kernel, on arrays, so the first derivative always comes from
  the one implementation, recorded or not;
- its backward (the op's second derivative) differentiates `derivative`, the same
  formula written in ember ops, with autograd. Being ember ops, it can be differentiated
  again.

A subclass defines `forward(ctx, *arrays, *options)`, which first saves every Tensor
input, in order (`ctx.save_for_backward(grad, x, weight)`), and `derivative(ctx, *saved)`,
which returns the same gradients as forward, as Tensors computed with ember ops.
"""
from __future__ import annotations

from .function import Function
from .grad_mode import enable_grad


class FusedBackward(Function):
    """The gradient computation of a fused op, recorded like any op (module docstring)."""

    @staticmethod
    def derivative(ctx, *saved):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, *grad_outputs):
        from . import grad      # the package's autograd.grad (it imports this layer)

        saved = ctx._unpacked_saved
        # autograd.grad gives total derivatives: asked about x directly, it would also
        # count x's path through the incoming gradient, which the engine is already
        # sending along that gradient's own edge. A fresh view of each input is a node
        # nothing else uses, so the gradients reaching the views are the partial ones;
        # they stay connected to the inputs, so they can be differentiated again.
        with enable_grad():
            views = tuple(None if t is None or not t.requires_grad else t.view_as(t)
                          for t in saved)
            outputs = ctx.derivative(ctx, *(t if v is None else v
                                            for t, v in zip(saved, views)))
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs)
                 if o is not None and g is not None and o.requires_grad]
        wanted = [v for v in views if v is not None]
        found = grad([o for o, _ in pairs], wanted, [g for _, g in pairs],
                     create_graph=True, allow_unused=True) if pairs and wanted else ()
        by_view = {id(v): g for v, g in zip(wanted, found)}
        # The saved tensors are forward's first positional inputs; the rest are options.
        grads = tuple(None if v is None else by_view.get(id(v)) for v in views)
        return grads + (None,) * (len(ctx.needs_input_grad) - len(grads))
