"""NumPy helpers on COO index arrays (sparse_dim x nnz, int64): linear positions,
coalescing, look-ups and torch's merge of two index lists. They compute on arrays only;
the Functions in _functions.py turn them into differentiable steps."""
from __future__ import annotations

import numpy as np


def linear(indices: np.ndarray, sparse_shape: tuple) -> np.ndarray:
    """Each entry's position in the row-major order of the sparse dims (int64, nnz)."""
    if indices.shape[1] == 0:
        return np.zeros(0, np.int64)
    if not sparse_shape:
        return np.zeros(indices.shape[1], np.int64)
    return np.ravel_multi_index(tuple(indices), sparse_shape).astype(np.int64, copy=False)


def unravel(positions: np.ndarray, sparse_shape: tuple) -> np.ndarray:
    """The inverse of linear: a sparse_dim x n int64 index array."""
    if positions.size == 0 or not sparse_shape:
        return np.zeros((len(sparse_shape), positions.size), np.int64)
    return np.stack(np.unravel_index(positions, sparse_shape)).astype(np.int64)


def coalesce_plan(indices: np.ndarray, sparse_shape: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(coalesced indices, inverse): entry k of the input lands on column inverse[k] of the
    sorted, unique indices (its value is summed there)."""
    unique, inverse = np.unique(linear(indices, sparse_shape), return_inverse=True)
    return unravel(unique, sparse_shape), inverse.reshape(-1)


def group_sum(values: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """out[g] = the sum of values[k] over the k with groups[k] == g (values: (nnz, ...))."""
    out = np.zeros((n_groups,) + values.shape[1:], dtype=values.dtype)
    np.add.at(out, groups, values)
    return out


def find(haystack: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(position, found): where each needle sits in the sorted, unique `haystack`."""
    position = np.searchsorted(haystack, needles)
    found = position < haystack.size
    found[found] = haystack[position[found]] == needles[found]
    return np.where(found, position, 0), found


def merge_plan(mine: np.ndarray, theirs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How torch adds two sparse tensors with linear positions `mine` and `theirs`.

    torch walks both lists at once, taking the smaller head and summing equal heads. On
    sorted lists (coalesced tensors among them) that is a merge pairing the k-th copy of a
    position in one list with its k-th copy in the other; on identical lists it sums them
    entry by entry; other unsorted lists are kept whole, one after the other (the walk then
    interleaves them otherwise, but the tensor they stand for is the same).

    Returns (positions, slot_of_mine, slot_of_theirs): the result's linear positions, and
    the result entry each input entry is added into.
    """
    n_mine = mine.size
    if n_mine == theirs.size and np.array_equal(mine, theirs):
        slots = np.arange(n_mine)
        return mine.copy(), slots, slots
    if not (_is_sorted(mine) and _is_sorted(theirs)):
        return np.concatenate([mine, theirs]), np.arange(n_mine), np.arange(theirs.size) + n_mine
    # Sorted lists: key each entry by (position, which copy of it), merge equal keys.
    keys = np.stack([np.concatenate([mine, theirs]),
                     np.concatenate([_copy_number(mine), _copy_number(theirs)])])
    unique, inverse = np.unique(keys, axis=1, return_inverse=True)
    inverse = inverse.reshape(-1)
    return unique[0], inverse[:n_mine], inverse[n_mine:]


def _is_sorted(positions: np.ndarray) -> bool:
    return bool(np.all(positions[1:] >= positions[:-1]))


def _copy_number(sorted_positions: np.ndarray) -> np.ndarray:
    """0 for the first entry at each position, 1 for the second ... (sorted input)."""
    n = sorted_positions.size
    if n == 0:
        return np.zeros(0, np.int64)
    starts = np.r_[True, sorted_positions[1:] != sorted_positions[:-1]]
    first = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    return np.arange(n) - first
