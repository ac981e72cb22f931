"""Matrix products (ember/ops/linalg.py) and torch.linalg (ember/linalg.py) against torch."""
import numpy as np
import pytest
import torch

import ember
from tests.oracle import check, check_error

FLOATS = ["float32", "float64"]


def spd(n, batch=()):
    """A symmetric positive-definite matrix (as an array)."""
    a = np.random.default_rng(3).standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def well_conditioned(n, batch=()):
    a = np.random.default_rng(4).standard_normal(batch + (n, n))
    return a + 3 * n * np.eye(n)


def grad_fn_name(t):
    return type(t.grad_fn).__name__ if isinstance(t, torch.Tensor) else t.grad_fn.name()


# ---------------------------------------------------------------- products
PRODUCTS = [
    ("addmm", lambda L, m, a, b: L.addmm(m, a, b), (3, 5), (3, 4), (4, 5)),
    ("addmm_bcast", lambda L, m, a, b: L.addmm(m, a, b, beta=0.5, alpha=2), (5,), (3, 4), (4, 5)),
    ("addmm_beta0", lambda L, m, a, b: L.addmm(m, a, b, beta=0), (3, 5), (3, 4), (4, 5)),
    ("addmm_method", lambda L, m, a, b: m.addmm(a, b, alpha=-1), (3, 5), (3, 4), (4, 5)),
    ("addmv", lambda L, m, a, v: L.addmv(m, a, v, beta=2), (3,), (3, 4), (4,)),
    ("addmv_scalar", lambda L, m, a, v: L.addmv(m, a, v), (), (3, 4), (4,)),
    ("addr", lambda L, m, u, v: L.addr(m, u, v, alpha=3), (3, 4), (3,), (4,)),
    ("baddbmm", lambda L, m, a, b: L.baddbmm(m, a, b, beta=0.5), (2, 3, 5), (2, 3, 4), (2, 4, 5)),
    ("baddbmm_bcast", lambda L, m, a, b: L.baddbmm(m, a, b), (3, 5), (2, 3, 4), (2, 4, 5)),
    ("addbmm", lambda L, m, a, b: L.addbmm(m, a, b, alpha=0.5), (3, 5), (2, 3, 4), (2, 4, 5)),
    ("outer", lambda L, u, v: L.outer(u, v), (3,), (4,)),
    ("ger", lambda L, u, v: L.ger(u, v), (3,), (4,)),
    ("dot", lambda L, u, v: L.dot(u, v), (5,), (5,)),
    ("vdot", lambda L, u, v: L.vdot(u, v), (5,), (5,)),
    ("inner", lambda L, a, b: L.inner(a, b), (2, 3), (4, 3)),
    ("inner_1d", lambda L, a, b: L.inner(a, b), (3,), (3,)),
    ("inner_3d", lambda L, a, b: L.inner(a, b), (2, 1, 3), (3,)),
    ("inner_scalar", lambda L, a, b: L.inner(a, b), (), (2, 3)),
    ("mv", lambda L, a, v: L.mv(a, v), (3, 4), (4,)),
    ("tensordot_int", lambda L, a, b: L.tensordot(a, b, 2), (2, 3, 4), (3, 4, 5)),
    ("tensordot_0", lambda L, a, b: L.tensordot(a, b, 0), (2, 3), (4,)),
    ("tensordot_lists", lambda L, a, b: L.tensordot(a, b, ([0, 2], [1, 0])), (2, 3, 4),
     (4, 2, 5)),
    ("kron", lambda L, a, b: L.kron(a, b), (2, 3), (4, 2)),
    ("kron_mixed_rank", lambda L, a, b: L.kron(a, b), (2,), (2, 3, 2)),
    ("cross", lambda L, a, b: L.cross(a, b, dim=1), (2, 3, 4), (2, 3, 4)),
    ("cross_default", lambda L, a, b: L.cross(a, b), (4, 3), (4, 3)),
    ("linalg_cross", lambda L, a, b: L.linalg.cross(a, b), (2, 3), (1, 3)),
    ("trace", lambda L, a: L.trace(a), (4, 4)),
    ("trace_rect", lambda L, a: a.trace(), (3, 5)),
    ("diag_vec", lambda L, v: L.diag(v), (4,)),
    ("diag_vec_k", lambda L, v: L.diag(v, 2), (3,)),
    ("diag_vec_neg_k", lambda L, v: L.diag(v, -1), (3,)),
    ("diag_mat", lambda L, a: L.diag(a), (3, 5)),
    ("diag_mat_k", lambda L, a: a.diag(1), (4, 3)),
    ("diag_mat_neg_k", lambda L, a: L.diag(a, -2), (4, 3)),
    ("chain_matmul", lambda L, a, b, c: L.chain_matmul(a, b, c), (2, 3), (3, 4), (4, 2)),
    ("multi_dot", lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), (2, 3), (3, 4), (4, 2)),
    ("multi_dot_vectors", lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), (3,), (3, 4), (4,)),
    ("cdist", lambda L, a, b: L.cdist(a, b), (5, 3), (4, 3)),
    ("cdist_batched", lambda L, a, b: L.cdist(a, b), (2, 5, 3), (2, 4, 3)),
    ("cdist_p1", lambda L, a, b: L.cdist(a, b, p=1), (5, 3), (4, 3)),
    ("cdist_p3", lambda L, a, b: L.cdist(a, b, p=3), (5, 3), (4, 3)),
    ("cdist_inf", lambda L, a, b: L.cdist(a, b, p=float("inf")), (5, 3), (4, 3)),
]
PRODUCTS = [(p[0], p[1], p[2:]) for p in PRODUCTS]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,fn,shapes", PRODUCTS, ids=[p[0] for p in PRODUCTS])
def test_products(name, fn, shapes, dtype):
    check(fn, *shapes, dtype=dtype)


NON_CONTIGUOUS = [p for p in PRODUCTS if all(len(s) >= 2 for s in p[2])]


@pytest.mark.parametrize("name,fn,shapes", NON_CONTIGUOUS, ids=[p[0] for p in NON_CONTIGUOUS])
def test_products_non_contiguous(name, fn, shapes):
    check(fn, *shapes, non_contiguous=True)


@pytest.mark.parametrize("name,fn,shapes", PRODUCTS, ids=[p[0] for p in PRODUCTS])
def test_grad_fn_names(name, fn, shapes):
    inputs = [np.random.default_rng(0).standard_normal(s).astype("float32")
              if isinstance(s, tuple) else s.astype("float32") for s in shapes]
    names = []
    for lib in (torch, ember):
        tensors = [lib.from_numpy(a.copy()).requires_grad_() for a in inputs]
        names.append(grad_fn_name(fn(lib, *tensors)))
    assert names[1] == names[0]


def test_cdist_identical_points_has_zero_grad():
    x = np.array([[0.0, 1.0], [2.0, 3.0]])
    check(lambda L, a, b: L.cdist(a, b), x, x.copy(), dtype="float64")


def test_addmm_beta0_ignores_nan():
    m = np.full((2, 2), np.nan)
    check(lambda L, m, a, b: L.addmm(m, a, b, beta=0), m, (2, 3), (3, 2), dtype="float64")


def test_addmm_inplace():
    check(lambda L, m, a, b: m.clone().addmm_(a, b, beta=2), (3, 5), (3, 4), (4, 5))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_products(dtype):
    check(lambda L, m, a, b: L.addmm(m, a, b), (3, 5), (3, 4), (4, 5), dtype=dtype)
    check(lambda L, a, b: L.einsum("bij,bjk->bik", a, b), (2, 3, 4), (2, 4, 5), dtype=dtype)


# ---------------------------------------------------------------- matmul naming
@pytest.mark.parametrize("s1,s2", [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)),
                                   ((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)),
                                   ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                                   ((4,), (2, 4, 5)), ((2, 3, 4), (4,)),
                                   ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul(s1, s2):
    check(lambda L, a, b: L.matmul(a, b), s1, s2)
    check(lambda L, a, b: a @ b, s1, s2, dtype="float64")
    test_grad_fn_names("matmul", lambda L, a, b: L.matmul(a, b), (s1, s2))


@pytest.mark.parametrize("s1,s2", [((2, 3, 4, 5), (5, 6)), ((3, 2, 4), (4, 2)),
                                   ((0, 3, 4), (4, 5)), ((2, 0, 4), (4, 5))])
@pytest.mark.parametrize("non_contiguous", [False, True])
def test_matmul_stack_times_matrix(s1, s2, non_contiguous):
    """A stack times one matrix runs as one GEMM over the stack's rows."""
    check(lambda L, a, b: L.matmul(a, b), s1, s2, non_contiguous=non_contiguous)
    check(lambda L, a, b: a @ b, s1, s2, dtype="float64", non_contiguous=non_contiguous)


def test_mm_bmm_names():
    test_grad_fn_names("bmm", lambda L, a, b: L.bmm(a, b), ((2, 3, 4), (2, 4, 5)))
    test_grad_fn_names("mm", lambda L, a, b: L.mm(a, b), ((3, 4), (4, 5)))


# ---------------------------------------------------------------- einsum
EINSUM = [
    ("ij,jk->ik", (3, 4), (4, 5)),
    ("ij,jk", (3, 4), (4, 5)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    ("i,i->", (4,), (4,)),
    ("i,j->ij", (3,), (4,)),
    ("ij->ji", (3, 4)),
    ("ij->j", (3, 4)),
    ("ii->i", (4, 4)),
    ("ii", (4, 4)),
    ("iij->j", (3, 3, 2)),
    ("ij,ij->ij", (3, 4), (3, 4)),
    ("ij,ij->", (3, 4), (3, 4)),
    ("...ij,...jk", (2, 3, 4), (4, 5)),
    ("...ij,...jk->...ik", (2, 1, 3, 4), (5, 4, 2)),
    ("b...,b...->b", (2, 3, 4), (2, 3, 4)),
    ("ij,jk,kl->il", (2, 3), (3, 4), (4, 5)),
    ("bn,anm,bm->ba", (2, 3), (4, 3, 5), (2, 5)),
    ("ij,kj->ik", (3, 1), (4, 5)),
    ("Ab,bc->Ac", (3, 4), (4, 2)),
    ("ijk->", (2, 3, 4)),
    ("i,jk->ijk", (2,), (3, 4)),
    ("ij,j", (3, 4), (4,)),
]
EINSUM = [(e[0], e[1:]) for e in EINSUM]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("equation,shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum(equation, shapes, dtype):
    check(lambda L, *ops: L.einsum(equation, *ops), *shapes, dtype=dtype)


@pytest.mark.parametrize("equation,shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum_grad_fn_name(equation, shapes):
    test_grad_fn_names(equation, lambda L, *ops: L.einsum(equation, *ops), shapes)


def test_einsum_list_and_sublist_forms():
    check(lambda L, a, b: L.einsum("ij,jk", [a, b]), (3, 4), (4, 5))
    check(lambda L, a, b: L.einsum(a, [0, 1], b, [1, 2], [0, 2]), (3, 4), (4, 5))
    check(lambda L, a, b: L.einsum(a, [Ellipsis, 0], b, [Ellipsis, 0]), (2, 3), (2, 3))


def test_einsum_double_backward():
    check(lambda L, a, b: L.autograd.grad(L.einsum("ij,jk->", a, b) ** 2, a,
                                          create_graph=True)[0], (3, 4), (4, 5),
          dtype="float64")


def test_einsum_integers():
    a = np.arange(6).reshape(2, 3)
    check(lambda L, a: L.einsum("ij->j", a), a, grad=False)


# ---------------------------------------------------------------- torch.linalg
LINALG = [
    ("vector_norm", lambda L, a: L.linalg.vector_norm(a), (3, 4)),
    ("vector_norm_1_dim", lambda L, a: L.linalg.vector_norm(a, 1, dim=1), (3, 4)),
    ("vector_norm_3_keepdim", lambda L, a: L.linalg.vector_norm(a, 3, 0, True), (3, 4)),
    ("vector_norm_inf", lambda L, a: L.linalg.vector_norm(a, float("inf"), -1), (3, 4)),
    ("norm_default", lambda L, a: L.linalg.norm(a), (2, 3, 4)),
    ("norm_vec_ord", lambda L, a: L.linalg.norm(a, 3), (5,)),
    ("norm_matrix_ord1", lambda L, a: L.linalg.norm(a, 1), (3, 4)),
    ("norm_dim_pair", lambda L, a: L.linalg.norm(a, dim=(0, 2)), (2, 3, 4)),
    ("matrix_norm_fro", lambda L, a: L.linalg.matrix_norm(a), (2, 3, 4)),
    ("matrix_norm_nuc", lambda L, a: L.linalg.matrix_norm(a, "nuc"), (2, 3, 4)),
    ("matrix_norm_2", lambda L, a: L.linalg.matrix_norm(a, 2), (3, 4)),
    ("matrix_norm_-2", lambda L, a: L.linalg.matrix_norm(a, -2), (4, 3)),
    ("matrix_norm_inf_keepdim", lambda L, a: L.linalg.matrix_norm(a, float("inf"),
                                                                  keepdim=True), (2, 3, 4)),
    ("matrix_norm_-1_dims", lambda L, a: L.linalg.matrix_norm(a, -1, dim=(2, 0)), (2, 3, 4)),
    ("inv", lambda L, a: L.linalg.inv(a), well_conditioned(4)),
    ("inv_batched", lambda L, a: L.linalg.inv(a), well_conditioned(3, (2,))),
    ("inverse", lambda L, a: L.inverse(a), well_conditioned(3)),
    ("det", lambda L, a: L.linalg.det(a), (4, 4)),
    ("det_batched", lambda L, a: L.det(a), (2, 3, 3)),
    ("slogdet", lambda L, a: L.linalg.slogdet(a), (2, 4, 4)),
    ("logabsdet", lambda L, a: L.linalg.slogdet(a)[1], (3, 3)),
    ("solve", lambda L, a, b: L.linalg.solve(a, b), well_conditioned(3), (3, 2)),
    ("solve_vector", lambda L, a, b: L.linalg.solve(a, b), well_conditioned(3), (3,)),
    ("solve_batched_vector", lambda L, a, b: L.linalg.solve(a, b), well_conditioned(3, (2,)),
     (2, 3)),
    ("solve_bcast", lambda L, a, b: L.linalg.solve(a, b), well_conditioned(3), (2, 3, 4)),
    ("solve_right", lambda L, a, b: L.linalg.solve(a, b, left=False), well_conditioned(3),
     (2, 3)),
    ("cholesky", lambda L, a: L.linalg.cholesky(a), spd(4)),
    ("cholesky_upper", lambda L, a: L.linalg.cholesky(a, upper=True), spd(3, (2,))),
    ("svdvals", lambda L, a: L.linalg.svdvals(a), (3, 5)),
    ("eigvalsh", lambda L, a: L.linalg.eigvalsh(a), spd(4)),
    ("eigh_vectors_abs", lambda L, a: L.linalg.eigh(a)[1].abs(), spd(3)),
    ("matrix_power", lambda L, a: L.linalg.matrix_power(a, 3), (3, 3)),
    ("matrix_power_neg", lambda L, a: L.linalg.matrix_power(a, -2), well_conditioned(3)),
    ("vecdot", lambda L, a, b: L.linalg.vecdot(a, b), (2, 3), (2, 3)),
]
LINALG = [(p[0], p[1], p[2:]) for p in LINALG]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,fn,inputs", LINALG, ids=[p[0] for p in LINALG])
def test_linalg(name, fn, inputs, dtype):
    check(fn, *[i.astype(dtype) if isinstance(i, np.ndarray) else i for i in inputs],
          dtype=dtype)


@pytest.mark.parametrize("name,fn,inputs", LINALG, ids=[p[0] for p in LINALG])
def test_linalg_grad_fn_names(name, fn, inputs):
    if name.startswith(("eigh_vectors", "matrix_power", "vecdot", "solve_right",
                        "cholesky_upper", "logabsdet", "slogdet", "inverse")):
        pytest.skip("the last op is an ordinary one")
    test_grad_fn_names(name, fn, inputs)


def test_linalg_double_backward():
    check(lambda L, a: L.autograd.grad(L.linalg.det(a), a, create_graph=True)[0],
          well_conditioned(3), dtype="float64")
    check(lambda L, a, b: L.autograd.grad(L.linalg.solve(a, b).sum(), a, create_graph=True)[0],
          well_conditioned(3), (3, 2), dtype="float64")


@pytest.mark.parametrize("fn", [
    lambda L, a: L.linalg.qr(a),
    lambda L, a: L.linalg.qr(a, mode="complete"),
    lambda L, a: L.linalg.svd(a, full_matrices=False)[1],
    lambda L, a: L.linalg.pinv(a),
    lambda L, a: L.linalg.eigh(a @ a.mT)[0],
])
def test_decompositions_forward(fn):
    check(fn, (4, 3), dtype="float64", grad=False)


def test_svd_reconstructs():
    a = ember.randn(2, 4, 3, dtype=ember.float64)
    U, S, Vh = ember.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(((U * S.unsqueeze(-2)) @ Vh).numpy(), a.numpy(), atol=1e-10)


@pytest.mark.parametrize("a,kwargs", [
    (np.diag([1.0, 1e-9, 0.0]), {}),
    (np.ones((3, 4)), {}),
    (np.diag([1.0, 0.1, 0.01]), {"rtol": 0.05}),
    (np.diag([1.0, 0.1, 0.01]), {"atol": 0.5}),
    (spd(3, (2,)), {"hermitian": True}),
])
def test_matrix_rank(a, kwargs):
    check(lambda L, a: L.linalg.matrix_rank(a, **kwargs), a, dtype="float64", grad=False)


# ---------------------------------------------------------------- errors
ERRORS = [
    (lambda L: L.dot(L.ones(2, 3), L.ones(3)), "1D tensors expected, but got 2D and 1D"),
    (lambda L: L.dot(L.ones(3), L.ones(4)), "inconsistent tensor size, expected tensor"),
    (lambda L: L.dot(L.ones(3), L.ones(3, dtype=L.float64)),
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda L: L.einsum("ij,jk->ik", L.ones(2, 3)), "einsum\\(\\): fewer operands"),
    (lambda L: L.einsum("ij->ij", L.ones(2, 3, 4)), "einsum\\(\\): the number of subscripts"),
    (lambda L: L.einsum("ij,jk->ik", L.ones(2, 3), L.ones(4, 5)),
     "einsum\\(\\): subscript j has size 4 for operand 1"),
    (lambda L: L.einsum("ij->k", L.ones(2, 3)), "einsum\\(\\): output subscript k"),
    (lambda L: L.mv(L.ones(2, 3), L.ones(4)), "size mismatch, got input \\(2\\)"),
    (lambda L: L.addmm(L.ones(2, 2), L.ones(2, 3), L.ones(4, 2)),
     "mat1 and mat2 shapes cannot be multiplied \\(2x3 and 4x2\\)"),
    (lambda L: L.trace(L.ones(2, 2, 2)), "trace: expected a matrix"),
    (lambda L: L.diag(L.ones(2, 2, 2)), "diag\\(\\): Supports 1D or 2D tensors. Got 3D"),
    (lambda L: L.cross(L.ones(2, 4), L.ones(2, 4), dim=1),
     "linalg.cross: inputs dimension 1 must have length 3"),
    (lambda L: L.outer(L.ones(2, 2), L.ones(2)), "outer: Expected 1-D argument self"),
    (lambda L: L.tensordot(L.ones(2, 3), L.ones(4, 5), 1),
     "contracted dimensions need to match"),
    (lambda L: L.cdist(L.ones(2, 3), L.ones(4, 5)), "X1 and X2 must have the same number"),
    (lambda L: L.linalg.multi_dot([L.ones(2, 3)]), "multi_dot\\(\\): expected at least 2"),
    (lambda L: L.linalg.inv(L.zeros(3, 3)), "linalg.inv: The diagonal element"),
    (lambda L: L.linalg.inv(L.zeros(2, 3, 3)), "linalg.inv: \\(Batch element 0\\)"),
    (lambda L: L.linalg.inv(L.zeros(3, 2)), "linalg.inv: A must be batches of square"),
    (lambda L: L.linalg.det(L.zeros(3, 2)), "linalg.det: A must be batches of square"),
    (lambda L: L.linalg.inv(L.ones(2, 2, dtype=L.int64)),
     "linalg.inv: Expected a floating point or complex tensor as input. Got Long"),
    (lambda L: L.linalg.vector_norm(L.ones(2, dtype=L.int64)),
     "linalg.vector_norm: Expected a floating point"),
    (lambda L: L.linalg.cholesky(-L.eye(3)),
     "linalg.cholesky: The factorization could not be completed because the input is not "
     "positive-definite \\(the leading minor of order 1"),
    (lambda L: L.linalg.solve(L.zeros(3, 3), L.ones(3)),
     "linalg.solve: The solver failed because the input matrix is singular"),
]


@pytest.mark.parametrize("fn,match", ERRORS)
def test_errors(fn, match):
    check_error(fn, RuntimeError, match)


def test_linalg_error_type():
    with pytest.raises(ember.linalg.LinAlgError):
        ember.linalg.cholesky(-ember.eye(2))
