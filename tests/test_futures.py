"""torch.futures and torch.jit.fork/wait against torch: completion once, values and
exceptions, then/add_done_callback chains, collect_all/wait_all, and waiting across threads."""
import threading

import pytest
import torch

import ember


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_result_callbacks_and_chains(lib):
    f = lib.futures.Future()
    assert not f.done()
    seen = []
    f.add_done_callback(lambda fut: seen.append(fut.value()))
    f.set_result(3)
    assert (f.done(), f.value(), f.wait(), seen) == (True, 3, 3, [3])
    f.add_done_callback(lambda fut: seen.append("late"))        # runs at once when done
    assert seen == [3, "late"]
    assert f.then(lambda fut: fut.value() * 2).wait() == 6
    with pytest.raises(RuntimeError, match="Attempting to mark a completed Future as "
                                           "complete again"):
        f.set_result(4)


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_exceptions_reach_wait_value_and_chains(lib):
    bad = lib.futures.Future()
    bad.set_exception(ValueError("bad"))
    for read in (bad.wait, bad.value):
        with pytest.raises(ValueError, match="bad"):
            read()
    good = lib.futures.Future()
    good.set_result(1)
    with pytest.raises(RuntimeError, match="Got the following error when running the "
                                           "callback: ZeroDivisionError: division by zero"):
        good.then(lambda fut: 1 / 0).wait()
    with pytest.raises(ValueError, match="bad"):
        lib.futures.wait_all([good, bad])


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_collect_all_and_wait_all(lib):
    futures = [lib.futures.Future() for _ in range(3)]
    collected = lib.futures.collect_all(futures)
    for i, f in enumerate(futures):
        assert not collected.done()
        f.set_result(i)
    assert [f.value() for f in collected.wait()] == [0, 1, 2]
    assert lib.futures.wait_all(futures) == [0, 1, 2]
    assert lib.futures.collect_all([]).wait() == []


def test_wait_blocks_until_another_thread_completes_it():
    f = ember.futures.Future()
    worker = threading.Timer(0.05, f.set_result, args=("from the worker",))
    worker.start()
    assert f.wait() == "from the worker"
    worker.join()


def test_value_before_completion_and_other_devices_are_errors():
    with pytest.raises(RuntimeError, match="before the future completed"):
        ember.futures.Future().value()
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="PyTorch is not linked with support for cuda "
                                               "devices"):
            lib.futures.Future(devices=["cuda:0"])
    assert ember.Future is ember.futures.Future


def test_jit_fork_runs_at_once_and_wait_returns_its_result():
    for lib in (torch, ember):
        x = lib.ones(2)
        with pytest.warns(DeprecationWarning, match="`torch.jit.fork` is deprecated"):
            future = lib.jit.fork(lambda t, k: t * k, x, k=3)
        with pytest.warns(DeprecationWarning, match="`torch.jit.wait` is deprecated"):
            assert future.done() and lib.jit.wait(future).tolist() == [3.0, 3.0]

        def boom():
            raise ValueError("in the forked call")
        with pytest.raises(ValueError, match="in the forked call"), \
                pytest.warns(DeprecationWarning):
            lib.jit.fork(boom)
