"""save / load in PyTorch's checkpoint formats, safe loading by default, and safetensors.

`ember.save` writes the zip format torch.save writes (torch.load reads it, and sees
tensors that shared memory in ember sharing a storage); `ember.load` reads files written
by torch.save, zip or legacy, into ember tensors. By default `load` only unpickles
tensors, containers and plain values: a checkpoint cannot run code on your machine.
"""
from __future__ import annotations

import enum
import io
import os
import pickle
import socket
import stat
import struct
import sys
import warnings
import zipfile
from collections import Counter
from contextlib import contextmanager, suppress

import numpy as np

from .._device import check_device, device
from . import _pickling, _zip_format
from ._pickling import TorchPickler, TorchUnpickler, StorageTable, WeightsUnpicklerError
from ._pickle_scan import imported_globals
from ._safetensors import load_safetensors, save_safetensors

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint", "save_safetensors",
           "load_safetensors", "LoadEndianness", "get_default_load_endianness",
           "set_default_load_endianness"]

DEFAULT_PROTOCOL = 2
# The legacy (pre-1.6, non-zip) format opens with these two pickled numbers.
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
# Marks the temporary files of an atomic save (see _temporary_prefix).
_SAVE_MARK = ".ember-save-"


# ---------------------------------------------------------------- save
def save(obj, f, pickle_module=pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Save `obj` (tensors, state_dicts, any picklable object) to a path or a binary
    file object, in torch.save's format.

    Tensors, dtypes, devices and sizes are written under torch's names so real torch
    loads the file; other objects (ember modules...) are pickled under their ember
    names. Saving to a path is atomic: the data goes to a temporary file in the same
    folder, which replaces `f` only once complete.
    """
    if pickle_module is not pickle:
        raise NotImplementedError("ember.save: pickle_module other than the standard pickle "
                                  "module is not supported")
    legacy = not _use_new_zipfile_serialization

    def write(fileobj) -> None:
        if legacy:
            _save_legacy(obj, fileobj, pickle_protocol)
        else:
            _save_zip(obj, fileobj, _zip_format.archive_name(f), pickle_protocol,
                      not _disable_byteorder_record)

    if isinstance(f, (str, os.PathLike)):
        _write_atomically(os.fspath(f), write)
    elif hasattr(f, "write"):
        write(f)
    else:
        raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a "
                             f"'write' attribute, got {type(f).__name__}")


def _pickle_with_storages(obj, protocol: int, legacy: bool) -> tuple[bytes, dict]:
    storages = StorageTable(legacy)
    buffer = io.BytesIO()
    TorchPickler(buffer, protocol, storages).dump(obj)
    return buffer.getvalue(), storages.records


def _save_zip(obj, fileobj, name: str, protocol: int, byteorder_record: bool) -> None:
    data, records = _pickle_with_storages(obj, protocol, legacy=False)
    with _zip_format.ZipWriter(fileobj, name) as writer:
        writer.write_record("data.pkl", data)
        writer.write_record(".format_version", b"1")
        writer.write_record(".storage_alignment", str(_zip_format.ALIGNMENT).encode())
        if byteorder_record:
            writer.write_record("byteorder", sys.byteorder.encode())
        for key, flat in records.items():
            writer.write_record(f"data/{key}", flat.view(np.uint8))


def _save_legacy(obj, fileobj, protocol: int) -> None:
    """torch's pre-1.6 layout: three header pickles, the object, the list of storage
    keys, then each storage as its element count (int64) followed by its bytes."""
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        pickle.dump(header, fileobj, protocol=protocol)
    data, records = _pickle_with_storages(obj, protocol, legacy=True)
    fileobj.write(data)
    pickle.dump(list(records), fileobj, protocol=protocol)
    for flat in records.values():
        fileobj.write(np.int64(flat.size).tobytes())
        fileobj.write(flat.view(np.uint8).data)


def _write_atomically(path: str, write) -> None:
    """Run write(file) on a temporary file next to `path`, then move it into place.

    On any failure the temporary file is removed and an existing `path` is left intact.
    A symlink is followed: the file it points to is replaced and the link stays. The new
    file keeps the old one's permissions (and owner, where allowed). Temporary files that
    a killed save left behind next to the same target are removed first, but only those
    whose writing process is gone.
    """
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise RuntimeError(f"Parent directory {folder} does not exist.")
    _remove_stale_temporaries(path)
    temp = f"{_temporary_prefix(path)}{os.getpid()}{_SAVE_MARK}{os.urandom(4).hex()}"
    # os.open applies the umask to 0o666, so the result has the permissions a plain
    # open() would have given it.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            _copy_ownership(path, out.fileno())
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
    _sync_folder(folder)


def _temporary_prefix(path: str) -> str:
    """The temporary files of a save to `path` are hidden files beside it that name the
    target, the host and the writing process: '.model.pth.<host>.<pid>.ember-save-<random>'."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.{socket.gethostname()}.")


def _remove_stale_temporaries(path: str) -> None:
    """Remove the temporary files of earlier saves to `path` by processes of this host
    that no longer run. A live process's file (and any other host's) is never touched."""
    folder, prefix = os.path.split(_temporary_prefix(path))
    for entry in os.listdir(folder):
        pid, mark, _ = entry.removeprefix(prefix).partition(_SAVE_MARK)
        if entry.startswith(prefix) and mark and pid.isdigit() and not _process_exists(int(pid)):
            with suppress(OSError):          # another saver may have removed it first
                os.remove(os.path.join(folder, entry))


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:        # it exists, owned by someone else
        pass
    return True


def _copy_ownership(path: str, fd: int) -> None:
    """Give the new file the permission bits (and, where allowed, the owner and group) of
    the file it is about to replace, so re-saving a private checkpoint keeps it private."""
    try:
        old = os.stat(path)
    except FileNotFoundError:
        return
    os.fchmod(fd, stat.S_IMODE(old.st_mode))
    with suppress(PermissionError):    # only root may give a file away
        os.fchown(fd, old.st_uid, old.st_gid)


def _sync_folder(folder: str) -> None:
    """fsync the folder, so that the rename itself survives a power loss."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:              # platforms that cannot open a folder
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------- load
def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args):
    """Load an object saved with torch.save or ember.save; tensors come back as ember
    tensors (Parameters as ember.nn.Parameter), on the CPU.

    weights_only=True (the default) unpickles only tensors, containers, plain values and
    globals allowlisted with add_safe_globals; weights_only=False unpickles anything,
    which can run arbitrary code: use it only for files you trust. `map_location` may be
    None, 'cpu', an ember.device, a dict of locations or a callable(storage, location);
    tensors saved on a GPU load onto the CPU (with a warning unless mapped there).

    Left unset, weights_only is True unless a pickle_module is given; the environment
    variable TORCH_FORCE_WEIGHTS_ONLY_LOAD=1 forces it True even when passed, and
    TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 makes it False where the call leaves it unset (for
    programs written before torch 2.6 that load whole pickles without saying so).
    """
    weights_only = _weights_only_setting(weights_only, pickle_module)
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("ember.load: pickle_module other than the standard pickle "
                                  "module is not supported")
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    pickle_load_args.setdefault("encoding", "utf-8")
    restore = _LocationRestorer(map_location)
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    with _open_for_reading(f) as (stream, name):
        try:
            if zipfile.is_zipfile(stream):
                result = _load_zip(stream, name, restore, weights_only,
                                   os.fspath(f) if mmap else None, pickle_load_args)
            elif mmap:
                raise RuntimeError(
                    "mmap can only be used with files saved with `torch.save(_use_new_zipfile_"
                    "serialization=True), please torch.save your checkpoint with this option in "
                    "order to use mmap.")
            else:
                stream.seek(0)
                result = _load_legacy(stream, name, restore, weights_only, pickle_load_args)
        except WeightsUnpicklerError as e:
            raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
    restore.warn()
    return result


def _weights_only_setting(weights_only: bool | None, pickle_module) -> bool:
    """load's weights_only after its default and the TORCH_FORCE_* environment overrides."""
    def env_true(name: str) -> bool:
        return os.getenv(name, "0").lower() in ("1", "y", "yes", "true")

    force_on = env_true("TORCH_FORCE_WEIGHTS_ONLY_LOAD")
    force_off = env_true("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    if force_on and force_off:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force_on:
        return True
    if weights_only is None and force_off:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since "
                      "the `weights_only` argument was not explicitly passed to `torch.load`, "
                      "forcing weights_only=False.", UserWarning, stacklevel=3)
        return False
    return pickle_module is None if weights_only is None else weights_only


@contextmanager
def _open_for_reading(f):
    """(seekable binary stream, name for messages) for a path or a file object."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            yield stream, os.fspath(f)
        return
    if not hasattr(f, "read"):
        raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a "
                             f"'read' attribute, got {type(f).__name__}")
    name = getattr(f, "name", None)
    name = name if isinstance(name, str) else f"<{type(f).__name__}>"
    seekable = getattr(f, "seekable", None)
    yield (f if seekable is not None and seekable() else io.BytesIO(f.read())), name


def _not_a_checkpoint(name: str, detail: str) -> RuntimeError:
    return RuntimeError(
        f"ember.load: '{name}' is not a PyTorch checkpoint (expected a zip archive written by "
        f"torch.save or a legacy torch.save pickle); {detail}")


_DAMAGED = "the file may be truncated or corrupt"
# What a damaged pickle or zip raises while being read.
_CORRUPTION_ERRORS = (EOFError, pickle.UnpicklingError, zipfile.BadZipFile, ValueError,
                      KeyError, OSError, OverflowError, IndexError, struct.error)


def _damaged(name: str, kind: str, detail) -> RuntimeError:
    return RuntimeError(f"ember.load: '{name}' is a damaged {kind}: {detail}; {_DAMAGED}")


@contextmanager
def _reporting_damage(name: str, kind: str):
    """Turn what a damaged file makes the readers raise into one RuntimeError naming the
    file. A weights_only refusal and the endianness error pass through as they are."""
    try:
        yield
    except WeightsUnpicklerError:
        raise
    except _CORRUPTION_ERRORS as e:
        if isinstance(e, ValueError) and str(e).startswith("Unknown endianness type"):
            raise
        raise _damaged(name, kind, e) from e


def _load_zip(stream, name, restore, weights_only, mmap_path, pickle_load_args):
    archive, prefix = _open_archive(stream, name)
    with _reporting_damage(name, "PyTorch checkpoint"):
        swap = _byteswap_needed(archive, prefix, name)
    storages = {}

    def load_storage(pid):
        _, storage_type, key, location, numel = pid[:5]
        if key not in storages:
            dtype = _storage_dtype(storage_type)
            array = _zip_format.read_record(archive, f"{prefix}data/{key}", dtype.numpy,
                                            numel, mmap_path)
            storages[key] = restore(array.byteswap() if swap else array, location)
        return storages[key]

    with _reporting_damage(name, "PyTorch checkpoint"):
        with archive.open(prefix + "data.pkl") as data:
            return TorchUnpickler(io.BytesIO(data.read()), load_storage, weights_only,
                                  **pickle_load_args).load()


def _open_archive(stream, name: str) -> tuple[zipfile.ZipFile, str]:
    """The checkpoint's zip archive and the folder of its records, refusing archives that
    ember could misread: duplicate entry names (readers disagree on which copy counts),
    and compressed or encrypted entries of kinds Python cannot read."""
    try:
        archive = zipfile.ZipFile(stream)
    except (*_CORRUPTION_ERRORS, NotImplementedError) as e:   # e.g. "zip file version 14.8"
        raise _not_a_checkpoint(name, f"{_DAMAGED} ({e})") from e
    entries = archive.infolist()
    if len(archive.NameToInfo) != len(entries):
        twice = next(n for n, count in Counter(archive.namelist()).items() if count > 1)
        raise RuntimeError(f"ember.load: '{name}' holds two zip entries named '{twice}'; "
                           "a checkpoint holds one of each, so the file is damaged or crafted")
    for info in entries:
        if info.compress_type not in _zip_format.READABLE_COMPRESSION or \
                info.flag_bits & _zip_format.UNREADABLE_FLAGS:
            raise _damaged(name, "PyTorch checkpoint",
                           f"entry '{info.filename}' is compressed or encrypted in a way ember "
                           "cannot read")
    prefix = _zip_format.record_prefix(archive)
    if prefix is None:
        raise _not_a_checkpoint(name, "it is a zip archive without a data.pkl record (a "
                                      "TorchScript archive? ember cannot load those)")
    return archive, prefix


class LoadEndianness(enum.Enum):
    """The byte order to assume for a checkpoint without a `byteorder` record."""
    NATIVE = 1
    LITTLE = 2
    BIG = 3


_load_endianness = None     # set_default_load_endianness's choice (None: this machine's)


def get_default_load_endianness() -> LoadEndianness | None:
    """The byte order torch.load assumes for checkpoints that do not record theirs."""
    return _load_endianness


def set_default_load_endianness(endianness) -> None:
    """Make torch.load read checkpoints without a `byteorder` record in this byte order
    (a LoadEndianness, or None for this machine's)."""
    global _load_endianness
    if endianness is not None and not isinstance(endianness, LoadEndianness):
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _load_endianness = endianness


def _byteswap_needed(archive: zipfile.ZipFile, prefix: str, name: str) -> bool:
    """Whether the storages were written in the other byte order than this machine's:
    the `byteorder` record says 'little' or 'big' (no record: the order
    set_default_load_endianness chose, else this machine's)."""
    record = prefix + "byteorder"
    if record not in archive.NameToInfo:
        assumed = {LoadEndianness.LITTLE: "little", LoadEndianness.BIG: "big"}.get(
            _load_endianness, sys.byteorder)
        return assumed != sys.byteorder
    order = archive.read(record)
    if order not in (b"little", b"big"):
        raise ValueError(f"Unknown endianness type: {repr(order)[2:-1]} (the byteorder "
                         f"record of '{name}' must say 'little' or 'big')")
    return order.decode() != sys.byteorder


def _load_legacy(stream, name, restore, weights_only, pickle_load_args):
    def header():
        return TorchUnpickler(stream, _no_storage, True, **pickle_load_args).load()

    try:
        magic = header()
    except Exception as e:
        raise _not_a_checkpoint(name, _DAMAGED) from e
    if magic != MAGIC_NUMBER:
        raise _not_a_checkpoint(name, _DAMAGED)
    storages = {}
    file_size = _pickling.stream_size(stream)

    def load_storage(pid):
        _, storage_type, key, location, numel, view_metadata = pid
        if view_metadata is not None:
            raise NotImplementedError("ember.load: storage views of the pre-1.0 legacy "
                                      "format are not supported")
        if key not in storages:
            dtype = _storage_dtype(storage_type).numpy
            if numel * dtype.itemsize > file_size:
                raise pickle.UnpicklingError(f"storage {key} claims {numel * dtype.itemsize} "
                                             f"bytes, but the whole file holds {file_size}: "
                                             "the file is corrupt or hostile")
            # Filled from the file after the pickle, through the same array.
            storages[key] = restore(np.empty(numel, dtype), location)
        return storages[key]

    with _reporting_damage(name, "legacy PyTorch checkpoint"):
        if header() != PROTOCOL_VERSION:
            raise ValueError("unsupported legacy protocol version")
        header()                                        # sys_info
        result = TorchUnpickler(stream, load_storage, weights_only, **pickle_load_args).load()
        for key in header():
            array = storages[key]
            numel = int(np.frombuffer(stream.read(8), np.int64)[0])
            if numel != array.size or stream.readinto(array.view(np.uint8)) != array.nbytes:
                raise ValueError(f"storage {key} is truncated")
    return result


def _no_storage(pid):
    raise pickle.UnpicklingError("unexpected storage in a legacy header")


def _storage_dtype(storage_type):
    if not isinstance(storage_type, _pickling.StorageType):
        raise pickle.UnpicklingError(f"expected a storage type, got {storage_type!r:.60}")
    return storage_type.dtype


class _LocationRestorer:
    """restorer(storage array, saved location) -> the storage to use, per map_location.

    ember computes on the CPU only: a storage saved on a GPU loads onto the CPU, and
    `elsewhere` remembers its location so that load() can warn, unless map_location
    mapped it to the CPU. Mapping explicitly to a GPU fails as a CPU-only torch build does.
    """

    def __init__(self, map_location):
        if isinstance(map_location, (str, device)):
            check_device(map_location)
        elif isinstance(map_location, dict):
            for target in map_location.values():
                check_device(target)
        elif map_location is not None and not callable(map_location):
            raise TypeError(f"map_location should be None, a string, a torch.device, a dict "
                            f"or a callable, got {type(map_location).__name__}")
        self.map_location = map_location
        self.elsewhere = None          # the first non-CPU location left unmapped

    def __call__(self, storage: np.ndarray, location: str) -> np.ndarray:
        mapping = self.map_location
        if isinstance(mapping, (str, device)):
            return storage
        if isinstance(mapping, dict):
            location = mapping.get(location, location)
        elif callable(mapping):
            result = mapping(storage, location)
            if result is not None:
                return result._data.reshape(-1) if hasattr(result, "_data") else result
        if not str(location).startswith("cpu") and self.elsewhere is None:
            self.elsewhere = location
        return storage

    def warn(self) -> None:
        if self.elsewhere is not None:
            warnings.warn(f"ember.load: the checkpoint holds tensors saved on "
                          f"'{self.elsewhere}'; ember runs on the CPU and loaded them there. "
                          "Pass map_location='cpu' to silence this warning.", UserWarning,
                          stacklevel=3)


def _weights_only_message(error: str) -> str:
    return ("Weights only load failed. This file can still be loaded with "
            "`weights_only=False`, but do it only if you trust the source of the checkpoint: "
            "unpickling can run arbitrary code.\n\tWeightsUnpickler error: " + error)


# ---------------------------------------------------------------- safe globals
def add_safe_globals(safe_globals: list) -> None:
    """Allowlist functions/classes (or (object, 'full.name') pairs) for weights_only load."""
    _pickling._user_globals.extend(safe_globals)


def get_safe_globals() -> list:
    """The globals the user allowlisted for weights_only load."""
    return list(_pickling._user_globals)


def clear_safe_globals() -> None:
    """Forget every allowlisted global."""
    _pickling._user_globals.clear()


class safe_globals:
    """Context manager allowlisting `safe_globals` for weights_only load inside it."""

    def __init__(self, safe_globals: list):
        self.safe_globals = safe_globals

    def __enter__(self):
        _pickling._user_globals.extend(self.safe_globals)

    def __exit__(self, *exc) -> None:
        for entry in self.safe_globals:
            _pickling._user_globals.remove(entry)


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals in a zip checkpoint that weights_only load would refuse, found by
    reading its pickle without running it. Every opcode that can import is seen (GLOBAL,
    INST, STACK_GLOBAL); a pickle whose imports cannot be told statically raises
    pickle.UnpicklingError rather than passing for safe."""
    with _open_for_reading(f) as (stream, name):
        if not zipfile.is_zipfile(stream):
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        archive, prefix = _open_archive(stream, name)
        with _reporting_damage(name, "PyTorch checkpoint"):
            data = archive.read(prefix + "data.pkl")
    allowed = {**_pickling.PYTHON_GLOBALS, **_pickling.TORCH_GLOBALS, **_pickling.user_globals()}
    found = {".".join(_pickling.python3_name(module, attribute))
             for module, attribute in imported_globals(data)}
    return sorted(found - set(allowed))
