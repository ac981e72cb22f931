"""`Distribution`: the interface every probability distribution implements.

A distribution has a `batch_shape` (independent, differently parametrised copies)
and an `event_shape` (the shape of one draw: () for a scalar, (k,) for a vector).
`sample(sample_shape)` returns sample_shape + batch_shape + event_shape values.
"""
from __future__ import annotations

import warnings

import ember
from ember import Size, Tensor

from . import constraints
from .utils import _as_text, broadcast_all, lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Base class for probability distributions."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument and sample validation on or off for every distribution."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        """Raise ValueError when a parameter lies outside its constraint."""
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with "
                          "`validate_args=False` to turn off validation.")
            arg_constraints = {}
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            # A lazily derived parameter (logits of Bernoulli(probs=...)) is not checked.
            is_lazy = isinstance(getattr(type(self), param, None), lazy_property)
            if is_lazy and param not in self.__dict__:
                continue
            value = getattr(self, param)
            if not constraint.check(value).all():
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{_as_text(value)}")

    def expand(self, batch_shape, _instance=None) -> "Distribution":
        """A new distribution whose parameters are expanded to `batch_shape`."""
        raise NotImplementedError(f"{self.__class__} does not implement expand")

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """Maps each parameter name to the constraint it must satisfy."""
        raise NotImplementedError(f"{self.__class__} does not implement arg_constraints")

    @property
    def support(self):
        """The constraint that every sample satisfies."""
        raise NotImplementedError(f"{self.__class__} does not implement support")

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()) -> Tensor:
        """Draw samples without tracking gradients."""
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()) -> Tensor:
        """Draw reparameterized samples: gradients flow back to the parameters."""
        raise NotImplementedError(f"{self.__class__} does not implement rsample")

    def sample_n(self, n: int) -> Tensor:
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement log_prob")

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement cdf")

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement icdf")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement enumerate_support")

    def entropy(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement entropy")

    def perplexity(self) -> Tensor:
        """exp(entropy): the effective number of equally likely outcomes."""
        return ember.exp(self.entropy())

    def _extended_shape(self, sample_shape=Size()) -> Size:
        """sample_shape + batch_shape + event_shape."""
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value: Tensor) -> None:
        """Raise ValueError when `value` cannot be scored by log_prob/cdf."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = value.dim() - len(self._event_shape)
        if value.shape[event_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.shape} vs {self._event_shape}.")
        expected = self._batch_shape + self._event_shape
        for actual_size, expected_size in zip(reversed(value.shape), reversed(expected)):
            if actual_size != 1 and expected_size != 1 and actual_size != expected_size:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{value.shape} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.")
            return
        if not support.check(value).all():
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{_as_text(value)}")

    def _expand_parameters(self, cls, batch_shape, _instance, names,
                           event_dims=Size()) -> "Distribution":
        """The common body of expand(): a `cls` instance with batch_shape whose tensor
        parameters `names` (those this instance holds) are expanded to
        batch_shape + event_dims."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape + event_dims))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        """The object `expand` fills in: `_instance`, or a fresh uninitialised `cls`."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a "
                "custom __init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        parts = [f"{name}: {_describe(self.__dict__[name])}"
                 for name in self.arg_constraints if name in self.__dict__]
        return f"{self.__class__.__name__}({', '.join(parts)})"


def _describe(value: Tensor):
    """A parameter as the repr shows it: a one-element tensor by value, others by size."""
    return _as_text(value) if value.numel() == 1 else value.size()


class _CenteredAtLoc:
    """For symmetric unimodal families (Normal, Laplace, MultivariateNormal): the mean and
    the mode are the location parameter `loc`."""

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc


class _LocationScale(_CenteredAtLoc, Distribution):
    """Shared base of the real-valued location-scale families (Normal, Laplace): a sample
    is loc + scale * noise."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)
