"""torch.hub: a cache of downloaded weights and of repositories with a hubconf.py.

The cache lives in $TORCH_HOME/hub ($TORCH_HOME defaults to $XDG_CACHE_HOME/torch, and that
to ~/.cache/torch), unless set_dir chose another place. Downloads go through urllib with a
timeout, so an offline machine gets a urllib error instead of a hang.
"""
from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import zipfile
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load",
           "load_state_dict_from_url", "set_dir"]

# "resnet18-5c106cde.pth": the digits after the last "-" start the file's SHA-256.
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
DOWNLOAD_TIMEOUT = 30.0     # seconds without an answer before urllib gives up
_CHUNK = 128 * 1024
_hub_dir: str | None = None


def _torch_home() -> str:
    cache = os.getenv("XDG_CACHE_HOME", "~/.cache")
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch")))


def get_dir() -> str:
    """The hub cache directory: set_dir's choice, else $TORCH_HOME/hub."""
    return _hub_dir if _hub_dir is not None else os.path.join(_torch_home(), "hub")


def set_dir(d: str | os.PathLike) -> None:
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None,
                         progress: bool = True) -> None:
    """Save `url` to `dst` (through a temporary file, so `dst` never holds half a download);
    with hash_prefix, the file's SHA-256 must start with it."""
    dst = os.path.expanduser(dst)
    sha256 = hashlib.sha256()
    folder = os.path.dirname(os.path.abspath(dst))
    with tempfile.NamedTemporaryFile(dir=folder, suffix=".partial", delete=False) as partial:
        try:
            request = Request(url, headers={"User-Agent": "torch.hub"})
            with urlopen(request, timeout=DOWNLOAD_TIMEOUT) as response:
                while chunk := response.read(_CHUNK):
                    partial.write(chunk)
                    sha256.update(chunk)
            partial.close()
            digest = sha256.hexdigest()
            if hash_prefix is not None and not digest.startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                                   f'"{digest}")')
            shutil.move(partial.name, dst)
        finally:
            if os.path.exists(partial.name):
                os.remove(partial.name)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None,
                             progress: bool = True, check_hash: bool = False,
                             file_name: str | None = None, weights_only: bool = False):
    """ember.load of the file at `url`, downloaded into model_dir (default
    get_dir()/checkpoints) unless a file of that name is already there."""
    from . import load as load_file
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached_file, match.group(1) if match else None, progress)
    if _is_legacy_zip(cached_file):
        raise NotImplementedError("load_state_dict_from_url: checkpoints zipped in the pre-1.6 "
                                  "format are not supported by ember; unzip the file first")
    return load_file(cached_file, map_location=map_location, weights_only=weights_only)


def _is_legacy_zip(path: str) -> bool:
    """A zip holding one plain file (the old way of shipping a checkpoint), not torch.save's
    own zip format."""
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
    return len(members) == 1 and not members[0].is_dir()


# ---------------------------------------------------------------- hubconf.py entry points
@contextlib.contextmanager
def _importable_from(path: str):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _hubconf(repo_dir: str):
    """Import repo_dir/hubconf.py (with repo_dir importable, as its own imports expect)."""
    path = os.path.join(repo_dir, "hubconf.py")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    with _importable_from(repo_dir):
        spec.loader.exec_module(module)
    return module


def _entry_point(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    missing = [name for name in getattr(module, "dependencies", [])
               if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    entry = getattr(module, model, None)
    if entry is None or not callable(entry):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return entry


def _repo_dir(repo_or_dir: str, source: str, force_reload: bool, trust_repo,
              verbose: bool) -> str:
    """The local directory holding the repository's hubconf.py."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    return repo_or_dir if source == "local" else \
        _github_checkout(repo_or_dir, force_reload, trust_repo, verbose)


def _github_checkout(github: str, force_reload: bool, trust_repo, verbose: bool) -> str:
    """Download (or reuse from the cache) the zip of github's "owner/name[:ref]"."""
    if trust_repo is not True:
        raise NotImplementedError(f"trust_repo={trust_repo!r}: ember does not keep torch's "
                                  "list of trusted repositories; pass trust_repo=True")
    repo, _, ref = github.partition(":")
    owner, _, name = repo.partition("/")
    ref = ref or "main"
    repo_dir = os.path.join(get_dir(), f"{owner}_{name}_{ref.replace('/', '_')}")
    if os.path.isdir(repo_dir) and not force_reload:
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    os.makedirs(get_dir(), exist_ok=True)
    archive = repo_dir + ".zip"
    download_url_to_file(f"https://github.com/{owner}/{name}/zipball/{ref}", archive,
                         progress=False)
    shutil.rmtree(repo_dir, ignore_errors=True)
    with zipfile.ZipFile(archive) as zipped:
        top = zipped.namelist()[0].split("/")[0]
        zipped.extractall(get_dir())
    os.remove(archive)
    shutil.move(os.path.join(get_dir(), top), repo_dir)
    return repo_dir


def list(github: str, force_reload: bool = False, skip_validation: bool = False,
         trust_repo="check", verbose: bool = True, *, source: str = "github") -> builtins.list:
    """The public callables of a repository's hubconf.py (source='local': a directory)."""
    module = _hubconf(_repo_dir(github, source, force_reload, trust_repo, verbose))
    return [name for name in dir(module)
            if callable(getattr(module, name)) and not name.startswith("_")]


def help(github: str, model: str, force_reload: bool = False, skip_validation: bool = False,
         trust_repo="check", *, source: str = "github"):
    """The docstring of entry point `model`."""
    module = _hubconf(_repo_dir(github, source, force_reload, trust_repo, True))
    return _entry_point(module, model).__doc__


def load(repo_or_dir: str, model: str, *args, source: str = "github", trust_repo="check",
         force_reload: bool = False, verbose: bool = True, skip_validation: bool = False,
         **kwargs):
    """Call entry point `model` of a repository's hubconf.py with *args and **kwargs."""
    repo_dir = _repo_dir(repo_or_dir, source, force_reload, trust_repo, verbose)
    module = _hubconf(repo_dir)
    with _importable_from(repo_dir):
        return _entry_point(module, model)(*args, **kwargs)
