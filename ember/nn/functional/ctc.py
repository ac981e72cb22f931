"""CTC loss (connectionist temporal classification): torch.nn.functional.ctc_loss.

CtcLoss runs the alpha (forward) and beta (backward) recursions in log space with NumPy,
vectorised over the batch and the positions of the extended label; only time is a
Python loop.
"""
from __future__ import annotations

import numpy as np

from ..._recorded_call import replayed_call
from ..._tensor import Tensor
from ...autograd.function import Function
from ...amp.policy import FP32, autocast_op
from .loss import _check_reduction

__all__ = ["ctc_loss"]


def _shift(a: np.ndarray, k: int, fill) -> np.ndarray:
    """a moved k places along the last axis (right for k > 0), emptied places = fill."""
    out = np.full_like(a, fill)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


class CtcLoss(Function):
    """Per-sample -log p(target | log_probs) by the CTC forward (alpha) recursion.

    Positions s of the extended label (blank, l1, blank, l2, ..., blank) are handled
    together for the whole batch; only time is a Python loop. The gradient is torch's:
    exp(log_probs) - exp(log(sum over s with label c of alpha*beta) + nll - log_probs),
    i.e. the gradient with respect to the logits of a log_softmax.
    """
    backward_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, targets, in_len, tgt_len, blank, zero_infinity):
        lp = log_probs.astype(np.float64)
        n_time, n, n_classes = lp.shape
        width = 2 * targets.shape[1] + 1
        ext = np.full((n, width), blank, dtype=np.int64)
        ext[:, 1::2] = targets
        valid = np.arange(width)[None] < (2 * tgt_len + 1)[:, None]
        # s may be reached from s - 2 when it is a label different from the one before
        skip = np.zeros((n, width), dtype=bool)
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
        emit = np.where(valid, lp[:, np.arange(n)[:, None], ext], -np.inf)   # (T, N, S')
        alpha = np.full((n_time, n, width), -np.inf)
        alpha[0, :, :2] = emit[0, :, :2]
        for t in range(1, n_time):
            prev = alpha[t - 1]
            step = np.logaddexp(prev, _shift(prev, 1, -np.inf))
            step = np.logaddexp(step, np.where(skip, _shift(prev, 2, -np.inf), -np.inf))
            alpha[t] = step + emit[t]
        rows = np.arange(n)
        last = alpha[np.maximum(in_len - 1, 0), rows]
        end_blank = last[rows, 2 * tgt_len]
        end_label = np.where(tgt_len > 0, last[rows, np.maximum(2 * tgt_len - 1, 0)], -np.inf)
        nll = -np.logaddexp(end_blank, end_label)
        ctx.save_for_backward(log_probs)
        needs = ctx.needs_input_grad
        if needs and needs[0]:
            ctx.grad = CtcLoss.gradient(lp, alpha, emit, ext, skip, in_len, tgt_len, nll,
                                        zero_infinity).astype(log_probs.dtype)
        if zero_infinity:
            nll = np.where(np.isinf(nll), 0.0, nll)
        return nll.astype(log_probs.dtype)

    @staticmethod
    def gradient(lp, alpha, emit, ext, skip, in_len, tgt_len, nll, zero_infinity):
        n_time, n, n_classes = lp.shape
        rows = np.arange(n)
        # beta_t(s): log-probability of finishing from s at t (emission at t included)
        beta = np.full_like(alpha, -np.inf)
        skip_next = _shift(skip, -2, False)
        start = np.full(alpha.shape[1:], -np.inf)
        for t in range(n_time - 1, -1, -1):
            start[:] = -np.inf
            start[rows, 2 * tgt_len] = emit[t, rows, 2 * tgt_len]
            label_end = np.maximum(2 * tgt_len - 1, 0)
            start[rows, label_end] = np.where(tgt_len > 0, emit[t, rows, label_end],
                                              start[rows, label_end])
            if t + 1 < n_time:
                nxt = beta[t + 1]
                step = np.logaddexp(nxt, _shift(nxt, -1, -np.inf))
                step = np.logaddexp(step, np.where(skip_next, _shift(nxt, -2, -np.inf), -np.inf))
                inner = step + emit[t]
            else:
                inner = start
            beta[t] = np.where((t == in_len - 1)[:, None], start,
                               np.where((t < in_len - 1)[:, None], inner, -np.inf))
        ab = alpha + beta
        top = ab.max(axis=2, keepdims=True)
        top = np.where(np.isfinite(top), top, 0)
        one_hot = (ext[:, :, None] == np.arange(n_classes)).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_ab = np.log(np.einsum("tns,nsc->tnc", np.exp(ab - top), one_hot)) + top
            grad = np.exp(lp) - np.exp(log_ab + nll[None, :, None] - lp)
        grad[np.arange(n_time)[:, None] >= in_len[None, :]] = 0
        if zero_infinity:
            grad[:, np.isinf(nll)] = 0
        return grad

    @staticmethod
    def backward(ctx, grad):
        return (Tensor._wrap(ctx.grad) * grad.reshape(1, -1, 1), None, None, None, None, None)


@replayed_call
def _labels(targets: Tensor, input_lengths, target_lengths, n: int, n_time: int,
            blank: int) -> tuple:
    """(the targets padded with blanks to (N, longest), the input lengths, the target
    lengths) as int64 Tensors, checked as torch checks them. A replayed call: a compiled
    plan recomputes them from each call's targets and lengths."""
    in_len = _lengths(input_lengths, n, "input")
    tgt_len = _lengths(target_lengths, n, "target")
    if (in_len > n_time).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {n_time}, but got "
                           f"value {int(in_len.max())} (while checking arguments for "
                           "ctc_loss_cpu)")
    flat = targets.numpy(force=True).astype(np.int64)
    longest = int(tgt_len.max()) if n else 0
    if targets.ndim == 1:
        # concatenated targets -> padded (N, longest)
        starts = np.concatenate([[0], np.cumsum(tgt_len)[:-1]])
        index = starts[:, None] + np.arange(longest)[None]
        inside = np.arange(longest)[None] < tgt_len[:, None]
        padded = np.where(inside, flat[np.minimum(index, max(flat.size - 1, 0))]
                          if flat.size else blank, blank)
    else:
        if flat.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, "
                               f"but got size {flat.shape[1]} for argument #2 'targets' (while "
                               "checking arguments for ctc_loss_cpu)")
        padded = flat[:, :longest]
    return tuple(Tensor._wrap(np.ascontiguousarray(a, dtype=np.int64))
                 for a in (padded, in_len, tgt_len))


def _lengths(lengths, n: int, name: str) -> np.ndarray:
    data = lengths.numpy(force=True) if isinstance(lengths, Tensor) else np.asarray(lengths)
    data = data.astype(np.int64).reshape(-1)
    if data.shape[0] != n:
        raise RuntimeError(f"Expected tensor to have size {n} at dimension 0, but got size "
                           f"{data.shape[0]} for argument #{3 if name == 'input' else 4} "
                           f"'{name}_lengths' (while checking arguments for ctc_loss_cpu)")
    return data


@autocast_op(FP32)
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification loss between log_probs (T, N, C) (or (T, C)) and target
    label sequences, summing over every alignment; `blank` is the blank class."""
    reduction = _check_reduction(reduction)
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0)
    n_time, n, _ = log_probs.shape
    padded, in_len, tgt_len = _labels(targets, input_lengths, target_lengths, n, n_time, blank)
    loss = CtcLoss.apply(log_probs, padded, in_len, tgt_len, blank, zero_infinity)
    if reduction == "mean":
        return (loss / tgt_len.clamp(min=1).to(loss.dtype)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss[0] if unbatched else loss
