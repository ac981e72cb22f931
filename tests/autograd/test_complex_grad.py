"""Gradients through complex tensors follow torch's convention: for a real loss L of z,
z.grad = dL/dRe(z) + i dL/dIm(z), i.e. the incoming gradient times the conjugate derivative
for holomorphic ops. Compared with torch on identical complex inputs."""
import numpy as np
import pytest
import torch

import ember
from oracle import rng


def complex_pair(shape=(3, 3), seed=0, dtype=np.complex128):
    r = rng(seed)
    return [(r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dtype)
            for _ in range(2)]


def hermitian_pd(lib, a):
    return a @ a.mH + 3 * lib.eye(3, dtype=a.dtype)


# Each maps (lib, a, b) to a real scalar loss; a and b are complex (3, 3) leaves.
LOSSES = {
    "mul": lambda L, a, b: (a * b).abs().sum(),
    "div": lambda L, a, b: (a / b).abs().sum(),
    "pow": lambda L, a, b: (a ** 2 + a ** b).abs().sum(),
    "matmul": lambda L, a, b: (a @ b).abs().sum(),
    "mm": lambda L, a, b: L.mm(a, b).abs().sum(),
    "bmm": lambda L, a, b: L.bmm(a[None], b[None]).abs().sum(),
    "einsum": lambda L, a, b: L.einsum("ij,jk->ik", a, b).abs().sum(),
    "tensordot": lambda L, a, b: L.tensordot(a, b, 1).abs().sum(),
    "kron": lambda L, a, b: L.kron(a, b).abs().sum(),
    "outer": lambda L, a, b: L.outer(a[0], b[0]).abs().sum(),
    "addmm": lambda L, a, b: L.addmm(a, a, b).abs().sum(),
    "addcmul": lambda L, a, b: L.addcmul(a, a, b).abs().sum(),
    "linear": lambda L, a, b: L.nn.functional.linear(a, b, a[0]).abs().sum(),
    "unary_chain": lambda L, a, b: (a.exp() * a.sin() + a.tanh() + a.sigmoid() + a.sqrt()
                                    + a.log() + a.reciprocal() + a.rsqrt() + a.square()
                                    - b).abs().sum(),
    "prod_cumprod": lambda L, a, b: ((a.prod(0) * b[0]).abs().sum()
                                     + (a.cumprod(1) * b).abs().sum()),
    "sum_mean_expand": lambda L, a, b: (a.sum(0, keepdim=True) * b + a.mean()).abs().sum(),
    "real_imag": lambda L, a, b: (a.real * 2 + (a * b).imag * 3).sum(),
    "conj": lambda L, a, b: (a.conj() * b).abs().sum(),
    "angle": lambda L, a, b: (a * b).angle().sum(),
    "sgn": lambda L, a, b: (a.sgn() * b).abs().sum(),
    "norms": lambda L, a, b: (L.linalg.vector_norm(a) + L.linalg.vector_norm(b, 1)
                              + L.linalg.vector_norm(a * b, float("inf"))
                              + L.linalg.vector_norm(b, 3) + L.linalg.matrix_norm(a)),
    "inv_det_solve": lambda L, a, b: ((L.linalg.inv(a) * b).abs().sum()
                                      + L.linalg.det(a).abs() + L.linalg.solve(a, b).abs().sum()),
    "matrix_exp": lambda L, a, b: (L.linalg.matrix_exp(a * 0.3) * b).abs().sum(),
    "fft": lambda L, a, b: (L.fft.fft(a) * b).abs().sum(),
    "real_operand": lambda L, a, b: (a * b.real).abs().sum() + (a.real * b).abs().sum(),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_gradient_matches_torch(name, dtype):
    arrays = complex_pair(dtype=dtype)
    grads = {}
    for lib in (torch, ember):
        a, b = (lib.tensor(x, requires_grad=True) for x in arrays)
        LOSSES[name](lib, a, b).backward()
        grads[lib] = [t.grad.resolve_conj().numpy() if lib is torch else t.grad.numpy()
                      for t in (a, b)]
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    for e, t in zip(grads[ember], grads[torch]):
        assert e.dtype == t.dtype
        np.testing.assert_allclose(e, t, rtol=tol, atol=tol)


def test_double_backward_through_complex_ops():
    arrays = complex_pair(seed=1)
    results = {}
    for lib in (torch, ember):
        a, b = (lib.tensor(x, requires_grad=True) for x in arrays)
        loss = (a * b.conj() + a.exp()).abs().sum()
        (ga,) = lib.autograd.grad(loss, a, create_graph=True)
        (ga.abs() ** 2).sum().backward()
        results[lib] = [t.grad.resolve_conj().numpy() if lib is torch else t.grad.numpy()
                        for t in (a, b)]
    for e, t in zip(results[ember], results[torch]):
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-9)


def test_grad_fn_names_of_the_complex_parts():
    a = complex_pair()[0]
    for lib in (torch, ember):
        z = lib.tensor(a, requires_grad=True)
        assert z.conj().grad_fn.name() == "ConjBackward0"
        assert z.real.grad_fn.name() == z.imag.grad_fn.name() == "SelectBackward0"
        assert z.angle().grad_fn.name() == "AngleBackward0"


@pytest.mark.parametrize("name, call", [
    ("linalg.slogdet", lambda L, a: L.linalg.slogdet(a)),
    ("linalg.cholesky", lambda L, a: L.linalg.cholesky(hermitian_pd(L, a))),
    ("linalg.eigh", lambda L, a: L.linalg.eigh(hermitian_pd(L, a))),
    ("linalg.svdvals", lambda L, a: L.linalg.svdvals(a)),
    ("linalg.svd", lambda L, a: L.linalg.svd(a)),
    ("linalg.qr", lambda L, a: L.linalg.qr(a)),
    ("linalg.pinv", lambda L, a: L.linalg.pinv(a)),
])
def test_gradients_not_written_for_complex_inputs_are_refused(name, call):
    """Rules derived for real matrices only: a clear error instead of a wrong gradient
    (the forward alone still works)."""
    a = ember.tensor(complex_pair()[0], requires_grad=True)
    with pytest.raises(NotImplementedError, match=f"^ember does not differentiate {name} of "
                                                  "complex tensors"):
        call(ember, a)
    with ember.no_grad():
        call(ember, a)
