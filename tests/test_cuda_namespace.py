"""ember.cuda behaves like a CPU-only torch build's torch.cuda."""
import pytest

from oracle import check_error


@pytest.mark.parametrize("call", [lambda lib: lib.cuda.get_device_name(0),
                                  lambda lib: lib.cuda.get_device_properties(0),
                                  lambda lib: lib.cuda.current_device(),
                                  lambda lib: lib.zeros(2, device="cuda"),
                                  lambda lib: lib.ones(2).cuda()])
def test_gpu_queries_fail_as_on_a_cpu_build(call):
    check_error(call, AssertionError, r"^Torch not compiled with CUDA enabled")


def test_cuda_legacy_types_fail_on_construction():
    check_error(lambda lib: lib.cuda.FloatTensor(2), TypeError,
                r"^type torch.cuda.FloatTensor not available. Torch not compiled with CUDA "
                r"enabled.")


def test_cuda_answers_no():
    import torch
    import ember
    for lib in (torch, ember):
        assert lib.cuda.is_available() is False
        assert lib.cuda.device_count() == 0
        assert lib.cuda.memory_allocated() == 0
        lib.cuda.manual_seed(0)
        lib.cuda.manual_seed_all(0)


def test_cuda_event_and_stream_fail_on_construction():
    """aladdinpersson's dtype benchmark times matmuls with torch.cuda.Event(enable_timing=True);
    on a CPU build the name exists and making one raises."""
    check_error(lambda lib: lib.cuda.Event(enable_timing=True), RuntimeError,
                "^Tried to instantiate dummy base class Event$")
    check_error(lambda lib: lib.cuda.Stream(), RuntimeError,
                "^torch.cuda.Stream requires CUDA support$")
