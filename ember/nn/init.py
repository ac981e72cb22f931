"""nn.init: fill a tensor in place with values from an initialisation scheme.

Every function writes into the tensor's own memory without recording autograd
history (as torch does under no_grad) and returns the tensor. A meta tensor has no
memory: the functions check their arguments, draw nothing and return it.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _sampling
from .._random import default_generator
from .._tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_",
           "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal",
           "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
           "kaiming_normal", "orthogonal", "sparse"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d", "sigmoid")


def _write(tensor: Tensor, values) -> Tensor:
    """Store values (broadcast, cast to tensor's dtype) into tensor's memory."""
    np.copyto(tensor._data_to_write(), values, casting="unsafe")
    return tensor


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for an activation (e.g. sqrt(2) for relu)."""
    if nonlinearity in _LINEAR_FNS:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill `tensor` in place with draws from the uniform distribution U(a, b); returns it."""
    if tensor.is_meta:
        return tensor
    return _write(tensor, _sampling.uniform(generator or default_generator, tensor.shape, a, b,
                                            tensor.dtype.numpy))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill `tensor` in place with draws from N(mean, std**2); returns it."""
    if tensor.is_meta:
        return tensor
    return _write(tensor, _sampling.normal(generator or default_generator, tensor.shape, mean,
                                           std, tensor.dtype.numpy))


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator=None) -> Tensor:
    """N(mean, std^2) restricted to [a, b], by torch's rejection sampling: when [a, b] holds
    more than 30% of the mass, normal draws outside it are drawn again; else uniform draws
    in [a, b] are kept with probability exp(-(x - mean)^2 / 2 std^2) relative to the
    density's peak in [a, b]."""
    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    if tensor.is_meta:
        return tensor
    gen, shape, dtype = generator or default_generator, tensor.shape, tensor.dtype.numpy.type
    if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
        low, high = dtype(a), dtype(b)
        result = _sampling.normal(gen, shape, mean, std, dtype)
        while (outside := (result < low) | (result > high)).any():
            result = np.where(outside, _sampling.normal(gen, shape, mean, std, dtype), result)
        return _write(tensor, result)
    log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2

    def draw_and_test(pending):
        """Fresh uniform candidates, and which of them the acceptance draws reject."""
        candidates = _sampling.uniform(gen, shape, a, b, dtype)
        log_density = (candidates - dtype(mean)) / dtype(std)
        log_density = log_density ** 2 * dtype(-0.5) - dtype(log_peak)
        rejected = np.log(_sampling.uniform(gen, shape, 0, 1, dtype)) > log_density
        return candidates, rejected if pending is None else pending & rejected

    result, pending = draw_and_test(None)
    while pending.any():
        candidates, still = draw_and_test(pending)
        result = np.where(pending, candidates, result)
        pending = still
    return _write(tensor, result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill `tensor` in place with the value `val`; returns it."""
    return _write(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill `tensor` in place with ones; returns it."""
    return _write(tensor, 1)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill `tensor` in place with zeros; returns it."""
    return _write(tensor, 0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D `tensor` in place with the identity matrix (ones on the diagonal, zeros elsewhere,
    for any rectangular shape); returns it."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    return _write(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Conv weights that pass channel i of each group straight to output i."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    if tensor.is_meta:
        return tensor
    n = min(out_per_group, sizes[1])
    values = np.zeros(sizes)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        idx = np.arange(n)
        values[(g * out_per_group + idx, idx) + centre] = 1
    return _write(tensor, values)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot initialisation: fill `tensor` from U(-b, b) with b = gain * sqrt(6 / (fan_in +
    fan_out)), which keeps activations' variance across layers."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot initialisation: fill `tensor` from N(0, std**2) with std = gain * sqrt(2 / (fan_in +
    fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """He initialisation: fill `tensor` from U(-b, b) with b = gain(nonlinearity, a) * sqrt(3 /
    fan), fan being fan_in or fan_out as `mode` says."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """He initialisation: fill `tensor` from N(0, std**2) with std = gain(nonlinearity, a) /
    sqrt(fan), fan being fan_in or fan_out as `mode` says."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a Gaussian matrix."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _sampling.normal(generator or default_generator, (rows, cols), 0, 1,
                            tensor.dtype.numpy)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))  # makes the decomposition unique (uniform over rotations)
    if rows < cols:
        q = q.T
    return _write(tensor, gain * q.reshape(tensor.shape))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """N(0, std^2) values with a fraction `sparsity` of each column set to zero."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    if tensor.is_meta:
        return tensor
    gen = generator or default_generator
    values = _sampling.normal(gen, (rows, cols), 0, std, tensor.dtype.numpy)
    for col in range(cols):     # the first num_zeros rows of a permutation are zeroed
        values[_sampling.permutation(gen, rows)[:num_zeros], col] = 0
    return _write(tensor, values)


def _make_deprecate(method):
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return method(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of nn.init.{new_name}."
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
