"""Grad-mode switches: no_grad, enable_grad, set_grad_enabled, inference_mode.

The state is one global flag read on every op (the fast path checks it first).
Each switch works as a context manager and as a function decorator.
"""
from __future__ import annotations

import functools


class _GradState:
    __slots__ = ("enabled", "inference")

    def __init__(self):
        self.enabled = True
        self.inference = False


STATE = _GradState()


def is_grad_enabled() -> bool:
    return STATE.enabled


def is_inference_mode_enabled() -> bool:
    return STATE.inference


class _GradModeSwitch:
    """Base of the switches: set a mode on enter, restore the previous one on exit."""

    _target = True

    def __new__(cls, *args, **kwargs):
        # `@no_grad` without parentheses: the class is called with the function itself.
        if len(args) == 1 and callable(args[0]) and not isinstance(args[0], bool) and \
                cls in (no_grad, enable_grad, inference_mode):
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = self._target
        return self

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__._fresh(self):
                return fn(*args, **kwargs)
        return wrapper

    @staticmethod
    def _fresh(switch):
        return switch.__class__()


class no_grad(_GradModeSwitch):
    """Disable gradient recording: ops inside produce tensors with no grad_fn."""
    _target = False


class enable_grad(_GradModeSwitch):
    """Re-enable gradient recording inside a no_grad region."""
    _target = True


class set_grad_enabled(_GradModeSwitch):
    """Set grad mode to `mode`; takes effect immediately, like torch's, and also
    works as a context manager that restores the previous mode."""

    def __init__(self, mode: bool):
        self._prev = STATE.enabled
        self._target = bool(mode)
        STATE.enabled = self._target

    def __enter__(self):
        return self

    def __call__(self, fn):
        # Used as a decorator: the mode set by the constructor applies only inside fn.
        STATE.enabled = self._prev
        return super().__call__(fn)

    @staticmethod
    def _fresh(switch):
        return set_grad_enabled(switch._target)


class inference_mode(_GradModeSwitch):
    """No gradient recording, like no_grad (ember has no separate inference tensors)."""

    def __init__(self, mode: bool = True):
        self.mode = mode
        self._target = not mode

    def __enter__(self):
        self._prev_inference = STATE.inference
        STATE.inference = self.mode
        return super().__enter__()

    def __exit__(self, *exc):
        STATE.inference = self._prev_inference
        return super().__exit__(*exc)

    @staticmethod
    def _fresh(switch):
        return inference_mode(switch.mode)
