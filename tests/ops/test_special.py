"""ember.special against torch.special: values, dtypes and gradients."""
import numpy as np
import pytest
import torch

try:
    import mpmath
except ImportError:       # mpmath comes with torch (through sympy); be safe
    mpmath = None

import ember
import ember.special  # noqa: F401
from tests.oracle import check, check_error

DTYPES = ["float32", "float64"]
EDGES = np.array([0.0, -0.0, 1.0, -1.0, 7.9, -8.5, 27.0, -27.0, 40.0, 1e9, np.inf, -np.inf,
                  np.nan, 1e-300])

ALIASES = ["digamma", "psi", "erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "expit",
           "gammaln", "i0", "i1", "sinc", "logit"]
UNARY = ["erfcx", "ndtr", "log_ndtr", "i0e", "i1e", "i1"]


def test_namespace_matches_torch():
    skipped = {"Tensor", "torch", "common_args", "multi_dim_common"}
    public = {n for n in dir(torch.special) if not n.startswith("_")}
    missing = public - skipped - set(dir(ember.special))
    assert not missing
    assert set(ember.special.__all__) <= public


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ALIASES)
def test_aliases(name, dtype):
    if name == "erfinv":
        check(lambda lib, x: lib.special.erfinv(lib.tanh(x)), (3, 4), dtype=dtype)
    elif name == "logit":
        check(lambda lib, x: lib.special.logit(lib.sigmoid(x), eps=1e-3), (3, 4), dtype=dtype)
    else:
        check(lambda lib, x: getattr(lib.special, name)(x), (3, 4), dtype=dtype,
              positive=name in ("digamma", "psi", "gammaln"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_values_and_grads(name, dtype):
    check(lambda lib, x: getattr(lib.special, name)(x * 4), (5, 6), dtype=dtype)
    check(lambda lib, x: getattr(lib.special, name)(x * 4), (5, 6), dtype=dtype,
          non_contiguous=True)


@pytest.mark.parametrize("name", UNARY + ["ndtri", "entr"])
def test_unary_edge_values(name):
    check(lambda lib, x: getattr(lib.special, name)(x), EDGES, dtype="float64", grad=False)
    check(lambda lib, x: getattr(lib.special, name)(x), EDGES.astype(np.float32), grad=False)


@pytest.mark.parametrize("name", UNARY + ["ndtri", "entr"])
def test_unary_shapes_and_integer_inputs(name):
    fn = getattr(ember.special, name)
    check(lambda lib, x: getattr(lib.special, name)(x), np.array(0.25), dtype="float64")
    check(lambda lib, x: getattr(lib.special, name)(x), (0, 3), dtype="float64")
    check(lambda lib, x: getattr(lib.special, name)(x), np.array([[0, 1], [2, 3]]), grad=False)
    check(lambda lib, x: getattr(lib.special, name)(x), np.array([True, False]), grad=False)
    assert fn.__name__ == name or name == "i1"


@pytest.mark.parametrize("dtype", DTYPES)
def test_ndtri_and_entr(dtype):
    check(lambda lib, x: lib.special.ndtri(lib.sigmoid(x * 3)), (4, 5), dtype=dtype)
    check(lambda lib, x: lib.special.entr(x), (4, 5), dtype=dtype, positive=True)


def test_ndtri_deep_tail():
    p = np.array([1e-300, 1e-100, 1e-20, 1e-5, 0.5, 1 - 1e-10, 1.0, 0.0, -0.5, 1.5])
    check(lambda lib, x: lib.special.ndtri(x), p, dtype="float64", grad=False)


@pytest.mark.parametrize("name", ["erfcx", "log_ndtr", "ndtri", "modified_bessel_i0",
                                  "modified_bessel_i1", "spherical_bessel_j0"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_float32_only_kernels_refuse_16_bit(name, dtype):
    check_error(lambda lib: getattr(lib.special, name)(lib.ones(2, dtype=getattr(lib, dtype))),
                NotImplementedError, "not implemented for")


@pytest.mark.parametrize("name", ["i0e", "i1e", "entr", "ndtr"])
def test_16_bit_kernels(name):
    check(lambda lib, x: getattr(lib.special, name)(x), (4,), dtype="float16", grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_xlog1py(dtype):
    check(lambda lib, x, y: lib.special.xlog1py(x, lib.exp(y)), (3, 4), (4,), dtype=dtype)
    check(lambda lib, x: lib.special.xlog1py(x, 2.0), (3,), dtype=dtype)
    check(lambda lib, y: lib.special.xlog1py(3.0, lib.exp(y)), (3,), dtype=dtype)
    special = np.array([0.0, 0.0, 1.0, 2.0])
    check(lambda lib, x, y: lib.special.xlog1py(x, y), special,
          np.array([np.nan, -1.0, -1.0, 0.5]), dtype="float64", grad=False)
    check(lambda lib, x, y: lib.special.xlog1py(x, y), np.array([1, 2]), np.array([3, 4]),
          grad=False)


def test_grad_fn_names():
    x = ember.ones(2, requires_grad=True)
    names = {"entr": "SpecialEntrBackward0", "erfcx": "SpecialErfcxBackward0",
             "i0e": "SpecialI0EBackward0", "i1e": "SpecialI1EBackward0",
             "i1": "SpecialI1Backward0", "log_ndtr": "SpecialLogNdtrBackward0",
             "ndtri": "SpecialNdtriBackward0", "ndtr": "MulBackward1",
             "expit": "SigmoidBackward0", "gammaln": "LgammaBackward0"}
    for name, node in names.items():
        assert getattr(ember.special, name)(x * 0.5).grad_fn.name() == node
    assert ember.special.xlog1py(x, 2.0).grad_fn.name() == "SpecialXlog1PyBackward2"
    assert ember.special.xlog1py(2.0, x).grad_fn.name() == "SpecialXlog1PyBackward1"
    assert ember.special.zeta(2.0, x).grad_fn.name() == "SpecialZetaBackward1"
    assert ember.special.multigammaln(x + 2, 2).grad_fn.name() == "MvlgammaBackward0"


def test_double_backward():
    for name in ["erfcx", "log_ndtr", "i0e", "i1e", "entr"]:
        check(lambda lib, x: lib.autograd.grad(getattr(lib.special, name)(x).sum(), x,
                                               create_graph=True)[0],
              (5,), dtype="float64", positive=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_zeta(dtype):
    check(lambda lib, x, q: lib.special.zeta(x.abs() + 1.5, q.abs() + 0.2), (3, 4), (4,),
          dtype=dtype, grad_inputs=[1])
    check(lambda lib, q: lib.special.zeta(3.0, q.abs() + 0.5), (5,), dtype=dtype)
    check(lambda lib, x: lib.special.zeta(x.abs() + 1.5, 2.0), (5,), dtype=dtype, grad=False)


def test_zeta_edges():
    x = np.array([1.0, 0.5, 2.0, 2.0, 3.0, 2.0, 4.0, 30.0, 2.0])
    q = np.array([1.0, 1.0, 0.0, -1.0, -1.5, -1.5, -20.5, 0.3, 1e9])
    check(lambda lib, x, q: lib.special.zeta(x, q), x, q, dtype="float64", grad=False)
    check(lambda lib, x, q: lib.special.zeta(x, q), np.array([2, 3]), np.array([1, 2]),
          grad=False)


def test_zeta_errors():
    x = ember.tensor([2.0, 3.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented"):
        ember.special.zeta(x, ember.tensor([1.0, 2.0])).sum().backward()
    check_error(lambda lib: lib.special.zeta(lib.ones(2, dtype=lib.float16), 2.0),
                NotImplementedError, '"zeta_cpu" not implemented for \'Half\'')


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma(name, dtype):
    check(lambda lib, a, x: getattr(lib.special, name)(a.abs() * 5, x.abs() * 5), (4, 5), (5,),
          dtype=dtype, grad_inputs=[1])
    check(lambda lib, a, x: getattr(lib.special, name)(a.abs() * 5, x.abs() * 5), (4, 5), (5,),
          dtype=dtype, grad_inputs=[1], non_contiguous=True)
    check(lambda lib, a, x: getattr(lib.special, name)(a, x), (0,), (0,), dtype=dtype,
          grad_inputs=[1])


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_edges_and_large(name):
    a = np.array([0.0, 1.0, -1.0, 1.0, 0.0, 2.0, np.inf, np.inf, 3.0, 1e-5, 500.0, 5000.0])
    x = np.array([1.0, 0.0, 1.0, -1.0, 0.0, np.inf, 3.0, np.inf, np.nan, 1e-3, 480.0, 5100.0])
    check(lambda lib, a, x: getattr(lib.special, name)(a, x), a, x, dtype="float64", grad=False)
    check(lambda lib, a, x: getattr(lib.special, name)(a, x), (6,), (6,), dtype="float16",
          grad=False)


@pytest.mark.parametrize("name,torch_name", [("gammainc", "igamma"), ("gammaincc", "igammac")])
def test_incomplete_gamma_errors(name, torch_name):
    check_error(lambda lib: getattr(lib.special, name)(lib.ones(2), 2.0), TypeError,
                r"special_%s\(\): argument 'other' \(position 2\) must be Tensor, not float" % name)
    check_error(lambda lib: getattr(lib.special, name)(1, lib.ones(2)), TypeError,
                r"argument 'input' \(position 1\) must be Tensor, not int")
    check_error(lambda lib: getattr(lib.special, name)(lib.ones(2, dtype=lib.int64),
                                                       lib.ones(2, dtype=lib.int64)),
                NotImplementedError, f'"{torch_name}_cpu" not implemented for \'Long\'')
    a = ember.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match=f"derivative for '{torch_name}: input'"):
        getattr(ember.special, name)(a, ember.ones(2)).sum().backward()


@pytest.mark.parametrize("dtype", DTYPES)
def test_multigammaln(dtype):
    for p in (1, 2, 4):
        check(lambda lib, x: lib.special.multigammaln(x.abs() + 2, p), (3, 4), dtype=dtype)
    check(lambda lib, x: lib.special.multigammaln(x, 3), np.array([3, 4]), grad=False)
    check(lambda lib, x: lib.special.multigammaln(x + 3, 2), np.array(1.5), dtype=dtype)
    check_error(lambda lib: lib.special.multigammaln(lib.ones(2), 0), RuntimeError,
                "p has to be greater than or equal to 1")


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_family_and_round(dtype):
    check(lambda lib, x: lib.special.softmax(x, -1), (3, 4), dtype=dtype)
    check(lambda lib, x: lib.special.log_softmax(x, 0, dtype=lib.float64), (3, 4), dtype=dtype)
    check(lambda lib, x: lib.special.logsumexp(x, (0, -1), keepdim=True), (3, 4, 2),
          dtype=dtype)
    check(lambda lib, x: lib.special.round(x * 10, decimals=1), (3, 4), dtype=dtype)
    check(lambda lib, x: lib.special.polygamma(0, x), (3, 4), dtype=dtype, positive=True)
    check(lambda lib, x: lib.special.polygamma(1, x), (3, 4), dtype=dtype, positive=True,
          rtol=1e-4 if dtype == "float32" else 1e-8)
    check(lambda lib, x, y: lib.special.xlogy(x, y), (3, 4), (4,), dtype=dtype, positive=True)


def test_forward_only_functions():
    values = np.concatenate([EDGES, np.linspace(-30, 30, 41)])
    for name in ["modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0"]:
        check(lambda lib, x: getattr(lib.special, name)(x), values, dtype="float64")
        check(lambda lib, x: getattr(lib.special, name)(x), np.array([1, 2, 0]), grad=False)
        x = ember.ones(3, requires_grad=True)
        assert not getattr(ember.special, name)(x).requires_grad


def test_out_argument():
    x = ember.tensor([0.1, 0.5, 0.9])
    out = ember.empty(3)
    assert ember.special.ndtri(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), torch.special.ndtri(torch.tensor([0.1, 0.5, 0.9])),
                               rtol=1e-6)
    assert ember.special.multigammaln(x + 2, 2, out=out) is out


POLYNOMIALS = [n for n in dir(torch.special) if "polynomial" in n]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials(name):
    r = np.random.default_rng(3)
    # Both [-1, 1] and [0, 1] (the shifted families' interval) with margins, the ends and
    # the centres. NaN inputs are left out: torch 2.13's vectorised CPU kernels return
    # another element's value for NaN (e.g. chebyshev_polynomial_u(nan, 3) = 115).
    x = np.concatenate([r.uniform(-1.5, 1.5, 200), [-1.0, 0.0, 0.5, 1.0] * 4])
    degrees = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 20, -1]
    n = np.concatenate([r.integers(-2, 30, 200), degrees]).astype(np.float64)
    fn = getattr(ember.special, name)
    check(lambda lib, x, n: getattr(lib.special, name)(x, n), x, n, dtype="float64")
    check(lambda lib, x, n: getattr(lib.special, name)(x, n), x.astype(np.float32),
          n.astype(np.int64), grad=False)
    check(lambda lib, x: getattr(lib.special, name)(x, 4), (3, 4), dtype="float64")
    check(lambda lib, x: getattr(lib.special, name)(x, 2.7), (3, 4))
    check(lambda lib, n: getattr(lib.special, name)(0.3, n), np.array([0, 1, 5, 12]))
    check(lambda lib, x: getattr(lib.special, name)(x, 3), np.array([[1, 2], [0, -1]]))
    check(lambda lib, x: getattr(lib.special, name)(x, 3), (0, 2))
    assert not fn(ember.ones(2, requires_grad=True), 3).requires_grad
    check_error(lambda lib: getattr(lib.special, name)(lib.ones(2, dtype=lib.float16), 2),
                NotImplementedError, f'"{name}_cpu" not implemented for \'Half\'')


BESSEL = {  # name: mpmath reference
    "bessel_j0": lambda t: mpmath.besselj(0, t), "bessel_j1": lambda t: mpmath.besselj(1, t),
    "bessel_y0": lambda t: mpmath.bessely(0, t), "bessel_y1": lambda t: mpmath.bessely(1, t),
    "modified_bessel_k0": lambda t: mpmath.besselk(0, t),
    "modified_bessel_k1": lambda t: mpmath.besselk(1, t),
    "scaled_modified_bessel_k0": lambda t: mpmath.besselk(0, t) * mpmath.exp(t),
    "scaled_modified_bessel_k1": lambda t: mpmath.besselk(1, t) * mpmath.exp(t),
    "airy_ai": lambda t: mpmath.airyai(t),
}


def _sample_points(name):
    """Points across every method's range (series, recurrence or integral, asymptotics)."""
    r = np.random.default_rng(5)
    points = [r.uniform(0.0, 30.0, 120), r.uniform(1.0, 400.0, 30), 10 ** r.uniform(-12, 0, 10),
              [1e-10, 2.0, 2.0001, 25.0, 25.0001]]
    if name.startswith("bessel_j") or name == "airy_ai":
        points.append(-r.uniform(0.0, 60.0, 60))
    return np.concatenate(points)


@pytest.mark.skipif(mpmath is None, reason="needs mpmath for exact values")
@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_and_airy_against_exact_values(name):
    x = _sample_points(name)
    got = getattr(ember.special, name)(ember.from_numpy(x)).numpy()
    exact = np.array([float(BESSEL[name](t)) for t in x])
    # Relative to max(1, |value|): the oscillating functions have zeros, and far out the
    # phase x - pi/4 carries float64's rounding of x.
    err = np.abs(got - exact) / np.maximum(1.0, np.abs(exact))
    assert err.max() < 1e-13


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_and_airy_against_torch(name):
    # torch 2.13's CPU kernels are less accurate than float64 here: bessel_j0(5.27) is off
    # by 2.5e-7 and airy_ai(-2.3) by 5e-5 relative; the exact values are checked above.
    x = _sample_points(name)
    check(lambda lib, x: getattr(lib.special, name)(x), x, dtype="float64", atol=1e-6,
          rtol=1e-4)
    check(lambda lib, x: getattr(lib.special, name)(x), x.astype(np.float32), atol=1e-6,
          rtol=1e-4)
    check(lambda lib, x: getattr(lib.special, name)(x), np.array([[1, 2], [3, 40]]), atol=1e-6,
          rtol=1e-4)
    check(lambda lib, x: getattr(lib.special, name)(x), (0, 3))
    check(lambda lib, x: getattr(lib.special, name)(x), np.array(1.5), atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_and_airy_edges(name):
    edges = np.array([0.0, -0.0, -1.0, -2.5, 1e-300, np.nan, 700.0, 1e10])
    check(lambda lib, x: getattr(lib.special, name)(x), edges, dtype="float64", atol=1e-6,
          rtol=1e-4)
    # torch 2.13 returns NaN at +inf for J, Y and Ai, and at -inf for J and Ai, where the
    # functions tend to 0; ember returns that limit.
    infinities = ember.tensor([np.inf, -np.inf], dtype=ember.float64)
    limits = getattr(ember.special, name)(infinities).numpy()
    assert limits[0] == 0.0
    if name.startswith("bessel_j") or name == "airy_ai":
        assert limits[1] == 0.0
    else:
        assert np.isnan(limits[1])
    assert not getattr(ember.special, name)(ember.ones(2, requires_grad=True)).requires_grad
    check_error(lambda lib: getattr(lib.special, name)(lib.ones(2, dtype=lib.float16)),
                NotImplementedError, "not implemented for 'Half'")


def test_top_level_igamma_igammac_mvlgamma():
    from ember.ops import special_functions as S
    for name in ["igamma", "igammac"]:
        check(lambda lib, a, x: getattr(lib if lib is torch else S, name)(a.abs() * 3, x.abs()),
              (3, 4), (4,), dtype="float64", grad_inputs=[1])
        check_error(lambda lib: getattr(lib if lib is torch else S, name)(lib.ones(2), 2.0),
                    TypeError, rf"^{name}\(\): argument 'other' \(position 2\) must be Tensor")
    check(lambda lib, x: (lib if lib is torch else S).mvlgamma(x.abs() + 2, p=3), (3, 4),
          dtype="float64")
    assert S.igamma(ember.ones(2), ember.ones(2)).grad_fn is None


def test_tensor_methods():
    check(lambda lib, a, x: a.abs().igamma(x.abs()), (3,), (3,), grad_inputs=[1])
    check(lambda lib, a, x: a.abs().igammac_(x.abs()), (3,), (3,), grad=False)
    check(lambda lib, x: (x.abs() + 2).mvlgamma(2), (3,))
    check(lambda lib, x: (x.abs() + 2).mvlgamma_(p=2), (3,), grad=False)
