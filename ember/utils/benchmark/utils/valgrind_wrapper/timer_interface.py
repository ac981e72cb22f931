"""The names of torch's Callgrind interface (Timer.collect_callgrind and its results).

ember cannot count instructions, so Timer.collect_callgrind raises NotImplementedError and
nothing here is ever produced by ember; the classes exist for imports and annotations.
CopyIfCallgrind works as in torch for wall-time measurements: Timer unwraps it.
"""
from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["FunctionCount", "FunctionCounts", "CallgrindStats", "CopyIfCallgrind"]


class FunctionCount(NamedTuple):
    """Instructions executed in one function."""
    count: int
    function: str


class _NoCallgrind:
    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"{type(self).__name__}: ember cannot collect Callgrind "
                                  "instruction counts (Timer.collect_callgrind).")


class FunctionCounts(_NoCallgrind):
    """Per-function instruction counts of a Callgrind run (never produced by ember)."""


class CallgrindStats(_NoCallgrind):
    """The result of Timer.collect_callgrind (never produced by ember)."""


class CopyIfCallgrind:
    """Marks a Timer global that Callgrind would copy into its subprocess; for wall-time
    measurements the wrapped value is used as is."""

    def __init__(self, value: Any, *, setup: str | None = None) -> None:
        self._value = value
        self._setup = setup

    @property
    def value(self) -> Any:
        return self._value

    @property
    def setup(self) -> str | None:
        return self._setup

    @staticmethod
    def unwrap_all(globals: dict) -> dict:
        """`globals` with every CopyIfCallgrind replaced by its value."""
        return {k: v.value if isinstance(v, CopyIfCallgrind) else v for k, v in globals.items()}
