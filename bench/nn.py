"""Training-step workloads: MNIST CNN, MLP, ResNet-18 (CIFAR), LSTM LM, nanoGPT-style GPT.

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


def _train_step(lib, model, optimizer, loss_fn, x, y, wrap=None):
    """One training step; `wrap(lib, model)` (e.g. compiling the model) is what the step
    calls instead of the model itself."""
    model = wrap(lib, model) if wrap else model

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


def mnist_cnn(lib, wrap=None):
    lib.manual_seed(0)
    model = _mnist_cnn(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    x, y = _data(lib, (64, 1, 28, 28), 10)
    return _train_step(lib, model, opt, lib.nn.functional.nll_loss, x, y, wrap), 1


def mlp(lib, wrap=None):
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    x, y = _data(lib, (128, 784), 10)
    return _train_step(lib, model, opt, nn.CrossEntropyLoss(), x, y, wrap), 1


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


def resnet18(lib, wrap=None):
    lib.manual_seed(0)
    model = _resnet18(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    x, y = _data(lib, (32, 3, 32, 32), 10)
    return _train_step(lib, model, opt, lib.nn.CrossEntropyLoss(), x, y, wrap), 1


def lstm_lm(lib, wrap=None):
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
    return _train_step(lib, model, opt, nn.CrossEntropyLoss(), tokens, targets, wrap), 1


def _gpt(lib, n_layer=4, n_head=4, n_embd=128, block_size=64, vocab_size=65):
    """nanoGPT's model: pre-LayerNorm blocks (with bias) of causal self-attention through
    scaled_dot_product_attention and an exact-GELU MLP, dropout 0, lm_head tied to wte."""
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)    # (B, nh, T, hs)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd, bias=True)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(n_embd, bias=True)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(approximate="none"),
                                     nn.Linear(4 * n_embd, n_embd), nn.Dropout(0.0))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab_size, n_embd)
            self.wpe = nn.Embedding(block_size, n_embd)
            self.drop = nn.Dropout(0.0)
            self.h = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd, bias=True)
            self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
            self.wte.weight = self.lm_head.weight                       # weight tying

        def forward(self, idx):
            pos = lib.arange(idx.size(1))
            x = self.drop(self.wte(idx) + self.wpe(pos))
            for block in self.h:
                x = block(x)
            return self.lm_head(self.ln_f(x))
    return GPT()


def gpt(lib, wrap=None):
    lib.manual_seed(0)
    model = _gpt(lib)
    opt = lib.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1)
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 65, (12, 65))
    x, y = lib.tensor(tokens[:, :-1]), lib.tensor(tokens[:, 1:])

    def loss_fn(logits, targets):
        return lib.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)),
                                               targets.reshape(-1))
    return _train_step(lib, model, opt, loss_fn, x, y, wrap), 1


def gpt_lengths(lib, wrap=None, compile_step=None):
    """nanoGPT's step on batches of 16 lengths (34 to 64 tokens) in turn: variable-length
    sequences, the case of torch.compile(dynamic=True). `compile_step(step)` is what is
    called instead of the step on (x, y)."""
    lib.manual_seed(0)
    model = _gpt(lib)
    model = wrap(lib, model) if wrap else model
    opt = lib.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1)
    rng = np.random.default_rng(0)
    batches = []
    for length in range(34, 65, 2):
        tokens = rng.integers(0, 65, (12, length + 1))
        batches.append((lib.tensor(tokens[:, :-1]), lib.tensor(tokens[:, 1:])))
    turn = iter(range(1 << 62))

    def step(x, y):
        opt.zero_grad()
        logits = model(x)
        loss = lib.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)),
                                               y.reshape(-1))
        loss.backward()
        opt.step()

    run = compile_step(step) if compile_step else step

    def next_step():
        return run(*batches[next(turn) % len(batches)])
    return next_step, 1


def run() -> None:
    # Many short rounds rather than two long ones: on a shared 2-core machine slow
    # phases last seconds, and each library's fastest round is what is compared.
    for name, fn, seconds in [("MNIST CNN train step (batch 64)", mnist_cnn, 0.8),
                              ("MLP 784-256-256-10 Adam step (batch 128)", mlp, 0.8),
                              ("LSTM LM step (seq 35, batch 20)", lstm_lm, 0.8),
                              ("ResNet-18 CIFAR step (batch 32)", resnet18, 2.0),
                              ("nanoGPT 4x128 step (block 64, batch 12)", gpt, 0.8)]:
        compare(name, fn, unit="steps/s", min_seconds=seconds, rounds=5,
                higher_is_better=True)
