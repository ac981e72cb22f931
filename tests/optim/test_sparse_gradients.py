"""Optimizers on the sparse gradients of nn.Embedding(sparse=True), against torch:
SparseAdam, SGD (with momentum) and Adagrad update from them; the others, and SparseAdam
for dense gradients, raise torch's errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

TABLE = np.arange(21.0, dtype=np.float32).reshape(7, 3) / 10


def train(lib, name: str, steps: int = 4, padding_idx=None, **kwargs):
    emb = lib.nn.Embedding(7, 3, sparse=True, padding_idx=padding_idx)
    with lib.no_grad():
        emb.weight.copy_(lib.tensor(TABLE))
    optimizer = getattr(lib.optim, name)(emb.parameters(), **kwargs)
    for step in range(steps):
        optimizer.zero_grad()
        lookups = lib.tensor([[1, 2, 4, 1], [4, 0, 1, step % 7]])
        (emb(lookups) ** 2).sum().backward()
        if name == "LBFGS":
            optimizer.step(lambda: (emb(lookups) ** 2).sum())
        else:
            optimizer.step()
    return emb.weight.detach().numpy(), optimizer


@pytest.mark.parametrize("name, kwargs", [
    ("SparseAdam", dict(lr=0.1)),
    ("SparseAdam", dict(lr=0.1, betas=(0.8, 0.9), maximize=True)),
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5, maximize=True)),
    ("LBFGS", dict(lr=0.1)),
])
def test_updates_from_sparse_gradients_match_torch(name, kwargs):
    ember_weight, ember_optimizer = train(ember, name, **kwargs)
    torch_weight, torch_optimizer = train(torch, name, **kwargs)
    np.testing.assert_allclose(ember_weight, torch_weight, rtol=1e-5, atol=1e-6)
    if kwargs.get("momentum"):
        for optimizer in (ember_optimizer, torch_optimizer):
            buffer = next(iter(optimizer.state.values()))["momentum_buffer"]
            assert buffer.is_sparse


def test_sparse_adam_skips_the_padding_row_like_torch():
    e, _ = train(ember, "SparseAdam", padding_idx=4, lr=0.1)
    t, _ = train(torch, "SparseAdam", padding_idx=4, lr=0.1)
    np.testing.assert_allclose(e, t, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(e[4], TABLE[4])


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adadelta", "Adamax", "NAdam",
                                  "RAdam", "ASGD", "Rprop", "Adafactor"])
def test_other_optimizers_refuse_sparse_gradients(name):
    check_error(lambda lib: train(lib, name, steps=1, lr=0.1), RuntimeError,
                f"^{'Adam' if name == 'AdamW' else name} does not support sparse gradients")


@pytest.mark.parametrize("name, kwargs, match", [
    ("SGD", dict(lr=0.1, weight_decay=0.1),
     r"^add\(sparse, dense\) is not supported. Use add\(dense, sparse\) instead."),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1),
     "^weight_decay option is not compatible with sparse gradients"),
])
def test_weight_decay_with_sparse_gradients_is_refused_like_torch(name, kwargs, match):
    check_error(lambda lib: train(lib, name, steps=1, **kwargs), RuntimeError, match)


def test_sparse_adam_refuses_dense_gradients_and_sparse_params():
    def dense_step(lib):
        emb = lib.nn.Embedding(5, 3)
        optimizer = lib.optim.SparseAdam(emb.parameters())
        emb(lib.tensor([1, 2])).sum().backward()
        optimizer.step()
    check_error(dense_step, RuntimeError,
                "^SparseAdam does not support dense gradients, please consider Adam instead")
    check_error(lambda lib: lib.optim.SparseAdam([lib.ones(2, 2).to_sparse()]), ValueError,
                r"^Sparse params at indices \[\[0, 0\]\]: SparseAdam requires dense parameter "
                "tensors")


def test_zero_grad_keeps_or_drops_a_sparse_gradient_like_torch():
    for lib in (torch, ember):
        emb = lib.nn.Embedding(5, 3, sparse=True)
        optimizer = lib.optim.SGD(emb.parameters(), lr=0.1)
        emb(lib.tensor([1, 2])).sum().backward()
        optimizer.zero_grad(set_to_none=False)
        assert emb.weight.grad.is_sparse and emb.weight.grad._nnz() == 0
        optimizer.zero_grad()
        assert emb.weight.grad is None


def test_clip_grad_norm_of_sparse_gradients_is_refused():
    """torch has no norm for sparse tensors either (NotImplementedError in both)."""
    for lib in (torch, ember):
        emb = lib.nn.Embedding(5, 3, sparse=True)
        emb(lib.tensor([1, 2])).sum().backward()
        with pytest.raises(NotImplementedError, match="^Could not run 'aten::linalg_vector_norm'"
                           " with arguments from the 'SparseCPU' backend"):
            lib.nn.utils.clip_grad_norm_(emb.parameters(), 0.5)
