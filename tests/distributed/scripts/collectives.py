"""Every collective on the ranks this script is started with, checked against NumPy.
Rank r contributes `_values(r)`; the expectations are computed from all ranks' values.
The arguments, if any, name the checks to run."""
import os
import sys
import warnings

import numpy as np

import ember
import ember.distributed as dist
from _harness import run_checks


def _values(r: int, dtype=np.float32, shape=(2, 3)) -> np.ndarray:
    return (np.arange(np.prod(shape)).reshape(shape) * (r + 1) + r).astype(dtype)


def _all(dtype=np.float32, shape=(2, 3)) -> np.ndarray:
    return np.stack([_values(r, dtype, shape) for r in range(dist.get_world_size())])


def _mine(dtype=np.float32, shape=(2, 3)):
    return ember.tensor(_values(dist.get_rank(), dtype, shape))


def _close(tensor, expected, **tol) -> None:
    np.testing.assert_allclose(tensor.numpy().astype(np.float64), expected, **tol)


def check_state():
    assert dist.is_available() and dist.is_initialized()
    # agreement checks are on unless the job turned them off (EMBER_DISTRIBUTED_CHECKS=0)
    assert dist.group.WORLD._checked == (os.environ.get("EMBER_DISTRIBUTED_CHECKS") != "0")
    assert dist.get_backend() == "mpi"
    assert 0 <= dist.get_rank() < dist.get_world_size()
    assert dist.get_process_group_ranks(dist.group.WORLD) == list(range(dist.get_world_size()))


def check_all_reduce_ops():
    reductions = {dist.ReduceOp.SUM: np.sum, dist.ReduceOp.AVG: np.mean,
                  dist.ReduceOp.MAX: np.max, dist.ReduceOp.MIN: np.min,
                  dist.ReduceOp.PRODUCT: np.prod}
    for op, reduction in reductions.items():
        for dtype in (np.float32, np.float64):
            t = _mine(dtype)
            assert dist.all_reduce(t, op=op) is None
            assert t.dtype == ember.tensor(np.zeros(1, dtype)).dtype
            _close(t, reduction(_all(dtype), axis=0), rtol=1e-6)


def check_all_reduce_integer_and_half():
    t = _mine(np.int64)
    dist.all_reduce(t)
    assert t.dtype == ember.int64
    np.testing.assert_array_equal(t.numpy(), _all(np.int64).sum(0))
    for dtype in (ember.float16, ember.bfloat16):
        t = ember.tensor(_values(dist.get_rank())).to(dtype)
        dist.all_reduce(t)
        assert t.dtype == dtype
        _close(t.float(), _all().sum(0), rtol=1e-2)


def check_all_reduce_in_place_and_non_contiguous():
    base = _mine(shape=(3, 4))
    memory = base._data
    version = base._version
    dist.all_reduce(base)
    assert base._data is memory and base._version > version
    _close(base, _all(shape=(3, 4)).sum(0))
    t = _mine(shape=(3, 4))
    column = t[:, 1]  # a non-contiguous view: the result lands in t's memory
    dist.all_reduce(column, op=dist.ReduceOp.MAX)
    _close(t[:, 1], _all(shape=(3, 4))[:, :, 1].max(0))
    _close(t[:, 0], _values(dist.get_rank(), shape=(3, 4))[:, 0])


def check_all_reduce_async():
    t = _mine()
    work = dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True)
    assert work.wait() is True and work.is_completed()
    _close(t, _all().mean(0), rtol=1e-6)
    assert work.result()[0] is t


def check_broadcast():
    src = dist.get_world_size() - 1
    t = _mine(np.int32)
    dist.broadcast(t, src=src)
    np.testing.assert_array_equal(t.numpy(), _values(src, np.int32))
    half = ember.tensor(_values(dist.get_rank())).to(ember.bfloat16)
    dist.broadcast(half, src=0)
    _close(half.float(), _values(0).astype(np.float64), rtol=1e-2)
    flag = ember.tensor([dist.get_rank() == 0])
    work = dist.broadcast(flag, src=0, async_op=True)
    work.wait()
    assert flag.item() is True


def check_reduce():
    dst = 1
    t = _mine()
    dist.reduce(t, dst=dst, op=dist.ReduceOp.SUM)
    if dist.get_rank() == dst:
        _close(t, _all().sum(0))
    t = _mine()
    dist.reduce(t, dst=0, op=dist.ReduceOp.MAX, async_op=True).wait()
    if dist.get_rank() == 0:
        _close(t, _all().max(0))


def check_all_gather():
    n = dist.get_world_size()
    outputs = [ember.zeros(2, 3) for _ in range(n)]
    dist.all_gather(outputs, _mine())
    for r, out in enumerate(outputs):
        _close(out, _values(r))
    flat = ember.zeros(n * 2, 3)
    dist.all_gather_into_tensor(flat, _mine())
    _close(flat, _all().reshape(n * 2, 3))
    stacked = ember.zeros(n, 2, 3)
    dist.all_gather_into_tensor(stacked, _mine(), async_op=True).wait()
    _close(stacked, _all())


def check_reduce_scatter():
    n, r = dist.get_world_size(), dist.get_rank()
    inputs = [ember.tensor(_values(r) * (i + 1)) for i in range(n)]
    out = ember.zeros(2, 3)
    dist.reduce_scatter(out, inputs)
    _close(out, _all().sum(0) * (r + 1), rtol=1e-6)
    out = ember.zeros(2, 3)
    big = ember.tensor(np.concatenate([_values(r) * (i + 1) for i in range(n)]))
    dist.reduce_scatter_tensor(out, big, op=dist.ReduceOp.AVG)
    _close(out, _all().mean(0) * (r + 1), rtol=1e-6)


def check_gather_scatter():
    n, r = dist.get_world_size(), dist.get_rank()
    gathered = [ember.zeros(2, 3) for _ in range(n)] if r == 0 else None
    dist.gather(_mine(), gathered, dst=0)
    if r == 0:
        for i, g in enumerate(gathered):
            _close(g, _values(i))
    pieces = [ember.full((4,), float(i * 10)) for i in range(n)] if r == n - 1 else None
    out = ember.zeros(4)
    dist.scatter(out, pieces, src=n - 1)
    _close(out, np.full(4, r * 10.0))


def check_all_to_all_single():
    n, r = dist.get_world_size(), dist.get_rank()
    inp = ember.arange(n * 2).float() + 100 * r
    out = ember.zeros(n * 2)
    dist.all_to_all_single(out, inp)
    expected = np.concatenate([np.arange(r * 2, r * 2 + 2) + 100 * s for s in range(n)])
    _close(out, expected)


def check_send_recv():
    n, r = dist.get_world_size(), dist.get_rank()
    received = ember.zeros(2, 3)
    send_work = dist.isend(_mine(), dst=(r + 1) % n)
    recv_work = dist.irecv(received, src=(r - 1) % n)
    send_work.wait()
    recv_work.wait()
    _close(received, _values((r - 1) % n))
    if r == 0:
        dist.send(ember.tensor([7.0, 8.0]), dst=1, tag=3)
    elif r == 1:
        t = ember.zeros(2)
        assert dist.recv(t, tag=3) == 0  # any source: returns the sender
        _close(t, [7.0, 8.0])


def check_object_collectives():
    n, r = dist.get_world_size(), dist.get_rank()
    objects = [None] * n
    dist.all_gather_object(objects, {"rank": r, "name": f"worker{r}"})
    assert objects == [{"rank": i, "name": f"worker{i}"} for i in range(n)]
    items = ["config", {"lr": 0.1}, [1, 2]] if r == 0 else [None, None, None]
    dist.broadcast_object_list(items, src=0)
    assert items == ["config", {"lr": 0.1}, [1, 2]]
    gathered = [None] * n if r == 1 else None
    dist.gather_object(("x", r), gathered, dst=1)
    if r == 1:
        assert gathered == [("x", i) for i in range(n)]
    output = [None]
    dist.scatter_object_list(output, [{"i": i} for i in range(n)] if r == 0 else None, src=0)
    assert output == [{"i": r}]
    tensors = [None] * n
    dist.all_gather_object(tensors, ember.full((2,), float(r)))
    assert [t.tolist() for t in tensors] == [[float(i)] * 2 for i in range(n)]


def check_new_group():
    n, r = dist.get_world_size(), dist.get_rank()
    members = [0, 2] if n >= 4 else [1]
    sub = dist.new_group(members)
    t = _mine()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = dist.all_reduce(t, group=sub)
    if r in members:
        assert dist.get_rank(sub) == members.index(r)
        assert dist.get_world_size(sub) == len(members)
        _close(t, _all()[members].sum(0))
        dist.broadcast(t, src=members[-1], group=sub)  # src is a global rank
        _close(t, _all()[members].sum(0))
    else:
        assert result is None and dist.get_rank(sub) == -1
        assert "does not belong to the given group" in str(caught[0].message)
        _close(t, _values(r))
    everyone = dist.new_group()
    t = _mine()
    dist.all_reduce(t, group=everyone)
    _close(t, _all().sum(0))
    dist.destroy_process_group(sub)
    dist.destroy_process_group(everyone)


def check_barrier():
    dist.barrier()
    work = dist.barrier(async_op=True)
    work.wait()
    assert work.is_completed()


def check_errors():
    try:
        dist.init_process_group("mpi")
    except ValueError as error:
        assert "twice" in str(error)
    else:
        raise AssertionError("second init_process_group did not raise")
    try:
        dist.all_reduce(np.zeros(3))
    except TypeError as error:
        assert "torch.Tensor" in str(error)
    else:
        raise AssertionError("all_reduce on an ndarray did not raise")


CHECKS = [check_state, check_all_reduce_ops, check_all_reduce_integer_and_half,
          check_all_reduce_in_place_and_non_contiguous, check_all_reduce_async, check_broadcast,
          check_reduce, check_all_gather, check_reduce_scatter, check_gather_scatter,
          check_all_to_all_single, check_send_recv, check_object_collectives, check_new_group,
          check_barrier, check_errors]

if __name__ == "__main__":
    dist.init_process_group("mpi")
    run_checks(CHECKS, only=sys.argv[1:])
    dist.destroy_process_group()
