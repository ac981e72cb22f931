"""torch's Python-level checks and the symbolic-shape helpers, on plain values.

_assert / _check* raise when a condition is false (models call them so a compiler can trace
the check). The sym_* functions are int()/float()/max()/min()/not for sizes that may be
symbolic under torch.compile's dynamic shapes; ember traces concrete sizes only, so they act
on plain numbers, and SymInt / SymFloat / SymBool exist for isinstance checks that no plain
value passes.
"""
from __future__ import annotations

import builtins
import math
import warnings
from typing import Callable

import numpy as np

from ._tensor import Tensor

__all__ = ["SymInt", "SymFloat", "SymBool", "sym_int", "sym_float", "sym_max", "sym_min",
           "sym_not", "sym_ite", "sym_sum", "sym_sqrt"]


class SymInt:
    """A symbolic int of torch.compile's dynamic shapes (ember's sizes are always plain ints)."""


class SymFloat:
    """A symbolic float of torch.compile's dynamic shapes (never created by ember)."""


class SymBool:
    """A symbolic bool of torch.compile's dynamic shapes (never created by ember)."""


# -------------------------------------------------------------------------------- checks

def _assert(condition, message) -> None:
    """assert condition, message -- as a function call, so tracers can see it."""
    if not condition:
        raise AssertionError(message)


def _assert_async(input: Tensor, assert_msg: str | None = None) -> None:
    """Raise if the one-element tensor `input` is zero (asynchronously on a GPU in torch)."""
    if not isinstance(input, Tensor):
        raise TypeError("_assert_async(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    if not input:   # a tensor of several (or no) values raises torch's "ambiguous" error
        raise RuntimeError(assert_msg or
                           "Expected Tensor with single nonzero value, but got zero")


_DEFAULT_CHECK_MESSAGE = ("Expected cond to be True, but got False. (Could this error message "
                          "be improved? If so, please report an enhancement request to PyTorch.)")


def _check_with(error_type: type, cond: bool, message: Callable[[], str] | None = None) -> None:
    """Raise error_type(message()) if `cond` (a bool) is False."""
    if not isinstance(cond, bool):
        if isinstance(cond, Tensor):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if not issubclass(error_type, Exception) or issubclass(error_type, Warning):
        raise AssertionError("error_type must be a subclass of Exception but not Warning, "
                             f"got {error_type}")
    if message is not None and not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(_DEFAULT_CHECK_MESSAGE if message is None else str(message()))


def _check(cond: bool, message: Callable[[], str] | None = None) -> None:
    """RuntimeError(message()) if cond is False."""
    _check_with(RuntimeError, cond, message)


def _check_index(cond: bool, message: Callable[[], str] | None = None) -> None:
    _check_with(IndexError, cond, message)


def _check_value(cond: bool, message: Callable[[], str] | None = None) -> None:
    _check_with(ValueError, cond, message)


def _check_type(cond: bool, message: Callable[[], str] | None = None) -> None:
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond: bool, message: Callable[[], str] | None = None) -> None:
    _check_with(NotImplementedError, cond, message)


def _check_tensor_all(cond: Tensor, message: Callable[[], str] | None = None) -> None:
    """RuntimeError(message()) unless every element of the bool tensor `cond` is True."""
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if str(cond.dtype) != "torch.bool":
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(RuntimeError, bool(cond.all().item()), message)


def _check_is_size(i, message: Callable[[], str] | None = None, *, max=None) -> None:
    """Check that `i` is a valid size: i >= 0 (and i <= max when given)."""
    warnings.warn("_check_is_size will be removed in a future PyTorch release along with "
                  "guard_size_oblivious.     Use _check(i >= 0) instead.", FutureWarning,
                  stacklevel=2)
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


# ----------------------------------------------------------------------- sym_* on numbers

_NUMBER_TYPES = (np.integer, np.floating, int, float)
_FLOAT_TYPES = (np.floating, float)


def sym_int(a) -> int:
    """int(a): a float is truncated toward zero."""
    return builtins.int(a)


def sym_float(a) -> float:
    """float(a)."""
    return builtins.float(a)


def _check_numbers(a, b) -> None:
    for value in (a, b):
        if not isinstance(value, _NUMBER_TYPES):
            raise AssertionError(f"expected {_NUMBER_TYPES}, got {type(value)}")


def sym_max(a, b):
    """max(a, b) of two numbers, a float if either is one."""
    _check_numbers(a, b)
    larger = builtins.max(a, b)
    return builtins.float(larger) if isinstance(a, _FLOAT_TYPES) or isinstance(
        b, _FLOAT_TYPES) else larger


def sym_min(a, b):
    """min(a, b) of two numbers, a float if either is one."""
    _check_numbers(a, b)
    smaller = builtins.min(a, b)
    return builtins.float(smaller) if isinstance(a, _FLOAT_TYPES) or isinstance(
        b, _FLOAT_TYPES) else smaller


def sym_not(a) -> bool:
    """not a."""
    return not a


def sym_ite(b: bool, t, f):
    """t if b else f; t and f must have the same type."""
    if not isinstance(b, (SymBool, bool)):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sum(*args):
    """sum of the arguments (or of one list / tuple of them)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_sqrt(a) -> float:
    """math.sqrt(a)."""
    return math.sqrt(a)
