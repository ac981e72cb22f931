"""Shared-memory segments: the memory under shared storages (Tensor.share_memory_ and
tensors passed between processes by ember.multiprocessing).

A segment is a MAP_SHARED mapping of a memory file, so a forked child writes the same
pages as its parent, and another process maps the same memory from a handle. How that
handle travels is torch's sharing strategy:

- "file_descriptor" (the default): an anonymous memory file (memfd); the handle is a
  duplicate of its descriptor, sent over a Unix socket. Nothing has a name, so nothing
  can be left behind: the memory goes with the last mapping and descriptor.
- "file_system": a named POSIX shared-memory file (/dev/shm/ember_...), opened by name.
  The creating process removes the name when its last user of the segment is gone, or
  at exit once the segment has been sent (a receiver may open it later); the name is
  registered with multiprocessing's resource tracker, which removes it if the process
  is killed.

A segment's bytes are seen as a NumPy array (`shared_bytes`); every array over them keeps
the mapping alive, and the mapping is closed with the last one.
"""
from __future__ import annotations

import itertools
import mmap
import os
import secrets
import weakref
from multiprocessing.util import Finalize

import numpy as np

SHARING_STRATEGIES = ("file_descriptor", "file_system")
_strategy = {"name": "file_descriptor"}
_names = itertools.count()


class Segment(mmap.mmap):
    """A shared mapping under a storage; `fd` (its memory file's descriptor, kept open to
    hand out duplicates) or `name` (its /dev/shm name) lets other processes map it."""
    fd: int | None = None
    name: str | None = None


def get_sharing_strategy() -> str:
    """The current strategy for sharing tensors between processes."""
    return _strategy["name"]


def set_sharing_strategy(new_strategy: str) -> None:
    """Set how tensors are shared between processes: 'file_descriptor' or 'file_system'."""
    if new_strategy not in SHARING_STRATEGIES:
        raise AssertionError(f"invalid sharing strategy '{new_strategy}', expected one of "
                             f"{set(SHARING_STRATEGIES)}")
    _strategy["name"] = new_strategy


# Each memory file is mapped once per process: a tensor that comes back, or several sent
# together, land on the segment already there (so on the same storage).
_mapped: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # file id -> segment


def _with_fd(fd: int, nbytes: int) -> Segment:
    """A segment over memory file `fd`, which it then owns (closed with the mapping)."""
    segment = Segment(fd, nbytes)
    segment.fd = fd
    weakref.finalize(segment, os.close, fd)
    _mapped[_file_id(fd)] = segment
    return segment


def _memory_file() -> int:
    """A descriptor of a new, nameless memory file."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("ember-shared", os.MFD_CLOEXEC)
    import _posixshmem   # elsewhere: a POSIX shm file whose name is removed at once
    name = f"/ember_{os.getpid()}_{secrets.token_hex(8)}"
    fd = _posixshmem.shm_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, mode=0o600)
    _posixshmem.shm_unlink(name)
    return fd


def _unlink(name: str) -> None:
    import _posixshmem
    from multiprocessing import resource_tracker
    try:
        _posixshmem.shm_unlink(name)
    except FileNotFoundError:
        pass
    resource_tracker.unregister(name, "shared_memory")


def _named(nbytes: int) -> Segment:
    import _posixshmem
    from multiprocessing import resource_tracker
    name = f"/ember_{os.getpid()}_{next(_names)}_{secrets.token_hex(4)}"
    fd = _posixshmem.shm_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, mode=0o600)
    resource_tracker.register(name, "shared_memory")
    try:
        os.ftruncate(fd, nbytes)
        segment = Segment(fd, nbytes)
    except BaseException:
        _unlink(name)
        raise
    finally:
        os.close(fd)
    segment.name = name
    _mapped[name] = segment
    # multiprocessing's Finalize, unlike weakref.finalize, also runs at the exit of a
    # forked child (which leaves through os._exit), and only in the creating process
    segment.unlinker = Finalize(segment, _unlink, args=(name,), exitpriority=0)
    return segment


def new_segment(nbytes: int) -> Segment:
    """A new zero-filled segment of `nbytes` (at least one: a mapping cannot be empty),
    made by the current sharing strategy."""
    nbytes = max(nbytes, 1)
    if _strategy["name"] == "file_system":
        return _named(nbytes)
    fd = _memory_file()
    try:
        os.ftruncate(fd, nbytes)
        return _with_fd(fd, nbytes)
    except BaseException:
        os.close(fd)
        raise


def shared_bytes(segment: Segment, nbytes: int) -> np.ndarray:
    """The first `nbytes` of `segment` as a 1-D uint8 array (which keeps it mapped)."""
    return np.frombuffer(segment, np.uint8)[:nbytes]


def segment_of(array: np.ndarray) -> Segment | None:
    """The segment whose memory `array` views, or None for private memory."""
    obj = array
    while obj is not None and not isinstance(obj, Segment):
        # ndarrays (and as_strided's holders) name their base; a memoryview its object
        obj = obj.obj if isinstance(obj, memoryview) else getattr(obj, "base", None)
    return obj


# ---- handles: how a segment is named to another process

_sent_named: set = set()    # file_system segments sent away: kept (and named) until exit


def keep_for_receivers(segment: Segment) -> None:
    """A file_system segment's name must outlive this process's own use of it, as a
    receiver may open it later: keep the segment until exit."""
    if segment.name is not None and getattr(segment, "unlinker", None) is not None:
        _sent_named.add(segment)


def open_fd(fd: int, nbytes: int) -> Segment:
    """The segment over received memory file `fd` (taken over, or closed when the file
    is mapped here already)."""
    segment = _mapped.get(_file_id(fd))
    if segment is not None:
        os.close(fd)
        return segment
    return _with_fd(fd, nbytes)


def open_named(name: str, nbytes: int) -> Segment:
    """The segment of the file_system name `name`."""
    import _posixshmem
    segment = _mapped.get(name)
    if segment is not None:
        return segment
    fd = _posixshmem.shm_open(name, os.O_RDWR, mode=0o600)
    try:
        segment = Segment(fd, nbytes)
    finally:
        os.close(fd)
    segment.name = name
    _mapped[name] = segment
    return segment


def _file_id(fd: int) -> tuple:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino
