"""DataLoader against torch.utils.data.DataLoader: argument rules, batching, ordering,
worker processes (info, sharding, seeding, errors, crashes, timeout, shutdown)."""
import gc
import os
import random
import re
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.utils.data._utils.worker import numpy_seed
from oracle import check_error

X = np.arange(40, dtype=np.float32).reshape(10, 4)
Y = np.arange(10)


def data(lib):
    return lib.utils.data


def tensor_dataset(lib, n=10):
    return data(lib).TensorDataset(lib.tensor(X[:n]), lib.tensor(Y[:n]))


def plain(batches):
    """Batches as nested Python lists, comparable across libraries."""
    if isinstance(batches, (torch.Tensor, ember.Tensor)):
        return batches.tolist()
    if isinstance(batches, (list, tuple)):
        return [plain(b) for b in batches]
    if isinstance(batches, dict):
        return {k: plain(v) for k, v in batches.items()}
    return batches


class Stream:
    """An iterable dataset sharded across workers with get_worker_info (torch's doc
    example); mixed into each library's IterableDataset."""

    def __init__(self, lib, start, end):
        self.lib, self.start, self.end = lib, start, end

    def __iter__(self):
        info = self.lib.utils.data.get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per_worker = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per_worker
        return iter(range(lo, min(lo + per_worker, self.end)))


def stream(lib, start, end, length=None):
    attrs = {} if length is None else {"__len__": lambda self: length}
    return type("S", (Stream, data(lib).IterableDataset), attrs)(lib, start, end)


class Probe(ember.utils.data.Dataset):
    """Samples that report where and how they were made; misbehaves on request."""

    def __init__(self, n=8, fail_at=None, how="raise"):
        self.n, self.fail_at, self.how = n, fail_at, how

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            if self.how == "raise":
                raise ValueError(f"bad sample {i}")
            if self.how == "exit":
                os._exit(3)
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.how == "sleep":
                time.sleep(5)
        info = ember.utils.data.get_worker_info()
        wid = -1 if info is None else info.id
        return {"i": i, "worker": wid, "pid": os.getpid(),
                "rand": [random.random(), float(np.random.rand()), ember.rand(1).item()]}


# ---------------------------------------------------------------- arguments
@pytest.mark.parametrize("kwargs,match", [
    ({"num_workers": -1}, "num_workers option should be non-negative; use num_workers=0"),
    ({"timeout": -1}, "timeout option should be non-negative"),
    ({"prefetch_factor": 2}, "prefetch_factor option could only be specified in "
                             "multiprocessing"),
    ({"num_workers": 1, "prefetch_factor": -1}, "prefetch_factor option should be "
                                                "non-negative"),
    ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
    ({"sampler": [0, 1], "shuffle": True}, "sampler option is mutually exclusive with shuffle"),
    ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive "
                                                "with batch_size, shuffle, sampler, and "
                                                "drop_last"),
    ({"batch_sampler": [[0]], "shuffle": True}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "sampler": [0]}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "drop_last": True}, "batch_sampler option is mutually exclusive"),
    ({"batch_size": None, "drop_last": True}, "batch_size=None option disables auto-batching "
                                              "and is mutually exclusive with drop_last"),
    ({"multiprocessing_context": "fork"}, "multiprocessing_context can only be used with "
                                          "multi-process loading"),
    ({"num_workers": 1, "multiprocessing_context": "nope"}, "multiprocessing_context option "
                                                            "should specify a valid start "
                                                            "method in"),
])
def test_argument_errors(kwargs, match):
    check_error(lambda lib: data(lib).DataLoader(tensor_dataset(lib), **kwargs), ValueError,
                match)


@pytest.mark.parametrize("kwargs,match", [
    ({"shuffle": True}, "DataLoader with IterableDataset: expected unspecified shuffle option, "
                        "but got shuffle=True"),
    ({"sampler": [0]}, "DataLoader with IterableDataset: expected unspecified sampler option, "
                       r"but got sampler=\[0\]"),
    ({"batch_sampler": [[0]]}, "DataLoader with IterableDataset: expected unspecified "
                               r"batch_sampler option, but got batch_sampler=\[\[0\]\]")])
def test_iterable_argument_errors(kwargs, match):
    check_error(lambda lib: data(lib).DataLoader(stream(lib, 0, 3), **kwargs), ValueError,
                match)


def test_context_type_error_and_frozen_attributes():
    check_error(lambda lib: data(lib).DataLoader(tensor_dataset(lib), num_workers=1,
                                                 multiprocessing_context=3),
                TypeError, "multiprocessing_context option should be a valid context object")

    def set_batch_size(lib):
        data(lib).DataLoader(tensor_dataset(lib)).batch_size = 3
    check_error(set_batch_size, ValueError,
                "batch_size attribute should not be set after DataLoader is initialized")


# ---------------------------------------------------------------- single process
@pytest.mark.parametrize("kwargs", [{}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                                    {"batch_size": None}, {"batch_size": 4, "sampler": [9, 0, 4]},
                                    {"batch_sampler": [[1, 2], [7], [0, 3, 5]]}])
def test_batches_and_len_as_torch(kwargs):
    def run(lib):
        loader = data(lib).DataLoader(tensor_dataset(lib), **kwargs)
        return plain(list(loader)), len(loader)
    assert run(ember) == run(torch)


def test_batch_size_none_converts_numpy():
    def run(lib):
        return plain(list(data(lib).DataLoader(list(X[:3]), batch_size=None)))
    assert run(ember) == run(torch)
    batch = next(iter(data(ember).DataLoader(list(X[:3]), batch_size=None)))
    assert isinstance(batch, ember.Tensor) and batch.dtype == ember.float32


@pytest.mark.parametrize("kwargs", [{"batch_size": 2}, {"batch_size": 2, "drop_last": True},
                                    {"batch_size": None}])
def test_iterable_dataset_as_torch(kwargs):
    def run(lib):
        return plain(list(data(lib).DataLoader(stream(lib, 3, 8), **kwargs)))
    assert run(ember) == run(torch)


def test_iterable_len_and_warning():
    def run(lib):
        loader = data(lib).DataLoader(stream(lib, 0, 5, length=2), batch_size=1)
        n = len(loader)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            list(loader)
        return n, str(caught[0].message).split(" was reported")[1]
    assert run(ember) == run(torch)
    lengths = [len(data(ember).DataLoader(stream(ember, 0, 5, 7), batch_size=2, drop_last=d))
               for d in (False, True)]
    assert lengths == [4, 3]


def test_getitems_fetches_whole_batch():
    calls = []

    class Batched(ember.utils.data.Dataset):
        def __len__(self):
            return 6

        def __getitems__(self, indices):
            calls.append(list(indices))
            return [i * 10 for i in indices]
    batches = plain(list(ember.utils.data.DataLoader(Batched(), batch_size=4)))
    assert batches == [[0, 10, 20, 30], [40, 50]] and calls == [[0, 1, 2, 3], [4, 5]]


def test_shuffle_reproducible():
    def epoch(**kwargs):
        return plain(list(ember.utils.data.DataLoader(tensor_dataset(ember), batch_size=3,
                                                      shuffle=True, **kwargs)))
    ember.manual_seed(7)
    first = epoch()
    ember.manual_seed(7)
    assert epoch() == first
    assert sorted(sum((b[1] for b in first), [])) == list(range(10))
    assert epoch(generator=ember.Generator().manual_seed(1)) == \
        epoch(generator=ember.Generator().manual_seed(1))


# ---------------------------------------------------------------- worker processes
def test_two_workers_equal_zero_workers():
    def epoch(workers):
        return plain(list(ember.utils.data.DataLoader(
            tensor_dataset(ember), batch_size=3, shuffle=True, num_workers=workers,
            generator=ember.Generator().manual_seed(5))))
    assert epoch(2) == epoch(0)



class RecordedBatches:
    """A batch sampler noting how many batches the DataLoader has drawn from it."""

    def __init__(self, n=12, size=2):
        self.n, self.size, self.drawn = n, size, 0

    def __iter__(self):
        for start in range(0, self.n, self.size):
            self.drawn += 1
            yield list(range(start, start + self.size))

    def __len__(self):
        return self.n // self.size


@pytest.mark.parametrize("workers,prefetch", [(1, 1), (3, 1), (2, 3), (3, 4)])
def test_order_and_prefetch_bound(workers, prefetch):
    # each worker gets its first tasks as it starts: still sampler order, and never more
    # than prefetch_factor * num_workers batches handed out beyond those delivered
    batches = RecordedBatches()
    loader = ember.utils.data.DataLoader(Probe(12), batch_sampler=batches,
                                         num_workers=workers, prefetch_factor=prefetch)
    delivered = []
    for batch in loader:
        delivered.append(batch["i"].tolist())
        assert batches.drawn <= len(delivered) + workers * prefetch
    assert delivered == [[i, i + 1] for i in range(0, 12, 2)]


def test_persistent_workers_new_epoch_after_early_exit():
    loader = ember.utils.data.DataLoader(Probe(12), batch_size=2, num_workers=3,
                                         prefetch_factor=1, persistent_workers=True)
    for _ in loader:
        break
    for _ in range(2):
        assert [b["i"].tolist() for b in loader] == [[i, i + 1] for i in range(0, 12, 2)]
    loader._iterator._shutdown_workers()


def test_worker_killed_mid_epoch_reported():
    loader = ember.utils.data.DataLoader(Probe(12, fail_at=7, how="kill"), batch_size=2,
                                         num_workers=2)
    delivered = []
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly.*killed by signal SIGKILL"):
        for batch in loader:
            delivered.append(batch["i"].tolist())
    # The batches before the killed one, in order, as many as were read before the death
    # was noticed: it depends on timing (torch's SIGCHLD handler raises whenever it runs;
    # ember notices at its next read from, or write to, the dead worker).
    assert delivered == [[0, 1], [2, 3], [4, 5]][:len(delivered)]


def kill_and_wait(process):
    os.kill(process.pid, signal.SIGKILL)
    process.join()


def test_sending_to_a_killed_worker_reported():
    """A worker killed after answering: the main process takes the waiting answer, then
    writes the next task to the dead worker's pipe (BrokenPipeError before the fix)."""
    iterator = iter(ember.utils.data.DataLoader(Probe(12), num_workers=1, prefetch_factor=2))
    next(iterator)
    assert iterator._conns[0].poll(10)          # an answer waits in the pipe
    kill_and_wait(iterator._workers[0])
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly.*killed by signal SIGKILL"):
        next(iterator)


def test_new_epoch_on_a_killed_persistent_worker_reported():
    loader = ember.utils.data.DataLoader(Probe(4), num_workers=1, persistent_workers=True)
    list(loader)
    kill_and_wait(loader._iterator._workers[0])
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly.*killed by signal SIGKILL"):
        iter(loader)


SIGTERM_IN_CLEANUP = """
import os, signal
import ember
from ember.utils.data import DataLoader, TensorDataset
from ember.utils.data._utils import shared_memory

def terminate_during_cleanup(worker_id):
    # multiprocessing's exit handler terminates daemonic workers; make its SIGTERM land
    # while the worker removes its blocks (the race behind the leak warning at exit)
    unlink = shared_memory.BlockPool._unlink
    def interrupted(block):
        os.kill(os.getpid(), signal.SIGTERM)
        unlink(block)
    shared_memory.BlockPool._unlink = staticmethod(interrupted)

loader = DataLoader(TensorDataset(ember.randn(64, 8)), batch_size=8, num_workers=2,
                    worker_init_fn=terminate_during_cleanup)
for epoch in range(2):
    kept = list(loader)     # batches kept alive: each worker holds several blocks
"""


def test_sigterm_during_cleanup_leaks_nothing(tmp_path):
    script = tmp_path / "sigterm_in_cleanup.py"
    script.write_text(SIGTERM_IN_CLEANUP)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "PYTHONPATH": root})
    assert result.returncode == 0, result.stderr
    assert "leaked" not in result.stderr and "resource_tracker" not in result.stderr, \
        result.stderr


class BigText(ember.utils.data.Dataset):
    """Samples much larger than a pipe's buffer: the answers arrive in many reads."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return str(i) * 200_000


@pytest.mark.parametrize("in_order", [True, False])
def test_answers_larger_than_the_pipe(in_order):
    loader = ember.utils.data.DataLoader(BigText(), batch_size=2, num_workers=2,
                                         in_order=in_order)
    batches = [b for batch in loader for b in batch]
    assert sorted(batches) == [str(i) * 200_000 for i in range(6)]


def test_random_sampler_draws_at_first_index():
    # the permutation comes from the generator's state at the first index, not at iter()
    gen = ember.Generator().manual_seed(0)
    sampler = ember.utils.data.RandomSampler(range(20), generator=gen)
    indices = iter(sampler)
    gen.manual_seed(1)
    assert list(indices) == list(ember.utils.data.RandomSampler(
        range(20), generator=ember.Generator().manual_seed(1)))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "bool", "int64"])
def test_worker_batches_keep_dtype(dtype):
    dataset = ember.utils.data.TensorDataset(ember.arange(12).reshape(6, 2).to(
        getattr(ember, dtype)))
    batches = list(ember.utils.data.DataLoader(dataset, batch_size=4, num_workers=2))
    assert [b[0].dtype for b in batches] == [getattr(ember, dtype)] * 2
    assert plain(batches) == plain(list(ember.utils.data.DataLoader(dataset, batch_size=4)))


def test_kept_and_edited_batches_stay_intact():
    """Batches arrive as views of the workers' shared memory: one kept by the user must
    not be overwritten by later batches, and editing one must not change the others."""
    n = 64
    dataset = ember.utils.data.TensorDataset(ember.arange(n * 50.0).reshape(n, 50),
                                             ember.arange(n))
    kept = []
    for i, (x, y) in enumerate(ember.utils.data.DataLoader(dataset, batch_size=2,
                                                          num_workers=2)):
        assert (x == 50.0 * y.reshape(2, 1) + ember.arange(50.0)).all()
        if i % 3 == 0:
            kept.append((x, y))
        else:
            x.mul_(-1)
    assert [y.tolist() for _, y in kept] == [[i, i + 1] for i in range(0, n, 6)]
    for x, y in kept:
        assert (x == 50.0 * y.reshape(2, 1) + ember.arange(50.0)).all()


def test_worker_blocks_are_recycled():
    dataset = ember.utils.data.TensorDataset(ember.zeros(400, 100))
    iterator = iter(ember.utils.data.DataLoader(dataset, batch_size=2, num_workers=2,
                                                persistent_workers=True))
    for _ in iterator:
        pass
    # each worker needs its prefetched batches' blocks and one or two still held here
    assert len(iterator._reader.mapped) <= 2 * 5
    del iterator
    gc.collect()


def test_worker_info_seeds_and_init_fn():
    seen = []
    loader = ember.utils.data.DataLoader(Probe(8), batch_size=2, num_workers=2,
                                         generator=ember.Generator().manual_seed(3),
                                         worker_init_fn=seen.append)
    batches = list(loader)
    assert ember.utils.data.get_worker_info() is None
    assert [b["worker"].tolist() for b in batches] == [[0, 0], [1, 1], [0, 0], [1, 1]]
    assert [b["i"].tolist() for b in batches] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert len({b["pid"][0].item() for b in batches} - {os.getpid()}) == 2
    again = list(ember.utils.data.DataLoader(Probe(8), batch_size=2, num_workers=2,
                                             generator=ember.Generator().manual_seed(3)))
    rands = [[r.tolist() for r in b["rand"]] for b in batches]
    assert rands == [[r.tolist() for r in b["rand"]] for b in again]  # seeded per epoch
    assert rands[0] != rands[1]  # workers seeded differently


def test_worker_info_fields():
    class Info(ember.utils.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            info = ember.utils.data.get_worker_info()
            return [info.id, info.num_workers, info.seed, info.dataset is self]
    # torch's base seed: an int64 drawn from the loader's generator
    base = torch.empty((), dtype=torch.int64).random_(
        generator=torch.Generator().manual_seed(11)).item()
    out = list(ember.utils.data.DataLoader(Info(), batch_size=None, num_workers=2,
                                           generator=ember.Generator().manual_seed(11)))
    assert out == [[0, 2, base, True], [1, 2, base + 1, True]]


def test_numpy_seed_as_torch():
    from torch.utils.data._utils.worker import _generate_state
    for base, wid in [(0, 0), (123456789123, 1), ((1 << 63) - 1, 3)]:
        assert numpy_seed(base, wid).tolist() == list(_generate_state(base, wid))


def test_iterable_sharding_interleaves_as_torch():
    def run(lib):
        return plain(list(data(lib).DataLoader(stream(lib, 3, 10), batch_size=2,
                                               num_workers=2)))
    assert run(ember) == run(torch)


def test_in_order_false_delivers_everything():
    batches = ember.utils.data.DataLoader(tensor_dataset(ember), batch_size=2, num_workers=2,
                                          in_order=False)
    assert sorted(sum((b[1].tolist() for b in batches), [])) == list(range(10))


def test_worker_exception_reraised():
    loader = ember.utils.data.DataLoader(Probe(6, fail_at=3), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as err:
        list(loader)
    message = str(err.value)
    assert message.startswith("Caught ValueError in DataLoader worker process 1.\n"
                              "Original Traceback (most recent call last):")
    assert "ValueError: bad sample 3" in message and "__getitem__" in message


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_worker_crash_reported(how):
    loader = ember.utils.data.DataLoader(Probe(6, fail_at=0, how=how), num_workers=1)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly"):
        list(loader)


def test_timeout():
    loader = ember.utils.data.DataLoader(Probe(4, fail_at=0, how="sleep"), num_workers=1,
                                         timeout=0.3)
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds"):
        next(iter(loader))


def test_early_exit_is_prompt():
    loader = ember.utils.data.DataLoader(Probe(200), batch_size=2, num_workers=2)
    iterator = iter(loader)
    next(iterator)
    workers = iterator._workers
    for _ in iterator:
        break
    del iterator
    assert not any(p.is_alive() for p in workers)


def test_exception_in_loop_body_stops_workers():
    def train(loader):
        for _ in loader:
            raise KeyError("in the loop")
    loader = ember.utils.data.DataLoader(Probe(20), num_workers=2)
    procs_before = set(p.pid for p in __import__("multiprocessing").active_children())
    with pytest.raises(KeyError):
        train(loader)
    gc.collect()
    alive = set(p.pid for p in __import__("multiprocessing").active_children()) - procs_before
    assert not alive


def test_persistent_workers():
    loader = ember.utils.data.DataLoader(Probe(6), batch_size=2, num_workers=2,
                                         persistent_workers=True)
    first = list(loader)
    iterator = loader._iterator
    for _ in loader:  # an epoch abandoned half way
        break
    second = list(loader)
    assert loader._iterator is iterator
    assert [b["i"].tolist() for b in second] == [[0, 1], [2, 3], [4, 5]]
    assert {b["pid"][0].item() for b in first} == {b["pid"][0].item() for b in second}
    workers = iterator._workers
    del loader, iterator
    gc.collect()
    time.sleep(0.1)
    assert not any(p.is_alive() for p in workers)


def test_persistent_workers_restart_iterable():
    loader = ember.utils.data.DataLoader(stream(ember, 0, 6), batch_size=2, num_workers=2,
                                         persistent_workers=True)
    assert plain(list(loader)) == plain(list(loader)) == [[0, 1], [3, 4], [2], [5]]


def test_spawn_context():
    loader = ember.utils.data.DataLoader(tensor_dataset(ember), batch_size=4, num_workers=2,
                                         multiprocessing_context="spawn")
    assert plain(list(loader)) == plain(list(ember.utils.data.DataLoader(
        tensor_dataset(ember), batch_size=4)))


@pytest.mark.parametrize("num_workers", [0, 1])
def test_python2_next_keeps_torch_error_and_teaches(num_workers):
    """iter(loader).next() (Python 2 style, in old tutorials): torch's AttributeError and
    its words, then a hint to write next(it); other missing attributes are untouched."""
    iterators = [iter(lib.utils.data.DataLoader([1, 2, 3], num_workers=num_workers))
                 for lib in (torch, ember)]
    try:
        for name in ("next", "nxt"):
            with pytest.raises(AttributeError) as torch_error:
                getattr(iterators[0], name)
            with pytest.raises(AttributeError, match=re.escape(str(torch_error.value))) as err:
                getattr(iterators[1], name)
            assert err.value.name == name
        with pytest.raises(AttributeError, match=r"Python 2 iterator method.*next\(it\)"):
            iterators[1].next()
        assert not hasattr(iterators[1], "nxt") and next(iterators[1]).tolist() == [1]
    finally:
        for it in iterators:
            getattr(it, "_shutdown_workers", lambda: None)()


def _worker_warnings(lib, workers):
    """The warnings a DataLoader with `workers` workers gives when made and when iterated."""
    with warnings.catch_warnings(record=True) as made:
        warnings.simplefilter("always")
        loader = data(lib).DataLoader(list(range(4)), batch_size=2, num_workers=workers)
    with warnings.catch_warnings(record=True) as iterated:
        warnings.simplefilter("always")
        batches = [batch.tolist() for batch in loader]
    return [str(w.message) for w in made], [str(w.message) for w in iterated], batches


def test_more_workers_than_cpus_warns_as_torch():
    """pytorch/examples' super_resolution asks for 4 workers; on a 2-CPU machine torch warns
    when the loader is made and again when its workers start."""
    workers = len(os.sched_getaffinity(0)) + 1
    made, iterated, batches = _worker_warnings(ember, workers)
    assert (made, iterated, batches) == _worker_warnings(torch, workers)
    assert made[0].startswith(f"This DataLoader will create {workers} worker processes in total")


def test_workers_within_the_cpus_do_not_warn():
    assert _worker_warnings(ember, 1) == ([], [], [[0, 1], [2, 3]])
