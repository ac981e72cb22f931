"""Agreement checks that stop mismatched communication before MPI moves any data.

MPI trusts every process to pass matching buffers: two ranks all-reducing 4 and 6
numbers, or float32 and float64, get garbage or wait forever. So before each collective
the ranks exchange one small fingerprint (operation, root, reduce op, dtype, shape) in
an all-gather and compare them; on any difference every rank raises RuntimeError
naming both sides, in torch's words for the same check (TORCH_DISTRIBUTED_DEBUG=DETAIL).
A send carries a header message with its tensor's dtype and shape, which the receiver
compares with the tensor it receives into.

The check costs one small all-gather per collective, about the latency of a tiny
all_reduce: on 2 ranks of a 2-core machine, a 4-element all_reduce took 21-30 us without
it and 36-51 us with it (+14-21 us); on a 64 MB all_reduce (120-170 ms) the difference was
lost in the noise. A send costs one more small message (+16 us per message with mpi4py
alone). Jobs made of many tiny collectives can turn the checks off with the environment
variable EMBER_DISTRIBUTED_CHECKS=0: a variable rather than a function, because every
rank must make the same choice (a rank that checks would wait for one that does not) and
a launcher hands one environment to all ranks; init_process_group verifies they agree.
"""
from __future__ import annotations

import functools
import os

import numpy as np

from .. import _dtype
from ._mpi import ReduceOp, wait_requests

SWITCH = "EMBER_DISTRIBUTED_CHECKS"
MAX_DIMS = 64  # NumPy's limit on dimensions: every shape fits a fixed-size row
_DTYPES = _dtype.ALL_DTYPES

# The collectives in torch's OpType spelling, by their fingerprint code. The collectives
# on Python objects have fingerprints too: one of them must never meet another rank's
# fingerprint exchange.
_OP_TYPES = ("BARRIER", "ALLREDUCE", "BROADCAST", "REDUCE", "ALLGATHER", "_ALLGATHER_BASE",
             "REDUCE_SCATTER", "_REDUCE_SCATTER_BASE", "GATHER", "SCATTER", "ALLTOALL_BASE",
             "ALLGATHER_OBJECT", "GATHER_OBJECT", "BROADCAST_OBJECT_LIST",
             "SCATTER_OBJECT_LIST")
_KIND = {"barrier": 0, "all_reduce": 1, "broadcast": 2, "reduce": 3, "all_gather": 4,
         "all_gather_into_tensor": 5, "reduce_scatter": 6, "reduce_scatter_tensor": 7,
         "gather": 8, "scatter": 9, "all_to_all_single": 10, "all_gather_object": 11,
         "gather_object": 12, "broadcast_object_list": 13, "scatter_object_list": 14}
_MISMATCH = "Detected mismatch between collectives on ranks."
_HINT = ("ember: every rank must call the same collectives in the same order, with tensors "
         "of the same shape and dtype.")


def enabled(world) -> bool:
    """Whether the checks are on (EMBER_DISTRIBUTED_CHECKS is not "0"); RuntimeError on
    every rank of `world` unless they all agree."""
    value = os.environ.get(SWITCH, "1")
    if value not in ("0", "1"):
        raise ValueError(f"{SWITCH} must be 0 or 1, got {value!r}")
    choices = np.empty(world.Get_size(), np.int64)
    world.Allgather(np.array([int(value)], np.int64), choices)
    if choices.min() != choices.max():
        raise RuntimeError(f"{SWITCH} differs between ranks (ranks "
                           f"{np.flatnonzero(choices == 0).tolist()} have 0): set it for the "
                           "whole job, or not at all.")
    return value == "1"


# ---------------------------------------------------------------------- describing
def _dtype_code(dtype) -> int:
    return _DTYPES.index(dtype)


def _scalar_type(code: int) -> str:
    """torch's C++ name of a dtype ('Float' for float32), as its messages print it."""
    return _DTYPES[code]._legacy_name.removesuffix("Tensor")


def _encode(dtype_code: int, shape) -> list[int]:
    """[dtype, ndim, dims...] padded to a fixed length."""
    return [dtype_code, len(shape), *shape] + [0] * (MAX_DIMS - len(shape))


def _decode_shape(row: np.ndarray, start: int) -> list[int]:
    """The shape stored by `_encode` at `row[start:]` (whose first entry is the dtype)."""
    return row[start + 2:start + 2 + int(row[start + 1])].tolist()


def _tensor_text(row: np.ndarray, start: int) -> str:
    return (f"TensorShape={_decode_shape(row, start)}, "
            f"TensorDtypes={_scalar_type(int(row[start]))}")


# ---------------------------------------------------------------------- collectives
_NO_TENSOR = -1  # the dtype code of a fingerprint without a tensor (barrier)
_FIRST_DIM = 5   # where a fingerprint holds dim 0 of the tensor's shape


@functools.lru_cache(maxsize=1024)  # a training loop repeats the same few collectives
def _fingerprint(what: str, root: int, op: int, dtype, shape: tuple) -> np.ndarray:
    """[operation, root, reduce op, dtype, ndim, dims...]; -1 where a field does not
    apply (read-only: it is shared by every call with the same arguments)."""
    code = _NO_TENSOR if dtype is None else _dtype_code(dtype)
    row = np.array([_KIND[what], root, op, *_encode(code, shape)], np.int64)
    row.flags.writeable = False
    return row


def _describe(row: np.ndarray) -> str:
    fields = [f"OpType={_OP_TYPES[row[0]]}"]
    if row[3] != _NO_TENSOR:
        fields.append(_tensor_text(row, 3))
    if row[1] >= 0:
        fields.append(f"Root={row[1]}")
    if row[2] >= 0:
        fields.append(f"ReduceOp={ReduceOp.RedOpType(row[2]).name}")
    return "CollectiveFingerPrint(" + ", ".join(fields) + ")"


def _all_gather_rows(pg, row: np.ndarray, what: str) -> np.ndarray:
    table = np.empty((pg.size(), row.size), np.int64)
    wait_requests([pg._comm.Iallgather(row, table)], pg._timeout, what)
    return table


def agree(pg, what: str, tensor=None, root: int = -1, op=None) -> bool:
    """Compare this rank's collective `what` on `tensor` (group root, reduce op) with the
    other ranks'; RuntimeError on every rank if any differs. False when nothing was
    exchanged (a group of one, or checks turned off)."""
    if pg.size() == 1 or not pg._checked:
        return False
    row = _fingerprint(what, root, -1 if op is None else int(op),
                       None if tensor is None else tensor.dtype,
                       () if tensor is None else tuple(tensor.shape))
    table = _all_gather_rows(pg, row, what)
    if table.tobytes() == row.tobytes() * pg.size():  # the common case, quickly
        return True
    unequal = table != row
    if what == "all_to_all_single":  # each rank may send a different number of rows
        unequal[:, _FIRST_DIM] = False
    differing = np.flatnonzero(unequal.any(axis=1))
    if differing.size:
        me, other = pg.rank(), int(differing[0])
        raise RuntimeError(f"{_MISMATCH} Rank {pg._ranks[me]} is running collective: "
                           f"{_describe(row)}, but Rank {pg._ranks[other]} is running "
                           f"collective: {_describe(table[other])}.\n{_HINT}")
    return True


def agree_splits(pg, input, input_splits: list[int], output_splits: list[int]) -> None:
    """all_to_all_single, after `agree`: rank i's input rows for rank j must be as many
    as rank j's output rows from rank i. Every rank sees the whole table, so all raise."""
    if pg.size() == 1 or not pg._checked:
        return
    n = pg.size()
    row = np.array(input_splits + output_splits, np.int64)
    table = _all_gather_rows(pg, row, "all_to_all_single")
    sends, receives = table[:, :n], table[:, n:]
    bad = np.argwhere(sends != receives.T)
    if bad.size:
        i, j = (int(k) for k in bad[0])
        rows = tuple(input.shape[1:])
        raise RuntimeError(
            f"{_MISMATCH} Rank {pg._ranks[i]} sends {sends[i, j]} rows to rank "
            f"{pg._ranks[j]} (input TensorShape={[int(sends[i].sum()), *rows]} split as "
            f"{sends[i].tolist()}), but Rank {pg._ranks[j]} expects {receives[j, i]} rows "
            f"from rank {pg._ranks[i]} (output TensorShape={[int(receives[j].sum()), *rows]}"
            f" split as {receives[j].tolist()}).\n{_HINT}")


# ---------------------------------------------------------------------- local checks
def same_dtypes(*tensors) -> None:
    """torch's check that the tensors of one call share a dtype (ValueError)."""
    first = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype != first:
            raise ValueError(f"Invalid usage of tensors with different dtypesFound {first} "
                             f"and  {t.dtype}")


def same_sizes(what: str, expected, tensors) -> None:
    """Each of `tensors` must have `expected`'s shape (the tensors of a list argument)."""
    def text(shape) -> str:  # as torch prints sizes: (4), (2, 3)
        return "(" + ", ".join(map(str, shape)) + ")"
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(expected.shape):
            raise RuntimeError(f"{what}: invalid tensor size at index {i} (expected "
                               f"{text(expected.shape)}, got {text(t.shape)})")


# ---------------------------------------------------------------------- send / recv
HEADER_SIZE = 2 + MAX_DIMS + 1  # [dtype, ndim, dims..., payload tag]


@functools.lru_cache(maxsize=1024)
def _tensor_code(dtype, shape: tuple) -> bytes:
    """A tensor's dtype and shape as the bytes a header carries (all but its tag)."""
    return np.array(_encode(_dtype_code(dtype), shape), np.int64).tobytes()


def send_header(tensor, payload_tag: int) -> np.ndarray:
    """What a send tells the receiver ahead of the payload: dtype, shape and the tag the
    payload travels under."""
    header = np.empty(HEADER_SIZE, np.int64)
    header[:-1] = np.frombuffer(_tensor_code(tensor.dtype, tuple(tensor.shape)), np.int64)
    header[-1] = payload_tag
    return header


def payload_tag(header: np.ndarray) -> int:
    return int(header[-1])


def payload_nbytes(header: np.ndarray) -> int:
    return _DTYPES[int(header[0])].itemsize * int(np.prod(_decode_shape(header, 0)))


def receive_mismatch(header: np.ndarray, tensor, sender: int, receiver: int) -> str | None:
    """The error message when the sent tensor (`header`) does not fit `tensor`, or None."""
    mine = _tensor_code(tensor.dtype, tuple(tensor.shape))
    if header[:-1].tobytes() == mine:
        return None
    mine = np.frombuffer(mine, np.int64)
    sent_bytes, my_bytes = payload_nbytes(header), tensor.numel() * tensor.dtype.itemsize
    opening = "Received data size doesn't match expected size" if sent_bytes != my_bytes \
        else "Received data doesn't match the receiving tensor"
    return (f"{opening}. Rank {sender} sent a tensor of {_tensor_text(header, 0)} "
            f"({sent_bytes} bytes), but rank {receiver} receives into "
            f"{_tensor_text(mine, 0)} ({my_bytes} bytes).\n"
            "ember: send and recv must use tensors of the same shape and dtype.")
