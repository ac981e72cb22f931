"""Writes to $INFO_DIR/rank<RANK>.json what a launched process sees: torchrun's
environment variables, its argv, the module `import torch` gave it, the MPI
shared-memory segments it has open and (with --init, after joining the process group
and all-reducing) the rank MPI gave it. The segments are written first, before any
failure: the tests check that none of them outlives a failed job.

Ways to fail: --fail-early (rank 1 raises before init_process_group), --crash (rank 1
raises after it), --kill (rank 1 dies of SIGKILL), --mismatch (the ranks all-reduce
tensors of different sizes), --hang (every rank waits until the launcher is stopped)."""
import json
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

rank = os.environ["RANK"]
info = {name: os.environ.get(name) for name in
        ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
         "OMP_NUM_THREADS")}
info["argv"] = sys.argv[1:]
info["torch"] = torch.__name__
info["pid"] = os.getpid()
with open("/proc/self/maps") as maps:
    info["segments"] = sorted({line.split()[5] for line in maps
                               if len(line.split()) == 6 and "/dev/shm/mpich" in line})
with open(os.path.join(os.environ["INFO_DIR"], f"rank{rank}.json"), "w") as f:
    json.dump(info, f)

if "--fail-early" in sys.argv and rank == "1":
    raise RuntimeError("launched rank 1 failed before init_process_group")
if "--init" in sys.argv:
    dist.init_process_group("gloo")
    t = torch.ones(1)
    dist.all_reduce(t)
    info["sum"] = t.item()
    info["rank"] = dist.get_rank()
    if "--crash" in sys.argv and dist.get_rank() == 1:
        raise RuntimeError("launched rank 1 failed")
    if "--kill" in sys.argv and dist.get_rank() == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    if "--mismatch" in sys.argv:
        dist.all_reduce(torch.ones(4 if dist.get_rank() == 0 else 6))
    if "--hang" in sys.argv:
        time.sleep(60)
    dist.barrier()
with open(os.path.join(os.environ["INFO_DIR"], f"rank{rank}.json"), "w") as f:
    json.dump(info, f)
