"""Seed 000 "Understanding&Debugging PyTorch": the study-and-troubleshooting log.

Each test is one snippet (or one pitfall) of the note, run on torch and on ember.
"""
from collections import OrderedDict
import random

import numpy as np
import pytest
import torch

import ember
from seedkit import (both, check, check_printed, data, ember_repr, labels, same, same_error,
                     seeded, shapes, warned)


def conv_bn_relu(nn, cin, cout, k=3, stride=1, groups=1):
    # MobileNetV2's ConvBNReLU, the block the note prints.
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU6(inplace=True))


def inverted_residual(torch):
    nn = torch.nn

    class InvertedResidual(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Sequential(conv_bn_relu(nn, 32, 32, groups=32),
                                      nn.Conv2d(32, 16, 1, 1, 0, bias=False), nn.BatchNorm2d(16))

        def forward(self, x):
            return self.conv(x)
    return InvertedResidual()


class TestNet:
    def test_modules_print(self):
        # net.modules(): printing each yields torch's reprs (BatchNorm2d, Conv2d ...).
        def snippet(torch):
            net = inverted_residual(torch)
            return [repr(m).replace("InvertedResidual", "X") for m in net.modules()]
        check(snippet)

    def test_block_repr_and_indexing(self):
        # The note's InvertedResidual print, list(net.children()), Sequential indexing.
        def snippet(torch):
            net = inverted_residual(torch)
            children = list(net.children())
            conv = net.conv[0][0]
            return (repr(net), len(children), type(children[0]).__name__, repr(conv),
                    type(conv.weight).__name__, type(conv.weight.data).__name__)
        check(snippet)

    def test_float_double_eval_state_dict(self):
        def snippet(torch):
            net = seeded(torch, inverted_residual(torch)).double()
            net.eval()
            out = net(data(torch, (1, 32, 4, 4)).double())
            d = net.state_dict()
            keys = [j for i, j in enumerate(d)]
            net.float().cpu()
            net.load_state_dict(d)
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            return out, keys, shapes(d), net.training, next(net.to(device).parameters()).dtype
        check(snippet)

    def test_named_parameters(self):
        def snippet(torch):
            net = inverted_residual(torch)
            return [(name, ember_repr(str(type(p)))) for i, (name, p) in
                    enumerate(net.named_parameters())]
        t, e = both(snippet)
        assert e == t and t[0][1] == "<class 'torch.nn.parameter.Parameter'>"

    def test_param_groups_with_lr_per_layer(self):
        def snippet(torch):
            net = torch.nn.Sequential(OrderedDict(body=torch.nn.Linear(4, 3),
                                                  fc=torch.nn.Linear(3, 2)))
            seeded(torch, net)
            learning_rate = 0.1
            param_group = []
            for k, v in net.named_parameters():
                if not k.__contains__('fc'):
                    param_group += [{'params': v, 'lr': learning_rate}]
                else:
                    param_group += [{'params': v, 'lr': learning_rate * 10}]
            opt = torch.optim.SGD(param_group, lr=0.5, momentum=0.9)
            net(data(torch, (5, 4))).pow(2).mean().backward()
            opt.step()
            return [g['lr'] for g in opt.param_groups], list(net.parameters())
        check(snippet)

    def test_load_state_dict_strict_false(self):
        def snippet(torch):
            net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
            d = net.state_dict()
            del d["1.bias"]
            d["extra"] = torch.zeros(1)
            return repr(net.load_state_dict(d, strict=False))
        check(snippet)

    def test_replace_fc_with_sequential(self):
        # Keep forward unchanged, swap net.fc for a two-layer Sequential (with names).
        def snippet(torch):
            nn = torch.nn
            net = nn.Sequential(OrderedDict([("features", nn.Linear(8, 6)), ("fc", nn.Linear(6, 2))]))
            net.fc = nn.Sequential(OrderedDict([("fc1", nn.Linear(6, 4)), ("relu", nn.ReLU()),
                                                ("fc2", nn.Linear(4, 2))]))
            seeded(torch, net)
            return repr(net), list(net.state_dict()), net(data(torch, (3, 8)))
        check(snippet)

    def test_conv_groups(self):
        def snippet(torch):
            nn = torch.nn
            convs = [nn.Conv2d(4, 8, 3, groups=g, bias=False, stride=(1, 2), dilation=(2, 1))
                     for g in (1, 2, 4)]
            x = data(torch, (1, 4, 9, 9))
            return [(repr(c), tuple(c.weight.shape), seeded(torch, c)(x)) for c in convs]
        check(snippet)

    def test_pitfall_channels_not_divisible_by_groups(self):
        same_error(lambda torch: torch.nn.Conv2d(3, 4, 3, groups=2), ValueError)

    def test_instance_norm_defaults(self):
        def snippet(torch):
            norm = torch.nn.InstanceNorm2d(3)
            x = data(torch, (2, 3, 4, 4))
            return repr(norm), list(norm.state_dict()), norm(x), norm.eval()(x)
        check(snippet)


class TestOptim:
    def test_sgd_param_group_keys(self):
        def snippet(torch):
            net = torch.nn.Linear(3, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
            g = opt.param_groups
            return type(g).__name__, len(g), list(g[0].keys()), type(g[0]['params']).__name__
        check(snippet)

    def test_pitfall_loss_target_must_be_long(self):
        # input = torch.Tensor([[0.1,0.8,0.1],[0.4,0.6,0]]); target = torch.Tensor([1,1])
        def snippet(torch):
            input = torch.Tensor([[0.1, 0.8, 0.1], [0.4, 0.6, 0]])
            target = torch.Tensor([1, 1])
            torch.nn.CrossEntropyLoss()(input, target)
        same_error(snippet, RuntimeError, hint=r"target\.long\(\)")
        check(lambda torch: torch.nn.CrossEntropyLoss()(
            torch.Tensor([[0.1, 0.8, 0.1], [0.4, 0.6, 0]]), torch.Tensor([1, 1]).long()))

    def test_multistep_lr(self):
        def snippet(torch):
            optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.05)
            scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 80],
                                                             gamma=0.1)
            lrs = []
            for epoch in range(100):
                optimizer.step()
                lrs.append(optimizer.param_groups[0]["lr"])
                scheduler.step()
            return lrs[::10] + [lrs[29], lrs[30], lrs[79], lrs[80]], scheduler.last_epoch
        check(snippet)

    def test_warmup_lr_subclass(self):
        def snippet(torch):
            class WarmUpLR(torch.optim.lr_scheduler._LRScheduler):
                def __init__(self, optimizer, total_iters, last_epoch=-1):
                    self.total_iters = total_iters
                    super().__init__(optimizer, last_epoch)

                def get_lr(self):
                    return [base_lr * self.last_epoch / (self.total_iters + 1e-8)
                            for base_lr in self.base_lrs]
            optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
            warmup = WarmUpLR(optimizer, 5)
            lrs = []
            for _ in range(6):
                optimizer.step()
                warmup.step()
                lrs.append(warmup.get_last_lr()[0])
            return lrs, warmup.base_lrs
        check(snippet)


class TestTensor:
    def test_assignment_shares_clone_copies(self):
        def snippet(torch):
            from_autograd = torch.autograd.Variable
            x = torch.ones(3)
            alias = x
            copy = from_autograd(x.data.clone())
            x.add_(1)
            return alias, copy, alias is x
        check(snippet)

    def test_device_tensor_creation_cpu_equivalent(self):
        # torch.cuda.FloatTensor(x.shape).fill_(1.) on the GPU; on a CPU machine the
        # guarded branch takes torch.FloatTensor.
        def snippet(torch):
            x = torch.zeros(3, 3)
            T = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor
            ones = T(x.shape).fill_(1.)
            u, n = T(x.shape).uniform_(), T(x.shape).normal_()
            return ones, u.shape, n.dtype, bool(((u >= 0) & (u < 1)).all())
        check(snippet)

    def test_pitfall_cuda_tensor_without_cuda(self):
        same_error(lambda torch: torch.zeros(3, 3).cuda(), AssertionError, hint="CPU")

    def test_pitfall_cuda_legacy_constructor_without_cuda(self):
        same_error(lambda torch: torch.cuda.FloatTensor(3), TypeError)

    def test_broadcasting(self):
        def snippet(torch):
            a = data(torch, (3, 3)) / data(torch, (1, 3), 1)
            b = data(torch, (3, 2, 4, 4)) * data(torch, (2, 4, 1), 2)
            return a, b.shape
        check(snippet)

    def test_pitfall_broadcast_mismatch(self):
        same_error(lambda torch: torch.ones(3, 2, 4, 4) * torch.ones(2, 4, 2), RuntimeError)

    def test_bn_mean_broadcast(self):
        def snippet(torch):
            x, mean = data(torch, (2, 3, 4, 4)), data(torch, (3,), 1)
            return x - mean.reshape([1, -1, 1, 1]), x - mean[:, None, None]
        check(snippet)

    def test_fake_data_expand_unsqueeze_stack_cat(self):
        def snippet(torch):
            x = data(torch, (1, 2, 2))
            return (torch.ones(3, 3).expand([1, 1, 3, 3]), x.unsqueeze(0).shape,
                    torch.stack([x, x, x], dim=0).shape, torch.stack([x, x], dim=2).shape,
                    torch.cat([x, x], dim=2).shape)
        check(snippet)

    def test_transpose_of_1d(self):
        def snippet(torch):
            x = torch.tensor([1., 2., 3.])
            return x.T.shape, x[:, None].shape, x.T
        t, e = (warned(lambda lib: lib.tensor([1., 2.]).T, lib) for lib in (torch, ember))
        # torch warns once per process; ember repeats the same words every time.
        assert e and e[0].startswith("The use of `x.T` on tensors of dimension other than 2")
        assert not t or e == [w.split(" (Triggered")[0] for w in t]
        check(snippet)

    def test_stack_list_split(self):
        def snippet(torch):
            parts = [data(torch, (2,), i) * i for i in range(4)]
            stacked = torch.stack(parts, dim=0)
            return stacked, torch.split(stacked.flatten(), 3), torch.split(stacked, [1, 3])
        check(snippet)

    def test_scatter_keeps_gradient(self):
        def snippet(torch):
            src = data(torch, (2, 3)).requires_grad_()
            index = torch.tensor([[0, 1, 2], [2, 0, 1]])
            out = torch.zeros(3, 3).scatter(0, index, src)
            (out * torch.arange(9.).reshape(3, 3)).sum().backward()
            return out, src.grad
        check(snippet)

    def test_nonzero_any_all(self):
        def snippet(torch):
            x = torch.tensor([[0., 1.], [2., 0.]], requires_grad=True)
            return torch.nonzero(x), torch.any(x > 1), torch.all(x >= 0), x.nonzero().dtype
        check(snippet)

    def test_apply_(self):
        def snippet(torch):
            return torch.arange(4.).apply_(lambda v: v * v + 1)
        check(snippet)


class TestAutograd:
    def test_variable_is_tensor(self):
        def snippet(torch):
            v = torch.autograd.Variable(torch.tensor(3.), requires_grad=True)
            x = torch.tensor([[1., -1.], [1., 1.]], requires_grad=True)
            return type(v).__name__, v.requires_grad, torch.tensor(1.).requires_grad, x
        check(snippet)

    def test_retain_graph_allows_second_backward(self):
        def snippet(torch):
            x = torch.tensor(2., requires_grad=True)
            y = x ** 3
            y.backward(retain_graph=True)
            y.backward()
            return x.grad
        check(snippet)

    def test_pitfall_backward_twice(self):
        def snippet(torch):
            x = torch.tensor(2., requires_grad=True)
            y = x.exp()
            y.backward()
            y.backward()
        same_error(snippet, RuntimeError)

    def test_non_leaf_grad_is_none_unless_retained(self):
        def snippet(torch):
            x = torch.tensor([[1., -1.], [1., 1.]], requires_grad=True)
            y = x * 2
            z = x * 3
            z.retain_grad()
            (y.sum() + z.sum()).backward()
            with pytest.warns(UserWarning, match="is not a leaf Tensor"):
                y_grad = y.grad
            return x.grad, y_grad, z.grad, y.requires_grad, x.is_leaf, y.is_leaf
        check(snippet)

    def test_pitfall_backward_on_non_scalar(self):
        same_error(lambda torch: (torch.ones(2, requires_grad=True) * 2).backward(),
                   RuntimeError, hint=r"\.sum\(\)")


class TestHooks:
    @staticmethod
    def my_net(torch):
        nn = torch.nn

        class MyNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 4, 3)
                self.relu = nn.ReLU()
                self.flatten = nn.Flatten()
                self.fc1 = nn.Linear(4 * 6 * 6, 5)
                self.head = nn.Sequential(nn.Tanh(), nn.Linear(5, 2))

            def forward(self, x):
                x = self.relu(self.conv(x))
                return self.head(self.fc1(self.flatten(x)))
        return seeded(torch, MyNet())

    def test_forward_hooks_for_activations(self):
        def snippet(torch):
            nn = torch.nn
            net = self.my_net(torch)
            visualisation = {}

            def hook_fn(m, i, o):
                visualisation[m] = o

            def get_all_layers(net):
                for name, layer in net._modules.items():
                    if isinstance(layer, nn.Sequential):
                        get_all_layers(layer)
                    else:
                        layer.register_forward_hook(hook_fn)
            get_all_layers(net)
            out = net(data(torch, (1, 3, 8, 8)))
            return [repr(m) for m in visualisation], list(visualisation.values()), out
        check(snippet)

    def test_module_backward_hooks(self):
        def snippet(torch):
            net = self.my_net(torch)

            def hook_fn(m, i, o):
                print(m)
                print("------------Input Grad------------")
                for grad in i:
                    try:
                        print(grad.shape)
                    except AttributeError:
                        print("None found for Gradient")
                print("------------Output Grad------------")
                for grad in o:
                    try:
                        print(grad.shape)
                    except AttributeError:
                        print("None found for Gradient")
                print("\n")
            net.conv.register_backward_hook(hook_fn)
            net.fc1.register_backward_hook(hook_fn)
            inp = data(torch, (1, 3, 8, 8))
            out = net(inp)
            (1 - out.mean()).backward()
        check_printed(snippet)

    def test_tensor_hooks(self):
        def snippet(torch):
            net = self.my_net(torch)

            def forward(x):
                x = net.relu(net.conv(x))
                x.register_hook(lambda grad: torch.clamp(grad, min=0))
                x.register_hook(lambda grad: print("Gradients less than zero:",
                                                   bool((grad < 0).any())))
                return net.head(net.fc1(net.flatten(x)))
            for name, param in net.named_parameters():
                if "fc" in name and "bias" in name:
                    param.register_hook(lambda grad: torch.zeros(grad.shape))
            forward(data(torch, (2, 3, 8, 8))).sum().backward()
            return [p.grad for p in net.parameters()]
        check(snippet)
        check_printed(lambda torch: print(snippet(torch)[-1]))


class TestTraining:
    @staticmethod
    def setup(torch):
        model = seeded(torch, torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(),
                                                  torch.nn.Linear(8, 3)))
        return model, torch.optim.SGD(model.parameters(), lr=0.1), torch.nn.CrossEntropyLoss()

    def test_accumulating_gradients(self):
        def snippet(torch):
            model, optimizer, some_loss = self.setup(torch)
            optimizer.zero_grad()
            scaled_loss = 0
            for accumulated_step_i in range(16):
                out = model.forward(data(torch, (2, 4), accumulated_step_i))
                loss = some_loss(out, labels(torch, 2, 3, accumulated_step_i))
                loss.backward()
                scaled_loss += loss.item()
            optimizer.step()
            actual_loss = scaled_loss / 16
            return actual_loss, list(model.parameters())
        check(snippet)

    def test_losses_append_item_not_tensor(self):
        def snippet(torch):
            model, _, criterion = self.setup(torch)
            loss = criterion(model(data(torch, (2, 4))), labels(torch, 2, 3))
            bad, good = [loss], [loss.item()]
            return type(good[0]).__name__, bad[0].grad_fn.name(), good[0]
        check(snippet)

    def test_zero_grad_template_and_forgetting_it(self):
        def snippet(torch, forget):
            model, optimizer, criterion = self.setup(torch)
            inputs, targets = data(torch, (6, 4)), labels(torch, 6, 3)
            for _ in range(3):
                if not forget:
                    optimizer.zero_grad()
                preds = model(inputs)
                loss = criterion(preds, targets)
                loss.backward()
                optimizer.step()
            return loss, model[0].weight.grad
        for forget in (False, True):
            check(snippet, forget)

    def test_batchnorm_train_vs_eval(self):
        def snippet(torch):
            x = data(torch, (4, 3, 2, 2)) * 3 + 1
            bn = torch.nn.BatchNorm2d(3)
            train_out = bn(x)
            stats = bn.running_mean.clone(), bn.running_var.clone(), bn.num_batches_tracked
            bn.eval()
            eval_out = bn(x)
            no_track = torch.nn.BatchNorm2d(3, track_running_stats=False).eval()
            return (repr(bn), train_out, stats, eval_out, bn.running_mean, no_track(x),
                    no_track.running_mean)
        check(snippet)

    def test_seeding(self):
        def snippet(torch):
            manual_seed = random.randint(1, 10000)
            random.seed(manual_seed)
            torch.manual_seed(manual_seed)
            use_cuda = torch.cuda.is_available()
            if use_cuda:
                torch.cuda.manual_seed_all(manual_seed)
            torch.cuda.manual_seed_all(manual_seed)  # a no-op without a GPU
            torch.cuda.empty_cache()
            a = torch.rand(3)
            torch.manual_seed(manual_seed)
            return use_cuda, bool((a == torch.rand(3)).all())
        check(snippet)


class TestDataAndDevices:
    def test_to_is_not_in_place_for_tensors(self):
        def snippet(torch):
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            t = torch.ones(2)
            t.to(device, torch.float64)
            same_t = t
            t = t.to(device, torch.float64)
            model = torch.nn.Linear(2, 2)
            return same_t.dtype, t.dtype, model.to(device) is model, str(device)
        check(snippet)

    def test_cuda_device_objects(self):
        def snippet(torch):
            d, d2 = torch.device("cuda"), torch.device("cuda:2")
            return repr(d), d.index, repr(d2), d2.index, str(torch.device("cuda", 2))
        check(snippet)

    def test_pitfall_dataparallel_prefix_on_load(self):
        def snippet(torch):
            net = torch.nn.Sequential(OrderedDict(conv1=torch.nn.Conv2d(1, 2, 3)))
            saved = OrderedDict(("module." + k, v) for k, v in net.state_dict().items())
            net.load_state_dict(saved)
        same_error(snippet, RuntimeError, hint="DataParallel")

    def test_pitfall_long_buffer_in_float_math(self):
        # state_dict's num_batches_tracked is int64: an in-place float update fails.
        def snippet(torch):
            bn = torch.nn.BatchNorm2d(3)
            for k, v in bn.state_dict().items():
                v.mul_(0.9)
        same_error(snippet, RuntimeError, hint="num_batches_tracked")

    def test_softmax_of_logits(self):
        def snippet(torch):
            logits = data(torch, (2, 5)).requires_grad_()
            p = torch.softmax(logits, dim=1)
            (p.log() - torch.log_softmax(logits, 1)).abs().sum().backward()
            return p, p.sum(1), logits.log_softmax(1), logits.softmax(-1)
        check(snippet, atol=1e-5)

    def test_pitfall_replaced_parameter_not_in_optimizer(self):
        # Assigning a new tensor to bn.weight: the optimizer still holds the old one.
        def snippet(torch):
            bn = torch.nn.BatchNorm1d(3)
            optimizer = torch.optim.SGD(bn.parameters(), lr=1.0)
            bn.weight = torch.nn.Parameter(torch.full((3,), 2.0))
            bn(data(torch, (4, 3))).pow(2).sum().backward()
            optimizer.step()
            return bn.weight, bn.weight.grad is None
        check(snippet)
        same_error(lambda torch: setattr(torch.nn.BatchNorm1d(3), "weight", torch.ones(3)),
                   TypeError)

    def test_in_place_mul_keeps_the_parameter(self):
        def snippet(torch):
            bn = torch.nn.BatchNorm1d(3)
            optimizer = torch.optim.SGD(bn.parameters(), lr=1.0)
            with torch.no_grad():
                bn.weight.mul_(2)
            bn(data(torch, (4, 3))).pow(2).sum().backward()
            optimizer.step()
            return bn.weight
        check(snippet)

    def test_print_precision(self):
        def snippet(torch):
            x = torch.tensor([1 / 3, 2 / 3, 1e-3])
            default = repr(x)
            torch.set_printoptions(precision=8)
            try:
                return default, repr(x), repr(x.double())
            finally:
                torch.set_printoptions(profile="default")
        check(snippet)

    def test_non_blocking_replaces_async(self):
        def snippet(torch):
            return torch.ones(2).to("cpu", non_blocking=True)
        check(snippet)
        with pytest.raises(SyntaxError):
            compile("x.cuda(async=True)", "<note>", "eval")

    def test_pitfall_copy_construct_warning(self):
        def snippet(torch):
            t = torch.tensor(torch.ones(2))
            return t, torch.is_tensor(t)
        check(snippet)
        t, e = (warned(snippet, lib) for lib in (torch, ember))
        assert e == t and t and t[0].startswith("To copy construct from a tensor")

    def test_xavier_uniform_and_numpy_init(self):
        def snippet(torch):
            nn = torch.nn
            net1 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
            nn.init.xavier_uniform(net1[0].weight)
            bound = float(np.sqrt(6 / 7))
            ok = bool((net1[0].weight.abs() <= bound).all())
            rng = np.random.default_rng(0)
            for layer in net1.modules():
                if isinstance(layer, nn.Linear):
                    param_shape = layer.weight.shape
                    layer.weight.data = torch.from_numpy(rng.normal(0, 0.5, size=param_shape))
            return ok, net1[0].weight.dtype, net1[2].weight
        check(snippet)
        t, e = (warned(snippet, lib) for lib in (torch, ember))
        assert e == t

    def test_pitfall_float64_weights_from_numpy(self):
        # ... and then the float32 input meets float64 weights.
        def snippet(torch):
            layer = torch.nn.Linear(3, 2)
            layer.weight.data = torch.from_numpy(np.zeros((2, 3)))
            layer(torch.ones(1, 3))
        same_error(snippet, RuntimeError, hint=r"\.float\(\)")

    def test_pitfall_dataloader_iterator_has_no_next_method(self):
        def snippet(torch):
            it = iter(torch.utils.data.DataLoader(list(range(4))))
            it.next()
        same_error(snippet, AttributeError)

    def test_infinite_loader_by_catching_stop_iteration(self):
        def snippet(torch):
            loader = torch.utils.data.DataLoader(torch.arange(5.), batch_size=2)
            it_t = iter(loader)
            seen = []
            for _ in range(5):
                try:
                    batch = next(it_t)
                except StopIteration:
                    it_t = iter(loader)
                    batch = next(it_t)
                seen.append(batch)
            return seen
        check(snippet)

    def test_pitfall_images_of_different_sizes_in_a_batch(self):
        def snippet(torch):
            images = [torch.zeros(3, 375, 500), torch.zeros(3, 500, 375)]
            next(iter(torch.utils.data.DataLoader(images, batch_size=2)))
        same_error(snippet, RuntimeError, hint="crop")

    def test_batches_from_loader_and_generator(self):
        def snippet(torch):
            ds = torch.utils.data.TensorDataset(data(torch, (8, 3, 4, 4)),
                                                torch.tensor([1, 1, 0, 1, 0, 0, 1, 1]))
            trainloader = torch.utils.data.DataLoader(ds, batch_size=8)

            def getBatch():
                for batch_idx, (input, target) in enumerate(trainloader):
                    yield input
            batch_data = next(getBatch())
            image, label = next(iter(trainloader))
            return batch_data.shape, repr(label), type(next(iter(trainloader))).__name__
        check(snippet)

    def test_concat_dataset_class(self):
        def snippet(torch, workers):
            class ConcatDataset(torch.utils.data.Dataset):
                def __init__(self, *datasets):
                    self.datasets = datasets

                def __getitem__(self, i):
                    return tuple(d[i] for d in self.datasets)

                def __len__(self):
                    return min(len(d) for d in self.datasets)
            a = torch.utils.data.TensorDataset(data(torch, (6, 2)), torch.arange(6))
            b = torch.utils.data.TensorDataset(data(torch, (5, 2), 1), torch.arange(5) * 10)
            train_loader = torch.utils.data.DataLoader(ConcatDataset(a, b), batch_size=2,
                                                       shuffle=False, num_workers=workers)
            return [batch for i, batch in enumerate(train_loader)]
        check(snippet, 0)
        check(snippet, 2)

    def test_save_load_checkpoint_dict(self, tmp_path):
        def snippet(torch):
            net = seeded(torch, torch.nn.Linear(2, 2))
            torch.save({"net": net.state_dict(), "acc": 0.9, "epoch": 3}, tmp_path / "ckpt.pth")
            ckpt = torch.load(tmp_path / "ckpt.pth")
            return list(ckpt), type(ckpt["net"]).__name__, ckpt["net"], ckpt["acc"]
        check(snippet)

    def test_dataparallel_cpu_and_module_attribute(self):
        def snippet(torch):
            model = seeded(torch, torch.nn.Linear(3, 2))
            device_ids = list(range(torch.cuda.device_count()))
            wrapped = torch.nn.DataParallel(model, device_ids=device_ids)
            return (wrapped(data(torch, (4, 3))), list(wrapped.state_dict()),
                    wrapped.module is model)
        check(snippet)

        def pitfall(torch):
            torch.nn.DataParallel(torch.nn.Linear(3, 2)).set_fix_method()
        same_error(pitfall, AttributeError)  # an ember hint (use .module) is still missing


def test_summary_writer_scalars(tmp_path):
    from ember.utils.tensorboard import SummaryWriter
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    writer = SummaryWriter(str(tmp_path))
    for step in range(3):
        writer.add_scalar("section/plot", step * 0.5, global_step=step)
    writer.close()
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    assert [(s.step, s.value) for s in events.Scalars("section/plot")] == \
        [(0, 0.0), (1, 0.5), (2, 1.0)]


def test_custom_batchnorm_function():
    # The note's MyBN_f / MyBN (training branch), with the ipdb breakpoint removed.
    def snippet(torch):
        # from torch.autograd import Function, etc. (attribute access: `torch` is a parameter)
        Function = torch.autograd.Function
        init = torch.nn.init
        Parameter = torch.nn.parameter.Parameter
        nn = torch.nn

        class MyBN_f(Function):
            @staticmethod
            def forward(ctx, inputs, running_mean, running_var, weight, bias, is_training,
                        momemtum, eps, returned_mean, returned_var, returned_whiten_inputs):
                mean = torch.mean(inputs, dim=[0, 2, 3])
                var = torch.var(inputs, unbiased=False, dim=[0, 2, 3])
                var = torch.mean((inputs - mean.reshape([1, -1, 1, 1]))**2, dim=[0, 2, 3])
                returned_mean.copy_(mean)
                returned_var.copy_(var)
                running_mean.copy_((1-momemtum)*running_mean + momemtum*mean)
                running_var.copy_((1-momemtum)*running_var + momemtum*var)
                squared_var = torch.sqrt(var + eps).reshape([1, -1, 1, 1])
                mean = mean.reshape([1, -1, 1, 1])
                whitened_inputs = (inputs - mean) / squared_var
                returned_whiten_inputs.copy_(whitened_inputs)
                output = whitened_inputs*weight.reshape([1, -1, 1, 1]) + bias.reshape([1, -1, 1, 1])
                ctx.save_for_backward(whitened_inputs, mean, squared_var, weight,
                                      torch.tensor(is_training, device=inputs.device))
                return output

            @staticmethod
            def backward(ctx, grad_y):
                N = grad_y.shape[0]*grad_y.shape[2]*grad_y.shape[3]
                whitened_inputs, mean, squared_var, weight, is_training = ctx.saved_tensors
                g_w = torch.sum(grad_y*whitened_inputs, dim=[0, 2, 3])
                g_b = torch.sum(grad_y, (0, 2, 3))
                g_whitened_x = torch.mul(grad_y, weight.reshape([1, -1, 1, 1]))
                g_var = torch.sum(g_whitened_x * whitened_inputs * squared_var.pow(-2) * (-0.5),
                                  dim=[0, 2, 3])
                g_mean = torch.sum(g_whitened_x * squared_var.pow(-1) * (-1), dim=[0, 2, 3])
                assert is_training.item()
                grad_x = (1/(N*squared_var))*(
                    N*g_whitened_x - torch.sum(g_whitened_x, dim=[0, 2, 3]).reshape([1, -1, 1, 1])
                    - whitened_inputs * torch.sum(g_whitened_x*whitened_inputs,
                                                  dim=[0, 2, 3]).reshape([1, -1, 1, 1]))
                return grad_x, None, None, g_w, g_b, None, None, None, g_mean, g_var, g_whitened_x

        class MyBN(nn.Module):
            def __init__(self, num_features, eps=1e-5, momemtum=0.1):
                super(MyBN, self).__init__()
                self.eps, self.momemtum = eps, momemtum
                self.mean = torch.Tensor(num_features).requires_grad_()
                self.var = torch.Tensor(num_features).requires_grad_()
                self.weight = Parameter(torch.Tensor(num_features))
                self.bias = Parameter(torch.Tensor(num_features))
                self.register_buffer('running_mean', torch.zeros(num_features))
                self.register_buffer('running_var', torch.zeros(num_features))
                self.register_buffer('num_batches_tracked',
                                     torch.zeros(num_features, dtype=torch.long))
                self.running_var.fill_(1)
                init.ones_(self.weight)
                init.zeros_(self.bias)

            def forward(self, inputs):
                self.whitened_inputs = torch.Tensor(inputs.size())
                self.whitened_inputs.requires_grad_()
                return MyBN_f.apply(inputs, self.running_mean, self.running_var, self.weight,
                                    self.bias, self.training, self.momemtum, self.eps, self.mean,
                                    self.var, self.whitened_inputs)

        bn = MyBN(3)
        x = (data(torch, (4, 3, 2, 2)) * 2 + 1).requires_grad_()
        out = bn(x)
        (out * data(torch, (4, 3, 2, 2), 1)).sum().backward()
        reference = nn.BatchNorm2d(3)(x.detach())
        return (out, reference, x.grad, bn.weight.grad, bn.bias.grad, bn.running_mean,
                bn.running_var, bn.mean.grad.shape, list(bn.state_dict()))
    t, e = both(snippet)
    same(e, t, atol=1e-4)
    # The hand-written BN agrees with nn.BatchNorm2d.
    np.testing.assert_allclose(e[0].detach().numpy(), e[1].detach().numpy(), atol=1e-4)


class TestVision:
    """torchvision is not installed next to torch here: ember.vision is checked against
    NumPy/PIL written out from torchvision's documented behaviour."""

    def test_transform_pipeline_on_pil(self):
        from PIL import Image
        from ember.vision import transforms
        img = Image.fromarray(np.random.default_rng(0).integers(0, 256, (32, 32, 3), np.uint8))
        transform_train = transforms.Compose([
            transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))])
        out = transform_train(img)
        assert out.shape == (3, 32, 32) and out.dtype == ember.float32
        plain = transforms.Compose([transforms.ToTensor(),
                                    transforms.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25))])
        expected = (np.asarray(img, np.float32).transpose(2, 0, 1) / 255 - 0.5) / 0.25
        np.testing.assert_allclose(plain(img).numpy(), expected, atol=1e-5)

    def test_numpy_to_tensor_to_pil(self):
        from ember.vision import transforms
        n_out = np.random.rand(100, 100, 3)
        t_out = transforms.ToTensor()(n_out)
        img2 = transforms.ToPILImage()(t_out.float())
        assert t_out.dtype == ember.float64 and t_out.shape == (3, 100, 100)
        np.testing.assert_allclose(t_out.numpy(), n_out.transpose(2, 0, 1))
        assert img2.size == (100, 100) and img2.mode == "RGB"

    def test_pitfall_to_tensor_on_a_tensor(self):
        from ember.vision import transforms
        with pytest.raises(TypeError, match=r"^pic should be PIL Image or ndarray\. Got "):
            transforms.ToTensor()(ember.zeros(3, 8, 8))

    def test_pitfall_random_crop_larger_than_image(self):
        # RandomCrop(224) where RandomResizedCrop(224) was meant.
        from PIL import Image
        from ember.vision import transforms
        with pytest.raises(ValueError, match=r"^Required crop size \(224, 224\) is larger than "
                                             r"input image size \(201, 201\)"):
            transforms.RandomCrop(224)(Image.new("RGB", (201, 201)))

    def test_tensor_pil_round_trip(self):
        from PIL import Image
        from ember.vision.transforms import functional as TF
        tensor = ember.from_numpy(np.random.default_rng(0).random((3, 4, 5), np.float32))
        image = Image.fromarray(ember.clamp(tensor * 255, min=0, max=255).byte()
                                .permute(1, 2, 0).cpu().numpy())
        same_image = TF.to_pil_image(tensor)
        back = ember.from_numpy(np.asarray(image).copy()).permute(2, 0, 1).float() / 255
        np.testing.assert_allclose(back.numpy(), TF.to_tensor(image).numpy(), atol=1e-6)
        assert image.size == same_image.size == (5, 4)

    def test_image_folder(self, tmp_path):
        from PIL import Image
        from ember.vision import datasets
        for cls in ("cat", "dog"):
            (tmp_path / cls).mkdir()
            for i in range(2):
                Image.new("RGB", (4, 4)).save(tmp_path / cls / f"{i}.png")
        dataset = datasets.ImageFolder(str(tmp_path))
        assert dataset.classes == ["cat", "dog"]
        assert dataset.class_to_idx == {"cat": 0, "dog": 1}
        assert [t for _, t in dataset.samples] == [0, 0, 1, 1] and len(dataset) == 4
