"""Matrix products (ember/ops/linalg.py) and torch.linalg (ember/linalg/) against torch;
triangular solves, LU, the legacy torch.svd/qr/pinverse/matrix_power and the gradients
of linalg.svd, qr and pinv (ember/ops/triangular.py, ember/ops/lu.py)."""
import numpy as np
import pytest
import torch

import ember
from tests.oracle import check, check_error, to_ember, to_torch

FLOATS = ["float32", "float64"]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")   # torch's deprecation notes


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
    # size-1 contracted dims broadcast against the other side
    ("tensordot_broadcast", lambda L, a, b: L.tensordot(a, b, ([0, 1], [2, 0])), (1, 3, 1),
     (3, 4, 2)),
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


@pytest.mark.parametrize("n,k,p", [(32, 128, 32), (32, 32, 64), (5, 7, 3)])
def test_addmm_result_is_row_major_as_torch(n, k, p):
    """transformers' GPT-2 Conv1D is addmm(bias, x, w).view(...): ember's result came back
    column-major for some shapes, so dropout drew its mask in another order than torch."""
    r = np.random.default_rng(0)
    m, a, b = r.standard_normal(p), r.standard_normal((n, k)), r.standard_normal((k, p))
    e = ember.addmm(to_ember(m), to_ember(a), to_ember(b))
    t = torch.addmm(to_torch(m), to_torch(a), to_torch(b))
    assert e.stride() == t.stride() and e.is_contiguous()


def test_addmm_inplace():
    check(lambda L, m, a, b: m.clone().addmm_(a, b, beta=2), (3, 5), (3, 4), (4, 5))


INTEGER_ADD_PRODUCTS = [
    lambda L, m, a, b: L.addmm(m, a, b, beta=-1.7, alpha=2.9),
    lambda L, m, a, b: L.addmv(m[:, 0], a, b[:, 0], beta=0.2, alpha=0.6),
    lambda L, m, a, b: L.baddbmm(m, a[None], b[None], beta=2, alpha=1.5),
    lambda L, m, a, b: L.addbmm(m, a[None], b[None], beta=0.5, alpha=-2.5),
]


@pytest.mark.parametrize("fn", INTEGER_ADD_PRODUCTS)
def test_integer_add_products_truncate_scalars(fn):
    r = np.random.default_rng(0)
    m, a, b = (r.integers(-9, 9, shape) for shape in ((3, 4), (3, 5), (5, 4)))
    check(fn, m, a, b, grad=False)


def test_integer_addr_refuses_float_scalars():
    check_error(lambda L: L.addr(L.ones(2, 2, dtype=L.int64), L.ones(2, dtype=L.int64),
                                 L.ones(2, dtype=L.int64), alpha=0.5), RuntimeError,
                r"^For integral input tensors, argument alpha must not be a floating point")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_products(dtype):
    check(lambda L, m, a, b: L.addmm(m, a, b), (3, 5), (3, 4), (4, 5), dtype=dtype)
    check(lambda L, a, b: L.einsum("bij,bjk->bik", a, b), (2, 3, 4), (2, 4, 5), dtype=dtype)


# ---------------------------------------------------------------- matmul naming
@pytest.mark.parametrize("s1,s2", [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)),
                                   ((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)),
                                   ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                                   ((4,), (2, 4, 5)), ((2, 3, 4), (4,)),
                                   ((2, 1, 3, 4), (5, 4, 2)),
                                   ((5, 5, 0), (0, 5)), ((2, 0, 3), (3, 4))])  # empty stacks
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
    # ties (a zero matrix's singular values, equal column sums) share the subgradient
    ("matrix_norm_2_zero", lambda L, a: L.linalg.matrix_norm(a, 2), np.zeros((4, 4))),
    ("matrix_norm_-2_zero", lambda L, a: L.linalg.matrix_norm(a, -2), np.zeros((2, 3, 3))),
    ("matrix_norm_1_zero", lambda L, a: L.linalg.matrix_norm(a, 1), np.zeros((3, 4))),
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
# ember's svd/eigh backward runs in NumPy: its gradient is not differentiable again
# (no second derivatives yet).
FIRST_ORDER_ONLY = {"matrix_norm_nuc", "matrix_norm_2", "matrix_norm_-2", "svdvals", "eigvalsh",
                    "eigh_vectors_abs", "matrix_norm_2_zero", "matrix_norm_-2_zero"}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,fn,inputs", LINALG, ids=[p[0] for p in LINALG])
def test_linalg(name, fn, inputs, dtype):
    check(fn, *[i.astype(dtype) if isinstance(i, np.ndarray) else i for i in inputs],
          dtype=dtype, grad2=name not in FIRST_ORDER_ONLY)


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
    lambda L, a, b: a @ b,
    lambda L, a, b: L.einsum("ij,jk->ik", a, b),
    lambda L, a, b: L.addmm(b, a, b),
    lambda L, a, b: L.linalg.cross(a, b),
    lambda L, a, b: L.linalg.solve(a, b),
    lambda L, a, b: L.linalg.det(a),
    lambda L, a, b: L.linalg.slogdet(a).logabsdet,
    lambda L, a, b: L.linalg.pinv(a),
    lambda L, a, b: L.matrix_exp(a),
    lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
    lambda L, a, b: L.cholesky_solve(b, a),
])
def test_saved_input_modified_in_place(fn):
    """Primitives whose forward sees arrays still save their input tensors (not the
    arrays), so changing an input in place before backward raises torch's error."""
    def run(L):
        a = L.tensor(well_conditioned(3), requires_grad=True).clone()
        b = L.tensor(spd(3), requires_grad=True).clone()
        y = fn(L, a, b)
        a.add_(1)
        y.sum().backward()
    check_error(run, RuntimeError, "^one of the variables needed for gradient computation has "
                "been modified by an inplace operation")


@pytest.mark.parametrize("fn", [
    lambda L, a: L.linalg.qr(a),
    lambda L, a: L.linalg.qr(a, mode="complete"),
    lambda L, a: L.linalg.svd(a, full_matrices=False)[1],
    lambda L, a: L.linalg.pinv(a),
    lambda L, a: L.linalg.eigh(a @ a.mT)[0],
])
def test_decompositions_forward(fn):
    check(fn, (4, 3), dtype="float64", grad=False)


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (2, 0, 4), (4, 3), (3, 5), (2, 3, 3),
                                   (1, 1), (5, 1)])
def test_svd_invariants(shape, full_matrices):
    """Singular vectors' signs are not unique: compare torch's documented invariants (shapes,
    singular values, U diag(S) Vh = A, orthonormal U and Vh), not U and Vh themselves."""
    a = np.random.default_rng(0).standard_normal(shape)
    expected = torch.linalg.svd(torch.tensor(a), full_matrices=full_matrices)
    U, S, Vh = (t.numpy() for t in ember.linalg.svd(ember.tensor(a), full_matrices=full_matrices))
    assert [U.shape, S.shape, Vh.shape] == [tuple(t.shape) for t in expected]
    np.testing.assert_allclose(S, expected.S.numpy(), atol=1e-12)
    k = min(shape[-2:])
    np.testing.assert_allclose((U[..., :k] * S[..., None, :]) @ Vh[..., :k, :], a, atol=1e-12)
    np.testing.assert_allclose(U.swapaxes(-1, -2) @ U, np.eye(U.shape[-1]) + 0 * U[..., :1, :1],
                               atol=1e-12)
    np.testing.assert_allclose(Vh @ Vh.swapaxes(-1, -2), np.eye(Vh.shape[-2]) + 0 * Vh[..., :1, :1],
                               atol=1e-12)


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


# tensor tolerances broadcast against the batch; rtol's default applies where atol <= 0
RANK_BATCH = np.stack([np.diag([1.0, 0.1, 0.01]), np.diag([2.0, 0.5, 1e-20]),
                       np.diag([3.0, 0.0, 0.0])])


@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("tolerances", [
    lambda L: {"atol": L.tensor([0.05, 0.0, -1.0], dtype=L.float64)},
    lambda L: {"rtol": L.tensor(0.2, dtype=L.float64)},
    lambda L: {"atol": L.tensor([0.2], dtype=L.float64), "rtol": L.tensor([0.0, 0.3, 0.0],
                                                                         dtype=L.float64)},
    lambda L: {"atol": L.tensor(0.5, dtype=L.float64), "rtol": 0.01},
])
def test_matrix_rank_and_pinv_tensor_tolerances(tolerances, hermitian):
    check(lambda L, a: L.linalg.matrix_rank(a, hermitian=hermitian, **tolerances(L)), RANK_BATCH,
          dtype="float64", grad=False)
    check(lambda L, a: L.linalg.pinv(a, hermitian=hermitian, **tolerances(L)),
          RANK_BATCH + 0.01 * np.eye(3), dtype="float64", grad=not hermitian)


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
    (lambda L: L.matmul(L.ones(2, 3), L.ones(3, 2, dtype=L.float64)),
     "^expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda L: L.matmul(L.ones(2, 3), L.ones(3, dtype=L.float64)),
     "^addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda L: L.matmul(L.ones(2, 2, 3), L.ones(2, 3, 2, dtype=L.float64)),
     "^expected scalar type Float but found Double"),
    (lambda L: L.matmul(L.ones(()), L.ones(3)),
     "^both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
    (lambda L: L.matmul(L.ones(2, 2, 3), L.ones(2, 4, 2)),
     "^Expected size for first two dimensions of batch2 tensor to be: \\[2, 3\\] but got: "
     "\\[2, 4\\]"),
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




def triangular(shape, upper=True, seed=0):
    """A well-conditioned triangular matrix, with noise in the unused triangle (which the
    solvers must ignore)."""
    a = np.random.default_rng(seed).standard_normal(shape)
    n = shape[-1]
    return a + 3 * np.eye(n) * np.sign(np.diagonal(a, axis1=-2, axis2=-1))[..., None]


def well_conditioned_shape(shape, seed=4):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a + 3 * shape[-1] * np.eye(shape[-2], shape[-1])


def check_double_backward(fn, *arrays, dtype="float64"):
    """Second derivatives: d/dx <d fn(x)/dx, v> agree with torch's."""
    results = []
    for lib, convert in ((torch, to_torch), (ember, to_ember)):
        inputs = [convert(a.astype(dtype), requires_grad=True) for a in arrays]
        out = fn(lib, *inputs)
        grads = lib.autograd.grad(out.sum(), inputs, create_graph=True)
        total = sum((g * g).sum() for g in grads)
        results.append([g.detach().numpy() for g in lib.autograd.grad(total, inputs)])
    for e, t in zip(results[1], results[0]):
        np.testing.assert_allclose(e, t, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- triangular solves
SOLVE_TRIANGULAR = [
    ("upper", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), (3, 3), (3, 2)),
    ("lower", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False), (4, 4), (4, 1)),
    ("unit", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True, unitriangular=True),
     (3, 3), (3, 2)),
    ("right", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False, left=False),
     (3, 3), (2, 3)),
    ("right_unit", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True, left=False,
                                                             unitriangular=True),
     (3, 3), (4, 3)),
    ("broadcast", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), (2, 1, 3, 3),
     (4, 3, 2)),
    ("broadcast_A", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False), (2, 3, 3),
     (3, 5)),
    ("empty_batch", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), (0, 3, 3),
     (3, 2)),
    ("empty_rhs", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), (3, 3), (3, 0)),
    ("triangular_solve", lambda L, a, b: L.triangular_solve(b, a), (3, 3), (3, 2)),
    ("triangular_solve_lower_t", lambda L, a, b: L.triangular_solve(b, a, upper=False,
                                                                    transpose=True),
     (3, 3), (2, 3, 2)),
    ("triangular_solve_unit", lambda L, a, b: b.triangular_solve(a, unitriangular=True),
     (2, 3, 3), (3, 4)),
    ("cholesky_solve", lambda L, a, b: L.cholesky_solve(b, a), (3, 3), (3, 2)),
    ("cholesky_solve_upper", lambda L, a, b: b.cholesky_solve(a, upper=True), (3, 3),
     (2, 3, 2)),
    ("cholesky_solve_broadcast", lambda L, a, b: L.cholesky_solve(b, a), (2, 1, 3, 3),
     (4, 3, 1)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("non_contiguous", [False, True])
@pytest.mark.parametrize("name,fn,a_shape,b_shape", SOLVE_TRIANGULAR,
                         ids=[c[0] for c in SOLVE_TRIANGULAR])
def test_triangular_solves(name, fn, a_shape, b_shape, dtype, non_contiguous):
    # torch's gradient of cholesky_solve/cholesky_inverse is that of (L L^H)^-1 B for the
    # full L, also in the triangle the solver ignores; ember follows it (see CholeskySolve).
    check(fn, triangular(a_shape).astype(dtype), b_shape, dtype=dtype,
          non_contiguous=non_contiguous)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2)])
def test_cholesky_inverse(shape, upper, dtype):
    a = triangular(shape).astype(dtype)
    check(lambda L, a: L.cholesky_inverse(a, upper=upper), a, dtype=dtype)
    check(lambda L, a: a.cholesky_inverse(upper), a, dtype=dtype)


def test_cholesky_solve_inverts_spd_matrices():
    a = well_conditioned_shape((4, 4))
    A = ember.tensor(a @ a.T)
    B = ember.randn(4, 2, dtype=ember.float64)
    X = ember.cholesky_solve(B, ember.linalg.cholesky(A))
    np.testing.assert_allclose((A @ X).numpy(), B.numpy(), atol=1e-10)


def test_zero_on_the_diagonal_gives_inf_not_an_error():
    check(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
          np.triu(np.ones((3, 3))) - np.diag([0.0, 1, 1]), (3, 2), grad=False)


def test_solve_triangular_solves_in_the_dtype_of_A():
    check(lambda L, a, b: L.linalg.solve_triangular(a, b.double(), upper=True),
          triangular((3, 3)), (3, 2))


def test_triangular_solve_double_backward():
    check_double_backward(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False),
                          triangular((3, 3)), np.ones((3, 2)))


TRIANGULAR_ERRORS = [
    (lambda L: L.linalg.solve_triangular(L.randn(3, 3), L.randn(4, 2), upper=True),
     RuntimeError, r"^linalg.solve_triangular: Incompatible shapes of A and B for the equation "
     r"AX = B \(3x3 and 4x2\)"),
    (lambda L: L.linalg.solve_triangular(L.randn(3, 3), L.randn(3, 2), upper=True, left=False),
     RuntimeError, r"^linalg.solve_triangular: Incompatible shapes of A and B for the equation "
     r"XA = B \(3x3 and 3x2\)"),
    (lambda L: L.linalg.solve_triangular(L.randn(3, 3), L.randn(3), upper=True), RuntimeError,
     r"^linalg.solve_triangular: The input tensor B must have at least 2 dimensions."),
    (lambda L: L.linalg.solve_triangular(L.randn(3, 4), L.randn(3, 2), upper=True),
     RuntimeError, r"^linalg.solve_triangular: A must be batches of square matrices, but they "
     r"are 3 by 4 matrices"),
    (lambda L: L.linalg.solve_triangular(L.ones(3, 3).long(), L.ones(3, 2).long(), upper=True),
     NotImplementedError, r"^\"triangular_solve_cpu\" not implemented for 'Long'"),
    (lambda L: L.linalg.solve_triangular(L.ones(3, 3).half(), L.ones(3, 2).half(), upper=True),
     NotImplementedError, r"^\"triangular_solve_cpu\" not implemented for 'Half'"),
    (lambda L: L.triangular_solve(L.randn(3), L.randn(3, 3)), RuntimeError,
     r"^torch.triangular_solve: Expected b to have at least 2 dimensions, but it has 1 "
     r"dimensions instead"),
    (lambda L: L.triangular_solve(L.randn(3, 2).double(), L.randn(3, 3)), RuntimeError,
     r"^Expected b and A to have the same dtype, but found b of type Double and A of type Float "
     r"instead."),
    (lambda L: L.triangular_solve(L.randn(3, 2), L.randn(3, 4)), RuntimeError,
     r"^A must be batches of square matrices, but they are 3 by 4 matrices"),
    (lambda L: L.cholesky_solve(L.randn(3), L.randn(3, 3)), RuntimeError,
     r"^b should have at least 2 dimensions, but has 1 dimensions instead"),
    (lambda L: L.cholesky_solve(L.randn(3, 2), L.randn(3)), RuntimeError,
     r"^u should have at least 2 dimensions, but has 1 dimensions instead"),
    (lambda L: L.cholesky_solve(L.randn(4, 2), L.randn(3, 3)), RuntimeError,
     r"^Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b "
     r"matrix is 4 by 2"),
    (lambda L: L.cholesky_solve(L.randn(3, 2).double(), L.randn(3, 3)), RuntimeError,
     r"^Expected b and A to have the same dtype, but found b of type Double and A of type "
     r"Float instead."),
    (lambda L: L.cholesky_solve(L.ones(3, 2).long(), L.ones(3, 3).long()), NotImplementedError,
     r"^\"cholesky_solve_cpu\" not implemented for 'Long'"),
    (lambda L: L.cholesky_inverse(L.randn(3)), RuntimeError,
     r"^cholesky_inverse: The input tensor A must have at least 2 dimensions."),
    (lambda L: L.cholesky_inverse(L.randn(3, 4)), RuntimeError,
     r"^cholesky_inverse: A must be batches of square matrices, but they are 3 by 4 matrices"),
    (lambda L: L.cholesky_inverse(L.ones(3, 3).long()), NotImplementedError,
     r"^\"cholesky_inverse_out_cpu\" not implemented for 'Long'"),
]


@pytest.mark.parametrize("fn,error,match", TRIANGULAR_ERRORS)
def test_triangular_errors(fn, error, match):
    check_error(fn, error, match)


def test_complex_gradients_are_refused():
    a = ember.eye(2, dtype=ember.complex64).requires_grad_()
    with pytest.raises(NotImplementedError, match="complex"):
        ember.linalg.solve_triangular(a, ember.ones(2, 1, dtype=ember.complex64), upper=True)


# ---------------------------------------------------------------- LU
LU_SHAPES = [(3, 3), (2, 4, 4), (5, 3), (3, 5), (2, 5, 3), (2, 3, 5), (1, 1), (0, 3, 3),
             (3, 0), (2, 0, 0)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", LU_SHAPES)
def test_lu_factor(shape, dtype):
    check(lambda L, a: L.linalg.lu_factor(a), shape, dtype=dtype)
    check(lambda L, a: L.linalg.lu_factor_ex(a), shape, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", LU_SHAPES)
def test_lu_and_unpack(shape, dtype):
    check(lambda L, a: L.linalg.lu(a), shape, dtype=dtype, non_contiguous=True)
    check(lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)), shape, dtype=dtype)


@pytest.mark.parametrize("unpack_data,unpack_pivots", [(False, True), (True, False)])
def test_lu_unpack_parts(unpack_data, unpack_pivots):
    # torch 2.13 fails in backward through the empty L and U of unpack_data=False
    # ("triu: input tensor must have at least 2 dimensions"); compare values only there.
    check(lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a), unpack_data, unpack_pivots),
          (2, 4, 3), grad=unpack_data)


def test_lu_unpack_without_data_has_a_zero_gradient():
    a = ember.randn(3, 3, requires_grad=True)
    _, L, U = ember.lu_unpack(*ember.linalg.lu_factor(a), unpack_data=False)
    assert L.requires_grad and tuple(L.shape) == (0,)
    (L.sum() + U.sum()).backward()
    assert np.all(a.grad.numpy() == 0)


@pytest.mark.parametrize("get_infos", [False, True])
def test_legacy_lu(get_infos):
    check(lambda L, a: L.lu(a, get_infos=get_infos), (2, 3, 3))
    check(lambda L, a: a.lu(get_infos=get_infos), (4, 3))


def test_lu_of_singular_matrices_completes_with_info():
    singular = np.array([[[0.0, 0, 0], [0, 0, 0], [0, 0, 0]],
                         [[1.0, 2, 3], [2, 4, 6], [1, 0, 1]]])
    check(lambda L, a: L.linalg.lu_factor_ex(a), singular, dtype="float64")
    check(lambda L, a: L.linalg.lu(a), singular, dtype="float64", grad=False)
    check(lambda L, a: L.lu(a, get_infos=True), singular, dtype="float64", grad=False)


def test_lu_pivots_follow_lapack_ties():
    # Equal magnitudes: LAPACK takes the first row with the largest |value|.
    check(lambda L, a: L.linalg.lu_factor(a), np.array([[1.0, 2], [-1, 3], [1, 1]]),
          dtype="float64")


def test_lu_double_backward():
    for shape in [(3, 3), (4, 2), (2, 4)]:
        check_double_backward(lambda L, a: L.linalg.lu(a).U * L.linalg.lu(a).L.sum(),
                              well_conditioned_shape(shape))


LU_SOLVE = [
    ("left", dict(), (3, 3), (3, 2)),
    ("adjoint", dict(adjoint=True), (3, 3), (3, 2)),
    ("right", dict(left=False), (3, 3), (2, 3)),
    ("right_adjoint", dict(left=False, adjoint=True), (3, 3), (4, 3)),
    ("broadcast", dict(), (2, 1, 4, 4), (3, 4, 2)),
    ("broadcast_adjoint", dict(adjoint=True), (2, 4, 4), (4, 1)),
    ("empty", dict(), (0, 3, 3), (3, 2)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,kwargs,a_shape,b_shape", LU_SOLVE, ids=[c[0] for c in LU_SOLVE])
def test_lu_solve(name, kwargs, a_shape, b_shape, dtype):
    check(lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, **kwargs),
          well_conditioned_shape(a_shape).astype(dtype), b_shape, dtype=dtype, non_contiguous=True)


@pytest.mark.parametrize("dtype", FLOATS)
def test_legacy_lu_solve(dtype):
    check(lambda L, a, b: L.lu_solve(b, *L.linalg.lu_factor(a)), (2, 3, 3), (2, 3, 2),
          dtype=dtype)
    check(lambda L, a, b: b.lu_solve(*a.lu()), (3, 3), (3, 4), dtype=dtype)


LU_ERRORS = [
    (lambda L: L.linalg.lu_factor(L.zeros(2, 3, 3)), RuntimeError,
     r"^torch.linalg.lu_factor: \(Batch element 0\): U\[1,1\] is zero and using it on "
     r"lu_solve would result in a division by zero. If you still want"),
    (lambda L: L.linalg.lu_factor(L.tensor([[1.0, 2], [2, 4]])), RuntimeError,
     r"^torch.linalg.lu_factor: U\[2,2\] is zero and using it on lu_solve"),
    (lambda L: L.linalg.lu_factor_ex(L.tensor([[1.0, 2], [2, 4]]), check_errors=True),
     RuntimeError, r"^torch.linalg.lu_factor_ex: U\[2,2\] is zero and using it on lu_solve"),
    (lambda L: L.linalg.lu_factor(L.randn(3)), RuntimeError,
     r"^torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: \[3\] instead"),
    (lambda L: L.linalg.lu_factor(L.ones(3, 3).long()), NotImplementedError,
     r"^\"lu_cpu\" not implemented for 'Long'"),
    (lambda L: L.linalg.lu_factor(L.randn(3, 3), pivot=False), RuntimeError,
     r"^linalg.lu_factor: LU without pivoting is not implemented on the CPU"),
    (lambda L: L.lu_unpack(L.randn(3, 3), L.tensor([1, 2, 3])), RuntimeError,
     r"^torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."),
    (lambda L: L.lu_unpack(L.randn(3, 3), L.tensor([5, 2, 3], dtype=L.int32)), RuntimeError,
     r"^pivots passed to lu_unpack must be between 1 and LU.size\(-2\) inclusive."),
    (lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.randn(3, 3)), L.randn(3)), RuntimeError,
     r"^linalg.lu_solve: The input tensor B must have at least 2 dimensions."),
    (lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.randn(3, 3)), L.randn(4, 2)),
     RuntimeError, r"^linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B "
     r"\(3x3 and 4x2\)"),
    (lambda L: L.linalg.lu_solve(L.randn(3, 3), L.tensor([1, 2, 3]), L.randn(3, 2)),
     RuntimeError, r"^linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32"),
    (lambda L: L.linalg.lu_solve(L.randn(3, 3), L.tensor([1, 2], dtype=L.int32),
                                 L.randn(3, 2)),
     RuntimeError, r"^linalg.lu_solve: Number of pivots per batch should be same as the "
     r"dimension of the matrix"),
    (lambda L: L.linalg.lu_solve(L.randn(2, 3), L.tensor([1, 2], dtype=L.int32),
                                 L.randn(3, 2)),
     RuntimeError, r"^torch.linalg.lu_solve: A must be batches of square matrices, but they "
     r"are 2 by 3 matrices"),
    (lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.randn(3, 3)), L.randn(3, 2).double()),
     RuntimeError, r"^linalg.lu_solve: Expected LU and B to have the same dtype, but found LU "
     r"of type Float and B of type Double instead"),
]


@pytest.mark.parametrize("fn,error,match", LU_ERRORS)
def test_lu_errors(fn, error, match):
    check_error(fn, error, match)


def test_lu_factor_error_is_a_linalg_error():
    with pytest.raises(ember.linalg.LinAlgError):
        ember.linalg.lu_factor(ember.zeros(2, 2))


# ---------------------------------------------------------------- SVD, QR, pinv
def gauge_free(U, S, Vh):
    """Functions of an SVD that do not depend on the signs LAPACK picks for the vectors
    (NumPy's and torch's LAPACK builds may differ there), nor on the arbitrary extra
    columns of the full U and V."""
    k = S.shape[-1]
    U, Vh = U[..., :k], Vh[..., :k, :]
    return U @ Vh, S, U ** 2, Vh ** 2, (U * S.unsqueeze(-2)) @ Vh


SVD_SHAPES = [(4, 3), (3, 4), (2, 3, 3), (2, 5, 3), (1, 1), (0, 3, 3), (3, 0)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("shape", SVD_SHAPES)
def test_linalg_svd_gradient(shape, full_matrices, dtype):
    check(lambda L, a: gauge_free(*L.linalg.svd(a, full_matrices=full_matrices)), shape,
          dtype=dtype, non_contiguous=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("some", [True, False])
@pytest.mark.parametrize("shape", SVD_SHAPES)
def test_legacy_svd(shape, some, dtype):
    # ember's svd/eigh backward runs in NumPy: its gradient is not differentiable again
    # (grad2=False here and in the cond tests below).
    check(lambda L, a: gauge_free(*L.svd(a, some=some)[:2], L.svd(a, some=some).V.mT), shape,
          dtype=dtype, grad2=False)
    check(lambda L, a: gauge_free(*a.svd(some)[:2], a.svd(some)[2].mT), shape, dtype=dtype,
          grad2=False)
    check(lambda L, a: L.svd(a, some=some, compute_uv=False), shape, dtype=dtype, grad2=False)


def test_legacy_svd_shapes_and_names():
    a = ember.randn(2, 5, 3, requires_grad=True)
    for some, u_cols in ((True, 3), (False, 5)):
        U, S, V = ember.svd(a, some=some)
        shapes = tuple(tuple(t.shape) for t in (U, S, V))
        assert shapes == ((2, 5, u_cols), (2, 3), (2, 3, 3))
        assert U.grad_fn.name() == "LinalgSvdBackward0"
        np.testing.assert_allclose(((U[..., :3] * S.unsqueeze(-2)) @ V.mT).detach().numpy(),
                                   a.detach().numpy(), atol=1e-5)


def test_svd_double_backward():
    check_double_backward(lambda L, a: gauge_free(*L.linalg.svd(a, full_matrices=False))[4]
                          * gauge_free(*L.linalg.svd(a, full_matrices=False))[0],
                          well_conditioned_shape((4, 3)) * np.arange(1, 4))


QR_CASES = [((4, 3), "reduced"), ((3, 4), "reduced"), ((3, 4), "complete"),
            ((3, 3), "complete"), ((2, 5, 3), "reduced"), ((2, 3, 5), "complete"),
            ((0, 3, 3), "reduced")]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,mode", QR_CASES)
def test_qr_gradient(shape, mode, dtype):
    check(lambda L, a: L.linalg.qr(a, mode=mode), shape, dtype=dtype, non_contiguous=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("some", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_legacy_qr(shape, some, dtype):
    differentiable = some or shape[-2] <= shape[-1]
    check(lambda L, a: L.qr(a, some=some), shape, dtype=dtype, grad=differentiable)
    check(lambda L, a: a.qr(some), shape, dtype=dtype, grad=differentiable)


def test_qr_double_backward():
    check_double_backward(lambda L, a: L.linalg.qr(a).Q * L.linalg.qr(a).R.sum(),
                          well_conditioned_shape((4, 3)))


@pytest.mark.parametrize("mode,message", [
    ("r", r"^The derivative of linalg.qr depends on Q, which is not computed when mode='r'"),
    ("complete", r"^The QR decomposition is not differentiable when mode='complete' and "
                 r"nrows > ncols."),
])
def test_qr_backward_errors(mode, message):
    def backward(L):
        L.linalg.qr(L.randn(4, 3, requires_grad=True), mode=mode).R.sum().backward()
    check_error(backward, RuntimeError, message)


PINV = [
    ("tall", lambda L, a: L.linalg.pinv(a), (4, 3)),
    ("wide_batch", lambda L, a: L.linalg.pinv(a), (2, 3, 5)),
    ("rtol", lambda L, a: L.linalg.pinv(a, rtol=0.3), (4, 3)),
    ("atol", lambda L, a: L.linalg.pinv(a, atol=0.5), (3, 4)),
    ("pinverse", lambda L, a: L.pinverse(a), (4, 3)),
    ("pinverse_method", lambda L, a: a.pinverse(rcond=0.2), (2, 3, 3)),
    ("empty", lambda L, a: L.linalg.pinv(a), (0, 3, 2)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,fn,shape", PINV, ids=[c[0] for c in PINV])
def test_pinv(name, fn, shape, dtype):
    check(fn, shape, dtype=dtype, non_contiguous=True)


@pytest.mark.parametrize("dtype", FLOATS)
def test_pinv_hermitian_and_rank_deficient(dtype):
    a = np.random.default_rng(1).standard_normal((3, 3))
    check(lambda L, a: L.linalg.pinv(a, hermitian=True), (a + a.T).astype(dtype), dtype=dtype)
    check(lambda L, a: L.linalg.pinv(a), np.outer([1.0, 2, 3], [1.0, -1, 0.5]).astype(dtype),
          dtype=dtype)


def test_pinv_double_backward():
    check_double_backward(lambda L, a: L.pinverse(a), well_conditioned_shape((4, 3)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [-2, -1, 0, 1, 2, 3])
def test_matrix_power(n, dtype):
    check(lambda L, a: L.matrix_power(a, n), well_conditioned_shape((2, 3, 3)).astype(dtype),
          dtype=dtype)
    check(lambda L, a: a.matrix_power(n), well_conditioned_shape((3, 3)).astype(dtype), dtype=dtype,
          non_contiguous=True)


def test_matrix_power_of_integers_and_names():
    check(lambda L, a: L.matrix_power(a, 3), np.arange(9).reshape(3, 3), grad=False)
    a = ember.randn(3, 3, requires_grad=True)
    assert ember.matrix_power(a, 1).grad_fn.name() == "CloneBackward0"
    assert ember.matrix_power(a, 0).grad_fn.name() == "CopyBackwards"
    check_error(lambda L: L.matrix_power(L.ones(3, 3).long(), -1), RuntimeError,
                r"^linalg.inv: Expected a floating point or complex tensor as input. Got Long")


# ---------------------------------------------------------------- _ex variants, lstsq, eig
SINGULAR = np.array([[1.0, 2], [2, 4]])


@pytest.mark.parametrize("dtype", FLOATS)
def test_inv_ex(dtype):
    check(lambda L, a: L.linalg.inv_ex(a), well_conditioned_shape((2, 3, 3)).astype(dtype),
          dtype=dtype, non_contiguous=True)
    # A singular matrix in the batch: info names U's zero pivot, the inverse holds infs.
    check(lambda L, a: L.linalg.inv_ex(a), np.stack([np.eye(2), SINGULAR]).astype(dtype),
          dtype=dtype, grad=False)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("left,b_shape", [(True, (3,)), (True, (2, 3, 2)), (False, (2, 4, 3))])
def test_solve_ex(left, b_shape, dtype):
    check(lambda L, a, b: L.linalg.solve_ex(a, b, left=left),
          well_conditioned_shape((2, 3, 3)).astype(dtype), b_shape, dtype=dtype)


@pytest.mark.parametrize("left,b_shape", [(True, (2, 2, 1)), (True, (2,)), (False, (2, 3, 2))])
def test_solve_ex_singular(left, b_shape):
    check(lambda L, a, b: L.linalg.solve_ex(a, b, left=left), np.stack([np.eye(2), SINGULAR]),
          np.ones(b_shape), dtype="float64", grad=False)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex(upper, dtype):
    check(lambda L, a: L.linalg.cholesky_ex(a @ a.mT + 3 * L.eye(3, dtype=a.dtype), upper=upper),
          (2, 3, 3), dtype=dtype)
    # Not positive-definite: info is the failing order, L LAPACK's partial work.
    failing = np.array([[[4.0, 2, 1], [2, 1, 3], [1, 3, 5]], [[4, 2, 1], [2, 5, 3], [1, 3, -5]],
                        2 * np.eye(3)])
    check(lambda L, a: L.linalg.cholesky_ex(a, upper=upper), failing.astype(dtype),
          dtype=dtype, grad=False)


EX_ERRORS = [
    (lambda L: L.linalg.inv(L.tensor(np.stack([np.eye(2), SINGULAR]))), RuntimeError,
     r"^linalg.inv: \(Batch element 1\): The diagonal element 2 is zero, the inversion could "
     r"not be completed because the input matrix is singular."),
    (lambda L: L.linalg.inv_ex(L.tensor(SINGULAR), check_errors=True), RuntimeError,
     r"^linalg.inv_ex: The diagonal element 2 is zero"),
    (lambda L: L.linalg.cholesky_ex(L.tensor(-SINGULAR), check_errors=True), RuntimeError,
     r"^linalg.cholesky_ex: The factorization could not be completed because the input is "
     r"not positive-definite \(the leading minor of order 1 is not positive-definite\)."),
    (lambda L: L.linalg.cholesky(L.tensor([[[4.0, 2], [2, 5]], [[4, 2], [2, 1]]])),
     RuntimeError, r"^linalg.cholesky: \(Batch element 1\): The factorization could not be "
     r"completed because the input is not positive-definite \(the leading minor of order 2"),
    (lambda L: L.linalg.solve_ex(L.tensor(SINGULAR), L.ones(2, dtype=L.float64),
                                 check_errors=True),
     RuntimeError, r"^torch.linalg.solve_ex: The solver failed because the input matrix is "
     r"singular."),
]


@pytest.mark.parametrize("fn,error,match", EX_ERRORS)
def test_ex_errors(fn, error, match):
    error = check_error(fn, error, match)
    assert isinstance(error, ember.linalg.LinAlgError)


LSTSQ_SHAPES = [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 5, 3), (2, 5, 2)), ((5, 3), (5,)),
                ((2, 4, 4), (2, 4, 1)), ((0, 3), (0, 2))]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss", "gels"])
@pytest.mark.parametrize("a_shape,b_shape", LSTSQ_SHAPES)
def test_lstsq(a_shape, b_shape, driver, dtype):
    check(lambda L, a, b: L.linalg.lstsq(a, b, driver=driver), a_shape, b_shape, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_lstsq_rank_deficient(dtype):
    a = np.outer([1.0, 2, 3, 4], [1, 1, 2]).astype(dtype)
    # Values only: at a rank-deficient A the gradient depends on how the rank is kept
    # (ember differentiates pinv at constant rank); torch's differs.
    check(lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd"), a, (4, 2), dtype=dtype,
          grad=False)
    check(lambda L, a, b: L.linalg.lstsq(a, b, rcond=0.5, driver="gelss"), (4, 3), (4, 2),
          dtype=dtype, grad=False)

    # torch 2.13's backward ignores rcond (it differentiates the untruncated solution);
    # the truncated solution is pinv(A, rtol=rcond) @ B, whose gradient ember gives.
    def truncated(L, a, b):
        if L is ember:
            return L.linalg.lstsq(a, b, rcond=0.5, driver="gelss").solution
        return L.linalg.pinv(a, rtol=0.5) @ b
    check(truncated, (4, 3), (4, 2), dtype=dtype)


LSTSQ_ERRORS = [
    (lambda L: L.linalg.lstsq(L.randn(5, 3), L.randn(4, 2)), RuntimeError,
     r"^torch.linalg.lstsq: input.size\(-2\) should match other.size\(-2\)"),
    (lambda L: L.linalg.lstsq(L.randn(5, 3), L.randn(5, 2).double()), RuntimeError,
     r"^torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
     r"dtype Float and other's dtype Double"),
    (lambda L: L.linalg.lstsq(L.randn(5), L.randn(5, 2)), RuntimeError,
     r"^torch.linalg.lstsq: input must have at least 2 dimensions."),
    (lambda L: L.linalg.lstsq(L.ones(5, 3).long(), L.ones(5, 2).long()), RuntimeError,
     r"^This function doesn't handle types other than float and double"),
    (lambda L: L.linalg.lstsq(L.randn(5, 3), L.randn(5, 2), driver="foo"), RuntimeError,
     r"^torch.linalg.lstsq: parameter `driver` should be one of \(gels, gelsy, gelsd, gelss\)"),
]


@pytest.mark.parametrize("fn,error,match", LSTSQ_ERRORS)
def test_lstsq_errors(fn, error, match):
    check_error(fn, error, match)


EIG_INPUTS = [
    np.diag([1.0, 2, 3]) + np.triu(np.ones((3, 3)), 1),        # real eigenvalues
    np.array([[[0.0, 1], [-1, 0]], [[2, 1], [0, 3]]]),           # a complex pair, a batch
    np.zeros((0, 2, 2)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index", range(len(EIG_INPUTS)))
def test_eig(index, dtype):
    a = EIG_INPUTS[index].astype(dtype)
    check(lambda L, a: L.linalg.eigvals(a), a, dtype=dtype, grad=False)
    check(lambda L, a: L.linalg.eig(a), a, dtype=dtype, grad=False)


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig_decomposes_random_matrices(dtype):
    # The order and phases of eigenvectors may differ between LAPACK builds; A V = V diag(w)
    # and the sorted eigenvalues do not.
    a = ember.tensor(np.random.default_rng(2).standard_normal((2, 4, 4)).astype(dtype))
    w, V = ember.linalg.eig(a)
    assert w.dtype == V.dtype == (ember.complex64 if dtype == "float32" else ember.complex128)
    residual = a.to(w.dtype).numpy() @ V.numpy() - V.numpy() * w.numpy()[..., None, :]
    assert np.abs(residual).max() < (1e-4 if dtype == "float32" else 1e-10)
    expected = np.sort_complex(torch.linalg.eigvals(torch.from_numpy(a.numpy())).numpy())
    np.testing.assert_allclose(np.sort_complex(w.numpy()), expected, atol=1e-4)


# Gradients through quantities that do not depend on the eigenvectors' phases (complex
# outputs are compared as their real and imaginary parts).
EIG_GRADS = [
    lambda L, a: L.view_as_real(L.linalg.eigvals(a)),
    lambda L, a: L.linalg.eig(a)[1].abs(),
    lambda L, a: (L.view_as_real(L.linalg.eig(a)[0]), L.linalg.eig(a)[1].abs()),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fn", EIG_GRADS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_eig_gradient(fn, shape, dtype):
    # grad2 only for eigvals: the oracle's second-order loss depends on the eigenvectors'
    # phases, which both libraries refuse.
    check(fn, shape, dtype=dtype, grad2=fn is EIG_GRADS[0])


@pytest.mark.parametrize("fn", EIG_GRADS)
def test_eig_gradient_of_complex_input(fn):
    check(lambda L, x, y: fn(L, L.complex(x, y)), (3, 3), (3, 3), dtype="float64", grad2=False)


def test_eig_gradient_depending_on_phase_is_refused():
    def imaginary_parts(L):
        a = L.tensor([[2.0, 1.0], [0.0, 3.0]], requires_grad=True)
        return L.autograd.grad(L.linalg.eig(a)[1].imag.sum(), a)
    check_error(imaginary_parts, RuntimeError, r"^linalg_eig_backward: The eigenvectors in the "
                r"complex case are specified up to multiplication by e\^\{i phi\}")


EIG_ERRORS = [
    (lambda L: L.linalg.eig(L.randn(3, 4)), RuntimeError,
     r"^linalg.eig: A must be batches of square matrices, but they are 3 by 4 matrices"),
    (lambda L: L.linalg.eigvals(L.randn(3)), RuntimeError,
     r"^linalg.eigvals: The input tensor A must have at least 2 dimensions."),
    (lambda L: L.linalg.eig(L.ones(3, 3).long()), RuntimeError,
     r"^Unknown Complex ScalarType for Long"),
    (lambda L: L.linalg.eig(L.ones(3, 3).half()), NotImplementedError,
     r"^\"linalg_eig_out_cpu\" not implemented for 'Half'"),
]


@pytest.mark.parametrize("fn,error,match", EIG_ERRORS)
def test_eig_errors(fn, error, match):
    check_error(fn, error, match)


# ---------------------------------------------------------------- cond, tensor*, vander
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [None, 2, -2])
def test_cond_from_singular_values(p, dtype):
    check(lambda L, a: L.linalg.cond(a, p), (2, 3, 3), dtype=dtype, grad2=False)
    check(lambda L, a: L.linalg.cond(a, p), (3, 5), dtype=dtype, grad2=False)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", ["fro", "nuc", 1, -1, float("inf"), -float("inf")])
def test_cond_from_norms(p, dtype):
    check(lambda L, a: L.linalg.cond(a, p), (2, 3, 3), dtype=dtype, grad=False)
    if p == "nuc":
        # torch reports a large finite number (rounding noise); a singular matrix's
        # condition number is infinite.
        assert ember.linalg.cond(ember.tensor(SINGULAR), p).item() == float("inf")
    else:
        check(lambda L, a: L.linalg.cond(a, p), SINGULAR.astype(dtype), dtype=dtype, grad=False)

    # torch 2.13's backward here fails ("modified by an inplace operation" on its
    # inv_ex output); compare with the gradient of the definition instead.
    def definition(L, a):
        if L is ember:
            return L.linalg.cond(a, p)
        return L.linalg.matrix_norm(a, p) * L.linalg.matrix_norm(L.linalg.inv(a), p)
    check(definition, (2, 3, 3), dtype=dtype, grad2=p not in ("nuc", 2, -2))


def test_cond_errors():
    check_error(lambda L: L.linalg.cond(L.randn(3, 4), "fro"), RuntimeError,
                r"^linalg.cond\(ord=fro\): A must be batches of square matrices, but they are "
                r"3 by 4 matrices")
    check_error(lambda L: L.linalg.cond(L.randn(3, 3), 3), RuntimeError,
                r"^linalg.cond got an invalid norm type: 3")


@pytest.mark.parametrize("dtype", FLOATS)
def test_tensorinv_and_tensorsolve(dtype):
    check(lambda L, a: L.linalg.tensorinv(a, ind=1), well_conditioned_shape((4, 4)).reshape(4, 2, 2)
          .astype(dtype), dtype=dtype)
    check(lambda L, a: L.linalg.tensorinv(a), (4, 6, 8, 3), dtype=dtype)
    check(lambda L, a, b: L.linalg.tensorsolve(a, b), (2, 3, 6), (2, 3), dtype=dtype)
    check(lambda L, a, b: L.linalg.tensorsolve(a, b, dims=(0,)), (6, 2, 3), (2, 3), dtype=dtype)


def test_tensorinv_and_tensorsolve_errors():
    check_error(lambda L: L.linalg.tensorinv(L.randn(4, 6, 8, 3), ind=3), RuntimeError,
                r"^Expected self to satisfy the requirement prod\(self.shape\[ind:\]\) == "
                r"prod\(self.shape\[:ind\]\), but got 3 != 192")
    check_error(lambda L: L.linalg.tensorinv(L.randn(4, 6), ind=0), RuntimeError,
                r"^Expected a strictly positive integer for 'ind', but got 0")
    check_error(lambda L: L.linalg.tensorsolve(L.randn(6, 2, 3), L.randn(6), dims=(0,)),
                RuntimeError, r"^Expected self to satisfy the requirement "
                r"prod\(self.shape\[other.ndim:\]\) == prod\(self.shape\[:other.ndim\]\), but got "
                r"18 != 6")


@pytest.mark.parametrize("dtype", FLOATS)
def test_vander(dtype):
    check(lambda L, x: L.linalg.vander(x), (2, 3), dtype=dtype)
    # grad2=False: vander is a cumprod, and at x = 0 ember's cumprod gradient misses the
    # second-order terms between zeros (see test_reduction.test_zeros_in_input): 1, not 2.
    check(lambda L, x: L.linalg.vander(x, N=5), np.array([0.0, 1.5, -2]).astype(dtype),
          dtype=dtype, grad2=False)
    check(lambda L, x: L.linalg.vander(x), (0, 3), dtype=dtype)
    check(lambda L, x: L.linalg.vander(x, N=3), (), dtype=dtype)  # 0-dim: one point


def test_vander_integers_and_errors():
    check(lambda L, x: L.linalg.vander(x), np.arange(4), grad=False)
    check_error(lambda L: L.linalg.vander(L.tensor(1.0)), RuntimeError,
                r"^N must be greater than 1.")
    check_error(lambda L: L.linalg.vander(L.ones(3), N=1), RuntimeError,
                r"^N must be greater than 1.")
    check_error(lambda L: L.linalg.vander(L.ones(3).bool()), RuntimeError,
                r"^linalg.vander supports floating point, complex, and integer tensors, but "
                r"got Bool")


@pytest.mark.parametrize("dtype", FLOATS)
def test_linalg_diagonal(dtype):
    check(lambda L, a: L.linalg.diagonal(a), (2, 3, 4), dtype=dtype, non_contiguous=True)
    check(lambda L, a: L.linalg.diagonal(a, offset=-1, dim1=0, dim2=2), (3, 2, 4), dtype=dtype)


COMPLEX_CASES = [
    ("lu_factor", lambda L, a, b: L.linalg.lu_factor(a)),
    ("lu", lambda L, a, b: L.linalg.lu(a)),
    ("lu_solve_adjoint",
     lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True)),
    ("lu_solve_right",   # torch returns a lazily conjugated view here
     lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT, left=False).resolve_conj()),
    ("solve_triangular", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True)),
    ("triangular_solve_t", lambda L, a, b: L.triangular_solve(b, a, transpose=True)),
    ("cholesky_solve", lambda L, a, b: L.cholesky_solve(b, a)),
    ("inv_ex", lambda L, a, b: L.linalg.inv_ex(a)),
]


@pytest.mark.parametrize("name,fn", COMPLEX_CASES, ids=[c[0] for c in COMPLEX_CASES])
def test_complex_values(name, fn):
    r = np.random.default_rng(0)
    a = r.standard_normal((2, 4, 4)) + 1j * r.standard_normal((2, 4, 4))
    b = r.standard_normal((2, 4, 2)) + 1j * r.standard_normal((2, 4, 2))
    check(fn, a, b, dtype="float64", grad=False)


# ---------------------------------------------------------------- LDL^T (Bunch-Kaufman)
def _symmetric(seed, shape, diagonal_scale=1.0):
    a = np.random.default_rng(seed).standard_normal(shape)
    a = a + np.swapaxes(a, -1, -2)
    return a - (1 - diagonal_scale) * np.eye(shape[-1]) * np.diagonal(a, 0, -2, -1)[..., None]


LDL_MATRICES = [
    np.array([[0.0, 1.0], [1.0, 0.0]]),                        # a 2x2 pivot block
    np.array([[1.0, 2.0, 0.0], [2.0, 0.1, 3.0], [0.0, 3.0, -1.0]]),
    np.array([[0.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 0.0, 0.0]]),
    _symmetric(0, (5, 5)), _symmetric(1, (7, 7), diagonal_scale=0.05),   # small diagonals
    _symmetric(2, (3, 6, 6), diagonal_scale=0.0), _symmetric(3, (2, 4, 4)),
    np.zeros((0, 0)), np.array([[0.0, 0.0], [0.0, 1.0]]),      # singular: info = 1
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("a", LDL_MATRICES)
def test_ldl_factor_and_solve(a, dtype):
    """LD, pivots (LAPACK's, 1-based, negative for 2x2 blocks) and info as torch's; the
    solve of A X = B from them."""
    a = a.astype(dtype)
    check(lambda L, m: list(L.linalg.ldl_factor_ex(m)), a, dtype=dtype, grad=False,
          atol=1e-4 if dtype == "float32" else 1e-10)
    if a.size and np.linalg.matrix_rank(a[0] if a.ndim == 3 else a) == a.shape[-1]:
        b = np.random.default_rng(9).standard_normal(a.shape[:-1] + (2,)).astype(dtype)
        check(lambda L, m, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(m), b), a, b,
              dtype=dtype, grad=False, atol=1e-3 if dtype == "float32" else 1e-9)


def test_ldl_errors():
    check_error(lambda L: L.linalg.ldl_factor_ex(L.ones(3, 4)), RuntimeError,
                r"torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they "
                r"are 3 by 4 matrices")
    with pytest.raises(RuntimeError, match=r"ldl_factor_ex: The factorization could not be "):
        ember.linalg.ldl_factor(ember.zeros(3, 3))
    check_error(lambda L: L.linalg.ldl_solve(L.eye(2), L.ones(2, dtype=L.float32), L.ones(2, 1)),
                RuntimeError, r"torch.linalg.ldl_solve: Expected pivots to be integers. Got "
                              r"Float")
    check_error(lambda L: L.linalg.ldl_solve(L.eye(2), L.ones(2, dtype=L.int32), L.ones(3, 1)),
                RuntimeError, r"Incompatible matrix sizes for torch.linalg.ldl_solve: each A "
                              r"matrix is 2 by 2 but each b matrix is 3 by 1")
