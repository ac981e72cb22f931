"""Grad-mode switches: no_grad, enable_grad, set_grad_enabled, inference_mode.

The mode lives in this thread's mode state (ember._modes), read on every op (the fast
path checks it first): as in torch, a switch in one thread leaves the others alone.
Each switch works as a context manager and as a function decorator.
"""
from __future__ import annotations

import functools

from .._modes import current, own


def is_grad_enabled() -> bool:
    """Whether autograd records operations in the current thread (off under no_grad)."""
    return current().grad_enabled


def is_inference_mode_enabled() -> bool:
    """Whether inference_mode is active in the current thread."""
    return current().inference


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
        state = own()
        self._prev = state.grad_enabled
        state.grad_enabled = self._target
        return self

    def __exit__(self, *exc):
        own().grad_enabled = self._prev
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
        state = own()
        self._prev = state.grad_enabled
        self._target = bool(mode)
        state.grad_enabled = self._target

    def __enter__(self):
        return self

    def __call__(self, fn):
        # Used as a decorator: the mode set by the constructor applies only inside fn.
        own().grad_enabled = self._prev
        return super().__call__(fn)

    @staticmethod
    def _fresh(switch):
        return set_grad_enabled(switch._target)


class inference_mode(_GradModeSwitch):
    """No gradient recording, as no_grad; tensors made inside are inference tensors (see
    ember._tensor.InferenceVersion): afterwards they refuse in-place changes, requires_grad
    and being saved for backward, as torch's do."""

    def __init__(self, mode: bool = True):
        self.mode = mode
        self._target = not mode

    def __enter__(self):
        state = own()
        self._prev_inference = state.inference
        state.inference = self.mode
        return super().__enter__()

    def __exit__(self, *exc):
        own().inference = self._prev_inference
        return super().__exit__(*exc)

    @staticmethod
    def _fresh(switch):
        return inference_mode(switch.mode)
