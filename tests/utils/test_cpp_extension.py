"""ember.utils.cpp_extension: importable with torch's constants; builders are not implemented."""
import pytest
import torch.utils.cpp_extension as tc

import ember.utils.cpp_extension as ec


def test_constants_say_what_torch_says_on_a_cpu_machine():
    for name in ("CUDA_HOME", "ROCM_HOME", "IS_WINDOWS", "IS_MACOS", "IS_LINUX",
                 "IS_HIP_EXTENSION"):
        assert getattr(ec, name) == getattr(tc, name), name


@pytest.mark.parametrize("name", ["load", "load_inline", "CppExtension", "CUDAExtension",
                                  "BuildExtension", "include_paths", "library_paths"])
def test_builders_raise_not_implemented_naming_themselves(name):
    with pytest.raises(NotImplementedError, match=f"cpp_extension.{name}:"):
        getattr(ec, name)("ext", "int f() { return 0; }")
