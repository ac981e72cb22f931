"""Spectral normalization (Miyato et al., 2018) as a forward pre-hook, torch's original form.

spectral_norm(module) keeps the raw weight as the parameter weight_orig and, before
every forward call, sets module.weight = weight_orig / sigma, where sigma estimates the
largest singular value of weight_orig viewed as a matrix (rows along `dim`). The
estimate comes from power iteration on two buffers, weight_u and weight_v, advanced one
step (n_power_iterations) per forward in training mode and frozen in eval mode:

    v <- normalize(W^T u),  u <- normalize(W v),  sigma = u . (W v)

Gradients flow through W only: u and v are constants of each step, as in the paper.
"""
from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..functional.distance import normalize
from ..parameter import Parameter
from ._pre_hooks import remove_pre_hook

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that recomputes `name` from `name`_orig, `name`_u, `name`_v."""
    _version = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim = name, dim
        self.n_power_iterations, self.eps = n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """weight with `dim` moved first, as a (size along dim) x (everything else) matrix."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # in place: the buffers carry the estimate to the next forward
                    v.copy_(normalize(weight_mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(normalize(weight_mat.mv(v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()     # this step's constants, safe from the next
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    @staticmethod
    def apply(module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> "SpectralNorm":
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            height, width = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(weight.new_empty(height).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(width).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn

    def remove(self, module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat: Tensor, u: Tensor, target_sigma) -> Tensor:
        """The v with W v = sigma u for a checkpoint that stored only u (version 0)."""
        from ... import linalg
        v = linalg.pinv(weight_mat.t().mm(weight_mat)).mm(weight_mat.t()).mv(u)
        return v * (target_sigma / u.dot(weight_mat.mv(v)))


class SpectralNormStateDictHook:
    """Records the format version in the state_dict's metadata (as torch does)."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


class SpectralNormLoadStateDictPreHook:
    """Converts checkpoints of the first format (weight, weight_orig and weight_u, no
    weight_v) to the current one while loading."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if version is None and all(key + s in state_dict for s in ("_orig", "_u", "_v")) \
                and key not in state_dict:
            return                              # the current format without its metadata
        missing = [key + s for s in ("_orig", "", "_u") if key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with no_grad():
            weight_orig = state_dict[key + "_orig"]
            weight = state_dict.pop(key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            state_dict[key + "_v"] = fn._solve_v_and_rescale(weight_mat, state_dict[key + "_u"],
                                                             sigma)


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None):
    """Divide module.`name` by its largest singular value (estimated by power iteration)
    before every forward. dim: the output dimension (1 for transposed convolutions,
    0 otherwise, by default). Returns the module."""
    SpectralNorm.apply(module, name, n_power_iterations, output_dim(module, dim), eps)
    return module


def output_dim(module, dim: int | None) -> int:
    """`dim`, or by default the weight's output dimension: 1 for transposed convolutions
    (their weight is (in, out, ...)), 0 otherwise."""
    if dim is not None:
        return dim
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


def remove_spectral_norm(module, name: str = "weight"):
    """Undo spectral_norm: `name` becomes one Parameter again, with the current value."""
    remove_pre_hook(module, SpectralNorm, name, "spectral_norm")
    for hooks, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        for key, hook in hooks.items():
            if isinstance(hook, kind) and hook.fn.name == name:
                del hooks[key]
                break
    return module
