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
from ember import Tensor
from ember.nn.functional import softplus

from . import constraints
from .utils import _sum_rightmost

__all__ = [
    "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "PowerTransform",
    "SigmoidTransform", "SoftmaxTransform", "TanhTransform", "Transform", "identity_transform",
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


class SigmoidTransform(_ParameterFreeTransform):
    """y = 1 / (1 + exp(-x)), kept strictly inside (0, 1)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        finfo = ember.finfo(x.dtype)
        return ember.clamp(ember.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)

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
