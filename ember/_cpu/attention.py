"""Kernel family `attention`: the row passes of scaled-dot-product attention between its
two batched matrix products (NumPy reference).

Forward, per query row of the scores S = Q K^T: scale, add the float mask or hide the
positions a bool mask or the causal rule hides, softmax, then dropout. Backward turns the
gradient of the weights (dO V^T) into the gradient of S. The products themselves stay
with BLAS (the caller's np.matmul); the compiled twin (ember/_cpu/numba/attention.py) does
each pass below in one sweep over the rows.
"""
from __future__ import annotations

import functools

import numpy as np

from .dropout import dropout_factor
from .softmax import row_dots, row_sums


@functools.lru_cache(maxsize=16)
def causal_hidden(length: int, source: int) -> np.ndarray:
    """(length, source) bool, True where key j comes after query i (j > i): what
    is_causal hides (the top-left aligned lower triangle stays visible). Read-only."""
    hidden = np.triu(np.ones((length, source), dtype=bool), 1)
    hidden.flags.writeable = False
    return hidden


def attention_weights(scores: np.ndarray, scale: float, causal: bool, bias, allowed, keep,
                      p: float, weights: np.ndarray) -> np.ndarray:
    """Turn raw scores Q K^T into attention weights, in place.

    scores: (n, L, S) float32/float64, C-contiguous; overwritten with the probabilities
    softmax_j(scale * scores + bias), where positions hidden by `causal` (j > i) or by
    `allowed` (False) count as -inf. A row that can see no key at all gets zeros, as in
    torch's CPU kernels (not NaN). bias: None or a float array broadcastable to (n, L, S);
    allowed: None or a bool array broadcastable to it. keep: None, or the (n, L, S) bool
    dropout mask (True = kept) with probability p; weights: the (n, L, S) array that then
    receives probs * keep / (1 - p) (unused without keep).

    Returns the weights to multiply V with: `scores` without dropout, else `weights`.
    """
    if scale != 1:
        scores *= scale
    if bias is not None:
        scores += bias
    if causal:
        np.copyto(scores, -np.inf, where=causal_hidden(*scores.shape[1:]))
    if allowed is not None:
        np.copyto(scores, -np.inf, where=~allowed)
    shift = scores.max(axis=-1, keepdims=True)
    dead = shift == -np.inf                     # rows that see no key
    shift[dead] = 0
    scores -= shift
    np.exp(scores, out=scores)
    total = row_sums(scores, -1)
    total[dead] = 1                             # 0 / 1: the row stays zero
    scores /= total
    if keep is None:
        return scores
    np.multiply(scores, keep, out=weights)
    weights *= np.asarray(dropout_factor(p), scores.dtype)
    return weights


def attention_weights_backward(grad: np.ndarray, probs: np.ndarray, scale: float,
                               causal: bool, keep, p: float) -> np.ndarray:
    """The gradient of the raw scores from the gradient of the weights, in place.

    grad: (n, L, S), the gradient of attention_weights' result (dO V^T), C-contiguous;
    probs: the probabilities attention_weights left in `scores`; keep and p as there
    (causal only lets a kernel skip the hidden positions, whose probabilities are 0).
    Overwrites grad with scale * P * (dP - sum_j(dP * P)), dP = grad * keep / (1 - p),
    and returns it.
    """
    if keep is not None:
        grad *= keep
        grad *= np.asarray(dropout_factor(p), grad.dtype)
    grad -= row_dots(grad, probs, -1)
    grad *= probs
    if scale != 1:
        grad *= scale
    return grad
