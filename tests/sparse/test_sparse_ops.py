"""Results of ember's sparse ops against torch's: torch.sparse.sum over dims, softmax and
log_softmax, elementwise products, the exact entries of sparse + sparse (torch's merge),
ops on hybrid tensors, and the sparse @ dense kernel with and without scipy."""
import numpy as np
import pytest
import torch

import ember
from ember.sparse import _matmul
from oracle import assert_same

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

INDICES = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]
VALUES = [3.0, 4.0, 5.0, 1.0, -2.0]
HYBRID = (np.array([[0, 3, 0, 2]]), np.arange(12.0, dtype=np.float32).reshape(4, 3) - 5)


def sparse(lib):
    return lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 3))


def hybrid(lib):
    return lib.sparse_coo_tensor(lib.tensor(HYBRID[0]), lib.tensor(HYBRID[1]), (5, 3))


def same_result(e, t):
    """Equal layout and contents (sparse ones compared coalesced, with their flags)."""
    assert e.is_sparse == t.is_sparse and tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype) == str(t.dtype)
    if t.is_sparse:
        assert e.is_coalesced() == t.is_coalesced()
        e, t = e.coalesce(), t.coalesce()
        assert_same(e.indices(), t.indices(), 0, 0)
        e, t = e.values(), t.values()
    assert_same(e.detach(), t.detach(), 1e-6, 1e-6)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.sparse.sum(sparse(lib)),
    lambda lib: lib.sparse.sum(sparse(lib), 0),
    lambda lib: lib.sparse.sum(sparse(lib), -1),
    lambda lib: lib.sparse.sum(sparse(lib), (0, 1)),
    lambda lib: lib.sparse.sum(sparse(lib), 1, dtype=lib.float64),
    lambda lib: lib.sparse.sum(hybrid(lib), 0),
    lambda lib: lib.sparse.sum(hybrid(lib), 1),
    lambda lib: lib.sparse.sum(lib.arange(24.0).reshape(2, 3, 4).to_sparse(2), (0, 2)),
    lambda lib: lib.sparse.softmax(sparse(lib), 1),
    lambda lib: lib.sparse.softmax(sparse(lib), 0),
    lambda lib: lib.sparse.log_softmax(sparse(lib), 1),
    lambda lib: lib.sparse.softmax(hybrid(lib), 0),
    lambda lib: lib.sparse.softmax(sparse(lib), 1, dtype=lib.float64),
    lambda lib: lib.sparse.log_softmax(lib.arange(24.0).reshape(2, 3, 4).remainder(5)
                                       .to_sparse(), 2),
    lambda lib: sparse(lib) * lib.arange(9.0).reshape(3, 3),
    lambda lib: sparse(lib).mul(lib.tensor(2.5)),
    lambda lib: hybrid(lib) * 2 + hybrid(lib),
    lambda lib: hybrid(lib).to_dense(),
    lambda lib: hybrid(lib) - hybrid(lib).coalesce(),
    lambda lib: lib.ones(5, 3) + hybrid(lib),
    lambda lib: lib.sparse.addmm(lib.ones(3, 2), sparse(lib), lib.ones(3, 2), beta=2,
                                 alpha=0.5),
])
def test_results_match_torch(fn):
    same_result(fn(ember), fn(torch))


def merge_operands(lib):
    def make(indices, values, coalesced=None):
        return lib.sparse_coo_tensor(lib.tensor(indices), lib.tensor(values), (3, 3),
                                     is_coalesced=coalesced)
    a = make([[0, 1, 1, 0], [2, 0, 2, 2]], [1.0, 2, 3, 4])
    b = make([[0, 1, 1, 0], [2, 0, 2, 2]], [10.0, 20, 30, 40])
    c = make([[2, 1, 1], [1, 0, 2]], [5.0, 6, 7])
    return a, b, c


@pytest.mark.parametrize("fn", [
    lambda a, b, c: a + b,                        # identical indices: values summed
    lambda a, b, c: a.coalesce() + c.coalesce(),  # coalesced: coalesced result
    lambda a, b, c: a.coalesce() + (c * 2).coalesce(),
    lambda a, b, c: a.coalesce() + c,             # c's head is larger: kept whole, in turn
    lambda a, b, c: a + c,
])
def test_sums_keep_torchs_entries(fn):
    e, t = fn(*merge_operands(ember)), fn(*merge_operands(torch))
    assert e.is_coalesced() == t.is_coalesced()
    assert e._indices().tolist() == t._indices().tolist()
    assert e._values().tolist() == t._values().tolist()


@pytest.mark.parametrize("fn", [
    lambda a, b, c: a + a.coalesce(),     # torch interleaves these unsorted lists, ember
    lambda a, b, c: c.coalesce() + a,     # keeps them whole: the same tensor
    lambda a, b, c: a * c,                # torch keeps explicit zeros here
])
def test_other_sums_and_products_are_torchs_tensor(fn):
    e, t = fn(*merge_operands(ember)), fn(*merge_operands(torch))
    assert e.layout is ember.sparse_coo and t.layout is torch.sparse_coo
    assert_same(e.to_dense(), t.to_dense(), 0, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sorted_rows", [True, False])
def test_the_numpy_kernel_agrees_with_scipys(dtype, sorted_rows):
    pytest.importorskip("scipy")
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, 40, 300), rng.integers(0, 30, 300)
    if sorted_rows:
        rows.sort()
    values, dense = rng.standard_normal(300).astype(dtype), \
        rng.standard_normal((30, 5)).astype(dtype)
    reference = _matmul.coo_matmul_numpy(rows, cols, values, dense, 40)
    assert reference.dtype == dtype
    np.testing.assert_allclose(reference, _matmul.coo_matmul(rows, cols, values, dense, 40),
                               rtol=1e-5, atol=1e-5)
    expected = np.zeros((40, 5), dtype)
    np.add.at(expected, rows, values[:, None] * dense[cols])
    np.testing.assert_allclose(reference, expected, rtol=1e-5, atol=1e-5)


def test_zero_and_deepcopy():
    import copy
    s = sparse(ember).requires_grad_()
    duplicate = copy.deepcopy(s)
    assert duplicate is not s and duplicate.requires_grad and duplicate._nnz() == 5
    t = sparse(torch).zero_()
    e = sparse(ember).zero_()
    assert e._nnz() == t._nnz() == 0 and e.is_coalesced() == t.is_coalesced()
    assert_same(e.to_dense(), t.to_dense(), 0, 0)


@pytest.mark.parametrize("fn", [
    lambda lib, s: s.add_(sparse(lib).coalesce()),
    lambda lib, s: s.add_(sparse(lib), alpha=2),
    lambda lib, s: s.mul_(3),
    lambda lib, s: s.div_(4),
    lambda lib, s: s.mul_(lib.arange(9.0).reshape(3, 3)),
])
def test_in_place_ops_match_torch(fn):
    e, t = sparse(ember), sparse(torch)
    assert fn(ember, e) is e and fn(torch, t) is t
    same_result(e, t)


def test_in_place_errors_match_torch():
    from oracle import check_error
    check_error(lambda lib: sparse(lib).add_(lib.ones(3, 3)), RuntimeError,
                r"^add\(sparse, dense\) is not supported. Use add\(dense, sparse\) instead.")
