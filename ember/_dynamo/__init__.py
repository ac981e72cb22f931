"""torch._dynamo: the machinery behind ember.compile, and the names scripts use from it.

ember's compile traces a call through the op layer (`_tracer.py`), writes it as a plan
of NumPy-level calls (`_plan.py`), and replays the plan while the call's guards hold
(`eval_frame.py`). See docs/compile.md.
"""
from . import config, exc
from ._explain import explain
from .eval_frame import OptimizedModule

__all__ = ["config", "exc", "explain", "reset", "OptimizedModule", "is_compiling",
           "list_backends"]


def reset() -> None:
    """Forget every compiled function's plans: the next calls trace again."""
    from .eval_frame import _ALL
    for compiled in list(_ALL):
        compiled.reset()


def is_compiling() -> bool:
    """False: ember traces by running the code eagerly, so code never runs "inside" a
    compiler the way torch's dynamo runs it."""
    return False


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The backend names compile accepts (torch's list; ember treats "eager" and
    "aot_eager" as "run eagerly" and every other one as its own compiler)."""
    from .._compile import BACKENDS
    return sorted(BACKENDS)
