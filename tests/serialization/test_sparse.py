"""Sparse COO tensors in torch's checkpoint format, both ways: torch.save -> ember.load
and ember.save -> torch.load, alone, in a state_dict, hybrid and uncoalesced, with the
weights-only loader; and a layout ember lacks is refused by name."""
import io

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


def checkpoint(lib):
    plain = lib.sparse_coo_tensor(lib.tensor([[0, 1, 0], [1, 0, 1]]),
                                  lib.tensor([1.0, 2.0, 3.0]), (2, 3))
    hybrid = lib.sparse_coo_tensor(lib.tensor([[3, 0]]),
                                   lib.tensor(np.arange(6.0).reshape(2, 3)), (4, 3))
    return {"uncoalesced": plain, "coalesced": plain.coalesce(), "hybrid": hybrid,
            "weight": lib.ones(2, 2), "nested": [plain.double()]}


def same_checkpoint(e: dict, t: dict):
    for key in ("uncoalesced", "coalesced", "hybrid"):
        a, b = e[key], t[key]
        assert a.is_sparse and b.is_sparse and a.is_coalesced() == b.is_coalesced()
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
        assert a._indices().tolist() == b._indices().tolist()
        assert_same(a._values(), b._values(), 0, 0)
    assert e["nested"][0].dtype is ember.float64
    assert_same(e["weight"], t["weight"], 0, 0)


@pytest.mark.parametrize("weights_only", [True, False])
def test_torch_checkpoint_loads_in_ember(weights_only):
    buffer = io.BytesIO()
    torch.save(checkpoint(torch), buffer)
    buffer.seek(0)
    same_checkpoint(ember.load(buffer, weights_only=weights_only), checkpoint(torch))


def test_ember_checkpoint_loads_in_torch():
    buffer = io.BytesIO()
    ember.save(checkpoint(ember), buffer)
    buffer.seek(0)
    same_checkpoint(checkpoint(ember), torch.load(buffer))


def test_sparse_gradient_in_a_state_dict_round_trips():
    emb = ember.nn.Embedding(5, 2, sparse=True)
    emb(ember.tensor([1, 1, 3])).sum().backward()
    state = {"model": emb.state_dict(), "grad": emb.weight.grad}
    buffer = io.BytesIO()
    ember.save(state, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    assert loaded["grad"].layout is torch.sparse_coo
    assert loaded["grad"]._indices().tolist() == [[1, 1, 3]]
    buffer.seek(0)
    again = ember.load(buffer)
    np.testing.assert_array_equal(again["grad"].to_dense().numpy(),
                                  emb.weight.grad.to_dense().numpy())


def test_other_sparse_layouts_are_refused_by_name():
    buffer = io.BytesIO()
    torch.save(torch.ones(2, 2).to_sparse_csr(), buffer)
    buffer.seek(0)
    with pytest.raises(NotImplementedError, match="layout torch.sparse_csr"):
        ember.load(buffer)
