"""record_function: a named range in the profiler's results, as a block or a decorator."""
from __future__ import annotations

import contextlib

from . import _recorder


class record_function(contextlib.ContextDecorator):
    """Label a block (or every call of a decorated function) in the profiler's results."""

    def __init__(self, name: str, args: str | None = None):
        if args is not None:
            raise NotImplementedError("record_function: args is not supported by ember")
        self.name = name
        self.args = args
        self._open = []     # (recorder, range) per entered block; decorators can recurse

    def __enter__(self):
        recorder = _recorder.active()
        rng = recorder.open(self.name, is_user_annotation=True) if recorder else None
        self._open.append((recorder, rng))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        recorder, rng = self._open.pop()
        if rng is not None:
            recorder.close(rng)
        return False
