"""Ready-made parametrizations (torch.nn.utils.parametrizations): weight_norm."""
from __future__ import annotations

from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["weight_norm"]


class _WeightNorm(Module):
    """weight = g * v / ||v|| from (g, v) = (original0, original1)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name: str = "weight", dim: int | None = 0):
    """Reparametrize module.`name` as g * v / ||v|| (norm over every dimension but `dim`;
    dim=None for the whole tensor): g and v are parametrizations.`name`.original0 and
    original1. Checkpoints of the older hook form (`name`_g, `name`_v) still load."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_hook_form(state_dict, prefix, local_metadata, strict, missing_keys,
                       unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_hook_form)
    return module
