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


@pytest.mark.parametrize("name", ["initial_seed", "get_rng_state", "ipc_collect", "init",
                                  "default_stream", "get_sync_debug_mode",
                                  "current_blas_handle"])
def test_more_gpu_queries_fail_as_on_a_cpu_build(name):
    check_error(lambda lib: getattr(lib.cuda, name)(), AssertionError,
                r"^Torch not compiled with CUDA enabled")


def test_checkpoint_and_memory_helpers_run_as_on_a_cpu_build():
    import warnings

    import torch
    import ember

    def fn(lib):
        cuda = lib.cuda
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            values = [cuda.get_rng_state_all(), cuda.set_rng_state_all([]),
                      cuda.set_rng_state(lib.ByteTensor(8)), cuda.seed(), cuda.seed_all(),
                      dict(cuda.memory_stats()), cuda.memory_stats_as_nested_dict(),
                      cuda.max_memory_reserved(), cuda.memory_cached(),
                      cuda.max_memory_cached(), cuda.get_arch_list(), cuda.get_gencode_flags(),
                      cuda._is_compiled(), cuda.has_half]
        values.append([(w.category, str(w.message)) for w in caught])
        with cuda.stream(None), cuda.StreamContext(None), cuda.device(-1), \
                cuda.device_of(lib.ones(1)):
            values.append("entered")
        values.append(issubclass(cuda.OutOfMemoryError, RuntimeError))
        values.append(cuda.OutOfMemoryError is lib.OutOfMemoryError)
        return values
    assert fn(ember) == fn(torch)
    check_error(lambda lib: lib.cuda.device(0).__enter__(), RuntimeError,
                "^PyTorch was compiled without CUDA support$")


def test_cuda_graph_class_is_named_but_fails_on_construction():
    """transformers' continuous batching annotates with torch.cuda.CUDAGraph at import."""
    check_error(lambda lib: lib.cuda.CUDAGraph(), RuntimeError,
                "^Tried to instantiate dummy base class CUDAGraph$")


def test_cuda_stream_context_of_none_is_a_no_op():
    """transformers' continuous batching returns torch.cuda.StreamContext / stream(None) and
    names torch.cuda.graph."""
    import torch

    import ember
    for lib in (torch, ember):
        with lib.cuda.stream(None) as s:
            assert s is None
        assert isinstance(lib.cuda.stream(None), lib.cuda.StreamContext)
    check_error(lambda lib: lib.cuda.default_stream(), AssertionError,
                "^Torch not compiled with CUDA enabled")
    check_error(lambda lib: lib.cuda.graph(None), RuntimeError,
                "^torch.cuda.Stream requires CUDA support$")
