"""The differentiable steps of sparse COO tensors (each a SparseFunction: forward on the
Tensors, backward in ember ops, so that create_graph works through them too).

Gradient layouts follow torch: the ops of torch.sparse (to_dense, sparse.mm/addmm,
sparse.sum, softmax) and the elementwise ops give a sparse input a sparse gradient on
its own (coalesced) pattern; torch.mm/matmul and dense + sparse give it a dense one.
"""
from __future__ import annotations

import numpy as np

from .._dtype import promote_types
from .._tensor import Tensor
from ._autograd import SparseFunction
from ._coo import SparseCooTensor, not_supported
from ._matmul import coo_matmul
from ._index import coalesce_plan, find, group_sum, linear, merge_plan, unravel


def _arrays(s: SparseCooTensor) -> tuple[np.ndarray, np.ndarray]:
    return s._sparse_indices, s._sparse_values.numpy(force=True)


def _coalesced_arrays(s: SparseCooTensor) -> tuple[np.ndarray, np.ndarray]:
    """(indices, values) of s with sorted, unique indices."""
    indices, values = _arrays(s)
    if s._coalesced:
        return indices, values
    unique, inverse = coalesce_plan(indices, s._sparse_shape())
    return unique, group_sum(values, inverse, unique.shape[1])


def _sparse(indices: np.ndarray, values: np.ndarray, shape: tuple,
            coalesced: bool) -> SparseCooTensor:
    return SparseCooTensor._make(indices, Tensor._wrap(np.asarray(values)), shape, coalesced)


def values_at(grad: Tensor, indices: np.ndarray) -> Tensor:
    """grad's entries (slices, with dense dims) at `indices`, as a (n, ...) dense tensor;
    grad may be dense or sparse (absent entries read as zeros)."""
    if grad.is_sparse:
        return ValuesAt.apply(grad, indices)
    return grad[tuple(Tensor._wrap(row) for row in indices)]


def masked_gradient(values: Tensor, like: SparseCooTensor, indices: np.ndarray) -> Tensor:
    """A gradient for `like` holding `values` on its coalesced `indices`."""
    return FromValues.apply(values, indices, tuple(like.shape), True)


class FromValues(SparseFunction):
    """torch.sparse_coo_tensor(indices, values): the values' gradient is the incoming one's
    entries at `indices`."""
    backward_name = "SparseCooTensorWithDimsAndTensorsBackward0"

    @staticmethod
    def forward(ctx, values, indices, shape, coalesced):
        ctx.indices = indices
        return SparseCooTensor._make(indices, values.detach(), shape, coalesced)

    @staticmethod
    def backward(ctx, grad):
        return values_at(grad, ctx.indices), None, None, None


class ValuesAt(SparseFunction):
    """The entries of a sparse tensor at given indices (zeros where it has none)."""
    backward_name = "SparseMaskBackward0"

    @staticmethod
    def forward(ctx, sparse, indices):
        ctx.indices, ctx.shape = indices, tuple(sparse.shape)
        have, values = _coalesced_arrays(sparse)
        shape = sparse._sparse_shape()
        position, found = find(linear(have, shape), linear(indices, shape))
        out = values[position] if values.shape[0] else \
            np.zeros((indices.shape[1],) + values.shape[1:], values.dtype)
        return out * found.reshape((-1,) + (1,) * (values.ndim - 1))

    @staticmethod
    def backward(ctx, grad):
        return FromValues.apply(grad, ctx.indices, ctx.shape, False), None


class Values(SparseFunction):
    """coalesced.values(): a gradient on the values is one on the tensor's entries."""
    backward_name = "ValuesBackward0"

    @staticmethod
    def forward(ctx, sparse):
        ctx.indices, ctx.shape = sparse._sparse_indices, tuple(sparse.shape)
        return sparse._sparse_values.detach()

    @staticmethod
    def backward(ctx, grad):
        return FromValues.apply(grad, ctx.indices, ctx.shape, True)


class ToDense(SparseFunction):
    """The strided tensor (repeated indices summed); the gradient keeps the pattern."""
    backward_name = "ToDenseBackward0"

    @staticmethod
    def forward(ctx, sparse, dtype):
        ctx.sparse = sparse
        indices, values = _arrays(sparse)
        out = np.zeros(tuple(sparse.shape), dtype=values.dtype if dtype is None else
                       dtype.numpy)
        np.add.at(out, tuple(indices), values)
        return out

    @staticmethod
    def backward(ctx, grad):
        indices, _ = _coalesced_arrays(ctx.sparse)
        return masked_gradient(values_at(grad, indices), ctx.sparse, indices), None


class ToSparse(SparseFunction):
    """dense.to_sparse(sparse_dim): the entries (slices) that are not all zero."""
    backward_name = "ToSparseBackward1"

    @staticmethod
    def forward(ctx, dense, sparse_dim):
        data = dense.numpy(force=True)
        present = data != 0
        if sparse_dim < data.ndim:
            present = present.any(axis=tuple(range(sparse_dim, data.ndim)))
        indices = np.stack(np.nonzero(present)).astype(np.int64) if sparse_dim else \
            np.zeros((0, 1), np.int64)
        values = data[tuple(indices)] if sparse_dim else data[None]
        return _sparse(indices, values, data.shape, True)

    @staticmethod
    def backward(ctx, grad):
        return (grad.to_dense() if grad.is_sparse else grad), None


class Coalesce(SparseFunction):
    """Sorted, unique indices with the values of repeated ones summed; same tensor."""
    backward_name = "CoalesceBackward0"

    @staticmethod
    def forward(ctx, sparse):
        indices, values = _coalesced_arrays(sparse)
        return _sparse(indices, values, tuple(sparse.shape), True)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Clone(SparseFunction):
    """A copy of the indices and values."""
    backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, sparse):
        indices, values = _arrays(sparse)
        return _sparse(indices.copy(), values.copy(), tuple(sparse.shape), sparse._coalesced)

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToCopy(SparseFunction):
    """The tensor with values converted to `dtype`."""
    backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, sparse, dtype):
        return sparse._like(sparse._sparse_indices, sparse._sparse_values.to(dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class MulScalar(SparseFunction):
    """sparse * number: the values scaled."""
    backward_name = "MulBackward0"

    @staticmethod
    def forward(ctx, sparse, other):
        ctx.other = other
        return sparse._like(sparse._sparse_indices, sparse._sparse_values * other)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.other, None


class DivScalar(SparseFunction):
    """sparse / number: the values divided."""
    backward_name = "DivBackward0"

    @staticmethod
    def forward(ctx, sparse, other):
        ctx.other = other
        return sparse._like(sparse._sparse_indices, sparse._sparse_values / other)

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx.other, None


class Neg(SparseFunction):
    """-sparse."""
    backward_name = "NegBackward0"

    @staticmethod
    def forward(ctx, sparse):
        return sparse._like(sparse._sparse_indices, -sparse._sparse_values)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Transpose(SparseFunction):
    """Two sparse dims swapped: their rows of the indices trade places."""
    backward_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx, sparse, dim0, dim1):
        ctx.dims = dim0, dim1
        order = list(range(sparse.ndim))
        order[dim0], order[dim1] = dim1, dim0
        indices = sparse._sparse_indices[order[:sparse.sparse_dim()]]
        return SparseCooTensor._make(indices, sparse._sparse_values,
                                     tuple(sparse.shape[d] for d in order), dim0 == dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


class T(Transpose):
    """sparse.t() of a matrix."""
    backward_name = "TBackward0"


def _add_backward(ctx, grad):
    """The gradients of a + alpha * b."""
    return grad, (grad * ctx.alpha if ctx.alpha != 1 else grad), None


class AddSparse(SparseFunction):
    """sparse + alpha * sparse, entries merged as torch merges them (see merge_plan)."""
    backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, mine, theirs, alpha):
        ctx.alpha = alpha
        shape = mine._sparse_shape()
        positions, slot_mine, slot_theirs = merge_plan(mine._linear(), theirs._linear())
        dtype = promote_types(mine.dtype, theirs.dtype).numpy
        _, values_mine = _arrays(mine)
        _, values_theirs = _arrays(theirs)
        values = np.zeros((positions.size,) + values_mine.shape[1:], dtype)
        np.add.at(values, slot_mine, values_mine)
        np.add.at(values, slot_theirs, values_theirs * alpha if alpha != 1 else values_theirs)
        return _sparse(unravel(positions, shape), values, tuple(mine.shape),
                       mine._coalesced and theirs._coalesced)

    backward = staticmethod(_add_backward)


class SubSparse(AddSparse):
    """sparse - alpha * sparse (an AddSparse of -alpha)."""
    backward_name = "SubBackward0"


class AddDense(SparseFunction):
    """dense + alpha * sparse: a dense tensor; both gradients are dense."""
    backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, dense, sparse, alpha):
        ctx.alpha = alpha
        indices, values = _arrays(sparse)
        out = dense.numpy(force=True).astype(promote_types(dense.dtype, sparse.dtype).numpy)
        np.add.at(out, tuple(indices), values * alpha if alpha != 1 else values)
        return out

    backward = staticmethod(_add_backward)


class MulDense(SparseFunction):
    """sparse * dense (same shape): sparse, each value times the dense entry under it."""
    backward_name = "MulBackward0"

    @staticmethod
    def forward(ctx, sparse, dense):
        ctx.save_for_backward(sparse, dense)
        indices, values = _arrays(sparse)
        return sparse._like(indices, Tensor._wrap(values * dense.numpy(force=True)[
            tuple(indices)]))

    @staticmethod
    def backward(ctx, grad):
        sparse, dense = ctx._unpacked_saved
        grad_sparse = grad * dense if ctx.needs_input_grad[0] else None
        grad_dense = grad * sparse if ctx.needs_input_grad[1] else None
        return grad_sparse, grad_dense


class MulSparse(SparseFunction):
    """sparse * sparse: the entries both have, multiplied (a coalesced result)."""
    backward_name = "MulBackward0"

    @staticmethod
    def forward(ctx, mine, theirs):
        ctx.save_for_backward(mine, theirs)
        shape = mine._sparse_shape()
        indices_mine, values_mine = _coalesced_arrays(mine)
        indices_theirs, values_theirs = _coalesced_arrays(theirs)
        _, at_mine, at_theirs = np.intersect1d(linear(indices_mine, shape),
                                               linear(indices_theirs, shape),
                                               assume_unique=True, return_indices=True)
        return _sparse(indices_mine[:, at_mine], values_mine[at_mine] * values_theirs[at_theirs],
                       tuple(mine.shape), True)

    @staticmethod
    def backward(ctx, grad):
        mine, theirs = ctx._unpacked_saved
        return (grad * theirs if ctx.needs_input_grad[0] else None,
                grad * mine if ctx.needs_input_grad[1] else None)


class SparseAddmm(SparseFunction):
    """beta * input + alpha * (sparse matrix @ dense matrix) (input None: the product);
    the sparse operand's gradient keeps its pattern."""
    backward_name = "SparseAddmmBackward0"
    masked = True

    @staticmethod
    def forward(ctx, input, sparse, dense, beta, alpha):
        ctx.save_for_backward(sparse, dense)
        ctx.beta, ctx.alpha = beta, alpha
        (rows, cols), values = _arrays(sparse)
        matrix = dense.numpy(force=True)
        out = coo_matmul(rows, cols, values, matrix, sparse.shape[0])
        if alpha != 1:
            out *= alpha
        if input is not None:
            out = out + (input.numpy(force=True) * beta if beta != 1 else
                         input.numpy(force=True))
        return out.astype(matrix.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        sparse, dense = ctx._unpacked_saved
        alpha = ctx.alpha
        scaled = grad * alpha if alpha != 1 else grad
        grad_input = grad_sparse = grad_dense = None
        if ctx.needs_input_grad[0]:
            grad_input = grad * ctx.beta if ctx.beta != 1 else grad
        if ctx.needs_input_grad[1]:
            if ctx.masked:
                indices, _ = _coalesced_arrays(sparse)
                rows, cols = (Tensor._wrap(i) for i in indices)
                grad_sparse = masked_gradient((scaled[rows] * dense[cols]).sum(1), sparse,
                                              indices)
            else:
                grad_sparse = scaled.mm(dense.t())
        if ctx.needs_input_grad[2]:
            grad_dense = SparseMm.apply(None, T.apply(sparse, 0, 1), scaled, 1, 1)
        return grad_input, grad_sparse, grad_dense, None, None


class SparseMm(SparseAddmm):
    """torch.mm / matmul / @ of a sparse and a dense matrix: the sparse operand's gradient
    is dense, as torch gives it."""
    backward_name = "MmBackward0"
    masked = False


class DenseSparseMm(SparseFunction):
    """dense matrix @ sparse matrix (torch.mm / @): dense gradients for both."""
    backward_name = "MmBackward0"

    @staticmethod
    def forward(ctx, dense, sparse):
        ctx.save_for_backward(dense, sparse)
        (rows, cols), values = _arrays(sparse)
        matrix = dense.numpy(force=True)
        # (dense @ sparse).T = sparse.T @ dense.T
        return coo_matmul(cols, rows, values, matrix.T, sparse.shape[1]).T

    @staticmethod
    def backward(ctx, grad):
        dense, sparse = ctx._unpacked_saved
        grad_dense = grad_sparse = None
        if ctx.needs_input_grad[0]:
            grad_dense = DenseSparseMm.apply(grad, T.apply(sparse, 0, 1))
        if ctx.needs_input_grad[1]:
            grad_sparse = dense.t().mm(grad)
        return grad_dense, grad_sparse


class Sum(SparseFunction):
    """sparse.sum(): the sum of the values, with a dense gradient (as in torch)."""
    backward_name = "SumBackward0"

    @staticmethod
    def forward(ctx, sparse, dtype):
        ctx.shape = tuple(sparse.shape)
        return sparse._sparse_values.sum(dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape), None


class SparseSum(SparseFunction):
    """torch.sparse.sum(input, dim): sparse while some sparse dim is kept, dense
    otherwise; the gradient keeps input's pattern."""
    backward_name = "SparseSumBackward0"

    @staticmethod
    def forward(ctx, sparse, dims):
        n_sparse = sparse.sparse_dim()
        kept = [d for d in range(n_sparse) if d not in dims]
        value_axes = tuple(d - n_sparse + 1 for d in dims if d >= n_sparse)
        indices, values = _coalesced_arrays(sparse)
        ctx.sparse, ctx.kept, ctx.value_axes, ctx.indices = sparse, kept, value_axes, indices
        if value_axes:
            values = values.sum(axis=value_axes)
        if not kept:
            return values.sum(axis=0)
        shape = tuple(sparse.shape[d] for d in kept)
        unique, inverse = coalesce_plan(indices[kept], shape)
        dense_shape = tuple(n for d, n in enumerate(sparse.shape) if d >= n_sparse and
                            d not in dims)
        return _sparse(unique, group_sum(values, inverse, unique.shape[1]),
                       shape + dense_shape, True)

    @staticmethod
    def backward(ctx, grad):
        nnz = ctx.indices.shape[1]
        if ctx.kept:
            per_entry = values_at(grad, ctx.indices[ctx.kept])
        else:
            per_entry = grad.unsqueeze(0).expand((nnz,) + tuple(grad.shape))
        for axis in ctx.value_axes:
            per_entry = per_entry.unsqueeze(axis)
        values_shape = (nnz,) + tuple(ctx.sparse.shape)[ctx.sparse.sparse_dim():]
        return masked_gradient(per_entry.expand(values_shape), ctx.sparse, ctx.indices), None


class SparseSumAll(SparseSum):
    """torch.sparse.sum(input) without dims: a 0-dim dense tensor."""
    backward_name = "SumBackward0"


class Softmax(SparseFunction):
    """torch.sparse.softmax along a sparse dim: over each line's stored entries only
    (absent entries count as -inf); the result has input's coalesced pattern."""
    backward_name = "SparseSoftmaxBackward0"
    log = False

    @classmethod
    def forward(cls, ctx, sparse, dim):
        if dim >= sparse.sparse_dim():
            raise not_supported("softmax along a dense dim")
        indices, values = _coalesced_arrays(sparse)
        others = [d for d in range(sparse.sparse_dim()) if d != dim]
        lines = linear(indices[others], tuple(sparse.shape[d] for d in others))
        _, line = np.unique(lines, return_inverse=True)
        line = line.reshape(-1)
        n_lines = int(line.max()) + 1 if line.size else 0
        peak = np.full((n_lines,) + values.shape[1:], -np.inf, values.dtype)
        np.maximum.at(peak, line, values)
        shifted = values - peak[line]
        total = group_sum(np.exp(shifted), line, n_lines)[line]
        out = shifted - np.log(total) if cls.log else np.exp(shifted) / total
        result = _sparse(indices, out, tuple(sparse.shape), True)
        ctx.sparse, ctx.indices, ctx.line, ctx.n_lines = sparse, indices, line, n_lines
        ctx.out = result._sparse_values
        return result

    @staticmethod
    def backward(ctx, grad):
        g = values_at(grad, ctx.indices)
        line = Tensor._wrap(ctx.line)
        out = ctx.out
        weighted = g if ctx.log else g * out
        sums = weighted.new_zeros((ctx.n_lines,) + tuple(g.shape[1:])).index_add(0, line,
                                                                                  weighted)
        grad_values = g - out.exp() * sums[line] if ctx.log else weighted - out * sums[line]
        return masked_gradient(grad_values, ctx.sparse, ctx.indices), None


class LogSoftmax(Softmax):
    """torch.sparse.log_softmax along a sparse dim (see Softmax)."""
    backward_name = "SparseLogSoftmaxBackward0"
    log = True
