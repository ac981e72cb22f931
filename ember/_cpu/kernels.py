"""Which implementation the CPU kernels run: NumPy's (the reference, always there) or
numba's (the `ember[fast]` extra).

A kernel family is a module of plain functions on NumPy arrays, e.g.
`ember/_cpu/activation.py`; its compiled twin `ember/_cpu/numba/activation.py` defines
the same functions with the same contracts, so the NumPy file reads as the
specification of both. Callers ask for the family at call time:

    kernels.family("activation").gelu(x, approximate)

The choice is process-wide, like torch's backend flags: numba when it can be imported,
unless `EMBER_KERNELS=numpy` is set or `ember.backends.cpu.kernels = "numpy"`. Without
numba nothing imports it and the NumPy families run as before. Looking for numba does
not import it; the first numba family does, and if that import fails ember quietly
stays on NumPy.
"""
from __future__ import annotations

import importlib
import importlib.util
import os

CHOICES = ("numpy", "numba")
_PACKAGE = __name__.rpartition(".")[0]


def _default() -> str:
    wanted = os.environ.get("EMBER_KERNELS", "")
    if wanted not in ("",) + CHOICES:
        raise ValueError(f"EMBER_KERNELS must be one of {CHOICES}, not {wanted!r}")
    if wanted == "numpy" or importlib.util.find_spec("numba") is None:
        return "numpy"
    return "numba"


_choice = None                 # decided on first use, so importing ember reads no env
_families: dict = {}           # (choice, name) -> module


def current() -> str:
    """'numba' or 'numpy': the implementation kernel families resolve to now."""
    global _choice
    if _choice is None:
        _choice = _default()
    return _choice


def select(choice: str) -> None:
    """Use `choice` ('numpy' or 'numba') from now on."""
    global _choice
    if choice not in CHOICES:
        raise ValueError(f"kernels must be one of {CHOICES}, not {choice!r}")
    if choice == "numba" and not numba_available():
        raise RuntimeError("kernels = 'numba' needs numba, which is not installed: "
                           "pip install 'ember[fast]'")
    _choice = choice


def numba_available() -> bool:
    """Whether numba can be imported (looked up, not imported)."""
    return importlib.util.find_spec("numba") is not None


def family(name: str):
    """The module of kernel family `name` for the current choice."""
    choice = current()
    module = _families.get((choice, name))
    if module is None:
        module = _families[choice, name] = _load(choice, name)
    return module


def _load(choice: str, name: str):
    if choice == "numba":
        try:
            return importlib.import_module(f"{_PACKAGE}.numba.{name}")
        except ImportError:          # numba present but unusable (e.g. too old a NumPy)
            pass
    return importlib.import_module(f"{_PACKAGE}.{name}")
