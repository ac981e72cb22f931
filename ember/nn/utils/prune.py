"""Pruning: zero out parts of a parameter through a mask, as torch.nn.utils.prune.

Pruning `module.weight` reparametrizes it:

    module.weight_orig    the Parameter itself (still trained, gradients reach it)
    module.weight_mask    a buffer of 0s and 1s
    module.weight         a plain attribute, weight_orig * weight_mask, recomputed by a
                          forward pre-hook (the pruning method object) before every call

Pruning the same parameter again combines the masks in a PruningContainer: the new
method only looks at what is still unpruned. remove(module, name) makes the pruning
permanent: `weight` becomes a Parameter holding the masked values again.
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._memory_format import contiguous_format
from ..._tensor import Tensor
from ...ops.creation import ones_like, zeros_like
from ...ops.random import rand, rand_like
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask",
           "identity", "random_unstructured", "l1_unstructured", "random_structured",
           "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


# ---------------------------------------------------------------- argument checks

def _validate_amount_type(amount) -> None:
    """amount is a fraction in [0, 1] (float) or a count of units (non-negative int)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    is_count = isinstance(amount, numbers.Integral)
    if (is_count and amount < 0) or (not is_count and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _units_to_prune(amount, units: int) -> int:
    """How many of `units` to prune: the count itself, or the rounded fraction."""
    if isinstance(amount, numbers.Integral):
        if amount > units:
            raise ValueError(f"amount={amount} should be smaller than the number of "
                             f"parameters to prune={units}")
        return amount
    return round(amount * units)


def _validate_structured(t: Tensor, dim: int) -> None:
    """Channels need at least two dimensions, and `dim` must exist."""
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {t.dim()} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channel_index(t: Tensor, dim: int, channels) -> tuple:
    """An index selecting `channels` (bool mask or positions) along `dim` of t."""
    index = [slice(None)] * t.dim()
    index[dim] = channels
    return tuple(index)


def _mask_of_channels(t: Tensor, dim: int, channels) -> Tensor:
    """A mask like t that is 1 on the given channels along `dim` and 0 elsewhere."""
    mask = zeros_like(t)
    mask[_channel_index(t, dim, channels)] = 1
    return mask


def _check_importance_scores(scores: Tensor, t: Tensor, what: str) -> None:
    if scores.shape != t.shape:
        raise AssertionError(f"importance_scores should have the same shape as {what}, "
                             f"got {scores.shape} vs {t.shape}")


# ---------------------------------------------------------------- the base class

class BasePruningMethod(ABC):
    """A pruning method: compute_mask() decides what to prune; apply() installs the
    reparametrization on a module; an instance is the forward pre-hook that keeps
    `name` = `name`_orig * `name`_mask up to date."""

    PRUNING_TYPE: str        # "unstructured", "structured" (needs self.dim) or "global"
    _tensor_name: str | None = None     # set by apply()

    def __call__(self, module, inputs) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask of t (same shape), on top of `default_mask` (the current one)."""

    def apply_mask(self, module) -> Tensor:
        """The pruned tensor: `name`_orig times `name`_mask."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name: str, *args, importance_scores: Tensor | None = None,
              **kwargs) -> BasePruningMethod:
        """Prune `module.<name>` with cls(*args, **kwargs), combining with earlier pruning
        of the same parameter; masks are computed from importance_scores when given."""
        method = _combined_with_earlier(cls(*args, **kwargs), module, name)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        _check_importance_scores(importance_scores, orig, f"parameter {name} of {module}")
        first_time = not isinstance(method, PruningContainer)
        if first_time:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:    # put the parameter back where it was
                module.register_parameter(name, module._parameters.pop(name + "_orig"))
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:
        """t times the mask this method computes for it (no module involved)."""
        if importance_scores is None:
            importance_scores = t
        _check_importance_scores(importance_scores, t, "tensor t")
        if default_mask is None:
            default_mask = ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: `name` becomes the `name`_orig Parameter again,
        now holding the masked values; `name`_orig and `name`_mask disappear."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        name = self._tensor_name
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        orig.data = pruned.data
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _combined_with_earlier(method: BasePruningMethod, module, name: str) -> BasePruningMethod:
    """Take the pruning hook already on module.<name> off the module (if any) and return
    what replaces it: `method` alone, or a container of the earlier method(s) and it."""
    method._tensor_name = name
    earlier = [(key, hook) for key, hook in module._forward_pre_hooks.items()
               if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(earlier) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                             f"of module {module}. Use a PruningContainer.")
    if not earlier:
        return method
    key, old = earlier[0]
    del module._forward_pre_hooks[key]
    container = old if isinstance(old, PruningContainer) else PruningContainer(old)
    container.add_pruning_method(method)
    return container


# ---------------------------------------------------------------- iterative pruning

class PruningContainer(BasePruningMethod):
    """The pruning methods applied one after another to the same parameter. Its mask is
    the last method's mask computed on the part the earlier ones left unpruned."""

    def __init__(self, *methods: BasePruningMethod) -> None:
        self._pruning_methods: tuple = ()
        if len(methods) == 1:
            self._tensor_name = methods[0]._tensor_name
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """Run the newest method on the still-unpruned part of t and write its mask there:
        unstructured methods see the unpruned entries (as a flat vector), structured ones
        the channels along their dim that are not entirely pruned, global ones all of t."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        region = _unpruned_region(method, t, default_mask)
        partial = method.compute_mask(t[region], default_mask=default_mask[region])
        mask[region] = partial.to(dtype=mask.dtype)
        return mask


def _unpruned_region(method: BasePruningMethod, t: Tensor, mask: Tensor):
    """The index of t that `method` may still prune, given the current mask."""
    if method.PRUNING_TYPE == "unstructured":
        return mask == 1
    if method.PRUNING_TYPE == "global":
        return (slice(None),) * t.dim()
    if method.PRUNING_TYPE != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
    if not hasattr(method, "dim"):
        raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the '
                             "attribute `dim` defined.")
    dim = method.dim + t.dim() if method.dim < 0 else method.dim
    if dim < 0:
        raise IndexError(f"Index is out of bounds for tensor with dimensions {t.dim()}")
    other_dims = [d for d in range(t.dim()) if d != dim]
    return _channel_index(t, dim, mask.sum(dim=other_dims) != 0)


# ---------------------------------------------------------------- the methods

class Identity(BasePruningMethod):
    """Prunes nothing: the mask stays all ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module, name: str) -> Identity:
        return super().apply(module, name)


class _AmountPruning(BasePruningMethod):
    """A method that prunes `amount` units: a fraction of them (float) or a count (int)."""

    def __init__(self, amount) -> None:
        _validate_amount_type(amount)
        self.amount = amount


class RandomUnstructured(_AmountPruning):
    """Prunes `amount` entries chosen uniformly at random."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        count = _units_to_prune(self.amount, t.nelement())
        return _zero_entries(default_mask, rand_like(t), count, largest=True)

    @classmethod
    def apply(cls, module, name: str, amount) -> RandomUnstructured:
        return super().apply(module, name, amount=amount)


class L1Unstructured(_AmountPruning):
    """Prunes the `amount` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        count = _units_to_prune(self.amount, t.nelement())
        return _zero_entries(default_mask, t.abs(), count, largest=False)

    @classmethod
    def apply(cls, module, name: str, amount,
              importance_scores: Tensor | None = None) -> L1Unstructured:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _zero_entries(default_mask: Tensor, scores: Tensor, count: int, largest: bool) -> Tensor:
    """A copy of default_mask with 0 at the `count` entries of largest (or smallest)
    score. Among equal scores topk decides, so ties may be broken unlike torch."""
    mask = default_mask.clone(memory_format=contiguous_format)
    if count:
        mask.view(-1)[scores.reshape(-1).topk(count, largest=largest).indices] = 0
    return mask


class _StructuredPruning(_AmountPruning):
    """Prunes whole channels (slices along `dim`): the mask keeps the channels chosen
    by _channels_to_keep, on top of the current mask."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim: int = -1) -> None:
        super().__init__(amount)
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _units_to_prune(self.amount, channels)
        if count == 0:
            return default_mask
        mask = _mask_of_channels(t, self.dim, self._channels_to_keep(t, channels, count))
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @abstractmethod
    def _channels_to_keep(self, t: Tensor, channels: int, count: int) -> Tensor:
        """The channels to keep (bool mask or positions) when pruning `count` of them."""


class RandomStructured(_StructuredPruning):
    """Prunes `amount` channels along `dim`, chosen at random."""

    def _channels_to_keep(self, t: Tensor, channels: int, count: int) -> Tensor:
        scores = rand(channels)
        return scores > scores.kthvalue(count).values

    @classmethod
    def apply(cls, module, name: str, amount, dim: int = -1) -> RandomStructured:
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_StructuredPruning):
    """Prunes the `amount` channels along `dim` with the smallest L`n` norm."""

    def __init__(self, amount, n, dim: int = -1) -> None:
        super().__init__(amount, dim)
        self.n = n

    def _channels_to_keep(self, t: Tensor, channels: int, count: int) -> Tensor:
        dim = self.dim % t.dim()
        norms = t.norm(p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        return norms.topk(channels - count).indices

    @classmethod
    def apply(cls, module, name: str, amount, n, dim: int,
              importance_scores: Tensor | None = None) -> LnStructured:
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given mask is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name: str, mask: Tensor) -> CustomFromMask:
        return super().apply(module, name, mask=mask)


# ---------------------------------------------------------------- functional interface

def identity(module, name: str):
    """Reparametrize module.<name> with an all-ones mask (prunes nothing)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name: str, amount):
    """Prune `amount` random entries of module.<name>."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name: str, amount, importance_scores: Tensor | None = None):
    """Prune the `amount` entries of module.<name> with the smallest |importance score|
    (the entries themselves by default)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name: str, amount, dim: int):
    """Prune `amount` random channels of module.<name> along `dim`."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name: str, amount, n, dim: int,
                  importance_scores: Tensor | None = None):
    """Prune the `amount` channels of module.<name> along `dim` of smallest L`n` norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name: str, mask: Tensor):
    """Prune module.<name> where `mask` is 0."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores: dict | None = None,
                        **kwargs) -> None:
    """Prune the (module, name) `parameters` together, as if they were one flat tensor,
    with pruning_method(**kwargs) (an unstructured method such as L1Unstructured)."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([importance_scores.get((module, name), getattr(module, name))
                                   for module, name in parameters])
    current_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name)))
         for module, name in parameters])
    method = pruning_method(**kwargs)
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container = PruningContainer()
    container._tensor_name = method._tensor_name = "temp"
    container.add_pruning_method(method)
    mask = container.compute_mask(scores, current_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(module, name, mask=mask[start:start + param.numel()].view_as(param))
        start += param.numel()


def remove(module, name: str):
    """Make the pruning of module.<name> permanent (see BasePruningMethod.remove)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module) -> bool:
    """Whether module or any of its submodules carries a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, submodule in module.named_modules()
               for hook in submodule._forward_pre_hooks.values())
