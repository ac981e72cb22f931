"""Functions that tests/test_multiprocessing.py runs in child processes. They live apart
from the tests so that a spawned child, which imports the module of its function, loads
ember alone, not torch as well."""
import os
import sys

import ember


def add_one(tensor):
    tensor.add_(1)


def add_one_from_queue(queue):
    tensor, view = queue.get()
    tensor.add_(1)
    view.mul_(10)


def report_views(queue, answers):
    a, b = queue.get()
    b[0] = 42
    answers.put((a.storage_offset(), b.storage_offset(), a.tolist()))


def fail_in_one(i):
    if i == 1:
        raise ValueError(f"boom in {i}")


def exit_with_three(i):
    sys.exit(3)


def kill_self(i):
    os.kill(os.getpid(), 9)


def write_index(i, out):
    out[i] = i + 10


def hogwild_train(rank, model, losses, steps=40):
    ember.manual_seed(rank)
    x = ember.randn(64, 4)
    y = x @ ember.tensor([[1.0], [-2.0], [3.0], [0.5]])
    optimizer = ember.optim.SGD(model.parameters(), lr=0.05)
    for step in range(steps):
        optimizer.zero_grad()
        loss = ember.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if step in (0, steps - 1):
            losses[rank, 0 if step == 0 else 1] = loss.item()
