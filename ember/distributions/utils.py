"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits."""
from __future__ import annotations

import numbers

import ember
from ember import Tensor

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits"]


def broadcast_all(*values) -> tuple:
    """Broadcast numbers and tensors to one shape; numbers take the tensors' dtype
    (or the default dtype when every value is a number)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if all(isinstance(v, numbers.Number) for v in values):
        return tuple(ember.tensor(float(v), dtype=ember.get_default_dtype()) for v in values)
    first = next(v for v in values if isinstance(v, Tensor))
    tensors = [v if isinstance(v, Tensor) else ember.tensor(v, dtype=first.dtype)
               for v in values]
    return tuple(ember.broadcast_tensors(*tensors))


def _as_text(value):
    """What an f-string shows for `value` in torch: a zero-dim tensor prints as its number."""
    if isinstance(value, Tensor) and value.dim() == 0:
        return value.item()
    return value


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the `dim` rightmost dimensions of `value`."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: sigmoid for binary events, softmax over the last dim
    otherwise."""
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Keep probabilities strictly inside (0, 1) so their logs stay finite."""
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities: log-odds for binary events, log-probabilities otherwise."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ember.log(ps_clamped) - ember.log1p(-ps_clamped)
    return ember.log(ps_clamped)


class lazy_property:
    """A property computed on first access and then stored on the instance.

    Bernoulli(probs=p) computes its logits only when asked; once computed they live
    in the instance's __dict__ (so the repr lists them too, as in torch).
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
