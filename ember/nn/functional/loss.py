"""Loss functions: torch.nn.functional's loss section.

Most losses are a few lines of ember ops, so their gradients (and double backward)
come from autograd. The losses that run on every training step or need torch's exact
special cases get their own Function:
  CrossEntropy   log_softmax + nll fused: a stable log-sum-exp forward and
                 (softmax - target) * scale backward (class indices: one pass over the
                 rows by the kernel family `softmax`)
  NllLoss        picks -w[t] * x[t]; its backward is a constant tensor times the grad
  BinaryCrossEntropy  torch's log clamped at -100 and its gradient formula
CTC loss lives in ctc.py (re-exported here).
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype
from ..._cpu import buffers, kernels
from ..._modes import current as _current_modes
from ..._recorded_call import replayed_call
from ..._cpu.softmax import at_targets, row_shift
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.fused_backward import FusedBackward
from ...ops._value_checks import check_values
from ...ops.pointwise import to_dtype
from ...ops.pointwise.where import Where
from ...amp.policy import FP32, autocast_op
from .distance import pairwise_distance
from .activation import log_softmax

__all__ = ["l1_loss", "mse_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "kl_div", "margin_ranking_loss",
           "multilabel_margin_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
           "multi_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "hinge_embedding_loss", "cosine_embedding_loss"]

_LOW_PRECISION = _dtype.LOW_PRECISION_NUMPY


# ---------------------------------------------------------------- reductions
def legacy_reduction(size_average, reduce, emit_warning: bool = True) -> str:
    """Map the deprecated size_average/reduce flags to a reduction string (torch's rule)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{result}' instead.", UserWarning, stacklevel=3)
    return result


def _pick_reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    return _check_reduction(reduction)


def _check_reduction(reduction: str) -> str:
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", UserWarning, stacklevel=3)
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _type_name(t: Tensor) -> str:
    """torch's scalar type name in messages: Float, Double, Long, ..."""
    return t.dtype.scalar_name


def _warn_target_size(input: Tensor, target: Tensor, loss: str) -> None:
    """torch's warning for a regression loss whose target's shape is not the input's (and
    ember.doctor's broadcast-loss-shape check)."""
    if target.shape != input.shape:
        doctor = _current_modes().doctor
        if doctor is not None:
            doctor.regression(loss, input, target)
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)


def _check_broadcast(a: Tensor, b: Tensor) -> None:
    """torch's broadcast_tensors error for shapes that do not broadcast."""
    sa, sb = a.shape, b.shape
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            dim = max(len(sa), len(sb)) - i
            raise RuntimeError(f"The size of tensor a ({sa[-i]}) must match the size of tensor b "
                               f"({sb[-i]}) at non-singleton dimension {dim}")


# ---------------------------------------------------------------- small building blocks
def _where(cond, a, b) -> Tensor:
    """torch.where (the gradient goes to the chosen side). `cond` is a bool Tensor computed
    by ops from the call's tensors (a compiled plan then recomputes it), or a constant."""
    return Where.apply(cond if isinstance(cond, Tensor) else np.asarray(cond), a, b)


def _clamp_min(x: Tensor, low: float) -> Tensor:
    """clamp_min with torch's gradient rule (passes where x >= low)."""
    return _where(x.detach() >= low, x, low)


def _positive_part(x: Tensor) -> Tensor:
    """max(x, 0) whose gradient flows only where x > 0 (the margin kernels' rule)."""
    return _where(x.detach() > 0, x, 0.0)


def _softplus(x: Tensor) -> Tensor:
    """log(1 + exp(x)) without overflow: max(x, 0) + log(1 + exp(-|x|))."""
    a = x.abs()
    return (x + a) * 0.5 + (1 + (-a).exp()).log()


# ---------------------------------------------------------------- regression losses
def _weighted_error(error: Tensor, input: Tensor, weight, reduction: str,
                    mean_over_weights: bool = True) -> Tensor:
    """l1/mse/huber with an elementwise weight; l1 and mse's 'mean' divides by the sum of
    the weights, huber's by the number of elements (as torch does)."""
    if weight is None:
        return _reduce(error, reduction)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = error * weight
    if reduction == "mean" and mean_over_weights:
        return weighted.sum() / weight.sum()
    return _reduce(weighted, reduction)


@autocast_op(FP32)
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean (or sum, or none, as `reduction` says) of the absolute differences |input - target|."""
    _warn_target_size(input, target, "l1_loss")
    reduction = _pick_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    return _weighted_error((input - target).abs(), input, weight, reduction)


@autocast_op(FP32)
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean (or sum, or none, as `reduction` says) of the squared differences (input - target)**2.
    """
    _warn_target_size(input, target, "mse_loss")
    reduction = _pick_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    if weight is not None:
        diff = input - target
        return _weighted_error(diff * diff, input, weight, reduction)
    common = _dtype.result_type(input, target)
    input, target = (t if t.dtype is common else to_dtype(t, common) for t in (input, target))
    return MseLoss.apply(input, target, reduction)


class MseLoss(Function):
    """(x - t)**2 reduced as `reduction` says, one node as torch's (the blitz tutorial walks
    loss.grad_fn.next_functions from MseLossBackward0 to the layer that made x)."""
    backward_name = "MseLossBackward0"
    saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, x, t, reduction):
        diff = x - t                                  # x and t share a dtype; may broadcast
        ctx.meta = (reduction, diff.size, x.shape, t.shape)
        ctx.save_for_backward(x, t)
        return _finish(diff * diff, diff.size, reduction, diff.dtype)

    @staticmethod
    def backward(ctx, grad):
        reduction, count, x_shape, t_shape = ctx.meta
        x, t = ctx._unpacked_saved
        scale = grad * 2 / count if reduction == "mean" else grad * 2
        # In ember ops, so that the gradient is itself differentiable (create_graph).
        grad_x = (x - t) * scale
        need_x, need_t = ctx.needs_input_grad[:2]
        return (grad_x.sum_to_size(x_shape) if need_x else None,
                (-grad_x).sum_to_size(t_shape) if need_t else None, None)


def _huber(diff: Tensor, delta: float) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta (|d| - delta / 2)."""
    a = diff.abs()
    return _where(a.detach() < delta, diff * diff * 0.5, (a - 0.5 * delta) * delta)


@autocast_op(FP32)
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Squared error divided by 2 * beta where |input - target| < beta, absolute error minus beta /
    2 elsewhere; reduced as `reduction` says."""
    _warn_target_size(input, target, "smooth_l1_loss")
    reduction = _pick_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    diff = input - target
    if beta == 0:
        return _reduce(diff.abs(), reduction)
    return _reduce(_huber(diff, beta) / beta, reduction)


@autocast_op(FP32)
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """Huber loss: squared error / 2 where |input - target| <= delta, delta * (|error| - delta / 2)
    elsewhere (smooth_l1_loss times delta)."""
    _warn_target_size(input, target, "huber_loss")
    reduction = _check_reduction(reduction)
    _check_broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return _weighted_error(_huber(input - target, delta), input, weight, reduction,
                           mean_over_weights=False)


@autocast_op(FP32)
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of target under a Poisson distribution of rate input (or exp(input)
    when log_input=True); full=True adds the Stirling term."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        # Stirling's approximation of log(target!), counted only where target > 1.
        big = target.detach() > 1
        t = _where(big, target, 2.0)
        stirling = t * t.log() - t + (t * (2 * math.pi)).log() * 0.5
        loss = loss + _where(big, stirling, 0.0)
    return _reduce(loss, reduction)


def _check_variance(var: np.ndarray) -> None:
    if (var < 0).any():
        raise ValueError("var has negative entry/entries")


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of target under a Gaussian with mean input and variance var:
    (log(var) + (input - target)**2 / var) / 2, var clamped to eps."""
    check_values(_check_variance, var)
    if isinstance(var, (int, float)):
        var = input.detach() * 0 + var
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and
                  sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # torch clamps var for stability without letting the clamp touch the gradient.
    v = var.detach()
    var = var + (v.clamp(min=eps) - v)
    diff = input - target
    loss = (var.log() + diff * diff / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


@autocast_op(FP32)
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence KL(target || exp(input)) pointwise, with input given as
    log-probabilities (and target too when log_target=True); use reduction='batchmean' for the
    mathematical KL."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    batchmean = reduction == "batchmean"
    reduction = _check_reduction("sum" if batchmean else reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # xlogy(t, t) - t * input, with 0 * log 0 taken as 0
        nonzero = target.detach() != 0
        safe = _where(nonzero, target, 1.0)
        loss = target * safe.log() - target * input
    out = _reduce(loss, reduction)
    if batchmean and input.ndim != 0:
        out = out / input.shape[0]
    return out


# ---------------------------------------------------------------- classification: class indices
def _check_class_weight(weight, input: Tensor, n_classes: int, prefix: str = "") -> np.ndarray:
    if weight is None:
        return None
    if weight.ndim != 1 or weight.numel() != n_classes:
        raise RuntimeError(f"{prefix}weight tensor should be defined either for all {n_classes} "
                           "classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(input)} but found "
                           f"{_type_name(weight)}")
    return weight.numpy(force=True)


def _class_targets(input: Tensor, target: Tensor, ignore_index: int) -> np.ndarray:
    """Validate class-index targets against a batched input (N, C, d1, ...)."""
    if target.dtype.numpy not in (np.int64, np.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_type_name(target)}. Hint: "
            "class-index targets must be integers (use target.long()); to pass class "
            "probabilities instead, give the target the input's shape.")
    target_batch = target.shape[0] if target.ndim else 0     # torch reports 0 for a scalar
    if input.shape[0] != target_batch:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target_batch}).")
    if input.ndim == 2 and target.ndim != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = input.shape[:1] + input.shape[2:]
    if input.ndim > 2 and target.shape != expected:
        if input.ndim == 4:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                               f"{list(target.shape)}")
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(target.shape)}")
    check_values(_check_classes, target, input.shape[1], ignore_index)
    if target.is_meta:              # no values; apply takes its storage
        return target
    return target.numpy(force=True).astype(np.int64, copy=False)


def _check_classes(t: np.ndarray, n_classes: int, ignore_index: int) -> None:
    if t.size == 0 or 0 <= t.min() and t.max() < n_classes:    # the common case: valid
        return
    bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
    if bad.any():
        value = int(t[bad][0])
        raise IndexError(f"Target {value} is out of bounds. Hint: target value {value} but the "
                         f"input has {n_classes} classes (valid labels 0..{n_classes - 1}); "
                         "check the number of output units or the label encoding.")


def _target_weights(t: np.ndarray, weight, ignore_index: int, dtype):
    """(safe targets, per-target weight w[t] with 0 at ignored positions, kept positions)."""
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    w_t = keep.astype(dtype) if weight is None else np.where(keep, weight[safe], 0).astype(dtype)
    return safe, w_t, keep


def _batched(fn, input: Tensor, target: Tensor, reduction: str, **kwargs) -> Tensor:
    """Run a class loss on an unbatched (C,) input as a batch of one."""
    if target.shape == input.shape:         # class probabilities
        target = target.unsqueeze(0)
    elif target.ndim == 1 and target.shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                         f"{target.shape[0]}")
    else:
        target = target.reshape(1)
    out = fn(input.unsqueeze(0), target, reduction=reduction, **kwargs)
    return out[0] if reduction == "none" else out


def _grad_scale(grad, denom: float, reduction: str):
    """The upstream gradient (a Tensor, or its array in a backward kernel) as a factor
    per (sample, 1, positions...)."""
    if reduction == "none":
        return grad[:, None]
    if reduction == "mean":
        # every target ignored: torch's loss is nan but its gradient is zero
        return grad / denom if denom else grad * 0
    return grad


def _times(a: np.ndarray, factor) -> np.ndarray:
    """a * factor, into a reused buffer (the loss's gradient is as large as the logits)."""
    return np.multiply(a, factor, out=buffers.empty_like(a, np.result_type(a, factor)))


def _finish(loss: np.ndarray, denom: float, reduction: str, dtype) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        if reduction == "none":
            return loss.astype(dtype)
        total = loss.sum(dtype=np.float64 if loss.dtype == np.float64 else None)
        return np.asarray(total / denom if reduction == "mean" else total, dtype=dtype)


class NllLoss(Function):
    """-w[t] * input[n, t]: linear in input, so backward is a constant times the grad."""
    backward_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, x, t, weight, ignore_index, reduction):
        safe, w_t, _ = _target_weights(t, weight, ignore_index, x.dtype)
        picked = at_targets(x, safe)
        loss = np.where(w_t != 0, -w_t * picked, 0)
        denom = float(w_t.sum())
        ctx.reduction = reduction
        if ctx.needs_input_grad and ctx.needs_input_grad[0]:
            d_input = np.zeros_like(x)
            np.put_along_axis(d_input, safe[:, None], -w_t[:, None], axis=1)
            ctx.d_input = d_input
            # The mean's divisor (the targets' total weight) as an array on the node, where
            # a compiled plan reads each call's; every target ignored: a zero gradient.
            ctx.denom = np.asarray(denom if denom else np.inf, dtype=x.dtype)
        return _finish(loss, denom, reduction, x.dtype)

    @staticmethod
    def backward(ctx, grad):
        scale = grad / Tensor._wrap(ctx.denom) if ctx.reduction == "mean" else \
            _grad_scale(grad, None, ctx.reduction)
        return Tensor._wrap(ctx.d_input) * scale, None, None, None, None


@autocast_op(FP32)
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood: -input[n, target[n]] for log-probabilities input (N, C) or (N, C,
    d1, ...), weighted per class, skipping ignore_index, reduced as `reduction` says."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim == 1:
        return _batched(nll_loss, input, target, reduction, weight=weight,
                        ignore_index=ignore_index)
    doctor = _current_modes().doctor
    if doctor is not None:
        doctor.nll_loss(input)
    w = _check_class_weight(weight, input, input.shape[1])
    t = _class_targets(input, target, ignore_index)
    return NllLoss.apply(input, t, w, ignore_index, reduction)


class CrossEntropy(Function):
    """log_softmax over dim 1 followed by the (weighted, smoothed) negative log-likelihood.

    Every variant is -sum_c Q[n, c] * log_softmax(x)[n, c] for a coefficient array Q
    (one-hot * w[t] for class indices, plus the label-smoothing term; w * target for
    probabilities), whose gradient is softmax(x) * sum_c Q - Q.
    """
    backward_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, label_smoothing, reduction):
        x = input.astype(np.float32) if input.dtype in _LOW_PRECISION else input
        n_classes = x.shape[1]
        w_b = 1 if weight is None else weight.reshape((1, -1) + (1,) * (x.ndim - 2))
        smooth = label_smoothing / n_classes
        needs = ctx.needs_input_grad
        if target.ndim == x.ndim:               # class probabilities (class indices: one less)
            shift = row_shift(x)
            z = x - shift
            with np.errstate(divide="ignore"):
                logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
            q = (target * (1 - label_smoothing) + smooth if label_smoothing else target) * w_b
            keep = None
            denom = float(logp.size // n_classes) if logp.size else 0.0
            loss = -(q * np.where(q != 0, logp, 0)).sum(axis=1)
            if needs and needs[0]:
                ctx.d_logits = np.exp(logp) * q.sum(axis=1, keepdims=True) - q
            if needs and needs[1]:
                ctx.logp = logp
            ctx.coefficients = q
        else:                                   # class indices: no dense one-hot needed
            safe, w_t, keep = _target_weights(target, weight, ignore_index, x.dtype)
            denom = float(w_t.sum())
            loss, d_logits = kernels.family("softmax").cross_entropy(
                x, safe, w_t, keep, weight, label_smoothing, bool(needs and needs[0]))
            if needs and needs[0]:
                ctx.d_logits = d_logits
            ctx.coefficients = (safe, w_t, keep)
            shift = None                        # recomputed if create_graph needs it
        ctx.meta = (denom, reduction, shift, keep, label_smoothing, smooth)
        ctx.weight = w_b
        if needs:
            ctx.save_for_backward(input, target if keep is None else None)
        return _finish(loss, denom, reduction, input.dtype)

    @staticmethod
    def _class_coefficients(ctx, like: np.ndarray) -> np.ndarray:
        """The dense per-class coefficients q for class-index targets (create_graph only)."""
        safe, w_t, keep = ctx.coefficients
        label_smoothing, smooth = ctx.meta[4], ctx.meta[5]
        q = np.zeros_like(like)
        np.put_along_axis(q, safe[:, None], ((1 - label_smoothing) * w_t)[:, None], axis=1)
        if label_smoothing:
            q += smooth * ctx.weight * keep[:, None]
        return q

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx._unpacked_saved
        return _CrossEntropyGrads.apply(grad, input, target, ctx) + (None,) * 4


class _CrossEntropyGrads(FusedBackward):
    """CrossEntropy's (grad_input, grad_target), each None unless the loss node `op` needs
    it: the softmax gradient its forward kept, scaled in NumPy, and the same formulas in
    ember ops (log_softmax rebuilt from the input) when they are differentiated again.
    target is the probabilities' Tensor, or None for class indices."""
    backward_name = "LogSoftmaxBackwardDataBackward0"

    @staticmethod
    def forward(ctx, grad, input, target, op):
        ctx.save_for_backward(grad, input, target)
        ctx.op = op
        denom, reduction, _, _, label_smoothing, _ = op.meta
        need_input, need_target = op.needs_input_grad[:2]
        scale = _grad_scale(grad, denom, reduction)
        return (_times(op.d_logits, scale) if need_input else None,
                -op.logp * op.weight * (1 - label_smoothing) * scale if need_target else None)

    @staticmethod
    def derivative(ctx, grad, input, target):
        op = ctx.op
        denom, reduction, shift, _, label_smoothing, smooth = op.meta
        need_input, need_target = op.needs_input_grad[:2]
        scale = _grad_scale(grad, denom, reduction)
        if shift is None:
            shift = row_shift(input.numpy(force=True))
        z = input - Tensor._wrap(shift.astype(input.dtype.numpy))
        logp = z - z.exp().sum(1, keepdim=True).log()
        if need_target:
            q = (target * (1 - label_smoothing) + smooth) * op.weight
        elif isinstance(op.coefficients, tuple):
            q = Tensor._wrap(CrossEntropy._class_coefficients(op, input.numpy(force=True)))
        else:
            q = Tensor._wrap(op.coefficients)
        return ((logp.exp() * q.sum(1, keepdim=True) - q) * scale if need_input else None,
                -logp * op.weight * (1 - label_smoothing) * scale if need_target else None)


@autocast_op(FP32)
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy between logits input (N, C) or (N, C, d1, ...) and class indices or class
    probabilities target: log_softmax then nll_loss, with optional class weights and
    label_smoothing."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    if not (input.is_floating_point() or input.is_complex()):
        log_softmax(input, 1 if input.ndim > 1 else 0)  # raises torch's kernel error
    if input.shape == target.shape:
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {_type_name(target)}")
    elif input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim == 1:
        return _batched(cross_entropy, input, target, reduction, weight=weight,
                        ignore_index=ignore_index, label_smoothing=label_smoothing)
    doctor = _current_modes().doctor
    if doctor is not None:
        doctor.cross_entropy(input)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing}")
    n_classes = input.shape[1]
    if input.shape == target.shape:
        w = _check_class_weight(weight, input, n_classes, "cross_entropy: ")
        if target.dtype is not input.dtype:
            common = _dtype.result_type(input, target)
            input, target = to_dtype(input, common), to_dtype(target, common)
            w = None if w is None else w.astype(common.numpy)
        return CrossEntropy.apply(input, target, w, ignore_index, label_smoothing, reduction)
    w = _check_class_weight(weight, input, n_classes)
    t = _class_targets(input, target, ignore_index)
    return CrossEntropy.apply(input, t, w, ignore_index, label_smoothing, reduction)


# ---------------------------------------------------------------- binary classification
class BinaryCrossEntropy(Function):
    """-w (t log x + (1 - t) log(1 - x)) with torch's log clamp at -100 and its gradient
    w (x - t) / max(x (1 - x), 1e-12)."""
    backward_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, x, t, weight, reduction):
        # binary_cross_entropy checked that x and t have one shape and one dtype.
        # Written so that NaN fails the test too, as in torch.
        for name, values in (("input", x), ("target", t)):
            if not ((values >= 0) & (values <= 1)).all():
                raise RuntimeError(f"all elements of {name} should be between 0 and 1")
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(x), -100)
            log_1mx = np.maximum(np.log1p(-x), -100)
        loss = -(t * log_x + (1 - t) * log_1mx)
        if weight is not None:
            loss = loss * weight
        ctx.meta = (reduction, loss.size)
        ctx.save_for_backward(x, t, weight)
        return _finish(loss, loss.size, reduction, loss.dtype)

    @staticmethod
    def backward(ctx, grad):
        reduction, count = ctx.meta
        x, t, w = ctx._unpacked_saved
        scale = grad / count if reduction == "mean" else grad
        if w is not None:
            scale = scale * w
        need_x, need_t = ctx.needs_input_grad[:2]
        grad_x = grad_t = None
        # In ember ops, so that the gradient is itself differentiable (create_graph).
        if need_x:
            grad_x = (x - t) / ((1 - x) * x).clamp_min(1e-12) * scale
        if need_t:
            grad_t = ((-x).log1p() - x.log()) * scale
        return grad_x, grad_t, None, None


@autocast_op(FP32)
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy -(t * log(x) + (1 - t) * log(1 - x)) between probabilities input and
    target of the same shape (logs clamped at -100)."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input "
                         f"size ({input.size()}) is deprecated. Please ensure they have the "
                         "same size.")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {_type_name(target)} but expected {_type_name(input)}")
    if weight is not None and np.broadcast_shapes(weight.shape, target.shape) != target.shape:
        raise RuntimeError(f"The expanded size of the tensor ({target.shape[-1]}) must match the "
                           f"existing size ({weight.shape[-1]}) at non-singleton dimension "
                           f"{target.ndim - 1}.")
    return BinaryCrossEntropy.apply(input, target, weight, reduction)


@autocast_op(FP32)
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy on logits: sigmoid and BCE in one numerically stable step; pos_weight
    weighs the positive term per class."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    doctor = _current_modes().doctor
    if doctor is not None:
        doctor.bce_with_logits(input)
    # (1 - t) x + log_weight * log(1 + exp(-x)), the softplus computed without overflow
    softplus_neg = _softplus(-input)
    if pos_weight is not None:
        softplus_neg = ((pos_weight - 1) * target + 1) * softplus_neg
    loss = (1 - target) * input + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


# ---------------------------------------------------------------- margin and embedding losses
@autocast_op(FP32)
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin), with target 1 or -1 saying which input should
    rank higher."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce(_clamp_min(-target * (input1 - input2) + margin, 0.0), reduction)


@autocast_op(FP32)
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where target is -1; for learning whether
    pairs are similar from a distance."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    t = target.detach()
    loss = _where(t != 1, _clamp_min(margin - input, 0.0), 0.0) + _where(t != -1, input, 0.0)
    return _reduce(loss, reduction)


@autocast_op(FP32)
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """Two-class logistic loss log(1 + exp(-target * input)) with targets 1 or -1, averaged over
    elements."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    return _reduce((1 + (-target * input).exp()).log(), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average=None, reduce=None,
                                reduction: str = "mean") -> Tensor:
    """Multi-label one-versus-all loss: binary cross-entropy with logits per class, averaged over
    the classes (C), then reduced over the batch."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    # -(t log sigmoid(x) + (1 - t) log sigmoid(-x))
    loss = target * _softplus(-input) + (1 - target) * _softplus(input)
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


@autocast_op(FP32)
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where target is -1."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    dim = target.ndim
    if dim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != dim + 1 or input2.ndim != dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12
    dot = (input1 * input2).sum(dim)
    cos = dot / (((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)).sqrt()
    _check_broadcast(cos, target)
    t = target.detach()
    loss = _where(t == 1, 1 - cos, 0.0) + _where(t == -1, _clamp_min(cos - margin, 0.0), 0.0)
    return _reduce(loss, reduction)


def _margin_batch(input: Tensor) -> Tensor:
    """A margin loss's (), (C,) or (N, C) input as (N, C)."""
    if input.ndim > 2 or (input.numel() == 0 and not (input.ndim == 2 and input.shape[1])):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    return input if input.ndim == 2 else input.reshape(1, -1)  # a 0-dim input is one class


@autocast_op(FP32)
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average=None, reduce=None,
                      reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: for each sample, the sum over wrong classes i of max(0, margin - x[y]
    + x[i])**p, divided by C."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x = _margin_batch(input)
    n, n_classes = x.shape
    if target.ndim > 1 or target.numel() != n:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{n}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and weight.numel() != n_classes:
        raise RuntimeError(f"inconsistent weight size, expected {n_classes} but got "
                           f"{list(weight.shape)}")
    t, others, scale = _class_masks(target, n_classes, weight)
    z = x - x[np.arange(n), t].unsqueeze(1) + margin
    h = _positive_part(z)
    if p == 2:
        h = h * h
    h = h * Tensor._wrap(others)
    if weight is not None:
        h = h * Tensor._wrap(scale)
    loss = h.sum(1) / n_classes
    return _reduce(loss.reshape(target.shape), reduction)


@autocast_op(FP32)
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """Multi-class multi-label hinge loss: target lists each sample's classes (ended by -1); every
    (target class, other class) pair adds max(0, 1 - (x[j] - x[i]))."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    x = _margin_batch(input)
    if target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    n, n_classes = x.shape
    safe, pairs = _label_pairs(target, x.shape)
    # z[n, j, i] = 1 - (x[n, label_j] - x[n, i]) for every label j and non-label i
    z = 1 - x[np.arange(n)[:, None], safe].unsqueeze(2) + x.unsqueeze(1)
    loss = _where(Tensor._wrap(pairs) & (z > 0), z, 0.0).sum((1, 2)) / n_classes
    return _reduce(loss if input.ndim == 2 else loss[0], reduction)


# The margin losses' target arrays are computed in replayed calls: a compiled plan
# recomputes them from each call's target instead of keeping the first one's.
@replayed_call
def _class_masks(target: Tensor, n_classes: int, weight: Tensor | None) -> tuple:
    """multi_margin_loss's target as row indices, the mask of the other classes, and the
    target classes' weights (None without weight), as (N, 1)."""
    t = target.numpy(force=True).astype(np.int64).reshape(-1)
    if ((t < 0) | (t >= n_classes)).any():
        raise RuntimeError("target out of range")
    others = np.ones((t.size, n_classes), dtype=bool)
    others[np.arange(t.size), t] = False
    scale = None if weight is None else weight.numpy(force=True)[t][:, None]
    return t, others, scale


@replayed_call
def _label_pairs(target: Tensor, shape: tuple) -> tuple:
    """multilabel_margin_loss's labels (each sample's target entries up to the first -1):
    the label of each target slot (0 past the end), and the (N, labels, C) mask of the
    (label slot, other class) pairs that count."""
    n, n_classes = shape
    t = target.numpy(force=True).astype(np.int64).reshape(shape)
    valid = np.cumprod(t != -1, axis=1).astype(bool)
    if ((t[valid] < 0) | (t[valid] >= n_classes)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    is_target = np.zeros((n, n_classes + 1), dtype=bool)
    np.put_along_axis(is_target, np.where(valid, t, n_classes), True, axis=1)
    return np.where(valid, t, 0), valid[:, :, None] & ~is_target[:, None, :n_classes]


def _check_triplet_dims(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and "
            f"negative {negative.ndim}D inputs")


def _triplet(anchor, positive, negative, distance, margin: float, swap: bool) -> Tensor:
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_swap = distance(positive, negative)
        d_neg = _where(d_swap.detach() < d_neg.detach(), d_swap, d_neg)
    return _clamp_min(d_pos - d_neg + margin, 0.0)


@autocast_op(FP32)
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """max(d(a, p) - d(a, n) + margin, 0) for anchor, positive and negative samples, with d the
    p-norm distance; swap uses the smaller of d(a, n) and d(p, n)."""
    reduction = _pick_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    loss = _triplet(anchor, positive, negative,
                    lambda a, b: pairwise_distance(a, b, p, eps), margin, swap)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function=None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:
    """Triplet margin loss with a custom distance_function (default pairwise_distance): max(d(a, p)
    - d(a, n) + margin, 0)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    if distance_function is None:
        distance_function = pairwise_distance
    return _reduce(_triplet(anchor, positive, negative, distance_function, margin, swap),
                   reduction)


# Imported last: ctc.py builds on the reduction helpers above.
from .ctc import CtcLoss, ctc_loss  # noqa: E402,F401
