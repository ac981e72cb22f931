"""Hogwild training in the shape of PyTorch's mnist_hogwild example: the model's
parameters are moved to shared memory with model.share_memory(), then several
torch.multiprocessing Processes train that one model at once, each with its own
optimizer and without locks, while the parent waits and finally evaluates it.

The data are synthetic clusters. Each worker reports its losses through a queue; the
parent prints the workers' mean loss per step.

    python hogwild.py --steps 10 --num-processes 2
"""
import argparse

import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def train(rank, args, model, inputs, targets, losses):
    torch.manual_seed(args.seed + rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.5)
    for step in range(args.steps):
        batch = torch.randint(0, len(inputs), (args.batch_size,))
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs[batch]), targets[batch])
        loss.backward()
        optimizer.step()
        losses.put((rank, step, loss.item()))


def main():
    parser = argparse.ArgumentParser(description="Hogwild on synthetic clusters")
    parser.add_argument("--steps", type=int, default=20, help="steps per process")
    parser.add_argument("--num-processes", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start-method", default="spawn", choices=["spawn", "fork",
                                                                    "forkserver"])
    args = parser.parse_args()

    mp.set_start_method(args.start_method, force=True)
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(0)
    centres = 2 * torch.randn(4, 10, generator=generator)
    targets = torch.randint(0, 4, (512,), generator=generator)
    inputs = centres[targets] + torch.randn(512, 10, generator=generator)

    model = Net()
    model.share_memory()  # gradients are allocated lazily, so they are not shared
    with torch.no_grad():
        initial = F.cross_entropy(model(inputs), targets).item()

    losses = mp.Queue()
    processes = [mp.Process(target=train, args=(rank, args, model, inputs, targets, losses))
                 for rank in range(args.num_processes)]
    for p in processes:
        p.start()
    reports = [losses.get(timeout=120) for _ in range(args.steps * args.num_processes)]
    for p in processes:
        p.join()
        assert p.exitcode == 0, f"worker exited with {p.exitcode}"

    for step in range(args.steps):
        step_losses = [loss for _, s, loss in reports if s == step]
        print(f"step {step} loss {sum(step_losses) / len(step_losses):.4f}")
    with torch.no_grad():
        output = model(inputs)
        final = F.cross_entropy(output, targets).item()
    print(f"shared model loss {initial:.4f} -> {final:.4f}")
    assert final < initial, "the workers' updates did not reach the shared model"
    print(f"output shape {tuple(output.shape)}")


if __name__ == "__main__":
    main()
