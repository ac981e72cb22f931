"""Seed 003 "深入浅出Pytorch": the course summary (tensors, autograd, Dataset, models, losses,
optimizers, Sequential/ModuleList/ModuleDict, saving)."""
import collections
import copy
from collections import OrderedDict

import numpy as np
import pytest

import ember
import torch
from seedkit import check, data, labels, same_error, seeded, warned


def test_tensor_basics():
    def snippet(torch):
        a = torch.tensor(1.0, dtype=torch.float)
        g = np.array([[1, 2, 3], [4, 5, 6]])
        h, i = torch.tensor(g), torch.from_numpy(g)
        j = h.numpy()
        k, l, m = torch.rand(2, 3), torch.ones(2, 3), torch.zeros(2, 3)
        n = torch.arange(0, 10, 2)
        return (a, h, i, type(j).__name__, j.dtype.name, k.shape, k.size(), torch.add(l, m),
                n, l.view(3, 2), l.view(-1).shape)
    check(snippet)  # of torch.rand (draws differ) only the shape is compared


def test_unsqueeze_squeeze():
    def snippet(torch):
        o = torch.ones(2, 3)
        r = o.unsqueeze(1)
        return r.shape, r.squeeze(0).shape, r.squeeze(1).shape
    check(snippet)


def test_gradients_accumulate():
    def snippet(torch):
        x1 = torch.tensor([1., 2.], requires_grad=True)
        before = x1.grad
        y = (x1 ** 2).sum()
        y.backward(retain_graph=True)
        first = x1.grad.data.clone()
        y.backward()
        return before, first, x1.grad.data
    check(snippet)


@pytest.mark.parametrize("workers", [0, 2])
def test_my_dataset_from_files(tmp_path, workers):
    pd = pytest.importorskip("pandas")
    Image = pytest.importorskip("PIL.Image")
    import os
    rng = np.random.default_rng(0)
    names = [f"img{i}.png" for i in range(5)]
    for name in names:
        Image.fromarray(rng.integers(0, 255, (4, 4, 3), dtype=np.uint8)).save(tmp_path / name)
    pd.DataFrame({"label": [0, 1, 0, 1, 1], "Image_index": names}).to_csv(tmp_path / "info.csv",
                                                                         index=False)
    (tmp_path / "list.txt").write_text("\n".join(names) + "\n")

    def snippet(torch):
        class MyDataset(torch.utils.data.Dataset):
            def __init__(self, data_dir, info_csv, image_list, transform=None):
                self.data_dir = data_dir
                self.image_file = open(image_list).readlines()
                self.label_info = pd.read_csv(info_csv)
                self.transform = transform

            def __getitem__(self, index):
                image_name = self.image_file[index].strip('\n')
                raw_label = self.label_info.loc[self.label_info['Image_index'] == image_name]
                label = int(raw_label.iloc[:, 0].item())
                image = Image.open(os.path.join(self.data_dir, image_name)).convert('RGB')
                if self.transform is not None:
                    image = self.transform(image)
                return image, label

            def __len__(self):
                return len(self.image_file)

        to_tensor = lambda im: torch.from_numpy(np.asarray(im).copy()).permute(2, 0, 1)  # noqa
        train_data = MyDataset(tmp_path, tmp_path / "info.csv", tmp_path / "list.txt", to_tensor)
        train_loader = torch.utils.data.DataLoader(train_data, batch_size=2, num_workers=workers,
                                                   shuffle=False, drop_last=True)
        return list(train_loader), len(train_loader)
    check(snippet)


def test_parameters_lists_and_dicts():
    def snippet(torch):
        nn = torch.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.ones(2))
                self.plist = nn.ParameterList([nn.Parameter(torch.zeros(3)) for _ in range(2)])
                self.pdict = nn.ParameterDict({"a": nn.Parameter(torch.ones(1))})
                self.plain = torch.ones(4)  # a plain tensor is not a parameter
        net = Net()
        params = list(net.parameters())
        return ([n for n, _ in net.named_parameters()], len(params), repr(net))
    check(snippet)


def test_single_sample_unsqueeze():
    def snippet(torch):
        conv = seeded(torch, torch.nn.Conv2d(1, 2, 3))
        input = data(torch, (1, 5, 5))
        return conv(input.unsqueeze(0)).shape, conv(input).shape
    check(snippet)


def test_init_functions():
    def snippet(torch):
        conv, linear = torch.nn.Conv2d(3, 8, 3), torch.nn.Linear(4, 2)
        torch.nn.init.kaiming_normal_(conv.weight.data)
        torch.nn.init.constant_(linear.weight.data, 0.3)
        return conv.weight.data.shape, linear.weight.data, conv.weight.requires_grad
    check(snippet)


LOSSES = [
    ("BCELoss", lambda t: (t.sigmoid(data(t, (4,))), t.tensor([0., 1., 1., 0.]))),
    ("CrossEntropyLoss", lambda t: (data(t, (4, 3)), labels(t, 4, 3))),
    ("L1Loss", lambda t: (data(t, (4, 2)), data(t, (4, 2), 1))),
    ("MSELoss", lambda t: (data(t, (4, 2)), data(t, (4, 2), 1))),
    ("SmoothL1Loss", lambda t: (data(t, (4, 2)) * 3, data(t, (4, 2), 1))),
    ("PoissonNLLLoss", lambda t: (data(t, (4,)), t.tensor([0., 2., 1., 3.]))),
    ("KLDivLoss", lambda t: (t.log_softmax(data(t, (2, 3)), 1), t.softmax(data(t, (2, 3), 1), 1))),
    ("MultiLabelMarginLoss", lambda t: (data(t, (2, 4)), t.tensor([[3, 0, -1, 1], [1, -1, 2, 0]]))),
    ("SoftMarginLoss", lambda t: (data(t, (4,)), t.tensor([1., -1., 1., -1.]))),
    ("MultiMarginLoss", lambda t: (data(t, (4, 3)), labels(t, 4, 3))),
    ("HingeEmbeddingLoss", lambda t: (data(t, (4,)), t.tensor([1., -1., 1., -1.]))),
]


@pytest.mark.parametrize("name, make", LOSSES, ids=[n for n, _ in LOSSES])
def test_loss_functions(name, make):
    def snippet(torch):
        input, target = make(torch)
        input = input.detach().requires_grad_()
        loss = getattr(torch.nn, name)()(input, target)
        loss.backward()
        return loss, input.grad
    check(snippet)


def test_three_input_losses():
    def snippet(torch):
        nn = torch.nn
        a, b, c = (data(torch, (3, 4), i).requires_grad_() for i in range(3))
        y = torch.tensor([1., -1., 1.])
        losses = [nn.MarginRankingLoss(margin=0.1)(a[:, 0], b[:, 0], y),
                  nn.TripletMarginLoss()(a, b, c), nn.CosineEmbeddingLoss()(a, b, y)]
        sum(losses).backward()
        return losses, a.grad, b.grad, c.grad
    check(snippet)


def test_ctc_loss():
    def snippet(torch):
        log_probs = torch.log_softmax(data(torch, (6, 2, 4)), 2).detach().requires_grad_()
        targets = torch.tensor([[1, 2, 2], [3, 1, 0]])
        loss = torch.nn.CTCLoss()(log_probs, targets, torch.tensor([6, 5]), torch.tensor([3, 2]))
        loss.backward()
        return loss, log_probs.grad
    check(snippet)


def train_val(torch, swapped):
    nn = torch.nn
    model = seeded(torch, nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Dropout(0.0),
                                        nn.Linear(6, 3)))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    ds = torch.utils.data.TensorDataset(data(torch, (8, 4)), labels(torch, 8, 3))
    train_loader = val_loader = torch.utils.data.DataLoader(ds, batch_size=4)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.train()
    train_loss = 0
    for data_, label in train_loader:
        data_, label = data_.to(device), label.to(device)
        optimizer.zero_grad()
        output = model(data_)
        loss = criterion(label, output) if swapped else criterion(output, label)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()*data_.size(0)
    train_loss = train_loss/len(train_loader.dataset)
    model.eval()
    val_loss, running_accu = 0, 0
    with torch.no_grad():
        for data_, label in val_loader:
            output = model(data_.to(device))
            preds = torch.argmax(output, 1)
            val_loss += criterion(output, label).item()*data_.size(0)
            running_accu += torch.sum(preds == label.data)
    return train_loss, val_loss / len(val_loader.dataset), running_accu, output.requires_grad


def test_train_and_val_loops():
    check(lambda torch: train_val(torch, swapped=False))


def test_pitfall_loss_arguments_swapped():
    # The note writes criterion(label, output).
    same_error(lambda torch: train_val(torch, swapped=True), NotImplementedError,
               hint="argument order")


OPTIMIZERS = [("ASGD", {}), ("Adadelta", {}), ("Adagrad", {}), ("Adam", {}), ("AdamW", {}),
              ("Adamax", {}), ("RMSprop", {}), ("Rprop", {}), ("SGD", {"momentum": 0.9}),
              # Past ~10 iterations a step LBFGS takes near the minimum depends on float32
              # rounding (the BLAS's summation order): 3 x 20 iterations differ from torch
              # by 6e-4 on some CPUs, 3 x 10 by 7e-7 (float64 agrees to 1e-15 at 3 x 20).
              ("LBFGS", {"max_iter": 10})]


@pytest.mark.parametrize("name, kwargs", OPTIMIZERS, ids=[n for n, _ in OPTIMIZERS])
def test_optimizers(name, kwargs):
    def snippet(torch):
        model = seeded(torch, torch.nn.Linear(3, 2))
        optimizer = getattr(torch.optim, name)(model.parameters(), lr=0.01, **kwargs)
        x, y = data(torch, (5, 3)), data(torch, (5, 2), 1)

        def closure():
            optimizer.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            return loss
        for _ in range(3):
            optimizer.step(closure)
        extra = torch.nn.Parameter(torch.zeros(1))
        optimizer.add_param_group({"params": [extra]})
        state = optimizer.state_dict()
        return (list(model.parameters()), sorted(optimizer.defaults), len(optimizer.param_groups),
                list(state), sorted(state["param_groups"][0]))
    check(snippet, atol=1e-4)


def test_sparse_adam_with_sparse_embedding():
    # Embedding(sparse=True) gives a sparse gradient, which SparseAdam updates from
    # (tests/optim/test_sparse_gradients.py checks its refusal of dense ones).
    def snippet(torch):
        emb = seeded(torch, torch.nn.Embedding(5, 3, sparse=True))
        optimizer = torch.optim.SparseAdam(emb.parameters(), lr=0.1)
        for step in range(2):
            optimizer.zero_grad()
            emb(torch.tensor([[1, 3], [3, step]])).pow(2).sum().backward()
            optimizer.step()
        return emb.weight, sorted(optimizer.defaults)
    check(snippet)


def test_my_sequential():
    def snippet(torch):
        nn = torch.nn

        class MySequential(nn.Module):
            def __init__(self, *args):
                super(MySequential, self).__init__()
                if len(args) == 1 and isinstance(args[0], OrderedDict):
                    for key, module in args[0].items():
                        self.add_module(key, module)
                else:
                    for idx, module in enumerate(args):
                        self.add_module(str(idx), module)

            def forward(self, input):
                for module in self._modules.values():
                    input = module(input)
                return input
        a = MySequential(nn.Linear(4, 3), nn.ReLU())
        b = MySequential(OrderedDict([("fc", nn.Linear(4, 3)), ("act", nn.Tanh())]))
        return repr(a), repr(b), seeded(torch, a)(data(torch, (2, 4))), list(b.state_dict())
    check(snippet)


def test_sequential_prints():
    def snippet(torch):
        nn = torch.nn
        net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
        net2 = nn.Sequential(collections.OrderedDict([
            ('fc1', nn.Linear(784, 256)), ('relu1', nn.ReLU()), ('fc2', nn.Linear(256, 10))]))
        return repr(net), repr(net2), list(net2.state_dict())
    check(snippet)


def test_module_list_and_dict():
    def snippet(torch):
        nn = torch.nn
        net = nn.ModuleList([nn.Linear(784, 256), nn.ReLU()])
        net.append(nn.Linear(256, 10))
        last = repr(net[-1])

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.modulelist = net

            def forward(self, x):
                for layer in self.modulelist:
                    x = layer(x)
                return x
        out = seeded(torch, Model())(data(torch, (2, 784)))
        d = nn.ModuleDict({'linear': nn.Linear(784, 256), 'act': nn.ReLU()})
        d['output'] = nn.Linear(256, 10)
        return last, repr(net), out, repr(d['linear']), repr(d.output), repr(d), list(d.keys())
    check(snippet, atol=1e-4)


def test_deepcopy_a_layer_and_modify():
    def snippet(torch):
        layer = seeded(torch, torch.nn.Linear(3, 2))
        clone = copy.deepcopy(layer)
        with torch.no_grad():
            clone.weight.mul_(2)
        return layer.weight, clone.weight, clone.weight is layer.weight
    check(snippet)


def test_dataparallel_state_dict_prefix():
    def snippet(torch):
        model = torch.nn.Sequential(OrderedDict(conv1=torch.nn.Conv2d(1, 2, 3)))
        wrapped = torch.nn.DataParallel(model)
        keys = list(wrapped.state_dict())
        plain = torch.nn.Sequential(OrderedDict(conv1=torch.nn.Conv2d(1, 2, 3)))
        # Two fixes from the note: strip "module." or load into the wrapper.
        plain.load_state_dict({k.replace("module.", "", 1): v
                               for k, v in wrapped.state_dict().items()})
        torch.nn.DataParallel(plain).load_state_dict(wrapped.state_dict())
        return keys, plain.conv1.weight.equal(model.conv1.weight)
    check(snippet)


def test_pitfall_assigning_state_dict_loads_nothing():
    # loaded_model.state_dict = loaded_dict replaces the method; no weight changes.
    def snippet(torch):
        source, target = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
        before = target.weight.clone()
        target.state_dict = source.state_dict()
        return target.weight.equal(before), type(target.state_dict).__name__
    check(snippet)


def test_pitfall_assigning_state_dict_warns_once_naming_load_state_dict():
    # torch is silent; ember warns at the assignment (once) and names the call that loads.
    def snippet(torch):
        source, target = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
        target.state_dict = source.state_dict()
        target.state_dict = source.state_dict()
    assert warned(snippet, torch) == []
    [message] = warned(snippet, ember)
    assert "replaces the method Linear.state_dict" in message
    assert "nothing is loaded" in message and ".load_state_dict(...)" in message


def test_save_whole_model_and_weights(tmp_path):
    def snippet(torch):
        unet = seeded(torch, torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU()))
        torch.save(unet.state_dict(), tmp_path / "unet_weight_exp.pth")
        loaded_unet_weights = torch.load(tmp_path / "unet_weight_exp.pth")
        unet.load_state_dict(loaded_unet_weights)
        torch.save(unet, tmp_path / "unet_exp.pth")
        loaded_unet = torch.load(tmp_path / "unet_exp.pth", weights_only=False)
        return loaded_unet_weights, repr(loaded_unet), loaded_unet.state_dict()
    check(snippet)

    def pitfall(torch):
        # torch >= 2.6 loads weights only by default: a whole pickled model is refused.
        torch.save(torch.nn.Linear(2, 2), tmp_path / "whole.pth")
        torch.load(tmp_path / "whole.pth")
    import pickle
    # torch's first sentence goes on ", to do so you have two options, ..." (with terminal
    # bold codes); ember words the rest differently (reported to the serialization owner).
    same_error(pitfall, pickle.UnpicklingError, opening="Weights only load failed.")
