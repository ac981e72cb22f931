"""torch's CPU data-parallel recipe: mp.spawn starts the workers, each joins a gloo group
by rank and world size, trains a DDP model and prints its weights; `fail` makes rank 1
raise before or after joining, or die of SIGKILL. Run with torch, and with `ember run` (where spawn's
processes are MPI ranks)."""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel


def train(rank, world_size, fail, out):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = sys.argv[2]
    if fail == "before" and rank == 1:
        raise ValueError("rank 1 failed before joining")
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    if fail == "after" and rank == 1:
        raise ValueError("rank 1 failed in the group")
    if fail == "killed" and rank == 1:
        os.kill(os.getpid(), 9)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    ddp = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    torch.manual_seed(rank)
    for _ in range(3):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(ddp(torch.randn(5, 6)), torch.randn(5, 3)).backward()
        optimizer.step()
    out[rank] = model[2].weight.sum()
    dist.destroy_process_group()


if __name__ == "__main__":
    fail = sys.argv[1]
    out = torch.zeros(2, dtype=torch.float64).share_memory_()
    try:
        mp.spawn(train, args=(2, fail, out), nprocs=2)
    except mp.ProcessRaisedException as error:
        lines = str(error).strip().splitlines()
        print("raised", type(error).__name__, error.error_index, lines[0], lines[-1])
    except mp.ProcessExitedException as error:
        print("raised", type(error).__name__, error.error_index, error, error.exit_code,
              error.signal_name)
    print("weights", out.tolist())
