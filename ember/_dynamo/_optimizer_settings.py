"""Optimizer settings changed by a compiled call's own Python code.

A plan replays the optimizer's step (and a scheduler's) whole, reading `param_groups` at
each replay, but not the Python statements around it: `group["lr"] = ...` written in the
compiled function would run when traced only, and every replay would keep the traced
learning rate. The tracer therefore compares the optimizers' settings between the calls it
replays whole (which may change them: a scheduler's step) and breaks the graph when
anything else changed them.
"""
from __future__ import annotations

from ..optim.lr_scheduler import LRScheduler
from ..optim.optimizer import Optimizer

_PLAIN = (bool, int, float, complex, str, type(None))


class OptimizerSettings:
    """The settings of the optimizers among `objects` (and their attributes), and of the
    schedulers' optimizers, as last seen."""

    def __init__(self, objects):
        found = {}
        for obj in objects:
            for candidate in [obj, *getattr(obj, "__dict__", {}).values()]:
                if isinstance(candidate, LRScheduler):
                    candidate = candidate.optimizer
                if isinstance(candidate, Optimizer):
                    found[id(candidate)] = candidate
        self._optimizers = list(found.values())
        self._seen = self._settings()

    def _settings(self) -> tuple:
        return tuple(tuple((k, v if isinstance(v, _PLAIN) else id(v)) for k, v in group.items()
                           if k != "params")
                     for optimizer in self._optimizers for group in optimizer.param_groups)

    def changed(self) -> bool:
        """Whether a setting changed since the last `seen()`."""
        return bool(self._optimizers) and self._settings() != self._seen

    def seen(self) -> None:
        """Take the current settings as the expected ones (after a replayed call)."""
        if self._optimizers:
            self._seen = self._settings()
