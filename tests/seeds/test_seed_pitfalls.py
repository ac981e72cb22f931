"""Seed 001 "Pytorch 踩坑": the pitfalls list, run on torch and on ember."""
import os
import random

import numpy as np
import pytest

from seedkit import (check, check_printed, data, labels, same_error, seeded)


def test_seed_torch():
    def snippet(torch, seed=1029):
        random.seed(seed)
        os.environ['PYTHONHASHSEED'] = str(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        torch.cuda.manual_seed(seed)
        torch.cuda.manual_seed_all(seed)
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True
        first = torch.rand(4)
        torch.manual_seed(seed)
        return (bool((first == torch.rand(4)).all()), torch.initial_seed(),
                torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)
    check(snippet)


def test_model_zero_grad_vs_optimizer_zero_grad():
    # Two optimizers over one model: each optimizer clears only its own parameters.
    def snippet(torch):
        model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 1))
        opt_a = torch.optim.SGD(model[0].parameters(), lr=0.1)
        model(torch.ones(2, 3)).sum().backward()
        opt_a.zero_grad()
        after_optimizer = [p.grad is None for p in model.parameters()]
        model.zero_grad()
        return after_optimizer, [p.grad is None for p in model.parameters()]
    check(snippet)


def test_init_every_parameter():
    # The note's `torch.nn.init.xavier_uniform(layer) for layer in params`, made a loop.
    def snippet(torch):
        net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
        params = list(net.parameters())
        for layer in params:
            if layer.dim() > 1:
                torch.nn.init.xavier_uniform_(layer)
        return [p.shape for p in params], bool((params[0].abs() <= np.sqrt(6 / 7)).all())
    check(snippet)


def test_pitfall_xavier_on_bias():
    def snippet(torch):
        for layer in torch.nn.Linear(3, 4).parameters():
            torch.nn.init.xavier_uniform_(layer)
    same_error(snippet, ValueError)


def test_call_vs_forward_skips_hooks():
    def snippet(torch):
        net = torch.nn.Linear(2, 2)
        calls = []
        net.register_forward_hook(lambda m, i, o: calls.append("hook"))
        net(torch.ones(1, 2))
        net.forward(torch.ones(1, 2))
        return calls
    check(snippet)


def test_cross_entropy_is_log_softmax_plus_nll():
    def snippet(torch):
        nn = torch.nn
        logits = data(torch, (4, 5)).requires_grad_()
        target = labels(torch, 4, 5)
        ce = nn.CrossEntropyLoss()(logits, target)
        nll = nn.NLLLoss()(nn.LogSoftmax(dim=1)(logits), target)
        (ce + nll).backward()
        return ce, nll, logits.grad, ce.grad_fn.name(), nll.grad_fn.name()
    check(snippet)


def test_pitfall_view_on_non_contiguous():
    def snippet(torch):
        x = data(torch, (3, 4)).t()
        return x.is_contiguous(), x.contiguous().view(-1), x.reshape(-1), x.stride()
    check(snippet)
    same_error(lambda torch: torch.ones(3, 4).t().view(12), RuntimeError)


class TestHooks:
    @staticmethod
    def model(torch):
        nn = torch.nn
        return seeded(torch, nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)))

    def test_forward_hooks_on_children(self):
        def snippet(torch):
            model = self.model(torch)
            total_feat_out, total_feat_in = [], []

            def hook_fn_forward(module, input, output):
                print(module)
                print('input', input)
                print('output', output)
                total_feat_out.append(output)
                total_feat_in.append(input)
            for name, module in model.named_children():
                module.register_forward_hook(hook_fn_forward)
            model(data(torch, (2, 3)))
        check_printed(snippet)

    def test_backward_hooks_on_children(self):
        def snippet(torch):
            model = self.model(torch)

            def hook_fn_backward(module, grad_input, grad_output):
                print(module)
                print('grad_output', grad_output)
                print('grad_input', grad_input)
            for name, module in model.named_children():
                module.register_backward_hook(hook_fn_backward)
            model(data(torch, (2, 3))).sum().backward()
        check_printed(snippet)

    def test_full_backward_hooks_on_children(self):
        # The documented replacement: grad_input is the gradient of the module's input.
        def snippet(torch):
            model = self.model(torch)

            def hook_fn_backward(module, grad_input, grad_output):
                print(module)
                print('grad_output', grad_output)
                print('grad_input', grad_input)
            for name, module in model.named_children():
                module.register_full_backward_hook(hook_fn_backward)
            model(data(torch, (2, 3)).requires_grad_()).sum().backward()
        check_printed(snippet)


def test_layer_grad_and_autograd_grad():
    def snippet(torch):
        model = TestHooks.model(torch)
        loss = model(data(torch, (2, 3))).pow(2).mean()
        W = list(model.modules())[3].weight
        grad = torch.autograd.grad(outputs=loss, inputs=W, retain_graph=True, only_inputs=True)[0]
        loss.backward()
        return grad, list(model.modules())[3].weight.grad, type(grad).__name__
    check(snippet)


def test_per_sample_gradients():
    def snippet(torch):
        model = TestHooks.model(torch)
        out = model(data(torch, (3, 3)))
        loss = torch.nn.functional.cross_entropy(out, labels(torch, 3, 2), reduction="none")
        grads = []
        for l in loss:
            grads.append(torch.autograd.grad(l, model[0].weight, retain_graph=True)[0])
        return loss.grad_fn.name(), [l.grad_fn.name() for l in loss], grads
    check(snippet)


def test_loader_workers_give_the_same_batches():
    def snippet(torch, workers):
        ds = torch.utils.data.TensorDataset(data(torch, (10, 2)), torch.arange(10))
        return list(torch.utils.data.DataLoader(ds, batch_size=4, num_workers=workers))
    check(snippet, 0)
    check(snippet, 2)


def test_pitfall_labels_out_of_range():
    # On the GPU: "CUDA error: device-side assert triggered"; on the CPU torch names the label.
    def snippet(torch):
        torch.nn.CrossEntropyLoss()(torch.zeros(2, 4), torch.tensor([1, 4]))
    same_error(snippet, IndexError, hint="4 classes")

    def nll(torch):
        torch.nn.functional.nll_loss(torch.zeros(2, 2), torch.tensor([0, 3]))
    same_error(nll, IndexError, hint="2 classes")


def test_empty_cache_without_gpu():
    def snippet(torch):
        if torch.cuda.is_available():
            raise AssertionError("CPU machine expected")
        return torch.cuda.empty_cache(), torch.cuda.is_available(), torch.cuda.device_count()
    check(snippet)


# Regressions found while running the seeds.
@pytest.mark.parametrize("scalar", [np.float64(0.5), np.float32(2), np.int64(3)])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_numpy_scalars_promote_like_python_scalars(scalar, dtype):
    check(lambda torch: (torch.ones(3, dtype=getattr(torch, dtype)) * scalar,
                         torch.ones(3, dtype=getattr(torch, dtype)) <= scalar,
                         torch.ones(3, dtype=getattr(torch, dtype)) + scalar))


@pytest.mark.parametrize("act", ["relu", "relu6", "hardtanh"])
def test_gated_gradients_are_positive_zero(act):
    def snippet(torch):
        x = torch.tensor([-1., 0.5, 7.], requires_grad=True)
        getattr(torch.nn.functional, act)(x).backward(torch.tensor([-2., -3., -4.]))
        return repr(x.grad)
    check(snippet)
