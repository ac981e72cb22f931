"""Anomaly detection: remember where each node was created in the forward pass, and
fail on the first backward step that produces NaN, naming that forward op."""
from __future__ import annotations

import traceback
import warnings


class _AnomalyState:
    __slots__ = ("enabled", "check_nan")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


STATE = _AnomalyState()


def capture_stack() -> str:
    return "".join(traceback.format_stack()[:-3])


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection (detect_anomaly / set_detect_anomaly) is on."""
    return STATE.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection also checks backward results for NaN."""
    return STATE.check_nan


class detect_anomaly:
    """Context manager / decorator turning anomaly detection on inside it."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self._prev = (STATE.enabled, STATE.check_nan)
        STATE.enabled, STATE.check_nan = True, self.check_nan
        return self

    def __exit__(self, *exc):
        STATE.enabled, STATE.check_nan = self._prev
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Set anomaly detection on or off; also usable as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self._prev = (STATE.enabled, STATE.check_nan)
        STATE.enabled, STATE.check_nan = bool(mode), check_nan

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        STATE.enabled, STATE.check_nan = self._prev
        return False


def report_nan(node, index: int) -> None:
    """Raise torch's anomaly error for `node`'s output `index`, after showing its forward trace."""
    if node._trace:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused "
                      f"the error:\n{node._trace}", UserWarning, stacklevel=3)
    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")
