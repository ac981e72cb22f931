"""safetensors files (Hugging Face's format: a JSON header, then raw tensor bytes).

Built on the `safetensors` package's NumPy API, imported only when used.
"""
from __future__ import annotations

import os

import numpy as np

from .._tensor import Tensor


def _numpy_api():
    try:
        import safetensors.numpy
    except ImportError:
        raise ImportError("ember's safetensors support needs the safetensors package: "
                          "pip install ember[safetensors]") from None
    return safetensors.numpy


def save_safetensors(tensors: dict, path: str | os.PathLike,
                     metadata: dict[str, str] | None = None) -> None:
    """Write a {name: Tensor} dict to a .safetensors file (non-contiguous tensors are
    stored compactly, as the format requires)."""
    arrays = {}
    for name, tensor in tensors.items():
        if not isinstance(tensor, Tensor):
            raise TypeError(f"save_safetensors: '{name}' is a {type(tensor).__name__}, "
                            "expected a Tensor")
        arrays[name] = np.array(tensor._data, order="C", copy=None)   # keeps zero-dim
    _numpy_api().save_file(arrays, os.fspath(path), metadata=metadata)


def load_safetensors(path: str | os.PathLike) -> dict[str, Tensor]:
    """Read every tensor of a .safetensors file into an ember tensor (CPU, own memory)."""
    arrays = _numpy_api().load_file(os.fspath(path))
    return {name: Tensor._wrap(np.array(array)) for name, array in arrays.items()}
