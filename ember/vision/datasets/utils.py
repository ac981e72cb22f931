"""File helpers for the datasets; ember never downloads (the machine may be offline), so
download=True explains which files to fetch and where to put them instead."""
from __future__ import annotations

import hashlib
import os

from .. import _unavailable


def calculate_md5(fpath: str, chunk_size: int = 1024 * 1024) -> str:
    md5 = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            md5.update(chunk)
    return md5.hexdigest()


def check_integrity(fpath: str, md5: str | None = None) -> bool:
    """The file exists and, when md5 is given, has that checksum."""
    if not os.path.isfile(fpath):
        return False
    return md5 is None or calculate_md5(fpath) == md5


def _listing(paths: list) -> str:
    return "\n".join(f"  {p}" for p in paths)


def no_download(name: str, folder: str, files: list, urls: list) -> RuntimeError:
    """The error download=True raises when the files are missing."""
    return RuntimeError(
        f"ember cannot download {name}: it never accesses the network. Fetch\n"
        f"{_listing(urls)}\nelsewhere, then place these files under {folder} (extract an "
        f"archive; [.gz] files may stay compressed):\n{_listing(files)}")


def not_found(message: str, folder: str, files: list) -> RuntimeError:
    """torchvision's 'not found' message plus where ember looked."""
    return RuntimeError(f"{message}. ember looked for these files under {folder}:\n"
                        f"{_listing(files)}")


# torchvision names ember does not implement: importable, NotImplementedError when used
_UNAVAILABLE = ["check_md5", "download_url", "list_dir", "list_files",
                "download_file_from_google_drive", "extract_archive",
                "download_and_extract_archive", "iterable_to_str", "verify_str_arg"]
globals().update(_unavailable.stand_ins(__name__, _UNAVAILABLE))
