"""Counting, covariance and quantiles (ember/ops/statistics.py) against torch."""
import warnings

import numpy as np
import pytest

import ember
from oracle import check, check_error

DTYPES = ["float32", "float64"]
MODES = ["linear", "lower", "higher", "midpoint", "nearest"]
NAN = float("nan")


# ---------------------------------------------------------------- quantile, nanquantile
QUANTILE_CASES = [
    (lambda lib, x, q: lib.quantile(x, 0.3, interpolation=q), (7,)),
    (lambda lib, x, q: x.quantile(0.5, interpolation=q), (3, 4)),
    (lambda lib, x, q: lib.quantile(x, 1.0, dim=0, interpolation=q), (3, 4)),
    (lambda lib, x, q: lib.quantile(x, 0.0, dim=-1, keepdim=True, interpolation=q), (3, 4)),
    (lambda lib, x, q: lib.quantile(x, 0.75, keepdim=True, interpolation=q), (2, 3, 4)),
    (lambda lib, x, q: lib.quantile(x, 0.25, dim=1, interpolation=q), (2, 5, 3)),
    (lambda lib, x, q: x.nanquantile(0.4, dim=1, interpolation=q), (3, 5)),
    (lambda lib, x, q: lib.quantile(x, 0.6, interpolation=q), ()),
    (lambda lib, x, q: lib.quantile(x, 0.6, dim=0, keepdim=True, interpolation=q), ()),
]


@pytest.mark.parametrize("non_contiguous", [False, True])
@pytest.mark.parametrize("interpolation", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(QUANTILE_CASES)))
def test_quantile_scalar_q(case, dtype, interpolation, non_contiguous):
    fn, shape = QUANTILE_CASES[case]
    check(lambda lib, x: fn(lib, x, interpolation), shape, dtype=dtype,
          non_contiguous=non_contiguous)


Q = np.array([0.0, 0.1, 0.25, 0.5, 0.625, 0.9, 1.0])
TENSOR_Q_CASES = [
    (lambda lib, x, q, mode: lib.quantile(x, q, interpolation=mode), (9,)),
    (lambda lib, x, q, mode: x.quantile(q, dim=0, interpolation=mode), (5, 3)),
    (lambda lib, x, q, mode: lib.quantile(x, q, dim=1, keepdim=True, interpolation=mode), (3, 5)),
    (lambda lib, x, q, mode: lib.quantile(x, q, keepdim=True, interpolation=mode), (2, 3, 2)),
    (lambda lib, x, q, mode: lib.nanquantile(x, q, dim=-1, interpolation=mode), (2, 3, 4)),
    (lambda lib, x, q, mode: lib.quantile(x, q[3], dim=0, interpolation=mode), (4, 3)),
    (lambda lib, x, q, mode: lib.quantile(x, q[:1], dim=0, interpolation=mode), (4, 3)),
    (lambda lib, x, q, mode: lib.quantile(x, q, dim=0, keepdim=True, interpolation=mode), ()),
    (lambda lib, x, q, mode: lib.nanquantile(x.detach(), q, 0, interpolation=mode,
                                             out=lib.empty(0, dtype=x.dtype)), (4, 3)),
]


@pytest.mark.parametrize("interpolation", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(TENSOR_Q_CASES)))
def test_quantile_tensor_q(case, dtype, interpolation):
    fn, shape = TENSOR_Q_CASES[case]
    check(lambda lib, x, q: fn(lib, x, q, interpolation), shape, Q.astype(dtype), dtype=dtype,
          grad_inputs=[0])


@pytest.mark.parametrize("dtype", DTYPES)
def test_quantile_gradient_reaches_q(dtype):
    q = np.array([0.15, 0.5, 0.8], dtype)
    check(lambda lib, x, q: lib.quantile(x, q, dim=1), (3, 6), q, dtype=dtype)
    # Rounded positions do not depend on q smoothly: no gradient reaches it.
    check(lambda lib, x, q: lib.quantile(x, q, interpolation="lower"), (3, 6), q, dtype=dtype,
          grad_inputs=[1])


ROWS_WITH_NAN = np.array([[1.0, NAN, 3.0, -2.0, 0.5],
                          [NAN, NAN, NAN, NAN, NAN],
                          [4.0, 2.0, -1.0, 0.0, 7.0]])


@pytest.mark.parametrize("interpolation", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_quantile_nan(dtype, interpolation):
    data = ROWS_WITH_NAN.astype(dtype)
    q = np.array([0.2, 0.5, 0.9], dtype)
    check(lambda lib, x, q: lib.quantile(x, q, dim=1, interpolation=interpolation), data, q,
          grad=False)
    check(lambda lib, x: lib.quantile(x, 0.5, interpolation=interpolation), data, grad=False)
    # nanquantile skips NaN, so its gradient reaches only the real values of real rows.
    check(lambda lib, x: lib.nanquantile(x[::2], 0.3, dim=1, interpolation=interpolation),
          data, grad=True)
    check(lambda lib, x, q: lib.nanquantile(x, q, dim=1, interpolation=interpolation), data, q,
          grad=False)
    check(lambda lib, x: lib.nanquantile(x, 0.7, interpolation=interpolation), data, grad=False)


def test_quantile_double_backward():
    def fn(lib, x):
        y = lib.quantile(x * x, lib.tensor([0.3, 0.8], dtype=x.dtype), dim=0)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        return g
    check(fn, (5, 3), dtype="float64")


# ---------------------------------------------------------------- cov, corrcoef
FWEIGHTS = np.array([1, 3, 0, 2, 1])
AWEIGHTS = np.array([0.5, 1.0, 2.0, 0.25, 1.5])

COV_CASES = [
    (lambda lib, x: lib.cov(x), (3, 5)),
    (lambda lib, x: x.cov(), (5,)),
    (lambda lib, x: lib.cov(x), (1, 5)),
    (lambda lib, x: lib.cov(x, correction=0), (3, 5)),
    (lambda lib, x: lib.cov(x, correction=2), (2, 5)),
    (lambda lib, x, f: lib.cov(x, fweights=f), (3, 5), FWEIGHTS),
    (lambda lib, x, f: lib.cov(x, fweights=f, correction=0), (3, 5), FWEIGHTS),
    (lambda lib, x, a: lib.cov(x, aweights=a), (3, 5), AWEIGHTS),
    (lambda lib, x, a: lib.cov(x, aweights=a, correction=3), (3, 5), AWEIGHTS),
    (lambda lib, x, f, a: lib.cov(x, fweights=f, aweights=a), (3, 5), FWEIGHTS, AWEIGHTS),
    (lambda lib, x, f, a: lib.cov(x, fweights=f, aweights=a, correction=0), (2, 5), FWEIGHTS,
     AWEIGHTS),
    (lambda lib, x: lib.corrcoef(x), (3, 5)),
    (lambda lib, x: x.corrcoef(), (5,)),
    (lambda lib, x: lib.corrcoef(x), (1, 4)),
    (lambda lib, x: lib.corrcoef(x), (4, 2)),
    (lambda lib, x: lib.cov(x), (0, 3)),
    (lambda lib, x: lib.corrcoef(x), (0, 3)),
]


@pytest.mark.parametrize("non_contiguous", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(COV_CASES)))
def test_cov_corrcoef(case, dtype, non_contiguous):
    fn, *specs = COV_CASES[case]
    specs = [s.astype(dtype) if isinstance(s, np.ndarray) and s.dtype.kind == "f" else s
             for s in specs]
    check(fn, *specs, dtype=dtype, non_contiguous=non_contiguous)


def test_cov_dtypes():
    ints = np.array([[1, 2, 4], [0, 1, 5]])
    check(lambda lib, x: lib.cov(x), ints, grad=False)
    check(lambda lib, x: lib.corrcoef(x), ints, grad=False)
    check(lambda lib, x, a: lib.cov(x, aweights=a), ints, np.array([1.0, 2.0, 1.0]), grad=False)
    check(lambda lib, x, a: lib.cov(x, aweights=a), ints.astype(np.float32),
          np.array([1.0, 2.0, 1.0]), grad=False)   # float64 weights promote the result
    check(lambda lib, x, f: lib.cov(x, fweights=f), ints.astype(np.float64),
          np.array([1, 2, 1], np.int32), grad=False)


@pytest.mark.parametrize("fn, shape", [
    (lambda lib, x: lib.cov(x), (2, 1)),
    (lambda lib, x: lib.cov(x, correction=5), (2, 3)),
    (lambda lib, x: lib.corrcoef(x), (2, 1)),
])
def test_cov_without_degrees_of_freedom_warns(fn, shape):
    message = "cov\\(\\): degrees of freedom is <= 0"
    with pytest.warns(UserWarning, match=message):
        check(fn, shape, grad=False)   # the values (inf, nan) match torch's
    with pytest.warns(UserWarning, match=message):
        fn(ember, ember.ones(shape))   # and ember warns by itself


def test_cov_of_too_few_observations():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda lib, x: lib.cov(x), (2, 0), grad=False)
        check(lambda lib, x: lib.cov(x), np.array(3.0), grad=False)
        check(lambda lib, x: lib.corrcoef(x), np.array(3.0), grad=False)


def test_corrcoef_of_a_constant_row():
    check(lambda lib, x: lib.corrcoef(x), np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 5.0]]),
          grad=False)


# ---------------------------------------------------------------- bincount
COUNTS = np.array([1, 4, 4, 0, 7, 1, 1])


@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.bincount(x),
    lambda lib, x: x.bincount(minlength=3),
    lambda lib, x: x.bincount(minlength=12),
    lambda lib, x: lib.bincount(x.to(lib.uint8)),
    lambda lib, x: lib.bincount(x.to(lib.int32), None, 2),
    lambda lib, x: lib.bincount(x[:0]),
    lambda lib, x: lib.bincount(x[:0], minlength=4),
    lambda lib, x: lib.bincount(x[:0], lib.ones(0, dtype=lib.float64), minlength=2),  # int64!
    lambda lib, x: lib.bincount(x, x.float() / 3),                       # float32 stays
    lambda lib, x: lib.bincount(x, x.double() / 3, minlength=10),        # float64
    lambda lib, x: lib.bincount(x, x),                                   # ints sum as float64
    lambda lib, x: lib.bincount(x, x.half()),                            # half sums as float64
    lambda lib, x: lib.bincount(x, x > 2),                               # bool too
])
def test_bincount(fn):
    check(fn, COUNTS, grad=False)


def test_bincount_weights_do_not_require_grad():
    w = ember.ones(3, requires_grad=True)
    assert not ember.bincount(ember.tensor([0, 2, 2]), w).requires_grad


# ---------------------------------------------------------------- histc, histogram
def _samples(dtype):
    r = np.random.default_rng(3)
    values = r.standard_normal(200).astype(dtype)
    values[:4] = [values.min(), values.max(), 0.5, 0.5]   # duplicates and the exact ends
    return values


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.histc(x),
    lambda lib, x: x.histc(bins=7),
    lambda lib, x: lib.histc(x, bins=5, min=-1, max=1),
    lambda lib, x: lib.histc(x, 3, 0.5, 0.5),                  # min == max: the data's range
    lambda lib, x: lib.histc(x.reshape(10, 20).t(), bins=9),  # any shape, non-contiguous
    lambda lib, x: lib.histc(x[:1], bins=4),                    # one value: widened by 1
    lambda lib, x: lib.histc(x[0], bins=4),
    lambda lib, x: lib.histc(x[:0], bins=4),
    lambda lib, x: lib.histc(x, bins=4, out=lib.empty(0, dtype=x.dtype)),
    lambda lib, x: lib.histc(x.half(), bins=6),
    lambda lib, x: lib.histc(x.to(lib.bfloat16), bins=6),
    lambda lib, x: lib.histogram(x),
    lambda lib, x: lib.histogram(x, 6),
    lambda lib, x: x.histogram(4, range=(-1.0, 2.0)),
    lambda lib, x: lib.histogram(x, 5, density=True),
    lambda lib, x: lib.histogram(x, 5, weight=x.abs(), density=True),
    lambda lib, x: lib.histogram(x.reshape(8, 25), 5, weight=x.abs().reshape(8, 25)),
    lambda lib, x: lib.histogram(x.reshape(8, 25), 5, weight=x.abs()),
    lambda lib, x: lib.histogram(x[:1], 3),                     # flat: widened by 0.5
    lambda lib, x: lib.histogram(x[:0], 3),                     # empty: range (0, 1)
    lambda lib, x: lib.histogram(x[:0], 2, density=True),
    lambda lib, x: lib.histogram(x, 3, range=(0.5, 0.5)),
    lambda lib, x: lib.histogram(x, x.new_tensor([-2.0, -0.5, 0.0, 0.1, 3.0])),
    lambda lib, x: lib.histogram(x, bins=x.new_tensor([-1.0, 1.0]), weight=x * 2),
    lambda lib, x: lib.histogram(x, x.new_tensor([-1.0, -1.0, 1.0]), density=True),
    lambda lib, x: lib.histogram(x, x.new_tensor([1.0, 0.0, -1.0])),   # decreasing: empty
])
def test_histograms(fn, dtype):
    check(fn, _samples(dtype), grad=False)


def test_histc_ignores_nan_inside_a_given_range():
    check(lambda lib, x: lib.histc(x, bins=3, min=0, max=3),
          np.array([1.0, NAN, 2.5, 3.0, -1.0], np.float32), grad=False)


def test_histograms_do_not_require_grad():
    x = ember.randn(10, requires_grad=True)
    assert not ember.histc(x).requires_grad
    hist, edges = ember.histogram(x, 4)
    assert not hist.requires_grad and not edges.requires_grad


def test_histogram_return_type():
    result = ember.histogram(ember.tensor([1.0, 2.0, 3.0]), 2)
    assert type(result) is ember.return_types.histogram
    assert result.hist is result[0] and result.bin_edges is result[1]
    assert repr(result).startswith("torch.return_types.histogram(\nhist=tensor([1., 2.])")


# ---------------------------------------------------------------- isin
@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.isin(x, x[::3]),
    lambda lib, x: lib.isin(x, x[::3], invert=True),
    lambda lib, x: lib.isin(x.reshape(2, 6), x[:4].reshape(2, 2), assume_unique=False),
    lambda lib, x: lib.isin(x, 4),
    lambda lib, x: lib.isin(x, 4.0),
    lambda lib, x: lib.isin(x, 4.5),                             # promoted to float: no match
    lambda lib, x: lib.isin(7, x),
    lambda lib, x: lib.isin(x.float() / 2, x),
    lambda lib, x: lib.isin(x.to(lib.uint8), x - 256),            # compared as int64, no wrap
    lambda lib, x: lib.isin(x.half(), x.float()),
    lambda lib, x: lib.isin(x[0], x),
    lambda lib, x: lib.isin(x[:0], x),
    lambda lib, x: lib.isin(x, x[:0]),
    lambda lib, x: lib.isin(elements=x, test_elements=x[:2]),
    lambda lib, x: lib.isin(x, 4, out=lib.empty(0, dtype=lib.bool)),
])
def test_isin(fn):
    check(fn, np.array([3, 4, 9, 0, 1, 4, 7, 5, 2, 8, 10, 12]), grad=False)


def test_isin_nan_matches_nothing():
    check(lambda lib, x: lib.isin(x, x), np.array([1.0, NAN, 2.0]), grad=False)


# ---------------------------------------------------------------- errors
ERRORS = [
    (lambda lib: lib.bincount(lib.tensor([1, -1])), RuntimeError,
     "bincount only supports 1-d non-negative integral inputs."),
    (lambda lib: lib.bincount(lib.tensor([[1, 1]])), RuntimeError,
     "bincount only supports 1-d non-negative integral inputs."),
    (lambda lib: lib.bincount(lib.tensor(3)), RuntimeError,
     "bincount only supports 1-d non-negative integral inputs."),
    (lambda lib: lib.bincount(lib.tensor([1.0, 2.0])), NotImplementedError,
     "\"bincount_cpu\" not implemented for 'Float'"),
    (lambda lib: lib.bincount(lib.tensor([True])), NotImplementedError,
     "\"bincount_cpu\" not implemented for 'Bool'"),
    (lambda lib: lib.bincount(lib.tensor([1, 2]), lib.tensor([1.0])), RuntimeError,
     "weights should be 1-d and have the same length as input"),
    (lambda lib: lib.bincount(lib.tensor([1, 2]), minlength=-1), RuntimeError,
     "minlength should be >= 0"),
    (lambda lib: lib.histc(lib.tensor([1, 2])), NotImplementedError,
     "\"histogram_cpu\" not implemented for 'Long'"),
    (lambda lib: lib.histc(lib.ones(3), bins=4, min=3, max=1), RuntimeError,
     "torch.histc: max must be larger than min"),
    (lambda lib: lib.histc(lib.ones(3), bins=0), RuntimeError,
     "torch.histogram\\(\\): bins must be > 0, but got 0 for dimension 0"),
    (lambda lib: lib.histc(lib.tensor([1.0, NAN])), RuntimeError, "torch.histc: range of \\["),
    (lambda lib: lib.histc(lib.tensor([1.0, float("inf")])), RuntimeError,
     "torch.histc: range of \\[1, inf\\] is not finite"),
    (lambda lib: lib.histc(lib.ones(3), min=0, max=float("inf")), RuntimeError,
     "torch.histc: range of \\[0, inf\\] is not finite"),
    (lambda lib: lib.histogram(lib.tensor([1, 2]), 2), NotImplementedError,
     "\"histogramdd\" not implemented for 'Long'"),
    (lambda lib: lib.histogram(lib.ones(2, dtype=lib.float16), 2), NotImplementedError,
     "\"histogramdd\" not implemented for 'Half'"),
    (lambda lib: lib.histogram(lib.ones(3), 0), RuntimeError,
     "torch.histogram\\(\\): bins must be > 0, but got 0 for dimension 0"),
    (lambda lib: lib.histogram(lib.ones(3), lib.tensor([5.0])), RuntimeError,
     "torch.histogram\\(\\): bins must be > 0, but got 0 for dimension 0"),
    (lambda lib: lib.histogram(lib.ones(3), 3, range=(1.0, 0.0)), RuntimeError,
     "torch.histogramdd: min should not exceed max, but got min 1 max 0 for dimension 0"),
    (lambda lib: lib.histogram(lib.ones(3), 3, range=(0.0, 1.0, 2.0)), RuntimeError,
     "for a 1-dimensional histogram range should have 2 elements, but got 3"),
    (lambda lib: lib.histogram(lib.ones(3), 2, range=(NAN, 1.0)), RuntimeError,
     "torch.histogramdd: dimension 0's range \\[nan, 1\\] is not finite"),
    (lambda lib: lib.histogram(lib.tensor([1.0, NAN]), 2), RuntimeError,
     "torch.histogramdd: dimension 0's range \\[nan, nan\\] is not finite"),
    (lambda lib: lib.histogram(lib.ones(3), lib.tensor([0, 1, 5])), RuntimeError,
     "input tensor and bins tensors should have the same dtype, but got input with dtype float "
     "and bins for dimension 0 with dtype long int"),
    (lambda lib: lib.histogram(lib.ones(3), lib.ones(1, 3)), RuntimeError,
     "bins tensor should have one dimension, but got 2 dimensions"),
    (lambda lib: lib.histogram(lib.ones(3), 3, weight=lib.ones(2)), RuntimeError,
     "same shape as the input tensor excluding its innermost dimension, but got input with "
     "shape \\[3, 1\\] and weight with shape \\[2\\]"),
    (lambda lib: lib.histogram(lib.ones(3, dtype=lib.float64), 3, weight=lib.ones(3)),
     RuntimeError, "input tensor and weight tensor should have the same dtype, but got "
     "input\\(double\\), and weight\\(float\\)"),
    (lambda lib: lib.isin(lib.tensor([True]), lib.tensor([True])), RuntimeError,
     "Unsupported input type encountered for isin\\(\\): Bool"),
    (lambda lib: lib.isin(lib.tensor([1]), True), RuntimeError,
     "Unsupported input type encountered for isin\\(\\): Bool"),
    (lambda lib: lib.isin(lib.tensor([1j]), lib.tensor([1j])), RuntimeError,
     "Unsupported input type encountered for isin\\(\\): ComplexFloat"),
    (lambda lib: lib.isin(2, 3), TypeError,
     "isin\\(\\) received an invalid combination of arguments - got \\(int, int\\)"),
    (lambda lib: lib.cov(lib.ones(2, 3, 4)), RuntimeError,
     "cov\\(\\): expected input to have two or fewer dimensions but got an input with 3"),
    (lambda lib: lib.corrcoef(lib.ones(2, 3, 4)), RuntimeError,
     "corrcoef\\(\\): expected input to have two or fewer dimensions but got an input with 3"),
    (lambda lib: lib.cov(lib.ones(2, 3, dtype=lib.bool)), RuntimeError,
     "cov\\(\\): bool dtype is not supported for input"),
    (lambda lib: lib.cov(lib.ones(2, 3), correction=1.5), TypeError,
     "cov\\(\\): argument 'correction' must be int, not float"),
    (lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(3)), RuntimeError,
     "cov\\(\\): expected fweights to have integral dtype but got fweights with Float dtype"),
    (lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.tensor([1, -2, 1])), RuntimeError,
     "cov\\(\\): fweights cannot be negative"),
    (lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.tensor([1, 2])), RuntimeError,
     "expected fweights to have the same numel as there are observations in the input but "
     "got 2 != 3"),
    (lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(1, 3, dtype=lib.long)), RuntimeError,
     "expected fweights to have one or fewer dimensions but got fweights with 2 dimensions"),
    (lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.tensor([1, 2, 1])), RuntimeError,
     "expected aweights to have floating point dtype but got aweights with Long dtype"),
    (lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.tensor([1.0, -2.0, 1.0])), RuntimeError,
     "cov\\(\\): aweights cannot be negative"),
    (lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.zeros(3)), RuntimeError,
     "cov\\(\\): weights sum to zero, can't be normalized"),
    (lambda lib: lib.quantile(lib.tensor([1, 2]), 0.5), RuntimeError,
     "quantile\\(\\) input tensor must be either float or double dtype"),
    (lambda lib: lib.quantile(lib.ones(2, dtype=lib.float16), 0.5), RuntimeError,
     "quantile\\(\\) input tensor must be either float or double dtype"),
    (lambda lib: lib.quantile(lib.ones(3), 1.5), RuntimeError,
     "quantile\\(\\) q must be in the range \\[0, 1\\] but got 1.5"),
    (lambda lib: lib.nanquantile(lib.ones(3), -0.1), RuntimeError,
     "quantile\\(\\) q must be in the range \\[0, 1\\] but got -0.1"),
    (lambda lib: lib.quantile(lib.ones(3), lib.tensor([0.1, 1.5])), RuntimeError,
     "quantile\\(\\) q values must be in the range \\[0, 1\\]"),
    (lambda lib: lib.quantile(lib.ones(3), lib.ones(1, 2) / 2), RuntimeError,
     "quantile\\(\\) q must be a scalar or 1D tensor"),
    (lambda lib: lib.quantile(lib.ones(3), lib.tensor([0.5], dtype=lib.float64)), RuntimeError,
     "quantile\\(\\) q tensor must be same dtype as the input tensor"),
    (lambda lib: lib.quantile(lib.ones(3), 0.5, interpolation="foo"), RuntimeError,
     "quantile\\(\\) interpolation must be one of linear, lower, higher, midpoint or nearest, "
     "but got foo"),
    (lambda lib: lib.quantile(lib.ones(0), 0.5), RuntimeError,
     "quantile\\(\\) input tensor must be non-empty"),
    (lambda lib: lib.nanquantile(lib.ones(0, 3), 0.5, dim=1), RuntimeError,
     "quantile\\(\\) input tensor must be non-empty"),
    (lambda lib: lib.quantile(lib.ones(3), 0.5, dim=2), IndexError, "Dimension out of range"),
    (lambda lib: lib.quantile(lib.zeros(2 ** 24 + 1), 0.5), RuntimeError,
     "quantile\\(\\) input tensor is too large"),
]


@pytest.mark.parametrize("fn, error, match", ERRORS)
def test_errors(fn, error, match):
    check_error(fn, error, match)


# ---------------------------------------------------------------- histogramdd
HISTOGRAMDD_POINTS = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.5], [0.5, 3.0], [1.5, -1.0]])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", [
    lambda lib: {"bins": [2, 3]}, lambda lib: {"bins": 2, "range": [0.0, 1.0, 0.0, 2.0]},
    lambda lib: {"bins": 3, "density": True},
    lambda lib: {"bins": [lib.tensor([0.0, 1.0, 3.0]), lib.tensor([-1.0, 2.0, 4.0])],
                 "weight": lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0])},
    lambda lib: {"bins": [4, 1], "density": True, "weight": lib.arange(5.0)},
])
def test_histogramdd(kwargs, dtype):
    def hist(lib, x):
        kw = {k: (v.to(x.dtype) if isinstance(v, lib.Tensor) else
                  [b.to(x.dtype) if isinstance(b, lib.Tensor) else b for b in v]
                  if isinstance(v, list) else v) for k, v in kwargs(lib).items()}
        out = lib.histogramdd(x, **kw)
        return [out.hist, *out.bin_edges]
    check(hist, HISTOGRAMDD_POINTS.astype(dtype), grad=False)


def test_histogramdd_batched_points_and_errors():
    check(lambda lib, x: list(lib.histogramdd(x, bins=3)), (2, 3, 2), grad=False)
    check(lambda lib, x: lib.histogramdd(x, bins=(2, 2, 2)).hist, (4, 3), grad=False)
    check_error(lambda lib: lib.histogramdd(lib.ones(4, 2), bins=2, range=[0.0, 1.0]),
                RuntimeError, r"torch.histogramdd: for a 2-dimensional histogram range should "
                              r"have 4 elements, but got 2")
    check_error(lambda lib: lib.histogramdd(lib.ones(4, 2), bins=[2, 2, 2]), RuntimeError,
                r"histogramdd: The size of bins must be equal to the innermost dimension")
    check_error(lambda lib: lib.histogramdd(lib.ones(5), bins=2), RuntimeError,
                r"torch.histogramdd: input tensor should have at least 2 dimensions")
    check_error(lambda lib: lib.histogramdd(lib.ones(4, 2), bins=2, weight=lib.ones(4, 2)),
                RuntimeError, r"should have the same shape as the input tensor excluding its "
                              r"innermost dimension, but got input with shape \[4, 2\] and "
                              r"weight with shape \[4, 2\]")
