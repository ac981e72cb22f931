"""torch._dynamo: the machinery behind ember.compile, and the names scripts use from it.

ember's compile traces a call through the op layer (`_tracer.py`), writes it as a plan
of NumPy-level calls (`_plan.py`), and replays the plan while the call's guards hold
(`eval_frame.py`). See docs/compile.md.
"""
from . import config, exc
from ._explain import explain
from .decorators import (graph_break, mark_dynamic, mark_static, mark_static_address,
                         maybe_mark_dynamic, set_stance)
from .eval_frame import OptimizedModule

__all__ = ["config", "exc", "explain", "reset", "OptimizedModule", "is_compiling",
           "list_backends", "disable", "allow_in_graph", "optimize", "graph_break",
           "mark_dynamic", "maybe_mark_dynamic", "mark_static", "mark_static_address",
           "set_stance", "assume_constant_result"]


def reset() -> None:
    """Forget every compiled function's plans: the next calls trace again."""
    from .eval_frame import _ALL
    for compiled in list(_ALL):
        compiled.reset()


def is_compiling() -> bool:
    """Whether this code runs while compile traces it: a branch taken under True is the
    one the compiled plan replays, as in torch; False in eager calls (including those a
    compiled function falls back to)."""
    from .._modes import current
    from ._tracer import Tracer
    return isinstance(current().recorder, Tracer)


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The backend names compile accepts, as torch lists them: its debugging backends
    (ember runs them eagerly) are tagged "debug" and left out by default; every other one
    is ember's own compiler."""
    from .._compile import COMPILER_BACKENDS, EAGER_BACKENDS
    debug = exclude_tags is not None and "debug" in exclude_tags
    return sorted(COMPILER_BACKENDS + (() if debug else EAGER_BACKENDS))


def disable(fn=None, recursive: bool = True, *, reason: str | None = None,
            wrapping: bool = True):
    """torch._dynamo.disable: torch.compiler.disable."""
    from ..compiler import disable as compiler_disable
    return compiler_disable(fn, recursive, reason=reason)


def assume_constant_result(fn):
    """torch._dynamo.assume_constant_result: torch.compiler.assume_constant_result."""
    from ..compiler import assume_constant_result as compiler_assume_constant_result
    return compiler_assume_constant_result(fn)


def allow_in_graph(fn):
    """torch._dynamo.allow_in_graph: torch.compiler.allow_in_graph."""
    from ..compiler import allow_in_graph as compiler_allow_in_graph
    return compiler_allow_in_graph(fn)


class optimize:
    """torch._dynamo.optimize(backend, nopython=...): the older spelling of
    torch.compile(backend=..., fullgraph=nopython), used as a decorator."""

    def __init__(self, backend="inductor", *, nopython: bool = False, dynamic=None,
                 disable: bool = False, guard_export_fn=None, guard_fail_fn=None,
                 guard_filter_fn=None) -> None:
        for name, value in (("guard_export_fn", guard_export_fn),
                            ("guard_fail_fn", guard_fail_fn),
                            ("guard_filter_fn", guard_filter_fn)):
            if value is not None:
                raise NotImplementedError(f"torch._dynamo.optimize({name}=...) is not "
                                          "supported: ember's guards are not exposed")
        self._options = {"backend": backend, "fullgraph": nopython, "dynamic": dynamic,
                         "disable": disable}

    def __call__(self, fn):
        from .._compile import compile
        return compile(fn, **self._options)

    def __enter__(self):
        raise RuntimeError("torch._dynamo.optimize(...) is used with a context manager. "
                           "Use torch._dynamo.optimize(...) as an annotation/decorator.")

    def __exit__(self, *exc) -> None:
        return None
