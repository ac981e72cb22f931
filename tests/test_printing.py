"""repr/str of tensors must be exactly torch's text (ember/_printing.py)."""
import numpy as np
import pytest
import torch

import ember

R = np.random.default_rng(0)
NAN, INF = float("nan"), float("inf")


def arr(values, dtype="float32"):
    return np.array(values, dtype=dtype)


def randn(*shape, dtype="float32", scale=1.0):
    return (R.standard_normal(shape) * scale).astype(dtype)


# (name, array, lib dtype name or None, requires_grad)
CASES = [
    ("floats", arr([1.0, 2.0, 3.0]), None, False),
    ("random_matrix", randn(3, 4), None, False),
    ("mixed_sign", arr([[0.1234, -1.0], [2.5, 3.0]]), None, False),
    ("integer_valued_negative", arr([-1.0, 0.0, 25.0, -300.0]), None, False),
    ("zero_dim_float", arr(3.5), None, False),
    ("zero_dim_integer_valued", arr(-2.0), None, False),
    ("zero_dim_int", np.array(7), None, False),
    ("zero_dim_bool", np.array(True), None, False),
    ("zero_dim_tiny", arr(1e-7), None, False),
    ("zero_dim_nan", arr(NAN), None, False),
    ("empty", arr([]), None, False),
    ("empty_2d", np.zeros((0, 3), "float32"), None, False),
    ("empty_int", np.zeros((0,), "int64"), None, False),
    ("empty_3d_double", np.zeros((2, 0, 1)), None, False),
    ("empty_bool", np.zeros((0,), bool), None, False),
    ("ints", np.array([1, -20, 300]), None, False),
    ("int32", np.array([[1, 2], [3, 4]], "int32"), None, False),
    ("uint8", np.array([0, 255, 7], "uint8"), None, False),
    ("int8_3d", np.arange(-12, 12, dtype="int8").reshape(2, 3, 4), None, False),
    ("bools", np.array([[True, False], [False, True]]), None, False),
    ("float64", randn(2, 3, dtype="float64"), None, False),
    ("float16", randn(5, dtype="float16"), None, False),
    ("bfloat16", randn(2, 3), "bfloat16", False),
    ("huge", arr([1e10, 2.5e9, -3e10]), None, False),
    ("tiny", arr([1e-5, 2e-6, -3.3e-7]), None, False),
    ("wide_ratio", arr([0.001, 10.0, 2.5]), None, False),
    ("wide_ratio_ints", arr([1.0, 5000.0, -3.0]), None, False),
    ("ints_over_1e8", arr([1e9, 3.0]), None, False),
    ("nan_inf", arr([NAN, INF, -INF, 1.5]), None, False),
    ("only_nan_inf", arr([NAN, INF, 0.0]), None, False),
    ("nan_integer_valued", arr([NAN, 2.0, -INF]), None, False),
    ("zeros", np.zeros((2, 2), "float32"), None, False),
    ("negative_zero", arr([-0.0, 0.0]), None, False),
    ("long_row_wraps", randn(40), None, False),
    ("long_int_row_wraps", np.arange(100) * 37, None, False),
    ("long_row_sci", randn(30, scale=1e-6), None, False),
    ("three_d", randn(2, 3, 4), None, False),
    ("four_d", randn(2, 2, 2, 3), None, False),
    ("summarised_1d", randn(2000), None, False),
    ("summarised_2d", randn(50, 40), None, False),
    ("summarised_3d_int", np.arange(24000).reshape(20, 30, 40), None, False),
    ("summarised_narrow_rows", randn(600, 2), None, False),
    ("summarised_edge_only", np.arange(1001, dtype="float32"), None, False),
    ("complex", np.array([1 + 2j, -3.5 - 1j, 0.25j], "complex64"), None, False),
    ("complex128_matrix", (randn(2, 2, dtype="float64") + 1j * randn(2, 2, dtype="float64")),
     None, False),
    ("complex_zero_dim", np.array(1 - 1j, "complex64"), None, False),
    ("requires_grad", randn(3), None, True),
    ("requires_grad_double", randn(2, 2, dtype="float64"), None, True),
    ("requires_grad_long_wraps_suffix", randn(4, 7), None, True),
]


def build(lib, array, dtype, requires_grad):
    t = lib.from_numpy(array.copy())
    if dtype is not None:
        t = t.to(getattr(lib, dtype))
    if requires_grad:
        t.requires_grad_(True)
    return t


@pytest.mark.parametrize("name,array,dtype,requires_grad", CASES, ids=[c[0] for c in CASES])
def test_repr_matches_torch(name, array, dtype, requires_grad):
    t = build(torch, array, dtype, requires_grad)
    e = build(ember, array, dtype, requires_grad)
    assert repr(e) == repr(t)
    assert str(e) == str(t)


GRAPH_CASES = [
    ("mul", lambda lib, x: x * 2),
    ("sum", lambda lib, x: x.sum()),
    ("matmul", lambda lib, x: x @ x.t()),
    ("view", lambda lib, x: x.view(-1)),
    ("exp_double", lambda lib, x: x.double().exp()),
]


@pytest.mark.parametrize("name,fn", GRAPH_CASES, ids=[c[0] for c in GRAPH_CASES])
def test_grad_fn_suffix(name, fn):
    array = randn(3, 3)
    t = fn(torch, torch.from_numpy(array.copy()).requires_grad_())
    e = fn(ember, ember.from_numpy(array.copy()).requires_grad_())
    assert repr(e) == repr(t)


@pytest.fixture
def restore_options():
    yield
    torch.set_printoptions(profile="default")
    ember.set_printoptions(profile="default")


OPTION_CASES = [
    ({"precision": 2}, randn(3, 3)),
    ({"precision": 8}, randn(4)),
    ({"precision": 0}, arr([1.5, -2.25])),
    ({"threshold": 5}, np.arange(10)),
    ({"threshold": 5, "edgeitems": 1}, randn(4, 4)),
    ({"edgeitems": 0, "threshold": 5}, randn(4, 4)),
    ({"edgeitems": 0, "threshold": 5}, randn(10)),
    ({"linewidth": 30}, randn(12)),
    ({"linewidth": 200}, randn(3, 30)),
    ({"sci_mode": True}, randn(3)),
    ({"sci_mode": True}, arr([1.0, 2.0])),
    ({"sci_mode": False}, arr([1e-8, 1.0, 1e9])),
    ({"sci_mode": True}, arr([0.0, NAN])),
    ({"profile": "short"}, randn(10, 10)),
    ({"profile": "short"}, randn(2000)),
    ({"profile": "full"}, randn(1200)),
    ({"profile": "full", "precision": 2}, randn(30, 40)),
    ({"profile": "short", "sci_mode": True}, np.array([1 + 1j, 2.5j], "complex64")),
]


@pytest.mark.parametrize("options,array", OPTION_CASES)
def test_set_printoptions(options, array, restore_options):
    torch.set_printoptions(**options)
    ember.set_printoptions(**options)
    assert repr(ember.from_numpy(array.copy())) == repr(torch.from_numpy(array.copy()))


def test_profile_default_restores(restore_options):
    ember.set_printoptions(precision=1, threshold=3, edgeitems=1, linewidth=20, sci_mode=True)
    ember.set_printoptions(profile="default")
    array = randn(5)
    assert repr(ember.from_numpy(array.copy())) == repr(torch.from_numpy(array.copy()))


def test_default_dtype_float64_changes_suffix():
    array = randn(3)
    try:
        torch.set_default_dtype(torch.float64)
        ember.set_default_dtype(ember.float64)
        for a in (array, array.astype("float64"), array.astype("complex128"),
                  array.astype("complex64"), np.zeros((0,), "float64")):
            assert repr(ember.from_numpy(a.copy())) == repr(torch.from_numpy(a.copy()))
    finally:
        torch.set_default_dtype(torch.float32)
        ember.set_default_dtype(ember.float32)


def test_format_and_print_use_repr(capsys):
    e = ember.tensor([[1.5, 2.0]])
    print(e)
    assert capsys.readouterr().out == "tensor([[1.5000, 2.0000]])\n"
    assert f"{e}" == repr(e) and str(e) == repr(e)


@pytest.mark.parametrize("value, dtype", [(0.3, "float32"), (0.3, "float64"), (7, "int64"),
                                          (True, "bool"), (-2.5, "bfloat16")])
@pytest.mark.parametrize("spec", ["", ".4f", "8.2e", ">10"])
def test_zero_dim_tensors_format_as_their_number(value, dtype, spec):
    """f"{loss}" / f"{loss:.4f}" in a training loop: a 0-dim tensor formats like .item()."""
    t, e = (lib.tensor(value, dtype=getattr(lib, dtype)) for lib in (torch, ember))
    assert format(e, spec) == format(t, spec)
    with pytest.raises(TypeError):
        format(ember.tensor([1.0, 2.0]), ".2f")
