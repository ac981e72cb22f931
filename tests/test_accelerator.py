"""torch.accelerator against real torch's CPU build: the same names and signatures, the same
answers, and the same errors for whatever needs a device."""
import inspect
import re
import warnings

import pytest
import torch

import ember
from oracle import check_error


def test_public_names_and_signatures_match_torch():
    assert sorted(ember.accelerator.__all__) == sorted(torch.accelerator.__all__)
    assert sorted(ember.accelerator.memory.__all__) == sorted(torch.accelerator.memory.__all__)
    for name in torch.accelerator.__all__:
        theirs = inspect.signature(getattr(torch.accelerator, name))
        ours = inspect.signature(getattr(ember.accelerator, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in theirs.parameters.values()], name


@pytest.mark.parametrize("call", ["is_available()", "device_count()", "current_accelerator()",
                                  "current_accelerator(True)",
                                  "current_accelerator(check_available=True)"])
def test_answers_without_an_accelerator(call):
    assert eval(f"ember.accelerator.{call}") == eval(f"torch.accelerator.{call}")


def test_script_pattern_picks_the_cpu():
    for lib in (torch, ember):
        acc = lib.accelerator
        device = acc.current_accelerator() if acc.is_available() else lib.device("cpu")
        assert device == lib.device("cpu")
        assert lib.nn.Linear(2, 2).to(device)(lib.ones(1, 2, device=device)).device == device
        assert acc.current_accelerator(check_available=True) is None


@pytest.mark.parametrize("call", [
    "current_device_index()", "set_device_index(0)", "set_device_index(None)",
    "set_device_index('cpu')", "set_device_index(torch.device('cuda', 0))",
    "synchronize()", "synchronize(0)", "synchronize('cpu')", "synchronize('cuda:1')",
    "current_stream()", "current_stream('cpu')", "get_device_capability()",
    "get_device_capability('cpu')", "get_memory_info()", "get_memory_info('cpu')",
    "get_memory_info(0)", "empty_cache()", "empty_host_cache()", "memory_stats()",
    "memory_allocated()", "memory_allocated('cpu')", "max_memory_allocated(0)",
    "memory_reserved('cuda')", "max_memory_reserved()", "reset_accumulated_memory_stats()",
    "reset_peak_memory_stats('cpu')", "Graph()", "device_index(0).__enter__()",
    "synchronize('bogus')"])
def test_calls_needing_a_device_fail_as_on_a_cpu_build(call):
    with pytest.raises(Exception) as expected:
        eval(f"torch.accelerator.{call}", {"torch": torch})
    check_error(lambda lib: eval(f"lib.accelerator.{call}", {"torch": lib, "lib": lib}),
                type(expected.value), "^" + re.escape(str(expected.value)))


@pytest.mark.parametrize("name,args,replacement", [
    ("current_device_idx", (), "current_device_index"),
    ("set_device_idx", (0,), "set_device_index")])
def test_deprecated_spellings_warn_then_fail(name, args, replacement):
    for lib in (torch, ember):
        with pytest.warns(FutureWarning, match=f"^Use `{replacement}` instead.$"):
            with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
                getattr(lib.accelerator, name)(*args)


def test_device_index_none_is_a_no_op_context():
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with lib.accelerator.device_index(None) as inside:
                assert inside is None


def test_set_stream_fails_without_an_accelerator():
    with pytest.raises(RuntimeError, match="^Cannot access accelerator device when none"):
        torch.accelerator.set_stream(torch.Stream(device="cpu"))
    with pytest.raises(RuntimeError, match="^Cannot access accelerator device when none"):
        ember.accelerator.set_stream(None)
