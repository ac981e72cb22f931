"""torch.compile: trace a call once, replay it as a plan of NumPy calls afterwards.

The front door only: it checks torch's options and wraps the callable. The machinery is
in ember/_dynamo (see its docstring and docs/compile.md):
- a Module comes back as an OptimizedModule whose only child is `_orig_mod` (its
  state_dict keys start with "_orig_mod.", as in torch: a classic pitfall when such a
  checkpoint is loaded into the plain model); attributes read through to the module;
- a function comes back as a CompiledFunction (functools.wraps'd);
- Module.compile() compiles the module's own call in place (its keys keep their names).
The debugging backends ("eager", "aot_eager", ...) and disable=True run eagerly, as in torch.
"""
from __future__ import annotations

import functools
from typing import Callable

from ._dynamo.eval_frame import CompiledFunction, OptimizedModule
from ._dynamo.exc import InvalidBackend
from .nn.modules.module import Module

__all__ = ["compile"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# torch's backends: the compilers (ember's own compiler stands for each), and the debugging
# ones that run the captured graph as it is (eagerly, in ember).
COMPILER_BACKENDS = ("inductor", "cudagraphs", "openxla", "tvm")
EAGER_BACKENDS = ("eager", "aot_eager", "aot_eager_decomp_partition",
                  "aot_eager_default_partitioner", "eager_noexcept", "pre_dispatch_eager")


def _check_options(backend, mode, options) -> None:
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in COMPILER_BACKENDS + EAGER_BACKENDS:
        raise InvalidBackend(f"Invalid backend: '{backend}', see "
                           "`torch._dynamo.list_backends()` for available backends.")


def compile(model: Callable | None = None, *, fullgraph: bool = False, dynamic=None,
            backend="inductor", mode: str | None = None, options: dict | None = None,
            name: str | None = None, disable: bool = False, recompile_limit=None,
            isolate_recompiles: bool = False, shapes_spec=None):
    """Return `model` compiled as torch.compile does (an OptimizedModule for a Module, a
    CompiledFunction for a function); without a model, a decorator.

    ember reads fullgraph (a graph break is an error), recompile_limit and dynamic (True:
    any dim may take new sizes without a plan per size; None: the dims marked with
    torch._dynamo.mark_dynamic, and any dim at the recompile limit; False: none); mode,
    options and the other options are checked and otherwise ignored; a callable backend
    runs eagerly."""
    _check_options(backend, mode, options)
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic,
                                 backend=backend, mode=mode, options=options, name=name,
                                 disable=disable, recompile_limit=recompile_limit,
                                 isolate_recompiles=isolate_recompiles,
                                 shapes_spec=shapes_spec)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is "
                             "provided.")
    if disable:
        return model
    if not isinstance(backend, str) or backend in EAGER_BACKENDS:
        compiled = _EagerCall(model)
    else:
        compiled = CompiledFunction(model, fullgraph=fullgraph, recompile_limit=recompile_limit,
                                    dynamic=dynamic)
    if isinstance(model, Module):
        return OptimizedModule(model, compiled)
    return compiled


class _EagerCall:
    """The "eager" backends: the callable, run as it is."""

    def __init__(self, fn):
        self._fn = fn
        functools.update_wrapper(self, fn, updated=())

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)


def _module_compile(self, *args, **kwargs) -> None:
    """Compile the module's call in place, as torch does: later calls of the module
    replay plans, its state_dict keys keep their names (unlike torch.compile(module))."""
    compiled = compile(self._call_impl, *args, **kwargs)
    if isinstance(compiled, CompiledFunction):
        compiled._module = self     # its guards cover the module's own state too
    self.__dict__["_compiled_call"] = compiled


# Module.compile is bound here, by the layer that implements compiling.
_module_compile.__name__, _module_compile.__qualname__ = "compile", "Module.compile"
Module.compile = _module_compile
