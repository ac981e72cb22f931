"""torch.multiprocessing on ember: share_memory_ / is_shared against torch, tensors through
fork, spawn and queues, the sharing strategies, spawn's errors, Hogwild training, segment
lifetime (no leaked /dev/shm files or resource-tracker warnings) and `ember run`."""
import os
import subprocess
import sys
import textwrap
from multiprocessing.reduction import ForkingPickler

import pytest
import torch
import torch.multiprocessing as torch_mp

import ember
import ember.multiprocessing as mp
from mp_targets import (add_one, add_one_from_queue, exit_with_three, fail_in_one,
                        hogwild_train, kill_self, report_views, write_index)
from oracle import check_error

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def libs():
    return pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])


# ---- share_memory_ and is_shared, as torch

@libs()
def test_share_memory_in_place(lib):
    t = lib.zeros(4)
    view = t[1:3]
    alias = t.detach()
    before = (t.is_shared(), view.is_shared(), t.untyped_storage().is_shared())
    pointer = t.data_ptr()
    storage = t.untyped_storage()
    assert t.share_memory_() is t
    assert storage.is_shared() and storage.data_ptr() == t.data_ptr()
    assert before == (False, False, False)
    assert (t.is_shared(), view.is_shared(), alias.is_shared()) == (True, True, True)
    assert t.untyped_storage().is_shared()
    assert t.data_ptr() != pointer                      # the storage moved
    view.fill_(5)
    alias[0] = 7
    assert t.tolist() == [7, 5, 5, 0]                   # still one storage
    moved = t.data_ptr()
    t.share_memory_()
    view.share_memory_()
    assert t.data_ptr() == moved                        # already shared: a no-op


def test_share_memory_of_a_view_moves_its_base():
    t = ember.arange(6.0).reshape(2, 3)
    column = t[:, 1]
    transposed = t.t()
    column.share_memory_()
    assert t.is_shared() and transposed.is_shared()
    transposed[2, 0] = 9
    assert t.tolist() == [[0, 1, 9], [3, 4, 5]] and column.tolist() == [1, 4]
    assert column.storage_offset() == 1 and column.stride() == (3,)


@libs()
def test_share_memory_on_storage_and_empty(lib):
    t = lib.ones(3)
    storage = t.untyped_storage()
    storage.share_memory_()
    empty = lib.ones(0).share_memory_()
    assert (storage.is_shared(), t.is_shared(), empty.is_shared()) == (True, True, True)


@libs()
def test_parameter_and_module_share_memory(lib):
    lin = lib.nn.Linear(3, 2)
    lin(lib.ones(1, 3)).sum().backward()
    weight, grad = lin.weight, lin.weight.grad
    param = lib.nn.Parameter(lib.ones(2))
    param.grad = lib.ones(2)
    shared = param.share_memory_()
    assert shared is param and type(shared) is lib.nn.Parameter
    assert (param.is_shared(), param.grad.is_shared()) == (True, False)
    assert lin.share_memory() is lin
    assert lin.weight is weight and lin.weight.grad is grad
    assert (weight.is_shared(), grad.is_shared(), lin.bias.is_shared()) == (True, True, True)
    optimizer = lib.optim.Adagrad(lin.parameters())
    optimizer.share_memory()
    assert optimizer.state[lin.weight]["sum"].is_shared()


def test_expanded_view_stays_an_expanded_view():
    t = ember.ones(1, 3)
    wide = t.expand(4, 3)
    t.share_memory_()
    assert wide.is_shared() and wide.stride() == (0, 1)
    t[0, 1] = 5                     # the view sees its (moved) base's memory
    assert wide[:, 1].tolist() == [5.0] * 4


# ---- the module's names and strategies

def test_names_as_torch():
    assert set(mp.__all__) == set(torch_mp.__all__)
    public = {name for name in dir(torch_mp) if not name.startswith("_")}
    # not here: torch, sys (its imports) and the switch of its threaded forkserver start
    assert public - set(dir(mp)) == {"torch", "sys", "ENV_VAR_PARALLEL_START"}
    assert ember.multiprocessing is mp and mp.Queue is not None


def test_sharing_strategies_as_torch():
    assert mp.get_all_sharing_strategies() == torch_mp.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == torch_mp.get_sharing_strategy()
    with pytest.raises(AssertionError, match="invalid sharing strategy 'x', expected one of"):
        mp.set_sharing_strategy("x")
    assert mp.get_sharing_strategy() == "file_descriptor"


def test_non_leaf_requiring_grad_is_refused():
    check_error(lambda lib: ForkingPickler.dumps(lib.ones(2, requires_grad=True) * 2),
                RuntimeError, "^Cowardly refusing to serialize non-leaf tensor which "
                              "requires_grad")


def tensor_cases(lib):
    return [lib.ones(2, dtype=lib.bfloat16), lib.tensor(3.0), lib.ones(0),
            lib.arange(6.0).reshape(2, 3).t(), lib.arange(8).reshape(2, 4)[:, 1:3],
            lib.ones(2, requires_grad=True), lib.tensor([True, False]),
            lib.nn.Parameter(lib.ones(3))]


def finish(child, seconds: float = 120) -> None:
    """Wait for a child process; one still running after `seconds` (waiting for a queue
    item that never came, say) is killed and fails the test instead of hanging the run."""
    child.join(seconds)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail(f"the child process was still running after {seconds} s")


def round_trip(obj):
    return ForkingPickler.loads(ForkingPickler.dumps(obj))


def test_pickled_tensors_as_torch():
    """Through multiprocessing's pickler a tensor arrives on the same shared memory, with
    its dtype, shape, strides, storage offset, requires_grad and class."""
    def describe(t, lib):
        return (str(t.dtype), tuple(t.shape), t.stride(), t.storage_offset(),
                t.requires_grad, type(t).__name__, t.is_shared(),
                t.detach().float().tolist())
    for theirs, ours in zip(tensor_cases(torch), tensor_cases(ember)):
        received = [round_trip(t) for t in (theirs, ours)]
        assert describe(received[1], ember) == describe(received[0], torch)
        assert ours.is_shared() == theirs.is_shared() == bool(ours.numel())
        if ours.numel():    # back in the process that sent it: the very same memory
            assert received[0].data_ptr() == theirs.data_ptr()
            assert received[1].data_ptr() == ours.data_ptr()
        if ours.dim() and ours.numel() and not ours.requires_grad:
            received[1].zero_()
            assert not ours.any()                           # the sender's memory


@libs()
def test_pickled_storages_as_torch(lib, monkeypatch):
    # The deprecation warning comes once per process: forget an earlier test's.
    if lib is ember:
        monkeypatch.setattr(ember._storage, "_warned_typed_storage", False)
    else:
        torch.storage._reset_warn_typed_storage_removal()
    untyped = lib.ones(3).untyped_storage()
    received = round_trip(untyped)
    assert type(received) is type(untyped) and received.size() == 12
    assert received.is_shared() and untyped.is_shared()
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        typed = round_trip(lib.FloatStorage(3))
    assert type(typed).__name__ == "TypedStorage" and typed.dtype == lib.float32


# ---- tensors crossing processes (the children's functions are in mp_targets.py)

@pytest.mark.parametrize("shared", [True, False])
def test_fork_shares_only_shared_tensors(shared):
    t = ember.zeros(3)
    if shared:
        t.share_memory_()
    child = mp.get_context("fork").Process(target=add_one, args=(t,))
    child.start()
    finish(child)
    assert t.tolist() == ([1, 1, 1] if shared else [0, 0, 0])


def test_round_trip_with_file_system_strategy():
    mp.set_sharing_strategy("file_system")
    try:
        t = ember.arange(4.0)
        received = round_trip(t[1:])
    finally:
        mp.set_sharing_strategy("file_descriptor")
    assert received.storage_offset() == 1 and received.data_ptr() == t[1:].data_ptr()


@pytest.mark.parametrize("strategy", ["file_descriptor", "file_system"])
def test_queue_moves_a_tensor_to_shared_memory(strategy):
    """As torch: put() on a queue moves a private tensor into shared memory, so the
    receiver's writes reach the sender's tensor."""
    mp.set_sharing_strategy(strategy)
    try:
        context = mp.get_context("spawn")
        queue = context.Queue()
        t = ember.zeros(4)
        child = context.Process(target=add_one_from_queue, args=(queue,))
        child.start()
        queue.put((t, t[2:]))
        finish(child)
    finally:
        mp.set_sharing_strategy("file_descriptor")
    assert child.exitcode == 0 and t.is_shared()
    assert t.tolist() == [1, 1, 10, 10]


def test_views_sent_together_keep_their_storage():
    context = mp.get_context("fork")
    queue, answers = context.Queue(), context.Queue()
    t = ember.arange(4.0)
    child = context.Process(target=report_views, args=(queue, answers))
    child.start()
    queue.put((t[1:], t[2:]))
    offsets = answers.get(timeout=30)
    finish(child)
    assert offsets == (1, 2, [1, 42, 3]) and t.tolist() == [0, 1, 42, 3]


@pytest.mark.parametrize("start_method", ["spawn", "forkserver"])
def test_started_process_arguments_share_memory(start_method):
    t = ember.zeros(2).share_memory_()
    parameter = ember.nn.Parameter(ember.zeros(2))
    child = mp.get_context(start_method).Process(target=add_one, args=(t,))
    child.start()
    finish(child)
    assert t.tolist() == [1, 1]
    assert type(ForkingPickler.loads(ForkingPickler.dumps(parameter))) is ember.nn.Parameter


# ---- spawn / start_processes

def test_fn_receives_its_index():
    out = ember.zeros(3).share_memory_()
    assert mp.start_processes(write_index, args=(out,), nprocs=3, start_method="fork") is None
    assert out.tolist() == [10, 11, 12]


@pytest.mark.parametrize("fn, kind", [(fail_in_one, "ProcessRaisedException"),
                                      (exit_with_three, "ProcessExitedException"),
                                      (kill_self, "ProcessExitedException")])
def test_failures_raise_as_torch(fn, kind):
    errors = []
    for module in (torch_mp, mp):
        with pytest.raises((module.ProcessRaisedException,
                            module.ProcessExitedException)) as caught:
            module.start_processes(fn, nprocs=2 if fn is fail_in_one else 1,
                                   start_method="fork")
        errors.append(caught.value)
    theirs, ours = errors
    assert type(ours).__name__ == type(theirs).__name__ == kind
    assert ours.error_index == theirs.error_index
    assert getattr(ours, "exit_code", None) == getattr(theirs, "exit_code", None)
    assert getattr(ours, "signal_name", None) == getattr(theirs, "signal_name", None)
    first_lines = [str(e).split("Traceback")[0] for e in errors]
    assert first_lines[0] == first_lines[1]
    if fn is fail_in_one:
        assert str(ours).rstrip().endswith("ValueError: boom in 1")
        assert "in fail_in_one" in str(ours)


def test_spawn_without_join_and_start_method_warning():
    with pytest.warns(FutureWarning, match="This method only supports start_method=spawn"):
        context = mp.spawn(fail_in_one, nprocs=2, join=False, start_method="fork")
    assert isinstance(context, mp.ProcessContext) and len(context.pids()) == 2
    with pytest.raises(mp.ProcessRaisedException, match="-- Process 1 terminated with the "
                                                        "following error:"):
        while not context.join():
            pass


# ---- Hogwild: several processes train one shared model

@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_hogwild(start_method):
    ember.manual_seed(0)
    model = ember.nn.Linear(4, 1)
    model.share_memory()
    before = model.weight.detach().clone()
    losses = ember.zeros(2, 2).share_memory_()
    mp.start_processes(hogwild_train, args=(model, losses), nprocs=2,
                       start_method=start_method)
    assert not ember.equal(before, model.weight)
    assert (losses[:, 1] < losses[:, 0] / 10).all()
    # the parent sees the trained weights: its loss is as low as the children's last
    ember.manual_seed(0)
    x = ember.randn(64, 4)
    y = x @ ember.tensor([[1.0], [-2.0], [3.0], [0.5]])
    assert ember.nn.functional.mse_loss(model(x), y).item() < losses[0, 0].item() / 10


# ---- lifetime: nothing left behind at exit, even by a killed child

LIFETIME_SCRIPT = """
import os, sys
import ember
import ember.multiprocessing as mp

def receive(queue, die):
    global made_here
    t = queue.get()
    t.add_(1)
    if die:
        os.kill(os.getpid(), 9)
    made_here = ember.ones(5).share_memory_()     # released at this child's exit

if __name__ == "__main__":
    mp.set_sharing_strategy(sys.argv[1])
    context = mp.get_context(sys.argv[2])
    kept = ember.ones(1000).share_memory_()
    pids = [os.getpid()]
    for die in (False, True):
        queue = context.Queue()
        child = context.Process(target=receive, args=(queue, die))
        child.start()
        queue.put(ember.zeros(100))
        child.join()
        pids.append(child.pid)
    print(kept.sum().item())
    print(*pids)
"""


def shm_files() -> set:
    return {name for name in os.listdir("/dev/shm") if name.startswith("ember_")}


@pytest.mark.parametrize("strategy, method", [("file_descriptor", "spawn"),
                                              ("file_system", "fork")])
def test_no_leak_at_exit(tmp_path, strategy, method):
    script = tmp_path / "lifetime.py"
    script.write_text(LIFETIME_SCRIPT)
    before = shm_files()
    result = subprocess.run([sys.executable, str(script), strategy, method],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode == 0, result.stderr
    total, pids = result.stdout.splitlines()
    assert total == "1000.0"
    assert "leaked" not in result.stderr and "Warning" not in result.stderr, result.stderr
    # Segments are named /ember_<creating pid>_...: only this job's count (other tests
    # running in parallel make their own).
    left = [name for name in shm_files() - before if name.split("_")[1] in pids.split()]
    assert left == []


# ---- `ember run`: spawned children get the torch alias too

RUN_SCRIPT = """
import torch
import torch.multiprocessing as mp

def work(rank, out):
    import torchvision
    out[rank] = 1 if (torch.__name__, torchvision.__name__) == ("ember", "ember.vision") else -1

if __name__ == "__main__":
    out = torch.zeros(2).share_memory_()
    mp.spawn(work, args=(out,), nprocs=2)
    print(mp.__name__, out.tolist())
"""


def test_ember_run_with_spawn(tmp_path):
    script = tmp_path / "hogwild_run.py"
    script.write_text(textwrap.dedent(RUN_SCRIPT))
    result = subprocess.run([sys.executable, "-m", "ember", "run", str(script)],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ember.multiprocessing", "[1.0,", "1.0]"]


def test_moving_to_shared_memory_skips_tensors_without_memory():
    """share_memory_ looks for every tensor on the moved memory: sparse, masked and meta
    tensors alive meanwhile have no dense memory and are passed over (one of them used to
    fail the pickling in a queue's feeder thread, leaving the receiver waiting forever)."""
    others = [ember.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,)), ember.empty(3, device="meta")]
    with pytest.warns(UserWarning, match="prototype"):
        others.append(ember.masked.masked_tensor(ember.ones(2), ember.tensor([True, False])))
    t = ember.zeros(3)
    view = t[1:]                        # a second user: the move looks for every user
    received = round_trip(t)
    assert t.is_shared() and view.is_shared() and received.data_ptr() == t.data_ptr()
    assert len(others) == 3
