"""assert_close: compare tensors, scalars and nested containers of them, with torch's messages.

The comparison runs in two phases, as in torch. First the inputs are walked and paired
up leaf by leaf (a structural problem - different lengths or keys, unsupported types,
half-given tolerances - is raised at once). Then each pair is compared and the first
mismatch is raised as an AssertionError whose text is torch's.
"""
from __future__ import annotations

import cmath
import collections.abc
import warnings
from typing import Any, Callable

import numpy as np

from .. import _dtype
from .._tensor import Tensor

__all__ = ["assert_close", "assert_allclose"]

# {dtype: (rtol, atol)}; every other dtype (bool, integers) is compared exactly.
_DTYPE_PRECISIONS = {
    _dtype.float16: (0.001, 1e-5),
    _dtype.bfloat16: (0.016, 1e-5),
    _dtype.float32: (1.3e-6, 1e-5),
    _dtype.float64: (1e-7, 1e-7),
    _dtype.complex64: (1.3e-6, 1e-5),
    _dtype.complex128: (1e-7, 1e-7),
}
# The dtype whose tolerances a Python number gets.
_NUMBER_DTYPES = {int: _dtype.int64, float: _dtype.float64, complex: _dtype.complex128}


class _Mismatch(Exception):
    """A failed check: the exception type to raise, torch's message, and the item's path
    inside nested containers (e.g. ('a', 0) for actual['a'][0])."""

    def __init__(self, error_type: type, message: str, path: tuple = ()):
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.path = path

    def to_error(self, msg=None) -> Exception:
        if isinstance(msg, str):
            return self.error_type(msg)
        message = self.message
        if self.path:
            items = "".join(str([item]) for item in self.path)
            message += f"\n\nThe failure occurred for item {items}"
        return self.error_type(msg(message) if callable(msg) else message)


class _Unsupported(Exception):
    """Raised while pairing when a comparison kind cannot handle the inputs."""


# ---------------------------------------------------------------- tolerances
def _tolerances(dtypes, rtol: float | None, atol: float | None, path: tuple):
    """The (rtol, atol) to use: both given, or both defaulted from the loosest dtype."""
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or "
                        f"omitted, but got no {missing}.", path)
    if rtol is not None:
        return rtol, atol
    return _loosest(dtypes, _DTYPE_PRECISIONS)


def _loosest(dtypes, precisions: dict) -> tuple[float, float]:
    rtols, atols = zip(*[precisions.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


# ---------------------------------------------------------------- messages
def _mismatch_message(identifier: str, extra: str, abs_diff, abs_index, atol: float,
                      rel_diff, rel_index, rtol: float) -> str:
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff, index, tol: float) -> str:
        text = (f"{kind.title()} difference: {diff}" if index is None
                else f"Greatest {kind} difference: {diff} at index {index}")
        return text if equality else f"{text} (up to {tol} allowed)"

    return (f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra}\n"
            f"{line('absolute', abs_diff, abs_index, atol)}\n"
            f"{line('relative', rel_diff, rel_index, rtol)}")


def _scalar_message(actual, expected, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.",
                             abs_diff, None, atol, rel_diff, None, rtol)


def _tensor_message(actual: np.ndarray, expected: np.ndarray, matches: np.ndarray,
                    rtol: float, atol: float) -> str:
    """Mismatch count and the greatest differences among the mismatched elements, computed
    in the compared dtype as torch does (integers widened to int64 first)."""
    total = matches.size
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    if actual.dtype.kind in "biu":
        actual, expected = actual.astype(np.int64), expected.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(actual - expected).ravel()
        abs_diff[matches.ravel()] = 0
        rel_diff = abs_diff / np.abs(expected).ravel()
    if actual.dtype.kind == "i":    # integer true division gives the default dtype
        rel_diff = rel_diff.astype(_dtype.get_default_dtype().numpy)
    rel_diff[matches.ravel()] = 0
    abs_at, rel_at = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    return _mismatch_message(
        "Tensor-likes", extra,
        abs_diff[abs_at].item(), _unravel(abs_at, matches.shape), atol,
        rel_diff[rel_at].item(), _unravel(rel_at, matches.shape), rtol)


def _unravel(flat_index: int, shape: tuple) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat_index, shape))


# ---------------------------------------------------------------- leaf comparisons
def _isclose(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float,
             equal_nan: bool) -> np.ndarray:
    """|actual - expected| <= atol + rtol * |expected|; infinities only match themselves."""
    with np.errstate(all="ignore"):
        matches = actual == expected
        if actual.dtype.kind in "biu":
            if rtol or atol:
                a, e = actual.astype(np.float64), expected.astype(np.float64)
                matches |= np.abs(a - e) <= atol + rtol * np.abs(e)
            return matches
        if equal_nan:
            matches |= np.isnan(actual) & np.isnan(expected)
        diff = np.abs(actual - expected)
        matches |= np.isfinite(diff) & (diff <= atol + rtol * np.abs(expected))
    return matches


class _NonePair:
    def __init__(self, actual, expected, path: tuple, options: dict):
        if actual is not None and expected is not None:
            raise _Unsupported
        self.actual, self.expected, self.path = actual, expected, path

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            raise _Mismatch(AssertionError,
                            f"None mismatch: {self.actual} is not {self.expected}", self.path)


class _BooleanPair:
    def __init__(self, actual, expected, path: tuple, options: dict):
        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _Unsupported
        self.actual, self.expected, self.path = bool(actual), bool(expected), path

    def compare(self) -> None:
        if self.actual is not self.expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {self.actual} is not "
                            f"{self.expected}", self.path)


class _NumberPair:
    """Python (and NumPy) numbers; tolerances as for int64, float64 or complex128."""

    def __init__(self, actual, expected, path: tuple, options: dict):
        if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
            raise _Unsupported
        self.actual, self.expected, self.path = _as_number(actual), _as_number(expected), path
        self.rtol, self.atol = _tolerances(
            [_NUMBER_DTYPES[type(x)] for x in (self.actual, self.expected)],
            options["rtol"], options["atol"], path)
        self.equal_nan = options["equal_nan"]
        self.check_dtype = options["check_dtype"]

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != "
                            f"{type(expected)}.", self.path)
        if actual == expected:
            return
        if self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        diff = abs(actual - expected)
        if cmath.isfinite(diff) and diff <= self.atol + self.rtol * abs(expected):
            return
        raise _Mismatch(AssertionError,
                        _scalar_message(actual, expected, self.rtol, self.atol), self.path)


def _as_number(value):
    return value.item() if isinstance(value, np.number) else value


class _TensorLikePair:
    """Tensors, or two values of related types that ember.as_tensor accepts (NumPy arrays)."""

    def __init__(self, actual, expected, path: tuple, options: dict):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not options["allow_subclasses"] and type(actual) is not type(expected)):
            raise _Unsupported
        self.actual, self.expected = _as_tensor(actual), _as_tensor(expected)
        self.path = path
        self.rtol, self.atol = _tolerances([self.actual.dtype, self.expected.dtype],
                                           options["rtol"], options["atol"], path)
        self.options = options

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        if actual.dtype != expected.dtype:
            common = _dtype.promote_types(actual.dtype, expected.dtype)
            actual, expected = actual.to(common), expected.to(common)
        a, e = actual.detach().numpy(), expected.detach().numpy()
        matches = _isclose(a, e, self.rtol, self.atol, self.options["equal_nan"])
        if matches.all():
            return
        if a.ndim == 0:
            message = _scalar_message(a.item(), e.item(), self.rtol, self.atol)
        else:
            message = _tensor_message(a, e, matches, self.rtol, self.atol)
        raise _Mismatch(AssertionError, message, self.path)

    def _compare_attributes(self, actual: Tensor, expected: Tensor) -> None:
        options = self.options
        checks = [("shape", True, lambda t: t.shape),
                  ("layout", options["check_layout"], lambda t: t.layout),
                  ("stride()", options["check_stride"], lambda t: t.stride()),
                  ("device", options["check_device"], lambda t: t.device),
                  ("dtype", options["check_dtype"], lambda t: t.dtype)]
        for name, enabled, read in checks:
            if enabled and read(actual) != read(expected):
                raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not "
                                f"match: {read(actual)} != {read(expected)}.", self.path)


def _as_tensor(value) -> Tensor:
    if isinstance(value, Tensor):
        return value
    from .. import as_tensor
    try:
        return as_tensor(value)
    except Exception:
        raise _Unsupported from None


_PAIR_KINDS = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


# ---------------------------------------------------------------- pairing
def _is_sequence(value) -> bool:
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, str)


def _pair_up(actual, expected, options: dict, path: tuple = ()) -> list:
    """One comparison per leaf of the (possibly nested) inputs, in depth-first order."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, "The length of the sequences mismatch: "
                            f"{len(actual)} != {len(expected)}", path)
        return [pair for i, (a, e) in enumerate(zip(actual, expected))
                for pair in _pair_up(a, e, options, (*path, i))]
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        return _pair_up_mappings(actual, expected, options, path)
    for kind in _PAIR_KINDS:
        try:
            return [kind(actual, expected, path, options)]
        except _Unsupported:
            continue
    raise _Mismatch(TypeError, "No comparison pair was able to handle inputs of type "
                    f"{type(actual)} and {type(expected)}.", path)


def _pair_up_mappings(actual, expected, options: dict, path: tuple) -> list:
    actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
    if actual_keys != expected_keys:
        raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                        f"Missing keys in the actual mapping: "
                        f"{sorted(expected_keys - actual_keys)}\n"
                        f"Additional keys in the actual mapping: "
                        f"{sorted(actual_keys - expected_keys)}", path)
    try:
        keys = sorted(actual_keys)   # deterministic order, so the first failure is stable
    except TypeError:
        keys = list(actual_keys)
    return [pair for key in keys
            for pair in _pair_up(actual[key], expected[key], options, (*path, key))]


# ---------------------------------------------------------------- public API
def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = False, check_device: bool = True, check_dtype: bool = True,
                 check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raise AssertionError unless `actual` and `expected` are close.

    Tensors must match in shape (and, unless switched off, dtype, device, layout) and
    satisfy |actual - expected| <= atol + rtol * |expected| elementwise. Omitted
    tolerances come from the dtype (float32: rtol 1.3e-6, atol 1e-5; integers: exact).
    Sequences and mappings are compared item by item. `msg` replaces the message, or,
    if callable, receives the generated message and returns the one to raise.
    """
    __tracebackhide__ = True   # keep pytest's traceback on the caller's line
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol,
                   equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                   check_layout=check_layout, check_stride=check_stride)
    try:
        pairs = _pair_up(actual, expected, options)
    except _Mismatch as mismatch:
        raise mismatch.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _Mismatch as mismatch:
            raise mismatch.to_error(msg) from None


# assert_allclose's own defaults, looser than assert_close's for float32 and float64.
_ALLCLOSE_PRECISIONS = {_dtype.float16: (1e-3, 1e-3), _dtype.float32: (1e-4, 1e-5),
                        _dtype.float64: (1e-5, 1e-8)}


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None,
                    atol: float | None = None, equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated form of assert_close: NaNs equal by default, dtypes not checked."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    from .. import tensor
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _loosest([actual.dtype, expected.dtype], _ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
