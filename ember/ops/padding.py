"""Padding (F.pad, and torch.constant_pad_nd's primitive): constant padding (negative pads
crop), and reflect/replicate/circular padding expressed as a gather with per-dimension index
maps (its gradient is the scatter-add)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..amp.policy import autocast_float32
from ..autograd.function import Function
from .indexing import put_into_zeros

__all__ = ["pad"]

_MODES = ("reflect", "replicate", "circular")


class ConstantPad(Function):
    backward_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, pads, value):
        """pads: one (before, after) pair per dimension of x; negative values crop."""
        ctx.pads = pads
        grown = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pads)
        out = np.pad(x, grown, constant_values=value) if any(map(any, grown)) else x
        return out[_crop(pads, out.shape)].copy()

    @staticmethod
    def backward(ctx, grad):
        inverse = tuple((-lo, -hi) for lo, hi in ctx.pads)
        return ConstantPad.apply(grad, inverse, 0), None, None


def _crop(pads, shape) -> tuple:
    return tuple(slice(-lo if lo < 0 else 0, n + hi if hi < 0 else n)
                 for (lo, hi), n in zip(pads, shape))


def _pairs(input: Tensor, pad) -> tuple:
    """torch's pad list (last dim first, before/after) as one pair per dimension of input."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension but got padding length {} and input of dimension {}"
                           .format(len(pad), input.ndim))
    pairs = [(0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        pairs[input.ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return tuple(pairs)


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """Pad `input` by the sizes in `pad`, given as (left, right) pairs starting from the last
    dimension; mode is 'constant' (with `value`, default 0), 'reflect', 'replicate' or 'circular'.
    """
    pairs = _pairs(input, pad)
    if mode == "constant":
        return ConstantPad.apply(input, pairs, 0 if value is None else value)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "circular":
        input = autocast_float32(input)     # torch's autocast pads reflect/replicate in float32
    padded_dims = len(pad) // 2
    if input.ndim - padded_dims not in (1, 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    _check_mode_pads(input, pairs, mode, padded_dims)
    # Index maps: for each padded dim, which source position each output position reads.
    key = []
    dims = input.ndim
    for d, ((lo, hi), n) in enumerate(zip(pairs, input.shape)):
        if d < dims - padded_dims:
            key.append(slice(None))
            continue
        shape = [1] * padded_dims
        shape[d - (dims - padded_dims)] = -1
        key.append(_source_positions(mode, n, lo, hi).reshape(shape))
    return _MODE_PADS[mode, padded_dims].apply(input, tuple(key), pairs)


def _check_mode_pads(input: Tensor, pairs: tuple, mode: str, padded_dims: int) -> None:
    """torch's errors for reflect/replicate/circular pads the input cannot supply."""
    first_padded = input.ndim - padded_dims
    batch = 1 if first_padded == 2 else 0          # a leading batch dim may be empty
    if mode != "circular" and 0 in input.shape[batch:]:
        raise RuntimeError(f"Expected {padded_dims + 1}D or {padded_dims + 2}D (batch mode) "
                           f"tensor with possibly 0 batch size and other non-zero dimensions "
                           f"for input, but got: {list(input.shape)}")
    for d in range(first_padded, input.ndim):
        (lo, hi), n = pairs[d], input.shape[d]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({lo}, {hi}) at dimension "
                               f"{d} of input {list(input.shape)}")
        kept = n - max(-lo, 0) - max(-hi, 0)       # circular wraps around what is kept
        if mode == "circular" and (lo > kept or hi > kept):
            raise RuntimeError("Padding value causes wrapping around more than once.")


def _source_positions(mode: str, n: int, lo: int, hi: int) -> np.ndarray:
    """For each output position along a dim of n values padded by (lo, hi) (negative pads
    crop), the input position it reads."""
    offsets = np.arange(-lo, n + hi)             # output position - lo
    if mode == "replicate":
        return np.clip(offsets, 0, n - 1)
    if mode == "circular":     # wraps around what is left after cropping, as torch does
        start, kept = max(-lo, 0), n - max(-lo, 0) - max(-hi, 0)
        return start + (np.arange(-max(lo, 0), kept + max(hi, 0)) % kept)
    return (n - 1) - np.abs((n - 1) - np.abs(offsets))    # reflect once at each end


class ModePad(Function):
    """Reflect, replicate or circular padding: a gather through per-dimension index maps
    (`key`, as NumPy indexing takes them). Its gradient scatter-adds back along the same
    maps. One subclass per mode and number of padded dimensions carries torch's name."""

    mode = ""

    @staticmethod
    def forward(ctx, x, key, pairs):
        ctx.key, ctx.in_shape = key, x.shape
        return x[key]

    @staticmethod
    def backward(ctx, grad):
        return put_into_zeros(grad, ctx.key, ctx.in_shape), None, None


# torch names reflect/replicate nodes by mode and padded dims; circular padding is built
# from slice copies in torch, so its node is a CopySlices.
_NODE_NAMES = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0",
               "circular": "CopySlices"}
_MODE_PADS = {
    (mode, dims): type(f"{mode.capitalize()}Pad{dims}d", (ModePad,), {
        "mode": mode, "backward_name": name.format(dims), "__module__": __name__,
        "__qualname__": f"{mode.capitalize()}Pad{dims}d"})
    for mode, name in _NODE_NAMES.items() for dims in (1, 2, 3)}
