"""ember.autograd: backward, grad, Function, grad modes, anomaly detection, gradcheck.

autograd.functional (which builds on ops) and autograd.profiler (on ember.profiler) sit
in higher layers: ember/__init__.py loads them, which binds them here as in torch."""
from __future__ import annotations

import numpy as np

from .._data_conversion import array_from_data
from .._modes import current
from .._tensor import Tensor
from . import engine
from .anomaly_mode import detect_anomaly, set_detect_anomaly, is_anomaly_enabled
from .function import Function
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, no_grad,
                        set_grad_enabled, is_inference_mode_enabled)
from .gradcheck import gradcheck, gradgradcheck
from .variable import Variable
from . import graph, forward_ad, tensor_methods  # noqa: F401  (tensor_methods binds)

__all__ = ["backward", "grad", "Function", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "detect_anomaly", "set_detect_anomaly", "gradcheck",
           "gradgradcheck", "Variable"]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _root_grads(outputs, grad_outputs):
    """Default and check the gradients that seed the backward pass."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs. "
                                   "Hint: call .sum() or .mean() on the output first, or pass "
                                   "gradient=torch.ones_like(output).")
            g = Tensor._wrap(np.ones_like(out._data))
        elif not isinstance(g, Tensor):
            g = Tensor._wrap(array_from_data(g, out.dtype))
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{g.shape} and output[{i}] has a shape of {out.shape}.")
        if g.dtype != out.dtype:
            g = g.to(out.dtype)     # torch's engine casts each seed to its output's dtype
        grads.append(g)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate gradients of `tensors` into the `.grad` of the graph's leaves."""
    tensors = _as_tuple(tensors)
    doctor = current().doctor
    if doctor is not None:
        doctor.backward(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    grad_tensors = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(tensors, grad_tensors)
    roots = [t._edge() for t in tensors]
    if inputs is None:
        engine.run_backward(roots, grads, retain_graph, create_graph)
        return
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    targets = [t._edge() for t in inputs]
    captured = engine.run_backward(roots, grads, retain_graph, create_graph, capture=targets,
                                   accumulate=False)
    for t, edge in zip(inputs, targets):
        g = captured.get(edge)
        if g is not None:
            if t._grad is None:
                t._grad = g if create_graph else g.detach().clone()
            else:
                t._grad = t._grad + g if create_graph else t._grad.add_(g.detach())


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False,
         materialize_grads: bool = False):
    """Return the gradients of `outputs` with respect to `inputs` (nothing is accumulated)."""
    if is_grads_batched:
        raise NotImplementedError("autograd.grad: is_grads_batched=True is not supported by ember")
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _root_grads(outputs, grad_outputs)
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    targets = [t._edge() for t in inputs]
    captured = engine.run_backward([o._edge() for o in outputs], grads, retain_graph,
                                   create_graph, capture=targets, accumulate=False)
    result = []
    for i, (t, edge) in enumerate(zip(inputs, targets)):
        g = captured.get(edge)
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is "
                                   "the desired behavior.")
            if materialize_grads:
                g = Tensor._wrap(np.zeros_like(t._data))
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)
