"""Compiled twin of ember/_cpu/box_muller.py. float64 blocks call the C library's log, sin
and cos, as torch does. float32 blocks take the reference's steps of log, sincos and fused
multiply-adds, written so that LLVM runs eight values at once -- no calls (frexp by the
bits, LLVM's sqrt), selects instead of branches, 32-bit integers, and one flat loop over
the blocks' halves laid out apart. Their fused multiply-add is the reference's: the float32
product exact in float64, one rounding of the sum; the values are the reference's, bit for
bit."""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .. import box_muller as reference
from ..parallel import parallel_for, split, threads
from ..tuning import MIN_PARALLEL_VALUES
from ._common import jit

_F = np.float32
_L0, _L1, _L2, _L3, _L4, _L5, _L6, _L7, _L8 = reference.LOG_POLY
_SIN_POLY, _COS_POLY = reference.SIN_POLY, reference.COS_POLY
_DP1, _DP2, _DP3 = reference.PI_4_PARTS
_LN2_LOW, _LN2_HIGH = reference.LN2_LOW, reference.LN2_HIGH
_SQRT_HALF, _FOUR_OVER_PI, _TWO_PI = reference.SQRT_HALF, reference.FOUR_OVER_PI, reference.TWO_PI
_TINY = np.finfo(np.float32).tiny
_ZERO, _ONE, _TWO, _FOUR, _NOT_ONE = (np.int32(v) for v in (0, 1, 2, 4, ~1))


@jit(inline="always")
def _fma(a, b, c):
    return _F(np.float64(a) * np.float64(b) + np.float64(c))


@intrinsic
def _bits(typingctx, x):
    """The bit pattern of a float32 (LLVM bitcast: no memory round trip)."""
    if x != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return types.uint32(x), codegen


@intrinsic
def _from_bits(typingctx, b):
    """The float32 whose bit pattern is the low 32 bits of integer b."""
    if not isinstance(b, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        low = args[0] if b.bitwidth == 32 else builder.trunc(args[0], ir.IntType(32))
        return builder.bitcast(low, ir.FloatType())
    return types.float32(b), codegen


@intrinsic
def _sqrt(typingctx, x):
    """The correctly rounded square root as LLVM's intrinsic (NumPy's sqrt compiles to a
    call of the C library's, which no loop around it can vectorise)."""
    if x != types.float32:
        return None

    def codegen(context, builder, signature, args):
        kind = ir.FloatType()
        sqrt = builder.module.declare_intrinsic("llvm.sqrt", [kind],
                                                ir.FunctionType(kind, [kind]))
        return builder.call(sqrt, args)
    return types.float32(x), codegen


@jit(inline="always")   # inlined: so the caller's loop can be vectorised
def _log(x):
    # frexp by the bits (x is normal after the clamp): mantissa in [1/2, 1), exponent; with
    # selects instead of branches, so that LLVM can run eight lanes at once
    bits = _bits(max(x, _TINY))
    m = _from_bits((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000))
    e = _F(np.int32(np.int32(bits >> np.uint32(23)) - np.int32(126)))
    small = m < _SQRT_HALF
    e = e - _F(1) if small else e
    m = (m - _F(1)) + (m if small else _F(0))
    square = m * m
    poly = _fma(_fma(_fma(_L0, m, _L1), m, _L2), m, _L3)     # (unrolled: a loop over the
    poly = _fma(_fma(_fma(poly, m, _L4), m, _L5), m, _L6)    # tuple would index it at run
    poly = _fma(_fma(poly, m, _L7), m, _L8)                  # time and block vectorising)
    y = _fma(poly * m, square, e * _LN2_LOW)
    y = _fma(square, _F(-0.5), y)
    return _fma(e, _LN2_HIGH, m + y)


@jit(inline="always")
def _sincos(x):
    negative = x < 0
    x = abs(x)
    # (32-bit integers throughout: numba widens mixed ones to 64 bits, which AVX2 cannot
    # convert to floats in vector registers)
    j = (np.int32(x * _FOUR_OVER_PI) + _ONE) & _NOT_ONE
    y = _F(np.int32(j))
    x = _fma(y, -_DP1, x)
    x = _fma(y, -_DP2, x)
    x = _fma(y, -_DP3, x)
    square = x * x
    cos = _fma(_fma(_COS_POLY[0], square, _COS_POLY[1]), square, _COS_POLY[2]) * square
    cos = _fma(cos, square, -(square * _F(0.5))) + _F(1)
    sin = _fma(_fma(_SIN_POLY[0], square, _SIN_POLY[1]), square, _SIN_POLY[2]) * square
    sin = _fma(sin, x, x)
    swapped = (j & _TWO) != _ZERO
    sin, cos = (cos if swapped else sin), (sin if swapped else cos)
    sin = -sin if negative != ((j & _FOUR) != _ZERO) else sin
    cos = -cos if ((j - _TWO) & _FOUR) == _ZERO else cos
    return sin, cos


@jit
def _fused_by_scalars(a, b, c, out):
    for i in range(a.size):
        out[i] = _F(np.float64(a[i]) * b + c)


def fused(a: np.ndarray, b, c) -> np.ndarray:
    """a * b + c rounded once (see the reference); float32 values by scalars in one pass
    (U(a, b)'s scaling of 100M draws: 2.5 -> 0.2 s)."""
    if a.dtype != np.float32 or np.ndim(b) or np.ndim(c):
        return reference.fused(a, b, c)
    flat = np.ascontiguousarray(a).reshape(-1)
    out = np.empty_like(flat)
    _fused_by_scalars(flat, np.float64(np.float32(b)), np.float64(np.float32(c)), out)
    return out.reshape(a.shape)


@jit
def _pairs(u1, u2, std, mean, first_out, second_out, start, stop):
    """Box-Muller of draws split by halves (u1: the first 8 of each block, u2: the last 8,
    each contiguous): one flat loop, which LLVM vectorises (a loop over blocks and lanes
    it would not: the lanes' loads and stores might overlap)."""
    # (an unsigned index: a signed one makes numba select a wrapped-around index per lane)
    for p in range(np.uint64(start), np.uint64(stop)):
        radius = _sqrt(_F(-2) * _log(_F(1) - u1[p]))
        sin, cos = _sincos(_TWO_PI * u2[p])
        first_out[p] = _fma(radius * cos, std, mean)
        second_out[p] = _fma(radius * sin, std, mean)


@intrinsic
def _fma64(typingctx, a, b, c):
    """a * b + c rounded once (LLVM's fma) for float64, the reference's exact sum."""
    if not a == b == c == types.float64:
        return None

    def codegen(context, builder, signature, args):
        kind = ir.DoubleType()
        fma = builder.module.declare_intrinsic("llvm.fma", [kind],
                                               ir.FunctionType(kind, [kind] * 3))
        return builder.call(fma, args)
    return types.float64(a, b, c), codegen


@jit
def _pairs64(u1, u2, std, mean, first_out, second_out):
    """The float64 transform with the C library's log, sin and cos, the functions torch
    calls (NumPy's own vectorised ones differ in the last bit about once in a thousand)."""
    two_pi = 2 * math.pi
    for p in range(u1.size):
        radius = math.sqrt(-2 * math.log(u1[p]))
        theta = two_pi * u2[p]
        first_out[p] = _fma64(radius * math.cos(theta), std, mean)
        second_out[p] = _fma64(radius * math.sin(theta), std, mean)


# randn(1_000_000)'s transform on one thread: 18.6 -> 5.3 ms, vectorised (the whole
# normal_ 21.6 -> 8.0 ms; torch's 3.5 ms)
def box_muller_16(draws: np.ndarray, std, mean) -> np.ndarray:
    """Normal values from blocks of 16 uniform draws (see the reference)."""
    if draws.dtype not in (np.float32, np.float64):
        return reference.box_muller_16(draws, std, mean)
    blocks = draws.reshape(-1, 2, 8)
    u1 = np.ascontiguousarray(blocks[:, 0]).reshape(-1)
    u2 = np.ascontiguousarray(blocks[:, 1]).reshape(-1)
    first, second = np.empty_like(u1), np.empty_like(u2)
    if draws.dtype == np.float64:
        _pairs64(1 - u1, u2, np.float64(std), np.float64(mean), first, second)
    else:
        parts = min(threads(), len(blocks)) if draws.size >= MIN_PARALLEL_VALUES else 1
        parallel_for(split(u1.size, max(parts, 1)), lambda part: _pairs(
            u1, u2, _F(std), _F(mean), first, second, part.start, part.stop), draws.size)
    out = np.empty_like(blocks)
    out[:, 0] = first.reshape(-1, 8)
    out[:, 1] = second.reshape(-1, 8)
    return out.reshape(-1)
