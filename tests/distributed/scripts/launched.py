"""Writes to $INFO_DIR/rank<RANK>.json what a launched process sees: torchrun's
environment variables, its argv, and (with --init, after joining the process group and
all-reducing) the rank MPI gave it. --crash / --fail-early make rank 1 raise after /
before init_process_group."""
import json
import os
import sys

import ember
import ember.distributed as dist

info = {name: os.environ.get(name) for name in
        ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
         "OMP_NUM_THREADS")}
info["argv"] = sys.argv[1:]
if "--fail-early" in sys.argv and os.environ["RANK"] == "1":
    raise RuntimeError("launched rank 1 failed before init_process_group")
if "--init" in sys.argv:
    dist.init_process_group("gloo")
    t = ember.ones(1)
    dist.all_reduce(t)
    info["sum"] = t.item()
    info["rank"] = dist.get_rank()
    if "--crash" in sys.argv and dist.get_rank() == 1:
        raise RuntimeError("launched rank 1 failed")
    dist.barrier()
with open(os.path.join(os.environ["INFO_DIR"], f"rank{os.environ['RANK']}.json"), "w") as f:
    json.dump(info, f)
