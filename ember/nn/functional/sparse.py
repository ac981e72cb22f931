"""Embedding lookups (embedding, embedding_bag) and one_hot."""
from __future__ import annotations

import numpy as np

from ..._cpu import kernels
from ..._recorded_call import replayed_call
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ...ops._nondifferentiable import recorded
from ...ops._value_checks import check_values
from ...sparse import sparse_coo_tensor

__all__ = ["embedding", "embedding_bag", "one_hot"]


def _check_indices(input: Tensor, num: int):
    """The indices as an array, checked to be in range (on meta: the tensor itself, with no
    values to check, as torch's meta kernel; apply takes its storage)."""
    if input.dtype.numpy.kind not in "iu":
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"{input.type()} instead (while checking arguments for embedding)")
    check_values(_check_rows, input, num)
    return input if input.is_meta else input.numpy(force=True)


def _check_rows(idx: np.ndarray, num: int) -> None:
    if idx.size and (idx.min() < 0 or idx.max() >= num):
        bad = int(idx.max() if idx.max() >= num else idx.min())
        raise IndexError(f"index out of range in self. Hint: index {bad} but the embedding has "
                         f"{num} rows (valid indices 0..{num - 1}); check the vocabulary size.")


class EmbeddingLookup(Function):
    """weight[indices]; the gradient adds rows back, skipping padding_idx (-1: none) and
    dividing by each index's frequency when scale_grad_by_freq. With sparse=True the
    gradient is a sparse COO tensor instead (see _sparse_gradient)."""
    backward_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq, sparse=False):
        ctx.args = (indices, weight.shape[0], padding_idx, scale_grad_by_freq)
        ctx.sparse_shape = weight.shape if sparse else None
        return weight[indices]

    @staticmethod
    def backward(ctx, grad):
        if ctx.sparse_shape is not None:
            return _sparse_gradient(grad, ctx.args, ctx.sparse_shape), None, None, None, None
        return EmbeddingGradient.apply(grad, *ctx.args), None, None, None, None


def _sparse_gradient(grad: Tensor, args: tuple, shape: tuple) -> Tensor:
    """torch's sparse gradient of a lookup: an uncoalesced hybrid COO tensor with one entry
    per looked-up index (padding_idx's left out), in lookup order, whose values are the
    matching rows of grad."""
    indices, _, padding_idx, scale_grad_by_freq = args
    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse "
                           "gradients")
    flat = indices.reshape(-1)
    rows = grad.reshape(flat.size, shape[1])
    if padding_idx >= 0:
        keep = flat != padding_idx
        flat, rows = flat[keep], rows[Tensor._wrap(np.flatnonzero(keep))]
    return sparse_coo_tensor(flat[None], rows, shape)


class EmbeddingGradient(Function):
    """The table's gradient: the rows of grad summed at their indices (kernel family
    ember/_cpu/embedding.py)."""
    backward_name = "EmbeddingDenseBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
        ctx.args = (indices, padding_idx)
        return kernels.family("embedding").embedding_backward(grad, indices, num_weights,
                                                              padding_idx, scale_grad_by_freq)

    @staticmethod
    def backward(ctx, grad):
        # Linear in grad: its adjoint looks the rows up again, the padding row's as zeros.
        # torch leaves out the frequency scaling here, and so does ember.
        indices, padding_idx = ctx.args
        rows = EmbeddingLookup.apply(grad, indices, padding_idx, False)
        if padding_idx >= 0:
            rows = rows * Tensor._wrap((indices != padding_idx)[..., None].astype(rows.dtype))
        return rows, None, None, None, None


@replayed_call
def _renorm_(weight: Tensor, idx: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Rescale, in place, the looked-up rows whose norm exceeds max_norm (as torch does)."""
    with no_grad():
        rows = np.unique(idx)
        data = weight._data_to_write()
        norms = np.linalg.norm(data[rows], ord=norm_type, axis=1)
        over = norms > max_norm
        data[rows[over]] *= (max_norm / (norms[over] + 1e-7))[:, None]


def embedding(input: Tensor, weight: Tensor, padding_idx=None, max_norm=None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """Look up rows of `weight` (input: indices of any shape). sparse=True makes weight's
    gradient a sparse COO tensor, as torch does (for optimizers such as SparseAdam)."""
    num = weight.shape[0]
    idx = _check_indices(input, num)
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num
    if max_norm is not None:
        _renorm_(weight, idx, max_norm, norm_type)
    return EmbeddingLookup.apply(weight, idx,
                                 -1 if padding_idx is None else padding_idx,
                                 bool(scale_grad_by_freq), bool(sparse))


def embedding_bag(input: Tensor, weight: Tensor, offsets=None, max_norm=None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean",
                  sparse: bool = False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None) -> Tensor:
    """Sum/mean/max of the embeddings of each bag (2-D input, or 1-D input + offsets)."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if scale_grad_by_freq:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq=True is not supported by "
                                  "ember")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences.")
        n, length = input.shape
        bounds = [(i * length, (i + 1) * length) for i in range(n)]
        flat = input.reshape(-1)
        weights = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    else:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        starts = offsets.tolist()
        ends = starts[1:] + ([] if include_last_offset else [input.shape[0]])
        if include_last_offset:
            starts = starts[:-1]
        bounds = list(zip(starts, ends))
        flat, weights = input, per_sample_weights
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-num} "
                               f"through {num - 1}, but got {padding_idx}")
        padding_idx %= num                 # -1 is the last row, as in torch
    rows = embedding(flat, weight, padding_idx, max_norm, norm_type)
    if weights is not None:
        rows = rows * weights.unsqueeze(-1)
    keep = None if padding_idx is None else (flat != padding_idx)
    bags = []
    for start, end in bounds:
        bag = rows[start:end]
        if keep is not None:
            bag = bag[keep[start:end]]
        if bag.shape[0] == 0:
            bags.append(weight.new_zeros(weight.shape[1]))
        elif mode == "sum":
            bags.append(bag.sum(0))
        elif mode == "mean":
            bags.append(bag.mean(0))
        else:
            bags.append(bag.max(0).values)
    from ...ops.joining import stack
    return stack(bags) if bags else weight.new_zeros((0, weight.shape[1]))


@recorded("one_hot")
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 tensor of shape input.shape + (num_classes,) with a 1 at each index of the integer
    `tensor` and 0 elsewhere; num_classes=-1 means max(tensor) + 1."""
    idx = tensor.numpy(force=True)
    if idx.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(idx.max()) + 1 if idx.size else 0
        if not idx.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if idx.size and idx.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if idx.size and idx.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.zeros(idx.shape + (num_classes,), dtype=np.int64)
    np.put_along_axis(out, idx[..., None], 1, axis=-1)
    return Tensor._wrap(out)
