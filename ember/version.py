"""torch.version: the build facts of the torch release ember stands in for.

ember claims to be the CPU build of torch 2.13.0, so `__version__` is "2.13.0+cpu", the
string torch's CPU wheel reports: version checks written for torch (`>= "2.0"`,
`packaging.version.parse(...)`, `"+cu" in torch.__version__`) see a CPU-only torch 2.13, and
`cuda`, `hip`, `rocm` and `xpu` are None as there. ember's own release number is
`ember_version`; `ember --version` prints it.
"""
from __future__ import annotations

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

__version__ = "2.13.0+cpu"
debug = False                  # a release build
cuda: str | None = None        # no CUDA toolkit
git_version = "Unknown"        # torch's own answer when built outside a git checkout
hip: str | None = None
rocm: str | None = None
xpu: str | None = None

ember_version = "0.1.0"        # ember's own release (pyproject.toml's version)
