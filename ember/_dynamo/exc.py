"""torch._dynamo.exc: the errors compile raises."""
from __future__ import annotations


class TorchDynamoException(RuntimeError):
    """Base of compile's errors."""


class Unsupported(TorchDynamoException):
    """A compiled call did something the plan cannot follow (a graph break) while
    fullgraph=True forbids breaks."""
