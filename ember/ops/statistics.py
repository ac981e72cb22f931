"""Statistics of a tensor's values: counting (bincount, histc, histogram, isin), covariance and
correlation (cov, corrcoef), and quantiles (quantile, nanquantile).

Counts are plain data and never require grad (torch marks them differentiable but cannot
differentiate them). cov, corrcoef and the quantiles are composed of differentiable ember ops
(sort, gather, lerp, matmul ...), so their gradients, double backward included, come for free.
"""
from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from .. import _dtype
from .._recorded_call import replayed_call
from .._tensor import Tensor
from .creation import linspace
from .pointwise import _float_result_type, _unsupported, _with_out, scalar_type_name, where
from ._nondifferentiable import recorded
from ._value_checks import check_values
from ._return_types import return_types
from .reduction import _isnan, take_along

METHODS = ["bincount", "histc", "histogram", "cov", "corrcoef", "quantile", "nanquantile"]
INPLACE: list = []

__all__ = ["bincount", "histc", "histogram", "histogramdd", "isin", "cov", "corrcoef",
           "quantile", "nanquantile"]

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


# ---------------------------------------------------------------- bincount
@recorded("bincount", value_sized=True)
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ... occurs in a 1-D tensor of non-negative integers (or the
    sum of `weights` at each value). The result has max(input) + 1 entries, at least minlength.

    Counts are int64; float32 weights give float32 sums and every other weight dtype float64.
    An empty input gives int64 zeros even with weights, as in torch."""
    data = input._data
    if data.dtype.kind not in "iu" or data.dtype in _dtype.LIMITED_NUMPY:
        raise _unsupported("bincount_cpu", data.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if data.ndim != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and weights.shape != input.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    values = data.astype(np.int64)
    if weights is None or data.size == 0:
        return Tensor._wrap(np.bincount(values, minlength=minlength))
    if weights.is_complex():
        raise NotImplementedError("bincount(): complex weights are not supported in ember")
    sums = np.bincount(values, weights=weights._data.astype(_F64), minlength=minlength)
    return Tensor._wrap(sums.astype(_F32 if weights._data.dtype == _F32 else _F64))


# ---------------------------------------------------------------- histc, histogram
def _bin_index_by_scaling(values: np.ndarray, low, high, bins: int) -> np.ndarray:
    """Bin of each value for `bins` equal bins over [low, high], scaled in the values' dtype
    as torch's histc does (so values near an edge land in the same bin as in torch)."""
    low, high = values.dtype.type(low), values.dtype.type(high)
    with np.errstate(invalid="ignore"):
        position = (values - low) * bins / (high - low)
    return np.minimum(position.astype(np.int64), bins - 1)   # `high` itself is in the last bin


def _bin_index_by_edges(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin of each value between sorted `edges` (each bin holds its left edge)."""
    index = np.searchsorted(edges, values, side="right") - 1
    return np.minimum(index, len(edges) - 2)   # the last edge itself is in the last bin


def _check_bin_count(bins: int, dim: int = 0) -> None:
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension "
                           f"{dim}")


@recorded("histc")
def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *,
          out: Tensor | None = None) -> Tensor:
    """Counts of the elements in `bins` equal-width bins over [min, max]; elements outside
    are ignored. min == max means the data's own range (widened by 1 each way if flat)."""
    data = input._data.reshape(-1)
    if data.dtype.kind not in "fV":
        raise _unsupported("histogram_cpu", data.dtype)
    _check_bin_count(bins)
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    low, high = float(min), float(max)
    if low == high and data.size:
        low, high = float(data.min()), float(data.max())
    if low == high:
        low, high = low - 1, high + 1
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")
    values = data.astype(_F32) if data.dtype.kind == "V" else data
    inside = values[(values >= low) & (values <= high)]
    counts = np.bincount(_bin_index_by_scaling(inside, low, high, bins), minlength=bins)
    return _with_out(Tensor._wrap(counts.astype(data.dtype)), out)


def _histogram_edges(data: np.ndarray, bins, range, dim: int) -> np.ndarray:
    """The bin edges of dimension `dim` (values `data`): a given 1-D tensor, or bins + 1
    evenly spaced over range (default: the data's min and max; a flat range is widened by
    0.5 each way)."""
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram() received an invalid combination of arguments - got "
                            "(Tensor, Tensor, range=...): range only goes with an int bins")
        if bins.ndim != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but got "
                               f"{bins.ndim} dimensions in the bins tensor for dimension {dim}")
        if bins._data.dtype != data.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the "
                               f"same dtype, but got input with dtype {_c_name(data.dtype)} and "
                               f"bins for dimension {dim} with dtype "
                               f"{_c_name(bins._data.dtype)}")
        _check_bin_count(bins.shape[0] - 1, dim)
        return bins._data.copy()
    _check_bin_count(bins, dim)
    if range is None:
        low, high = (float(data.min()), float(data.max())) if data.size else (0.0, 1.0)
    else:
        low, high = float(range[0]), float(range[1])
    if low > high:
        raise RuntimeError("torch.histogramdd: min should not exceed max, but got min "
                           f"{low:g} max {high:g} for dimension {dim}")
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension {dim}'s range [{low:g}, {high:g}] is "
                           "not finite")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return linspace(low, high, bins + 1, dtype=_dtype.from_numpy_dtype(data.dtype))._data


def _c_name(dtype: np.dtype) -> str:
    """The C type name torch's histogram messages use for a dtype ('float', 'long int' ...)."""
    return {"float32": "float", "float64": "double", "int64": "long int",
            "int32": "int"}.get(np.dtype(dtype).name, np.dtype(dtype).name)


@recorded("histogram", return_types.histogram)
def histogram(input: Tensor, bins=100, *, range=None, weight: Tensor | None = None,
              density: bool = False):
    """(hist, bin_edges): how many elements (or how much `weight`) fall in each bin. `bins` is
    a count of equal bins over `range` or a 1-D tensor of edges. With density, hist is scaled
    to integrate to 1 over the edges."""
    if weight is not None and weight.numel() == input.numel():
        weight = weight.reshape(-1)          # one weight per element, in any shape
    hist, edges = histogramdd(input.reshape(-1, 1), [bins], range=range, weight=weight,
                              density=density)
    return return_types.histogram(hist, edges[0])


def histogramdd(input: Tensor, bins=10, *, range=None, weight: Tensor | None = None,
                density: bool = False):
    """(hist, bin_edges) of the points in the rows of `input` (..., D): a D-dimensional
    histogram. `bins` is one count for every dimension, a count per dimension, or a 1-D
    tensor of edges per dimension; `range` is (min, max) per dimension, flattened."""
    hist, *edges = _histogramdd(input, bins, range=range, weight=weight, density=density)
    return return_types.histogramdd(hist, tuple(edges))


@recorded("histogramdd")
def _histogramdd(input: Tensor, bins, *, range, weight, density) -> tuple:
    """histogramdd's (hist, *bin_edges), flat (so that the ONNX exporter refuses it by name)."""
    if input._data.dtype not in (_F32, _F64):
        raise _unsupported("histogramdd", input._data.dtype)
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    dims = input.shape[-1]
    points = input._data.reshape(-1, dims)
    bins = [bins] * dims if isinstance(bins, (int, np.integer)) else list(bins)
    if len(bins) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should "
                           f"have {2 * dims} elements, but got {len(range)}")
    edges = [_histogram_edges(points[:, d], bins[d], None if range is None else
                              range[2 * d:2 * d + 2], d) for d in builtins.range(dims)]
    if weight is not None:
        _check_histogram_weight(input, weight)
    inside = np.ones(len(points), dtype=bool)
    for d, e in enumerate(edges):
        inside &= (points[:, d] >= e[0]) & (points[:, d] <= e[-1])
    shape = tuple(len(e) - 1 for e in edges)
    index = np.ravel_multi_index([_bin_index_by_edges(points[inside, d], e)
                                  for d, e in enumerate(edges)], shape) if dims else \
        np.zeros(int(inside.sum()), dtype=np.int64)
    mass = None if weight is None else weight._data.reshape(-1)[inside]
    hist = np.bincount(index, weights=mass, minlength=math.prod(shape)).astype(points.dtype)
    hist = hist.reshape(shape)
    if density:
        volume = math.prod(np.ix_(*[np.diff(e) for e in edges])) if dims else 1.0
        with np.errstate(invalid="ignore", divide="ignore"):
            hist = hist / hist.sum() / volume
    return (Tensor._wrap(hist.astype(points.dtype)), *(Tensor._wrap(e) for e in edges))


def _check_histogram_weight(input: Tensor, weight: Tensor) -> None:
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and "
                           "weight tensor should have the same dtype, but got "
                           f"input({_c_name(input._data.dtype)}), and "
                           f"weight({_c_name(weight._data.dtype)})")
    if tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the "
                           "same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(input.shape)} and weight with shape "
                           f"{list(weight.shape)}")


# ---------------------------------------------------------------- isin
def _check_isin_operand(operand) -> None:
    """isin compares real numbers: bool and complex operands (tensor or Python) are refused."""
    dt = operand.dtype if isinstance(operand, Tensor) else _dtype.result_type(operand)
    if dt.is_complex or dt == _dtype.bool:
        raise RuntimeError(f"Unsupported input type encountered for isin(): "
                           f"{scalar_type_name(dt)}")


@recorded("isin")
def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False,
         out: Tensor | None = None) -> Tensor:
    """For each of `elements`, whether it equals any of `test_elements` (either may be a
    number). Values are compared in their promoted dtype; NaN matches nothing."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__}), but "
                        "expected at least one tensor")
    _check_isin_operand(elements)
    _check_isin_operand(test_elements)
    common = _dtype.result_type(elements, test_elements).numpy
    _dtype.check_limited(common, "isin", "isin_default_cpu")
    compare_as = _F32 if common.kind == "V" or common == np.float16 else common

    def values(x):
        return np.asarray(x._data if isinstance(x, Tensor) else x).astype(common)\
            .astype(compare_as)
    found = np.isin(values(elements), values(test_elements), invert=invert)
    return _with_out(Tensor._wrap(np.asarray(found)), out)


# ---------------------------------------------------------------- cov, corrcoef
def _check_observation_weights(w: Tensor, name: str, observations: int) -> None:
    """torch's checks on cov's fweights / aweights: 1-D, one per observation, right dtype,
    non-negative."""
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.ndim} dimensions")
    if name == "fweights" and w._data.dtype.kind not in "iu":
        raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights "
                           f"with {scalar_type_name(w.dtype)} dtype")
    if name == "aweights" and not w.is_floating_point():
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got "
                           f"aweights with {scalar_type_name(w.dtype)} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {observations}")
    if observations:
        check_values(_check_not_negative, w, f"cov(): {name} cannot be negative")


def _check_not_negative(w: np.ndarray, message: str) -> None:
    if w.min() < 0:
        raise RuntimeError(message)


def _check_fractions(q: np.ndarray) -> None:
    if not ((q >= 0) & (q <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")


def _check_at_most_2d(input: Tensor, name: str) -> None:
    if input.ndim > 2:
        raise RuntimeError(f"{name}(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.ndim} dimensions")
    if input.is_complex():
        raise NotImplementedError(f"{name}(): complex input is not supported in ember")


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """Covariance matrix of the variables in input's rows (observations in columns; a 1-D
    input is one variable), optionally weighted by observation counts (fweights) and
    importances (aweights). Divides by (weighted) N - correction, as numpy.cov does."""
    _check_at_most_2d(input, "cov")
    if input.dtype == _dtype.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if isinstance(correction, float):
        raise TypeError("cov(): argument 'correction' must be int, not float")
    observations = input.reshape(1, -1) if input.ndim < 2 else input
    count = observations.shape[1]
    weights = None
    for w, name in ((fweights, "fweights"), (aweights, "aweights")):
        if w is not None:
            _check_observation_weights(w, name, count)
            weights = w if weights is None else weights * w
    # Compute in a float dtype that also holds float weights (matmul needs one dtype).
    float_operands = [observations] if aweights is None else [observations, aweights]
    observations = observations.to(_float_result_type(*float_operands))
    if weights is None:
        mean = observations.mean(1)
        normalizer = count - correction
    else:
        total = weights.sum()
        if total.item() == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        mean = (observations * weights).sum(1) / total
        if correction == 0:
            normalizer = total
        elif aweights is None:
            normalizer = total - correction
        else:
            normalizer = total - correction * (weights * aweights).sum() / total
    if float(normalizer) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        normalizer = 0
    centered = observations - mean.unsqueeze(1)
    weighted = centered if weights is None else centered * weights
    return (centered @ weighted.t() / normalizer).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in input's rows: cov scaled by the
    standard deviations, clipped to [-1, 1] against rounding."""
    _check_at_most_2d(input, "corrcoef")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return c.clip(-1, 1)


# ---------------------------------------------------------------- quantile, nanquantile
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")
_MAX_QUANTILE_NUMEL = 2 ** 24


def _quantile_q(input: Tensor, q) -> Tensor:
    """q as a tensor of input's dtype (0-D or 1-D), checked to lie in [0, 1]."""
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        check_values(_check_fractions, q)
        return q
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    return Tensor._wrap(np.asarray(q, dtype=input._data.dtype))


def _check_quantile_input(input: Tensor, interpolation: str) -> None:
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if input._data.dtype not in (_F32, _F64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if input.numel() > _MAX_QUANTILE_NUMEL:
        raise RuntimeError("quantile() input tensor is too large")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")


@replayed_call
def _ranks(sorted_values: Tensor, q: Tensor, ignore_nan: bool) -> Tensor:
    """The (fractional) position of each quantile in each sorted row, shape (..., len(q)).

    A row with NaN gives its last position (NaN sorts last), unless ignore_nan, which counts
    only the non-NaN values (an all-NaN row gives position 0, its NaN). A replayed call:
    a compiled plan recomputes the ranks from each call's values."""
    data = sorted_values._data
    nan = _isnan(data)
    if ignore_nan:
        last = (~nan).sum(axis=-1, keepdims=True) - 1
        ranks = q.reshape(-1) * Tensor._wrap(last.astype(data.dtype))
        return where(ranks < 0, 0.0, ranks)
    ranks = q.reshape(-1) * (data.shape[-1] - 1)
    return where(Tensor._wrap(nan[..., -1:]), float(data.shape[-1] - 1), ranks)


def _select_quantiles(sorted_values: Tensor, ranks: Tensor, interpolation: str) -> Tensor:
    """Values at `ranks` of the sorted rows, interpolated between neighbours as asked."""
    if interpolation in ("lower", "higher", "nearest"):
        rounding = {"lower": np.floor, "higher": np.ceil, "nearest": np.round}[interpolation]
        return take_along(sorted_values, _positions(ranks, rounding), -1)
    values_below = take_along(sorted_values, _positions(ranks, np.floor), -1)
    values_above = take_along(sorted_values, _positions(ranks, np.ceil), -1)
    if interpolation == "midpoint":
        weight = Tensor._wrap(np.full(ranks.shape, 0.5, dtype=ranks._data.dtype))
    else:
        weight = ranks - ranks.floor()      # ranks are >= 0: floor is the position below
    return values_below.lerp(values_above, weight)


@replayed_call
def _positions(ranks: Tensor, rounding) -> np.ndarray:
    """The positions at `ranks` rounded by `rounding` (np.floor, np.ceil, np.round); a
    replayed call, so that a compiled plan recomputes them from each call's ranks."""
    return rounding(ranks._data).astype(np.int64)


def _quantile(input: Tensor, q, dim: int | None, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    _check_quantile_input(input, interpolation)
    q = _quantile_q(input, q)
    if dim is None:
        rows = input.reshape(-1)
    else:
        axis = input._wrap_dim(dim)
        rows = input.reshape(1) if input.ndim == 0 else input.movedim(axis, -1)
    sorted_values = rows.sort(-1).values
    ranks = _ranks(sorted_values, q, ignore_nan)
    out = _select_quantiles(sorted_values, ranks, interpolation).movedim(-1, 0)
    if q.ndim == 0:
        out = out.squeeze(0)
    if keepdim and input.ndim:
        lead = tuple(out.shape[:q.ndim])
        if dim is None:
            out = out.reshape(lead + (1,) * input.ndim)
        else:
            out = out.unsqueeze(q.ndim + axis)
    return out


def quantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
    """The q-th quantiles of input (flattened, or along `dim`); q is a number or a 1-D tensor
    in [0, 1], whose entries become the result's first dim. A slice holding NaN gives NaN.

    interpolation picks between the sorted neighbours around a fractional position:
    linear, lower, higher, midpoint or nearest (ties to even)."""
    return _with_out(_quantile(input, q, dim, keepdim, interpolation, ignore_nan=False), out)


def nanquantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
    """quantile ignoring NaN: each slice's quantiles of its non-NaN values (NaN if none)."""
    return _with_out(_quantile(input, q, dim, keepdim, interpolation, ignore_nan=True), out)
