"""Ready-made parametrizations (torch.nn.utils.parametrizations): weight_norm,
spectral_norm, and orthogonal (in _orthogonal.py)."""
from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..functional.distance import normalize
from ..modules.module import Module
from . import parametrize
from ..._naming import set_public_module
from ._orthogonal import orthogonal
from .spectral_norm import output_dim
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "weight_norm", "spectral_norm"]

set_public_module(__name__, orthogonal)      # torch defines it in this module


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


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of weight viewed as a matrix (rows
    along `dim`), estimated by power iteration on the buffers _u, _v: 15 steps when
    registered, then n_power_iterations at every access in training mode. A vector is
    divided by its norm."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim % ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            height, width = weight_mat.shape
            self.register_buffer("_u", normalize(weight_mat.new_empty(height).normal_(0, 1),
                                                 dim=0, eps=eps))
            self.register_buffer("_v", normalize(weight_mat.new_empty(width).normal_(0, 1),
                                                 dim=0, eps=eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(weight_mat.t().mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / u.dot(weight_mat.mv(v))

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None):
    """Divide module.`name` by its largest singular value, estimated by power iteration
    at every access in training mode. dim: the output dimension (1 for transposed
    convolutions, 0 otherwise, by default). Returns the module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, output_dim(module, dim), eps))
    return module
