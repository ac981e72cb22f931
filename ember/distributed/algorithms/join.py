"""torch.distributed.algorithms.join: training on uneven inputs (ranks with fewer batches
shadow the others' collectives). Not available in ember: the classes can be named and
subclassed, and entering Join raises NotImplementedError."""
from __future__ import annotations

from ..device_mesh import unsupported

__all__ = ["Join", "Joinable", "JoinHook"]


class JoinHook:
    """What a Joinable does while joined (main_hook) and after all joined (post_hook)."""

    def main_hook(self) -> None:
        """Called once per iteration of a joined rank."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Called once all ranks have joined."""


class Joinable:
    """Base class of objects that take part in Join (DDP, ZeroRedundancyOptimizer)."""


class Join:
    """Context manager for uneven inputs; ember has no implementation of it."""

    def __init__(self, joinables, enable: bool = True, throw_on_early_termination: bool = False,
                 **kwargs):
        self.joinables = joinables
        self.enable = enable

    def __enter__(self):
        if self.enable:
            unsupported("Join")
        return self

    def __exit__(self, *exc):
        return False
