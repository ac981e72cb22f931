"""Gradient clipping: rescale (clip_grad_norm_) or clamp (clip_grad_value_) the .grad of
parameters in place, between backward() and optimizer.step()."""
from __future__ import annotations

import warnings

import numpy as np

from ..._recorded_call import replayed_call
from ..._tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _as_list(parameters) -> list:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _norm(values: np.ndarray, norm_type: float) -> np.ndarray:
    """The vector norm of all entries of `values` (in values' dtype)."""
    a = np.abs(values.ravel())
    if norm_type == float("inf"):
        return a.max(initial=0)
    if norm_type == float("-inf"):
        return a.min()
    if norm_type == 0:
        return np.asarray(np.count_nonzero(a), dtype=values.dtype)
    if norm_type == 2:
        return np.sqrt(np.dot(a, a))
    return np.power(np.power(a, norm_type).sum(), 1.0 / norm_type)


@replayed_call
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """The norm of the norms of `tensors`, i.e. their norm taken as one long vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        from ...ops.creation import tensor
        return tensor(0.0)
    if any(t.is_sparse for t in tensors):     # torch has no norm kernel for them either
        raise NotImplementedError("Could not run 'aten::linalg_vector_norm' with arguments "
                                  "from the 'SparseCPU' backend.")
    dtype = tensors[0].dtype.numpy
    norms = np.stack([_norm(t.numpy(force=True), norm_type) for t in tensors])
    total = _norm(norms.astype(dtype), norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           "is non-finite, so it cannot be clipped. To disable this error and "
                           "scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    return Tensor._wrap(np.asarray(total, dtype=dtype))


@replayed_call
def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor,
                          foreach=None) -> None:
    """Scale the gradients by max_norm / (total_norm + 1e-6) when that is below 1."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    coef = min(float(max_norm) / (float(total_norm) + 1e-6), 1.0)
    for g in grads:
        data = g._data_to_write()
        data *= data.dtype.type(coef)


@replayed_call
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Rescale the gradients so that their total norm is at most max_norm; returns the
    total norm before clipping."""
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    if grads:
        clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Deprecated spelling of clip_grad_norm_ (warns with a FutureWarning, then clips the same way).
    """
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@replayed_call
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient entry into [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        if p.grad is not None:
            data = p.grad._data_to_write()
            np.clip(data, -clip_value, clip_value, out=data)
