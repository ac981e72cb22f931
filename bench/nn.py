"""Training-step workloads of the nn issue: MNIST CNN, MLP, ResNet-18 (CIFAR), LSTM LM.

The models are written once against the torch API and built from `lib.nn`, so torch
and ember run literally the same code. Throughput is reported in steps/s.
"""
from __future__ import annotations

import numpy as np

from .runner import compare


def _mnist_cnn(lib):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
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
            x = F.dropout(x, training=self.training)
            return F.log_softmax(self.fc2(x), dim=1)
    return Net()


def _train_step(lib, model, optimizer, loss_fn, x, y):
    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    return step


def _data(lib, shape, classes, seed=0):
    rng = np.random.default_rng(seed)
    x = lib.tensor(rng.standard_normal(shape, dtype=np.float32))
    y = lib.tensor(rng.integers(0, classes, shape[0]))
    return x, y


def mnist_cnn(lib):
    lib.manual_seed(0)
    model = _mnist_cnn(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    x, y = _data(lib, (64, 1, 28, 28), 10)
    return _train_step(lib, model, opt, lib.nn.functional.nll_loss, x, y), 1


def mlp(lib):
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    x, y = _data(lib, (128, 784), 10)
    return _train_step(lib, model, opt, nn.CrossEntropyLoss(), x, y), 1


def _resnet18(lib):
    nn, F = lib.nn, lib.nn.functional

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                              nn.BatchNorm2d(cout))

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + self.shortcut(x))

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            layers, cin = [], 64
            for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
                layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
                cin = cout
            self.layers = nn.Sequential(*layers)
            self.fc = nn.Linear(512, 10)

        def forward(self, x):
            out = self.layers(F.relu(self.bn1(self.conv1(x))))
            out = F.adaptive_avg_pool2d(out, 1).flatten(1)
            return self.fc(out)
    return ResNet18()


def resnet18(lib):
    lib.manual_seed(0)
    model = _resnet18(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    x, y = _data(lib, (32, 3, 32, 32), 10)
    return _train_step(lib, model, opt, lib.nn.CrossEntropyLoss(), x, y), 1


def lstm_lm(lib):
    nn = lib.nn
    lib.manual_seed(0)

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(1000, 32)
            self.rnn = nn.LSTM(32, 128)
            self.decoder = nn.Linear(128, 1000)

        def forward(self, tokens):
            out, _ = self.rnn(self.encoder(tokens))
            return self.decoder(out).view(-1, 1000)

    model = LM()
    opt = lib.optim.SGD(model.parameters(), lr=1.0)
    rng = np.random.default_rng(0)
    tokens = lib.tensor(rng.integers(0, 1000, (35, 20)))
    targets = lib.tensor(rng.integers(0, 1000, 35 * 20))
    return _train_step(lib, model, opt, nn.CrossEntropyLoss(), tokens, targets), 1


def run() -> None:
    # Many short rounds rather than two long ones: on a shared 2-core machine slow
    # phases last seconds, and each library's fastest round is what is compared.
    for name, fn, seconds in [("MNIST CNN train step (batch 64)", mnist_cnn, 0.8),
                              ("MLP 784-256-256-10 Adam step (batch 128)", mlp, 0.8),
                              ("LSTM LM step (seq 35, batch 20)", lstm_lm, 0.8),
                              ("ResNet-18 CIFAR step (batch 32)", resnet18, 2.0)]:
        compare(name, fn, unit="steps/s", min_seconds=seconds, rounds=5,
                higher_is_better=True)
