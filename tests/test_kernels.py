"""The kernel switch (ember/_cpu/kernels.py, ember.backends.cpu.kernels): NumPy's kernels or
numba's, chosen without importing numba until a numba kernel family is used."""
import os
import subprocess
import sys

import pytest

import ember
from ember._cpu import kernels

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT, **env}, timeout=120)


def test_the_default_is_numba_when_it_is_installed():
    assert ember.backends.cpu.kernels == ("numba" if kernels.numba_available() else "numpy")


def test_flags_switch_for_a_block_and_restore():
    before = ember.backends.cpu.kernels
    with ember.backends.cpu.flags(kernels="numpy"):
        assert ember.backends.cpu.kernels == "numpy" and kernels.current() == "numpy"
    assert ember.backends.cpu.kernels == before


def test_assignment_and_bad_values():
    before = ember.backends.cpu.kernels
    try:
        ember.backends.cpu.kernels = "numpy"
        assert kernels.current() == "numpy"
        with pytest.raises(ValueError, match=r"kernels must be one of \('numpy', 'numba'\), "
                                             r"not 'cuda'"):
            ember.backends.cpu.kernels = "cuda"
        assert kernels.current() == "numpy"
    finally:
        ember.backends.cpu.kernels = before


def test_the_switch_is_not_in_torchs_all():
    assert ember.backends.cpu.__all__ == ["get_cpu_capability"]


def test_environment_variable_chooses_numpy():
    out = _python("import ember; print(ember.backends.cpu.kernels)", EMBER_KERNELS="numpy")
    assert out.stdout.strip() == "numpy", out.stderr


def test_a_bad_environment_variable_is_named_on_first_use():
    out = _python("import ember; ember.backends.cpu.kernels", EMBER_KERNELS="fast")
    assert "EMBER_KERNELS must be one of ('numpy', 'numba'), not 'fast'" in out.stderr


def test_without_numba_nothing_imports_it_and_numpy_runs():
    code = ("import sys; sys.modules['numba'] = None\n"          # as if not installed
            "import ember\n"
            "x = ember.randn(4, 8, requires_grad=True)\n"
            "ember.nn.functional.gelu(ember.nn.functional.layer_norm(x, (8,))).sum().backward()\n"
            "print(ember.backends.cpu.kernels, 'numba' in sys.modules and sys.modules['numba'])\n"
            "try:\n"
            "    ember.backends.cpu.kernels = 'numba'\n"
            "except RuntimeError as e:\n"
            "    print(e)\n")
    out = _python(code)
    lines = out.stdout.splitlines()
    assert lines[0] == "numpy None", out.stderr
    assert lines[1] == ("kernels = 'numba' needs numba, which is not installed: "
                        "pip install 'ember[fast]'")


def test_importing_ember_does_not_import_numba():
    out = _python("import sys, ember; print('numba' in sys.modules)")
    assert out.stdout.strip() == "False", out.stderr


def test_the_kernels_fixture_switches_the_implementation(kernels):
    assert ember.backends.cpu.kernels == kernels
