"""ember.doctor: run-time checks for the silent mistakes of PyTorch training code.

    import ember.doctor
    ember.doctor.enable()       # or: ember run --doctor train.py
    ...train...
    ember.doctor.findings()     # [Finding(check, path, line, message, count), ...]
    ember.doctor.disable()

Each mistake prints one line to stderr the first time a source line shows it:

    ember doctor: train.py:42: missing-zero-grad: optimizer.step() used gradients ... — call ...

The path and line are the user's (the first frame outside ember). The checks and how each
decides are listed in docs/doctor.md. They never change what the program computes, and a
check that cannot decide stays silent. Like grad mode, the doctor is per thread: enable()
turns it on for the calling thread.
"""
from __future__ import annotations

import contextvars

from .._modes import current, own
from ._doctor import Doctor
from ._report import Finding

__all__ = ["enable", "disable", "is_enabled", "findings", "Finding", "CHECKS"]

# the ids of the checks (part of the interface: tests and users match on them)
CHECKS = ("missing-zero-grad", "softmax-into-cross-entropy", "sigmoid-into-bce-with-logits",
          "eval-mode-missing", "train-mode-missing", "loss-accumulated-with-graph",
          "scheduler-before-optimizer", "params-not-in-optimizer", "nan-loss",
          "broadcast-loss-shape", "rnn-hidden-not-detached")

# the findings of this thread's last session, kept readable after disable()
_ENDED = contextvars.ContextVar("ember_doctor_ended", default=None)


def enable() -> None:
    """Turn the checks on in this thread, starting with no findings (already on: nothing
    changes)."""
    state = own()
    if state.doctor is None:
        _ENDED.set(None)
        state.doctor = Doctor()


def disable() -> None:
    """Turn the checks off in this thread; findings() still gives what they found until the
    next enable()."""
    state = own()
    if state.doctor is not None:
        _ENDED.set(state.doctor.report)
        state.doctor = None


def is_enabled() -> bool:
    """Whether the checks are on in this thread."""
    return current().doctor is not None


def findings() -> list[Finding]:
    """The findings so far (or of the session disable() ended), one per (check, file, line)
    with its count of occurrences, in the order they were first seen."""
    doctor = current().doctor
    report = _ENDED.get() if doctor is None else doctor.report
    return [] if report is None else report.findings()
