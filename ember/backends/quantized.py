"""torch.backends.quantized: the engine behind quantized kernels (fbgemm, qnnpack, x86 ...).

ember has no quantized kernels, so no engine is supported: `engine` reads "none" and
`supported_engines` is ["none"]; choosing a real engine raises torch's error for an engine
the build lacks.
"""
from __future__ import annotations

import sys
import types

_ENGINES = ("none", "fbgemm", "qnnpack", "onednn", "x86")
_SUPPORTED = ["none"]


class _QuantizedModule(types.ModuleType):
    @property
    def engine(self) -> str:
        """The quantized engine in use: "none"."""
        return "none"

    @engine.setter
    def engine(self, name: str) -> None:
        if name in ("", None):
            name = "none"
        if name not in _ENGINES:
            raise RuntimeError(f"{name} is not a valid value for quantized engine")
        if name not in _SUPPORTED:
            raise RuntimeError(f"quantized engine {name.upper()} is not supported")

    @property
    def supported_engines(self) -> list:
        """The engines this build can use: only "none"."""
        return list(_SUPPORTED)

    @supported_engines.setter
    def supported_engines(self, value) -> None:
        raise RuntimeError("Assignment not supported")


sys.modules[__name__].__class__ = _QuantizedModule
