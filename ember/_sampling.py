"""torch's CPU sampling algorithms: how a Generator's 32-bit words become values.

Each function reads the generator's stream (`_random.py`) in the order and amount torch's
CPU kernels read it, elements in memory order, so that after the same seed ember and torch draw
the same numbers and leave their generators in the same state:

    uniform      float64: 53 bits of a 64-bit draw; other floats: 24 bits of a 32-bit
                 word (a float32 draw, rounded to the dtype); scaled to [low, high)
    normal       16 or more elements: uniform draws paired by Box-Muller in blocks of 16
                 (the last block, when short, recomputed from 16 new draws); fewer, or a
                 tensor that is not contiguous: one double Box-Muller pair per two values,
                 the second kept by the generator
    integers     [low, high): a word (a 64-bit draw from a range of 2**32) modulo the range
    full_range   random_() without bounds: [0, 2**mantissa] for floats, [0, max] for ints
    permutation  Fisher-Yates, a word modulo the remaining count per position
    bernoulli    a double uniform draw below p (a scalar p; torch's non-MKL kernel)
    log_normal, exponential, geometric, cauchy
                 transformations of double uniform draws (log_normal: of scalar normals)
    gamma        Marsaglia and Tsang's rejection method, element after element
    poisson      products of uniform draws below a rate of 10, PTRS rejection above
    binomial     geometric waiting times below a mean of 10, BTRS rejection above

torch computes `a * b + c` steps with a fused multiply-add, and so does `fused`. The
Box-Muller arithmetic of normals is the kernel family `box_muller` (ember/_cpu/box_muller.py).
"""
from __future__ import annotations

import math

import numpy as np

from ._cpu import kernels

_MANTISSA_BITS = {np.dtype(np.float64): 53, np.dtype(np.float32): 24,
                  np.dtype(np.float16): 11}


def _mantissa_bits(dtype: np.dtype) -> int:
    return _MANTISSA_BITS.get(np.dtype(dtype), 8)       # 8: bfloat16


def _unit(gen, n: int, dtype: np.dtype) -> np.ndarray:
    """n uniform draws in [0, 1): float64 ones for float64, else float32 ones, which torch
    also draws for float16 and bfloat16."""
    return gen.unit_floats(n, np.dtype(dtype) == np.float64)


def real_parts(sample, gen, shape, dtype, *params) -> np.ndarray:
    """sample(gen, shape, *params, dtype) for a float dtype; for a complex one, the real and
    imaginary parts drawn in turn as torch does (from the tensor's real view, shape + (2,))."""
    dtype = np.dtype(dtype)
    if dtype.kind != "c":
        return sample(gen, shape, *params, dtype)
    parts = sample(gen, tuple(shape) + (2,), *params, np.finfo(dtype).dtype)
    return parts.view(dtype).reshape(shape)


def uniform(gen, shape, low: float, high: float, dtype) -> np.ndarray:
    """Draws from U(low, high) of `dtype` (a NumPy float dtype)."""
    dtype = np.dtype(dtype)
    step = np.float64 if dtype == np.float64 else np.float32
    low, high = step(np.asarray(low).astype(dtype)), step(np.asarray(high).astype(dtype))
    draws = _unit(gen, int(np.prod(shape)), dtype)
    values = kernels.family("box_muller").fused(draws, high - low, low)
    values = values.astype(dtype, copy=False)
    # a draw rounded up to `high` (in a narrow dtype) becomes `low`, as in torch: [low, high)
    values[values == values.dtype.type(high)] = low
    return values.reshape(shape)


def normal(gen, shape, mean: float, std: float, dtype, contiguous: bool = True) -> np.ndarray:
    """Draws from N(mean, std**2) of `dtype` (for a tensor that is not `contiguous`, torch
    draws each value from the scalar sampler)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if n < 16 or not contiguous:
        return _scalar_normals(gen, n, mean, std).astype(dtype).reshape(shape)
    step = np.float64 if dtype == np.float64 else np.float32
    whole = n - n % 16
    # float16 and bfloat16 draw block by block, so a short last block reads the words
    # after the whole blocks; float32 and float64 draw every value first, then 16 more
    box_muller = kernels.family("box_muller").box_muller_16
    draws = _unit(gen, n if dtype.itemsize >= 4 else whole, dtype)
    values = box_muller(draws[:whole], step(std), step(mean))
    if whole < n:       # the last 16 values again, from 16 new draws
        values = np.concatenate([values[:n - 16],
                                 box_muller(_unit(gen, 16, dtype), step(std), step(mean))])
    return values.astype(dtype, copy=False).reshape(shape)


def _scalar_normal(gen) -> float:
    """One standard normal value from torch's scalar sampler: a cached one if the
    generator holds it, else a new double pair, whose second value it keeps."""
    if gen.next_normal is not None:
        value, gen.next_normal = gen.next_normal, None
        return value
    u1, u2 = (float(u) for u in _unit(gen, 2, np.float64))
    # the C library's functions, as torch's scalar code calls them (NumPy's own can
    # differ in the last bit)
    radius = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    gen.next_normal = radius * math.sin(theta)
    return radius * math.cos(theta)


def _scalar_normals(gen, n: int, mean: float, std: float) -> np.ndarray:
    """n float64 values of N(mean, std**2) from the scalar sampler, scaled by a fused
    multiply-add as torch's."""
    draws = np.array([_scalar_normal(gen) for _ in range(n)], dtype=np.float64)
    return kernels.family("box_muller").fused(draws, float(std), float(mean))


def log_normal(gen, shape, mean: float, std: float, dtype) -> np.ndarray:
    """exp(N(mean, std**2)) draws, each from the scalar normal sampler (as torch's kernel)."""
    normals = _scalar_normals(gen, int(np.prod(shape)), mean, std)
    # the C library's exp, as torch's (the values are drawn one by one anyway)
    return np.array([math.exp(v) for v in normals.tolist()]).astype(dtype).reshape(shape)


def exponential(gen, shape, rate: float, dtype) -> np.ndarray:
    """Exponential draws of the given rate: -log(1 - u) / rate of double uniform draws."""
    unit = _unit(gen, int(np.prod(shape)), np.float64)
    values = kernels.family("uniform_transforms").exponential(unit, rate)
    return values.astype(dtype).reshape(shape)


def geometric(gen, shape, p: float, dtype) -> np.ndarray:
    """The number of trials up to the first success: ceil(log u / log(1 - p))."""
    unit = _unit(gen, int(np.prod(shape)), np.float64)
    return np.ceil(np.log(unit) / np.log1p(-p)).astype(dtype).reshape(shape)


def cauchy(gen, shape, median: float, sigma: float, dtype) -> np.ndarray:
    """Cauchy draws: median + sigma * tan(pi (u - 1/2))."""
    unit = _unit(gen, int(np.prod(shape)), np.float64)
    values = kernels.family("uniform_transforms").cauchy(unit, median, sigma)
    return values.astype(dtype).reshape(shape)


def gamma(gen, concentrations: np.ndarray) -> np.ndarray:
    """Gamma(alpha, 1) draws, one per concentration alpha (float32 or float64), by torch's
    sampler: Marsaglia and Tsang's rejection method, with alpha < 1 boosted to alpha + 1
    and scaled back by u ** (1 / alpha). Each draw takes as many double uniform and scalar
    normal draws as its rejections need, so elements are drawn one after the other."""
    out = np.empty(concentrations.shape, concentrations.dtype)
    flat = out.reshape(-1)
    for i, alpha in enumerate(concentrations.reshape(-1)):
        flat[i] = _gamma_one(gen, alpha)
    return np.maximum(out, np.finfo(out.dtype).tiny)


_THIRD = float(np.float32(1 / 3))        # torch writes these constants as float literals
_SQUEEZE = float(np.float32(0.0331))


def _gamma_one(gen, alpha) -> float:
    """One draw for the concentration `alpha` (a NumPy scalar: torch does the steps on alpha
    itself in its dtype, the others in double)."""
    one = alpha.dtype.type(1)
    scale = 1.0
    if alpha < 1:
        if alpha == 0:
            return 0.0
        scale *= (1 - _unit(gen, 1, np.float64)[0]) ** float(one / alpha)
        alpha = alpha + one
    d = float(alpha - alpha.dtype.type(_THIRD))
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = _scalar_normal(gen)
        y = 1.0 + c * x
        if y <= 0:
            continue
        v = y * y * y
        u = 1 - float(_unit(gen, 1, np.float64)[0])
        xx = x * x
        if u < 1.0 - _SQUEEZE * xx * xx or math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def poisson(gen, rates: np.ndarray) -> np.ndarray:
    """Poisson draws, one per rate, in the rates' dtype, by torch's sampler (the same as
    NumPy's legacy one): below 10, the product of uniform draws against exp(-rate);
    from 10, Hoermann's transformed rejection (PTRS)."""
    draws = [_poisson_one(gen, float(rate)) for rate in rates.reshape(-1)]
    return np.array(draws, dtype=np.float64).astype(rates.dtype).reshape(rates.shape)


def _poisson_one(gen, rate: float) -> int:
    def uniform() -> float:
        return float(_unit(gen, 1, np.float64)[0])
    if rate == 0:
        return 0
    if rate < 10:
        count, product, threshold = 0, uniform(), math.exp(-rate)
        while product > threshold:
            count += 1
            product *= uniform()
        return count
    root, log_rate = math.sqrt(rate), math.log(rate)
    b = 0.931 + 2.53 * root
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + rate + 0.43)
        if us >= 0.07 and v <= v_r:
            return k
        if k < 0 or us < 0.013 and v > us:
            continue
        if math.log(v) + math.log(inv_alpha) - math.log(a / (us * us) + b) <= \
                -rate + k * log_rate - math.lgamma(k + 1):
            return k


def binomial(gen, counts: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Binomial draws (successes in `counts` trials of probability `probs`, broadcast
    together, float32 or float64), by torch's sampler: for mean count * p (p the smaller of
    p and 1 - p) below 10, geometric waiting times until the trials run out; from 10,
    Hoermann's transformed rejection (BTRS). torch does the steps on count and p in their
    dtype, the others in double, and so does this."""
    counts, probs = np.broadcast_arrays(counts, probs)
    draws = [_binomial_one(gen, n, p) for n, p in zip(counts.reshape(-1), probs.reshape(-1))]
    return np.array(draws, dtype=counts.dtype).reshape(counts.shape)


def _binomial_one(gen, count, prob):
    if count <= 0 or prob <= 0:
        return 0
    if prob >= 1:
        return count
    if prob != prob:
        return np.nan
    flipped = prob > 0.5
    p = prob.dtype.type(1.0 - prob) if flipped else prob
    successes = _btrs(gen, count, p) if count * p >= 10 else _geometric_count(gen, count, p)
    return count - successes if flipped else successes


def _geometric_count(gen, count, prob):
    """How many geometric waiting times (trials up to a success) fit in `count` trials."""
    log_q = float(np.log1p(-prob))
    total, successes = 0.0, 0
    while True:
        total += math.ceil(math.log(float(_unit(gen, 1, np.float64)[0])) / log_q)
        if total > count:
            return successes
        successes += 1


# Stirling's series' remainder log(k!) - (its first terms), tabulated for k < 10
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k: float) -> float:
    if k < len(_STIRLING_TAIL):
        return _STIRLING_TAIL[int(k)]
    square = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)


def _btrs(gen, count, prob):
    """Hoermann's BTRS for count * prob >= 10 (count and prob NumPy scalars of one dtype)."""
    real = prob.dtype.type
    one = real(1)
    stddev = float(np.sqrt(count * prob * (one - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (one - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((count + one) * prob)
    while True:
        u = float(_unit(gen, 1, np.float64)[0]) - 0.5
        v = float(_unit(gen, 1, np.float64)[0])
        us = 0.5 - abs(u)
        k = real(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((float(m) + 0.5) * math.log(float(m + one) / (r * float(count - m + one))) +
                 float(count + one) * float(np.log((count - m + one) / (count - k + one))) +
                 (float(k) + 0.5) * math.log(r * float(count - k + one) / float(k + one)) +
                 _stirling_tail(float(m)) + _stirling_tail(float(count - m)) -
                 _stirling_tail(float(k)) - _stirling_tail(float(count - k)))
        if v <= bound:
            return k


def integers(gen, shape, low: int, high: int) -> np.ndarray:
    """int64 draws from [low, high)."""
    span = high - low
    n = int(np.prod(shape))
    words = gen.random64(n) if span >= 1 << 32 else gen.random32(n).astype(np.uint64)
    return ((words % np.uint64(span)).astype(np.int64) + low).reshape(shape)


def integers_from(gen, shape, low: int, dtype) -> np.ndarray:
    """random_(low, None)'s draws: integers from low to 2**mantissa for a float dtype, to
    the largest value for an integer one (a 64-bit draw each for float64, int64 and int32,
    a word for the other dtypes: what torch's kernel reads)."""
    dtype = np.dtype(dtype)
    top = 1 << _mantissa_bits(dtype) if dtype.kind == "f" or dtype.name == "bfloat16" \
        else int(np.iinfo(dtype).max)
    n = int(np.prod(shape))
    wide = dtype in (np.float64, np.int64, np.int32)
    words = gen.random64(n) if wide else gen.random32(n).astype(np.uint64)
    span = top - low + 1
    if span >= 1 << 64:             # int64 from below 0: the span needs more than 64 bits
        return (words.astype(object) % span + low).astype(dtype).reshape(shape)
    return (words % np.uint64(span)).astype(np.int64).astype(dtype).reshape(shape) + \
        dtype.type(low)


def full_range(gen, shape, dtype) -> np.ndarray:
    """random_()'s draws without bounds for `dtype`: integers in [0, 2**mantissa] for a
    float, [0, max] for an integer type, 0 or 1 for bool."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    wide = dtype in (np.float64, np.int64)
    words = gen.random64(n) if wide else gen.random32(n).astype(np.uint64)
    if dtype == np.bool_:
        values = words & np.uint64(1)
    elif dtype.kind == "f" or dtype.name == "bfloat16":
        values = words % np.uint64((1 << _mantissa_bits(dtype)) + 1)
    else:
        values = words % np.uint64(int(np.iinfo(dtype).max) + 1)
    return values.astype(dtype).reshape(shape)


def permutation(gen, n: int) -> np.ndarray:
    """A random permutation of 0 .. n-1 (int64)."""
    if n <= 1:
        return np.arange(n, dtype=np.int64)
    picks = gen.random32(n - 1) % np.arange(n, 1, -1, dtype=np.uint32)
    return kernels.family("shuffle").fisher_yates(picks)


def bernoulli(gen, shape, p: float) -> np.ndarray:
    """Booleans, True with probability p."""
    return _unit(gen, int(np.prod(shape)), np.float64).reshape(shape) < p
