"""Build crafted and damaged checkpoints for the hardening tests: a real checkpoint's
records, rewritten one at a time, in a zip laid out as torch lays it out."""
from __future__ import annotations

import io
import zipfile

import ember
from ember.serialization import _zip_format


def records(data: bytes) -> dict[str, bytes]:
    """{record name without the archive folder: bytes} of a zip checkpoint."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename.split("/", 1)[1]: archive.read(info)
                for info in archive.infolist()}


def rebuild(recs: dict[str, bytes], extra: list[tuple[str, bytes]] = ()) -> bytes:
    """A zip checkpoint holding `recs` (and `extra` entries appended as they are, even
    under a name already used), aligned as torch aligns it."""
    out = io.BytesIO()
    closing = {"version", ".data/serialization_id"}        # the writer adds these itself
    with _zip_format.ZipWriter(out, "archive") as writer:
        for name, value in recs.items():
            if name not in closing:
                writer.write_record(name, value)
        for name, value in extra:
            writer.write_record(name, value)
    return out.getvalue()


def saved(obj) -> bytes:
    buffer = io.BytesIO()
    ember.save(obj, buffer)
    return buffer.getvalue()


def with_record(obj, name: str, value: bytes) -> bytes:
    """A checkpoint of `obj` whose record `name` is replaced by `value`."""
    recs = records(saved(obj))
    recs[name] = value
    return rebuild(recs)
