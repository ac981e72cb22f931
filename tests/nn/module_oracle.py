"""Layer oracle: build the same layer in torch and ember, copy torch's weights across,
then compare reprs, state_dict keys, outputs, input and parameter gradients and buffers.

    check_module(lambda lib: lib.nn.Conv2d(3, 6, 5), (2, 3, 8, 8))

`make(lib)` builds the layer; each spec is a shape (random data, fresh per step) or a
fixed array (index tensors, masks). `call(module, *inputs)` defaults to module(*inputs).
"""
from __future__ import annotations

import copy
import functools

import numpy as np
import torch

import ember
from oracle import TOL, assert_same, rng


def copy_weights(tmod, emod) -> None:
    emod.load_state_dict({k: ember.tensor(v.detach().numpy())
                          for k, v in tmod.state_dict().items()})


def build_pair(make, dtype: str = "float32"):
    """(torch module, ember module) with equal reprs, state_dict keys and weights."""
    torch.manual_seed(0)
    tmod, emod = make(torch), make(ember)
    assert repr(emod) == repr(tmod)
    assert list(emod.state_dict()) == list(tmod.state_dict())
    if dtype == "float64":
        tmod, emod = tmod.double(), emod.double()
    copy_weights(tmod, emod)
    return tmod, emod


def _inputs(specs, dtype, seed):
    r = rng(seed)
    arrays = [r.standard_normal(s).astype(dtype) if isinstance(s, tuple) else np.asarray(s)
              for s in specs]
    floating = [a.dtype.kind == "f" for a in arrays]
    tin = [torch.tensor(a, requires_grad=f) for a, f in zip(arrays, floating)]
    ein = [ember.tensor(a, requires_grad=f) for a, f in zip(arrays, floating)]
    return tin, ein


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def check_module(make, *specs, dtype: str = "float32", train: bool = True, steps: int = 1,
                 call=None, atol=None, rtol=None, grad: bool = True):
    """Run `steps` forward/backward passes on both; compare everything after each."""
    atol = TOL[dtype][0] if atol is None else atol
    rtol = TOL[dtype][1] if rtol is None else rtol
    call = call or (lambda m, *x: m(*x))
    tmod, emod = build_pair(make, dtype)
    tmod.train(train)
    emod.train(train)
    if grad and dtype == "float32":     # compiled == eager does not depend on the dtype
        for whole_step in (True, False):
            check_compiled(copy.deepcopy(emod), specs, dtype, call, whole_step)
    for step in range(steps):
        tin, ein = _inputs(specs, dtype, seed=step)
        tout, eout = call(tmod, *tin), call(emod, *ein)
        assert_same(eout, tout, atol, rtol)
        if grad:
            seed = rng(100 + step).standard_normal(tuple(_first(tout).shape)).astype(dtype)
            _first(tout).backward(torch.tensor(seed))
            _first(eout).backward(ember.tensor(seed))
            for i, (t, e) in enumerate(zip(tin, ein)):
                if t.grad is not None:
                    assert_same(e.grad, t.grad, atol * 10, rtol * 10, f"grad of input {i}")
            for (name, tp), (_, ep) in zip(tmod.named_parameters(), emod.named_parameters()):
                if tp.grad is None:
                    assert ep.grad is None, f"{name}: ember has a grad, torch has none"
                else:
                    assert_same(ep.grad, tp.grad, atol * 10, rtol * 10, f"grad of {name}")
            tmod.zero_grad()
            emod.zero_grad()
        for (name, tb), (_, eb) in zip(tmod.named_buffers(), emod.named_buffers()):
            assert_same(eb, tb, atol, rtol, f"buffer {name}")
    return tmod, emod


def check_compiled(module, specs, dtype: str, call, whole_step: bool, steps: int = 3) -> None:
    """Train `module` eagerly and a copy through ember.compile side by side (forward,
    backward of a random gradient, an SGD step): outputs, gradients, weights and buffers
    stay bit-identical, and from the third call on the compiled call replays its plan.
    whole_step: compile the whole training step; else only the module's call, with the
    backward and the step eager (the plain `model = torch.compile(model)`)."""
    call = call or (lambda m, *x: m(*x))
    twin = copy.deepcopy(module)

    def train_step(mod, opt, forward, *inputs):
        mod.zero_grad()
        out = _first(forward(mod, *inputs))
        out.backward(ember.randn_like(out))
        if opt is not None:
            opt.step()
        return out.detach()

    def sgd(mod):
        params = list(mod.parameters())
        return ember.optim.SGD(params, lr=0.1, momentum=0.9) if params else None
    eager = functools.partial(train_step, module, sgd(module), call)
    if whole_step:
        compiled_call = ember.compile(functools.partial(train_step, twin, sgd(twin), call))
        compiled = compiled_call
    else:
        compiled_call = ember.compile(lambda *inputs: call(twin, *inputs))
        compiled = functools.partial(train_step, twin, sgd(twin),
                                     lambda mod, *inputs: compiled_call(*inputs))
    for step in range(steps):
        results = []
        for run in (eager, compiled):
            _, inputs = _inputs(specs, dtype, seed=step)
            ember.manual_seed(step)
            results.append((run(*inputs), [i.grad for i in inputs]))
        (eager_out, eager_grads), (compiled_out, compiled_grads) = results
        assert np.array_equal(compiled_out.numpy(), eager_out.numpy(), equal_nan=True)
        for e, c in zip(eager_grads, compiled_grads):
            assert (e is None) == (c is None)
            assert e is None or np.array_equal(c.numpy(), e.numpy(), equal_nan=True)
        for (name, e), (_, c) in zip(module.state_dict().items(), twin.state_dict().items()):
            assert np.array_equal(c.numpy(), e.numpy(), equal_nan=True), name
    entry = compiled_call._entries[0]
    # Only a module whose Python code reads tensor values, or sizes that depend on them (as
    # torch's dynamo would break there too), may run eagerly.
    assert entry.confirmed or "depends on tensor values" in entry.reason, \
        f"the compiled call did not replay: {entry.reason}"


def train_side_by_side(t_mod, e_mod, x: np.ndarray, steps: int = 3) -> None:
    """`steps` SGD steps on sum(out^2) for the torch and ember modules, comparing the
    outputs at each step (the modules must start with equal state)."""
    t_opt = torch.optim.SGD(t_mod.parameters(), lr=0.1)
    e_opt = ember.optim.SGD(e_mod.parameters(), lr=0.1)
    for _ in range(steps):
        outs = []
        for opt, mod, lib in ((t_opt, t_mod, torch), (e_opt, e_mod, ember)):
            opt.zero_grad()
            out = mod(lib.tensor(x))
            (out ** 2).sum().backward()
            opt.step()
            outs.append(out)
        assert_same(outs[1], outs[0], 1e-5, 1e-4)
