"""Backward formulas that depend on values (where a norm is 0, which entries tie for a
max, where a product has zeros, which entries are NaN ...) must be recomputed at every
replay of a compiled step. The step is traced on data without those cases (every mask
then holds one value, and an array of one value passes for a constant), then called on
data with them: the compiled gradients equal the eager ones to the bit."""
import warnings

import numpy as np
import pytest

import ember

F = ember.nn.functional

# name -> (function of a (4, 3) float64 tensor, the special data given after tracing)
ZERO_ROW = [[0.0, 0.0, 0.0], [1.0, 2.0, -1.0], [0.5, -0.5, 2.0], [3.0, 1.0, 1.0]]
TIES = [[2.0, 2.0, 1.0], [1.0, 3.0, 3.0], [-1.0, -1.0, -1.0], [0.5, 4.0, 4.0]]
ZEROS = [[0.0, 2.0, 1.0], [0.0, 0.0, 3.0], [1.5, -1.0, 2.0], [2.0, 0.0, 1.0]]
NANS = [[np.nan, 2.0, 1.0], [1.0, 3.0, np.nan], [0.5, -1.0, 2.0], [2.0, 1.0, 1.0]]
CONSTANT_ROW = [[1.0, 1.0, 1.0], [1.0, 2.0, -1.0], [0.5, -0.5, 2.0], [3.0, 1.0, 1.0]]
EQUAL_COLUMNS = [[1.0, 1.0, 2.0], [2.0, 2.0, -1.0], [3.0, 3.0, 0.5], [0.5, 0.5, 1.0]]
ROWS = ember.tensor([[0, 1, 0], [1, 0, 1], [0, 0, 1], [1, 1, 0]])  # where x's rows go
SLOTS = ember.tensor([0, 1, 0, 1])
CASES = {
    "norm": (lambda x: x.norm(dim=1), ZERO_ROW),
    "normalize": (lambda x: F.normalize(x, dim=1), ZERO_ROW),
    "vector_norm p=3": (lambda x: ember.linalg.vector_norm(x, 3, dim=1), ZERO_ROW),
    "inf norm": (lambda x: x.norm(p=float("inf"), dim=1), TIES),
    "amax": (lambda x: x.amax(1), TIES),
    "amin": (lambda x: x.amin(0), TIES),
    "max of all": (lambda x: x.max() + x.min(), TIES),
    "median of all": (lambda x: x.median(), TIES),
    "std": (lambda x: x.std(1), CONSTANT_ROW),
    "prod": (lambda x: x.prod(1) + x.prod(), ZEROS),
    "cumprod": (lambda x: x.cumprod(1), ZEROS),
    "nansum": (lambda x: x.nansum(1), NANS),
    "nanmean": (lambda x: x.nanmean(1) + x.nanmean(), NANS),
    "cdist": (lambda x: ember.cdist(x, x[:2]), TIES),
    "cdist inf": (lambda x: ember.cdist(x, x.flip(0), p=float("inf")), TIES),
    "logcumsumexp": (lambda x: x.logcumsumexp(1) * x.sign(), ZEROS),
    "scatter_reduce amax": (lambda x: x.new_zeros(2, 3).scatter_reduce(
        0, ROWS, x, "amax", include_self=False), TIES),
    "scatter_reduce prod": (lambda x: x.new_ones(2, 3).scatter_reduce(
        0, ROWS, x, "prod"), ZEROS),
    "index_reduce amin": (lambda x: x.new_ones(2, 3).index_reduce(
        0, SLOTS, x, "amin"), TIES),
    "index_reduce mean": (lambda x: x.new_ones(3, 3).index_reduce(
        0, SLOTS, x, "mean", include_self=False), TIES),
    # residuals exist only for a full-rank A: a branch on values, so the graph breaks there
    "lstsq residuals": (lambda x: ember.linalg.lstsq(x, x[:, :1] + 1, driver="gelsd")
                        .residuals, EQUAL_COLUMNS),
}
BREAKS = {"lstsq residuals"}


def _same_as_eager(step, weight, calls):
    """Run `step` eagerly and compiled on each argument tuple of `calls`: the results and
    weight's gradient must be equal to the bit. Returns the compiled step."""
    compiled = ember.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in calls:
            results = []
            for run in (step, compiled):
                weight.grad = None
                out = run(*args)
                results.append((out.detach().numpy(), weight.grad.numpy().copy()))
            for eager, replayed in zip(*results):
                np.testing.assert_array_equal(replayed, eager)
    return compiled


@pytest.mark.parametrize("name", CASES)
def test_compiled_gradients_follow_each_call(name):
    fn, special = CASES[name]
    weight = ember.nn.Parameter(ember.ones(3, dtype=ember.float64))

    def step(x):
        loss = fn(x * weight).sum()
        loss.backward()
        return loss
    generic = np.random.default_rng(0).standard_normal((4, 3)) + 5.0
    calls = [(ember.tensor(data),) for data in (generic, generic, np.array(special), generic * 2)]
    compiled = _same_as_eager(step, weight, calls)
    entry, = compiled._entries
    assert (entry.plan is not None and entry.confirmed) != (name in BREAKS), entry.reason


def test_eigh_and_cholesky_backward_replay():
    """Constants of shape only (identity, triangles) are made by ops; eigh's eigenvalue
    gaps are computed with ops from each call's eigenvalues."""
    weight = ember.nn.Parameter(ember.ones(3, 3, dtype=ember.float64))

    def step(a):
        m = a * weight
        spd = m @ m.mT + ember.eye(3, dtype=ember.float64)
        loss = ember.linalg.eigvalsh(spd).sum() + ember.linalg.cholesky(spd).sum()
        loss.backward()
        return loss
    rng = np.random.default_rng(1)
    compiled = _same_as_eager(step, weight, [(ember.tensor(rng.standard_normal((3, 3))),)
                                             for _ in range(4)])
    assert compiled._entries[0].plan is not None


def test_det_backward_branches_on_values_so_compile_breaks_there():
    weight = ember.nn.Parameter(ember.ones(2, 2, dtype=ember.float64))
    compiled = ember.compile(lambda a: ember.linalg.det(a * weight))
    with pytest.warns(UserWarning, match="Python boolean"):
        compiled(ember.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ember.float64)).backward()
    singular = ember.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=ember.float64)
    weight.grad = None
    compiled(singular).backward()
    # d det(A o W) / dW = cofactors(A) o A at W = 1
    np.testing.assert_allclose(weight.grad.numpy(), [[4.0, -4.0], [-4.0, 4.0]])


@pytest.mark.parametrize("loss", [F.nll_loss, F.cross_entropy])
@pytest.mark.parametrize("weighted", [False, True])
def test_mean_losses_divide_by_each_calls_total_weight(loss, weighted):
    """The mean of nll_loss/cross_entropy divides by the targets' total weight, which
    changes with the targets (ignored entries, class weights): a plan reads each call's."""
    weight = ember.nn.Parameter(ember.ones(4, dtype=ember.float64))
    classes = ember.tensor([0.5, 2.0, 1.0, 3.0], dtype=ember.float64) if weighted else None

    def step(x, target):
        out = loss((x * weight).log_softmax(1), target, weight=classes, ignore_index=2)
        out.backward()
        return out.detach()
    x = ember.tensor(np.random.default_rng(0).standard_normal((5, 4)))
    targets = ([0, 1, 3, 1, 0], [0, 1, 3, 1, 0], [2, 2, 1, 2, 3], [2, 2, 2, 2, 2], [3, 3, 0, 1, 2])
    compiled = _same_as_eager(step, weight, [(x, ember.tensor(t)) for t in targets])
    assert compiled._entries[0].plan is not None


def test_ctc_loss_reads_each_calls_targets_and_lengths():
    weight = ember.nn.Parameter(ember.ones(5, dtype=ember.float64))

    def step(x, targets, target_lengths):
        out = F.ctc_loss((x * weight).log_softmax(2), targets, [6, 5], target_lengths)
        out.backward()
        return out.detach()
    x = ember.tensor(np.random.default_rng(0).standard_normal((6, 2, 5)))
    labels = [([[1, 2, 3], [2, 2, 0]], [3, 2]), ([[1, 2, 3], [2, 2, 0]], [3, 2]),
              ([[4, 4, 1], [3, 1, 2]], [2, 3]), ([[1, 0, 0], [4, 3, 2]], [1, 3])]
    compiled = _same_as_eager(step, weight, [(x, ember.tensor(t), ember.tensor(n))
                                             for t, n in labels])
    assert compiled._entries[0].plan is not None
