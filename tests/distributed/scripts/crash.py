"""The last rank raises after init_process_group while the others wait in a collective
(with the default 30-minute timeout): the whole job must stop at once. Each rank writes
its pid to the directory given as argv[1] so the test can check none is left."""
import os
import sys

import ember
import ember.distributed as dist

dist.init_process_group("mpi")
rank = dist.get_rank()
with open(os.path.join(sys.argv[1], f"pid{rank}"), "w") as f:
    f.write(str(os.getpid()))
dist.barrier()
if rank == dist.get_world_size() - 1:
    raise ValueError(f"boom from rank {rank}")
dist.all_reduce(ember.ones(4))
