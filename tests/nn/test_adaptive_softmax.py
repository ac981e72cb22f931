"""nn.AdaptiveLogSoftmaxWithLoss against torch from identical weights."""
import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from module_oracle import build_pair, check_module
from oracle import assert_same, check_error

DTYPES = ["float32", "float64"]
TARGETS = np.array([0, 3, 5, 7, 19, 12, 4, 15, 10, 9], dtype=np.int64)


def _asm(**kwargs):
    options = {"in_features": 16, "n_classes": 20, "cutoffs": [5, 10, 15], "div_value": 2.0}
    options.update(kwargs)
    return lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(**options)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [{}, {"head_bias": True}, {"cutoffs": [3], "div_value": 4.0},
                                    {"cutoffs": [2, 8], "n_classes": 25}])
def test_forward_output_loss_and_gradients(dtype, kwargs):
    # The upstream gradient reaches the per-row output; the loss is compared alongside.
    check_module(_asm(**kwargs), (10, 16), TARGETS, dtype=dtype, steps=2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_loss_backward(dtype):
    def loss(m, x, t):
        return m(x, t).loss
    check_module(_asm(head_bias=True), (10, 16), TARGETS, dtype=dtype, call=loss)


@pytest.mark.parametrize("targets", [np.array([1, 0, 4]), np.array([17, 18, 16]),
                                     np.array([12]), np.array([3])])
def test_clusters_left_empty_and_single_rows(targets):
    check_module(_asm(), (len(targets), 16), targets.astype(np.int64))


def test_unbatched_input_with_zero_dim_target():
    for target in (np.array(13), np.array(2)):
        check_module(_asm(), (16,), target.astype(np.int64))


@pytest.mark.parametrize("dtype", DTYPES)
def test_log_prob(dtype):
    tmod, emod = check_module(_asm(head_bias=True), (6, 16), dtype=dtype,
                              call=lambda m, x: m.log_prob(x))
    x = np.random.default_rng(1).standard_normal((6, 16)).astype(dtype)
    probabilities = emod.log_prob(ember.tensor(x)).exp().sum(1)
    np.testing.assert_allclose(probabilities.detach().numpy(), 1, rtol=1e-5)


def test_predict_matches_torch_and_log_prob_argmax():
    tmod, emod = build_pair(_asm(head_bias=True))
    # Bias the head so that some rows pick a cluster and some a shortlist class.
    for mod, lib in ((tmod, torch), (emod, ember)):
        with lib.no_grad():
            mod.head.bias.copy_(lib.tensor([0.0] * 5 + [3.0, 0.0, -3.0]))
    x = np.random.default_rng(2).standard_normal((40, 16)).astype(np.float32) * 3
    predicted = emod.predict(ember.tensor(x))
    assert_same(predicted, tmod.predict(torch.tensor(x)), 0, 0)
    assert ember.equal(predicted, emod.log_prob(ember.tensor(x)).argmax(1))
    assert not predicted.requires_grad
    assert bool((predicted < 5).any()) and bool((predicted >= 5).any())   # both kinds of rows


def test_output_type_and_attributes():
    t = _asm()(torch)
    e = _asm()(ember)
    out = e(ember.randn(4, 16), ember.tensor([0, 6, 11, 16]))
    assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
    assert out.output.shape == (4,) and out.loss.ndim == 0
    for name in ["in_features", "n_classes", "cutoffs", "div_value", "head_bias",
                 "shortlist_size", "n_clusters", "head_size"]:
        assert getattr(e, name) == getattr(t, name), name
    assert out.output.grad_fn is not None and out.loss.grad_fn is not None


def test_default_init_and_reset_parameters():
    m = ember.nn.AdaptiveLogSoftmaxWithLoss(64, 30, [10, 20])
    bound = 1 / np.sqrt(64)   # kaiming_uniform(a=sqrt(5)) of every Linear: U(-1/sqrt(fan_in), ..)
    for name, p in m.named_parameters():
        fan_in = p.shape[1]
        assert float(p.abs().max()) <= 1 / np.sqrt(fan_in) + 1e-7, name
    before = m.head.weight.clone()
    m.reset_parameters()
    assert not ember.equal(before, m.head.weight)
    assert float(m.head.weight.abs().max()) <= bound + 1e-7


def test_training_steps_match_torch():
    tmod, emod = build_pair(_asm(head_bias=True))
    t_opt = torch.optim.SGD(tmod.parameters(), lr=0.5)
    e_opt = ember.optim.SGD(emod.parameters(), lr=0.5)
    x = np.random.default_rng(3).standard_normal((10, 16)).astype(np.float32)
    for _ in range(3):
        losses = []
        for mod, opt, lib in ((tmod, t_opt, torch), (emod, e_opt, ember)):
            opt.zero_grad()
            loss = mod(lib.tensor(x), lib.tensor(TARGETS)).loss
            loss.backward()
            opt.step()
            losses.append(loss)
        assert_same(losses[1], losses[0], 1e-5, 1e-4)


@pytest.mark.parametrize("cutoffs,match", [
    ([], "^cutoffs should be a sequence of length larger than 0"),
    ([5, 3], "^cutoffs should be a sequence of unique, positive integers sorted in an "
             "increasing order, where each value is between 1 and n_classes-1"),
    ([0, 5], "^cutoffs should be a sequence of unique"), ([5, 20], "^cutoffs should be"),
    ([5, 5], "^cutoffs should be"), ([2.5], "^cutoffs should be"),
])
def test_bad_cutoffs(cutoffs, match):
    check_error(lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(16, 20, cutoffs), ValueError,
                match)


@pytest.mark.parametrize("shapes,targets,match", [
    ((3, 16), [0, 1], "^Input and target should have the same size in the batch dimension."),
    ((2, 2, 16), [0, 1], r"^1D target tensor expects 2D input tensors, but found inputs with "
                         r"size torch.Size\(\[2, 2, 16\]\)"),
    ((2, 16), 1, r"^0D target tensor expects 1D input tensors, but found inputs with size "
                 r"torch.Size\(\[2, 16\]\)"),
    ((2, 16), [[0, 1]], "^0D or 1D target tensor expected, multi-target not supported"),
    ((3, 16), [0, 20, 4], r"^Target values should be in \[0, 19\], but values in range "
                          r"\[0, 20\] were found."),
    ((2, 16), [-1, 4], r"^Target values should be in \[0, 19\], but values in range \[-1, 4\]"),
])
def test_forward_errors(shapes, targets, match):
    check_error(lambda lib: _asm()(lib)(lib.randn(*shapes), lib.tensor(targets)), RuntimeError,
                match)
