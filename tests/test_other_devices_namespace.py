"""torch.xpu and torch.mps as torch's CPU build on Linux answers them: no such device."""
import pytest
import torch

import ember
from oracle import check_error


@pytest.mark.parametrize("name", ["xpu", "mps"])
def test_device_pickers_get_no(name):
    for lib in (torch, ember):
        module = getattr(lib, name)
        assert module.is_available() is False
        assert module.device_count() == 0
        module.manual_seed(0)


def test_xpu_answers_as_torch():
    calls = ["is_initialized", "is_bf16_supported", "empty_cache", "seed", "memory_allocated",
             "max_memory_allocated", "manual_seed_all"]
    for call in calls:
        args = (0,) if call == "manual_seed_all" else ()
        assert getattr(ember.xpu, call)(*args) == getattr(torch.xpu, call)(*args), call


@pytest.mark.parametrize("call", ["synchronize", "current_device", "get_device_name",
                                  "get_rng_state"])
def test_xpu_device_queries_fail(call):
    check_error(lambda lib: getattr(lib.xpu, call)(), AssertionError,
                "^Torch not compiled with XPU enabled")


@pytest.mark.parametrize("call", ["empty_cache", "synchronize", "current_allocated_memory",
                                  "driver_allocated_memory", "recommended_max_memory", "seed",
                                  "get_rng_state"])
def test_mps_device_calls_fail(call):
    check_error(lambda lib: getattr(lib.mps, call)(), RuntimeError,
                r"^Cannot execute \w+\(\) without MPS backend\.$")
