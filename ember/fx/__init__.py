"""torch.fx: what FX-aware library code needs to run eagerly.

ember has no FX graph capture (torch.compile traces its own NumPy plans instead). Library
code marks helpers for FX at import time (`@torch.fx.wrap` above a function that symbolic
tracing should keep as one call); eagerly that only checks its argument and hands back the
function unchanged, as torch does. Building a graph (symbolic_trace) raises
NotImplementedError naming what to use instead.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

__all__ = ["wrap", "symbolic_trace"]


def wrap(fn_or_name: str | Callable[..., Any]) -> str | Callable[..., Any]:
    """Mark a module-level function (or the global of that name) as a leaf for symbolic
    tracing. Used as a decorator or called at a module's top level; returns its argument.
    ember never traces FX graphs, so the mark changes nothing when the code runs."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable "
                           "or string name")
    caller = inspect.currentframe().f_back
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    return fn_or_name


def symbolic_trace(root, concrete_args=None):
    """Not available: ember has no FX graphs."""
    raise NotImplementedError(
        "torch.fx.symbolic_trace: ember has no FX graph capture; run the module eagerly, "
        "use torch.compile for speed, or forward hooks to read intermediate outputs.")
