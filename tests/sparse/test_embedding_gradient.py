"""F.embedding / nn.Embedding with sparse=True: the weight's gradient is torch's sparse
COO tensor (uncoalesced, one entry per lookup in lookup order, padding_idx's left out,
rows of the output gradient as values: a hybrid tensor), and sums to torch's tensor."""
import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, check_error

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

TABLE = np.arange(18.0, dtype=np.float32).reshape(6, 3) / 10
LOOKUPS = [[1, 2, 4], [4, 0, 1]]


def same_sparse_grad(e, t):
    assert e.layout is ember.sparse_coo and t.layout is torch.sparse_coo
    assert (e.sparse_dim(), e.dense_dim(), e.is_coalesced()) == \
        (t.sparse_dim(), t.dense_dim(), t.is_coalesced())
    assert e._indices().tolist() == t._indices().tolist()
    assert_same(e._values(), t._values(), 1e-6, 1e-6)


@pytest.mark.parametrize("padding_idx", [None, 2, -2])
def test_module_gradient_matches_torch(padding_idx):
    grads = {}
    for lib in (torch, ember):
        emb = lib.nn.Embedding(6, 3, sparse=True, padding_idx=padding_idx)
        with lib.no_grad():
            emb.weight.copy_(lib.tensor(TABLE))
        out = emb(lib.tensor(LOOKUPS))
        assert out.grad_fn.name() == "EmbeddingBackward0"
        (out * lib.arange(18.0).reshape(2, 3, 3)).sum().backward()
        first = emb.weight.grad.clone()
        emb(lib.tensor(LOOKUPS)).sum().backward()        # the same lookups: values added
        second = emb.weight.grad.clone()
        emb(lib.tensor([5])).sum().backward()            # other lookups: entries appended
        grads[lib] = (first, second, emb.weight.grad)
    same_sparse_grad(grads[ember][0], grads[torch][0])
    # The sums: torch concatenates or adds entry by entry depending on whether the values
    # are contiguous in memory; the tensors are the same.
    for e, t in zip(grads[ember][1:], grads[torch][1:]):
        same_sparse_grad(e.coalesce(), t.coalesce())


def test_functional_gradient_and_values_through_two_lookups_match_torch():
    grads = {}
    for lib in (torch, ember):
        weight = lib.tensor(TABLE, requires_grad=True)
        a = lib.nn.functional.embedding(lib.tensor(LOOKUPS), weight, sparse=True)
        b = lib.nn.functional.embedding(lib.tensor([3, 1]), weight, sparse=True)
        ((a ** 2).sum() + (b * 3).sum()).backward()
        grads[lib] = weight.grad
    assert_same(grads[ember].to_dense(), grads[torch].to_dense(), 1e-6, 1e-6)
    assert grads[ember].coalesce()._nnz() == grads[torch].coalesce()._nnz()


def test_dense_and_sparse_gradients_to_one_weight_add_up_like_torch():
    grads = {}
    for lib in (torch, ember):
        weight = lib.tensor(TABLE, requires_grad=True)
        looked_up = lib.nn.functional.embedding(lib.tensor(LOOKUPS), weight, sparse=True)
        (looked_up.sum() + (weight ** 2).sum()).backward()
        grads[lib] = weight.grad
    assert grads[ember].layout is ember.strided and grads[torch].layout is torch.strided
    assert_same(grads[ember], grads[torch], 1e-6, 1e-6)


def test_scale_grad_by_freq_with_sparse_is_refused_at_backward_like_torch():
    def run(lib):
        emb = lib.nn.Embedding(6, 3, sparse=True, scale_grad_by_freq=True)
        emb(lib.tensor(LOOKUPS)).sum().backward()
    check_error(run, RuntimeError,
                "^embedding_backward: scale_grad_by_freq not supported with sparse gradients")
