"""Seed 002 "Pytorch学习": the study notes (tensor types, model prints, AMP, fine-tuning)."""
import math

import numpy as np
import pytest

from seedkit import check, data, labels, same_error, seeded, shapes


def test_tensor_types():
    def snippet(torch):
        types = [torch.FloatTensor, torch.DoubleTensor, torch.HalfTensor, torch.BFloat16Tensor,
                 torch.ByteTensor, torch.CharTensor, torch.ShortTensor, torch.IntTensor,
                 torch.LongTensor, torch.BoolTensor]
        return [(t(2).dtype, t(2).type()) for t in types], torch.Tensor(2, 3).dtype
    check(snippet)


def test_creation_inherits_dtype_and_shares_memory():
    def snippet(torch):
        a = np.array([[1, 2, 3], [4, 5, 6]])
        t1, t2, t3 = torch.tensor(a), torch.as_tensor(a), torch.from_numpy(a)
        a[0, 0] = 100
        return t1, t2, t3, torch.tensor([[1, 2, 3], [4, 5, 6]]).dtype
    check(snippet)


def test_dtype_and_device_arguments():
    def snippet(torch):
        device = torch.device("cuda", 2) if torch.cuda.is_available() else torch.device("cpu")
        t = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.float64, device=device)
        return repr(t), t.device
    check(snippet)
    same_error(lambda torch: torch.tensor([1], device=torch.device("cuda", 2)), AssertionError,
               hint="CPU")


def lenet(torch, sequential):
    nn, F = torch.nn, torch.nn.functional

    class Model1(nn.Module):
        def __init__(self):
            super(Model1, self).__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16*5*5, 120)
            self.fc5 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)
            self.relu_a = nn.ReLU()
            self.conv_a = nn.Conv2d(3, 6, 5)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 16*5*5)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))  # the note's typo: fc2 was never defined
            return self.fc3(x)

    class Model2(nn.Module):
        def __init__(self) -> None:
            super(Model2, self).__init__()
            self.backbone = nn.Sequential(nn.Conv2d(3, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
                                          nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2))
            self.fc1 = nn.Linear(16*5*5, 120)
            self.fc5 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.backbone(x)
            x = x.view(-1, 16*5*5)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc5(x))
            return self.fc3(x)
    return seeded(torch, Model2() if sequential else Model1())


@pytest.mark.parametrize("sequential", [False, True])
def test_model_print_and_state_dict(sequential):
    def snippet(torch):
        model = lenet(torch, sequential)
        return repr(model), shapes(model.state_dict())
    e = check(snippet)
    assert "(fc5): Linear(in_features=120, out_features=84, bias=True)" in e[0]


def test_sequential_model_forward():
    check(lambda torch: lenet(torch, True)(data(torch, (2, 3, 32, 32))), atol=1e-4)


def test_pitfall_undefined_submodule_in_forward():
    same_error(lambda torch: lenet(torch, False)(torch.zeros(1, 3, 32, 32)), AttributeError)


def test_amp_training_loop_cpu():
    # model.cuda() + cuda autocast/GradScaler in the note; the CPU equivalent runs bfloat16.
    def snippet(torch):
        nn = torch.nn
        model = seeded(torch, nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        loss_fn = nn.CrossEntropyLoss()
        scaler = torch.amp.GradScaler("cpu")
        losses = []
        for epoch in range(2):
            for input, target in [(data(torch, (4, 4), i), labels(torch, 4, 3, i)) for i in range(3)]:
                optimizer.zero_grad()
                with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                    output = model(input)
                    loss = loss_fn(output, target)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                losses.append(loss.item())
        return output.dtype, loss.dtype, losses, scaler.get_scale()
    check(snippet, atol=2e-2, rtol=2e-2)


def test_autocast_decorator_on_forward():
    def snippet(torch):
        nn = torch.nn

        class AutocastModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 2)

            @torch.autocast(device_type="cpu", dtype=torch.bfloat16)
            def forward(self, input):
                return self.fc(input)
        return seeded(torch, AutocastModel())(data(torch, (2, 3)))
    check(snippet, atol=2e-2, rtol=2e-2)


def test_fine_tune_checkpoint(tmp_path):
    def snippet(torch):
        model = seeded(torch, torch.nn.Linear(3, 2))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        model(data(torch, (4, 3))).sum().backward()
        optimizer.step()
        ckpt = {'epoch': 4, 'best_fitness': 0.5, 'training_results': "log",
                'model': model.state_dict(), 'optimizer': optimizer.state_dict()}
        torch.save(ckpt, tmp_path / "last.pt")
        ckpt = torch.load(tmp_path / "last.pt")
        optimizer2 = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        optimizer2.load_state_dict(ckpt['optimizer'])
        start_epoch = ckpt['epoch'] + 1
        return start_epoch, ckpt['model'], optimizer2.state_dict()
    check(snippet)


def test_cosine_lambda_lr():
    def snippet(torch):
        epochs = 10
        optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.01)
        lf = lambda x: (((1 + math.cos(x * math.pi / epochs)) / 2) ** 1.0) * 0.8 + 0.2  # noqa
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lf)
        lrs = []
        for _ in range(epochs):
            optimizer.step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr()[0])
        return lrs
    check(snippet)
