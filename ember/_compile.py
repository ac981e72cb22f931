"""torch.compile: accepted, and run eagerly.

ember has no graph compiler: every op already runs as NumPy calls. compile() still
returns what torch returns, so that code written for torch behaves the same:
- a Module comes back wrapped in an OptimizedModule whose only child is `_orig_mod`.
  Its state_dict keys therefore start with "_orig_mod." as in torch (a classic pitfall
  when such a checkpoint is loaded into the plain model); attributes read through to the
  wrapped module;
- a function comes back wrapped in a function;
- mode and backend names are checked as torch checks them.
"""
from __future__ import annotations

import functools
from typing import Callable

from .nn.modules.module import Module

__all__ = ["compile"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
_BACKENDS = ("inductor", "eager", "aot_eager", "cudagraphs", "openxla", "tvm", "onnxrt")


class OptimizedModule(Module):
    """A compiled module: calls run the wrapped module (with its hooks)."""

    def __init__(self, mod: Module) -> None:
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "_orig_mod":           # not registered yet (during construction)
                raise
            return getattr(self._orig_mod, name)


def _check_options(backend, mode, options) -> None:
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise RuntimeError(f"Invalid backend: '{backend}', see "
                           "`torch._dynamo.list_backends()` for available backends.")


def compile(model: Callable | None = None, *, fullgraph: bool = False, dynamic=None,
            backend="inductor", mode: str | None = None, options: dict | None = None,
            name: str | None = None, disable: bool = False, recompile_limit=None,
            isolate_recompiles: bool = False, shapes_spec=None):
    """Return `model` ready to call as torch.compile does (an OptimizedModule for a
    Module, a wrapper for a function); ember runs it eagerly. Without a model, return a
    decorator."""
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
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    return compiled


def _module_compile(self, *args, **kwargs) -> None:
    """torch compiles the module's __call__ in place (its state_dict keys keep their
    names, unlike torch.compile(module)); ember checks the options and runs eagerly."""
    compile(self.forward, *args, **kwargs)


# Module.compile is bound here, by the layer that implements compiling.
_module_compile.__name__, _module_compile.__qualname__ = "compile", "Module.compile"
Module.compile = _module_compile
