"""torch.overrides: the `__torch_function__` protocol, for libraries that call it.

A function written like torch's own (`if has_torch_function(args): return
handle_torch_function(f, args, *args)`) hands its call to the `__torch_function__` of
any argument type that defines one; that part works in ember as in torch. ember's own
functions do not consult the protocol, though, so a torch function mode (which torch
consults in every op) cannot take effect: entering one raises NotImplementedError rather
than running the block without it.
"""
from __future__ import annotations

from ._tensor import Tensor

__all__ = ["TorchFunctionMode", "handle_torch_function", "has_torch_function",
           "has_torch_function_unary", "has_torch_function_variadic", "is_tensor_like"]


def is_tensor_like(inp) -> bool:
    """Whether `inp` is a Tensor or takes part in the protocol (has __torch_function__)."""
    return isinstance(inp, Tensor) or hasattr(inp, "__torch_function__")


def _overloaded(args) -> list:
    """The types among `args` that define __torch_function__, subclasses before their
    bases, otherwise in order of appearance (the order torch tries them in)."""
    found = []
    for arg in args:
        kind = type(arg)
        if kind in found or not hasattr(kind, "__torch_function__"):
            continue
        position = next((i for i, other in enumerate(found) if issubclass(kind, other)),
                        len(found))
        found.insert(position, kind)
    return found


def has_torch_function(relevant_args) -> bool:
    return bool(_overloaded(relevant_args))


def has_torch_function_unary(arg) -> bool:
    return bool(_overloaded((arg,)))


def has_torch_function_variadic(*args) -> bool:
    return bool(_overloaded(args))


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the __torch_function__ of the overloaded argument types in turn until one
    does not return NotImplemented."""
    types = _overloaded(relevant_args)
    for kind in types:
        result = kind.__torch_function__(public_api, tuple(types), args, kwargs)
        if result is not NotImplemented:
            return result
    name = f"{public_api.__module__}.{public_api.__name__}"
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {types}")


class TorchFunctionMode:
    """Base class of torch function modes (a __torch_function__ consulted by every op in
    its `with` block). ember's ops do not consult the protocol, so entering one raises
    NotImplementedError; subclasses can still be defined and named."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError(f"{type(self).__name__} must define __torch_function__")

    def __enter__(self):
        raise NotImplementedError(
            f"{type(self).__name__}: torch function modes are not supported by ember (its "
            "ops do not go through __torch_function__, so the mode would be ignored)")

    def __exit__(self, *exc):
        return False
