import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(params=["numpy", "numba"])
def kernels(request):
    """Run the test once with each kernel implementation (ember/_cpu/kernels.py); the
    numba run is skipped where numba is not installed (CI installs it)."""
    import ember
    from ember._cpu import kernels as choice
    if request.param == "numba" and not choice.numba_available():
        pytest.skip("numba is not installed (the ember[fast] extra)")
    with ember.backends.cpu.flags(kernels=request.param):
        yield request.param
