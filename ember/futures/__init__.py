"""torch.futures: a Future holds the result of work that may finish later (torch.jit.fork,
RPC), and `then`/`add_done_callback` chain more work onto it.

ember's futures are plain Python: a value or an exception set once, a condition variable
for threads that wait, and the callbacks run by whichever thread completes the future (or
at once, when it is already complete).
"""
from __future__ import annotations

import threading
import traceback

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """A result that is set once, by set_result or set_exception."""

    def __init__(self, *, devices=None) -> None:
        for device in devices or ():
            if str(device).split(":")[0] != "cpu":
                raise RuntimeError(f"PyTorch is not linked with support for "
                                   f"{str(device).split(':')[0]} devices")
        self._done = threading.Condition()
        self._completed = False
        self._value = None
        self._error = None
        self._callbacks = []

    def done(self) -> bool:
        """Whether a result or an exception has been set."""
        return self._completed

    def wait(self):
        """Block until the future completes; return its value, or raise its exception."""
        with self._done:
            self._done.wait_for(lambda: self._completed)
        return self.value()

    def value(self):
        """The value of a completed future (its exception is raised instead)."""
        if not self._completed:
            raise RuntimeError("Future.value() called before the future completed: call "
                               "wait() first, or read it inside a then() callback")
        if self._error is not None:
            raise self._error
        return self._value

    def set_result(self, result) -> None:
        """Complete the future with `result` and run its callbacks."""
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        """Complete the future with an exception that wait() and value() raise."""
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception expects an exception, got {type(result).__name__}")
        self._complete(None, result)

    def _complete(self, value, error) -> None:
        with self._done:
            if self._completed:
                raise RuntimeError("Attempting to mark a completed Future as complete again. "
                                   "Note that a Future can only be marked completed once.")
            self._value, self._error, self._completed = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._done.notify_all()
        for callback in callbacks:
            callback(self)

    def add_done_callback(self, callback) -> None:
        """Call callback(self) once the future completes (now, if it has)."""
        with self._done:
            if not self._completed:
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback) -> "Future":
        """A new future holding callback(self)'s return value once this one completes (or
        the error the callback raised, as torch's RuntimeError naming it)."""
        chained = Future()

        def run(done: "Future") -> None:
            try:
                result = callback(done)
            except Exception as error:
                chained.set_exception(RuntimeError(
                    "Got the following error when running the callback: "
                    f"{type(error).__name__}: {error}\n\n{traceback.format_exc()}"))
            else:
                chained.set_result(result)
        self.add_done_callback(run)
        return chained


def collect_all(futures: list) -> Future:
    """A future completed, with the list of `futures` as its value, once all of them are."""
    collected = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_: Future) -> None:
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            collected.set_result(list(futures))
    if not futures:
        collected.set_result([])
    for future in futures:
        future.add_done_callback(one_done)
    return collected


def wait_all(futures: list) -> list:
    """Wait for every future and return their values (the first exception is raised)."""
    return [future.wait() for future in futures]
