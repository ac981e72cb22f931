"""PyTorch's zip checkpoint container: writing aligned records and reading them back.

torch.save writes an uncompressed zip archive whose entries all live in one folder
(the archive name): `data.pkl` (the pickled object), `data/<key>` (one raw record per
storage), and a few small bookkeeping records. Each record's bytes start on a 64-byte
boundary so that a loader can memory-map them; torch pads the local header's extra
field ('FB' tag) to get there, and so does ember.
"""
from __future__ import annotations

import contextlib
import os
import struct
import zipfile
import zlib

import numpy as np

ALIGNMENT = 64
# The compression methods Python's zipfile reads (torch writes only the first).
READABLE_COMPRESSION = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2,
                        zipfile.ZIP_LZMA)
# Entry flags zipfile cannot read: encrypted (bit 0), patched data (5), strong encryption (6).
UNREADABLE_FLAGS = 0x1 | 0x20 | 0x40
_LOCAL_HEADER_SIZE = 30          # fixed part of a zip local file header
_ZIP64_EXTRA_SIZE = 20           # zipfile adds this to the header of a > 2 GiB record
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def archive_name(f) -> str:
    """The folder name torch uses inside the zip: the file's name without its last
    extension, or 'archive' for a file object (and for a name that would be empty)."""
    if not isinstance(f, (str, os.PathLike)):
        return "archive"
    name = os.path.splitext(os.path.basename(os.fspath(f)))[0]
    return name or "archive"


class ZipWriter:
    """Writes torch's records, in torch's order, into an open binary file object."""

    def __init__(self, fileobj, name: str):
        self._zip = zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED)
        self._prefix = name + "/"
        self._crc = 0

    def write_record(self, name: str, data) -> None:
        """Store `data` (bytes, or a uint8 array) as `<archive>/<name>`, 64-byte aligned."""
        data = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        info = zipfile.ZipInfo(self._prefix + name, date_time=_FIXED_TIME)
        info.file_size = len(data)
        zip64 = info.file_size * 1.05 > zipfile.ZIP64_LIMIT    # zipfile's own rule
        header = (_LOCAL_HEADER_SIZE + len(info.filename.encode("utf-8")) + 4
                  + (_ZIP64_EXTRA_SIZE if zip64 else 0))
        padding = -(self._zip.fp.tell() + header) % ALIGNMENT
        info.extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
        with self._zip.open(info, "w", force_zip64=zip64) as out:
            out.write(data)
        self._crc = zlib.crc32(data, self._crc)

    def __enter__(self) -> "ZipWriter":
        return self

    def __exit__(self, error_type, error, traceback) -> None:
        """After the last record: the closing records torch writes (format version,
        serialization id), then the zip's central directory. After a failed write (a full
        disk...) the archive is only closed: the save has failed already, and the error
        of a second write must neither hide the first nor print noise later."""
        if error_type is None:
            self.write_record("version", b"3\n")
            serial = f"{int.from_bytes(os.urandom(8), 'little'):020d}{self._crc:020d}"
            self.write_record(".data/serialization_id", serial.encode())
            self._zip.close()
        else:
            with contextlib.suppress(Exception):
                self._zip.close()


def record_prefix(archive: zipfile.ZipFile) -> str | None:
    """'<archive>/' when the zip holds a torch.save checkpoint (a `data.pkl` record in
    the folder of its first entry), else None."""
    names = archive.namelist()
    if not names or "/" not in names[0]:
        return None
    prefix = names[0].split("/", 1)[0] + "/"
    return prefix if prefix + "data.pkl" in names else None


def read_record(archive: zipfile.ZipFile, name: str, dtype: np.dtype, numel: int,
                mmap_path: str | None) -> np.ndarray:
    """The record `name` as a writable 1-D array of `numel` elements of `dtype`.

    With `mmap_path` the array maps the file copy-on-write instead of reading it, as
    torch.load(mmap=True) does: writes stay private to this process.
    """
    info = archive.getinfo(name)
    nbytes = numel * dtype.itemsize
    if info.file_size != nbytes:
        raise ValueError(f"record '{name}' holds {info.file_size} bytes, expected {nbytes}")
    if info.compress_type == zipfile.ZIP_STORED and info.header_offset + nbytes > archive.start_dir:
        # Checked before the array is allocated: the size may be a forged, huge one.
        raise ValueError(f"record '{name}' claims {nbytes} bytes, more than the archive holds")
    if mmap_path is not None and nbytes:
        if info.compress_type != zipfile.ZIP_STORED:
            raise ValueError(f"record '{name}' is compressed and cannot be memory-mapped")
        mapped = np.memmap(mmap_path, dtype=dtype, mode="c", offset=_data_offset(archive, info),
                           shape=(numel,))
        return mapped.view(np.ndarray)
    array = np.empty(numel, dtype)
    with archive.open(info) as src:
        if src.readinto(array.view(np.uint8)) != nbytes:
            raise ValueError(f"record '{name}' is truncated")
    return array


def _data_offset(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> int:
    """Where a record's bytes start in the file: after its local header, whose extra
    field (the alignment padding) may differ from the central directory's copy."""
    archive.fp.seek(info.header_offset)
    header = archive.fp.read(_LOCAL_HEADER_SIZE)
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    return info.header_offset + _LOCAL_HEADER_SIZE + name_len + extra_len
