"""Distributed data-parallel training as torchrun starts it: the rank and world size
come from the RANK / LOCAL_RANK / WORLD_SIZE environment variables, the processes join
a "gloo" process group, each trains on its DistributedSampler shard through
DistributedDataParallel, gradient accumulation skips the all-reduce with no_sync() on
all but the last micro-batch, and rank 0 logs the loss averaged over ranks and saves
the unwrapped model.

    torchrun --nproc-per-node 2 ddp.py --steps 10
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def synthetic_classes(count: int) -> TensorDataset:
    generator = torch.Generator().manual_seed(0)
    centres = 2 * torch.randn(4, 8, generator=generator)
    labels = torch.randint(0, 4, (count,), generator=generator)
    return TensorDataset(centres[labels] + torch.randn(count, 8, generator=generator), labels)


def main():
    parser = argparse.ArgumentParser(description="DDP on synthetic clusters")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--accumulation", type=int, default=2)
    args = parser.parse_args()

    rank = int(os.environ["RANK"])
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    dist.init_process_group(backend="gloo")
    assert (dist.get_rank(), dist.get_world_size()) == (rank, world_size)
    device = torch.device("cpu")
    torch.manual_seed(local_rank)  # different initial weights: DDP broadcasts rank 0's

    dataset = synthetic_classes(512)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, seed=0)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    model = DDP(nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4)).to(device))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    step, epoch, batches = 0, 0, []
    while step < args.steps:
        sampler.set_epoch(epoch)
        for x, y in loader:
            batches.append((x.to(device), y.to(device)))
            if len(batches) < args.accumulation:
                with model.no_sync():  # accumulate locally, no all-reduce yet
                    F.cross_entropy(model(x), y).div(args.accumulation).backward()
                continue
            loss = F.cross_entropy(model(x), y)
            loss.div(args.accumulation).backward()
            optimizer.step()
            optimizer.zero_grad()
            batches.clear()
            mean_loss = loss.detach().clone()
            dist.all_reduce(mean_loss, op=dist.ReduceOp.SUM)
            if rank == 0:
                print(f"step {step} loss {mean_loss.item() / world_size:.4f}")
            step += 1
            if step == args.steps:
                break
        epoch += 1

    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    everyone = [torch.zeros_like(flat) for _ in range(world_size)]
    dist.all_gather(everyone, flat)
    assert all(torch.equal(other, flat) for other in everyone), "replicas diverged"
    if rank == 0:
        torch.save(model.module.state_dict(), "ddp.pt")
        output = model.module(dataset.tensors[0][:10])
        print(f"output shape {tuple(output.shape)}")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
