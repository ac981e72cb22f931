"""Inference tensors: what inference_mode makes, and torch's refusals once it is left
(in-place changes, requires_grad, being saved for backward, reading the version)."""
import copy

import numpy as np
import pytest
import torch

import ember
from oracle import check_error, same

_SAVED = "^Inference tensors cannot be saved for backward"
_INPLACE = "^Inplace update to inference tensor outside InferenceMode is not allowed"


def _made_inside(lib):
    """A few tensors made under inference_mode, from a normal tensor `n` made outside."""
    n = lib.ones(2)
    with lib.inference_mode():
        made = {
            "tensor": lib.tensor([1.0, 2.0]), "ones": lib.ones(2), "randn": lib.randn(2),
            "from_numpy": lib.from_numpy(np.ones(2)), "Tensor": lib.Tensor(2),
            "FloatTensor": lib.FloatTensor([1.0]), "arange": lib.arange(3),
            "parameter": lib.nn.Parameter(lib.ones(1)), "deepcopy": copy.deepcopy(n),
            # views of a normal tensor stay normal; new results of it do not
            "view": n.view(2), "detach": n.detach(), "data": n.data, "getitem": n[0],
            "same dtype to": n.to(lib.float32), "add": n + 1, "cast": n.to(lib.float64),
        }
        inner = lib.ones(1)
        made["view of inference"] = inner.view(1)
        made["detach of inference"] = inner.detach()
        made["data of inference"] = inner.data
        with lib.inference_mode(False):
            made["inference_mode(False)"] = lib.ones(1)
        with lib.no_grad():
            made["no_grad inside"] = lib.ones(1)
    made["clone outside"] = inner.clone()
    made["op outside"] = inner * 2
    made["deepcopy outside"] = copy.deepcopy(inner)
    return made


def test_which_tensors_are_inference_tensors():
    def fn(lib):
        return {name: (t.is_inference(), lib.is_inference(t))
                for name, t in _made_inside(lib).items()}
    assert fn(ember) == fn(torch)


def _inference_ones(lib, n=3):
    with lib.inference_mode():
        return lib.ones(n)


@pytest.mark.parametrize("change", [
    lambda t: t.add_(1), lambda t: t.exp_(), lambda t: t.zero_(),
    lambda t: t.__setitem__(0, 5.0), lambda t: t[:2].mul_(2), lambda t: t.copy_(t * 0),
])
def test_inplace_outside_is_refused(change):
    check_error(lambda lib: change(_inference_ones(lib)), RuntimeError, _INPLACE)
    # torch writes some of these before refusing; ember refuses before writing
    t = _inference_ones(ember)
    with pytest.raises(RuntimeError):
        change(t)
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_inplace_refused_under_no_grad_too():
    def fn(lib):
        t = _inference_ones(lib)
        with lib.no_grad():
            t.add_(1)
    check_error(fn, RuntimeError, _INPLACE)


def test_inplace_inside_inference_mode_and_on_normal_tensors():
    def fn(lib):
        t = _inference_ones(lib)
        n = lib.ones(3)
        with lib.inference_mode():
            t.add_(1)
            n.mul_(3)           # a normal tensor changed inside counts a version
        n.add_(t)               # and reading an inference tensor outside is fine
        return t, n, n._version
    same(fn)


def test_version_is_not_tracked():
    check_error(lambda lib: _inference_ones(lib)._version, RuntimeError,
                "^Inference tensors do not track version counter")


@pytest.mark.parametrize("make", [lambda lib, t: t.requires_grad_(),
                                  lambda lib, t: lib.nn.Parameter(t)])
def test_requires_grad_outside_is_refused(make):
    check_error(lambda lib: make(lib, _inference_ones(lib)), RuntimeError,
                "^Setting requires_grad=True on inference tensor outside InferenceMode")


def test_requires_grad_inside_is_allowed():
    def fn(lib):
        with lib.inference_mode():
            t = lib.ones(2).requires_grad_()
        return t.requires_grad, t.is_inference()
    assert fn(ember) == fn(torch)


# Ops between a tensor that requires grad and an inference tensor: an error exactly when
# the op saves the inference tensor for backward (the product saves the other factor).
_OPS = {
    "add": lambda w, a: w + a, "sub": lambda w, a: a - w, "mul": lambda w, a: w * a,
    "mul reversed": lambda w, a: a * w, "div by": lambda w, a: w / a,
    "matmul": lambda w, a: w @ a, "dot": lambda w, a: w.dot(a),
    "cat": lambda w, a: ember_or_torch(w).cat([w, a]),
    "stack": lambda w, a: ember_or_torch(w).stack([w, a]),
    "where": lambda w, a: ember_or_torch(w).where(a > 0, w, a),
    "maximum": lambda w, a: ember_or_torch(w).maximum(w, a),
}


def ember_or_torch(t):
    return ember if isinstance(t, ember.Tensor) else torch


@pytest.mark.parametrize("name", list(_OPS))
def test_saved_for_backward_only_when_saved(name):
    def fn(lib):
        w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        a = _inference_ones(lib)
        try:
            out = _OPS[name](w, a)
        except RuntimeError as error:
            return "error", str(error)
        out.sum().backward()
        return "ok", w.grad.tolist()
    assert fn(ember) == fn(torch)


def test_training_on_data_made_under_inference_mode():
    """The classic slip: data prepared under inference_mode, then trained on."""
    def fn(lib):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        with lib.inference_mode():
            x = lib.randn(4, 3) * 2
        model(x).sum().backward()
    check_error(fn, RuntimeError, _SAVED)

    def cloned(lib):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        with lib.inference_mode():
            x = lib.randn(4, 3) * 2
        model(x.clone()).sum().backward()
        return model.weight.grad
    same(cloned, atol=1e-6, rtol=1e-6)


def test_optimizer_step_on_parameters_made_under_inference_mode():
    def fn(lib):
        with lib.inference_mode():
            shift = lib.nn.Parameter(lib.zeros(3))
        opt = lib.optim.SGD([shift], lr=0.1)
        (lib.ones(3) + shift).sum().backward()      # addition saves nothing for backward
        opt.step()
    check_error(fn, RuntimeError, _INPLACE)


def test_user_function_saving_an_inference_tensor():
    def fn(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(k)
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g * ctx.saved_tensors[0], None
        Scale.apply(lib.ones(2, requires_grad=True), _inference_ones(lib, 2))
    check_error(fn, RuntimeError, _SAVED)


def test_eval_under_inference_mode_then_train():
    """BatchNorm in eval under inference_mode, then training again outside: the running
    statistics stay normal tensors and training works."""
    def fn(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        model.eval()
        with lib.inference_mode():
            before = model(lib.randn(5, 3))
        model.train()
        model(lib.randn(5, 3)).pow(2).sum().backward()
        opt.step()
        return (before, model[1].running_mean, model[0].weight,
                model[1].running_mean.is_inference(), before.is_inference())
    same(fn, atol=1e-6, rtol=1e-5)
