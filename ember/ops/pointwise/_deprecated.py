"""torch's deprecated scalar-first overloads, still accepted with a warning:
add_(Number alpha, Tensor other), sub(Number alpha, Tensor other),
addcmul_(Number value, Tensor tensor1, Tensor tensor2), ... (old tutorials and
hand-written optimizers call p.data.add_(-lr, grad) and v.addcmul_(1 - beta, g, g))."""
from __future__ import annotations

import functools
import inspect
import numbers
import warnings

from ..._tensor import Tensor

_warned = False       # torch warns about these overloads once per process


def scalar_first(keyword: str):
    """Let fn(first, scalar, *tensors) mean fn(first, *tensors, keyword=scalar)."""
    def wrap(fn):
        params = list(inspect.signature(fn).parameters.values())
        tensors = [p.name for p in params[1:] if p.kind is p.POSITIONAL_OR_KEYWORD]
        n = len(tensors)

        @functools.wraps(fn)
        def call(first, *args, **kwargs):
            if len(args) == n + 1 and isinstance(args[0], numbers.Number) \
                    and not isinstance(args[0], Tensor) and keyword not in kwargs:
                _warn(fn.__name__, keyword, tensors)
                return fn(first, *args[1:], **{keyword: args[0]}, **kwargs)
            return fn(first, *args, **kwargs)
        return call
    return wrap


def _warn(name: str, keyword: str, tensors: list) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    named = ", ".join(f"Tensor {t}" for t in tensors)
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}(Number {keyword}, {named})\n"
                  f"Consider using one of the following signatures instead:\n"
                  f"\t{name}({named}, *, Number {keyword} = 1)", UserWarning, stacklevel=3)
