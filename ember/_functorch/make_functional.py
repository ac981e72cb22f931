"""functorch's make_functional / make_functional_with_buffers / combine_state_for_ensemble
(torch._functorch.make_functional): an nn.Module turned into a function of its weights.

The returned FunctionalModule keeps a stateless copy of the model (its tensors on the meta
device) and runs it through functional_call with the weights it is given, in the order
named_parameters() / named_buffers() list them (a tied tensor once).
"""
from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

from ..nn.modules.module import Module
from ..nn.utils.stateless import _functional_call
from ..ops.joining import stack

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "make_functional",
           "make_functional_with_buffers", "combine_state_for_ensemble"]


def _stateless_copy(model: Module, with_buffers: bool):
    """(a copy of model whose tensors are on the meta device, its parameters and names,
    its buffers and names); the weights returned are the copy's own, detached from model."""
    model_copy = copy.deepcopy(model)
    named_params = dict(model_copy.named_parameters())
    named_buffers = dict(model_copy.named_buffers()) if with_buffers else {}
    stateless = copy.deepcopy(model_copy).to("meta")
    return (stateless, tuple(named_params), tuple(named_params.values()),
            tuple(named_buffers), tuple(named_buffers.values()))


def _run(stateless: Module, names: Sequence[str], tensors: Iterable, args, kwargs) -> Any:
    tensors = tuple(tensors)
    if len(tensors) != len(names):
        raise ValueError(f"Expected {len(names)} tensors for the model's parameters and "
                         f"buffers, got {len(tensors)}")
    return _functional_call(stateless, dict(zip(names, tensors)), args, kwargs,
                            tie_weights=True, strict=False)


class FunctionalModule(Module):
    """func(params, *args, **kwargs): the model run with `params` as its parameters."""

    def __init__(self, stateless_model: Module, param_names: tuple) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names

    def forward(self, params: Iterable, *args: Any, **kwargs: Any) -> Any:
        return _run(self.stateless_model, self.param_names, params, args, kwargs)


class FunctionalModuleWithBuffers(Module):
    """func(params, buffers, *args, **kwargs): the model run with those parameters and
    buffers."""

    def __init__(self, stateless_model: Module, param_names: tuple,
                 buffer_names: tuple) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names

    def forward(self, params: Iterable, buffers: Iterable, *args: Any, **kwargs: Any) -> Any:
        return _run(self.stateless_model, self.param_names + self.buffer_names,
                    tuple(params) + tuple(buffers), args, kwargs)


def _untracked(tensors: tuple, disable_autograd_tracking: bool) -> tuple:
    if disable_autograd_tracking:
        for t in tensors:
            t.requires_grad_(False)
    return tensors


def make_functional(model: Module, disable_autograd_tracking: bool = False):
    """(func, params): func(params, *args) runs model with params (copies of its
    parameters, which require grad unless disable_autograd_tracking)."""
    if list(model.buffers()):
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    stateless, names, params, _, _ = _stateless_copy(model, with_buffers=False)
    return FunctionalModule(stateless, names), _untracked(params, disable_autograd_tracking)


def make_functional_with_buffers(model: Module, disable_autograd_tracking: bool = False):
    """(func, params, buffers): func(params, buffers, *args) runs model with them."""
    stateless, names, params, buffer_names, buffers = _stateless_copy(model, with_buffers=True)
    return (FunctionalModuleWithBuffers(stateless, names, buffer_names),
            _untracked(params, disable_autograd_tracking), buffers)


def combine_state_for_ensemble(models: Sequence[Module]):
    """(func, params, buffers) for vmap over an ensemble: every parameter and buffer is
    the models' ones stacked along a new first dimension (detached)."""
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same "
                           "class.")
    funcs, params, buffers = zip(*[make_functional_with_buffers(m) for m in models])
    return (funcs[0], tuple(stack(shards).detach() for shards in zip(*params)),
            tuple(stack(shards).detach() for shards in zip(*buffers)))
