"""Process groups and collectives with torch.distributed's API, carried out by MPI.

The processes are started by MPI (`python -m ember.distributed.run` or `mpiexec`);
init_process_group() joins them into the default group, a duplicate of MPI's
COMM_WORLD, and new_group() makes sub-communicators. Every collective works in place
on the tensors' NumPy arrays through mpi4py's buffer calls (no copies unless a tensor is
non-contiguous or half precision), and is started nonblocking so that the group's
`timeout` can end a wait that would otherwise hang.

Before moving data, the ranks check that they agree on the operation and on their
tensors' shapes and dtypes (`_checks.py`): a mismatch raises RuntimeError on every rank
instead of giving garbage or hanging.

Ranks given as `src`/`dst` are global ranks, as in torch; `group_src`/`group_dst` are
ranks within `group`.
"""
from __future__ import annotations

import os
import sys
import time
import traceback
import warnings
from datetime import timedelta

import numpy as np

from . import _checks, _job_files
from ._mpi import ReduceOp, Work, as_buffer, is_mpi_importable, mpi, mpi_op

default_pg_timeout = timedelta(minutes=30)

_MAX_TAG = 32767  # the largest tag every MPI library accepts (MPI_TAG_UB is at least this)
ABORT_GRACE = 0.3  # seconds between printing an uncaught exception and MPI_Abort
_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to "
                    "call init_process_group.")


class Backend(str):
    """A backend name; ember has one backend, MPI ('gloo' also maps to it)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got "
                             f"{type(name)}")
        return super().__new__(cls, name.lower())


class ProcessGroup:
    """A set of processes (global `ranks`) that run collectives together over one MPI
    communicator. Processes outside the group hold it with `_comm = None`.

    Point-to-point payloads travel on a second communicator, `_payloads`, each under a
    tag of its own (`_next_payload_tag`), announced by a header sent on `_comm` under the
    user's tag: receives then match in the order the user posted them."""

    def __init__(self, comm, ranks: list[int], backend: str, timeout: timedelta,
                 checked: bool = True) -> None:
        self._comm = comm
        self._payloads = comm.Dup() if comm is not None else None
        self._ranks = ranks
        self._backend = backend
        self._timeout = timeout.total_seconds()
        self._checked = checked  # agreement checks before communicating (_checks.py)
        self._payload_tags = 0

    def _next_payload_tag(self) -> int:
        self._payload_tags = (self._payload_tags + 1) % (_MAX_TAG + 1)
        return self._payload_tags

    def rank(self) -> int:
        return self._comm.Get_rank() if self._comm is not None else -1

    def size(self) -> int:
        return len(self._ranks)

    def name(self) -> str:
        return self._backend

    def __repr__(self) -> str:
        return f"ProcessGroup(ranks={self._ranks}, backend={self._backend!r})"


class _State:
    default: ProcessGroup | None = None
    groups: list = []
    previous_excepthook = None


_STATE = _State()


class _WorldMeta(type):
    @property
    def WORLD(cls) -> ProcessGroup | None:
        return _STATE.default


class GroupMember(metaclass=_WorldMeta):
    """GroupMember.WORLD is the default group; NON_GROUP_MEMBER marks outsiders."""

    NON_GROUP_MEMBER = -100


class group(metaclass=_WorldMeta):
    """group.WORLD is the default process group."""


# ---------------------------------------------------------------------- availability
def is_available() -> bool:
    """Whether ember.distributed can run here (mpi4py is installed)."""
    return is_mpi_importable()


def is_mpi_available() -> bool:
    return is_mpi_importable()


def is_gloo_available() -> bool:
    return False


def get_default_backend_for_device(device) -> str:
    """torch's default backend name for a device type: "gloo" for the CPU (ember's MPI
    backend answers to it), "nccl" for CUDA."""
    kind = device if isinstance(device, str) else device.type
    kind = kind.split(":")[0]
    backends = {"cpu": Backend.GLOO, "cuda": Backend.NCCL}
    if kind not in backends:
        raise ValueError(f"Default backend not registered for device : {kind}")
    return backends[kind]


def is_nccl_available() -> bool:
    return False


def is_initialized() -> bool:
    return _STATE.default is not None


def is_torchelastic_launched() -> bool:
    return "TORCHELASTIC_RUN_ID" in os.environ


# ---------------------------------------------------------------------- init and groups
def _env_int(name: str, given: int) -> int:
    if given is not None and given >= 0:
        return given
    value = os.environ.get(name)
    return int(value) if value is not None else -1


def _check_unsupported(**options) -> None:
    for name, value in options.items():
        if value is not None:
            raise NotImplementedError(f"ember.distributed does not support the `{name}` "
                                      "argument (MPI starts and connects the processes)")


def init_process_group(backend=None, init_method: str | None = None,
                       timeout: timedelta | None = None, world_size: int = -1,
                       rank: int = -1, store=None, group_name: str = "", pg_options=None,
                       device_id=None) -> None:
    """Join the processes started by MPI into the default process group.

    MPI has already connected the processes: `init_method` (env://, tcp://, file://)
    needs no rendezvous, and `rank`/`world_size` (or the RANK and WORLD_SIZE environment
    variables set by torchrun-style launchers) are checked against MPI's.
    """
    if _STATE.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend or Backend.MPI)
    if name == Backend.NCCL:
        raise RuntimeError("ProcessGroupNCCL is only supported with GPUs, no GPUs found! "
                           "ember runs on the CPU: use backend='mpi' (or 'gloo').")
    if name not in (Backend.MPI, Backend.GLOO):
        raise ValueError(f"Invalid backend: '{name}'. ember.distributed supports 'mpi' "
                         "(and 'gloo', carried out by MPI).")
    _check_unsupported(store=store, pg_options=pg_options, device_id=device_id)
    if init_method is not None and init_method.split("://")[0] not in ("env", "tcp", "file"):
        raise ValueError(f"Invalid init_method: {init_method}")
    MPI = mpi()
    world = MPI.COMM_WORLD
    mpi_rank, mpi_size = world.Get_rank(), world.Get_size()
    want_size = _env_int("WORLD_SIZE", world_size)
    want_rank = _env_int("RANK", rank)
    if want_size > 1 and mpi_size == 1:
        raise RuntimeError(
            f"init_process_group: world_size is {want_size} but this process was not started "
            "by MPI (its MPI world has 1 process). Start the processes with "
            f"`python -m ember.distributed.run --nproc-per-node {want_size} script.py`, "
            f"`mpiexec -n {want_size} python script.py`, or torch.multiprocessing.spawn(fn, "
            f"nprocs={want_size}) (multiprocessing.Process cannot connect processes by MPI).")
    if want_size not in (-1, mpi_size) or want_rank not in (-1, mpi_rank):
        raise ValueError(f"init_process_group: rank {want_rank} of world_size {want_size} "
                         f"disagrees with MPI, which started this process as rank {mpi_rank} "
                         f"of {mpi_size}; let MPI assign them (leave rank and world_size "
                         "unset).")
    _STATE.default = ProcessGroup(world.Dup(), list(range(mpi_size)), name,
                                  timeout or default_pg_timeout, _checks.enabled(world))
    _install_excepthook()


def _install_excepthook() -> None:
    """An uncaught exception on one rank prints its traceback and aborts the whole MPI
    job, so the other ranks do not wait forever in their next collective."""
    if _STATE.previous_excepthook is None:
        _STATE.previous_excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught_exception


def _abort_on_uncaught_exception(exc_type, exc, tb) -> None:
    world = mpi().COMM_WORLD
    if world.Get_size() > 1:
        print(f"[rank {world.Get_rank()}] uncaught exception, aborting all ranks:",
              file=sys.stderr)
    (_STATE.previous_excepthook or sys.__excepthook__)(exc_type, exc, tb)
    sys.stderr.flush()
    sys.stdout.flush()
    _job_files.record_failure(world.Get_rank(),
                              "".join(traceback.format_exception(exc_type, exc, tb)))
    if world.Get_size() > 1:
        # MPI_Abort makes mpiexec kill every process at once, its output forwarders too:
        # a moment first lets them pass this rank's traceback on to the terminal.
        time.sleep(ABORT_GRACE)
        world.Abort(1)


def _default_group() -> ProcessGroup:
    if _STATE.default is None:
        raise ValueError(_NOT_INITIALIZED)
    return _STATE.default


def _resolve(group) -> ProcessGroup:
    return _default_group() if group is None else group


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free `group`'s communicator, or every group's (and leave the default) if None."""
    default = _default_group()
    targets = [group] if group is not None and group is not default else \
        _STATE.groups + [default]
    for pg in targets:
        if pg._comm is not None:
            pg._comm.Free()
            pg._payloads.Free()
            pg._comm = pg._payloads = None
    if group is None or group is default:
        _STATE.default = None
        _STATE.groups = []
        if _STATE.previous_excepthook is not None:
            sys.excepthook = _STATE.previous_excepthook
            _STATE.previous_excepthook = None
    else:
        _STATE.groups.remove(group)


def new_group(ranks=None, timeout: timedelta | None = None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc=None,
              device_id=None) -> ProcessGroup:
    """A group of the global `ranks` (all by default). Every process of the default group
    must call it, members or not, in the same order."""
    default = _default_group()
    _check_unsupported(pg_options=pg_options, device_id=device_id)
    if use_local_synchronization:
        raise NotImplementedError("ember.distributed does not support the "
                                  "`use_local_synchronization` argument")
    world_size = default.size()
    ranks = sorted(ranks) if ranks else list(range(world_size))
    for r in ranks:
        if r < 0 or r >= world_size:
            raise ValueError("Invalid rank for new_group(): every rank must be in "
                             f"[0, {world_size - 1}], got {r}")
    MPI = mpi()
    subgroup = default._comm.Get_group().Incl(ranks)
    comm = default._comm.Create(subgroup)
    subgroup.Free()
    pg = ProcessGroup(None if comm == MPI.COMM_NULL else comm, ranks,
                      Backend(backend or default._backend),
                      timeout or timedelta(seconds=default._timeout), default._checked)
    _STATE.groups.append(pg)
    return pg


def get_backend(group: ProcessGroup | None = None) -> str:
    return _resolve(group)._backend


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in `group` (-1 if it is not a member)."""
    return _resolve(group).rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in `group` (-1 on a process outside it)."""
    pg = _resolve(group)
    return pg.size() if pg._comm is not None else -1


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    return list(_resolve(group)._ranks)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    return _resolve(group)._ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    pg = _resolve(group)
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg._ranks.index(global_rank)


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return fallback_rank
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank "
                       "to allow `get_node_local_rank` to work, assuming you are not running "
                       "in a multi-device context and want the code to run locally instead.")


# ---------------------------------------------------------------------- helpers
def _member(group, op_name: str) -> ProcessGroup | None:
    """The group, or None (with torch's warning) when this process is not in it."""
    pg = _resolve(group)
    if pg._comm is None:
        warnings.warn(f"Running {op_name} on global rank {get_rank()} which does not belong "
                      "to the given group.")
        return None
    return pg


def _peer(pg: ProcessGroup, global_rank, group_rank, default=None) -> int:
    """The rank within `pg` named by a global rank or a group rank (exactly one given)."""
    if global_rank is not None and group_rank is not None:
        raise ValueError("Can only specify group_src or src / group_dst or dst, not both")
    if group_rank is not None:
        return group_rank
    if global_rank is None:
        if default is None:
            raise ValueError("Must specify a rank (src / dst or group_src / group_dst)")
        return default
    return get_group_rank(pg, global_rank)


def _tensor_array(tensor, name: str = "tensor") -> np.ndarray:
    from .._tensor import Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"torch.Tensor\n             but got {type(tensor)} instead.")
    return tensor.numpy(force=True)


def _finish_all(*steps):
    """One completion callback running the non-None `steps` in order."""
    steps = [s for s in steps if s is not None]
    if not steps:
        return None

    def run():
        for step in steps:
            step()
    return run


def _bumped(tensors):
    """A completion step marking `tensors` as modified in place."""
    def bump():
        for t in tensors:
            t._bump_version()
    return bump


def _start(pg: ProcessGroup, what: str, requests: list, async_op: bool, finish=None,
           result=None, statuses=None) -> Work | None:
    work = Work(requests, pg._timeout, what, finish, result, statuses)
    if async_op:
        return work
    work.wait()
    return None


def _unpack_into(tensors, flat: np.ndarray):
    """A completion step copying consecutive equal chunks of `flat` into `tensors`."""
    def copy():
        for t, chunk in zip(tensors, flat.reshape(len(tensors), -1)):
            t._data_to_write()[...] = chunk.reshape(t.shape)
    return copy


def _stack(tensors) -> np.ndarray:
    """`tensors`' arrays one after another in one contiguous array (an MPI buffer)."""
    return np.concatenate([t.numpy(force=True).reshape(-1) for t in tensors])


# ---------------------------------------------------------------------- collectives
def barrier(group: ProcessGroup | None = None, async_op: bool = False, device_ids=None):
    """Wait until every process of the group reached the barrier."""
    pg = _member(group, "barrier")
    if pg is None:
        return None
    # The check's all-gather is itself a barrier: no rank leaves it before all arrived.
    requests = [] if _checks.agree(pg, "barrier") else [pg._comm.Ibarrier()]
    return _start(pg, "barrier", requests, async_op)


def all_reduce(tensor, op=ReduceOp.SUM, group: ProcessGroup | None = None,
               async_op: bool = False):
    """Reduce `tensor` over the group in place: every process gets the result."""
    array = _tensor_array(tensor)
    pg = _member(group, "all_reduce")
    if pg is None:
        return None
    reduction = mpi_op(op, array)
    _checks.agree(pg, "all_reduce", tensor, op=op)
    buffer, write_back = as_buffer(array, reduce=True)
    request = pg._comm.Iallreduce(mpi().IN_PLACE, buffer, reduction)
    finish = _finish_all(_averaged(buffer, pg, op), write_back, _bumped([tensor]))
    return _start(pg, "all_reduce", [request], async_op, finish, [tensor])


def _averaged(buffer: np.ndarray, pg: ProcessGroup, op):
    """For ReduceOp.AVG, the step dividing the summed `buffer` by the group size."""
    if op != ReduceOp.AVG:
        return None

    def divide():
        np.divide(buffer, pg.size(), out=buffer, casting="unsafe")
    return divide


def broadcast(tensor, src: int | None = None, group: ProcessGroup | None = None,
              async_op: bool = False, group_src: int | None = None):
    """Copy `tensor` of process `src` into `tensor` of every other process."""
    array = _tensor_array(tensor)
    pg = _member(group, "broadcast")
    if pg is None:
        return None
    root = _peer(pg, src, group_src)
    _checks.agree(pg, "broadcast", tensor, root=root)
    buffer, write_back = as_buffer(array, reduce=False)
    request = pg._comm.Ibcast(buffer, root=root)
    finish = _finish_all(write_back, _bumped([tensor]))
    return _start(pg, "broadcast", [request], async_op, finish, [tensor])


def reduce(tensor, dst: int | None = None, op=ReduceOp.SUM, group: ProcessGroup | None = None,
           async_op: bool = False, group_dst: int | None = None):
    """Reduce `tensor` over the group into `tensor` of process `dst` only."""
    array = _tensor_array(tensor)
    pg = _member(group, "reduce")
    if pg is None:
        return None
    root = _peer(pg, dst, group_dst)
    reduction = mpi_op(op, array)
    _checks.agree(pg, "reduce", tensor, root=root, op=op)
    buffer, write_back = as_buffer(array, reduce=True)
    if pg.rank() == root:
        request = pg._comm.Ireduce(mpi().IN_PLACE, buffer, reduction, root=root)
        finish = _finish_all(_averaged(buffer, pg, op), write_back, _bumped([tensor]))
    else:
        request = pg._comm.Ireduce(buffer, None, reduction, root=root)
        finish = None
    return _start(pg, "reduce", [request], async_op, finish, [tensor])


def all_gather_into_tensor(output_tensor, input_tensor, group: ProcessGroup | None = None,
                           async_op: bool = False):
    """Every process's `input_tensor` one after another in `output_tensor` (of world_size
    times its size, concatenated or stacked on dim 0)."""
    out_array = _tensor_array(output_tensor, "output_tensor")
    in_array = _tensor_array(input_tensor, "input_tensor")
    pg = _member(group, "all_gather_into_tensor")
    if pg is None:
        return None
    _checks.same_dtypes(output_tensor, input_tensor)
    if out_array.size != in_array.size * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor "
                         f"size (got {out_array.size} and {in_array.size} * {pg.size()})")
    _checks.agree(pg, "all_gather_into_tensor", input_tensor)
    send, _ = as_buffer(in_array, reduce=False)
    receive, write_back = as_buffer(out_array, reduce=False)
    request = pg._comm.Iallgather(send, receive)
    finish = _finish_all(write_back, _bumped([output_tensor]))
    return _start(pg, "all_gather_into_tensor", [request], async_op, finish, [output_tensor])


def all_gather(tensor_list: list, tensor, group: ProcessGroup | None = None,
               async_op: bool = False):
    """`tensor_list[i]` receives process i's `tensor` (gathered into one buffer, then
    copied out; all_gather_into_tensor avoids that copy)."""
    array = _tensor_array(tensor)
    pg = _member(group, "all_gather")
    if pg is None:
        return None
    if len(tensor_list) != pg.size():
        raise ValueError(f"tensor_list must have {pg.size()} tensors (the group size), got "
                         f"{len(tensor_list)}")
    _checks.same_dtypes(*tensor_list, tensor)
    _checks.same_sizes("all_gather", tensor, tensor_list)
    _checks.agree(pg, "all_gather", tensor)
    send, _ = as_buffer(array, reduce=False)
    flat = np.empty((pg.size(),) + array.shape, array.dtype)
    receive, _ = as_buffer(flat, reduce=False)
    request = pg._comm.Iallgather(send, receive)
    return _start(pg, "all_gather", [request], async_op, _unpack_into(tensor_list, flat),
                  tensor_list)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group: ProcessGroup | None = None,
                          async_op: bool = False):
    """Reduce `input` over the group; process i gets the i-th chunk of the result."""
    out_array = _tensor_array(output, "output")
    in_array = _tensor_array(input, "input")
    pg = _member(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    _checks.same_dtypes(output, input)
    if in_array.size != out_array.size * pg.size():
        raise ValueError("input tensor must be the same size as output size times world size")
    reduction = mpi_op(op, in_array)
    _checks.agree(pg, "reduce_scatter_tensor", input, op=op)
    return _reduce_scatter(pg, output, in_array, reduction, op, async_op)


def _reduce_scatter(pg: ProcessGroup, output, in_array: np.ndarray, reduction, op,
                    async_op: bool):
    send, _ = as_buffer(in_array, reduce=True)
    receive, write_back = as_buffer(_tensor_array(output, "output"), reduce=True)
    request = pg._comm.Ireduce_scatter_block(send, receive, reduction)
    finish = _finish_all(_averaged(receive, pg, op), write_back, _bumped([output]))
    return _start(pg, "reduce_scatter", [request], async_op, finish, [output])


def reduce_scatter(output, input_list: list, op=ReduceOp.SUM,
                   group: ProcessGroup | None = None, async_op: bool = False):
    """Reduce the lists over the group; process i gets the reduced `input_list[i]`."""
    out_array = _tensor_array(output, "output")
    pg = _member(group, "reduce_scatter")
    if pg is None:
        return None
    if len(input_list) != pg.size():
        raise ValueError(f"input_list must have {pg.size()} tensors (the group size), got "
                         f"{len(input_list)}")
    _checks.same_dtypes(output, *input_list)
    _checks.same_sizes("reduce_scatter", output, input_list)
    reduction = mpi_op(op, out_array)
    _checks.agree(pg, "reduce_scatter", output, op=op)
    return _reduce_scatter(pg, output, _stack(input_list), reduction, op, async_op)


def gather(tensor, gather_list: list | None = None, dst: int | None = None,
           group: ProcessGroup | None = None, async_op: bool = False,
           group_dst: int | None = None):
    """Process `dst` receives every process's `tensor` in `gather_list`."""
    array = _tensor_array(tensor)
    pg = _member(group, "gather")
    if pg is None:
        return None
    root = _peer(pg, dst, group_dst, default=0)
    is_root = pg.rank() == root
    if not is_root and gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    if is_root:
        if gather_list is None or len(gather_list) != pg.size():
            raise ValueError("Argument ``gather_list`` must be specified on destination rank, "
                             f"with {pg.size()} tensors (the group size).")
        _checks.same_dtypes(tensor, *gather_list)
        _checks.same_sizes("gather", tensor, gather_list)
    _checks.agree(pg, "gather", tensor, root=root)
    send, _ = as_buffer(array, reduce=False)
    if not is_root:
        return _start(pg, "gather", [pg._comm.Igather(send, None, root=root)], async_op)
    flat = np.empty((pg.size(),) + array.shape, array.dtype)
    receive, _ = as_buffer(flat, reduce=False)
    request = pg._comm.Igather(send, receive, root=root)
    return _start(pg, "gather", [request], async_op, _unpack_into(gather_list, flat),
                  gather_list)


def scatter(tensor, scatter_list: list | None = None, src: int | None = None,
            group: ProcessGroup | None = None, async_op: bool = False,
            group_src: int | None = None):
    """Process i receives `scatter_list[i]` of process `src` into `tensor`."""
    array = _tensor_array(tensor)
    pg = _member(group, "scatter")
    if pg is None:
        return None
    root = _peer(pg, src, group_src, default=0)
    send = None
    if pg.rank() == root:
        if scatter_list is None or len(scatter_list) != pg.size():
            raise ValueError("Argument ``scatter_list`` must be specified on source rank, "
                             f"with {pg.size()} tensors (the group size).")
        _checks.same_dtypes(tensor, *scatter_list)
        _checks.same_sizes("scatter", tensor, scatter_list)
        send, _ = as_buffer(_stack(scatter_list), reduce=False)
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    _checks.agree(pg, "scatter", tensor, root=root)
    receive, write_back = as_buffer(array, reduce=False)
    request = pg._comm.Iscatter(send, receive, root=root)
    finish = _finish_all(write_back, _bumped([tensor]))
    return _start(pg, "scatter", [request], async_op, finish, [tensor])


def _split_rows(array: np.ndarray, splits, n: int) -> list[int]:
    """How many dim-0 rows of `array` go to (or come from) each of the n processes."""
    rows = array.shape[0] if array.ndim else 1
    if splits is None:
        if rows % n:
            raise RuntimeError("Tensor's dim 0 does not divide equally across group size")
        return [rows // n] * n
    splits = [int(s) for s in splits]
    if len(splits) != n:
        raise RuntimeError("Number of tensor splits not equal to group size")
    if sum(splits) != rows:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    return splits


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group: ProcessGroup | None = None, async_op: bool = False):
    """Process i sends its j-th chunk of `input` (dim 0) to process j, which stores it
    as its i-th chunk of `output`. Chunks are equal unless split sizes are given."""
    out_array = _tensor_array(output, "output")
    in_array = _tensor_array(input, "input")
    pg = _member(group, "all_to_all_single")
    if pg is None:
        return None
    n = pg.size()
    _checks.same_dtypes(output, input)
    if out_array.shape[1:] != in_array.shape[1:]:
        raise RuntimeError(f"all_to_all_single: output and input must have the same shape "
                           f"after dim 0 (got {tuple(out_array.shape)} and "
                           f"{tuple(in_array.shape)})")
    send_rows = _split_rows(in_array, input_split_sizes, n)
    receive_rows = _split_rows(out_array, output_split_sizes, n)
    _checks.agree(pg, "all_to_all_single", input)
    _checks.agree_splits(pg, input, send_rows, receive_rows)
    row = int(np.prod(in_array.shape[1:]))

    def counts_and_offsets(rows: list[int]):
        counts = [r * row for r in rows]
        return counts, list(np.cumsum([0] + counts[:-1]))
    send, _ = as_buffer(in_array, reduce=False)
    receive, write_back = as_buffer(out_array, reduce=False)
    request = pg._comm.Ialltoallv([send, counts_and_offsets(send_rows)],
                                  [receive, counts_and_offsets(receive_rows)])
    finish = _finish_all(write_back, _bumped([output]))
    return _start(pg, "all_to_all_single", [request], async_op, finish, [output])


# ---------------------------------------------------------------------- point to point
def _p2p_peer(pg: ProcessGroup, rank, group_rank, what: str) -> int:
    peer = _peer(pg, rank, group_rank)
    if peer == pg.rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the "
                         "rank of the current process.")
    return peer


def isend(tensor, dst: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
          group_dst: int | None = None) -> Work | None:
    """Start sending `tensor` to process `dst`; returns a Work to wait on."""
    array = _tensor_array(tensor)
    pg = _member(group, "isend")
    if pg is None:
        return None
    peer = _p2p_peer(pg, dst, group_dst, "destination")
    buffer, _ = as_buffer(array, reduce=False)
    if not pg._checked:
        return _start(pg, "send", [pg._comm.Isend(buffer, dest=peer, tag=tag)], True)
    payload_tag = pg._next_payload_tag()
    header = _checks.send_header(tensor, payload_tag)
    requests = [pg._comm.Isend(header, dest=peer, tag=tag),
                pg._payloads.Isend(buffer, dest=peer, tag=payload_tag)]
    return _start(pg, "send", requests, True)


def irecv(tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
          group_src: int | None = None) -> Work | None:
    """Start receiving into `tensor` from process `src` (any process if None)."""
    array = _tensor_array(tensor)
    pg = _member(group, "irecv")
    if pg is None:
        return None
    MPI = mpi()
    peer = MPI.ANY_SOURCE if src is None and group_src is None else \
        _p2p_peer(pg, src, group_src, "source")
    status = MPI.Status()
    if not pg._checked:
        buffer, write_back = as_buffer(array, reduce=False)
        return _start(pg, "recv", [pg._comm.Irecv(buffer, source=peer, tag=tag)], True,
                      _finish_all(write_back, _bumped([tensor])), [tensor], [status])
    header = np.empty(_checks.HEADER_SIZE, np.int64)

    def receive_payload():
        """The header arrived: receive the payload it announces, checked against `tensor`."""
        sender, payload_tag = status.Get_source(), _checks.payload_tag(header)
        problem = _checks.receive_mismatch(header, tensor, pg._ranks[sender], get_rank())
        if problem is None:
            buffer, write_back = as_buffer(array, reduce=False)
            return ([pg._payloads.Irecv(buffer, source=sender, tag=payload_tag)],
                    _finish_all(write_back, _bumped([tensor])))
        # Take the payload anyway, so that the sender is not left waiting for its receiver.
        discard = np.empty(_checks.payload_nbytes(header), np.uint8)

        def fail():
            raise RuntimeError(problem)
        return [pg._payloads.Irecv(discard, source=sender, tag=payload_tag)], fail

    request = pg._comm.Irecv(header, source=peer, tag=tag)
    return _start(pg, "recv", [request], True, receive_payload, [tensor], statuses=[status])


def send(tensor, dst: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
         group_dst: int | None = None) -> None:
    """Send `tensor` to process `dst` and wait until it is sent."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into `tensor` from process `src` (any if None); returns the sender's
    global rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    return get_global_rank(_resolve(group), work.source_rank())
