"""torch's top-level functions that ember already has under another roof.

Three groups, each a thin layer over an existing op (nothing is computed here):
- nn.functional ops that torch also exposes as torch.conv2d, torch.dropout ... with
  torch's top-level signatures (losses take an int reduction, dropout a required
  `train`, torch.embedding takes the weight first);
- in-place ops as functions: torch.exp_(t) is t.exp_();
- *_copy ops: the view op followed by a copy, plus small utilities (detach, typename,
  asarray, frombuffer, default-device and precision settings ...).
"""
from __future__ import annotations

import warnings

import numpy as np

from ._device import get_default_device, set_default_device  # noqa: F401 (in __all__)
from . import _sampling
from ._random import default_generator
from ._tensor import Tensor
from .nn import functional as F
from .nn.functional.dropout import _feature_dropout
from .ops.complex import view_as_complex, view_as_real
from .ops.creation import as_tensor, tensor
from .ops.shape import as_strided
from ._storage import TypedStorage, UntypedStorage
from ._dtype import get_default_dtype, int64
from .ops.pointwise import scalar_type_name

_REDUCTIONS = ("none", "mean", "sum")

_NN_ALIASES = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "conv_tbc",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "dropout", "dropout_", "alpha_dropout",
    "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout",
    "feature_dropout_", "embedding", "layer_norm", "group_norm", "batch_norm", "instance_norm",
    "rms_norm", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "cosine_similarity",
    "pairwise_distance", "pdist", "prelu", "selu", "selu_", "celu", "celu_", "threshold",
    "threshold_", "hardshrink", "rrelu", "rrelu_", "relu_", "bilinear", "kl_div",
    "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
    "triplet_margin_loss", "poisson_nll_loss", "ctc_loss", "binary_cross_entropy_with_logits",
    "constant_pad_nd"]
# torch.<name>(t, ...) is t.<name>(...) for each of these in-place ops.
_INPLACE_FUNCTIONS = [
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_max_", "clamp_min_", "clip_",
    "cos_", "cosh_", "deg2rad_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_",
    "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_",
    "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "round_", "rsqrt_",
    "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_"]
_COPIES = [
    "view_copy", "t_copy", "permute_copy", "expand_copy", "transpose_copy", "unsqueeze_copy",
    "squeeze_copy", "select_copy", "slice_copy", "diagonal_copy", "split_copy", "unbind_copy",
    "unfold_copy", "detach_copy", "alias_copy", "as_strided_copy", "split_with_sizes_copy",
    "view_as_real_copy", "view_as_complex_copy"]
_UTILITIES = [
    "detach", "detach_", "is_signed", "typename", "binomial", "asarray",
    "frombuffer", "get_default_device", "set_default_device", "get_float32_matmul_precision",
    "set_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled"]
__all__ = _NN_ALIASES + _INPLACE_FUNCTIONS + _COPIES + _UTILITIES


# ---------------------------------------------------------------- nn.functional aliases
conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d, conv_transpose3d = (F.conv_transpose1d, F.conv_transpose2d,
                                                        F.conv_transpose3d)
pixel_shuffle, pixel_unshuffle, channel_shuffle = (F.pixel_shuffle, F.pixel_unshuffle,
                                                   F.channel_shuffle)
cosine_similarity, pairwise_distance, pdist = F.cosine_similarity, F.pairwise_distance, F.pdist
prelu, bilinear, hardshrink = F.prelu, F.bilinear, F.hardshrink
threshold_, selu_, celu_, rrelu_, relu_ = F.threshold_, F.selu_, F.celu_, F.rrelu_, F.relu_
adaptive_avg_pool1d = F.adaptive_avg_pool1d


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution in (time, batch, channel) layout with a (kernel, in, out) weight:
    conv1d on the same data seen as (batch, channel, time)."""
    result = F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return result.permute(2, 0, 1)


def _stride(stride):
    """torch's top-level pools default to an empty stride, meaning stride = kernel_size."""
    return None if isinstance(stride, (tuple, list)) and not stride else stride


def max_pool1d(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
               ceil_mode: bool = False) -> Tensor:
    """torch.max_pool1d: nn.functional.max_pool1d, where an empty stride means kernel_size."""
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
               ceil_mode: bool = False) -> Tensor:
    """torch.max_pool2d: nn.functional.max_pool2d, where an empty stride means kernel_size."""
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
               ceil_mode: bool = False) -> Tensor:
    """torch.max_pool3d: nn.functional.max_pool3d, where an empty stride means kernel_size."""
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode: bool = False):
    """torch.max_pool1d_with_indices: (output, indices) of a 1-D max pooling; an empty stride means
    kernel_size."""
    return F.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation,
                                     ceil_mode, return_indices=True)


def avg_pool1d(input: Tensor, kernel_size, stride=(), padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """torch.avg_pool1d: nn.functional.avg_pool1d, where an empty stride means kernel_size."""
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                        count_include_pad)


def adaptive_max_pool1d(input: Tensor, output_size):
    """torch's top-level form always returns (values, indices)."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def _top_level_dropout(name: str, functional, inplace: bool):
    """torch.<name>(input, p, train): `train` is required, and a bad p is a RuntimeError
    (nn.functional raises ValueError)."""
    def op(input: Tensor, p: float, train: bool) -> Tensor:
        if p < 0.0 or p > 1.0:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
        return functional(input, p, train, inplace=inplace)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}(input, p, train)."
    return op


dropout = _top_level_dropout("dropout", F.dropout, False)
dropout_ = _top_level_dropout("dropout_", F.dropout, True)
alpha_dropout = _top_level_dropout("alpha_dropout", F.alpha_dropout, False)
alpha_dropout_ = _top_level_dropout("alpha_dropout_", F.alpha_dropout, True)
feature_alpha_dropout = _top_level_dropout("feature_alpha_dropout", F.feature_alpha_dropout,
                                           False)
feature_alpha_dropout_ = _top_level_dropout("feature_alpha_dropout_", F.feature_alpha_dropout,
                                            True)
feature_dropout = _top_level_dropout("feature_dropout", _feature_dropout, False)
feature_dropout_ = _top_level_dropout("feature_dropout_", _feature_dropout, True)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of `weight` (note the order: weight first, unlike F.embedding). padding_idx = -1
    means none here; no row's gradient is masked."""
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:
    """torch.layer_norm: nn.functional.layer_norm (cudnn_enable is ignored)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:
    """torch.group_norm: nn.functional.group_norm (cudnn_enabled is ignored)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """Note torch's top-level argument order: weight and bias before the running stats."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight, bias, running_mean, running_var, use_input_stats: bool,
                  momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """torch.instance_norm: nn.functional.instance_norm with weight and bias before the running
    statistics (cudnn_enabled is ignored)."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def rms_norm(input: Tensor, normalized_shape, weight=None, eps: float | None = None) -> Tensor:
    """torch.rms_norm: nn.functional.rms_norm."""
    return F.rms_norm(input, normalized_shape, weight, eps)


def selu(input: Tensor) -> Tensor:
    """torch.selu: nn.functional.selu (out of place)."""
    return F.selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """torch.celu: nn.functional.celu (out of place)."""
    return F.celu(input, alpha)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """torch.threshold: nn.functional.threshold (out of place)."""
    return F.threshold(input, threshold, value)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, generator=None) -> Tensor:
    """torch.rrelu: nn.functional.rrelu; a generator argument is not supported."""
    if generator is not None:
        raise NotImplementedError("ember's rrelu does not take a generator argument")
    return F.rrelu(input, lower, upper, training)


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    """Pad `input` with `value` as nn.functional.pad(mode='constant') does."""
    return F.pad(input, pad, "constant", value)


# Losses: the top-level forms take reduction as an int (0 none, 1 mean, 2 sum).
def kl_div(input: Tensor, target: Tensor, reduction: int = 1, *,
           log_target: bool = False) -> Tensor:
    """Mean over every element for reduction=1 (torch's top-level form has no 'batchmean',
    so F.kl_div's warning about 'mean' does not apply)."""
    name = _REDUCTIONS[reduction]
    # reduced here: F.kl_div's 'mean' warns, and silencing it with warnings.catch_warnings
    # would reset Python's record of the warnings already shown
    loss = F.kl_div(input, target, reduction="none", log_target=log_target)
    return loss.mean() if name == "mean" else loss.sum() if name == "sum" else loss


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 1) -> Tensor:
    """torch.margin_ranking_loss: the nn.functional loss with reduction as an int (0 none, 1 mean, 2
    sum)."""
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_REDUCTIONS[reduction])


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: int = 1) -> Tensor:
    """torch.hinge_embedding_loss: the nn.functional loss with reduction as an int (0 none, 1 mean,
    2 sum)."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_REDUCTIONS[reduction])


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 1) -> Tensor:
    """torch.cosine_embedding_loss: the nn.functional loss with reduction as an int (0 none, 1 mean,
    2 sum)."""
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_REDUCTIONS[reduction])


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, reduction: int = 1) -> Tensor:
    """torch.triplet_margin_loss: the nn.functional loss with reduction as an int (0 none, 1 mean, 2
    sum)."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_REDUCTIONS[reduction])


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """torch.poisson_nll_loss: the nn.functional loss with every argument required and reduction as
    an int (0 none, 1 mean, 2 sum)."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_REDUCTIONS[reduction])


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths,
             blank: int = 0, reduction: int = 1, zero_infinity: bool = False) -> Tensor:
    """torch.ctc_loss: the nn.functional loss with reduction as an int (0 none, 1 mean, 2 sum)."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _REDUCTIONS[reduction], zero_infinity)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight=None,
                                     pos_weight=None, reduction: int = 1) -> Tensor:
    """torch.binary_cross_entropy_with_logits: the nn.functional loss with reduction as an int (0
    none, 1 mean, 2 sum)."""
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_REDUCTIONS[reduction],
                                              pos_weight=pos_weight)


# ---------------------------------------------------------------- in-place functions
def _inplace_function(name: str):
    def op(input: Tensor, *args, **kwargs) -> Tensor:
        return getattr(input, name)(*args, **kwargs)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}(input, ...): the same as input.{name}(...)."
    return op


for _name in _INPLACE_FUNCTIONS:
    globals()[_name] = _inplace_function(_name)


# ---------------------------------------------------------------- *_copy ops
def _copy_of(view_name: str):
    """torch.<view_name>_copy: the view op's result as a fresh tensor (sequences of views,
    as split returns, become sequences of copies)."""
    def op(input: Tensor, *args, **kwargs):
        result = getattr(input, view_name)(*args, **kwargs)
        if isinstance(result, Tensor):
            return result.clone()
        return type(result)(part.clone() for part in result)
    op.__name__ = op.__qualname__ = view_name + "_copy"
    op.__doc__ = f"input.{view_name}(...), copied out of input's memory."
    return op


for _name in ["view", "t", "permute", "transpose", "unsqueeze", "squeeze", "select",
              "diagonal", "split", "unbind", "unfold", "detach", "split_with_sizes"]:
    globals()[_name + "_copy"] = _copy_of(_name)


def expand_copy(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    """input.expand(size), copied into new memory."""
    return input.expand(size).clone()


def slice_copy(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """The slice start:end:step of input along `dim`, copied into new memory."""
    index = [slice(None)] * input.ndim
    index[dim] = slice(start, end, step)
    return input[tuple(index)].clone()


def alias_copy(input: Tensor) -> Tensor:
    """A copy of input in new memory (the copying form of an alias)."""
    return input.clone()


def as_strided_copy(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """as_strided(input, size, stride, storage_offset), copied into new memory."""
    return as_strided(input, size, stride, storage_offset).clone()


def view_as_real_copy(input: Tensor) -> Tensor:
    """view_as_real(input), copied into new memory."""
    return view_as_real(input).clone()


def view_as_complex_copy(input: Tensor) -> Tensor:
    """view_as_complex(input), copied into new memory."""
    return view_as_complex(input).clone()


# ---------------------------------------------------------------- utilities
def detach(input: Tensor) -> Tensor:
    """input.detach(): a tensor sharing input's data, cut from the autograd graph."""
    return input.detach()


def detach_(input: Tensor) -> Tensor:
    """input.detach_(): cut input itself from the autograd graph."""
    return input.detach_()


def is_signed(input: Tensor) -> bool:
    """Whether input's dtype is signed (every dtype but bool and uint8)."""
    return input.is_signed()


def typename(obj) -> str:
    """'torch.FloatTensor' for a float32 tensor, else the object's qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = "" if cls.__module__ in ("builtins", "__builtin__", None) else cls.__module__ + "."
    return module + cls.__qualname__


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Successes out of `count` trials of probability `prob`, drawn per element (not
    differentiable), in count's dtype."""
    if not count.is_floating_point():
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{scalar_type_name(count.dtype)}")
    dtype = count.dtype.numpy if count.dtype.numpy in (np.float32, np.float64) else np.float32
    draws = _sampling.binomial(generator or default_generator,
                               count.numpy(force=True).astype(dtype),
                               prob.numpy(force=True).astype(dtype))
    return Tensor._wrap(draws.astype(count.dtype.numpy))


def asarray(obj, *, dtype=None, device=None, copy: bool | None = None,
            requires_grad: bool = False) -> Tensor:
    """obj as a tensor, sharing its memory (tensors, NumPy arrays) unless a copy is asked
    for or a dtype conversion needs one."""
    if copy is False and isinstance(obj, Tensor) and dtype not in (None, obj.dtype):
        raise ValueError(f"can't alias tensor with dtype '{scalar_type_name(obj.dtype)}' into "
                         f"dtype '{scalar_type_name(dtype)}'.")
    if isinstance(obj, (UntypedStorage, TypedStorage)) or _is_buffer(obj):
        # A storage's bytes, or a buffer's (bytes, bytearray, memoryview), read as dtype:
        # shared memory unless copy=True. A typed storage defaults to its own dtype.
        if dtype is None:
            dtype = obj.dtype if isinstance(obj, TypedStorage) else \
                int64 if isinstance(obj, UntypedStorage) else get_default_dtype()
        raw = obj.untyped()._bytes if isinstance(obj, (UntypedStorage, TypedStorage)) else \
            np.frombuffer(obj, dtype=np.uint8)
        obj = raw.view(dtype.numpy)
        copy = bool(copy)
    if copy or not isinstance(obj, (Tensor, np.ndarray)):
        result = tensor(obj.detach() if isinstance(obj, Tensor) else obj, dtype=dtype,
                        device=device)
    else:
        result = as_tensor(obj, dtype, device)
    return result.requires_grad_(requires_grad) if requires_grad else result


def _is_buffer(obj) -> bool:
    """Whether obj exposes the buffer protocol (and is not an array or tensor)."""
    if isinstance(obj, (Tensor, np.ndarray, np.generic)):
        return False
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:
    """A 1-D tensor over a Python buffer's bytes (shared memory, as in torch)."""
    array = np.frombuffer(buffer, dtype=dtype.numpy, count=count, offset=offset)
    return Tensor._wrap(array).requires_grad_(requires_grad)


_MATMUL_PRECISION = ["highest"]


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision last set ('highest' by default; ember always computes at full
    precision)."""
    return _MATMUL_PRECISION[0]


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded for get_float32_matmul_precision; NumPy's float32 matmul is always full
    precision, so nothing else changes."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _MATMUL_PRECISION[0] = precision


_WARN_ALWAYS = [False]


def set_warn_always(b: bool) -> None:
    """Ask warnings that torch gives once per process to be given every time."""
    _WARN_ALWAYS[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """Whether set_warn_always(True) is in effect."""
    return _WARN_ALWAYS[0]
