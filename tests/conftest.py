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


@pytest.fixture(autouse=True)
def torch_validates_distributions_again():
    """torch's dynamo, once a test sets it up (torch.compile, torch._dynamo.optimize),
    turns torch.distributions' argument validation off for the whole process; tests that
    ran later in the same worker compared ember's validation against that."""
    import torch
    default = torch.distributions.Distribution._validate_args
    yield
    if torch.distributions.Distribution._validate_args != default:
        torch.distributions.Distribution.set_default_validate_args(default)
