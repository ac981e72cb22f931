"""Seed 004: the grokking-pytorch MNIST walk-through, end to end on ember and torch.

torchvision is not installed next to torch here, so torch reads the same images
through a TensorDataset built from the IDX files with NumPy (ToTensor + Normalize
written out), while ember runs the note's own `datasets.MNIST` + `transforms` code.
"""
import argparse
import struct

import numpy as np
import pytest

import ember
from seedkit import check, same, seeded

MEAN, STD = 0.1307, 0.3081


def write_idx(root, n_train=48, n_test=16):
    """A tiny MNIST in torchvision's layout: root/MNIST/raw/*-ubyte."""
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    rng = np.random.default_rng(0)
    arrays = {}
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        targets = rng.integers(0, 10, n, dtype=np.uint8)
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(
            struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(
            struct.pack(">II", 2049, n) + targets.tobytes())
        arrays[prefix] = images, targets
    return arrays


def parse_args(torch):
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example')
    parser.add_argument('--batch-size', type=int, default=16, metavar='N')
    parser.add_argument('--epochs', type=int, default=10, metavar='N')
    parser.add_argument('--lr', type=float, default=0.01, metavar='LR')
    parser.add_argument('--momentum', type=float, default=0.5, metavar='M')
    parser.add_argument('--no-cuda', action='store_true', default=False)
    parser.add_argument('--seed', type=int, default=1, metavar='S')
    parser.add_argument('--resume', action='store_true', default=False)
    return parser.parse_args(args=[])


def make_net(torch):
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
            self.conv2_drop = nn.Dropout2d()
            self.fc1 = nn.Linear(320, 50)
            self.fc2 = nn.Linear(50, 10)

        def forward(self, x):
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 320)
            x = F.relu(self.fc1(x))
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)
    return Net()


def loaders(torch, root, arrays, batch_size):
    if torch is ember:
        from ember.vision import datasets, transforms
        tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((MEAN,), (STD,))])
        train_data = datasets.MNIST(str(root), train=True, download=False, transform=tf)
        test_data = datasets.MNIST(str(root), train=False, transform=tf)
    else:
        def tensors(prefix):
            images, targets = arrays[prefix]
            x = ((images.astype(np.float32) / 255 - MEAN) / STD)[:, None]
            return torch.utils.data.TensorDataset(torch.from_numpy(x),
                                                  torch.from_numpy(targets.astype(np.int64)))
        train_data, test_data = tensors("train"), tensors("t10k")
    DataLoader = torch.utils.data.DataLoader
    # shuffle=True in the note; the two libraries shuffle differently, so keep the order here.
    train_loader = DataLoader(train_data, batch_size=batch_size, shuffle=False, num_workers=2,
                              pin_memory=True)
    test_loader = DataLoader(test_data, batch_size=batch_size, num_workers=2, pin_memory=True)
    return train_data, test_data, train_loader, test_loader


def walk_through(torch, root, arrays, tmp_path):
    F, optim = torch.nn.functional, torch.optim
    args = parse_args(torch)
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    device = torch.device('cuda' if use_cuda else 'cpu')
    torch.manual_seed(args.seed)
    if use_cuda:
        torch.cuda.manual_seed(args.seed)
    torch.backends.cudnn.enabled = False
    train_data, test_data, train_loader, test_loader = loaders(torch, root, arrays,
                                                               args.batch_size)
    model = seeded(torch, make_net(torch)).to(device)
    model.conv2_drop.p = 0.0  # dropout draws differ between the libraries
    optimiser = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)

    model.train()
    train_losses = []
    for i, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimiser.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        train_losses.append(loss.item())
        optimiser.step()
        if i % 10 == 0:
            print(i, loss.item())
    if hasattr(torch, "save"):
        torch.save(model.state_dict(), tmp_path / 'model.pth')
        torch.save(optimiser.state_dict(), tmp_path / 'optimiser.pth')
        torch.save(train_losses, tmp_path / 'train_losses.pth')

    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, size_average=False).item()
            pred = output.argmax(1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_data)
    acc = correct / len(test_data)
    return train_losses, test_loss, acc, list(model.state_dict().values()), str(device)


def test_mnist_walk_through(tmp_path):
    arrays = write_idx(tmp_path)
    (tmp_path / "t").mkdir()
    (tmp_path / "e").mkdir()
    t = walk_through(__import__("torch"), tmp_path, arrays, tmp_path / "t")
    e = walk_through(ember, tmp_path, arrays, tmp_path / "e")
    same(e, t, atol=1e-4, rtol=1e-3)


def test_ember_mnist_dataset_matches_the_numpy_reference(tmp_path):
    arrays = write_idx(tmp_path)
    from ember.vision import datasets, transforms
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((MEAN,), (STD,))])
    ds = datasets.MNIST(str(tmp_path), train=True, transform=tf)
    image, label = ds[3]
    images, targets = arrays["train"]
    assert len(ds) == 48 and isinstance(label, int) and label == targets[3]
    assert image.shape == (1, 28, 28) and image.dtype == ember.float32
    np.testing.assert_allclose(image.numpy()[0], (images[3] / 255 - MEAN) / STD, atol=1e-5)


def test_resume_from_state_dicts(tmp_path):
    def snippet(torch):
        model = seeded(torch, make_net(torch))
        model.conv2_drop.p = 0.0  # dropout draws differ between the libraries
        optimiser = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
        model(torch.ones(2, 1, 28, 28)).sum().backward()
        optimiser.step()
        torch.save(model.state_dict(), tmp_path / 'model.pth')
        torch.save(optimiser.state_dict(), tmp_path / 'optimiser.pth')
        model2 = make_net(torch)
        optimiser2 = torch.optim.SGD(model2.parameters(), lr=0.01, momentum=0.5)
        model2.load_state_dict(torch.load(tmp_path / 'model.pth'))
        optimiser2.load_state_dict(torch.load(tmp_path / 'optimiser.pth'))
        return model2.state_dict(), optimiser2.state_dict()
    check(snippet)


def test_forward_with_control_flow_and_prints():
    def snippet(torch):
        rnn = seeded(torch, torch.nn.RNNCell(3, 4))
        x, hx = torch.ones(2, 3), torch.zeros(2, 4)

        def forward(x, hx, drop=False):
            hx2 = rnn(x, hx)
            print(hx.mean().item(), hx.var().item())
            if hx.max().item() > 10 or drop:
                return hx
            return hx2
        return forward(x, hx), forward(x, hx, drop=True)
    check(snippet)


def test_pitfall_method_without_call():
    # The note writes hx.max.item(): a bound method, not a tensor.
    # Python names the method's type differently ('builtin_function_or_method' for torch's
    # C method, 'function' for ember's), so only the end of the message can agree.
    for lib in (__import__("torch"), ember):
        with pytest.raises(AttributeError, match="object has no attribute 'item'"):
            lib.ones(2).max.item()


def test_detach_and_freezing():
    def snippet(torch):
        model = seeded(torch, torch.nn.Linear(3, 3))
        for param in model.parameters():
            param.requires_grad = False
        h = torch.ones(1, 3, requires_grad=True)
        h2 = model(h).detach()
        frozen = model(h).sum()
        frozen.backward()
        return h2.requires_grad, frozen.grad_fn.name(), h.grad, model.weight.grad
    check(snippet)


def test_nll_loss_size_average_warning():
    import warnings

    def snippet(torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = torch.nn.functional.nll_loss(torch.log_softmax(torch.ones(2, 3), 1),
                                                torch.tensor([0, 1]), size_average=False)
        return loss, [str(w.message) for w in caught]
    check(snippet)
