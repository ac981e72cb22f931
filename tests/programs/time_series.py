"""Sine-wave prediction in the shape of PyTorch's time_sequence_prediction example: two
stacked LSTMCells unrolled by hand in float64, trained with LBFGS and a closure, then
run on past its inputs to predict the future.

    python time_series.py --steps 3
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class Sequence(nn.Module):
    def __init__(self, hidden=24):
        super().__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):  # feed the predictions back in
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)


def main():
    parser = argparse.ArgumentParser(description="LSTMCell + LBFGS on sine waves")
    parser.add_argument("--steps", type=int, default=5, help="LBFGS steps")
    args = parser.parse_args()

    np.random.seed(2)
    torch.manual_seed(0)
    T, L, N = 20, 60, 8
    x = np.arange(L) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    data = np.sin(x / 1.0 / T).astype("float64")
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])

    seq = Sequence()
    seq.double()
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.3, max_iter=8)
    for step in range(args.steps):
        def closure():
            optimizer.zero_grad()
            loss = criterion(seq(input), target)
            loss.backward()
            return loss
        loss = optimizer.step(closure)
        print(f"step {step} loss {loss.item():.6f}")

    with torch.no_grad():
        future = 20
        pred = seq(test_input, future=future)
    print(f"output shape {tuple(pred.shape)}")


if __name__ == "__main__":
    main()
