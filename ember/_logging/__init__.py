"""torch._logging: set_logs, the switch for the compiler's logs."""
from __future__ import annotations

__all__ = ["set_logs"]


def set_logs(**settings) -> None:
    """Choose which compiler logs torch prints (dynamo=logging.INFO, graph_breaks=True,
    recompiles=True ...). ember's compile does not log: graph breaks and hitting the
    recompile limit are UserWarnings, and `torch.compiler.explain` reports plans, breaks
    and guards. The settings are accepted and change nothing."""
