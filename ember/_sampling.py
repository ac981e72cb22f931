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

torch computes `a * b + c` steps with a fused multiply-add, and so does `_fused`. float32 normals use NumPy's float32
log, sin and cos where torch uses its own vectorised ones: they can differ in the last bit.
float16 and bfloat16 normals of 16 or more elements are not torch's numbers.
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
    """n uniform draws in [0, 1): float64 ones (53 bits of a 64-bit draw) for float64,
    else float32 ones (24 bits of a word), which torch also draws for float16 and bfloat16."""
    if np.dtype(dtype) == np.float64:
        return (gen.random64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
    return (gen.random32(n) & np.uint32((1 << 24) - 1)).astype(np.float32) * \
        np.float32(2.0 ** -24)


def _fused(a: np.ndarray, b, c) -> np.ndarray:
    """a * b + c rounded once (a fused multiply-add, which NumPy lacks)."""
    if a.dtype != np.float64:       # float32: the product is exact in float64
        return (a.astype(np.float64) * np.float64(np.float32(b)) +
                np.float64(np.float32(c))).astype(np.float32)
    # float64: the rounded product and sum plus their rounding errors (Dekker's exact
    # product, Knuth's exact sum), added back before the last rounding
    product = a * b
    a_hi, a_lo = _halves(a)
    b_hi, b_lo = _halves(np.float64(b))
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    part = total - product
    sum_error = (product - (total - part)) + (c - part)
    return total + (sum_error + product_error)


def _halves(x):
    """x as hi + lo, each with at most 26 significant bits (so their products are exact)."""
    scaled = 134217729.0 * x            # 2**27 + 1
    hi = scaled - (scaled - x)
    return hi, x - hi


def uniform(gen, shape, low: float, high: float, dtype) -> np.ndarray:
    """Draws from U(low, high) of `dtype` (a NumPy float dtype)."""
    dtype = np.dtype(dtype)
    step = np.float64 if dtype == np.float64 else np.float32
    low, high = step(np.asarray(low).astype(dtype)), step(np.asarray(high).astype(dtype))
    draws = _unit(gen, int(np.prod(shape)), dtype)
    values = _fused(draws, high - low, low).astype(dtype)
    # a draw rounded up to `high` (in a narrow dtype) becomes `low`, as in torch: [low, high)
    values[values == values.dtype.type(high)] = low
    return values.reshape(shape)


def normal(gen, shape, mean: float, std: float, dtype, contiguous: bool = True) -> np.ndarray:
    """Draws from N(mean, std**2) of `dtype` (for a tensor that is not `contiguous`, torch
    draws each value from the scalar sampler)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if n < 16 or not contiguous:
        return np.array([_scalar_normal(gen) * std + mean for _ in range(n)],
                        dtype=np.float64).astype(dtype).reshape(shape)
    step = np.float64 if dtype == np.float64 else np.float32
    data = _unit(gen, n, dtype)
    whole = n - n % 16
    data[:whole] = _box_muller_16(data[:whole], step(std), step(mean))
    if whole < n:
        data[n - 16:] = _box_muller_16(_unit(gen, 16, dtype), step(std), step(mean))
    return data.astype(dtype).reshape(shape)


def _box_muller_16(draws: np.ndarray, std, mean) -> np.ndarray:
    """Blocks of 16 uniform draws to normal values: in each block, draws j and j + 8
    (j < 8) make the pair (r cos t, r sin t) at those places."""
    blocks = draws.reshape(-1, 2, 8)
    u1, u2 = 1 - blocks[:, 0], blocks[:, 1]       # 1 - u: (0, 1], where log is finite
    radius = np.sqrt(draws.dtype.type(-2) * np.log(u1))
    theta = draws.dtype.type(2 * np.pi) * u2
    out = np.empty_like(blocks)
    out[:, 0] = _fused(radius * np.cos(theta), std, mean)
    out[:, 1] = _fused(radius * np.sin(theta), std, mean)
    return out.reshape(-1)


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


def log_normal(gen, shape, mean: float, std: float, dtype) -> np.ndarray:
    """exp(N(mean, std**2)) draws, each from the scalar normal sampler (as torch's kernel)."""
    normals = np.array([_scalar_normal(gen) for _ in range(int(np.prod(shape)))])
    return np.exp(normals * std + mean).astype(dtype).reshape(shape)


def exponential(gen, shape, rate: float, dtype) -> np.ndarray:
    """Exponential draws of the given rate: -log(1 - u) / rate of double uniform draws."""
    unit = _unit(gen, int(np.prod(shape)), np.float64)
    return ((-1.0 / rate) * np.log1p(-unit)).astype(dtype).reshape(shape)


def geometric(gen, shape, p: float, dtype) -> np.ndarray:
    """The number of trials up to the first success: ceil(log u / log(1 - p))."""
    unit = _unit(gen, int(np.prod(shape)), np.float64)
    return np.ceil(np.log(unit) / np.log1p(-p)).astype(dtype).reshape(shape)


def cauchy(gen, shape, median: float, sigma: float, dtype) -> np.ndarray:
    """Cauchy draws: median + sigma * tan(pi (u - 1/2))."""
    unit = _unit(gen, int(np.prod(shape)), np.float64)
    return (median + sigma * np.tan(np.pi * (unit - 0.5))).astype(dtype).reshape(shape)


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
