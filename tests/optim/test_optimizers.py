"""ember.optim optimizers against torch.optim: same parameters and state after 20 steps."""
import copy
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.optim
from oracle import check_error

SHAPES = [(3, 4), (5,), ()]
STEPS = 20


def make_params(lib, dtype="float32", seed=0, shapes=SHAPES):
    r = np.random.default_rng(seed)
    arrays = [r.standard_normal(s).astype(dtype) for s in shapes]
    return [lib.tensor(a, requires_grad=True) for a in arrays]


def set_grads(params, step, seed=1):
    """A deterministic gradient from the current values: 0.5 * p + noise (+ zero rows)."""
    r = np.random.default_rng(seed + step)
    for i, p in enumerate(params):
        values = p.detach().numpy()
        noise = r.standard_normal(values.shape).astype(values.dtype)
        g = (0.5 * values + noise).astype(values.dtype)
        if i == 0 and step % 3 == 0:
            g[1] = 0
        lib = torch if isinstance(p, torch.Tensor) else ember
        p.grad = lib.tensor(g)


def run(lib, name, kwargs, steps=STEPS, dtype="float32", groups=False, shapes=SHAPES):
    params = make_params(lib, dtype, shapes=shapes)
    spec = params
    if groups:
        spec = [{"params": params[:1], "lr": 0.05}, {"params": params[1:]}]
    opt = getattr(lib.optim, name)(spec, **kwargs)
    for step in range(steps):
        set_grads(params, step)
        opt.step()
    return params, opt


def assert_close(e, t, rtol=2e-5, atol=2e-6):
    np.testing.assert_allclose(np.asarray(e.detach().numpy()), t.detach().numpy(),
                               rtol=rtol, atol=atol)


def assert_same_state(eopt, topt):
    esd, tsd = eopt.state_dict(), topt.state_dict()
    assert list(esd) == list(tsd)
    assert [list(g) for g in esd["param_groups"]] == [list(g) for g in tsd["param_groups"]]
    for eg, tg in zip(esd["param_groups"], tsd["param_groups"]):
        assert eg == tg
    assert list(esd["state"]) == list(tsd["state"])
    for k in tsd["state"]:
        es, ts = esd["state"][k], tsd["state"][k]
        assert list(es) == list(ts), k
        for key, tv in ts.items():
            ev = es[key]
            if isinstance(tv, torch.Tensor):
                assert isinstance(ev, ember.Tensor), key
                assert str(ev.dtype) == str(tv.dtype) and tuple(ev.shape) == tuple(tv.shape)
                assert_close(ev, tv, rtol=1e-4, atol=1e-5)
            else:
                assert ev == tv, key


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.1)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, betas=(0.5, 0.9), eps=1e-6, decoupled_weight_decay=True,
                  weight_decay=0.1)),
    ("Adam", dict(lr=0.01, foreach=False, capturable=False, fused=False)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.5)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, betas=(0.9, 0.8))),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.9, 0.8))),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5,
                     eps=1e-6)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(alpha=0.9, centered=True)),
    ("RMSprop", dict(momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(momentum=0.5, centered=True, eps=1e-4, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                   enumerate(CASES)])
def test_matches_torch(name, kwargs):
    eparams, eopt = run(ember, name, kwargs)
    tparams, topt = run(torch, name, kwargs)
    for e, t in zip(eparams, tparams):
        assert_close(e, t)
    assert_same_state(eopt, topt)


SLICED = [("Adam", dict(lr=0.01)), ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
          ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
          ("AdamW", dict(lr=0.01)), ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
          ("SGD", dict(lr=0.1, weight_decay=0.1)), ("RMSprop", dict(centered=True, momentum=0.5)),
          ("Adagrad", dict(lr=0.1, weight_decay=0.1))]


@pytest.mark.parametrize("name,kwargs", SLICED)
def test_large_parameters_updated_in_parallel_slices(name, kwargs):
    """Parameters of 300k+ values are updated in slices on several threads."""
    shapes = [(700, 500), (3, 4), (600,)]
    (ep, eopt), (tp, topt) = (run(lib, name, kwargs, steps=3, shapes=shapes)
                              for lib in (ember, torch))
    for e, t in zip(ep, tp):
        assert_close(e, t)
    assert_same_state(eopt, topt)


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)),
                                         ("Adam", dict(lr=0.01, amsgrad=True)),
                                         ("RMSprop", dict(centered=True, momentum=0.5))])
def test_param_groups_and_float64(name, kwargs):
    for dtype in ("float32", "float64"):
        eparams, eopt = run(ember, name, kwargs, dtype=dtype, groups=True)
        tparams, topt = run(torch, name, kwargs, dtype=dtype, groups=True)
        for e, t in zip(eparams, tparams):
            assert str(e.dtype) == str(t.dtype)
            assert_close(e, t, rtol=1e-5 if dtype == "float32" else 1e-10)
        assert_same_state(eopt, topt)


def test_tensor_lr():
    e, _ = run(ember, "Adam", dict(lr=ember.tensor(0.01)))
    t, _ = run(torch, "Adam", dict(lr=torch.tensor(0.01)))
    for a, b in zip(e, t):
        assert_close(a, b)


@pytest.mark.parametrize("kwargs", [dict(), dict(lr=0.01, betas=(0.8, 0.99), maximize=True)])
def test_sparse_adam_on_row_sparse_grads(kwargs):
    """SparseAdam on grad.to_sparse(1) (zero rows skipped) matches torch's."""
    def run_sparse(lib):
        params = make_params(lib)[:2]
        opt = lib.optim.SparseAdam(params, **kwargs)
        for step in range(STEPS):
            set_grads(params, step)
            for p in params:
                p.grad = p.grad.to_sparse(1)
            opt.step()
        return params, opt
    eparams, eopt = run_sparse(ember)
    tparams, topt = run_sparse(torch)
    for e, t in zip(eparams, tparams):
        assert_close(e, t)
    assert eopt.state[eparams[0]]["step"] == STEPS


def quadratic_closure(lib, params, opt):
    target = [lib.tensor(np.linspace(-1, 1, p.numel()).reshape(p.shape), dtype=p.dtype)
              for p in params]

    def closure():
        opt.zero_grad()
        loss = sum(((p - t) ** 2 * (1.0 + i)).sum() + (p ** 4).sum() * 0.1
                   for i, (p, t) in enumerate(zip(params, target)))
        loss.backward()
        return loss
    return closure


@pytest.mark.parametrize("kwargs", [dict(), dict(lr=0.5, max_iter=5, history_size=3),
                                    dict(line_search_fn="strong_wolfe"),
                                    dict(line_search_fn="strong_wolfe", max_iter=4,
                                         history_size=2)])
def test_lbfgs(kwargs):
    # float64: LBFGS stops on changes below 1e-9, which in float32 a last-bit difference
    # (x ** 4 rounds differently in NumPy and torch) can move by an iteration
    results = []
    for lib in (ember, torch):
        params = [lib.tensor(p.detach().numpy(), dtype=lib.float64, requires_grad=True)
                  for p in make_params(lib)]
        opt = lib.optim.LBFGS(params, **kwargs)
        closure = quadratic_closure(lib, params, opt)
        losses = [opt.step(closure).item() for _ in range(2)]
        results.append((params, losses, opt))
    (eparams, elosses, eopt), (tparams, tlosses, topt) = results
    np.testing.assert_allclose(elosses, tlosses, rtol=1e-4)
    for e, t in zip(eparams, tparams):
        assert_close(e, t, rtol=1e-3, atol=1e-4)
    es, ts = eopt.state[eparams[0]], topt.state[tparams[0]]
    assert sorted(es) == sorted(ts)
    assert es["func_evals"] == ts["func_evals"] and es["n_iter"] == ts["n_iter"]


# ---------------------------------------------------------------- state_dict
@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)),
                                         ("Adam", dict(lr=0.01)), ("NAdam", dict()),
                                         ("ASGD", dict(t0=3)), ("Rprop", dict()),
                                         ("Adagrad", dict(lr_decay=0.1))])
def test_state_dict_round_trip(name, kwargs):
    """5 steps, save, rebuild, load, 5 more steps == 10 uninterrupted steps."""
    straight, _ = run(ember, name, kwargs, steps=10)
    params, opt = run(ember, name, kwargs, steps=5)
    saved = copy.deepcopy(opt.state_dict())
    fresh = [ember.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    opt2 = getattr(ember.optim, name)(fresh, **kwargs)
    opt2.load_state_dict(saved)
    for step in range(5, 10):
        set_grads(fresh, step)
        opt2.step()
    for a, b in zip(fresh, straight):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_state_dict_layout_and_casts():
    params, opt = run(ember, "Adam", dict(lr=0.01), steps=2)
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0, 1, 2]
    assert sd["state"][0]["step"].dtype == ember.float32 and sd["state"][0]["step"].ndim == 0
    p64 = [ember.tensor(p.detach().numpy().astype(np.float64), requires_grad=True)
           for p in params]
    opt64 = ember.optim.Adam(p64, lr=0.01)
    opt64.load_state_dict(sd)
    state = opt64.state[p64[0]]
    assert state["exp_avg"].dtype == ember.float64
    assert state["step"].dtype == ember.float32


def test_state_dict_errors():
    params, opt = run(ember, "SGD", dict(lr=0.1, momentum=0.9), steps=1)
    other = ember.optim.SGD([params[0]], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict contains a parameter group that"):
        other.load_state_dict(opt.state_dict())
    two = ember.optim.SGD([{"params": params[:1]}, {"params": params[1:]}], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict has a different number"):
        two.load_state_dict(opt.state_dict())


# ---------------------------------------------------------------- base class behaviour
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad",
                                  "Adadelta", "RMSprop", "Rprop", "ASGD", "LBFGS",
                                  "SparseAdam"])
def test_param_group_keys_and_repr(name):
    kw = {"lr": 0.1}
    topt = getattr(torch.optim, name)(make_params(torch), **kw)
    eopt = getattr(ember.optim, name)(make_params(ember), **kw)
    assert list(eopt.param_groups[0]) == list(topt.param_groups[0])
    assert list(eopt.defaults) == list(topt.defaults)
    assert repr(eopt) == repr(topt)


def test_constructor_errors():
    check_error(lambda lib: lib.optim.SGD(lib.ones(3, requires_grad=True), lr=0.1), TypeError,
                "^params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got torch.FloatTensor")
    check_error(lambda lib: lib.optim.SGD([], lr=0.1), ValueError,
                "^optimizer got an empty parameter list")
    check_error(lambda lib: lib.optim.Adam(make_params(lib), lr=-1.0), ValueError,
                r"^Invalid learning rate: -1.0")
    check_error(lambda lib: lib.optim.Adam(make_params(lib), betas=(1.0, 0.9)), ValueError,
                r"^Invalid beta parameter at index 0: 1.0")
    check_error(lambda lib: lib.optim.SGD(make_params(lib), lr=0.1, nesterov=True), ValueError,
                "^Nesterov momentum requires a momentum and zero dampening")
    check_error(lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1),
                ValueError, "^can't optimize a non-leaf Tensor")
    check_error(lambda lib: lib.optim.Rprop(make_params(lib), etas=(1.5, 1.2)), ValueError,
                "^Invalid eta values: 1.5, 1.2")
    check_error(lambda lib: lib.optim.LBFGS([{"params": make_params(lib)[:1]},
                                             {"params": make_params(lib)[1:]}]), ValueError,
                r"^LBFGS doesn't support per-parameter options \(parameter groups\)")

    def twice(lib):
        p = make_params(lib)
        lib.optim.SGD([{"params": p[:2]}, {"params": p[1:]}], lr=0.1)
    check_error(twice, ValueError, "^some parameters appear in more than one parameter group")

    def a_set(lib):
        lib.optim.SGD([{"params": set(make_params(lib))}], lr=0.1)
    check_error(a_set, TypeError,
                "^optimizer parameters need to be organized in ordered collections")


def test_add_param_group_and_zero_grad():
    params = make_params(ember)
    opt = ember.optim.SGD(params[:1], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": params[1:], "lr": 1.0})
    assert opt.param_groups[1]["lr"] == 1.0 and opt.param_groups[1]["momentum"] == 0.5
    set_grads(params, 0)
    opt.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in params)
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_named_params():
    params = make_params(ember)
    opt = ember.optim.SGD([("a", params[0]), ("b", params[1])], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["a", "b"]


def test_step_hooks_and_version_counter():
    params = make_params(ember)
    opt = ember.optim.Adam(params, lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    opt.register_state_dict_pre_hook(lambda o: calls.append("sd_pre"))
    opt.register_state_dict_post_hook(lambda o, sd: calls.append("sd_post"))
    opt.register_load_state_dict_pre_hook(lambda o, sd: calls.append("load_pre"))
    opt.register_load_state_dict_post_hook(lambda o: calls.append("load_post"))
    set_grads(params, 0)
    version = params[0]._version
    opt.step()
    assert params[0]._version > version
    h1.remove()
    opt.step()
    opt.load_state_dict(opt.state_dict())
    assert calls == ["pre", "post", "post", "sd_pre", "sd_post", "load_pre", "load_post"]


def test_closure_runs_with_grad_enabled():
    params = make_params(ember)
    opt = ember.optim.SGD(params, lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (params[0] ** 2).sum()
        assert ember.is_grad_enabled()
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert loss.requires_grad and params[1].grad is None


def test_replaced_parameter_warns_once():
    params = make_params(ember)

    class Marked(ember.Tensor):
        """A Tensor subclass with a __dict__, standing in for nn.Parameter."""
    p = Marked(params[0].detach().numpy()).requires_grad_(True)
    opt = ember.optim.SGD([p], lr=0.1)
    p.grad = ember.ones(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
    p._replaced_as = "fc.weight"
    with pytest.warns(UserWarning, match="'fc.weight' was assigned a new Parameter"):
        opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()


@pytest.mark.parametrize("name,kwargs", CASES + [("Adafactor", dict()), ("Muon", dict())],
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)]
                         + ["Adafactor", "Muon"])
def test_step_counts_as_an_inplace_change_of_the_parameters(name, kwargs):
    """A graph that saved a parameter before step() cannot be back-propagated after it:
    the step's write bumps the version counter, as torch's in-place update does."""
    errors = {}
    for lib in (torch, ember):
        params = make_params(lib, shapes=[(3, 4)])
        opt = getattr(lib.optim, name)(params, **kwargs)
        set_grads(params, 1)
        loss = (params[0] * params[0]).sum()      # saves the parameter
        opt.step()
        with pytest.raises(RuntimeError) as info:
            loss.backward()
        errors[lib] = str(info.value)
    assert "modified by an inplace operation" in errors[torch]
    assert "modified by an inplace operation" in errors[ember]


@pytest.mark.parametrize("name,kwargs", [("Adam", dict(amsgrad=True)), ("NAdam", dict()),
                                         ("SGD", dict(lr=0.1, momentum=0.9)), ("ASGD", dict())])
def test_step_counts_as_an_inplace_change_of_the_state(name, kwargs):
    """Optimizer state tensors are written in place too: a graph through them goes stale."""
    for lib in (torch, ember):
        params = make_params(lib, shapes=[(3, 4)])
        opt = getattr(lib.optim, name)(params, **kwargs)
        set_grads(params, 1)
        opt.step()
        buffers = [v for v in opt.state[params[0]].values()
                   if isinstance(v, lib.Tensor) and v.dim() > 0]
        versions = [b._version for b in buffers]
        set_grads(params, 2)
        opt.step()
        assert buffers and all(b._version > v for b, v in zip(buffers, versions)), lib


@pytest.mark.parametrize("with_indices", [False, True])
def test_group_tensors_by_device_and_dtype(with_indices):
    # timm's ADOPT (foreach=True) groups params, grads and states with this static helper.
    def run(lib):
        params = [lib.ones(1), lib.ones(2, dtype=lib.float64), lib.ones(3)]
        grads = [lib.zeros(1), None, lib.zeros(3)]
        groups = lib.optim.Optimizer._group_tensors_by_device_and_dtype([params, grads],
                                                                         with_indices)
        return {str(dtype): (lists, indices) for (device, dtype), (lists, indices)
                in groups.items() if device.type == "cpu"}
    e, t = run(ember), run(torch)
    assert e.keys() == t.keys()
    for key in t:
        (t_lists, t_indices), (e_lists, e_indices) = t[key], e[key]
        assert e_indices == t_indices
        assert [[None if x is None else x.tolist() for x in column] for column in e_lists] == \
            [[None if x is None else x.tolist() for x in column] for column in t_lists]
