"""Kernel family `box_muller`: torch's arithmetic for normal samples (NumPy reference).

torch's CPU normal sampler turns uniform draws into normal values 16 at a time: in each
block, draws j and j + 8 (j < 8) make the Box-Muller pair r cos t, r sin t with
r = sqrt(-2 log(1 - u_j)) and t = 2 pi u_{j+8}, scaled by std and shifted by mean with a
fused multiply-add. Its float32 kernel (x86-64, vectorised) computes log, sin and cos
with Cephes' float polynomials (its avx_mathfun.h), not the C library's, and its compiler
fuses some of their multiply-adds; `log_f32` and `sincos_f32` repeat them step for step,
so float32 normals are torch's to the bit. float64 blocks here use NumPy's log, sin and
cos where torch calls the C library's: about one value in a thousand differs in the last
bit. The compiled twin (ember/_cpu/numba/box_muller.py) vectorises the float32 blocks and
calls the C library for float64 ones, so with ember[fast] both are torch's to the bit.

    fused(a, b, c)                   a * b + c rounded once (NumPy has no fma)
    box_muller_16(draws, std, mean)  normal values from blocks of 16 uniform draws
"""
from __future__ import annotations

import numpy as np

# Cephes' constants
LOG_POLY = tuple(map(np.float32, (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                                  -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                                  2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)))
LN2_LOW, LN2_HIGH = np.float32(-2.12194440e-4), np.float32(0.693359375)   # log 2 in two parts
SQRT_HALF = np.float32(0.707106781186547524)
SIN_POLY = tuple(map(np.float32, (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)))
COS_POLY = tuple(map(np.float32, (2.443315711809948e-5, -1.388731625493765e-3,
                                  4.166664568298827e-2)))
PI_4_PARTS = tuple(map(np.float32, (0.78515625, 2.4187564849853515625e-4,
                                    3.77489497744594108e-8)))    # pi/4 in three pieces
FOUR_OVER_PI = np.float32(4 / np.pi)
TWO_PI = np.float32(2 * np.pi)


def fused(a: np.ndarray, b, c) -> np.ndarray:
    """a * b + c rounded once (a fused multiply-add); b and c may be arrays or scalars."""
    if a.dtype != np.float64:       # float32: the product is exact in float64
        return (a.astype(np.float64) * np.asarray(b, np.float32).astype(np.float64) +
                np.asarray(c, np.float32).astype(np.float64)).astype(np.float32)
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


def box_muller_16(draws: np.ndarray, std, mean) -> np.ndarray:
    """Normal values from draws (a multiple of 16 of them, float32 or float64, in [0, 1))."""
    blocks = draws.reshape(-1, 2, 8)
    u1, u2 = 1 - blocks[:, 0], blocks[:, 1]       # 1 - u: (0, 1], where log is finite
    if draws.dtype == np.float32:
        radius = np.sqrt(np.float32(-2) * log_f32(u1))
        sin, cos = sincos_f32(TWO_PI * u2)
    else:
        radius = np.sqrt(-2 * np.log(u1))
        theta = 2 * np.pi * u2
        sin, cos = np.sin(theta), np.cos(theta)
    out = np.empty_like(blocks)
    out[:, 0] = fused(radius * cos, std, mean)
    out[:, 1] = fused(radius * sin, std, mean)
    return out.reshape(-1)


def log_f32(x: np.ndarray) -> np.ndarray:
    """Natural log of positive float32 values: x = m 2**e with m in [sqrt(1/2), sqrt(2)),
    log m from a polynomial in m - 1, e log 2 added in two parts."""
    mantissa, exponent = np.frexp(np.maximum(x, np.finfo(np.float32).tiny))  # m in [1/2, 1)
    exponent = exponent.astype(np.float32)
    small = mantissa < SQRT_HALF
    exponent -= small.astype(np.float32)
    m = (mantissa - np.float32(1)) + np.where(small, mantissa, np.float32(0))
    square = m * m
    poly = np.full_like(m, LOG_POLY[0])
    for coefficient in LOG_POLY[1:]:
        poly = fused(poly, m, coefficient)
    y = fused(poly * m, square, exponent * LN2_LOW)
    y = fused(square, np.float32(-0.5), y)
    return fused(exponent, LN2_HIGH, m + y)


def sincos_f32(x: np.ndarray) -> tuple:
    """(sin x, cos x) of float32 values: x reduced by a multiple j of pi/4 (even j), then
    the sine or cosine polynomial of the remainder, chosen and signed by j."""
    negative = x < 0
    x = np.abs(x)
    j = ((x * FOUR_OVER_PI).astype(np.int32) + 1) & ~1
    y = j.astype(np.float32)
    for part in PI_4_PARTS:
        x = fused(y, -part, x)
    square = x * x
    cos = fused(np.full_like(x, COS_POLY[0]), square, COS_POLY[1])
    cos = fused(cos, square, COS_POLY[2]) * square
    cos = fused(cos, square, -(square * np.float32(0.5))) + np.float32(1)
    sin = fused(np.full_like(x, SIN_POLY[0]), square, SIN_POLY[1])
    sin = fused(sin, square, SIN_POLY[2]) * square
    sin = fused(sin, x, x)
    swapped = (j & 2) != 0
    sin, cos = np.where(swapped, cos, sin), np.where(swapped, sin, cos)
    sin = np.where(negative ^ ((j & 4) != 0), -sin, sin)
    cos = np.where(((j - 2) & 4) == 0, -cos, cos)
    return sin, cos
