"""nn.Module against torch.nn.Module: registration, state_dict, hooks, conversions, repr."""
import copy
import pickle
import re
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from oracle import check_error


def build(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8))
            self.heads = nn.ModuleList([nn.Linear(8, 3), nn.Linear(8, 3)])
            self.extra = nn.ModuleDict({"proj": nn.Linear(3, 2), "act": nn.Tanh()})
            self.scale = nn.Parameter(lib.ones(1))
            self.register_buffer("running", lib.zeros(3))
            self.register_buffer("tmp", lib.zeros(2), persistent=False)

        def forward(self, x):
            h = self.backbone(x)
            y = self.heads[0](h) + self.heads[1](h) + self.running
            return self.extra["act"](self.extra["proj"](y)) * self.scale

    return Net()


def to_ember_state(module):
    return OrderedDict((k, ember.tensor(v.detach().numpy())) for k, v in
                       module.state_dict().items())


def pair():
    t, e = build(torch), build(ember)
    e.load_state_dict(to_ember_state(t))
    return t, e


def test_state_dict_keys_repr_and_output():
    t, e = pair()
    assert list(e.state_dict()) == list(t.state_dict())
    assert repr(e) == repr(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    tx, ex = torch.tensor(x, requires_grad=True), ember.tensor(x, requires_grad=True)
    t(tx).sum().backward()
    e(ex).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    for (n, tp), (_, ep) in zip(t.named_parameters(), e.named_parameters()):
        np.testing.assert_allclose(ep.grad.numpy(), tp.grad.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=n)


def test_state_dict_options():
    e = build(ember)
    sd = e.state_dict()
    assert isinstance(sd, OrderedDict) and "tmp" not in sd
    assert not sd["scale"].requires_grad and sd["scale"].data_ptr() == e.scale.data_ptr()
    assert e.state_dict(keep_vars=True)["scale"] is e.scale
    assert list(e.state_dict(prefix="m.")) == ["m." + k for k in sd]
    dest = OrderedDict()
    assert e.backbone.state_dict(destination=dest) is dest and list(dest) == [
        "0.weight", "0.bias", "2.weight", "2.bias"]
    assert sd._metadata[""] == {"version": 1} and "backbone.0" in sd._metadata


def test_load_state_dict_errors_match_torch():
    t, e = pair()
    sd = t.state_dict()
    bad = OrderedDict(sd)
    del bad["backbone.0.bias"]
    bad["extra.proj.weight"] = torch.zeros(5, 3)
    bad["head.weight"] = torch.zeros(1)
    ebad = OrderedDict((k, ember.tensor(v.numpy())) for k, v in bad.items())
    with pytest.raises(RuntimeError) as terr:
        t.load_state_dict(bad)
    before = {k: v.numpy().copy() for k, v in e.state_dict().items()}
    with pytest.raises(RuntimeError) as eerr:
        e.load_state_dict(ebad)
    assert str(eerr.value) == str(terr.value)
    # Nothing was copied although most entries were valid.
    for k, v in e.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])


def test_load_state_dict_strict_false_and_repr():
    t, e = pair()
    sd = t.state_dict()
    partial = {k: v for k, v in sd.items() if not k.startswith("heads")}
    partial["unknown"] = torch.zeros(1)
    tk = t.load_state_dict(partial, strict=False)
    ek = e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in partial.items()},
                           strict=False)
    assert repr(ek) == repr(tk) and ek.missing_keys == tk.missing_keys
    assert repr(e.load_state_dict(to_ember_state(t))) == "<All keys matched successfully>"


def test_load_state_dict_copies_into_same_parameters():
    t, e = pair()
    w = e.backbone[0].weight
    e.load_state_dict({k: v * 2 for k, v in e.state_dict().items()})
    assert e.backbone[0].weight is w and w.requires_grad and w.is_leaf
    np.testing.assert_allclose(w.detach().numpy(), 2 * t.backbone[0].weight.detach().numpy())
    new = {k: v.clone() for k, v in e.state_dict().items()}
    e.load_state_dict(new, assign=True)
    assert e.backbone[0].weight is not w and isinstance(e.backbone[0].weight, ember.nn.Parameter)


def test_load_state_dict_dataparallel_hint():
    e = build(ember)
    sd = {"module." + k: v for k, v in e.state_dict().items()}
    with pytest.raises(RuntimeError, match=r"^Error\(s\) in loading state_dict for Net:\n\t"
                                           r"Missing key\(s\) in state_dict: ") as err:
        e.load_state_dict(sd)
    assert "removeprefix('module.')" in str(err.value) and "model.module" in str(err.value)
    e.load_state_dict({k.removeprefix("module."): v for k, v in sd.items()})


def test_load_state_dict_compiled_checkpoint_hints():
    """A torch.compile'd model saves '_orig_mod.' keys: both directions of the mix-up get
    torch's error text, then a hint naming the fix."""
    for lib in (torch, ember):
        model = lib.nn.Linear(2, 3)
        compiled = lib.compile(model)
        with pytest.raises(RuntimeError) as err:
            model.load_state_dict(compiled.state_dict())
        text = str(err.value)
        assert text.startswith("Error(s) in loading state_dict for Linear:\n\tMissing key(s) "
                               'in state_dict: "weight", "bias". \n\tUnexpected key(s) in '
                               'state_dict: "_orig_mod.weight", "_orig_mod.bias". ')
        with pytest.raises(RuntimeError) as back:
            compiled.load_state_dict(model.state_dict())
        assert str(back.value).startswith("Error(s) in loading state_dict for OptimizedModule:"
                                          '\n\tMissing key(s) in state_dict: "_orig_mod.weight"')
    assert "removeprefix('_orig_mod.')" in text and "torch.compile" in text
    assert "Hint: every missing key starts with '_orig_mod.'" in str(back.value)
    assert "model._orig_mod" in str(back.value) and "module.'" not in str(back.value)
    model.load_state_dict({k.removeprefix("_orig_mod."): v
                           for k, v in compiled.state_dict().items()})


def test_load_state_dict_type_error_and_scalar_shapes():
    check_error(lambda lib: lib.nn.Linear(2, 2).load_state_dict([1]), TypeError,
                "^Expected state_dict to be dict-like")
    e = build(ember)
    sd = e.state_dict()
    sd["scale"] = ember.tensor([[3.0]])
    with pytest.raises(RuntimeError, match=r"size mismatch for scale: copying a param with "
                                           r"shape torch.Size\(\[1, 1\]\) from checkpoint, the "
                                           r"shape in current model is torch.Size\(\[1\]\)."):
        e.load_state_dict(sd)


def test_load_from_state_dict_override_and_hooks():
    calls = []

    class Old(ember.nn.Linear):
        _version = 2

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
            calls.append(local_metadata.get("version"))
            if prefix + "w" in state_dict:  # an old checkpoint used a different name
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

    m = Old(2, 2)
    sd = m.state_dict()
    assert sd._metadata[""]["version"] == 2
    old = OrderedDict(w=sd["weight"] * 0 + 1, bias=sd["bias"])
    m.register_load_state_dict_post_hook(lambda mod, keys: calls.append(tuple(keys)))
    m.load_state_dict(old)
    assert calls == [None, ([], [])] and m.weight.detach().numpy().tolist() == [[1, 1], [1, 1]]
    m.load_state_dict(sd)
    assert calls[-2] == 2


def test_load_post_hook_can_clear_missing_keys():
    m = ember.nn.Linear(2, 2)
    m.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
    assert m.load_state_dict({"weight": ember.ones(2, 2)}).missing_keys == []


def test_state_dict_hooks():
    for lib in (torch, ember):
        m = lib.nn.Linear(2, 2)
        seen = []
        m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: seen.append(prefix))
        m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: seen.append(len(sd)))
        m.state_dict(prefix="a.")
        assert seen == ["a.", 2]


def test_attribute_errors():
    class Net(torch.nn.Module):
        pass

    class ENet(ember.nn.Module):
        pass
    ENet.__name__ = "Net"
    for net in (Net(), ENet()):
        with pytest.raises(AttributeError, match="^'Net' object has no attribute 'x'$"):
            net.x
    check_error(lambda lib: setattr(lib.nn.Linear(2, 2), "weight", lib.ones(2, 2)), TypeError,
                r"^cannot assign '.*' as parameter 'weight' \(torch.nn.Parameter or None "
                "expected\\)")
    check_error(lambda lib: setattr(lib.nn.Sequential(lib.nn.ReLU()), "0", 3), TypeError,
                r"^cannot assign 'int' as child module '0'")
    check_error(lambda lib: lib.nn.Linear(2, 2).register_buffer("weight", lib.ones(1)), KeyError,
                "attribute 'weight' already exists")
    check_error(lambda lib: lib.nn.Linear(2, 2).register_buffer("a.b", lib.ones(1)), KeyError,
                'buffer name can.+t contain "."')
    check_error(lambda lib: lib.nn.Linear(2, 2).register_buffer("b", 3), TypeError,
                r"^cannot assign 'int' object to buffer 'b' \(torch Tensor or None required\)")
    check_error(lambda lib: lib.nn.Linear(2, 2).add_module("x", 3), TypeError,
                "^int is not a Module subclass")
    check_error(lambda lib: lib.nn.Linear(2, 2).register_parameter("p", lib.ones(1)), TypeError,
                "^cannot assign '.*' object to parameter 'p'")
    check_error(lambda lib: lib.nn.Module(3), TypeError,
                r"^Module.__init__\(\) takes 1 positional argument but 2 were given")


def test_assign_before_init():
    for lib in (torch, ember):
        class Early(lib.nn.Module):
            def __init__(self):
                self.p = lib.nn.Parameter(lib.ones(1))

        class EarlyModule(lib.nn.Module):
            def __init__(self):
                self.m = lib.nn.ReLU()
        with pytest.raises(AttributeError, match=r"^cannot assign parameters? before "
                                                 r"Module.__init__\(\) call"):
            Early()
        with pytest.raises(AttributeError, match=r"^cannot assign module before "
                                                 r"Module.__init__\(\) call"):
            EarlyModule()


def test_forward_not_implemented():
    check_error(lambda lib: lib.nn.Module()(1), NotImplementedError,
                r'^Module \[Module\] is missing the required "forward" function')


def test_setattr_routing_and_delattr():
    m = ember.nn.Module()
    m.p = ember.nn.Parameter(ember.ones(2))
    m.register_buffer("b", ember.zeros(2))
    m.b = ember.ones(2)  # reassigning a buffer name keeps it a buffer
    m.c = ember.nn.Buffer(ember.ones(1), persistent=False)
    m.sub = ember.nn.ReLU()
    m.p = None
    assert list(m._parameters) == ["p"] and m.p is None and list(m.state_dict()) == ["b"]
    assert "c" in m._non_persistent_buffers_set and list(m._buffers) == ["b", "c"]
    m.sub = ember.nn.Parameter(ember.ones(1))  # a parameter replaces the module
    assert "sub" not in m._modules and "sub" in m._parameters
    del m.sub, m.b
    assert "sub" not in m._parameters and "b" not in m._buffers
    assert {"p", "c"} <= set(dir(m))


def test_named_members_and_duplicates():
    for lib in (torch, ember):
        lin = lib.nn.Linear(2, 2)
        seq = lib.nn.Sequential(lin, lin, lib.nn.ReLU())
        assert len(list(seq.parameters())) == 2
        assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == [
            "0.weight", "0.bias", "1.weight", "1.bias"]
        assert [n for n, _ in seq.named_modules(remove_duplicate=False)] == ["", "0", "1", "2"]
        assert [n for n, _ in seq.named_parameters(prefix="net")] == ["net.0.weight",
                                                                      "net.0.bias"]
        assert list(seq.parameters(recurse=False)) == []


def test_get_submodule_parameter_buffer():
    t, e = pair()
    assert e.get_submodule("backbone.2") is e.backbone[2]
    assert e.get_parameter("heads.1.bias") is e.heads[1].bias
    assert e.get_buffer("running") is e.running
    check_error(lambda lib: build(lib).get_submodule("backbone.9"), AttributeError,
                "^Sequential has no attribute `9`")
    check_error(lambda lib: build(lib).get_submodule("scale"), AttributeError,
                "^`scale` is not an nn.Module")
    check_error(lambda lib: build(lib).get_parameter("running"), AttributeError,
                "^`running` is not an nn.Parameter")
    check_error(lambda lib: build(lib).get_buffer("scale"), AttributeError,
                "^`scale` is not a buffer")


def test_train_eval_requires_grad_zero_grad_apply():
    e = build(ember)
    assert e.eval() is e and not any(m.training for m in e.modules())
    e.train()
    assert all(m.training for m in e.modules())
    check_error(lambda lib: lib.nn.ReLU().train("yes"), ValueError,
                "^training mode is expected to be boolean")
    e(ember.ones(2, 4)).sum().backward()
    e.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in e.parameters())
    e.zero_grad()
    assert all(p.grad is None for p in e.parameters())
    e.requires_grad_(False)
    assert not any(p.requires_grad for p in e.parameters())
    seen = []
    e.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and seen[0] == "Linear"


def test_to_and_dtype_conversions():
    e = build(ember)
    w = e.backbone[0].weight
    e(ember.ones(2, 4)).sum().backward()
    assert e.double() is e and e.backbone[0].weight is w
    assert w.dtype == ember.float64 and w.grad.dtype == ember.float64
    assert e.running.dtype == ember.float64 and w.is_leaf and w.requires_grad
    e.to(ember.float32)
    assert w.dtype == ember.float32
    e.to("cpu").to(device="cpu", dtype=ember.float16).float().cpu()
    assert w.dtype == ember.float32
    e.half()
    assert w.dtype == ember.float16
    e.type(ember.float64)
    assert w.dtype == ember.float64
    check_error(lambda lib: lib.nn.Linear(2, 2).to(lib.int64), TypeError,
                "^nn.Module.to only accepts floating point or complex dtypes")
    check_error(lambda lib: lib.nn.Linear(2, 2).cuda(), AssertionError,
                "^Torch not compiled with CUDA enabled")
    check_error(lambda lib: lib.nn.Linear(2, 2).to("cuda"), AssertionError,
                "^Torch not compiled with CUDA enabled")


def test_parameter_basics():
    data = ember.ones(2, 3)
    p = ember.nn.Parameter(data)
    assert isinstance(p, ember.Tensor) and isinstance(p, ember.nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.data_ptr() == data.data_ptr()
    assert not ember.nn.Parameter(data, requires_grad=False).requires_grad
    assert repr(p) == "Parameter containing:\n" + repr(ember.ones(2, 3, requires_grad=True))
    assert repr(p) == repr(torch.nn.Parameter(torch.ones(2, 3)))
    y = p * 2
    assert type(y) is ember.Tensor and not y.is_leaf
    q = copy.deepcopy(p)
    assert isinstance(q, ember.nn.Parameter) and q.requires_grad
    assert q.data_ptr() != p.data_ptr() and np.array_equal(q.detach().numpy(), p.detach().numpy())
    r = pickle.loads(pickle.dumps(p))
    assert isinstance(r, ember.nn.Parameter) and r.requires_grad
    assert ember.nn.Parameter().shape == (0,)


@pytest.mark.parametrize("kind", ["Parameter", "Buffer"])
def test_parameter_and_buffer_of_a_view_alias_it_without_being_views(kind):
    """They share the view's memory and version counter but are no views themselves
    (torch gives them no _base)."""
    seen = []
    for lib in (torch, ember):
        base = lib.zeros(2, 3)
        view = base[1]
        alias = getattr(lib.nn, kind)(view)
        base[1, 0] = 5.0                      # one in-place change, seen through the alias
        seen.append((alias.detach().numpy().tolist(), alias._version == view._version == 1,
                     alias._base is None, alias._is_view(), alias.is_leaf, alias.grad_fn))
    assert seen[1] == seen[0]


def test_deepcopy_and_pickle_module():
    e = build(ember)
    c = copy.deepcopy(e)
    assert c.backbone[0].weight is not e.backbone[0].weight
    assert isinstance(c.backbone[0].weight, ember.nn.Parameter)
    assert list(c.state_dict()) == list(e.state_dict())
    lin = pickle.loads(pickle.dumps(ember.nn.Linear(3, 2)))
    assert isinstance(lin.weight, ember.nn.Parameter) and lin(ember.ones(3)).shape == (2,)


# ---------------------------------------------------------------- hooks
def _record(lib, register):
    """Run a small model with hooks installed by register(model, log) and return the log."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    sd = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(),
                             torch.nn.Linear(4, 2)).state_dict()
    torch.manual_seed(1)
    sd = {k: torch.randn(v.shape) for k, v in sd.items()}
    model.load_state_dict({k: lib.tensor(v.numpy()) for k, v in sd.items()})
    log = []
    register(model, log)
    x = lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), requires_grad=True)
    out = model(x)
    out.sum().backward()
    return log


def _norm(value):
    """Hook arguments in a comparable form: tensors as rounded lists, tuples recursed."""
    if isinstance(value, (tuple, list)):
        return tuple(_norm(v) for v in value)
    if hasattr(value, "detach"):
        return np.round(value.detach().numpy().astype(np.float64), 5).tolist()
    if isinstance(value, (torch.nn.Module, ember.nn.Module)):
        return type(value).__name__
    return value


def _same_log(register):
    tl, el = _record(torch, register), _record(ember, register)
    assert _norm(el) == _norm(tl)
    assert tl  # the hooks did fire


def test_forward_hooks_order_and_arguments():
    def register(model, log):
        for name, m in model.named_children():
            m.register_forward_pre_hook(lambda mod, args, n=name: log.append(("pre", n, args)))
            m.register_forward_hook(lambda mod, args, out, n=name: log.append(("fwd", n, out)))
            m.register_forward_hook(lambda mod, args, out, n=name: log.append(("first", n)),
                                    prepend=True)
        model.register_forward_pre_hook(
            lambda mod, args, kwargs: log.append(("kw", kwargs)), with_kwargs=True)
    _same_log(register)


def test_forward_hooks_replace_values():
    for lib in (torch, ember):
        lin = lib.nn.Linear(2, 2)
        lin.register_forward_pre_hook(lambda m, args: args[0] * 0)
        h = lin.register_forward_hook(lambda m, args, out: out + 1)
        y = lin(lib.ones(1, 2))
        np.testing.assert_allclose(y.detach().numpy(), (lin.bias.detach().numpy() + 1)[None],
                                   rtol=1e-6)
        h.remove()
        assert len(lin._forward_hooks) == 0


def test_full_backward_hooks_match_torch():
    def register(model, log):
        for name, m in model.named_children():
            m.register_full_backward_pre_hook(
                lambda mod, gout, n=name: log.append(("bpre", n, gout)))
            m.register_full_backward_hook(
                lambda mod, gin, gout, n=name: log.append(("bwd", n, gin, gout)))
        model.register_full_backward_hook(lambda mod, gin, gout: log.append(("all", gin)))
    _same_log(register)


def test_full_backward_hook_replaces_grad_input():
    def register(model, log):
        model[2].register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 10,))
        model[0].register_full_backward_hook(lambda mod, gin, gout: log.append(gin))
    _same_log(register)


def test_full_backward_hook_without_input_grad():
    for lib in (torch, ember):
        lin = lib.nn.Linear(2, 2)
        log = []
        lin.register_full_backward_hook(lambda m, gin, gout: log.append((gin, gout)))
        with pytest.warns(UserWarning, match="Full backward hook is firing"):
            lin(lib.ones(3, 2)).sum().backward()
        assert log[0][0] == (None,) and tuple(log[0][1][0].shape) == (3, 2)


def test_backward_hook_kinds_cannot_mix():
    check_error(lambda lib: (lambda m: (m.register_backward_hook(print),
                                        m.register_full_backward_hook(print)))(lib.nn.ReLU()),
                RuntimeError, "^Cannot use both regular backward hooks and full backward hooks")


def test_global_hooks():
    def register(model, log):
        mod = ember.nn.modules.module if isinstance(model, ember.nn.Module) else \
            torch.nn.modules.module
        handles = [mod.register_module_forward_pre_hook(
            lambda m, args: log.append(("gpre", type(m).__name__))),
            mod.register_module_forward_hook(
            lambda m, args, out: log.append(("gfwd", type(m).__name__, out)))]
        model[1].register_forward_hook(lambda m, args, out: log.append(("local",)))
        log.append(handles)

    tl, el = _record(torch, register), _record(ember, register)
    for log in (tl, el):
        for h in log.pop(0):
            h.remove()
    assert _norm(el) == _norm(tl)
    assert len(ember.nn.modules.module._global_forward_hooks) == 0


def test_always_call_hook_runs_on_error():
    for lib in (torch, ember):
        class Bad(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        log = []
        m = Bad()
        m.register_forward_hook(lambda mod, args, out: log.append(out), always_call=True)
        m.register_forward_hook(lambda mod, args, out: log.append("never"))
        with pytest.raises(ValueError, match="boom"):
            m(1)
        assert log == [None]


def test_non_full_backward_hook():
    for lib in (torch, ember):
        lin = lib.nn.Linear(3, 2)
        log = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lin.register_backward_hook(lambda m, gin, gout: log.append(len(gout)))
            lin(lib.ones(4, 3, requires_grad=True)).sum().backward()
        assert log == [1]


# Assigning a value over a method of the module's class (`model.state_dict = sd`) is silent in
# torch and replaces the method; ember does the same and warns once, at the user's line.
def assign_and_record(lib, name, value):
    class Net(lib.nn.Linear):
        def predict(self, x):
            return self(x).argmax(-1)

    module = Net(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        setattr(module, name, value)
        setattr(module, name, value)  # the second assignment only replaces an attribute
    return module, caught


@pytest.mark.parametrize("name, meant", [
    ("state_dict", r"nothing is loaded.*call \.load_state_dict\(\.\.\.\) instead"),
    ("train", r"call \.train\(mode\) instead"), ("eval", r"call \.eval\(\) instead"),
    ("parameters", r"call \.parameters\(\.\.\.\)"), ("named_modules", r"\.named_modules\(\.\.\.\)"),
    ("predict", r"\.predict\(\.\.\.\)"), ("forward", r"\.forward\(\.\.\.\)")])
def test_assigning_a_value_over_a_method_warns_once(name, meant):
    value = {"weight": 1} if name == "state_dict" else False
    t_module, t_caught = assign_and_record(torch, name, value)
    e_module, e_caught = assign_and_record(ember, name, value)
    assert t_caught == []
    assert getattr(e_module, name) is value and getattr(t_module, name) is value
    [warning] = e_caught
    assert warning.category is UserWarning and warning.filename == __file__
    message = str(warning.message)
    assert message.startswith(f"Assigning a '{type(value).__name__}' value to '{name}' "
                              f"replaces the method Net.{name} on this module")
    assert re.search(meant, message), message


@pytest.mark.parametrize("name, value", [
    ("forward", lambda x: x), ("state_dict", dict), ("weight", None), ("bias", "parameter"),
    ("head", "module"), ("running", "buffer"), ("scale", 2.0), ("training", False)])
def test_assigning_callables_state_and_plain_attributes_is_silent(name, value):
    makers = {"parameter": lambda lib: lib.nn.Parameter(lib.zeros(2)),
              "module": lambda lib: lib.nn.Linear(2, 2),
              "buffer": lambda lib: lib.nn.Buffer(lib.ones(2))}
    for lib in (torch, ember):
        module = lib.nn.Linear(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            setattr(module, name, makers[value](lib) if value in makers else value)
        assert (name in module._parameters or name in module._modules or
                name in module._buffers or getattr(module, name) is value)
