"""The masked reductions of torch.masked: sum, prod, amax, amin, argmax, argmin, mean,
median, logsumexp, norm, var and std.

Each takes `input, dim, *, keepdim, dtype, mask`. Elements where `mask` (broadcast to
input's shape) is False are left out: they take the reduction's identity (_mask.py), so a
fully masked-out slice gives that identity (0 for sum, -inf for amax ...), or NaN for
mean, median, var and std, which have none. Gradients flow through ember's where() and
reductions.
"""
from __future__ import annotations

from .. import _dtype
from ..linalg import vector_norm
from ..ops import reduction as plain
from ..ops.pointwise import maximum, sqrt
from ..ops.creation import ones
from ..ops.sorting import nanmedian
from .._tensor import Tensor
from ._mask import canonical_dim, check_strided, combine_input_and_mask, input_mask
from .maskedtensor.core import is_masked_tensor

__all__ = ["sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "logsumexp",
           "norm", "var", "std"]

# Integer and bool inputs sum and multiply to int64 unless a dtype is given.
_PROMOTED_TO_INT64 = (_dtype.uint8, _dtype.bool, _dtype.int8, _dtype.int16, _dtype.int32)


def _accumulating_dtype(input: Tensor, dtype):
    if dtype is not None:
        return dtype
    return _dtype.int64 if input.dtype in _PROMOTED_TO_INT64 else input.dtype


def sum(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """Sum of the masked-in elements over `dim` (all dims by default); identity 0."""
    dtype = _accumulating_dtype(input, dtype)
    dims = canonical_dim(dim, input.ndim)
    return plain.sum(combine_input_and_mask("sum", input, mask), dims, bool(keepdim),
                     dtype=dtype)


def prod(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """Product of the masked-in elements over `dim` (all dims by default); identity 1."""
    dtype = _accumulating_dtype(input, dtype)
    dims = canonical_dim(dim, input.ndim)
    result = combine_input_and_mask("prod", input, mask).to(dtype=dtype)
    for d in reversed(dims):          # from the last dim, so the earlier ones keep their place
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def _extremum(name: str, input: Tensor, dim, keepdim: bool, dtype, mask) -> Tensor:
    """amax, amin, argmax or argmin (`name`) of the masked-in elements, cast to `dtype`
    (input's by default, the arg reductions' indices included, as in torch)."""
    dtype = input.dtype if dtype is None else dtype
    masked = combine_input_and_mask(name, input, mask)
    if not name.startswith("arg"):       # amax and amin take several dims
        dim = canonical_dim(dim, masked.ndim)
    return getattr(plain, name)(masked, dim, bool(keepdim)).to(dtype=dtype)


def amax(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """Maximum of the masked-in elements over `dim`; identity -inf (the dtype's minimum for
    integers)."""
    return _extremum("amax", input, dim, keepdim, dtype, mask)


def amin(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """Minimum of the masked-in elements over `dim`; identity inf (the dtype's maximum for
    integers)."""
    return _extremum("amin", input, dim, keepdim, dtype, mask)


def argmax(input: Tensor, dim: int | None = None, *, keepdim: bool = False, dtype=None,
           mask=None) -> Tensor:
    """Index of the largest masked-in element along `dim` (of the flattened input without
    one). As in torch, the result has input's dtype unless `dtype` is given."""
    return _extremum("argmax", input, dim, keepdim, dtype, mask)


def argmin(input: Tensor, dim: int | None = None, *, keepdim: bool = False, dtype=None,
           mask=None) -> Tensor:
    """Index of the smallest masked-in element along `dim` (of the flattened input without
    one). As in torch, the result has input's dtype unless `dtype` is given."""
    return _extremum("argmin", input, dim, keepdim, dtype, mask)


def _count(input: Tensor, dim, keepdim: bool, mask) -> Tensor:
    """How many masked-in elements each reduced slice holds (int64)."""
    present = (input_mask(input, mask) if mask is not None
               else ones(input.shape, dtype=_dtype.bool))
    return present.sum(dim=canonical_dim(dim, input.ndim), keepdim=keepdim)


def mean(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """Mean of the masked-in elements over `dim`; NaN for a fully masked-out slice. Needs a
    floating or complex input or `dtype`."""
    result = input.dtype if dtype is None else dtype
    if not (result.is_floating_point or result.is_complex):
        source = "Input" if dtype is None else "Optional"
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either "
                         f"a floating point or complex dtype. Got: {result}")
    total = sum(input, dim, keepdim=keepdim, dtype=result, mask=mask)
    return total / _count(input, dim, bool(keepdim), mask)


def median(input: Tensor, dim: int = -1, *, keepdim: bool = False, dtype=None,
           mask=None) -> Tensor:
    """Median of the masked-in elements along `dim` (NaN for a fully masked-out slice, which
    an integer input may not have)."""
    dtype = input.dtype if dtype is None else dtype
    dim = canonical_dim(dim, input.ndim)[0]
    is_float = input.is_floating_point()
    if not is_float:
        input = input.to(dtype=_dtype.float32)
    output = nanmedian(combine_input_and_mask("median", input, mask), dim, keepdim).values
    if is_float:
        return output
    if output.isnan().any():
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    return output.to(dtype=dtype)


def logsumexp(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None,
              mask=None) -> Tensor:
    """log(sum(exp(x))) of the masked-in elements over `dim`; identity -inf."""
    dtype = input.dtype if dtype is None else dtype
    dims = canonical_dim(dim, input.ndim)
    masked = combine_input_and_mask("logsumexp", input, mask)
    return plain.logsumexp(masked, dims, keepdim=keepdim).to(dtype=dtype)


def norm(input: Tensor, ord: float | None = 2.0, dim=None, *, keepdim: bool = False,
         dtype=None, mask=None) -> Tensor:
    """The vector `ord`-norm of the masked-in elements over `dim` (see
    torch.linalg.vector_norm); identity 0 (inf for ord=-inf)."""
    dtype = input.dtype if dtype is None else dtype
    masked = combine_input_and_mask("norm", input, mask, ord)
    return vector_norm(masked, ord, canonical_dim(dim, input.ndim), bool(keepdim), dtype=dtype)


def _var(input: Tensor, dim, unbiased, correction, keepdim, dtype, mask) -> Tensor:
    """The variance of the masked-in elements: the squared deviations from their mean,
    summed and divided by max(count - correction, 0)."""
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    check_strided("var", input, mask)
    if correction is None:
        correction = 1.0 if unbiased is None or unbiased else 0.0
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point or input.dtype.is_complex \
            else _dtype.float32
    compute_dtype = dtype if dtype.is_floating_point or dtype.is_complex else _dtype.float32
    if mask is not None:
        mask = input_mask(input, mask)
    count = _count(input, dim, True, mask)
    summed = mask
    if is_masked_tensor(input):
        # Its own mask picks the elements summed (`mask` those counted), as in torch; on its
        # data with where(), the deviations it masks out take no part in the gradient.
        summed, input = input.get_mask(), input.get_data()
    sample_mean = sum(input, dim, keepdim=True, dtype=dtype, mask=summed) / count
    deviation = input - sample_mean
    total = sum(deviation * deviation.conj(), dim, keepdim=keepdim, dtype=compute_dtype,
                mask=summed)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        real = compute_dtype.to_real() if compute_dtype.is_complex else compute_dtype
        count = maximum(count.to(real) - correction, count.new_zeros([]).to(real))
    return (total / count).to(dtype=dtype)


def var(input: Tensor, dim=None, unbiased: bool | None = None, *, correction=None,
        keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """Variance of the masked-in elements over `dim` (Bessel-corrected unless unbiased=False
    or another `correction`); NaN for a fully masked-out slice."""
    return _var(input, dim, unbiased, correction, keepdim, dtype, mask)


def std(input: Tensor, dim=None, unbiased: bool | None = None, *, correction=None,
        keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """Standard deviation of the masked-in elements over `dim` (the square root of var)."""
    return sqrt(_var(input, dim, unbiased, correction, keepdim, dtype, mask))

