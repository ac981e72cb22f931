"""Mismatched communication on 2 ranks: every collective whose ranks pass tensors of
different shapes or dtypes (or call different collectives) must raise RuntimeError on
every rank, naming both sides, before any data moves; a receive into a tensor that does
not fit what was sent raises on the receiver, and the sender is not left waiting."""
import numpy as np

import ember
import ember.distributed as dist
from _harness import run_checks


def _raises(call, *fragments: str) -> None:
    try:
        call()
    except RuntimeError as error:
        text = str(error)
    else:
        raise AssertionError("no RuntimeError")
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} not in:\n{text}"


def _collective_error(op_type: str, mine: str, theirs: str) -> tuple:
    """The fragments of the mismatch message as rank r sees it: itself first."""
    r = dist.get_rank()
    return ("Detected mismatch between collectives on ranks. "
            f"Rank {r} is running collective: CollectiveFingerPrint(OpType={op_type}, {mine}",
            f"but Rank {1 - r} is running collective: CollectiveFingerPrint("
            f"OpType={op_type}, {theirs}")


def _by_rank(first, second):
    return first if dist.get_rank() == 0 else second


def _shape_error(op_type: str, shape0, shape1, dtype="Float") -> tuple:
    mine, theirs = _by_rank((shape0, shape1), (shape1, shape0))
    return _collective_error(op_type, f"TensorShape={mine}, TensorDtypes={dtype}",
                             f"TensorShape={theirs}, TensorDtypes={dtype}")


def check_all_reduce_sizes():
    t = ember.ones(_by_rank(4, 6))
    _raises(lambda: dist.all_reduce(t), *_shape_error("ALLREDUCE", [4], [6]))
    assert t.tolist() == [1.0] * t.numel()  # nothing moved
    _raises(lambda: dist.all_reduce(ember.ones(_by_rank(4, 10 ** 6)), async_op=True),
            *_shape_error("ALLREDUCE", [4], [1000000]))
    _raises(lambda: dist.all_reduce(ember.ones(_by_rank((2, 3), (3, 2)))),
            *_shape_error("ALLREDUCE", [2, 3], [3, 2]))


def check_all_reduce_dtypes():
    t = ember.ones(4, dtype=_by_rank(ember.float32, ember.float64))
    mine, theirs = _by_rank(("Float", "Double"), ("Double", "Float"))
    _raises(lambda: dist.all_reduce(t),
            *_collective_error("ALLREDUCE", f"TensorShape=[4], TensorDtypes={mine}",
                               f"TensorShape=[4], TensorDtypes={theirs}"))


def check_reduce_and_broadcast():
    _raises(lambda: dist.reduce(ember.ones(_by_rank(4, 6)), dst=0),
            *_shape_error("REDUCE", [4], [6]))
    _raises(lambda: dist.broadcast(ember.ones(_by_rank(4, 6)), src=0),
            *_shape_error("BROADCAST", [4], [6]))
    # the same tensors, but each rank names a different source
    _raises(lambda: dist.broadcast(ember.ones(4), src=dist.get_rank()),
            "OpType=BROADCAST", f"Root={dist.get_rank()}", f"Root={1 - dist.get_rank()}")


def check_gathers():
    n = _by_rank(4, 6)
    _raises(lambda: dist.all_gather([ember.zeros(n), ember.zeros(n)], ember.ones(n)),
            *_shape_error("ALLGATHER", [4], [6]))
    _raises(lambda: dist.all_gather_into_tensor(ember.zeros(2 * n), ember.ones(n)),
            *_shape_error("_ALLGATHER_BASE", [4], [6]))
    gathered = [ember.zeros(n), ember.zeros(n)] if dist.get_rank() == 0 else None
    _raises(lambda: dist.gather(ember.ones(n), gathered, dst=0),
            *_shape_error("GATHER", [4], [6]))
    pieces = [ember.ones(n), ember.ones(n)] if dist.get_rank() == 0 else None
    _raises(lambda: dist.scatter(ember.zeros(n), pieces, src=0),
            *_shape_error("SCATTER", [4], [6]))


def check_reduce_scatters():
    n = _by_rank(2, 3)
    _raises(lambda: dist.reduce_scatter_tensor(ember.zeros(n), ember.ones(2 * n)),
            *_shape_error("_REDUCE_SCATTER_BASE", [2 * 2], [2 * 3]))
    _raises(lambda: dist.reduce_scatter(ember.zeros(n), [ember.ones(n), ember.ones(n)]),
            *_shape_error("REDUCE_SCATTER", [2], [3]))


def check_all_to_all():
    n = _by_rank(4, 6)
    _raises(lambda: dist.all_to_all_single(ember.zeros(n), ember.ones(n)),
            "Detected mismatch between collectives on ranks. Rank 0 sends 2 rows to rank 1 "
            "(input TensorShape=[4] split as [2, 2]), but Rank 1 expects 3 rows from rank 0 "
            "(output TensorShape=[6] split as [3, 3])")
    # equal sizes, but rank 1 expects a split rank 0 does not send
    splits = _by_rank([1, 3], [2, 2])
    _raises(lambda: dist.all_to_all_single(ember.zeros(4, 2), ember.ones(4, 2),
                                           output_split_sizes=splits),
            "Rank 0 sends 2 rows to rank 0 (input TensorShape=[4, 2] split as [2, 2]), but "
            "Rank 0 expects 1 rows from rank 0 (output TensorShape=[4, 2] split as [1, 3])")
    _raises(lambda: dist.all_to_all_single(ember.zeros(4, _by_rank(2, 3)),
                                           ember.ones(4, _by_rank(2, 3))),
            *_shape_error("ALLTOALL_BASE", [4, 2], [4, 3]))


def check_different_collectives():
    t = ember.ones(4)
    call = _by_rank(lambda: dist.all_reduce(t), lambda: dist.broadcast(t, src=0))
    mine, theirs = _by_rank(("ALLREDUCE", "BROADCAST"), ("BROADCAST", "ALLREDUCE"))
    _raises(call, f"Rank {dist.get_rank()} is running collective: CollectiveFingerPrint("
                  f"OpType={mine}", f"is running collective: CollectiveFingerPrint("
                  f"OpType={theirs}")
    _raises(_by_rank(dist.barrier, lambda: dist.all_reduce(t)), "OpType=BARRIER")
    _raises(_by_rank(lambda: dist.all_gather_object([None, None], 1), lambda: dist.all_reduce(t)),
            "OpType=ALLGATHER_OBJECT")


def check_send_recv_sizes():
    if dist.get_rank() == 0:
        dist.send(ember.ones(4), dst=1)
    else:
        t = ember.zeros(6)
        _raises(lambda: dist.recv(t, src=0),
                "Received data size doesn't match expected size. Rank 0 sent a tensor of "
                "TensorShape=[4], TensorDtypes=Float (16 bytes), but rank 1 receives into "
                "TensorShape=[6], TensorDtypes=Float (24 bytes).")
        assert t.tolist() == [0.0] * 6


def check_send_recv_dtypes_of_equal_size():
    if dist.get_rank() == 0:
        dist.send(ember.ones(4, dtype=ember.float32), dst=1)
    else:
        _raises(lambda: dist.recv(ember.zeros(2, dtype=ember.float64)),  # any source
                "Received data doesn't match the receiving tensor. Rank 0 sent a tensor of "
                "TensorShape=[4], TensorDtypes=Float (16 bytes), but rank 1 receives into "
                "TensorShape=[2], TensorDtypes=Double (16 bytes).")


def check_large_send_into_small_recv():
    # 4 MB travel by rendezvous: the sender would wait for ever if the receiver, having
    # raised, did not take the payload anyway
    if dist.get_rank() == 0:
        dist.send(ember.ones(10 ** 6), dst=1)
        dist.send(ember.full((3,), 7.0), dst=1)
    else:
        work = dist.irecv(ember.zeros(4), src=0)
        _raises(work.wait, "Received data size doesn't match expected size",
                "TensorShape=[1000000]", "4000000 bytes")
        assert work.is_completed() and not work.is_success()
        assert isinstance(work.exception(), RuntimeError)
        t = ember.zeros(3)
        dist.recv(t, src=0)  # later messages still arrive in order
        assert t.tolist() == [7.0, 7.0, 7.0]


def _local_error(kind, call, message: str) -> None:
    try:
        call()
    except kind as error:
        assert str(error).startswith(message), str(error)
    else:
        raise AssertionError(f"no {kind.__name__}")


def check_local_argument_errors():
    # Arguments that cannot work whatever the other ranks pass fail before communicating,
    # with torch's messages.
    n = dist.get_world_size()
    _local_error(ValueError, lambda: dist.all_gather([ember.zeros(4, dtype=ember.float64)] * n,
                                                     ember.ones(4)),
                 "Invalid usage of tensors with different dtypesFound torch.float64 and  "
                 "torch.float32")
    _local_error(RuntimeError, lambda: dist.all_gather([ember.zeros(3)] * n, ember.ones(4)),
                 "all_gather: invalid tensor size at index 0 (expected (4), got (3))")
    _local_error(ValueError, lambda: dist.reduce_scatter_tensor(
        ember.zeros(4, dtype=ember.float64), ember.ones(4 * n)),
        "Invalid usage of tensors with different dtypes")
    _local_error(RuntimeError, lambda: dist.all_to_all_single(ember.zeros(3), ember.ones(3)),
                 "Tensor's dim 0 does not divide equally across group size")
    _local_error(RuntimeError, lambda: dist.all_to_all_single(
        ember.zeros(4), ember.ones(4), input_split_sizes=[1, 1]),
        "Split sizes doesn't match total dim 0 size")


def check_matching_calls_still_work():
    t = ember.tensor(np.full(4, dist.get_rank() + 1.0, np.float32))
    dist.all_reduce(t)
    assert t.tolist() == [3.0] * 4
    dist.barrier()


CHECKS = [check_all_reduce_sizes, check_all_reduce_dtypes, check_reduce_and_broadcast,
          check_gathers, check_reduce_scatters, check_all_to_all,
          check_different_collectives, check_send_recv_sizes,
          check_send_recv_dtypes_of_equal_size, check_large_send_into_small_recv,
          check_local_argument_errors, check_matching_calls_still_work]

if __name__ == "__main__":
    dist.init_process_group("mpi")
    assert dist.get_world_size() == 2
    run_checks(CHECKS)
    dist.destroy_process_group()
