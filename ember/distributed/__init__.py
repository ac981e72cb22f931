"""ember.distributed: torch.distributed's process groups and collectives, carried out by
MPI through mpi4py (`pip install ember[distributed]`).

Start the processes with `python -m ember.distributed.run --nproc-per-node N script.py`
(torchrun's options and environment variables) or `mpiexec -n N python script.py`, then
call `init_process_group()`. mpi4py is imported, and MPI initialised, only when a
function here first needs it.
"""
from ._mpi import ReduceOp, Work
from ._object_collectives import (all_gather_object, broadcast_object_list,  # noqa: F401
                                  gather_object, scatter_object_list)
from .distributed_c10d import (Backend, GroupMember, ProcessGroup, all_gather,  # noqa: F401
                               all_gather_into_tensor, all_reduce, all_to_all_single,
                               barrier, broadcast, default_pg_timeout, destroy_process_group,
                               gather, get_backend, get_default_backend_for_device,
                               get_global_rank, get_group_rank,
                               get_node_local_rank, get_process_group_ranks, get_rank,
                               get_world_size, group, init_process_group, irecv,
                               is_available, is_gloo_available, is_initialized,
                               is_mpi_available, is_nccl_available, is_torchelastic_launched,
                               isend, new_group, recv, reduce, reduce_scatter,
                               reduce_scatter_tensor, scatter, send)

__all__ = ["ReduceOp", "Work", "Backend", "GroupMember", "ProcessGroup", "group",
           "default_pg_timeout", "is_available", "is_mpi_available", "is_gloo_available",
           "is_nccl_available", "is_initialized", "is_torchelastic_launched",
           "init_process_group", "destroy_process_group", "new_group", "get_backend",
           "get_default_backend_for_device",
           "get_rank", "get_world_size", "get_process_group_ranks", "get_global_rank",
           "get_group_rank", "get_node_local_rank", "barrier", "all_reduce", "broadcast",
           "reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter",
           "reduce_scatter_tensor", "gather", "scatter", "all_to_all_single", "send", "recv",
           "isend", "irecv", "all_gather_object", "gather_object", "broadcast_object_list",
           "scatter_object_list"]
