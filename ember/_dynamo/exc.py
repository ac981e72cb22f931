"""torch._dynamo.exc: the errors compile raises."""
from __future__ import annotations


class TorchDynamoException(RuntimeError):
    """Base of compile's errors."""


class Unsupported(TorchDynamoException):
    """A compiled call did something the plan cannot follow (a graph break) while
    fullgraph=True forbids breaks."""


class InvalidBackend(TorchDynamoException):
    """compile was given a backend name torch does not know."""


class RecompileError(TorchDynamoException):
    """A call needed a new trace while config.error_on_recompile is set."""


class FailOnRecompileLimitHit(Exception):
    """A call with a new signature came after the recompile limit, with
    config.fail_on_recompile_limit_hit set or fullgraph=True."""
