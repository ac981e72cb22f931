"""F.linear/F.bilinear, Linear/Bilinear/Identity/Flatten, and every activation against torch."""
import re
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from oracle import check, check_error

ACTIVATIONS = [
    ("relu", {}), ("relu6", {}), ("leaky_relu", {"negative_slope": 0.2}), ("elu", {}),
    ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {"alpha": 2.0}), ("gelu", {}),
    ("gelu", {"approximate": "tanh"}), ("silu", {}), ("mish", {}), ("sigmoid", {}),
    ("tanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 0.7}), ("hardsigmoid", {}),
    ("hardswish", {}), ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 1.0}),
    ("softsign", {}), ("softshrink", {"lambd": 0.3}), ("hardshrink", {"lambd": 0.3}),
    ("tanhshrink", {}), ("threshold", {"threshold": 0.1, "value": -2.0}), ("logsigmoid", {}),
    ("softmax", {"dim": 1}), ("softmax", {"dim": -1}), ("log_softmax", {"dim": 0}),
    ("log_softmax", {"dim": -1}), ("softmin", {"dim": 1}), ("glu", {"dim": 1}), ("glu", {}),
]


def _scaled(x):
    return x * 4  # spread the inputs over the interesting ranges (|x| up to ~10)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", ACTIVATIONS)
def test_functional_activation(name, kwargs, dtype):
    check(lambda lib, x: getattr(lib.nn.functional, name)(_scaled(x), **kwargs), (3, 4, 6),
          dtype=dtype)


@pytest.mark.parametrize("name,kwargs", [a for a in ACTIVATIONS if a[0] != "glu"])
def test_activation_zero_dim_and_empty(name, kwargs):
    kw = {k: (0 if k == "dim" else v) for k, v in kwargs.items()}
    check(lambda lib, x: getattr(lib.nn.functional, name)(x, **kw), ())
    check(lambda lib, x: getattr(lib.nn.functional, name)(x, **kw), (0, 3))


@pytest.mark.parametrize("name,kwargs", [("relu", {}), ("gelu", {}), ("elu", {}),
                                         ("silu", {}), ("mish", {}), ("softplus", {}),
                                         ("softmax", {"dim": 1}), ("log_softmax", {"dim": 1}),
                                         ("gelu", {"approximate": "tanh"}), ("logsigmoid", {}),
                                         ("selu", {}), ("celu", {"alpha": 2.0})])
def test_activation_double_backward(name, kwargs):
    def second(lib, x):
        y = getattr(lib.nn.functional, name)(x * 3, **kwargs)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        return g
    check(second, (4, 5), dtype="float64")


@pytest.mark.parametrize("name,kwargs", [("relu", {}), ("leaky_relu", {"negative_slope": 0.1}),
                                         ("elu", {}), ("hardtanh", {}), ("relu6", {}),
                                         ("threshold", {"threshold": 0.1, "value": 1.0}),
                                         ("silu", {}), ("hardswish", {}), ("selu", {})])
def test_inplace_activation(name, kwargs):
    def fn(lib, x):
        y = x * 2
        out = getattr(lib.nn.functional, name)(y, inplace=True, **kwargs)
        assert out is y
        return out
    check(fn, (3, 5))


@pytest.mark.parametrize("fn", [lambda F, x: F.hardtanh(x), lambda F, x: F.relu6(x),
                                lambda F, x: F.hardtanh(x, -1.5, 2.5)])
def test_hardtanh_of_integers_keeps_the_dtype(fn):
    check(lambda lib, x: fn(lib.nn.functional, x), np.array([-3, 0, 2, 8]), grad=False)


@pytest.mark.parametrize("inplace", [False, True])
def test_silu_complex(inplace):
    # computed without autograd; an input that requires grad gets torch's error
    check(lambda lib, x, y: lib.nn.functional.silu(lib.complex(x, y) * 1, inplace=inplace),
          (3, 4), (3, 4), grad=False)
    check_error(lambda lib: lib.nn.functional.silu(lib.ones(2, dtype=lib.complex64,
                                                            requires_grad=True)),
                RuntimeError, r"^silu does not support automatic differentiation for outputs "
                r"with complex dtype")


def test_grad_fn_names():
    x = ember.randn(3, 4, requires_grad=True)
    F = ember.nn.functional
    names = {"relu": "ReluBackward0", "relu6": "HardtanhBackward0", "selu": "EluBackward0",
             "celu": "CeluBackward0", "gelu": "GeluBackward0", "softsign": "DivBackward0",
             "tanhshrink": "SubBackward0", "logsigmoid": "LogSigmoidBackward0"}
    for fn, expected in names.items():
        assert getattr(F, fn)(x).grad_fn.name() == expected
    assert F.softmax(x, 1).grad_fn.name() == "SoftmaxBackward0"
    assert F.log_softmax(x, 1).grad_fn.name() == "LogSoftmaxBackward0"


@pytest.mark.parametrize("bias", [True, False])
def test_linear_next_functions_in_torchs_order(bias):
    """addmm(bias, x, W^T) lists the bias first: the blitz tutorial walks
    loss.grad_fn.next_functions[0][0] and prints what comes out. (torch's weight edge goes
    through a TBackward0 node that ember's fused node has not: not compared.)"""
    def walk(lib):
        layer = lib.nn.Linear(4, 3, bias=bias)
        x = lib.ones(2, 4, requires_grad=True).relu()
        edges = layer(x).grad_fn.next_functions
        bias_node = edges[0][0] if bias else None
        return ([type(n).__name__ for n, _ in edges[:2 if bias else 1]],
                bias and bias_node.variable is layer.bias)
    assert walk(ember) == walk(torch)


def test_softmax_stable_and_dtype():
    big = np.array([[1000.0, 1001.0, 1002.0], [-1e4, 0.0, 1e4]], dtype=np.float32)
    check(lambda lib, x: lib.nn.functional.softmax(x, dim=1), big)
    check(lambda lib, x: lib.nn.functional.log_softmax(x, dim=1), big)
    check(lambda lib, x: lib.nn.functional.softmax(x, dim=0, dtype=lib.float64), (3, 4))
    check(lambda lib, x: lib.nn.functional.softmax(x, 1), (3, 4), non_contiguous=True)


def test_softmax_implicit_dim_warns():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            lib.nn.functional.softmax(lib.ones(2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda lib, x: lib.nn.functional.softmax(x), (2, 3))
        check(lambda lib, x: lib.nn.functional.log_softmax(x), (2, 3, 4))
        check(lambda lib, x: lib.nn.functional.softmin(x), (4,))


@pytest.mark.parametrize("wshape,xshape", [((1,), (4, 3, 5)), ((3,), (4, 3, 5)),
                                           ((3,), (2, 3)), ((1,), (5,)),
                                           ((1,), ()), ((), (2, 3))])  # shared weight
def test_prelu(wshape, xshape):
    check(lambda lib, x, w: lib.nn.functional.prelu(x, w), xshape, wshape)


def test_activation_errors():
    check_error(lambda lib: lib.nn.functional.gelu(lib.ones(2), approximate="foo"),
                RuntimeError, "^approximate argument must be either none or tanh")
    check_error(lambda lib: lib.nn.functional.glu(lib.ones(3, 3)), RuntimeError,
                "^Halving dimension must be even, but dimension 1 is size 3")
    check_error(lambda lib: lib.nn.functional.prelu(lib.ones(2, 4), lib.ones(3)), RuntimeError,
                "^Mismatch of parameter numbers and input channel size")
    check_error(lambda lib: lib.nn.functional.prelu(lib.ones(5), lib.ones(1, 1)), RuntimeError,
                "^prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2")
    check_error(lambda lib: lib.nn.functional.relu_(lib.ones(2, requires_grad=True)),
                RuntimeError, "^a leaf Variable that requires grad")


@pytest.mark.parametrize("value", [1, [1.0, 2.0]])
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_family_of_a_non_tensor(name, value):
    """nn.Softmax(dim=1)(1), a slip in a ResNet forward, fails as torch's: F.* on the missing
    Tensor method (softmin negating first), torch.* on the argument's type."""
    functional = getattr(torch.nn.functional, name)
    with pytest.raises(Exception) as torch_err:
        functional(value, dim=0)
    check_error(lambda lib: getattr(lib.nn.functional, name)(value, dim=0), type(torch_err.value),
                "^" + re.escape(str(torch_err.value)) + "$")
    if name != "softmin":
        check_error(lambda lib: getattr(lib, name)(value, 0), TypeError,
                    rf"^{name}\(\): argument 'input' \(position 1\) must be Tensor, not "
                    f"{type(value).__name__}$")


MODULE_REPRS = [
    lambda nn: nn.ReLU(), lambda nn: nn.ReLU(inplace=True), lambda nn: nn.ReLU6(True),
    lambda nn: nn.LeakyReLU(0.2, True), lambda nn: nn.PReLU(3), lambda nn: nn.ELU(),
    lambda nn: nn.CELU(2.0, True), lambda nn: nn.SELU(), lambda nn: nn.GELU("tanh"),
    lambda nn: nn.SiLU(True), lambda nn: nn.Mish(), lambda nn: nn.Sigmoid(),
    lambda nn: nn.Tanh(), lambda nn: nn.Hardtanh(-2, 3), lambda nn: nn.Hardsigmoid(True),
    lambda nn: nn.Hardswish(), lambda nn: nn.Softplus(2, 10), lambda nn: nn.Softsign(),
    lambda nn: nn.Softshrink(1), lambda nn: nn.Hardshrink(), lambda nn: nn.Tanhshrink(),
    lambda nn: nn.Threshold(0.1, 2), lambda nn: nn.LogSigmoid(), lambda nn: nn.Softmax(),
    lambda nn: nn.Softmax(dim=1), lambda nn: nn.LogSoftmax(1), lambda nn: nn.Softmin(0),
    lambda nn: nn.GLU(), lambda nn: nn.Identity(3, k=2), lambda nn: nn.Flatten(),
    lambda nn: nn.Flatten(0, 2), lambda nn: nn.Unflatten(1, (2, 3)),
    lambda nn: nn.Linear(4, 2), lambda nn: nn.Linear(4, 2, bias=False),
    lambda nn: nn.Bilinear(2, 3, 4),
]


@pytest.mark.parametrize("make", MODULE_REPRS)
def test_module_reprs(make):
    assert repr(make(ember.nn)) == repr(make(torch.nn))


@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.PReLU(), (2, 3, 4)), (lambda nn: nn.PReLU(3), (2, 3, 4)),
    (lambda nn: nn.Softmax(dim=-1), (2, 3)), (lambda nn: nn.GELU(), (2, 3)),
    (lambda nn: nn.Flatten(), (2, 3, 4)), (lambda nn: nn.Unflatten(1, (2, 2)), (3, 4)),
    (lambda nn: nn.Threshold(0.1, 20.0), (2, 3)), (lambda nn: nn.Hardtanh(-0.5, 0.5), (4,)),
])
def test_activation_modules(make, shape):
    t, e = make(torch.nn), make(ember.nn)
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    check(lambda lib, x: (t if lib is torch else e)(x), shape)


def _linear_pair(cls_args, dtype, bias=True, cls="Linear"):
    t = getattr(torch.nn, cls)(*cls_args, bias=bias).to(getattr(torch, dtype))
    e = getattr(ember.nn, cls)(*cls_args, bias=bias).to(getattr(ember, dtype))
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, e


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 4), (4,), (2, 3, 4), (0, 4)])
def test_linear_module(dtype, bias, shape):
    t, e = _linear_pair((4, 3), dtype, bias)
    check(lambda lib, x: (t if lib is torch else e)(x), shape, dtype=dtype)
    # The parameter gradients too (check() pushed the same upstream gradient through both).
    for name, tp in t.named_parameters():
        np.testing.assert_allclose(e.get_parameter(name).grad.numpy(), tp.grad.numpy(),
                                   rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(5, 4), (4,), (2, 3, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_grad_fn_name(shape, bias):
    tw, ew = torch.ones(3, 4, requires_grad=True), ember.ones(3, 4, requires_grad=True)
    tb = torch.ones(3) if bias else None
    eb = ember.ones(3) if bias else None
    tn = torch.nn.functional.linear(torch.ones(shape), tw, tb).grad_fn.name()
    en = ember.nn.functional.linear(ember.ones(shape), ew, eb).grad_fn.name()
    assert en == tn


def test_functional_linear_non_contiguous_and_errors():
    check(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), (3, 4), (5, 4), (5,),
          non_contiguous=True)
    check(lambda lib, x, w: lib.nn.functional.linear(x, w.t()), (3, 4), (4, 5))
    check_error(lambda lib: lib.nn.functional.linear(lib.ones(2, 3), lib.ones(4, 5)),
                RuntimeError, r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 5x4\)")
    check_error(lambda lib: lib.nn.functional.linear(lib.ones(2, 3),
                                                     lib.ones(4, 3, dtype=lib.float64)),
                RuntimeError, "^expected m1 and m2 to have the same dtype, but got: float != double")
    check_error(lambda lib: lib.nn.functional.linear(lib.ones(2, 3), lib.ones(4, 3),
                                                     lib.ones(4, dtype=lib.float64)),
                RuntimeError, "^self and mat2 must have the same dtype, but got Double and Float")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bilinear(dtype):
    check(lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b, w, c), (5, 2), (5, 3),
          (4, 2, 3), (4,), dtype=dtype)
    check(lambda lib, a, b, w: lib.nn.functional.bilinear(a, b, w), (2, 5, 2), (2, 5, 3),
          (4, 2, 3), dtype=dtype)
    t, e = _linear_pair((2, 3, 4), dtype, cls="Bilinear")
    check(lambda lib, a, b: (t if lib is torch else e)(a, b), (5, 2), (5, 3), dtype=dtype)


def test_linear_init_bounds():
    ember.manual_seed(0)
    lin = ember.nn.Linear(400, 300)
    bound = 1 / np.sqrt(400)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.9 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.01 * bound
    assert lin.weight.shape == (300, 400) and lin.weight.dtype == ember.float32
    assert ember.nn.Linear(3, 2, dtype=ember.float64).weight.dtype == ember.float64


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name, args", [("relu", ()), ("hardtanh", (-0.5, 0.5)),
                                        ("threshold", (0.1, 2.0))])
def test_gated_backward_zeroes_nan_inf_and_negative_gradients(name, args, dtype):
    # Where the gate is closed the gradient is +0 whatever flows in (NaN, inf, -1).
    x = np.array([-1.0, 0.0, 0.3, -2.0, 0.2, 3.0, -0.7, 0.05], dtype=dtype)
    g = np.array([np.nan, np.inf, -1.0, -1.0, np.nan, -np.inf, -0.0, 2.0], dtype=dtype)
    grads = []
    for lib in (torch, ember):
        xt = lib.tensor(x, requires_grad=True)
        getattr(lib.nn.functional, name)(xt, *args).backward(lib.tensor(g))
        grads.append(xt.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
    np.testing.assert_array_equal(np.signbit(grads[1]), np.signbit(grads[0]))
