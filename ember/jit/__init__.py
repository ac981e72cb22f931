"""torch.jit: what TorchScript-aware code needs to run eagerly.

ember has no TorchScript compiler. Code written for it still runs: the decorators and
queries that library code sprinkles around (is_scripting, ignore, unused, export, annotate,
Final ...) behave as they do in eager PyTorch, and script() / trace() return their argument
unchanged, with a warning, so the function or module runs eagerly (the same results, minus
tracing's frozen control flow). What needs a real TorchScript program, saving or loading
one, raises NotImplementedError naming the alternative.
"""

import warnings
from typing import Any, Callable, Final, NamedTuple  # noqa: F401  (Final: torch.jit.Final)

from ..futures import Future
from ..nn.modules.module import Module
from . import annotations  # noqa: F401  (binds torch.jit.annotations, the submodule)

__all__ = ["script", "trace", "trace_module", "is_scripting", "is_tracing", "annotate",
           "ignore", "unused", "export", "interface", "Final", "Attribute", "save", "load",
           "freeze", "optimize_for_inference", "TracerWarning", "fork", "wait", "Future",
           "ScriptModule", "script_method"]


class TracerWarning(Warning):
    """Warned while tracing (ember: while ember.onnx.export records a model) when the
    trace may not generalize, e.g. a tensor computed from the inputs became a Python
    value and is recorded as a constant."""


def is_scripting() -> bool:
    """False: ember code always runs eagerly."""
    return False


def is_tracing() -> bool:
    """False: ember never traces."""
    return False


def annotate(the_type, the_value):
    """A type hint for the TorchScript compiler; eagerly it is the value itself."""
    return the_value


class Attribute(NamedTuple):
    """A typed attribute for TorchScript: eagerly just the (value, type) pair, as in torch."""
    value: Any
    type: Any


def _unchanged(fn: Callable) -> Callable:
    return fn


unused = export = interface = _unchanged


def ignore(drop: bool | Callable = False, **kwargs):
    """@ignore or @ignore(drop=...): leave a function to Python (eagerly: unchanged)."""
    return drop if callable(drop) else _unchanged


class ScriptModule(Module):
    """Base class of old-style TorchScript modules (`class Net(torch.jit.ScriptModule)` with
    `@torch.jit.script_method`): eagerly, an ordinary Module."""


def script_method(fn: Callable) -> Callable:
    """A ScriptModule's compiled method, eagerly the method itself (deprecated in torch)."""
    warnings.warn("`torch.jit.script_method` is deprecated. Please switch to `torch.compile` "
                  "or `torch.export`.", DeprecationWarning, stacklevel=2)
    return fn


def _runs_eagerly(what: str, obj):
    warnings.warn(f"ember has no TorchScript: torch.jit.{what} returns its argument "
                  "unchanged and it runs eagerly (same results; save weights with "
                  "torch.save(model.state_dict(), path) or export with torch.onnx.export).",
                  UserWarning, stacklevel=3)
    return obj


def script(obj: Any, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """The function or module itself (ember runs it eagerly)."""
    return _runs_eagerly("script", obj)


def trace(func, example_inputs=None, optimize=None, check_trace: bool = True,
          check_inputs=None, check_tolerance: float = 1e-05, strict: bool = True, **kwargs):
    """The function or module itself (ember runs it eagerly, so data-dependent control
    flow keeps working instead of being frozen to the example's path)."""
    return _runs_eagerly("trace", func)


def trace_module(mod, inputs, optimize=None, check_trace: bool = True, check_inputs=None,
                 check_tolerance: float = 1e-05, strict: bool = True, **kwargs):
    return _runs_eagerly("trace_module", mod)


def _no_torchscript(what: str, instead: str):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"torch.jit.{what}: ember has no TorchScript programs; "
                                  f"{instead}")
    refuse.__name__ = what
    return refuse


save = _no_torchscript("save", "save the weights with torch.save(model.state_dict(), path) "
                               "or export the model with torch.onnx.export")
load = _no_torchscript("load", "rebuild the model in Python and load its state_dict (a "
                               "TorchScript archive cannot be run by ember)")
freeze = _no_torchscript("freeze", "the eager module is already what runs")
optimize_for_inference = _no_torchscript("optimize_for_inference",
                                         "the eager module is already what runs")


def fork(func: Callable, *args, **kwargs) -> Future:
    """Start func(*args, **kwargs) and return a Future of its result. Outside TorchScript
    torch runs it at once, in the calling thread; so does ember (an exception is raised
    here, as torch's eager fork raises it). Deprecated in torch, with its warning."""
    warnings.warn("`torch.jit.fork` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    future = Future()
    future.set_result(func(*args, **kwargs))
    return future


def wait(future: Future):
    """The result of a forked call: future.wait(). Deprecated in torch, with its warning."""
    warnings.warn("`torch.jit.wait` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    return future.wait()
