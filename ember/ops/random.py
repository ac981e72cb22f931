"""Random sampling: rand/randn/randint/randperm/normal/bernoulli/multinomial and the
in-place fillers (uniform_, normal_, ...), all drawing from an ember Generator."""
from __future__ import annotations

import numpy as np

from .. import _dtype, _sampling
from .._layout import check_layout
from .._memory_format import fill_order, preserve_format
from .._random import default_generator
from .._recorded_call import replayed_call
from .._tensor import Tensor
from ._nondifferentiable import recorded
from .creation import (_finish, empty_like, meta_result, on_meta, size_argument,
                       size_from_args)

__all__ = ["rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial",
           "rand_like", "randn_like", "randint_like", "poisson"]
METHODS = ["bernoulli", "multinomial", "uniform_", "normal_", "bernoulli_", "random_",
           "exponential_", "geometric_", "log_normal_", "cauchy_"]


def _float_dtype(dtype, kernel: str = "check_uniform_bounds") -> _dtype.dtype:
    dt = dtype or _dtype.get_default_dtype()
    _require_float(dt, kernel)
    return dt


def _require_float(dt: _dtype.dtype, kernel: str) -> None:
    """torch's refusal to sample floating-point distributions into other dtypes (complex
    ones draw their real and imaginary parts, see _sampling.real_parts)."""
    if not (dt.is_floating_point or dt.is_complex) or dt.is_limited:     # float8 too
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{dt.scalar_name}'")


def _complex_scale(dt: _dtype.dtype) -> float:
    """A complex normal's std is split between its parts: each has std / sqrt(2)."""
    return 2 ** -0.5 if dt.is_complex else 1.0


def _make(data: np.ndarray, dtype: _dtype.dtype, requires_grad: bool) -> Tensor:
    return _finish(data.astype(dtype.numpy, copy=False), requires_grad)


@recorded("rand", factory=True)
def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:
    """Tensor of the given size with values drawn uniformly from [0, 1)."""
    meta = on_meta(device)
    dt = _float_dtype(dtype)
    check_layout(layout, "rand")
    shape = size_argument(sizes, size, "rand")
    if meta:
        return meta_result(shape, dt, requires_grad)
    data = _sampling.real_parts(_sampling.uniform, generator or default_generator, shape,
                                dt.numpy, 0, 1)
    return _make(data, dt, requires_grad)


@recorded("randn", factory=True)
def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False) -> Tensor:
    """Tensor of the given size with values drawn from the standard normal distribution."""
    meta = on_meta(device)
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    check_layout(layout, "randn")
    shape = size_argument(sizes, size, "randn")
    if meta:
        return meta_result(shape, dt, requires_grad)
    data = _sampling.real_parts(_sampling.normal, generator or default_generator, shape,
                                dt.numpy, 0, _complex_scale(dt))
    return _make(data, dt, requires_grad)


@recorded("randint", factory=True)
def randint(low, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False) -> Tensor:
    """randint(high, size) or randint(low, high, size): integers in [low, high)."""
    meta = on_meta(device)
    if size is None:
        if isinstance(high, (tuple, list)):
            low, high, size = 0, low, high
        else:
            raise TypeError("randint() missing 1 required positional arguments: \"size\"")
    elif high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    shape = size_from_args((size,))
    if meta:
        return meta_result(shape, dtype or _dtype.int64, requires_grad)
    data = _sampling.integers(generator or default_generator, shape, low, high)
    return _make(data, dtype or _dtype.int64, requires_grad)


@recorded("randperm")
def randperm(n: int, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False) -> Tensor:
    """A random permutation of the integers 0 .. n-1 (int64 by default)."""
    if on_meta(device):
        return meta_result((n,), dtype or _dtype.int64, requires_grad)
    _dtype.check_limited(dtype or _dtype.int64, "randperm", "randperm")
    return _make(_sampling.permutation(generator or default_generator, n),
                 dtype or _dtype.int64, requires_grad)


@recorded("normal")
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False) -> Tensor:
    """Samples from N(mean, std); mean and/or std may be tensors (broadcast together)."""
    gen = generator or default_generator
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        if np.any(np.asarray(s) < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        like = mean if isinstance(mean, Tensor) else std
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        # torch draws standard normals of the result's dtype, then scales and shifts them
        data = _sampling.normal(gen, shape, 0, 1, like.dtype.numpy)
        data *= s
        data += m
        return _make(data, like.dtype, False)
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments - got "
                        "(float, float), but expected a size")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    shape = size_from_args((size,))
    dt = _float_dtype(dtype)
    if on_meta(device):
        return meta_result(shape, dt, requires_grad)
    return _make(_sampling.normal(gen, shape, mean, std, dt.numpy), dt, requires_grad)


@recorded("bernoulli")
def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """1 with probability input (or p), else 0; same shape and dtype as input."""
    gen = generator or default_generator
    if p is not None:
        _check_probability(p)
        draws = _sampling.bernoulli(gen, input._data.shape, p)
        return Tensor._wrap(draws.astype(input._data.dtype))
    return Tensor._wrap(_bernoulli_of(gen, input._data).astype(input._data.dtype))


def _check_probability(p: float) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")


def _bernoulli_of(gen, probs: np.ndarray) -> np.ndarray:
    """One draw per element of `probs`, True with that probability (torch's kernel for a
    tensor of probabilities draws in float64 for float64 ones, else in float32)."""
    if np.any((probs < 0) | (probs > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    dtype = np.float64 if probs.dtype == np.float64 else np.float32
    return _sampling.uniform(gen, probs.shape, 0, 1, dtype) < probs


@recorded("multinomial")
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator=None, out=None) -> Tensor:
    """Draw category indices from the rows of non-negative weights `input` (1-D or 2-D)."""
    probs = np.asarray(input._data, dtype=np.float64)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    rows = probs.reshape(-1, probs.shape[-1])
    if np.any(rows < 0) or not np.all(np.isfinite(rows)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    n_categories = rows.shape[1]
    if not replacement and num_samples > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    gen = generator or default_generator
    if np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    weights = rows.astype(input._data.dtype) if input._data.dtype in (np.float32, np.float64) \
        else rows.astype(np.float32)
    if not replacement or num_samples == 1:
        # torch's way: the largest weight / Exp(1) draws (the Gumbel-max trick, exponentiated),
        # drawn into empty_like(input): along a transposed input's memory
        order = fill_order(tuple(input.shape), input.stride()) or tuple(range(probs.ndim))
        noise = _sampling.exponential(gen, tuple(probs.shape[d] for d in order), 1.0,
                                      weights.dtype).transpose(np.argsort(order))
        keys = weights / noise.reshape(weights.shape)
        out = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    else:
        out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
        for r, w in enumerate(weights):
            cumulative = np.cumsum(w, dtype=w.dtype)
            cumulative /= cumulative[-1]
            cumulative[-1] = 1
            draws = _sampling.uniform(gen, (num_samples,), 0, 1, np.float64)
            out[r] = np.searchsorted(cumulative, draws, side="left")
    return Tensor._wrap(out.reshape(probs.shape[:-1] + (num_samples,)))


@recorded("poisson")
def poisson(input: Tensor, generator=None) -> Tensor:
    """Samples from Poisson distributions whose rates are the elements of input."""
    if np.any(input._data < 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return Tensor._wrap(_sampling.poisson(generator or default_generator, input._data))


def _drawn_like(input: Tensor, dtype, device, requires_grad: bool, memory_format, layout,
                fill) -> Tensor:
    """A random *_like factory's result: laid out as empty_like lays it out (a dense input's
    own strides under preserve_format), then filled in place in memory order, as torch's
    factories fill it (so rand_like(x.t()) draws along x's memory, not along its rows)."""
    t = empty_like(input, dtype=dtype or input.dtype, layout=layout, memory_format=memory_format,
                   device=input.device if device is None else device)
    fill(t)
    return t.requires_grad_() if requires_grad else t


@recorded("rand_like")
def rand_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=preserve_format) -> Tensor:
    """rand with input's shape (and dtype, unless given)."""
    return _drawn_like(input, dtype, device, requires_grad, memory_format, layout, uniform_)


@recorded("randn_like")
def randn_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=preserve_format) -> Tensor:
    """randn with input's shape (and dtype, unless given)."""
    return _drawn_like(input, dtype, device, requires_grad, memory_format, layout, normal_)


@recorded("randint_like")
def randint_like(input: Tensor, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=preserve_format) -> Tensor:
    """Random integers in [low, high) with input's shape (and dtype, unless given); a single bound
    is high."""
    if high is None:
        low, high = 0, low
    return _drawn_like(input, dtype, device, requires_grad, memory_format, layout,
                       lambda t: random_(t, low, high))


# ---------------------------------------------------------------- in-place fillers
@replayed_call
def _fill(self: Tensor, generator, draw, *params) -> Tensor:
    """Write draw(generator, shape, *params)'s samples into self without recording autograd
    history (a tensor in `params` is given as its array). A meta tensor has nothing to
    write: nothing is drawn, and the generator's state stays. A replayed call: a compiled
    plan draws fresh samples into each call's tensor."""
    self._check_inplace()
    if not self.is_meta:
        # Draws fill the tensor in memory order, as torch's kernels do: a transposed
        # tensor is filled along its memory, not along its last dim.
        order = sorted(range(self.ndim), key=lambda d: -abs(self._data.strides[d]))
        target = self._data.transpose(order)
        values = [np.broadcast_to(p._data, self._data.shape).transpose(order)
                  if isinstance(p, Tensor) else p for p in params]
        np.copyto(target, draw(generator or default_generator, target.shape, *values),
                  casting="unsafe")
    self._bump_version()
    return self


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    """Fill self in place with draws from U(a, b); returns self."""
    _require_float(self.dtype, "check_uniform_bounds")
    dt = self.dtype.numpy
    return _fill(self, generator, lambda gen, shape: _sampling.real_parts(
        _sampling.uniform, gen, shape, dt, a, b))


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fill self in place with draws from N(mean, std**2); returns self."""
    _require_float(self.dtype, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    dt, contiguous, std = self.dtype.numpy, self.is_contiguous(), std * _complex_scale(self.dtype)
    return _fill(self, generator, lambda gen, shape: _sampling.real_parts(
        lambda *args: _sampling.normal(*args, contiguous), gen, shape, dt, mean, std))


def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill self in place with 0/1 draws that are 1 with probability p (a number or a tensor);
    returns self."""
    if isinstance(p, Tensor):
        return _fill(self, generator, lambda gen, shape, probs: _bernoulli_of(gen, probs), p)
    _check_probability(p)
    return _fill(self, generator, lambda gen, shape: _sampling.bernoulli(gen, shape, p))


_UNSET = object()


def random_(self: Tensor, from_=_UNSET, to=_UNSET, *, generator=None) -> Tensor:
    """Fill self in place with integers drawn uniformly: random_() from the dtype's range
    (see _sampling.full_range), random_(to) from [0, to), random_(from, to) from
    [from, to), random_(from, None) from [from, the dtype's largest]; returns self."""
    _dtype.refuse_limited(self._data, "random_kernel_cpu")
    dt = self._data.dtype
    if from_ is _UNSET and to is _UNSET:
        return _fill(self, generator, lambda gen, shape: _sampling.full_range(gen, shape, dt))
    if to is _UNSET:
        from_, to = 0, from_
    elif from_ is _UNSET:
        from_ = 0
    if to is None:
        return _fill(self, generator, lambda gen, shape: _sampling.integers_from(gen, shape,
                                                                                from_, dt))
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} "
                           f">= to={to}")
    return _fill(self, generator,
                 lambda gen, shape: _sampling.integers(gen, shape, from_, to))


def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill self in place with draws from the exponential distribution of rate lambd."""
    dt = self.dtype.numpy
    return _fill(self, generator,
                 lambda gen, shape: _sampling.exponential(gen, shape, lambd, dt))


def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill self in place with draws from the geometric distribution of success probability p (the
    number of trials up to the first success)."""
    dt = self.dtype.numpy
    return _fill(self, generator, lambda gen, shape: _sampling.geometric(gen, shape, p, dt))


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    """Fill self in place with exp(N(mean, std**2)) draws."""
    dt = self.dtype.numpy
    return _fill(self, generator,
                 lambda gen, shape: _sampling.log_normal(gen, shape, mean, std, dt))


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    """Fill self in place with draws from the Cauchy distribution (median, sigma)."""
    dt = self.dtype.numpy
    return _fill(self, generator,
                 lambda gen, shape: _sampling.cauchy(gen, shape, median, sigma, dt))

