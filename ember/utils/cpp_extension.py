"""torch.utils.cpp_extension: building C++/CUDA extensions against libtorch.

ember has no C++ library to compile against, so the builders raise NotImplementedError
naming themselves. The module and its constants exist because setup scripts and libraries
import them to decide whether an extension can be built (CUDA_HOME is None: no CUDA).
"""
from __future__ import annotations

import sys

__all__ = ["load", "load_inline", "CppExtension", "CUDAExtension", "BuildExtension",
           "include_paths", "library_paths", "CUDA_HOME", "ROCM_HOME"]

IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform.startswith("darwin")
IS_LINUX = sys.platform.startswith("linux")
IS_HIP_EXTENSION = False
CUDA_HOME = None
CUDNN_HOME = None
ROCM_HOME = None
HIP_HOME = None
SYCL_HOME = None


def _unsupported(name: str):
    def builder(*args, **kwargs):
        raise NotImplementedError(f"torch.utils.cpp_extension.{name}: ember cannot build C++ "
                                  "extensions (there is no libtorch to compile against).")
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = f"Not available in ember: calling {name} raises NotImplementedError."
    return builder


load = _unsupported("load")
load_inline = _unsupported("load_inline")
CppExtension = _unsupported("CppExtension")
CUDAExtension = _unsupported("CUDAExtension")
include_paths = _unsupported("include_paths")
library_paths = _unsupported("library_paths")


class BuildExtension:
    """setuptools' build_ext for torch extensions; not available in ember."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("torch.utils.cpp_extension.BuildExtension: ember cannot build "
                                  "C++ extensions (there is no libtorch to compile against).")

    @classmethod
    def with_options(cls, **options):
        return cls
