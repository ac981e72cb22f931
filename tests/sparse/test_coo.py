"""ember's sparse COO tensors against torch's: construction, printing, coalescing,
conversion both ways, sparse @ dense with gradients, addition and scaling, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, check_error

# torch 2.13 warns that it skips the invariant checks that ember always makes
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

INDICES = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]      # (0, 2) twice: uncoalesced
VALUES = [3.0, 4.0, 5.0, 1.0, -2.0]


def sparse(lib, values=VALUES, size=(3, 3), **kwargs):
    sizes = () if size is None else (size,)
    return lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(values), *sizes, **kwargs)


def same_sparse(make, coalesced: bool = False):
    """make(lib) gives sparse tensors with equal indices, values, size and flags (of their
    coalesced forms: where torch merges some entries of an uncoalesced result, ember may
    keep them apart)."""
    e, t = make(ember), make(torch)
    assert e.layout is ember.sparse_coo and t.layout is torch.sparse_coo
    if coalesced:
        assert e.is_coalesced() == t.is_coalesced()
        e, t = e.coalesce(), t.coalesce()
    assert tuple(e.shape) == tuple(t.shape) and str(e.dtype) == str(t.dtype)
    assert e.is_coalesced() == t.is_coalesced() and e._nnz() == t._nnz()
    assert_same(e._indices(), t._indices(), 0, 0)
    assert_same(e._values().detach(), t._values().detach(), 1e-6, 1e-6)
    assert_same(e.to_dense().detach(), t.to_dense().detach(), 1e-6, 1e-6)


@pytest.mark.parametrize("make", [
    lambda lib: sparse(lib),
    lambda lib: sparse(lib, [1, 2, 3, 4, 5]),
    lambda lib: sparse(lib, dtype=lib.float64),
    lambda lib: sparse(lib, size=None),
    lambda lib: lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.int64), lib.zeros(0), (2, 2)),
    lambda lib: lib.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse(),
    lambda lib: lib.tensor([0.0, 1.5, 0.0, 2.0]).to_sparse_coo(),
])
def test_repr_and_contents_match_torch(make):
    same_sparse(make)
    assert repr(make(ember)) == repr(make(torch))


def test_identity():
    for lib in (torch, ember):
        s = sparse(lib)
        assert s.is_sparse and not lib.ones(1).is_sparse
        assert (s.sparse_dim(), s.dense_dim(), s._nnz(), s.numel(), s.dim()) == (2, 0, 5, 9, 2)
        assert s.size() == lib.Size([3, 3]) and s.dtype is lib.float32
        assert s.stride() == (0, 0) and not s.is_contiguous()
        one = lib.sparse_coo_tensor(lib.tensor([[0], [1]]), lib.ones(1), (2, 2))
        assert one.is_coalesced() and not s.is_coalesced()


@pytest.mark.parametrize("make", [
    lambda lib: sparse(lib).coalesce(),
    lambda lib: sparse(lib).t(),
    lambda lib: sparse(lib).coalesce().transpose(0, 1),
    lambda lib: sparse(lib).coalesce() + sparse(lib, [1, 1, 1, 1, 1]).t().coalesce(),
    lambda lib: sparse(lib) * 2,
    lambda lib: 0.5 * sparse(lib),
    lambda lib: -sparse(lib) / 4,
    lambda lib: sparse(lib).double(),
    lambda lib: sparse(lib).to("cpu"),
    lambda lib: lib.arange(24.0).reshape(2, 3, 4).remainder(3).to_sparse(),
])
def test_sparse_results_match_torch(make):
    same_sparse(make)


@pytest.mark.parametrize("make", [
    lambda lib: sparse(lib) + sparse(lib),
    lambda lib: sparse(lib) - sparse(lib, [1, 1, 1, 1, 1]).t(),
    lambda lib: sparse(lib).add(sparse(lib).coalesce(), alpha=3),
])
def test_sums_of_uncoalesced_tensors_match_torch(make):
    same_sparse(make, coalesced=True)


def test_coalesced_indices_and_values():
    for lib in (torch, ember):
        coalesced = sparse(lib).coalesce()
        assert coalesced.indices().tolist() == [[0, 1, 1, 2], [2, 0, 2, 1]]
        assert coalesced.values().tolist() == [4.0, 4.0, 5.0, -2.0]
        assert coalesced.coalesce().is_coalesced()


@pytest.mark.parametrize("product", [
    lambda lib, s, d: s @ d, lambda lib, s, d: lib.mm(s, d), lambda lib, s, d: lib.spmm(s, d),
    lambda lib, s, d: lib.sparse.mm(s, d), lambda lib, s, d: lib.matmul(s, d),
    lambda lib, s, d: s.mm(d), lambda lib, s, d: s @ d[:, 0],
    lambda lib, s, d: d.t() @ s.t(), lambda lib, s, d: lib.mm(d.t(), s.t()),
])
def test_sparse_dense_products_and_gradients_match_torch(product):
    dense = np.random.default_rng(0).standard_normal((3, 2)).astype(np.float32)
    results = {}
    for lib in (torch, ember):
        values = lib.tensor(VALUES, requires_grad=True)
        d = lib.tensor(dense, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), values, (3, 3))
        out = product(lib, s, d)
        assert out.layout is lib.strided
        (out * out).sum().backward()
        results[lib] = (out, values.grad, d.grad)
    for e, t in zip(results[ember], results[torch]):
        assert_same(e.detach(), t.detach(), 1e-5, 1e-5)


def test_dense_plus_sparse_is_dense_with_promotion():
    def make(lib):
        ints = lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(5, dtype=lib.int64),
                                     (3, 3), dtype=lib.int64)
        return lib.eye(3) + ints
    assert_same(make(ember), make(torch), 0, 0)
    values = ember.tensor(VALUES, requires_grad=True)
    (ember.ones(3, 3) + ember.sparse_coo_tensor(ember.tensor(INDICES), values)).sum().backward()
    assert values.grad.tolist() == [1.0] * 5


def test_to_dense_to_sparse_and_coalesce_carry_gradients():
    grads = {}
    for lib in (torch, ember):
        x = lib.tensor([[0.0, 2.0], [3.0, 0.0]], requires_grad=True)
        values = lib.tensor(VALUES, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), values)
        total = (x.to_sparse().to_dense() * 3).sum() + (s.to_dense() ** 2).sum() + \
            (s.coalesce().values() ** 3).sum()
        total.backward()
        grads[lib] = (x.grad, values.grad)
    for e, t in zip(grads[ember], grads[torch]):
        assert_same(e, t, 1e-6, 1e-6)


@pytest.mark.parametrize("fn, error, match", [
    (lambda lib: sparse(lib) + lib.ones(3, 3), RuntimeError,
     r"^add\(sparse, dense\) is not supported. Use add\(dense, sparse\) instead."),
    (lambda lib: sparse(lib).indices(), RuntimeError,
     r"^Cannot get indices on an uncoalesced tensor, please call .coalesce\(\) first"),
    (lambda lib: sparse(lib).values(), RuntimeError, r"^Cannot get values on an uncoalesced"),
    (lambda lib: sparse(lib, VALUES[:3]), RuntimeError,
     r"^indices and values must have same nnz, but got nnz from indices: 5, nnz from values: 3"),
    (lambda lib: sparse(lib, size=(3, 3, 3)), RuntimeError,
     r"^'len\(size\) == sparse_dim \+ dense_dim' is not satisfied"),
    (lambda lib: sparse(lib, size=(2, 3), check_invariants=True), RuntimeError,
     r"size is inconsistent with indices: for dim 0, size is 2 but found index 2"),
    (lambda lib: lib.mm(sparse(lib), lib.ones(4, 2)), RuntimeError,
     r"^addmm: Argument #3 \(dense\): Expected dim 0 size 3, got 4"),
    (lambda lib: lib.mm(sparse(lib, [1, 2, 3, 4, 5]), lib.ones(3, 2)), RuntimeError,
     r"^expected scalar type Long but found Float"),
    (lambda lib: sparse(lib) + sparse(lib, size=(3, 4)), RuntimeError,
     r"^add: expected sizes of 'self' and 'other' to match, but \[3, 3\] != \[3, 4\]"),
    (lambda lib: sparse(lib).numpy(), TypeError,
     r"^can't convert Sparse layout tensor to numpy. Use Tensor.to_dense\(\) first."),
])
def test_errors_match_torch(fn, error, match):
    check_error(fn, error, match)


@pytest.mark.parametrize("op", [
    lambda lib, s: lib.exp(s), lambda lib, s: s.view(9), lambda lib, s: s.reshape(9),
    lambda lib, s: lib.sum(s), lambda lib, s: s[0], lambda lib, s: s.tolist(),
    lambda lib, s: lib.cat([s, s]), lambda lib, s: s.exp(), lambda lib, s: s.sum(0),
    lambda lib, s: lib.add(lib.ones(3, 3), s), lambda lib, s: lib.ones(3, 3).add_(s),
])
def test_other_ops_refuse_sparse_tensors(op):
    with pytest.raises(NotImplementedError, match="sparse COO tensors support .* through the "
                       "operators"):
        op(ember, sparse(ember))


def test_sum_of_all_entries():
    assert sparse(ember).sum().item() == ember.sparse.sum(sparse(ember)).item() == \
        sparse(torch).sum().item()


def test_unsupported_forms_are_refused():
    with pytest.raises(NotImplementedError, match="layout"):
        ember.ones(2, 2).to_sparse(layout=ember.sparse_csr)
    with pytest.raises(NotImplementedError, match="reduce='max'"):
        ember.sparse.mm(sparse(ember), ember.ones(3, 2), reduce="max")
    with pytest.raises(NotImplementedError, match="sparse / tensor"):
        sparse(ember) / ember.ones(3, 3)
    with pytest.raises(NotImplementedError, match="softmax along a dense dim"):
        ember.sparse.softmax(ember.ones(2, 3).to_sparse(1), 1)


HYBRID_INDICES = [[0, 3, 0]]
HYBRID_VALUES = np.arange(9.0, dtype=np.float32).reshape(3, 3)


@pytest.mark.parametrize("make", [
    lambda lib: lib.sparse_coo_tensor(lib.tensor(HYBRID_INDICES), lib.tensor(HYBRID_VALUES)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(HYBRID_INDICES), lib.tensor(HYBRID_VALUES),
                                      (5, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(HYBRID_INDICES), lib.tensor(HYBRID_VALUES),
                                      (5, 3)).coalesce(),
    lambda lib: lib.tensor([[0.0, 0, 0], [1, 0, 2], [0, 0, 0], [0, 3, 0]]).to_sparse(1),
    lambda lib: lib.arange(24.0).reshape(2, 3, 4).to_sparse(2),
    lambda lib: lib.sparse_coo_tensor(lib.zeros(1, 0, dtype=lib.int64), lib.zeros(0, 2),
                                      (3, 2)),
])
def test_hybrid_tensors_match_torch(make):
    same_sparse(make)
    e, t = make(ember), make(torch)
    assert (e.sparse_dim(), e.dense_dim()) == (t.sparse_dim(), t.dense_dim())
    assert repr(e) == repr(t)


def test_requires_grad_leaf_and_grad_fn_reprs_match_torch():
    for make in (lambda lib: sparse(lib, requires_grad=True),
                 lambda lib: sparse(lib, requires_grad=True) * 2,
                 lambda lib: lib.sparse.sum(sparse(lib, requires_grad=True), 0),
                 lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES),
                                                   lib.tensor(VALUES, requires_grad=True))):
        e, t = make(ember), make(torch)
        assert repr(e) == repr(t)
        assert e.is_leaf == t.is_leaf and e.requires_grad == t.requires_grad


@pytest.mark.parametrize("fn, error, match", [
    (lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(5, 2), (3, 3, 4)),
     RuntimeError, r"^values has incorrect size, expected \[5, 4\], got \[5, 2\]"),
    (lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(5, 2), (3, 3)),
     RuntimeError, r"^'len\(size\) == sparse_dim \+ dense_dim' is not satisfied: len\(size\) = "
     r"2, sparse_dim = 2, dense_dim = 1"),
    (lambda lib: lib.sparse_coo_tensor(lib.tensor([0, 1]), lib.ones(2)), RuntimeError,
     r"^indices must be sparse_dim x nnz, but got: \[2\]"),
])
def test_construction_errors_match_torch(fn, error, match):
    check_error(fn, error, match)
