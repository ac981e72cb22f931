"""Variable-length sequences: pad_sequence, pack_padded_sequence, pad_packed_sequence,
pack_sequence and PackedSequence (torch's layout: time-step blocks of the sequences
still running, longest sequences first)."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ... import _dtype
from ..._modes import current as modes
from ..._tensor import Tensor
from ...autograd.function import Function

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "pack_sequence", "unpad_sequence", "unpack_sequence", "invert_permutation"]


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """data: (sum of lengths, *) rows ordered by time step, then by (sorted) batch entry;
    batch_sizes[t]: how many sequences are still running at step t."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> "PackedSequence":
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._replace(data=data)

    def cpu(self) -> "PackedSequence":
        return self

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation q with q[p[i]] = i (None stays None), as an int64 tensor."""
    if permutation is None:
        return None
    if permutation.ndim > 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         f"{permutation.ndim - 1})")
    if permutation.dtype != _dtype.int64:
        # torch scatters int64 positions into a tensor of the permutation's dtype.
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    order = permutation.numpy(force=True)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return Tensor._wrap(inverse)


def _lengths_array(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.ndim}D {lengths.device} {lengths.dtype} tensor")
        return lengths.numpy(force=True).astype(np.int64)
    return np.asarray(lengths, dtype=np.int64)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch of variable-length sequences (lengths per batch entry) into a
    PackedSequence; enforce_sorted=False sorts them by decreasing length first."""
    if modes().recorder is not None:     # one primitive, so that a recorder sees the lengths
        data, batch_sizes, sorted_indices = PackPadded.apply(input, lengths, batch_first,
                                                             enforce_sorted)
        return PackedSequence(data, batch_sizes, sorted_indices)
    return _pack_padded(input, lengths, batch_first, enforce_sorted)


def _pack_padded(input: Tensor, lengths, batch_first: bool, enforce_sorted: bool):
    lengths = _lengths_array(lengths)
    if enforce_sorted:
        if np.any(np.diff(lengths) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
        sorted_indices = None
        order = np.arange(lengths.size)
    else:
        order = np.argsort(-lengths, kind="stable")
        sorted_indices = Tensor._wrap(order.astype(np.int64))
    if lengths.size and lengths.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    x = input.transpose(0, 1) if batch_first else input
    if lengths.size and lengths.max() > x.shape[0]:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to "
                           f"{lengths.max()}, but got {x.shape[0]}")
    sorted_lengths = lengths[order]
    steps = int(sorted_lengths[0]) if lengths.size else 0
    batch_sizes = (np.arange(steps)[:, None] < sorted_lengths[None, :]).sum(1)
    # Row indices into x viewed as (T, B): time-major, then the sorted batch order.
    time_idx = np.concatenate([np.full(b, t) for t, b in enumerate(batch_sizes)]) \
        if steps else np.zeros(0, np.int64)
    batch_idx = np.concatenate([order[:b] for b in batch_sizes]) if steps \
        else np.zeros(0, np.int64)
    data = x[Tensor._wrap(time_idx), Tensor._wrap(batch_idx)]
    return PackedSequence(data, Tensor._wrap(batch_sizes.astype(np.int64)), sorted_indices)


class PackPadded(Function):
    """pack_padded_sequence as one primitive (torch's aten::_pack_padded_sequence), run when
    a recorder is set: the exporter sees the lengths. Returns (data, batch_sizes,
    sorted_indices)."""

    forward_on_tensors = True   # runs the packing code the eager path runs, on Tensors

    @staticmethod
    def forward(ctx, input, lengths, batch_first, enforce_sorted):
        packed = _pack_padded(input, lengths, batch_first, enforce_sorted)
        ctx.shape, ctx.batch_first = tuple(input.shape), batch_first
        ctx.packed = packed._replace(data=None)
        ctx.mark_non_differentiable(packed.batch_sizes, packed.sorted_indices)
        return packed.data, packed.batch_sizes, packed.sorted_indices

    @staticmethod
    def backward(ctx, grad_data, *unused):
        # The packed rows back in their padded places (zeros elsewhere).
        padded, _ = pad_packed_sequence(ctx.packed._replace(data=grad_data), ctx.batch_first,
                                        total_length=ctx.shape[1 if ctx.batch_first else 0])
        return padded, None, None, None


class PadPacked(Function):
    """pad_packed_sequence as one primitive (torch's aten::_pad_packed_sequence), run when a
    recorder is set. Returns (padded, lengths)."""

    forward_on_tensors = True   # runs the unpacking code the eager path runs, on Tensors

    @staticmethod
    def forward(ctx, data, batch_sizes, sorted_indices, unsorted_indices, batch_first,
                padding_value, total_length):
        sequence = PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)
        padded, lengths = _pad_packed(sequence, batch_first, padding_value, total_length)
        ctx.lengths, ctx.batch_first, ctx.sorted = lengths, batch_first, sorted_indices is None
        ctx.mark_non_differentiable(lengths)
        return padded, lengths

    @staticmethod
    def backward(ctx, grad_padded, unused):
        # Packing the gradient again orders its rows as the data's (a stable sort).
        packed = _pack_padded(grad_padded, ctx.lengths, ctx.batch_first, ctx.sorted)
        return packed.data, None, None, None, None, None, None


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length=None):
    """The padded batch (and the lengths) a PackedSequence was packed from, padded with
    padding_value up to the longest sequence (or total_length)."""
    if modes().recorder is not None:     # one primitive, so that a recorder sees it
        return PadPacked.apply(*sequence, batch_first, padding_value, total_length)
    return _pad_packed(sequence, batch_first, padding_value, total_length)


def _pad_packed(sequence: PackedSequence, batch_first: bool, padding_value: float,
                total_length):
    data, batch_sizes = sequence.data, sequence.batch_sizes.numpy(force=True)
    steps = batch_sizes.size
    batch = int(batch_sizes[0]) if steps else 0
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps_out = total_length
    else:
        steps_out = steps
    time_idx = np.concatenate([np.full(b, t) for t, b in enumerate(batch_sizes)])
    batch_idx = np.concatenate([np.arange(b) for b in batch_sizes])
    from ...ops.creation import full
    padded = full((steps_out, batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    padded = padded.index_put((Tensor._wrap(time_idx), Tensor._wrap(batch_idx)), data)
    lengths = (batch_sizes[:, None] > np.arange(batch)[None, :]).sum(0)
    lengths_t = Tensor._wrap(lengths.astype(np.int64))
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths_t = Tensor._wrap(lengths[sequence.unsorted_indices.numpy(force=True)].astype(np.int64))
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths_t


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack variable-length tensors (L_i, *) into (max L, B, *) (or (B, max L, *))."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    sequences = list(sequences)
    longest = max(s.shape[0] for s in sequences)
    from ...ops.joining import stack
    from ..functional import pad
    padded = []
    for s in sequences:
        extra = longest - s.shape[0]
        pads = [0, 0] * (s.ndim - 1) + ([0, extra] if padding_side == "right" else [extra, 0])
        padded.append(pad(s, pads, value=padding_value) if extra else s)
    return stack(padded, dim=0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list:
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :int(n)] for i, n in enumerate(_lengths_array(lengths))]


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
