"""ember.utils.hooks: torch.utils.hooks' handle and hook-serialisation helpers.

RemovableHandle lives with the autograd graph (ember/autograd/graph.py), where every
register_*hook creates one; it is re-exported here under torch's path.
"""
from __future__ import annotations

import warnings
from typing import Callable

from ..autograd.graph import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f: Callable) -> Callable:
    """Mark `f` as a hook that is not saved with its tensor, silencing the warning."""
    f.__torch_unserializable__ = True
    return f


def _tensor_hooks(tensor) -> dict:
    """The hooks registered with tensor.register_hook, by handle id."""
    if tensor._grad_fn is not None:
        node, output_nr = tensor._grad_fn, tensor._output_nr
    else:
        node, output_nr = tensor._accumulator, 0
    if node is None or not node._tensor_hooks:
        return {}
    return node._tensor_hooks.get(output_nr, {})


def warn_if_has_hooks(tensor) -> None:
    """Warn about each backward hook on `tensor` that saving it would drop."""
    for hook in _tensor_hooks(tensor).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this "
                          "is expected, you can decorate the function with "
                          "@torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)
