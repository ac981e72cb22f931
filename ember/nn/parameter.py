"""Parameter and Buffer: Tensor subclasses that a Module registers when assigned.

A Parameter shares memory (and version counter) with the tensor it is made from,
requires grad by default and is always a leaf of the autograd graph.
"""
from __future__ import annotations

import copy

from .._tensor import Tensor

__all__ = ["Parameter", "Buffer", "is_lazy"]


def _alias(cls, data: Tensor | None):
    """A new `cls` instance viewing `data`'s memory, with no autograd history."""
    if data is None:
        from .. import empty
        data = empty(0)
    if not isinstance(data, Tensor):
        raise TypeError(f"Parameter(): argument 'data' must be Tensor, not "
                        f"{type(data).__name__}")
    t = object.__new__(cls)
    t._data = data._data
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._vc = data._vc
    t._base = None
    t._accumulator = None
    return t


class Parameter(Tensor):
    """A tensor that is a module parameter: `Parameter(data=None, requires_grad=True)`."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        t = _alias(cls, data)
        t.requires_grad = requires_grad
        return t

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        """Everything happens in __new__ (Tensor.__init__ must not run again)."""

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        if self._grad is not None:
            result._grad = self._grad.__deepcopy__(memo)
        result.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data.copy(), self._requires_grad, self.__dict__))


def _rebuild_parameter(data, requires_grad, state):
    p = Parameter(Tensor._wrap(data), requires_grad)
    p.__dict__.update(state)
    return p


class Buffer(Tensor):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute.

    `persistent=False` keeps it out of the state_dict.
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        t = _alias(cls, data)
        t.persistent = persistent
        return t

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True):
        """Everything happens in __new__."""


def is_lazy(param) -> bool:
    """ember has no lazy (uninitialised) parameters."""
    return False
