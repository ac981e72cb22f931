"""Checks of a tensor's values (an index in range, a class target, a variance's sign, a
quantile's q) run on every compiled call, not only on the traced one: a plan traced on
valid values, then called with invalid ones, raises torch's error (before, a negative
index wrapped around silently and an index past the end gave NumPy's message). The eager
errors are torch's."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _inputs(lib):
    """The tensors the functions read besides the values: x (4, 5) and w (5, 3)."""
    return [lib.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / scale,
                       requires_grad=True) for shape, scale in (((4, 5), 7), ((5, 3), 5))]


# name -> (f(lib, value tensor, x, w), valid values, invalid values)
CASES = {
    "cross_entropy": (lambda lib, t, x, w: lib.nn.functional.cross_entropy(x, t),
                      [[0, 1, 2, 3], [4, 3, 2, 1]], [[0, 1, 2, 5], [0, -2, 1, 1]]),
    "nll_loss": (lambda lib, t, x, w: lib.nn.functional.nll_loss(x, t, ignore_index=-1),
                 [[0, 1, 2, 3], [4, 3, 2, 1]], [[0, 1, 2, 5], [0, -2, 1, 1]]),
    "embedding": (lambda lib, t, x, w: lib.nn.functional.embedding(t, w),
                  [[0, 1], [4, 3]], [[0, 5], [0, -1]]),
    "gather": (lambda lib, t, x, w: x.gather(1, t.view(4, 1)),
               [[0, 1, 2, 3], [4, 3, 2, 1]], [[0, 1, 2, 5], [0, -2, 1, 1]]),
    "scatter_add": (lambda lib, t, x, w: lib.zeros(4, 5).scatter_add(1, t.view(4, 1), x[:, :1]),
                    [[0, 1, 2, 3], [4, 3, 2, 1]], [[0, 1, 2, 5], [0, -2, 1, 1]]),
    "scatter": (lambda lib, t, x, w: lib.zeros(4, 5).scatter(1, t.view(4, 1), x[:, :1]),
                [[0, 1, 2, 3], [4, 3, 2, 1]], [[0, 1, 2, 5], [0, -2, 1, 1]]),
    "index_select": (lambda lib, t, x, w: x.index_select(0, t),
                     [[0, 1, 2, 3], [3, 3, 2, 1]], [[0, 1, 2, 4], [0, -1, 1, 1]]),
    "take": (lambda lib, t, x, w: x.take(t), [[0, 1, 2, 3], [4, 3, -2, 1]],
             [[0, 1, 2, 20], [0, -21, 1, 1]]),
    "index_fill": (lambda lib, t, x, w: x.index_fill(1, t, 2.0), [[0, 1, 2, 3], [4, -1, 2, 1]],
                   [[0, 1, 2, 5], [0, -6, 1, 1]]),
    "index_copy": (lambda lib, t, x, w: lib.zeros(4, 5).index_copy(1, t, x[:, :4]),
                   [[0, 1, 2, 3], [4, 3, 2, 1]], [[0, 1, 2, 5], [0, -1, 1, 2]]),
    "max_unpool": (lambda lib, t, x, w: lib.nn.functional.max_unpool2d(x[:1, :4].reshape(
        1, 1, 2, 2), t.view(1, 1, 2, 2), 2), [[0, 3, 8, 10], [1, 2, 9, 11]],
        [[0, 3, 8, 16], [0, -1, 8, 9]]),
    "quantile": (lambda lib, q, x, w: x.quantile(q), [[0.1, 0.5], [0.2, 0.9]],
                 [[0.1, 1.5], [-0.1, 0.5]]),
    "gaussian_nll": (lambda lib, v, x, w: lib.nn.functional.gaussian_nll_loss(x[:, 0],
                                                                     lib.zeros(4), v),
                     [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]],
                     [[0.1, 0.2, -1.5, 0.4], [-0.5, 0.6, 0.7, 0.8]]),
}


def _error(fn):
    try:
        fn()
    except Exception as error:        # noqa: BLE001 - the type is what is compared
        return type(error), str(error).split(". Hint")[0]
    return None


@pytest.mark.parametrize("name", CASES)
def test_a_replay_checks_each_calls_values(name):
    fn, good, bad = CASES[name]
    held, torch_held = _inputs(ember), _inputs(torch)
    compiled = ember.compile(lambda t, x, w: fn(ember, t, x, w))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for values in good + good[:1]:
            expected = fn(ember, ember.tensor(values), *held)
            got = compiled(ember.tensor(values), *held)
            np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
        assert compiled._entries[0].plan is not None and compiled._entries[0].confirmed
        for values in bad:
            torch_error = _error(lambda: fn(torch, torch.tensor(values), *torch_held))
            assert torch_error is not None
            eager = _error(lambda: fn(ember, ember.tensor(values), *held))
            replayed = _error(lambda: compiled(ember.tensor(values), *held))
            assert replayed == eager, values
            assert eager[0] is torch_error[0], (values, eager, torch_error)
            assert eager[1] == torch_error[1] or name in ("embedding", "cross_entropy",
                                                          "nll_loss"), (eager, torch_error)


def test_negative_indices_where_torch_allows_them():
    for name in ("take", "index_fill"):
        fn, good, _ = CASES[name]
        expected = fn(torch, torch.tensor(good[1]), *_inputs(torch)).detach().numpy()
        got = fn(ember, ember.tensor(good[1]), *_inputs(ember)).detach().numpy()
        np.testing.assert_array_equal(got, expected)


def test_results_needing_gradients_only_of_tensors_made_in_the_call_run_eagerly():
    def made_inside(t):
        x = ember.ones(4, 5, requires_grad=True)
        return x.gather(1, t.view(4, 1))

    compiled = ember.compile(made_inside)
    with pytest.warns(UserWarning, match="gradients only of tensors made in the call"):
        out = compiled(ember.tensor([0, 1, 2, 3]))
    assert out.grad_fn is not None and compiled._entries[0].plan is None
