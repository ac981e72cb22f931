"""Transforms: invertible maps y = f(x) with log |det df/dx|, used to build new
distributions from old ones (LogNormal = Normal pushed through exp).

`domain` and `codomain` are constraints; their `event_dim` says how many rightmost
dimensions one application of the map acts on jointly (softmax acts on vectors).
"""
from __future__ import annotations

import functools
import math
import numbers
import operator

import ember
from ember import Size, Tensor
from ember.nn.functional import logsigmoid, pad, softplus

from . import constraints
from .utils import _sum_rightmost

__all__ = [
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
    "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
    "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
    "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
    "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
    "Transform", "identity_transform",
]


class Transform:
    """Base class of invertible (or at least computable) maps with a Jacobian.

    cache_size=1 remembers the last (x, y) pair, so inverting a sample just drawn
    returns the exact x instead of a recomputed approximation.
    """

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size: int = 0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = (None, None)
        self._inv = None

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> "Transform":
        """The inverse transform: inv(t)(t(x)) == x."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        """+1 or -1 for monotone increasing or decreasing maps."""
        raise NotImplementedError(f"{self.__class__} does not implement sign")

    def with_cache(self, cache_size: int = 1) -> "Transform":
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other) -> bool:
        return self is other

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement call")

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement inverse")

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """log |det dy/dx| for the pair y = self(x)."""
        raise NotImplementedError(f"{self.__class__} does not implement log_abs_det_jacobian")

    def forward_shape(self, shape):
        """The shape of y for an x of `shape`."""
        return shape

    def inverse_shape(self, shape):
        """The shape of x for a y of `shape`."""
        return shape

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"


class _ParameterFreeTransform(Transform):
    """Transforms without parameters: any two instances of one class are equal."""

    def __eq__(self, other) -> bool:
        return type(other) is type(self)

    __hash__ = Transform.__hash__


class _InverseTransform(Transform):
    """The inverse of a bijective transform, swapping domain and codomain."""

    def __init__(self, transform: Transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self) -> bool:
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = Transform.__hash__

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Apply `parts` one after another (parts[0] first)."""

    def __init__(self, parts: list, cache_size: int = 0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = Transform.__hash__

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # Walk backwards: how many dims must one input event have for the whole chain?
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:
        return all(part.bijective for part in self.parts)

    @property
    def sign(self):
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self) -> Transform:
        if self._inv is None:
            self._inv = ComposeTransform([part.inv for part in reversed(self.parts)])
            self._inv._inv = self
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return ember.zeros_like(x)
        # Intermediate values; reuse y for the last one (it may be cached).
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, part_x, part_y in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(part_x, part_y),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(part) for part in self.parts)
        return f"{self.__class__.__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class AbsTransform(_ParameterFreeTransform):
    """y = |x| (not bijective: the inverse returns the nonnegative preimage)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


class ExpTransform(_ParameterFreeTransform):
    """y = exp(x)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class PowerTransform(Transform):
    """y = x ** exponent on positive x."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size: int = 0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _as_tensors(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    def __eq__(self, other) -> bool:
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = Transform.__hash__

    @property
    def sign(self):
        return self.exponent.sign()

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return ember.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    inverse_shape = forward_shape


def _as_tensors(*values) -> tuple:
    """Numbers become default-dtype tensors; tensors pass through."""
    return tuple(v if isinstance(v, Tensor) else ember.tensor(float(v)) for v in values)


class AffineTransform(Transform):
    """y = loc + scale * x, acting on events of `event_dim` dimensions."""

    bijective = True

    def __init__(self, loc, scale, event_dim: int = 0, cache_size: int = 0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @property
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    codomain = domain

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        return _same_value(self.loc, other.loc) and _same_value(self.scale, other.scale)

    __hash__ = Transform.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = x.shape
        if isinstance(self.scale, numbers.Real):
            result = ember.full_like(x, math.log(abs(self.scale)))
        else:
            result = ember.abs(self.scale).log()
        if self.event_dim:
            result = _sum_rightmost(result, self.event_dim)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return ember.broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                      getattr(self.scale, "shape", ()))

    inverse_shape = forward_shape


def _same_value(a, b) -> bool:
    """Equality of two numbers or tensors as one bool."""
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    return bool((a == b).all())


def _clipped_sigmoid(x: Tensor) -> Tensor:
    """sigmoid(x) kept strictly inside (0, 1), so that its logs stay finite."""
    finfo = ember.finfo(x.dtype)
    return ember.clamp(ember.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(_ParameterFreeTransform):
    """y = 1 / (1 + exp(-x)), kept strictly inside (0, 1)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = ember.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x) - softplus(x)


class TanhTransform(_ParameterFreeTransform):
    """y = tanh(x)."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return ember.atanh(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # log(1 - tanh(x)^2) in a form that stays accurate for large |x|.
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class SoftmaxTransform(_ParameterFreeTransform):
    """Map unconstrained vectors to the simplex by softmax (not bijective: the inverse
    returns log-probabilities, one of many preimages)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x: Tensor) -> Tensor:
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    inverse_shape = forward_shape


def _too_few_dims(shape, needed: int) -> None:
    if len(shape) < needed:
        raise ValueError("Too few dimensions on input")


class SoftplusTransform(_ParameterFreeTransform):
    """y = log(1 + exp(x)), a smooth map onto the positive reals."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        # x = log(exp(y) - 1) = y + log(1 - exp(-y)), stable for large y.
        return y + (-ember.expm1(-y)).log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x)    # log sigmoid(x)


class StickBreakingTransform(_ParameterFreeTransform):
    """Map a vector of K reals onto the simplex of K + 1 probabilities by breaking a stick:
    piece i takes the fraction sigmoid(x_i - log(K - i)) of what is left (the offsets make
    x = 0 land on the uniform vector)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    @staticmethod
    def _log_offsets(x: Tensor) -> Tensor:
        """log(K - i) for i = 0 .. K-1, where K is the length of the last dim of x."""
        size = x.shape[-1]
        return ember.arange(size, 0, -1, dtype=x.dtype).log()

    def _call(self, x: Tensor) -> Tensor:
        fractions = _clipped_sigmoid(x - self._log_offsets(x))
        remaining = (1 - fractions).cumprod(-1)
        return pad(fractions, (0, 1), value=1) * pad(remaining, (1, 0), value=1)

    def _inverse(self, y: Tensor) -> Tensor:
        pieces = y[..., :-1]
        # What is left of the stick before each piece; clamped since rounding can make it <= 0.
        left = (1 - pieces.cumsum(-1)).clamp(min=ember.finfo(y.dtype).tiny)
        return pieces.log() - left.log() + self._log_offsets(pieces)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shifted = x - self._log_offsets(x)
        # d piece_i / d x_i = sigmoid'(shifted_i) * left_i = piece_i * (1 - sigmoid(shifted_i)).
        return (-shifted + logsigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _too_few_dims(shape, 1)
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _too_few_dims(shape, 1)
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(_ParameterFreeTransform):
    """Square matrix -> lower-triangular matrix with a positive diagonal: keep the strict
    lower triangle, exponentiate the diagonal (no Jacobian: torch defines none)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x: Tensor) -> Tensor:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_ParameterFreeTransform):
    """Square matrix -> positive definite matrix L @ L.T, L = LowerCholeskyTransform()(x)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x: Tensor) -> Tensor:
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y: Tensor) -> Tensor:
        return LowerCholeskyTransform().inv(ember.linalg.cholesky(y))


def _tril_positions(size: int, diag: int):
    """Flat (row-major) positions in a size x size matrix of the entries on or below
    diagonal `diag`, in row-major order."""
    rows, cols = ember.tril_indices(size, size, offset=diag)
    return rows * size + cols


def _matrix_size(length: int) -> int:
    """D such that a D x D matrix has `length` entries below its diagonal."""
    size = round((0.25 + 2 * length) ** 0.5 + 0.5)
    if size * (size - 1) // 2 != length:
        raise ValueError("Input is not a flattened lower-diagonal number")
    return size


def _vec_to_strict_tril(vec: Tensor) -> Tensor:
    """Fill the strict lower triangle of a square matrix from the last dim of `vec`
    (row by row); the other entries are zero."""
    length = vec.shape[-1]
    size = _matrix_size(length)
    # Gather from [0, vec...]: index 0 (the zero) everywhere outside the triangle.
    source = ember.zeros(size * size, dtype=ember.int64)
    source[_tril_positions(size, -1)] = ember.arange(1, length + 1)
    return pad(vec, (1, 0))[..., source].reshape(vec.shape[:-1] + (size, size))


def _tril_matrix_to_vec(matrix: Tensor, diag: int = 0) -> Tensor:
    """The entries of `matrix` below diagonal `diag`, row by row, as the last dim."""
    size = matrix.shape[-1]
    flat = matrix.reshape(matrix.shape[:-2] + (size * size,))
    return flat[..., _tril_positions(size, diag)]


class CorrCholeskyTransform(Transform):
    """A vector of D(D-1)/2 reals -> the Cholesky factor of a D x D correlation matrix
    (lower triangular, positive diagonal, every row of unit length).

    Row by row, tanh squashes the entries into (-1, 1) and a signed stick-breaking turns
    them into a unit vector: entry j takes the fraction r_j^2 of the squared length left.
    (Unlike the other parameter-free transforms, two instances are not equal, as in torch.)
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Tensor) -> Tensor:
        eps = ember.finfo(x.dtype).eps
        r = _vec_to_strict_tril(x.tanh().clamp(min=-1 + eps, max=1 - eps))
        # sqrt of the squared length left before each entry of a row.
        left = (1 - r.pow(2)).sqrt().cumprod(-1)
        r = r + ember.eye(r.shape[-1], dtype=r.dtype)
        return r * pad(left[..., :-1], (1, 0), value=1)

    def _inverse(self, y: Tensor) -> Tensor:
        left = 1 - (y * y).cumsum(-1)
        left_before = pad(left[..., :-1], (1, 0), value=1)
        r = _tril_matrix_to_vec(y, diag=-1) / _tril_matrix_to_vec(left_before, diag=-1).sqrt()
        return ember.atanh(r)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # The codomain has more dimensions than the domain: as torch, this is the Jacobian
        # from x to the flattened strict lower triangle of y.
        left = 1 - (y * y).cumsum(-1)
        stick_breaking = 0.5 * _tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = TanhTransform().log_abs_det_jacobian(x, None).sum(-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        _too_few_dims(shape, 1)
        size = _matrix_size(shape[-1])
        return shape[:-1] + (size, size)

    def inverse_shape(self, shape):
        _too_few_dims(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        size = shape[-1]
        return shape[:-2] + (size * (size - 1) // 2,)


class IndependentTransform(Transform):
    """`base_transform` with `reinterpreted_batch_ndims` more rightmost dims treated as one
    event: values are unchanged, log-det-Jacobians are summed over those dims."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int,
                 cache_size: int = 0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        _too_few_dims(x.shape, self.domain.event_dim)
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        _too_few_dims(y.shape, self.codomain.event_dim)
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}({self.base_transform!r}, "
                f"{self.reinterpreted_batch_ndims})")


class ReshapeTransform(Transform):
    """Reshape the rightmost `in_shape` dims to `out_shape` (same number of elements);
    the Jacobian is a permutation, so its log-determinant is zero."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size: int = 0):
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        return x.reshape(_batch_part(x.shape, self.in_shape) + self.out_shape)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.reshape(_batch_part(y.shape, self.out_shape) + self.in_shape)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x.new_zeros(_batch_part(x.shape, self.in_shape))

    def forward_shape(self, shape):
        return _replace_event(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _replace_event(shape, self.out_shape, self.in_shape)


def _batch_part(shape, event_shape) -> Size:
    return Size(shape[:len(shape) - len(event_shape)])


def _replace_event(shape, old_event, new_event) -> Size:
    """`shape` with its rightmost `old_event` dims replaced by `new_event`."""
    _too_few_dims(shape, len(old_event))
    cut = len(shape) - len(old_event)
    if tuple(shape[cut:]) != tuple(old_event):
        raise ValueError(f"Shape mismatch: expected {Size(shape[cut:])} but got {old_event}")
    return Size(shape[:cut]) + new_event


def _check_split(value: Tensor, name: str, dim: int, size: int, what: str,
                 owner: str = "tensor") -> None:
    """Cat/Stack transforms: `dim` exists in `value` (called `name`, and `owner` in the
    message about dims, as torch words it) and has the expected `size`."""
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {owner} with {value.dim()} dimensions")
    if value.size(dim) != size:
        raise AssertionError(f"{name}.size({dim}) = {value.size(dim)} must equal {what} {size}")


def _checked_transforms(tseq, cache_size: int) -> list:
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")
    return [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)


class CatTransform(Transform):
    """Apply transforms[i] to consecutive slices of lengths[i] along `dim` and concatenate
    the results, as torch.cat would."""

    def __init__(self, tseq, dim: int = 0, lengths=None, cache_size: int = 0):
        transforms = _checked_transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = transforms
        self.lengths = [1] * len(transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, value: Tensor) -> list:
        starts = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        return [value.narrow(self.dim, start, length)
                for start, length in zip(starts, self.lengths)]

    def _call(self, x: Tensor) -> Tensor:
        _check_split(x, "x", self.dim, self.length, "length")
        return ember.cat([t(part) for t, part in zip(self.transforms, self._slices(x))],
                         dim=self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        _check_split(y, "y", self.dim, self.length, "length")
        return ember.cat([t.inv(part) for t, part in zip(self.transforms, self._slices(y))],
                         dim=self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        _check_split(x, "x", self.dim, self.length, "length", owner="x")
        _check_split(y, "y", self.dim, self.length, "length", owner="y")
        terms = [_sum_rightmost(t.log_abs_det_jacobian(x_part, y_part),
                                self.event_dim - t.event_dim)
                 for t, x_part, y_part in zip(self.transforms, self._slices(x),
                                              self._slices(y))]
        # Concatenate when `dim` is a batch dim of the result, sum when it is inside an event.
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        if dim < 0:
            return ember.cat(terms, dim=dim)
        return functools.reduce(operator.add, terms)

    @property
    def bijective(self) -> bool:
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Apply transforms[i] to the i-th slice along `dim` and stack the results, as
    torch.stack would."""

    def __init__(self, tseq, dim: int = 0, cache_size: int = 0):
        transforms = _checked_transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = transforms
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, value: Tensor, name: str, owner: str = "tensor") -> list:
        _check_split(value, name, self.dim, len(self.transforms), "len(transforms)", owner)
        return [value.select(self.dim, i) for i in range(value.size(self.dim))]

    def _call(self, x: Tensor) -> Tensor:
        parts = self._slices(x, "x")
        return ember.stack([t(part) for t, part in zip(self.transforms, parts)], dim=self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        parts = self._slices(y, "y")
        return ember.stack([t.inv(part) for t, part in zip(self.transforms, parts)],
                           dim=self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        pairs = zip(self.transforms, self._slices(x, "x", "x"), self._slices(y, "y", "y"))
        return ember.stack([t.log_abs_det_jacobian(x_part, y_part) for t, x_part, y_part in pairs],
                           dim=self.dim)

    @property
    def bijective(self) -> bool:
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x): maps the distribution's support onto (0, 1); the Jacobian
    is the density."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size: int = 0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
