"""Collectives on picklable Python objects: each object is pickled into a byte array,
the byte counts are exchanged first, then the bytes (torch's way; like torch, these
unpickle whatever the other processes send, so use them only among trusted processes)."""
from __future__ import annotations

import pickle

import numpy as np

from . import _checks
from .distributed_c10d import _member, _peer
from ._mpi import wait_requests


def _to_bytes(obj) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), np.uint8)


def _from_bytes(data: np.ndarray):
    return pickle.loads(data.tobytes())


def _wait(pg, request, what: str) -> None:
    wait_requests([request], pg._timeout, what)


def _gathered_counts(pg, data: np.ndarray, what: str) -> np.ndarray:
    counts = np.empty(pg.size(), np.int64)
    _wait(pg, pg._comm.Iallgather(np.array([data.size], np.int64), counts), what)
    return counts


def _split(flat: np.ndarray, counts: np.ndarray) -> list:
    offsets = np.concatenate([[0], np.cumsum(counts)])
    return [_from_bytes(flat[offsets[i]:offsets[i + 1]]) for i in range(len(counts))]


def all_gather_object(object_list: list, obj, group=None) -> None:
    """`object_list[i]` becomes process i's `obj`."""
    pg = _member(group, "all_gather_object")
    if pg is None:
        return
    _checks.agree(pg, "all_gather_object")
    data = _to_bytes(obj)
    counts = _gathered_counts(pg, data, "all_gather_object")
    flat = np.empty(int(counts.sum()), np.uint8)
    _wait(pg, pg._comm.Iallgatherv(data, [flat, counts.tolist()]), "all_gather_object")
    object_list[:pg.size()] = _split(flat, counts)


def gather_object(obj, object_gather_list: list | None = None, dst: int | None = None,
                  group=None, group_dst: int | None = None) -> None:
    """On process `dst`, `object_gather_list[i]` becomes process i's `obj`."""
    pg = _member(group, "gather_object")
    if pg is None:
        return
    root = _peer(pg, dst, group_dst, default=0)
    _checks.agree(pg, "gather_object", root=root)
    data = _to_bytes(obj)
    counts = _gathered_counts(pg, data, "gather_object")
    if pg.rank() != root:
        _wait(pg, pg._comm.Igatherv(data, None, root=root), "gather_object")
        return
    if object_gather_list is None:
        raise ValueError("Argument ``object_gather_list`` must be specified on destination "
                         "rank.")
    flat = np.empty(int(counts.sum()), np.uint8)
    _wait(pg, pg._comm.Igatherv(data, [flat, counts.tolist()], root=root), "gather_object")
    object_gather_list[:pg.size()] = _split(flat, counts)


def broadcast_object_list(object_list: list, src: int | None = None, group=None, device=None,
                          group_src: int | None = None) -> None:
    """Replace `object_list`'s entries with those of process `src` (equal lengths)."""
    pg = _member(group, "broadcast_object_list")
    if pg is None:
        return
    root = _peer(pg, src, group_src)
    _checks.agree(pg, "broadcast_object_list", root=root)
    is_root = pg.rank() == root
    data = _to_bytes(list(object_list)) if is_root else None
    count = np.array([data.size if is_root else 0], np.int64)
    _wait(pg, pg._comm.Ibcast(count, root=root), "broadcast_object_list")
    if not is_root:
        data = np.empty(int(count[0]), np.uint8)
    _wait(pg, pg._comm.Ibcast(data, root=root), "broadcast_object_list")
    if not is_root:
        received = _from_bytes(data)
        for i in range(min(len(object_list), len(received))):
            object_list[i] = received[i]


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list=None,
                        src: int | None = None, group=None,
                        group_src: int | None = None) -> None:
    """Process i receives `scatter_object_input_list[i]` of process `src` as
    `scatter_object_output_list[0]`."""
    pg = _member(group, "scatter_object_list")
    if pg is None:
        return
    if not isinstance(scatter_object_output_list, list) or not scatter_object_output_list:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size "
                         "at least 1.")
    root = _peer(pg, src, group_src)
    _checks.agree(pg, "scatter_object_list", root=root)
    inputs = [_to_bytes(obj) for obj in scatter_object_input_list] if pg.rank() == root \
        else None
    counts = np.array([x.size for x in inputs], np.int64) if inputs else None
    count = np.empty(1, np.int64)
    _wait(pg, pg._comm.Iscatter(counts, count, root=root), "scatter_object_list")
    data = np.empty(int(count[0]), np.uint8)
    send = [np.concatenate(inputs), counts.tolist()] if inputs else None
    _wait(pg, pg._comm.Iscatterv(send, data, root=root), "scatter_object_list")
    scatter_object_output_list[0] = _from_bytes(data)


__all__ = ["all_gather_object", "gather_object", "broadcast_object_list",
           "scatter_object_list"]
