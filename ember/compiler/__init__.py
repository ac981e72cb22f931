"""torch.compiler: the public face of compile (compile, reset, explain, is_compiling, disable)."""
from __future__ import annotations

import functools

from . import config  # noqa: F401
from .._dynamo import explain, is_compiling, list_backends, reset, set_stance

__all__ = ["compile", "reset", "explain", "is_compiling", "is_dynamo_compiling", "is_exporting",
           "set_stance", "cudagraph_mark_step_begin", "disable",
           "list_backends", "allow_in_graph", "assume_constant_result"]


def compile(*args, **kwargs):
    """torch.compile under its torch.compiler name (same arguments)."""
    from .._compile import compile as compile_
    return compile_(*args, **kwargs)


def is_dynamo_compiling() -> bool:
    """The same answer as is_compiling."""
    return is_compiling()


def is_exporting() -> bool:
    """False: ember's exporters (torch.onnx) do not run code under a compiler either."""
    return False


def cudagraph_mark_step_begin() -> None:
    """Marks where a training step starts for CUDA graphs; ember has none, so this does
    nothing (scripts call it once per iteration)."""


def disable(fn=None, recursive: bool = True, *, reason: str | None = None):
    """Mark fn to run eagerly even inside compiled code: inside a traced call its ops and
    side effects are replayed as one call of fn."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    from .._recorded_call import replayed_call
    return replayed_call(fn)


def allow_in_graph(fn):
    """Accepted for compatibility: ember traces every op, so fn is returned unchanged."""
    return fn


def assume_constant_result(fn):
    """Accepted for compatibility: fn is returned unchanged (ember traces its ops)."""
    return fn
