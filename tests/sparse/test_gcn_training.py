"""A two-layer graph convolutional network (as tests/programs/gcn.py, without dropout)
trains the same on ember as on torch: sparse normalised adjacency @ dense features,
identical graph and initial weights, the same losses and weights after several Adam
steps."""
import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

NODES, FEATURES, HIDDEN, CLASSES = 60, 12, 8, 3


def graph(rng: np.random.Generator):
    """Edges (2 x E, symmetric, with self-loops), their D^-1/2 (A + I) D^-1/2 weights,
    node features and labels."""
    src = rng.integers(0, NODES, 150)
    dst = rng.integers(0, NODES, 150)
    edges = np.unique(np.concatenate([np.stack([src, dst]), np.stack([dst, src]),
                                      np.stack([np.arange(NODES)] * 2)], axis=1), axis=1)
    degree = np.bincount(edges[0], minlength=NODES).astype(np.float32)
    weights = (degree[edges[0]] * degree[edges[1]]) ** -0.5
    return edges, weights, rng.random((NODES, FEATURES), np.float32), \
        rng.integers(0, CLASSES, NODES)


def train(lib, edges, weights, features, labels, kernels, steps: int):
    adj = lib.sparse_coo_tensor(lib.tensor(edges), lib.tensor(weights), (NODES, NODES))
    x = lib.tensor(features)
    params = [lib.tensor(k, requires_grad=True) for k in kernels]
    optimizer = lib.optim.Adam(params, lr=0.05, weight_decay=5e-4)
    target = lib.tensor(labels)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        hidden = lib.relu(lib.spmm(adj, x @ params[0]))
        logits = lib.sparse.mm(adj, hidden @ params[1])
        loss = lib.nn.functional.cross_entropy(logits, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, [p.detach().numpy() for p in params]


def test_gcn_losses_and_weights_match_torch():
    rng = np.random.default_rng(0)
    data = graph(rng)
    kernels = [rng.standard_normal((FEATURES, HIDDEN)).astype(np.float32) * 0.3,
               rng.standard_normal((HIDDEN, CLASSES)).astype(np.float32) * 0.3]
    ember_losses, ember_weights = train(ember, *data, kernels, steps=6)
    torch_losses, torch_weights = train(torch, *data, kernels, steps=6)
    np.testing.assert_allclose(ember_losses, torch_losses, rtol=1e-5)
    assert ember_losses[-1] < ember_losses[0]
    for e, t in zip(ember_weights, torch_weights):
        np.testing.assert_allclose(e, t, rtol=1e-4, atol=1e-5)


def test_gcn_with_a_trainable_sparse_adjacency_matches_torch():
    """Edge weights as a sparse leaf: its gradient through torch.sparse.mm is sparse, on
    the adjacency's pattern, in both."""
    edges, weights, features, _ = graph(np.random.default_rng(1))
    grads = {}
    for lib in (torch, ember):
        adj = lib.sparse_coo_tensor(lib.tensor(edges), lib.tensor(weights), (NODES, NODES),
                                    requires_grad=True)
        out = lib.sparse.mm(adj, lib.sparse.mm(adj, lib.tensor(features)))
        (out ** 2).sum().backward()
        assert adj.grad.layout is lib.sparse_coo
        grads[lib] = adj.grad.coalesce()
    np.testing.assert_array_equal(grads[ember].indices().numpy(), grads[torch].indices().numpy())
    np.testing.assert_allclose(grads[ember].values().numpy(), grads[torch].values().numpy(),
                               rtol=1e-5)
