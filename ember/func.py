"""torch.func: function transforms and modules as functions of their weights.

The transforms (grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian, vmap)
live in ember/_functorch. grad, vjp and jacrev run on reverse-mode autograd; jvp, jacfwd and
linearize on forward-mode AD (torch.autograd.forward_ad), so jacfwd costs one run of the
function per input element, as torch's does before vmap batches them. vmap runs func once per sample in a Python loop and stacks the outputs: correct results,
not vectorised speed. functional_call and stack_module_state are defined here.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._functorch.eager_transforms import (grad, grad_and_value, hessian, jacfwd, jacrev, jvp,
                                          linearize, vjp)
from ._functorch.vmap import vmap
from .nn.modules.module import Module
from .nn.utils.stateless import _functional_call
from .ops.joining import stack

__all__ = ["functional_call", "stack_module_state", "grad", "grad_and_value", "vjp", "jvp",
           "linearize", "jacrev", "jacfwd", "hessian", "vmap"]


def _merge_dicts(dicts) -> dict:
    """One dict from a dict or a sequence of dicts whose keys must not repeat."""
    if isinstance(dicts, dict):
        return dicts
    if not isinstance(dicts, Sequence):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(dicts)}")
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    merged: dict = {}
    repeated = []
    for d in dicts:
        repeated += [k for k in d if k in merged and k not in repeated]
        merged.update(d)
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional "
                         "call is ambiguous")
    return merged


def functional_call(module: Module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """module(*args, **kwargs) with the given tensors standing in for the module's parameters
    and buffers (dotted names as in state_dict); the module's own tensors are restored
    afterwards. tie_weights: a tensor shared by several names is replaced under all of them.
    strict: the names must be exactly the module's parameters and buffers."""
    return _functional_call(module, _merge_dicts(parameter_and_buffer_dicts), args, kwargs,
                            tie_weights=tie_weights, strict=strict)


def _stacked_leaf(tensors, name: str):
    grads = {t.requires_grad for t in tensors}
    if len(grads) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if grads == {True} else result


def stack_module_state(models) -> tuple[dict, dict]:
    """(params, buffers) of same-class models stacked along a new leading dimension: each
    entry's row i belongs to models[i] (stacked parameters are new leaves)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params, buffers = ([dict(getattr(m, what)()) for m in models]
                       for what in ("named_parameters", "named_buffers"))
    return ({k: _stacked_leaf([p[k] for p in params], k) for k in params[0]},
            {k: _stacked_leaf([b[k] for b in buffers], k) for k in buffers[0]})
