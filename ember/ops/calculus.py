"""Finite differences and numerical integration: diff, gradient, trapezoid (trapz) and
cumulative_trapezoid.

Every op here is a short composition of slices, arithmetic, sums and cat, so gradients (and
double backward) come from those ops; dtypes follow from their promotion rules, as in torch
(integer samples integrate to the default float dtype).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from .shape import cat  # shape re-exports joining (imported in the order it needs)
from .pointwise import _with_out, logical_xor

METHODS = ["diff"]
INPLACE: list = []

__all__ = ["diff", "gradient", "trapezoid", "trapz", "cumulative_trapezoid"]


def _along(t: Tensor, axis: int, start: int | None, stop: int | None = None) -> Tensor:
    """t[start:stop] along `axis` (a view)."""
    return t[(slice(None),) * axis + (slice(start, stop),)]


# ---------------------------------------------------------------- diff
def _check_diff_extension(input: Tensor, other, name: str, axis: int) -> None:
    """prepend / append must be tensors shaped like input except along the differencing dim."""
    if other is None:
        return
    if not isinstance(other, Tensor):
        raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(other).__name__}")
    if other.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i, (size, other_size) in enumerate(zip(input.shape, other.shape)):
        if i != axis and size != other_size:
            raise RuntimeError("diff expects the shape of tensor to prepend or append to match "
                               "that of input except along the differencing dimension; "
                               f"input.size({i}) = {size}, but got tensor.size({i}) = "
                               f"{other_size}")


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None, *, out: Tensor | None = None) -> Tensor:
    """The n-th forward difference along `dim` (out[i] = x[i + 1] - x[i], applied n times),
    after attaching `prepend` and `append`. Bool tensors differ by xor."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if not isinstance(n, int):
        raise TypeError(f"diff(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    axis = input._wrap_dim(dim)
    _check_diff_extension(input, prepend, "prepend", axis)
    _check_diff_extension(input, append, "append", axis)
    if n == 0:                       # torch's zeroth difference ignores prepend and append
        return _with_out(input.clone(), out)
    parts = [t for t in (prepend, input, append) if t is not None]
    values = cat(parts, axis) if len(parts) > 1 else input
    for _ in range(min(n, values.shape[axis])):
        later, earlier = _along(values, axis, 1), _along(values, axis, None, -1)
        values = logical_xor(later, earlier) if values.dtype == _dtype.bool else later - earlier
    return _with_out(values, out)


# ---------------------------------------------------------------- gradient
def _gradient_dims(input: Tensor, dim) -> list:
    """The dims to differentiate, in the order given (default: all)."""
    if dim is None:
        return list(range(input.ndim))
    dims = [input._wrap_dim(d) for d in (dim if isinstance(dim, (list, tuple)) else [dim])]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return dims


def _gradient_spacings(input: Tensor, spacing, dims: list, dim_given: bool) -> list:
    """One spacing per differentiated dim: a number (uniform step) or a 1-D coordinate tensor."""
    if not isinstance(spacing, (list, tuple)):
        if isinstance(spacing, Tensor):
            raise TypeError("gradient() received an invalid combination of arguments - got "
                            "(Tensor, spacing=Tensor): pass coordinates as a list of tensors")
        return [spacing] * len(dims)
    if len(spacing) != len(dims):
        if dim_given:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or "
                               "it's spacing and dim arguments to have the same length, but "
                               f"got a spacing argument of length {len(spacing)} and a dim "
                               f"argument of length {len(dims)}.")
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a "
                           "list of length equal to 'self.dim() = "
                           f"{input.ndim}', since dim argument was not given, but got a list "
                           f"of length {len(spacing)}")
    tensors = [isinstance(s, Tensor) for s in spacing]
    if any(tensors) and not all(tensors):
        i = tensors.index(False)
        raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                        f"{type(spacing[i]).__name__}")
    for s, d in zip(spacing, dims):
        if isinstance(s, Tensor):
            if s.ndim != 1:
                raise RuntimeError("torch.gradient expected each element of spacing to have one "
                                   f"dimension, but got an element with {s.ndim} dimensions!")
            if s.shape[0] != input.shape[d]:
                raise RuntimeError("torch.gradient expected each coordinate tensor in spacing to "
                                   f"have input.size({d}) = {input.shape[d]} entries, but got "
                                   f"{s.shape[0]}")
    return list(spacing)


def _uniform_gradient(f: Tensor, axis: int, step, edge_order: int) -> Tensor:
    """Central differences inside, one-sided at both ends, for samples `step` apart."""
    def part(start, stop=None):
        return _along(f, axis, start, stop)
    inner = (part(2) - part(None, -2)) / step / 2
    if edge_order == 1:
        first = (part(1, 2) - part(0, 1)) / step
        last = (part(-1) - part(-2, -1)) / step
    else:
        first = (-1.5 * part(0, 1) + 2 * part(1, 2) - 0.5 * part(2, 3)) / step
        last = (0.5 * part(-3, -2) - 2 * part(-2, -1) + 1.5 * part(-1)) / step
    return cat([first, inner, last], axis)


def _coordinate_gradient(f: Tensor, axis: int, coordinates: Tensor, edge_order: int) -> Tensor:
    """Second-order accurate differences for samples at the given (unevenly spaced)
    coordinates: each point weighs its neighbours by the spacings on either side."""
    def part(start, stop=None):
        return _along(f, axis, start, stop)
    h = diff(coordinates)
    shape = [1] * f.ndim
    shape[axis] = -1
    left, right = h[:-1].reshape(shape), h[1:].reshape(shape)
    inner = (-right / (left * (left + right)) * part(None, -2)
             + (right - left) / (left * right) * part(1, -1)
             + left / (right * (left + right)) * part(2))
    if edge_order == 1:
        first = (part(1, 2) - part(0, 1)) / h[0]
        last = (part(-1) - part(-2, -1)) / h[-1]
    else:
        h0, h1, h_2, h_1 = h[0], h[1], h[-2], h[-1]
        first = (-(2 * h0 + h1) / (h0 * (h0 + h1)) * part(0, 1)
                 + (h0 + h1) / (h0 * h1) * part(1, 2)
                 - h0 / (h1 * (h0 + h1)) * part(2, 3))
        last = (h_1 / (h_2 * (h_1 + h_2)) * part(-3, -2)
                - (h_1 + h_2) / (h_1 * h_2) * part(-2, -1)
                + (2 * h_1 + h_2) / (h_1 * (h_1 + h_2)) * part(-1))
    return cat([first, inner, last], axis)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """Estimated partial derivatives of the sampled function `input`, one tensor per dim:
    central differences inside, one-sided differences of order edge_order (1 or 2) at the
    ends. spacing is a step for every dim, a list of steps, or a list of 1-D coordinates."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _gradient_dims(input, dim)
    spacing = 1 if spacing is None else spacing  # None: unit steps, as in torch
    spacings = _gradient_spacings(input, spacing, dims, dim is not None)
    if input._data.dtype.name == "uint8":
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if any(input.shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")
    return tuple(_coordinate_gradient(input, d, s, edge_order) if isinstance(s, Tensor)
                 else _uniform_gradient(input, d, s, edge_order)
                 for s, d in zip(spacings, dims))


# ---------------------------------------------------------------- trapezoid
def _sample_axis(y: Tensor, dim: int) -> int:
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return y._wrap_dim(dim)


def _check_not_bool(name: str, *tensors) -> None:
    if any(t.dtype == _dtype.bool for t in tensors):
        which = "`y`" if len(tensors) == 1 else "`x` or `y`"
        raise RuntimeError(f"{name}: received a bool input for {which}, but bool is not supported")


def _check_dx(name: str, dx) -> float:
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    return float(dx)


def _spacing_from_x(y: Tensor, x: Tensor, axis: int, name: str) -> Tensor:
    """The widths between consecutive sample points x along `axis`, broadcastable to y. A 1-D
    x holds one point per sample; a lower-dim x is padded with leading dims."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[axis]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[axis] = -1
        x = x.reshape(shape)
    elif x.ndim < y.ndim:
        x = x.reshape((1,) * (y.ndim - x.ndim) + tuple(x.shape))
    return _along(x, axis, 1) - _along(x, axis, None, -1)


def _x_or_dx(name: str, x, dx) -> None:
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(Tensor, Tensor, dx=...): pass either x or dx, not both")


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """Integral of the samples y along `dim` by the trapezoidal rule, with sample points x
    (a tensor) or a constant spacing dx (default 1)."""
    _x_or_dx("trapezoid", x, dx)
    axis = _sample_axis(y, dim)
    if y.shape[axis] == 0:    # no samples: integral 0 (in y's dtype), as numpy gives
        shape = y.shape[:axis] + y.shape[axis + 1:]
        return Tensor._wrap(np.zeros(shape, dtype=y._data.dtype))
    if x is None:
        _check_not_bool("trapezoid", y)
        step = _check_dx("trapezoid", 1 if dx is None else dx)
        # Every sample counts fully except the two ends, which count half.
        return (y.sum(axis) - (y.select(axis, 0) + y.select(axis, -1)) * 0.5) * step
    _check_not_bool("trapezoid", y, x)
    widths = _spacing_from_x(y, x, axis, "trapezoid")
    return ((_along(y, axis, None, -1) + _along(y, axis, 1)) * widths).sum(axis) / 2.0


def trapz(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The older name of trapezoid."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None,
                         dim: int = -1) -> Tensor:
    """Running trapezoidal integral of y along `dim`: one entry fewer than the samples."""
    _x_or_dx("cumulative_trapezoid", x, dx)
    if y.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    axis = y._wrap_dim(dim)
    pair_sums = _along(y, axis, None, -1) + _along(y, axis, 1)
    if x is None:
        _check_not_bool("cumulative_trapezoid", y)
        step = _check_dx("cumulative_trapezoid", 1 if dx is None else dx)
        return (step / 2.0 * pair_sums).cumsum(axis)
    _check_not_bool("cumulative_trapezoid", y, x)
    widths = _spacing_from_x(y, x, axis, "cumulative_trapezoid")
    return (pair_sums * widths).cumsum(axis) / 2.0
