"""Autocast's per-op casting policy and the state it reads.

Op entry points opt in with one decorator line, naming the list the op is on:

    @autocast_op(LOWER)     matmul, linear, conv...: floating inputs -> the autocast dtype
    @autocast_op(FP32)      losses, prod, cdist, 3-d pooling...: floating inputs -> float32
    @autocast_op(PROMOTE)   cat, stack, index_copy: all inputs -> the widest of them
    @autocast_op(KEEP)      composites torch runs uncast (bilinear, mv...): no casts

The lists follow what torch's CPU autocast does, recorded by running torch (see
tests/amp/test_autocast.py). As in torch, float64 tensors are never cast, and the op's
own body runs with autocast switched off, so a float32-list loss built from matmuls
does not cast its insides to bfloat16.

With autocast off, a decorated op costs one check of this thread's mode state before the
real call. As in torch, autocast is per thread.
This module imports nothing heavy: the op modules import it while ember loads.
"""
from __future__ import annotations

import functools

from .. import _dtype
from .._modes import current as modes, own as own_modes

LOWER = "lower_precision_fp"
FP32 = "fp32"
PROMOTE = "promote"
KEEP = "keep"


def _eligible(t) -> bool:
    # Floating tensors other than float64 are cast (torch's CPU rule).
    dt = t.dtype
    return dt.is_floating_point and dt is not _dtype.float64


def _cast_tensor(t, target: _dtype.dtype):
    if t.dtype is target or not _eligible(t):
        return t
    state = modes()
    cacheable = (state.autocast_cache_enabled and target is state.autocast_dtype
                 and t.dtype is _dtype.float32 and t.requires_grad and t.is_leaf)
    if not cacheable:
        return t.to(target)
    hit = state.autocast_cache.get(id(t))
    if hit is None:
        hit = state.autocast_cache[id(t)] = (t, t.to(target))
    return hit[1]


def _cast(value, target: _dtype.dtype):
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        return _cast_tensor(value, target)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, target) for v in value)
    return value


def _tensors(values):
    from .._tensor import Tensor
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _widest(args, kwargs) -> _dtype.dtype:
    """PROMOTE's target: float32 if any eligible input is float32, else the autocast dtype."""
    target = modes().autocast_dtype
    for t in _tensors((*args, *kwargs.values())):
        if not _eligible(t) or t.dtype is target:
            continue
        if t.dtype is not _dtype.float32:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
        target = _dtype.float32
    return target


def _run_autocast(kind: str, fn, args, kwargs):
    if kind != KEEP:
        target = (modes().autocast_dtype if kind == LOWER else _dtype.float32 if kind == FP32
                  else _widest(args, kwargs))
        args = tuple(_cast(a, target) for a in args)
        kwargs = {k: _cast(v, target) for k, v in kwargs.items()}
    state = own_modes()         # autocast is on, so this thread owns its state already
    state.autocast_enabled = False  # the op's own body runs uncast, as below torch's dispatcher
    try:
        return fn(*args, **kwargs)
    finally:
        state.autocast_enabled = True


def autocast_op(kind: str):
    """Decorator putting an op entry function on one of autocast's casting lists."""
    if kind not in (LOWER, FP32, PROMOTE, KEEP):
        raise ValueError(f"unknown autocast list {kind!r}")

    def decorate(fn):
        @functools.wraps(fn)
        def op(*args, **kwargs):
            if not modes().autocast_enabled:
                return fn(*args, **kwargs)
            return _run_autocast(kind, fn, args, kwargs)
        return op
    return decorate


def autocast_float32(t):
    """`t` cast as a float32-list op would cast it, for ops on that list only in some modes."""
    return _cast_tensor(t, _dtype.float32) if modes().autocast_enabled else t
