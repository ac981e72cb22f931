"""Calling a module with other tensors in place of its parameters and buffers.

functional_call(model, {"fc.weight": w}, x) runs model(x) as if model.fc.weight were w, then
puts the module's own tensors back (also when the call raises). Gradients flow to w, so a
module can be used as a pure function of its weights (meta-learning, ensembles, per-sample
tricks). The swap writes straight into `_parameters` / `_buffers`, so a plain tensor can
stand in for a Parameter.
"""
from __future__ import annotations

import contextlib
import warnings
from typing import Any

from ..._tensor import Tensor
from ..modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()   # marks a name the module did not have before the swap


def _submodule(module: Module, path: str) -> Module:
    for attr in filter(None, path.split(".")):
        try:
            child = getattr(module, attr)
        except AttributeError as error:
            raise AttributeError(f"{module._get_name()} has no attribute `{attr}`") from error
        if not isinstance(child, Module):
            raise TypeError(f"submodule `{path}`: {child} is not an instance of "
                            "torch.nn.Module")
        module = child
    return module


def _swap(module: Module, name: str, tensor):
    """Put `tensor` (or _MISSING: remove) under `name` in `module`; return what was there."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for table in (module._parameters, module._buffers):
        if name in table:
            old = table[name]
            if tensor is _MISSING:
                del table[name]
            else:
                table[name] = tensor
            return old
    old = getattr(module, name, _MISSING)
    if old is not _MISSING and old is not None and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{name}`: {old} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif old is not _MISSING:
        delattr(module, name)
    return old


def _swap_all(module: Module, tensors: dict) -> dict:
    """Swap every dotted name in `tensors`; returns the previous values. All or nothing: a bad
    name or value puts back what was already swapped before the error propagates."""
    previous = {}
    try:
        for path, tensor in tensors.items():
            prefix, _, name = path.rpartition(".")
            previous[path] = _swap(_submodule(module, prefix), name, tensor)
    except Exception:
        _swap_all(module, previous)
        raise
    return previous


def _tie(module: Module, tensors: dict) -> dict:
    """Extend `tensors` to every name that shares a tensor with a given name (tied weights);
    different values given for one tied tensor are ambiguous."""
    names_of = {}
    for name, tensor in (list(module.named_parameters(remove_duplicate=False))
                         + list(module.named_buffers(remove_duplicate=False))):
        names_of.setdefault(id(tensor), []).append(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    result = dict(tensors)
    for name in [n for n in tensors if n in tied]:
        values = {id(tensors[n]) for n in tied[name] if n in tensors}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied[name])}"
                             ", which are tied. Consider using tie_weights=False")
        result.update((n, tensors[name]) for n in tied[name])
    return result


def _check_keys(module: Module, tensors: dict) -> None:
    """strict=True: the names must be exactly the module's parameters and buffers."""
    own = set(dict(module.named_parameters(remove_duplicate=False)))
    own |= set(dict(module.named_buffers(remove_duplicate=False)))
    unexpected = sorted(set(tensors) - own)
    missing = sorted(own - set(tensors))
    errors = []
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
            module._get_name(), "\n\t".join(errors)))


@contextlib.contextmanager
def _reparametrize_module(module: Module, given: dict, tie_weights: bool = False,
                          strict: bool = False):
    """Swap `given` in for the duration of the block. Afterwards `given` holds what the module
    left under each name (a forward that reassigns a buffer updates the caller's dict)."""
    tensors = _tie(module, given) if tie_weights else given
    if strict:
        _check_keys(module, tensors)
    previous = {}
    try:
        previous = _swap_all(module, tensors)
        yield
    finally:
        final = _swap_all(module, previous)
        given.update((name, final[name]) for name in given if name in final)


def _functional_call(module: Module, tensors: dict, args=None, kwargs=None, *,
                     tie_weights: bool = True, strict: bool = False) -> Any:
    from ..parallel.data_parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, tensors, tie_weights=tie_weights, strict=strict):
        return module(*args, **(kwargs or {}))


def functional_call(module: Module, parameters_and_buffers: dict, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """Deprecated spelling of torch.func.functional_call (one dict of tensors)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
