"""Polynomial regression in the shape of PyTorch's regression example, with the model
wrapped in nn.DataParallel as multi-GPU scripts do: features [x, x^2, x^3, x^4], a
smooth L1 loss, a hand-written SGD step through `param.data`, and a checkpoint whose
'module.'-prefixed keys are stripped to load into the bare model.

    python data_parallel.py --steps 10
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

POLY_DEGREE = 4


def make_features(x):
    """A matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def main():
    parser = argparse.ArgumentParser(description="DataParallel polynomial regression")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()

    torch.manual_seed(0)
    w_target = torch.tensor([[2.5], [-3.0], [1.5], [4.0]])
    b_target = torch.tensor([1.2])

    def get_batch():
        x = make_features(torch.rand(args.batch_size) * 2 - 1)
        return x, x.mm(w_target) + b_target.item()

    model = nn.DataParallel(nn.Linear(POLY_DEGREE, 1))
    for step in range(args.steps):
        batch_x, batch_y = get_batch()
        model.zero_grad()
        loss = F.smooth_l1_loss(model(batch_x), batch_y)
        loss.backward()
        for param in model.parameters():
            param.data.add_(-args.lr * param.grad)
        print(f"step {step} loss {loss.item():.4f}")

    torch.save(model.state_dict(), "regression.pt")
    state_dict = torch.load("regression.pt")
    assert all(key.startswith("module.") for key in state_dict)
    consume_prefix_in_state_dict_if_present(state_dict, "module.")
    bare = nn.Linear(POLY_DEGREE, 1)
    bare.load_state_dict(state_dict)
    output = bare(make_features(torch.linspace(-1, 1, 5)))
    print(f"output shape {tuple(output.shape)}")


if __name__ == "__main__":
    main()
