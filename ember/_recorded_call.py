"""Calls a recorder may see whole.

A composite op (eval-mode batch_norm, adaptive_avg_pool2d, flatten ...) runs as several
primitives. The ONNX exporter writes some of them as the one node torch writes (a
BatchNormalization, a GlobalAveragePool, a Flatten): `@recorded_call` hands the call to a
recorder that has `record_call` (the exporter's Tracer does, see ember/onnx/_trace.py),
which decides whether to record it whole or let its primitives be traced one by one. With
no such recorder, the function is called directly.
"""
from __future__ import annotations

import functools

from ._modes import current as modes


def recorded_call(fn):
    """Decorator: calls of `fn` go through the recorder's record_call(fn, args, kwargs)
    when it has one; the decorated function is the key of its symbolic."""
    return _handed_to("record_call", fn)


def replayed_call(fn):
    """Decorator of a call that compile's tracer (a recorder with `record_replayed_call`)
    runs and replays whole on every later call, instead of seeing only the ops inside it:
    a call that changes Python state (an optimizer's step, zero_grad, a scheduler's step,
    batch norm's running statistics), or one that computes arrays outside the op layer
    which later ops take (a dropout mask, max pooling's winners)."""
    return _handed_to("record_replayed_call", fn)


def _handed_to(method: str, fn):
    """fn, handed with its arguments to the recorder's `method` when the recorder has one
    (as the decorated function: calling it with no such recorder calls fn)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        record = getattr(modes().recorder, method, None)
        if record is None:
            return fn(*args, **kwargs)
        return record(call, args, kwargs)
    return call
