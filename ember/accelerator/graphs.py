"""torch.accelerator.Graph: capture and replay of accelerator work. Without an accelerator
there is nothing to capture; constructing one fails as on a CPU-only torch build."""
from __future__ import annotations

from ._utils import NO_ACCELERATOR

__all__ = ["Graph"]


class Graph:
    """A recorded sequence of accelerator operations, replayable as one unit (needs an
    accelerator; ember has none)."""

    def __init__(self, keep_graph: bool = False, *, pool=None,
                 capture_error_mode: str = "default") -> None:
        raise RuntimeError(NO_ACCELERATOR)
