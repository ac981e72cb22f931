"""torch.multiprocessing: Python's multiprocessing, with tensors shared between processes.

Everything of `multiprocessing` is here under the same names (Process, Queue, Pool,
get_context, set_start_method ...). Importing this module registers reductions (see
reductions.py) so that a tensor pickled for another process -- a spawned Process's
argument, anything put on a Queue or Pipe -- travels as a handle to shared memory: its
storage is moved there first, and both processes then see the same memory, as in torch.
With 'fork', a tensor already shared before the fork (Tensor.share_memory_,
Module.share_memory) is shared with the children; others are copied on write.

`spawn` / `start_processes` run fn(i, *args) in several processes and report a failing
child's traceback in the parent. The sharing strategy says how a handle travels:
'file_descriptor' (the default) or 'file_system' (see ember/_shared_memory.py).
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403  (torch re-exports all of it)

from .._shared_memory import SHARING_STRATEGIES, get_sharing_strategy, set_sharing_strategy
from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,  # noqa: F401
                    SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__


def get_all_sharing_strategies() -> set:
    """The sharing strategies this system supports."""
    return set(SHARING_STRATEGIES)


init_reductions()
