"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, mode, unique,
searchsorted, bucketize.

Every ordering here is a stable NumPy argsort, so equal values keep their input order
(torch's `stable=True`); NaN sorts above every number, as in torch. Values are taken
from the input at the chosen indices with `take_along`, so gradients flow back to the
chosen positions.
"""
from __future__ import annotations

import math

import numpy as np

from .._dtype import refuse_limited
from .._tensor import Tensor
from .reduction import (Extremum, _check_nonempty, _isnan, _value_and_index, return_types,
                        take_along)
from ._nondifferentiable import recorded
from .shape import _named

METHODS = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "unique", "unique_consecutive"]

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "unique", "unique_consecutive", "searchsorted", "bucketize"]


def stable_argsort(data: np.ndarray, axis: int, descending: bool = False) -> np.ndarray:
    """Indices that sort `data` along `axis`, equal values kept in input order.

    Descending order sorts the reversed array ascending and reverses back, which keeps
    ties in input order without negating (negation breaks bool and unsigned data)."""
    if not descending:
        return np.argsort(data, axis=axis, kind="stable")
    n = data.shape[axis]
    reversed_order = np.argsort(np.flip(data, axis), axis=axis, kind="stable")
    return n - 1 - np.flip(reversed_order, axis)


def _sorted_selection(input: Tensor, dim: int, index_fn, keepdim: bool, name: str,
                      result_type):
    """(values, indices) where index_fn(data, axis) picks positions of the stable sort
    order along `dim` (kept as an axis of the index array); the positions are computed
    in a replayed call, so a compiled plan recomputes them from each call's values."""
    return _value_and_index(input, dim, keepdim, name, index_fn, result_type)


# ---------------------------------------------------------------- sort, topk
def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    """Sorted values and their input indices along `dim` (always stable in ember)."""
    return _sorted_selection(input, dim, lambda data, axis: stable_argsort(data, axis, descending),
                             True, "SortBackward0", return_types.sort)


def argsort(input: Tensor, dim: int = -1, descending: bool = False,
            stable: bool = False) -> Tensor:
    """Indices that sort input along `dim` (ascending unless descending=True; stable=True keeps the
    order of equal elements)."""
    return sort(input, dim, descending, stable).indices


def msort(input: Tensor) -> Tensor:
    """input sorted along its first dimension (the values of sort(input, dim=0))."""
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The k largest (or smallest) entries along `dim` with their indices, in order."""
    refuse_limited(input._data, "topk_cpu")
    axis = input._wrap_dim(dim)
    size = input._data.shape[axis] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")

    def first_k(data, axis):
        return np.take(stable_argsort(data, axis, descending=largest), range(k), axis=axis)
    return _sorted_selection(input, dim, first_k, True, "TopkBackward0", return_types.topk)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """The k-th smallest entry (k counts from 1) along `dim` and its index."""
    refuse_limited(input._data, "kthvalue_cpu")
    axis = input._wrap_dim(dim)
    size = input._data.shape[axis] if input._data.ndim else 1
    if input._data.ndim and size == 0:
        _check_nonempty("kthvalue", input, (axis,))
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")

    def kth(data, axis):
        return np.take(stable_argsort(data, axis), [k - 1], axis=axis)
    return _sorted_selection(input, dim, kth, keepdim, "KthvalueBackward0",
                             return_types.kthvalue)


# ---------------------------------------------------------------- median, mode
def _lower_median(data: np.ndarray, axis: int, skip_nan: bool) -> np.ndarray:
    """Index (axis kept) of the lower median along `axis`. A slice with NaN gives its first
    NaN, unless skip_nan (nanmedian), which takes the median of the other entries."""
    order = stable_argsort(data, axis)
    nans = _isnan(data).sum(axis=axis, keepdims=True)
    n = data.shape[axis]
    if skip_nan:
        position = np.maximum(n - nans - 1, 0) // 2
    else:
        position = np.where(nans > 0, n - nans, (n - 1) // 2)
    return np.take_along_axis(order, position, axis=axis)


def _median(input: Tensor, dim, keepdim: bool, skip_nan: bool):
    name = "nanmedian" if skip_nan else "median"
    refuse_limited(input._data, f"{name}_cpu")
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
    if dim is None:
        def value(data, axis=None, keepdims=False):
            flat = data.reshape(-1)
            if flat.size == 0:
                return np.asarray(np.nan, dtype=flat.dtype)
            return flat[_lower_median(flat, 0, skip_nan)[0]]
        out = Extremum.apply(input, value, None, False, True)
        return _named(out, "NanmedianBackward0" if skip_nan else "MedianBackward0")
    axis = input._wrap_dim(dim)
    if input._data.ndim:
        _check_nonempty(name, input, (axis,))
    return _sorted_selection(input, dim, lambda data, a: _lower_median(data, a, skip_nan),
                             keepdim, name.capitalize() + "Backward1",
                             getattr(return_types, name))


def median(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """The lower median: of all entries (a value) or along `dim` ((values, indices))."""
    return _median(input, dim, keepdim, skip_nan=False)


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """median() ignoring NaN entries."""
    return _median(input, dim, keepdim, skip_nan=True)


def _mode_index(data: np.ndarray, axis: int) -> np.ndarray:
    """Index (axis kept) of the most frequent value along `axis`: the smallest such value,
    at its last occurrence (as torch picks)."""
    order = stable_argsort(data, axis)
    ordered = np.take_along_axis(data, order, axis=axis)
    n = data.shape[axis]
    positions = np.arange(n).reshape([-1 if d == axis else 1 for d in range(data.ndim)])
    # Each run of equal sorted values: where it starts and where it ends.
    changes = np.diff(ordered, axis=axis) != 0
    edge = np.ones_like(np.take(ordered, [0], axis=axis), dtype=bool)
    starts_run = np.concatenate([edge, changes], axis=axis)
    ends_run = np.concatenate([changes, edge], axis=axis)
    run_start = np.maximum.accumulate(np.where(starts_run, positions, 0), axis=axis)
    run_end = np.flip(np.minimum.accumulate(np.flip(np.where(ends_run, positions, n), axis),
                                            axis=axis), axis)
    best = np.argmax(run_end - run_start, axis=axis, keepdims=True)
    last = np.take_along_axis(run_end, best, axis=axis)
    return np.take_along_axis(order, last, axis=axis)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """The most frequent value along `dim` and the index of its last occurrence."""
    refuse_limited(input._data, "mode_cpu")
    axis = input._wrap_dim(dim)
    if input._data.ndim and input._data.shape[axis] == 0:
        raise IndexError(f"mode(): Expected reduction dim {axis} to have non-zero size.")
    return _sorted_selection(input, dim, _mode_index, keepdim, "ModeBackward0",
                             return_types.mode)


# ---------------------------------------------------------------- unique
def _unique_results(values: np.ndarray, inverse: np.ndarray, counts: np.ndarray,
                    return_inverse: bool, return_counts: bool):
    out = [Tensor._wrap(values)]
    if return_inverse:
        out.append(Tensor._wrap(inverse.astype(np.int64)))
    if return_counts:
        out.append(Tensor._wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


@recorded("unique", value_sized=True)
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None):
    """The distinct values (sorted, as torch's CPU kernel always returns them); NaNs count
    as distinct. With `dim`, the distinct slices along that dim."""
    data = input._data
    if dim is None:
        values, inverse, counts = np.unique(data.reshape(-1), return_inverse=True,
                                            return_counts=True, equal_nan=False)
        inverse = inverse.reshape(data.shape)
    else:
        values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True,
                                            axis=input._wrap_dim(dim), equal_nan=False)
        inverse = inverse.reshape(-1)
    return _unique_results(values, inverse, counts, return_inverse, return_counts)


@recorded("unique_consecutive", value_sized=True)
def unique_consecutive(input: Tensor, return_inverse: bool = False,
                       return_counts: bool = False, dim: int | None = None):
    """Collapse each run of equal consecutive values (or slices along `dim`) to one."""
    data = input._data
    if dim is None:
        rows = data.reshape(-1, 1)
    else:
        axis = input._wrap_dim(dim)
        if data.size == 0 and data.shape[axis] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                               "unique cannot be applied")
        rows = np.moveaxis(data, axis, 0)
        rows = rows.reshape(rows.shape[0], math.prod(rows.shape[1:]))
    n = rows.shape[0]
    new_run = np.ones(n, dtype=bool)
    new_run[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    starts = np.flatnonzero(new_run)
    inverse = np.cumsum(new_run) - 1
    counts = np.diff(np.append(starts, n))
    if dim is None:
        values = data.reshape(-1)[starts]
        inverse = inverse.reshape(data.shape)
    else:
        values = np.take(data, starts, axis=axis)
    return _unique_results(values, inverse, counts, return_inverse, return_counts)


# ---------------------------------------------------------------- searchsorted, bucketize
def _search(boundaries: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """For each value, the number of boundaries below it (<= it when `right`). Batched
    boundaries (one sorted row per leading index) compare each row with its values."""
    if boundaries.ndim == 1:
        return np.searchsorted(boundaries, values, side="right" if right else "left")
    below = boundaries[..., None, :] <= values[..., None] if right else \
        boundaries[..., None, :] < values[..., None]
    return below.sum(axis=-1)


@recorded("searchsorted")
def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter=None) -> Tensor:
    """Insertion indices of `input` into the innermost dim of `sorted_sequence`."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
        right = side == "right"
    boundaries = sorted_sequence._data
    refuse_limited(boundaries, "searchsorted_out_cpu")
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, sorter._data, axis=-1)
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    if boundaries.ndim > 1 and boundaries.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(boundaries.shape)} and input value tensor "
            f"{list(values.shape)}")
    result = _search(boundaries, values, right)
    return Tensor._wrap(np.asarray(result, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False,
              right: bool = False) -> Tensor:
    """The bucket of each input value among 1-D `boundaries`."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)
