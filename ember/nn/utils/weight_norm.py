"""Weight normalization (Salimans & Kingma, 2016) as a forward pre-hook, torch's original
(now deprecated) form of it.

weight_norm(module) replaces module.weight by two parameters, weight_g (the magnitude,
one per slice along `dim`) and weight_v (the direction), and recomputes

    weight = weight_g * weight_v / ||weight_v||

before every forward call. The norm is taken over every dimension except `dim`;
dim=None (or -1, as in torch) takes it over the whole tensor.
"""
from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ...ops.indexing import _named
from ..parameter import Parameter
from ._pre_hooks import remove_pre_hook

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The `pow`-norm of v over every dimension except `dim`, shaped to broadcast against
    v (size 1 everywhere but at `dim`); dim=-1 gives the norm of the whole tensor."""
    if dim == -1:
        return v.norm(pow)
    dim %= v.ndim
    axes = tuple(d for d in range(v.ndim) if d != dim)
    return v.abs().pow(pow).sum(axes, keepdim=True).pow(1.0 / pow)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """g * v / norm_except_dim(v, 2, dim): the weight of weight normalization. torch
    runs a fused kernel (and names the node for it) when dim is the first or last."""
    weight = v * (g / norm_except_dim(v, 2, dim))
    return _named(weight, "WeightNormInterfaceBackward0") if dim in (0, v.ndim - 1) \
        else weight


class WeightNorm:
    """The forward pre-hook that recomputes `name` from `name`_g and `name`_v."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name: str, dim: int | None) -> "WeightNorm":
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name: str = "weight", dim: int | None = 0):
    """Reparametrize module.`name` as `name`_g * `name`_v / ||`name`_v|| (norm over every
    dimension but `dim`; dim=None for the whole tensor), recomputed before each forward.
    Returns the module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Undo weight_norm: `name` becomes one Parameter again, with the current value."""
    remove_pre_hook(module, WeightNorm, name, "weight_norm")
    return module
