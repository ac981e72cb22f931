"""Autograd through ember's sparse COO tensors against torch's: the grad_fn names, the
layout of a sparse leaf's gradient (sparse on its pattern, or dense, as torch gives it)
and its values, the dense operands' gradients, and second order through sparse.mm."""
import numpy as np
import pytest
import torch

import ember
from oracle import assert_same

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

INDICES = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]      # (0, 2) twice: uncoalesced
VALUES = [3.0, 4.0, 5.0, 1.0, -2.0]
DENSE = np.arange(9.0, dtype=np.float32).reshape(3, 3) / 4 - 1


def as_dense(t):
    return None if t is None else (t.to_dense() if t.is_sparse else t).detach()


# (name, fn(lib, sparse leaf, dense leaf) -> scalar loss)
CASES = [
    ("to_dense", lambda lib, s, d: (s.to_dense() ** 2).sum()),
    ("sparse.mm", lambda lib, s, d: (lib.sparse.mm(s, d) ** 2).sum()),
    ("sparse.addmm", lambda lib, s, d: (lib.sparse.addmm(d, s, d, beta=0.5, alpha=2) ** 2).sum()),
    ("mm", lambda lib, s, d: (lib.mm(s, d) ** 2).sum()),
    ("matmul", lambda lib, s, d: (lib.matmul(s, d) ** 2).sum()),
    ("spmm", lambda lib, s, d: (lib.spmm(s, d) ** 2).sum()),
    ("@", lambda lib, s, d: (s @ d).pow(2).sum()),
    ("matvec", lambda lib, s, d: (s @ d[:, 0]).pow(2).sum()),
    ("dense @ sparse", lambda lib, s, d: (d @ s).pow(2).sum()),
    ("sparse.sum", lambda lib, s, d: lib.sparse.sum(s) * 3),
    ("sparse.sum dim", lambda lib, s, d: lib.sparse.sum(s, 0).to_dense().pow(2).sum()),
    ("sparse.sum dims", lambda lib, s, d: lib.sparse.sum(s, (0, 1)) * 2),
    ("Tensor.sum", lambda lib, s, d: s.sum()),
    ("softmax", lambda lib, s, d: (lib.sparse.softmax(s, 1).to_dense() * d).sum()),
    ("log_softmax", lambda lib, s, d: (lib.sparse.log_softmax(s, 0).to_dense() * d).sum()),
    ("sparse * dense", lambda lib, s, d: ((s * d).to_dense() ** 2).sum()),
    ("dense * sparse", lambda lib, s, d: ((d * s).to_dense() ** 2).sum()),
    ("sparse * sparse", lambda lib, s, d: (s * s).to_dense().sum()),
    ("values", lambda lib, s, d: (s.coalesce().values() ** 2).sum()),
    ("t", lambda lib, s, d: (s.t().to_dense() * d).sum()),
    ("transpose", lambda lib, s, d: (s.transpose(1, 0).to_dense() * d).sum()),
    ("dense + sparse", lambda lib, s, d: ((d + s) ** 2).sum()),
    ("dense - sparse", lambda lib, s, d: ((d - s) ** 2).sum()),
    ("sparse + sparse", lambda lib, s, d: ((s + s * 2).to_dense() * d).sum()),
    ("sparse - sparse", lambda lib, s, d: ((s - s.t()).to_dense() * d).sum()),
    ("add alpha", lambda lib, s, d: (s.add(s.coalesce(), alpha=3).to_dense() * d).sum()),
    ("scale", lambda lib, s, d: ((s * 2).to_dense() * d).sum()),
    ("neg", lambda lib, s, d: ((-s).to_dense() * d).sum()),
    ("div", lambda lib, s, d: ((s / 2).to_dense() * d).sum()),
    ("clone", lambda lib, s, d: (s.clone().to_dense() * d).sum()),
    ("double", lambda lib, s, d: (s.double().to_dense() * d.double()).sum()),
]


@pytest.mark.parametrize("fn", [fn for _, fn in CASES], ids=[name for name, _ in CASES])
def test_gradients_and_their_layouts_match_torch(fn):
    results = {}
    for lib in (torch, ember):
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 3),
                                  requires_grad=True)
        d = lib.tensor(DENSE, requires_grad=True)
        loss = fn(lib, s, d)
        loss.backward()
        results[lib] = (loss, s.grad, d.grad)
    (e_loss, e_s, e_d), (t_loss, t_s, t_d) = results[ember], results[torch]
    assert_same(e_loss.detach(), t_loss.detach(), 1e-5, 1e-5)
    for e, t in ((e_s, t_s), (e_d, t_d)):
        assert (e is None) == (t is None)
        if t is not None:
            assert e.layout is (ember.sparse_coo if t.is_sparse else ember.strided)
            if t.is_sparse:     # the same pattern (ember's gradients may differ in flag)
                assert e.coalesce()._nnz() == t.coalesce()._nnz()
            assert_same(as_dense(e), as_dense(t), 1e-5, 1e-5)


@pytest.mark.parametrize("fn", [
    lambda lib, s: lib.sparse.softmax(s, 1), lambda lib, s: lib.sparse.log_softmax(s, 0),
    lambda lib, s: s - s, lambda lib, s: s.clone(), lambda lib, s: s.double(),
    lambda lib, s: s.coalesce().values(), lambda lib, s: lib.ones(2, 2,
                                                                  requires_grad=True).to_sparse(),
    lambda lib, s: lib.sparse.sum(s, 0), lambda lib, s: lib.sparse.mm(s, lib.ones(3, 2)),
    lambda lib, s: s * lib.ones(3, 3), lambda lib, s: s * s, lambda lib, s: lib.ones(2, 3) @ s,
    lambda lib, s: s.mul(2), lambda lib, s: s.add(s), lambda lib, s: s @ lib.ones(3, 2),
    lambda lib, s: s.coalesce(), lambda lib, s: s.t(), lambda lib, s: s.transpose(0, 1),
    lambda lib, s: -s, lambda lib, s: s / 2, lambda lib, s: lib.sparse.sum(s),
])
def test_grad_fn_names_match_torch(fn):
    names = []
    for lib in (torch, ember):
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 3),
                                  requires_grad=True)
        result = fn(lib, s)
        names.append(result.grad_fn.name())
        assert result.layout is (lib.sparse_coo if result.is_sparse else lib.strided)
    assert names[0] == names[1]


def test_values_gradient_through_the_constructor_matches_torch():
    grads = {}
    for lib in (torch, ember):
        values = lib.tensor(VALUES, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), values, (3, 3))
        assert s.grad_fn.name() == "SparseCooTensorWithDimsAndTensorsBackward0"
        loss = (lib.sparse.mm(s, lib.tensor(DENSE)) ** 2).sum() + (s.to_dense() ** 2).sum() + \
            (lib.sparse.softmax(s, 1).to_dense() * lib.tensor(DENSE)).sum()
        loss.backward()
        grads[lib] = values.grad
    assert_same(grads[ember], grads[torch], 1e-5, 1e-5)


def test_gradients_accumulate_over_backward_passes_like_torch():
    grads = {}
    for lib in (torch, ember):
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 3),
                                  requires_grad=True)
        d = lib.tensor(DENSE)
        (lib.sparse.mm(s, d) ** 2).sum().backward()
        (s.to_dense() * d).sum().backward()         # sparse + sparse
        (lib.mm(s, d)).sum().backward()             # sparse + dense: dense
        grads[lib] = s.grad
    assert grads[ember].layout is ember.strided and grads[torch].layout is torch.strided
    assert_same(grads[ember], grads[torch], 1e-5, 1e-5)


def test_second_order_through_sparse_mm_matches_torch():
    grads = {}
    for lib in (torch, ember):
        values = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
        d = lib.tensor(DENSE.astype(np.float64), requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), values, (3, 3))
        (grad_d,) = lib.autograd.grad((lib.sparse.mm(s, d) ** 3).sum(), d, create_graph=True)
        grad_d.pow(2).sum().backward()
        grads[lib] = (values.grad, d.grad)
    for e, t in zip(grads[ember], grads[torch]):
        assert_same(e, t, 1e-10, 1e-10)
