"""Core workloads: per-op overhead with autograd, a large matmul forward+backward, and the
transformer's attention and loss (nanoGPT-style shapes: batch 12, 4 heads, 64 tokens of
32 values each, a 65-token vocabulary)."""
from __future__ import annotations

import numpy as np

from .runner import compare, time_call

CHAIN = 200


def op_chain_forward(lib):
    x0 = lib.ones(4, 4, requires_grad=True)

    def step():
        x = x0
        for _ in range(CHAIN):
            x = x * 1.0001 + 0.0001
        return x
    return step, 2 * CHAIN


def op_chain_backward(lib):
    x0 = lib.ones(4, 4, requires_grad=True)

    def step():
        x = x0
        for _ in range(CHAIN):
            x = x * 1.0001 + 0.0001
        x.sum().backward()
    return step, 2 * CHAIN


def matmul_fwd_bwd(lib):
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal((1024, 1024), dtype=np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal((1024, 1024), dtype=np.float32), requires_grad=True)

    def step():
        a.grad = b.grad = None
        (a @ b).sum().backward()
    return step, 1


def attention_fwd_bwd(lib):
    """Causal scaled_dot_product_attention on (12, 4, 64, 32) queries, keys and values."""
    rng = np.random.default_rng(0)
    q, k, v = (lib.tensor(rng.standard_normal((12, 4, 64, 32), dtype=np.float32),
                          requires_grad=True) for _ in range(3))
    grad = lib.tensor(rng.standard_normal((12, 4, 64, 32), dtype=np.float32))

    def step():
        q.grad = k.grad = v.grad = None
        lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).backward(grad)
    return step, 1


def cross_entropy_fwd_bwd(lib):
    """Mean cross-entropy of (768, 65) logits with class-index targets."""
    rng = np.random.default_rng(0)
    logits = lib.tensor(rng.standard_normal((768, 65), dtype=np.float32), requires_grad=True)
    target = lib.tensor(rng.integers(0, 65, 768))

    def step():
        logits.grad = None
        lib.nn.functional.cross_entropy(logits, target, ignore_index=-1).backward()
    return step, 1


def numpy_matmul_reference() -> float:
    """NumPy's own time for the three GEMMs of a matmul forward+backward."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 1024), dtype=np.float32)
    b = rng.standard_normal((1024, 1024), dtype=np.float32)
    g = np.ones((1024, 1024), dtype=np.float32)

    def step():
        a @ b
        g @ b.T
        a.T @ g
    return time_call(step, 2.0)


def run() -> None:
    compare("op chain (x*1.0001+0.0001) forward", op_chain_forward)
    compare("op chain forward+backward", op_chain_backward)
    mm = compare("matmul 1024x1024 fwd+bwd", matmul_fwd_bwd, unit="ms", scale=1e3,
                 min_seconds=2.0)
    ref = numpy_matmul_reference() * 1e3
    print(f"{'  numpy 3x GEMM reference':<44} {ref:.2f} ms; ember/numpy {mm['ember'] / ref:.2f}")
    compare("causal attention (12,4,64,32) fwd+bwd", attention_fwd_bwd, unit="ms", scale=1e3)
    compare("cross_entropy (768,65) fwd+bwd", cross_entropy_fwd_bwd)
