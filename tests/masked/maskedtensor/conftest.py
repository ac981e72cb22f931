import warnings

import pytest
import torch

import ember
from oracle import assert_same


def _compare(e, t, atol):
    if isinstance(t, torch.masked.MaskedTensor):
        assert isinstance(e, ember.masked.MaskedTensor), f"expected a MaskedTensor, got {type(e)}"
        assert_same(e.get_data().detach(), t.get_data().detach(), atol, atol, "data")
        assert_same(e.get_mask(), t.get_mask(), 0, 0, "mask")
        assert repr(e) == repr(t)
    elif isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for ei, ti in zip(e, t):
            _compare(ei, ti, atol)
    else:
        assert_same(e, t, atol, atol)


@pytest.fixture
def same_masked():
    """same_masked(fn): fn(lib) gives equal results on torch and ember, MaskedTensors
    compared by data (masked-out elements included), mask and repr (torch's prototype
    warnings ignored)."""
    def run(fn, atol=1e-6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e, t = fn(ember), fn(torch)
        _compare(e, t, atol)
        return e
    return run
