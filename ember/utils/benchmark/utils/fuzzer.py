"""Fuzzer: random benchmark inputs described by parameters and tensors.

A FuzzedParameter draws a value (log-uniform or uniform between bounds, or from a dict of
choices and probabilities; a ParameterAlias choice copies another parameter). A FuzzedTensor
names parameters for its sizes and steps and may come out non-contiguous. Fuzzer.take(n)
yields n (tensors, tensor properties, parameters) triples, redrawing parameters that break a
constraint. Draws use numpy.random.RandomState(seed) in torch's order and the tensors use the
seeded default generator, so a seed gives the same inputs as in torch.
"""
from __future__ import annotations

import functools
import itertools
from typing import Any, Callable

import numpy as np

from .... import _dtype
from ....ops.random import rand, randint
from ...._random import manual_seed

__all__ = ["Fuzzer", "FuzzedParameter", "ParameterAlias", "FuzzedTensor"]

_DISTRIBUTIONS = ("loguniform", "uniform")


class ParameterAlias:
    """A choice of a FuzzedParameter's distribution that takes another parameter's value."""

    def __init__(self, alias_to) -> None:
        self.alias_to = alias_to

    def __repr__(self) -> str:
        return f"ParameterAlias[alias_to: {self.alias_to}]"


class FuzzedParameter:
    """A named value drawn per sample: `distribution` is "loguniform" or "uniform" between
    minval and maxval (ints if both bounds are ints), or a dict {value: probability}.
    strict parameters keep their first draw while the Fuzzer redraws the others."""

    def __init__(self, name: str, minval: int | float | None = None,
                 maxval: int | float | None = None,
                 distribution: str | dict | None = None, strict: bool = False) -> None:
        self._name = name
        self._minval = minval
        self._maxval = maxval
        self._distribution = self._check_distribution(distribution)
        self.strict = strict

    @property
    def name(self) -> str:
        return self._name

    def _check_distribution(self, distribution):
        if not isinstance(distribution, dict):
            if distribution not in _DISTRIBUTIONS:
                raise AssertionError(f"Unknown distribution: {distribution}")
            return distribution
        if any(p < 0 for p in distribution.values()):
            raise AssertionError("Probabilities cannot be negative")
        if abs(sum(distribution.values()) - 1) > 1e-5:
            raise AssertionError("Distribution is not normalized")
        if self._minval is not None:
            raise AssertionError("When passing a custom distribution, 'minval' must be None")
        if self._maxval is not None:
            raise AssertionError("When passing a custom distribution, 'maxval' must be None")
        return distribution

    def sample(self, state: np.random.RandomState):
        if self._distribution == "loguniform":
            value = int(2 ** state.uniform(low=np.log2(self._minval),
                                           high=np.log2(self._maxval)))
            return min(max(value, self._minval), self._maxval)
        if self._distribution == "uniform":
            if isinstance(self._minval, int) and isinstance(self._maxval, int):
                return int(state.randint(low=self._minval, high=self._maxval + 1))
            return state.uniform(low=self._minval, high=self._maxval)
        choices = list(self._distribution)
        index = state.choice(np.arange(len(choices)), p=tuple(self._distribution.values()))
        return choices[index]


def dtype_size(dtype) -> int:
    """Bytes per element of `dtype`."""
    return dtype.itemsize


def prod(values, base: int = 1) -> int:
    """The product in Python ints (NumPy's int64 product could overflow)."""
    return functools.reduce(lambda x, y: int(x) * int(y), values, base)


class FuzzedTensor:
    """A tensor named `name` whose size (and `steps`, for a strided view of a larger tensor)
    are ints or parameter names. probability_contiguous is the chance of a contiguous layout;
    min_elements / max_elements / max_allocation_bytes reject parameter draws;
    dim_parameter names a parameter giving the number of dimensions (sizes truncated or
    padded with 1s)."""

    def __init__(self, name: str, size: tuple, steps: tuple | None = None,
                 probability_contiguous: float = 0.5, min_elements: int | None = None,
                 max_elements: int | None = None, max_allocation_bytes: int | None = None,
                 dim_parameter: str | None = None, roll_parameter: str | None = None,
                 dtype=_dtype.float32, cuda: bool = False,
                 tensor_constructor: Callable | None = None) -> None:
        if cuda:
            raise NotImplementedError("FuzzedTensor(cuda=True): ember has no CUDA device")
        self._name = name
        self._size = size
        self._steps = steps
        self._probability_contiguous = probability_contiguous
        self._min_elements = min_elements
        self._max_elements = max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter = dim_parameter
        self._dtype = dtype
        self._tensor_constructor = tensor_constructor

    @property
    def name(self) -> str:
        return self._name

    @staticmethod
    def default_tensor_constructor(size, dtype, **kwargs):
        if dtype.is_floating_point or dtype.is_complex:
            return rand(size=size, dtype=dtype, device="cpu")
        return randint(1, 127, size=size, dtype=dtype, device="cpu")

    def _get_size_and_steps(self, params: dict) -> tuple[tuple, tuple, tuple]:
        dim = len(self._size) if self._dim_parameter is None else params[self._dim_parameter]

        def resolve(values):   # parameter names -> ints, cut or padded with 1s to `dim`
            values = tuple(params.get(v, v) for v in values)[:dim]
            return values + (1,) * (dim - len(values))

        size, steps = resolve(self._size), resolve(self._steps or ())
        return size, steps, tuple(n * step for n, step in zip(size, steps))

    def satisfies_constraints(self, params: dict) -> bool:
        size, _, allocation = self._get_size_and_steps(params)
        numel = prod(size)
        allocation_bytes = prod(allocation, base=dtype_size(self._dtype))
        too_many = self._max_elements is not None and numel > self._max_elements
        too_few = self._min_elements is not None and self._min_elements > numel
        too_big = (self._max_allocation_bytes is not None
                   and allocation_bytes > self._max_allocation_bytes)
        return not (too_many or too_few or too_big)

    def _make_tensor(self, params: dict, state: np.random.RandomState) -> tuple[Any, dict]:
        size, steps, allocation = self._get_size_and_steps(params)
        constructor = self._tensor_constructor or self.default_tensor_constructor
        raw = constructor(size=allocation, dtype=self._dtype, **params)
        # a non-contiguous layout: lay the memory out in a random dimension order
        order = np.arange(len(size))
        if state.rand() > self._probability_contiguous:
            while len(size) > 1 and np.all(order == np.arange(len(size))):
                order = state.permutation(raw.dim())
            raw = raw.permute(tuple(order)).contiguous().permute(tuple(np.argsort(order)))
        tensor = raw[tuple(slice(0, n * step, step) for n, step in zip(size, steps))]
        properties = {"numel": int(tensor.numel()), "order": order, "steps": steps,
                      "is_contiguous": tensor.is_contiguous(), "dtype": str(self._dtype)}
        return tensor, properties


class Fuzzer:
    """Draws parameter sets satisfying `constraints` (callables given the parameters) and
    every tensor's limits, and builds the tensors for each; `seed` fixes all of it."""

    def __init__(self, parameters: list, tensors: list, constraints: list | None = None,
                 seed: int | None = None) -> None:
        if seed is None:
            seed = int(np.random.RandomState().randint(0, 2 ** 32 - 1, dtype=np.int64))
        self._seed = seed
        self._parameters = self._unpack(parameters, FuzzedParameter)
        self._tensors = self._unpack(tensors, FuzzedTensor)
        self._constraints = constraints or ()
        overlap = {p.name for p in self._parameters} & {t.name for t in self._tensors}
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {overlap}")
        self._rejections = 0
        self._total_generated = 0

    @staticmethod
    def _unpack(values, cls) -> tuple:
        """Items of `cls` kept, lists of them spliced in (one level)."""
        return tuple(itertools.chain.from_iterable(
            [value] if isinstance(value, cls) else value for value in values))

    def take(self, n: int):
        """Yield n (tensors, tensor_properties, params) samples."""
        state = np.random.RandomState(self._seed)
        manual_seed(int(state.randint(low=0, high=2 ** 63, dtype=np.int64)))
        for _ in range(n):
            params = self._generate(state)
            made = {t.name: t._make_tensor(params, state) for t in self._tensors}
            yield ({name: tensor for name, (tensor, _) in made.items()},
                   {name: props for name, (_, props) in made.items()}, params)

    @property
    def rejection_rate(self) -> float:
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _generate(self, state: np.random.RandomState) -> dict:
        strict: dict = {}
        for _ in range(1000):
            candidate = {}
            for p in self._parameters:
                if p.strict and p.name in strict:
                    candidate[p.name] = strict[p.name]
                else:
                    candidate[p.name] = p.sample(state)
                    if p.strict:
                        strict[p.name] = candidate[p.name]
            candidate = self._resolve_aliases(candidate)
            self._total_generated += 1
            if all(f(candidate) for f in self._constraints) and all(
                    t.satisfies_constraints(candidate) for t in self._tensors):
                return candidate
            self._rejections += 1
        raise ValueError("Failed to generate a set of valid parameters.")

    @staticmethod
    def _resolve_aliases(params: dict) -> dict:
        params = dict(params)
        pending = sum(isinstance(v, ParameterAlias) for v in params.values())
        while pending:
            for key, value in params.items():
                if isinstance(value, ParameterAlias):
                    params[key] = params[value.alias_to]
            still = sum(isinstance(v, ParameterAlias) for v in params.values())
            if still == pending:
                raise ValueError(f"ParameterAlias cycle detected\n{params}")
            pending = still
        return params
