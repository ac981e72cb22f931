"""The MNIST example: a classic digit-classification CNN trained with ember end to end.

    python examples/mnist.py                          # MNIST-1D (generated offline), 1-D CNN
    python examples/mnist.py --dataset digits         # scikit-learn's 8x8 digits, 2-D CNN
    python examples/mnist.py --data-dir ../data       # real MNIST from IDX files under
                                                      # ../data/MNIST/raw/ (torchvision layout)
    python examples/mnist.py --model mlp --epochs 10 --resume --logdir runs/tb --amp

Each epoch prints the train and test loss and accuracy. Every epoch writes a checkpoint
(model, optimizer, scheduler, random state and the curves so far) to
<save-dir>/checkpoint.pt, which `--resume` continues from, and a PNG plot of the curves
to <save-dir>/curves.png. The code is plain PyTorch with `import ember as torch`.

tqdm (progress bar), matplotlib (plot) and tensorboard (--logdir) are optional
(`pip install -e '.[examples,tensorboard]'`); without them the example says so once and
trains all the same.
"""
from __future__ import annotations

import argparse
import importlib
import math
import os
import time

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader
from ember.vision import datasets, transforms

# Per dataset: the default epochs, batch size, learning rate and the epochs between
# halvings of the learning rate (StepLR), tuned to pass the acceptance figures quickly
# on a laptop CPU (see examples/README.md).
DEFAULTS = {
    "mnist1d": {"epochs": 40, "batch_size": 100, "lr": 3e-3, "step_size": 10},
    "digits": {"epochs": 20, "batch_size": 32, "lr": 1e-3, "step_size": 8},
    "mnist": {"epochs": 5, "batch_size": 64, "lr": 1e-3, "step_size": 2},
}


class Net(nn.Module):
    """The classic MNIST CNN of PyTorch's examples: two 3x3 convolutions, max pooling,
    dropout and two linear layers, for square images of any side (28 for MNIST, 8 for
    scikit-learn's digits)."""

    def __init__(self, side: int = 28) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        pooled = (side - 4) // 2          # two unpadded 3x3 convolutions, then 2x2 pooling
        self.fc1 = nn.Linear(64 * pooled * pooled, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


class Net1d(nn.Module):
    """The 1-D counterpart for MNIST-1D's length-40 signals: three blocks of
    convolution, batch normalization, ReLU and 2x max pooling, dropout, a linear layer."""

    def __init__(self, length: int = 40, channels: int = 64) -> None:
        super().__init__()

        def block(in_channels: int, out_channels: int, kernel_size: int) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv1d(in_channels, out_channels, kernel_size, padding=kernel_size // 2),
                nn.BatchNorm1d(out_channels), nn.ReLU(), nn.MaxPool1d(2))

        self.features = nn.Sequential(block(1, channels // 2, 5),
                                      block(channels // 2, channels, 3),
                                      block(channels, channels, 3))
        self.dropout = nn.Dropout(0.25)
        self.fc = nn.Linear(channels * (length // 8), 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.dropout(torch.flatten(self.features(x), 1))
        return F.log_softmax(self.fc(x), dim=1)


class MLP(nn.Module):
    """A plain multilayer perceptron: two hidden layers with ReLU and dropout. (The
    MNIST-1D paper's has 100 units a layer and no dropout; wider and with dropout it
    overfits MNIST-1D's 4,000 signals less.)"""

    def __init__(self, in_features: int, hidden: int = 1024, dropout: float = 0.5) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_features, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.log_softmax(self.layers(x), dim=1)


def optional_import(name: str, missing: str):
    """Import an optional module, or say in one line what is skipped without it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        print(f"note: {name.split('.')[0]} is not installed: {missing} "
              f"(pip install -e '.[examples,tensorboard]')")
        return None


def load_datasets(args: argparse.Namespace) -> tuple:
    """The train and test datasets; every item is (float tensor (1, ...), int label)."""
    if args.dataset == "mnist1d":       # generated with the paper's default arguments
        return datasets.MNIST1D(train=True), datasets.MNIST1D(train=False)
    if args.dataset == "digits":        # items in [0, 1], normalized with the train statistics
        normalize = transforms.Normalize((0.3054,), (0.3759,))
        return (datasets.Digits(train=True, transform=normalize),
                datasets.Digits(train=False, transform=normalize))
    transform = transforms.Compose([transforms.ToTensor(),
                                    transforms.Normalize((0.1307,), (0.3081,))])
    return (datasets.MNIST(args.data_dir, train=True, download=False, transform=transform),
            datasets.MNIST(args.data_dir, train=False, download=False, transform=transform))


def build_model(args: argparse.Namespace, sample_shape: tuple) -> nn.Module:
    if args.model == "mlp":
        return MLP(math.prod(sample_shape))
    if args.dataset == "mnist1d":
        return Net1d(sample_shape[-1])
    return Net(sample_shape[-1])


def train_epoch(model: nn.Module, loader: DataLoader, optimizer: torch.optim.Optimizer,
                args: argparse.Namespace, bar=None) -> tuple[float, float]:
    """One pass over the training set; the mean loss and the accuracy seen on the way."""
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    for data, target in loader:
        optimizer.zero_grad()
        # bfloat16 autocast needs no GradScaler: its exponent range is float32's.
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.amp):
            output = model(data)
            loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * len(target)
        correct += (output.argmax(dim=1) == target).sum().item()
        seen += len(target)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{loss.item():.4f}")
    return total_loss / seen, correct / seen


def evaluate(model: nn.Module, loader: DataLoader, args: argparse.Namespace) -> tuple:
    """The mean loss and the accuracy on a whole dataset."""
    model.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.amp):
        for data, target in loader:
            output = model(data)
            total_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += (output.argmax(dim=1) == target).sum().item()
    return total_loss / len(loader.dataset), correct / len(loader.dataset)


def plot_curves(pyplot, history: dict, path: str) -> None:
    """Loss and accuracy per epoch, train and test, side by side in one PNG."""
    epochs = range(1, len(history["train_loss"]) + 1)
    figure, (loss_axes, acc_axes) = pyplot.subplots(1, 2, figsize=(10, 4))
    for split in ("train", "test"):
        loss_axes.plot(epochs, history[f"{split}_loss"], label=split)
        acc_axes.plot(epochs, [100 * a for a in history[f"{split}_acc"]], label=split)
    loss_axes.set(xlabel="epoch", ylabel="loss", title="loss")
    acc_axes.set(xlabel="epoch", ylabel="accuracy (%)", title="accuracy")
    for axes in (loss_axes, acc_axes):
        axes.grid(alpha=0.3)
        axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def parse_args(argv: list | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="ember MNIST example")
    parser.add_argument("--dataset", choices=sorted(DEFAULTS),
                        help="mnist1d (generated), digits (scikit-learn) or mnist (IDX files "
                             "under --data-dir); default: mnist with --data-dir, else mnist1d")
    parser.add_argument("--data-dir", help="root holding MNIST/raw/*-idx?-ubyte[.gz]")
    parser.add_argument("--model", choices=("cnn", "mlp"), default="cnn")
    parser.add_argument("--epochs", type=int, help="total epochs (default per dataset)")
    parser.add_argument("--batch-size", type=int, help="training batch (default per dataset)")
    parser.add_argument("--test-batch-size", type=int, default=1000)
    parser.add_argument("--lr", type=float, help="Adam learning rate (default per dataset)")
    parser.add_argument("--step-size", type=int,
                        help="epochs between halvings of the learning rate (default per dataset)")
    parser.add_argument("--weight-decay", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1, help="random seed (default: 1)")
    parser.add_argument("--num-workers", type=int, default=0, help="DataLoader worker processes")
    parser.add_argument("--amp", action="store_true", help="bfloat16 autocast (mixed precision)")
    parser.add_argument("--save-dir", help="checkpoint and plot directory "
                                           "(default: runs/<dataset>-<model>)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from <save-dir>/checkpoint.pt")
    parser.add_argument("--logdir", help="write TensorBoard logs there")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.dataset is None:
        args.dataset = "mnist" if args.data_dir else "mnist1d"
    if args.dataset == "mnist" and not args.data_dir:
        parser.error("--dataset mnist needs --data-dir (the root holding MNIST/raw/)")
    for name, value in DEFAULTS[args.dataset].items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    args.save_dir = args.save_dir or os.path.join("runs", f"{args.dataset}-{args.model}")
    return args


def main(argv: list | None = None) -> dict:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    tqdm = None if args.no_progress else optional_import("tqdm", "no progress bar")
    matplotlib = optional_import("matplotlib", "no plot of the curves")
    if matplotlib is not None:
        matplotlib.use("Agg")             # draw to files, no window
        import matplotlib.pyplot as pyplot
    writer = None
    if args.logdir:
        tensorboard = optional_import("ember.utils.tensorboard", "no TensorBoard logs")
        writer = tensorboard and tensorboard.SummaryWriter(args.logdir)

    train_set, test_set = load_datasets(args)
    # Each epoch reseeds the shuffling generator with (seed, epoch), so a resumed run
    # sees the same batches as an uninterrupted one.
    shuffle_generator = torch.Generator()
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              num_workers=args.num_workers, generator=shuffle_generator,
                              persistent_workers=args.num_workers > 0)
    test_loader = DataLoader(test_set, batch_size=args.test_batch_size,
                             num_workers=args.num_workers)
    model = build_model(args, tuple(train_set[0][0].shape))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr,
                                 weight_decay=args.weight_decay)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.step_size, gamma=0.5)
    history = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}

    os.makedirs(args.save_dir, exist_ok=True)
    checkpoint_path = os.path.join(args.save_dir, "checkpoint.pt")
    start_epoch = 1
    if args.resume:
        if not os.path.exists(checkpoint_path):
            raise SystemExit(f"--resume: no checkpoint at {checkpoint_path}")
        checkpoint = torch.load(checkpoint_path)
        for name in ("dataset", "model"):
            if checkpoint["args"][name] != getattr(args, name):
                raise SystemExit(f"--resume: {checkpoint_path} was trained with --{name} "
                                 f"{checkpoint['args'][name]}, not {getattr(args, name)}")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scheduler.load_state_dict(checkpoint["scheduler"])
        torch.set_rng_state(checkpoint["rng_state"])
        history = checkpoint["history"]
        start_epoch = checkpoint["epoch"] + 1
        print(f"resumed from {checkpoint_path} (epoch {checkpoint['epoch']})")

    print(f"{args.dataset}: {len(train_set)} train / {len(test_set)} test, model "
          f"{args.model} ({sum(p.numel() for p in model.parameters()):,} parameters)")
    started = time.perf_counter()
    for epoch in range(start_epoch, args.epochs + 1):
        shuffle_generator.manual_seed(args.seed * 1000 + epoch)
        bar = tqdm and tqdm.tqdm(total=len(train_loader), desc=f"epoch {epoch}", leave=False)
        train_loss, train_acc = train_epoch(model, train_loader, optimizer, args, bar)
        if bar is not None:
            bar.close()
        test_loss, test_acc = evaluate(model, test_loader, args)
        scheduler.step()
        for name, value in zip(history, (train_loss, train_acc, test_loss, test_acc)):
            history[name].append(value)
            if writer is not None:
                split, metric = name.split("_")
                writer.add_scalar(f"{metric}/{split}", value, epoch)
        print(f"epoch {epoch:3d}  train loss {train_loss:.4f} acc {100 * train_acc:5.2f}%  "
              f"test loss {test_loss:.4f} acc {100 * test_acc:5.2f}%  "
              f"({time.perf_counter() - started:.1f}s)")
        # Written to a side file first, so an interrupted save keeps the last checkpoint.
        torch.save({"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                    "rng_state": torch.get_rng_state(), "history": history,
                    "args": vars(args)}, checkpoint_path + ".tmp")
        os.replace(checkpoint_path + ".tmp", checkpoint_path)

    if history["test_acc"]:
        print(f"final test accuracy {100 * history['test_acc'][-1]:.2f}% "
              f"({time.perf_counter() - started:.1f}s of training)")
    if writer is not None:
        writer.close()
    if matplotlib is not None and history["train_loss"]:
        plot_curves(pyplot, history, os.path.join(args.save_dir, "curves.png"))
    return history


if __name__ == "__main__":
    main()
