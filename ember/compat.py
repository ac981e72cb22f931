"""The torch alias: make `import torch` and `import torchvision` give ember.

    >>> import ember.compat
    >>> ember.compat.install()
    >>> import torch                        # ember
    >>> import torch.nn.functional as F     # ember.nn.functional
    >>> from torchvision import transforms  # ember.vision.transforms

`install()` puts a finder at the front of `sys.meta_path` that answers for `torch`,
`torchvision` and all their submodules by importing the ember module of the same path
(`torch.X.Y` -> `ember.X.Y`, `torchvision.X` -> `ember.vision.X`) and registering that
very module object under the torch name, so `torch.nn.modules.module.Module is
ember.nn.Module`. A submodule ember lacks raises the usual ModuleNotFoundError, naming
the torch module and the ember module that would serve it. Mappings are resolved at
import time, so `torchvision` works as soon as `ember.vision` exists.

While installed, the finder also answers `importlib.metadata` for the distribution "torch"
(version "2.13.0+cpu", the release ember stands in for, see ember.version), so libraries
that ask the installed torch's version (`importlib.metadata.version("torch")`, as
accelerate and transformers do) see the torch that `import torch` gives them, whether or
not a real torch is installed beside ember.

The real torch and ember cannot share one process under the same name: `install()`
refuses with a RuntimeError when any `torch` or `torchvision` module is already
imported (the objects already handed out would be real torch's, and mixing the two
gives baffling type errors). `uninstall()` removes the finder and the aliases.

A process that multiprocessing starts with 'spawn' or 'forkserver' re-imports the main
script without the finder. `install()` therefore also puts a folder of two stand-in
modules, `torch` and `torchvision`, on sys.path (which such a process inherits): the
first `import torch` there installs the alias and hands back ember.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import sys

__all__ = ["install", "uninstall", "is_installed", "ALIASES", "ember_module_name",
           "torch_module_name"]

# torch's top-level package names and the ember packages that stand in for them.
ALIASES = {"torch": "ember", "torchvision": "ember.vision"}
# Modules named torch and torchvision that install the alias where the finder is absent:
# in processes started by multiprocessing's spawn, which inherit sys.path.
_ALIAS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_alias_path")


def ember_module_name(fullname: str) -> str | None:
    """The ember module serving the torch module `fullname` ('torch.nn' -> 'ember.nn',
    'torchvision.models' -> 'ember.vision.models'), or None for a non-torch name."""
    top, _, rest = fullname.partition(".")
    target = ALIASES.get(top)
    if target is None:
        return None
    return f"{target}.{rest}" if rest else target


def torch_module_name(fullname: str) -> str | None:
    """The torch module that the ember module `fullname` stands in for (the inverse of
    ember_module_name), or None for a module outside ember."""
    for torch_top, ember_top in sorted(ALIASES.items(), key=lambda item: -len(item[1])):
        if fullname == ember_top or fullname.startswith(ember_top + "."):
            return torch_top + fullname[len(ember_top):]
    return None


class _AliasLoader(importlib.abc.Loader):
    """Hands back the already-importable ember module instead of creating a new one."""

    def __init__(self, ember_name: str):
        self.ember_name = ember_name

    def create_module(self, spec):
        # importlib keeps the module's own __name__/__spec__ (it only fills missing ones).
        return importlib.import_module(self.ember_name)

    def exec_module(self, module) -> None:
        """The ember module ran when it was imported."""


class _TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        ember_name = ember_module_name(fullname)
        if ember_name is None:
            return None
        try:
            found = importlib.util.find_spec(ember_name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(f"No module named '{fullname}' (ember has no "
                                      f"'{ember_name}' to stand in for it)", name=fullname)
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(ember_name),
                                              is_package=found.submodule_search_locations
                                              is not None)
        return spec

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        """The "torch" distribution that ember stands in for (asked by name, or all)."""
        if context.name is None or context.name.lower().replace("-", "_") == "torch":
            yield _TorchDistribution()


class _TorchDistribution(importlib.metadata.Distribution):
    """Metadata of the torch release ember claims (importlib.metadata reads these files)."""

    def read_text(self, filename: str) -> str | None:
        from .version import __version__
        if filename == "METADATA":
            return (f"Metadata-Version: 2.1\nName: torch\nVersion: {__version__}\n"
                    "Summary: ember, standing in for torch\n")
        if filename == "top_level.txt":
            return "torch\n"
        return None

    def locate_file(self, path):
        return os.path.join(os.path.dirname(os.path.abspath(__file__)), str(path))


_FINDER = _TorchAliasFinder()


def _aliased_names() -> list:
    return [name for name in sys.modules if name.partition(".")[0] in ALIASES]


def is_installed() -> bool:
    return _FINDER in sys.meta_path


def install() -> None:
    """Make `import torch` / `import torchvision` (and their submodules) resolve to ember."""
    if is_installed():
        return
    real = sorted(_aliased_names())
    if real:
        raise RuntimeError(f"ember.compat.install(): '{real[0]}' is already imported in this "
                           f"process, so `import torch` cannot be redirected to ember. Call "
                           f"install() before anything imports torch, or run the script with "
                           f"`ember run script.py`.")
    sys.meta_path.insert(0, _FINDER)
    if _ALIAS_PATH not in sys.path:
        sys.path.insert(0, _ALIAS_PATH)


def uninstall() -> None:
    """Undo install(): forget the aliases so `import torch` finds the real torch again."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    if _ALIAS_PATH in sys.path:
        sys.path.remove(_ALIAS_PATH)
    for name in _aliased_names():
        module = sys.modules[name]
        if getattr(module, "__name__", "").partition(".")[0] == "ember":
            del sys.modules[name]
