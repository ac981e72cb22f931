"""nn.utils.parametrizations.orthogonal (ember/nn/utils/_orthogonal.py) against torch."""
import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from module_oracle import train_side_by_side
from oracle import assert_same, check_error

MAPS = ["matrix_exp", "cayley", "householder"]
# Linear(in, out) weights: square, tall (out > in) and wide (out < in)
SIZES = [(5, 5), (3, 6), (6, 3)]


def _linear_pair(in_features, out_features):
    """Linear layers in torch and ember with the same starting weight."""
    torch.manual_seed(0)
    t_mod = torch.nn.Linear(in_features, out_features)
    e_mod = ember.nn.Linear(in_features, out_features)
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod


def _orthogonalize(pair, **options):
    return tuple(lib.nn.utils.parametrizations.orthogonal(mod, **options)
                 for lib, mod in zip((torch, ember), pair))


def _is_orthogonal(weight) -> bool:
    w = weight.detach().numpy().astype(np.float64)
    w = w if w.shape[-2] >= w.shape[-1] else w.swapaxes(-1, -2)
    return np.allclose(w.swapaxes(-1, -2) @ w, np.eye(w.shape[-1]), atol=1e-5)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("orthogonal_map", MAPS + [None])
def test_initial_weight_state_dict_and_repr(size, orthogonal_map):
    """The registered weight is the Q of the starting weight's QR (torch's value; for a
    non-square weight, the base's extra random columns do not reach it)."""
    t_mod, e_mod = _orthogonalize(_linear_pair(*size), orthogonal_map=orthogonal_map)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert e_mod.parametrizations.weight[0].orthogonal_map.name == \
        t_mod.parametrizations.weight[0].orthogonal_map.name
    assert_same(e_mod.weight, t_mod.weight, 1e-5, 1e-4)
    assert_same(e_mod.parametrizations.weight.original, t_mod.parametrizations.weight.original,
                0, 0)
    assert _is_orthogonal(e_mod.weight)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("orthogonal_map", MAPS)
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_training_matches_torch(size, orthogonal_map, use_trivialization):
    """Without trivialization, matrix_exp and cayley start from the raw weight (their
    right_inverse raises NotImplementedError, which registration skips)."""
    t_mod, e_mod = _orthogonalize(_linear_pair(*size), orthogonal_map=orthogonal_map,
                                  use_trivialization=use_trivialization)
    # the same base (its random completion differs between the libraries' generators)
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    assert_same(e_mod.weight, t_mod.weight, 1e-6, 1e-5)
    x = np.random.default_rng(1).standard_normal((4, size[0])).astype(np.float32)
    train_side_by_side(t_mod, e_mod, x, steps=4)
    assert_same(e_mod.weight, t_mod.weight, 1e-5, 1e-4)
    assert _is_orthogonal(e_mod.weight)


def test_householder_without_trivialization_stores_reflectors():
    t_mod, e_mod = _orthogonalize(_linear_pair(3, 6), orthogonal_map="householder",
                                  use_trivialization=False)
    assert "parametrizations.weight.0.base" not in e_mod.state_dict()
    assert_same(e_mod.parametrizations.weight.original, t_mod.parametrizations.weight.original,
                1e-6, 1e-5)
    assert_same(e_mod.weight, t_mod.weight, 1e-6, 1e-5)


@pytest.mark.parametrize("orthogonal_map", MAPS)
def test_batch_of_matrices(orthogonal_map):
    def make(lib):
        module = lib.nn.Module()
        module.weight = lib.nn.Parameter(lib.tensor(
            np.random.default_rng(2).standard_normal((2, 5, 3)).astype(np.float32)))
        return lib.nn.utils.parametrizations.orthogonal(module, orthogonal_map=orthogonal_map)
    t_mod, e_mod = make(torch), make(ember)
    assert_same(e_mod.weight, t_mod.weight, 1e-5, 1e-4)
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        (mod.weight * lib.arange(15.0).reshape(5, 3)).sum().backward()
    assert_same(e_mod.parametrizations.weight.original.grad,
                t_mod.parametrizations.weight.original.grad, 1e-5, 1e-4)


@pytest.mark.parametrize("orthogonal_map", MAPS)
def test_assignment_orthogonalizes(orthogonal_map):
    value = np.random.default_rng(3).standard_normal((4, 4)).astype(np.float32)
    weights = []
    for lib, mod in zip((torch, ember), _orthogonalize(_linear_pair(4, 4),
                                                       orthogonal_map=orthogonal_map)):
        mod.weight = lib.tensor(value)
        weights.append(mod.weight)
    assert_same(weights[1], weights[0], 1e-5, 1e-4)
    orthogonal = np.linalg.qr(value.astype(np.float64))[0]
    orthogonal *= np.sign(np.diag(np.linalg.qr(value.astype(np.float64))[1]))
    np.testing.assert_allclose(weights[1].detach().numpy(), orthogonal, atol=1e-5)


def test_already_orthogonal_weight_is_kept():
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]], dtype=np.float32)
    module = ember.nn.Linear(2, 2)
    with ember.no_grad():
        module.weight.copy_(ember.tensor(rotation))
    ember.nn.utils.parametrizations.orthogonal(module)
    np.testing.assert_array_equal(module.weight.detach().numpy(), rotation)


@pytest.mark.parametrize("fn, error, match", [
    (lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2), "bias"),
     ValueError, r"^Expected a matrix or batch of matrices. Got a tensor of 1 dimensions.$"),
    (lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2), "foo"),
     ValueError, r"has no parameter or buffer with name 'foo'$"),
    (lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2),
                                                      orthogonal_map="qr"),
     ValueError, r'^orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
     r"Got: qr$"),
    (lambda L: setattr(L.nn.utils.parametrizations.orthogonal(
        L.nn.Linear(2, 2), use_trivialization=False), "weight", L.eye(2)),
     NotImplementedError, r"^It is not possible to assign to the matrix exponential or the "
     r"Cayley parametrizations when use_trivialization=False.$"),
    (lambda L: setattr(L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 3)), "weight",
                       L.ones(3, 3)),
     ValueError, r"^Expected a matrix or batch of matrices of shape torch.Size\(\[3, 2\]\). "
     r"Got a tensor of shape torch.Size\(\[3, 3\]\).$"),
])
def test_errors(fn, error, match):
    check_error(fn, error, match)
