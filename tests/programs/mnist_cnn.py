"""An MNIST-style digit classifier in the shape of PyTorch's examples: a small CNN,
Adadelta with StepLR, torch.accelerator device selection, --save-model.

The images are synthetic: each class is a fixed random 16x16 pattern plus noise.

    python mnist_cnn.py --steps 10 --save-model
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(16 * 6 * 6, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


def synthetic_digits(count: int, generator: torch.Generator) -> TensorDataset:
    templates = torch.randn(10, 1, 16, 16, generator=torch.Generator().manual_seed(1234))
    labels = torch.randint(0, 10, (count,), generator=generator)
    images = templates[labels] + 0.5 * torch.randn(count, 1, 16, 16, generator=generator)
    return TensorDataset(images, labels)


def main():
    parser = argparse.ArgumentParser(description="MNIST-style CNN on synthetic digits")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--steps", type=int, default=20, help="training batches to run")
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--gamma", type=float, default=0.7)
    parser.add_argument("--no-accel", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save-model", action="store_true")
    args = parser.parse_args()

    use_accel = not args.no_accel and torch.accelerator.is_available()
    device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
    torch.manual_seed(args.seed)

    data = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(synthetic_digits(256, data), batch_size=args.batch_size,
                              shuffle=True)
    test_loader = DataLoader(synthetic_digits(64, data), batch_size=64)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)

    step = 0
    while step < args.steps:
        model.train()
        for data_batch, target in train_loader:
            data_batch, target = data_batch.to(device), target.to(device)
            optimizer.zero_grad()
            loss = F.nll_loss(model(data_batch), target)
            loss.backward()
            optimizer.step()
            print(f"step {step} loss {loss.item():.4f}")
            step += 1
            if step == args.steps:
                break
        scheduler.step()

    model.eval()
    correct = 0
    with torch.no_grad():
        for data_batch, target in test_loader:
            output = model(data_batch.to(device))
            correct += output.argmax(dim=1).eq(target.to(device)).sum().item()
    print(f"test accuracy {correct}/{len(test_loader.dataset)}")

    if args.save_model:
        torch.save(model.state_dict(), "mnist_cnn.pt")
        restored = Net()
        restored.load_state_dict(torch.load("mnist_cnn.pt", weights_only=True))
        restored.eval()
        assert torch.equal(restored(data_batch), output)
    print(f"output shape {tuple(output.shape)}")


if __name__ == "__main__":
    main()
