"""torch.nn.attention: SDPBackend and sdpa_kernel, against torch on CPU.

check_sdpa_backend is the check ember's scaled_dot_product_attention runs; torch raises
its errors from inside scaled_dot_product_attention, so the torch side calls that."""
import warnings

import pytest
import torch
import torch.nn.attention as torch_attention

import ember
import ember.nn.attention as ember_attention
from ember.nn.attention import SDPBackend, check_sdpa_backend, sdpa_kernel
from tests.oracle import check


def test_namespace_is_the_attention_package_not_the_module_file():
    assert ember.nn.attention is ember_attention
    assert ember.nn.MultiheadAttention is ember.nn.modules.activation.MultiheadAttention
    assert set(ember_attention.__all__) <= set(torch_attention.__all__)


def test_backend_enum_matches_torch():
    ours = {b.name: b.value for b in SDPBackend}
    theirs = {name: b.value for name, b in torch_attention.SDPBackend.__members__.items()}
    assert ours == theirs
    assert str(SDPBackend.MATH) == str(torch_attention.SDPBackend.MATH)
    assert repr(SDPBackend.MATH) == repr(torch_attention.SDPBackend.MATH)
    assert ember_attention.WARN_FOR_UNFUSED_KERNELS is torch_attention.WARN_FOR_UNFUSED_KERNELS


SHAPES = [((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)), ((2, 3, 4), (2, 5, 4), (2, 5, 4)),
          ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 6))]


def outcome(run):
    """'ok' or the (type, message) of the error run() raises."""
    try:
        run()
        return "ok"
    except RuntimeError as err:
        return type(err), str(err).split(" Hint:")[0]


@pytest.mark.parametrize("backends", [
    SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
    SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE, SDPBackend.ERROR, [],
    [SDPBackend.FLASH_ATTENTION, SDPBackend.MATH], [SDPBackend.EFFICIENT_ATTENTION,
                                                    SDPBackend.FLASH_ATTENTION]])
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("dropout_p", [0.0, 0.5])
def test_backend_choice_raises_like_torch(backends, shapes, dropout_p):
    as_list = backends if isinstance(backends, list) else [backends]
    torch_backends = [getattr(torch_attention.SDPBackend, b.name) for b in as_list]
    q, k, v = (torch.randn(s) for s in shapes)
    with torch_attention.sdpa_kernel(torch_backends), warnings.catch_warnings():
        warnings.simplefilter("ignore")     # torch explains why each fused kernel was skipped
        expected = outcome(lambda: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, dropout_p=dropout_p))
    eq, ek, ev = (ember.randn(*s) for s in shapes)
    with sdpa_kernel(backends):
        got = outcome(lambda: check_sdpa_backend(eq, ek, ev, dropout_p))
    assert got == expected


def test_integer_inputs_rule_out_flash():
    x = ember.ones(1, 1, 2, 2, dtype=ember.int64)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        with pytest.raises(RuntimeError, match="No available kernel"):
            check_sdpa_backend(x, x, x)


def test_context_restores_previous_backends():
    q = ember.randn(2, 3, 4)
    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        with sdpa_kernel([SDPBackend.MATH]):
            check_sdpa_backend(q, q, q)
        with pytest.raises(RuntimeError, match="No viable backend"):
            check_sdpa_backend(q, q, q)
    check_sdpa_backend(q, q, q)
    with pytest.raises(ValueError), sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        raise ValueError("leaving by an exception still restores")
    check_sdpa_backend(q, q, q)


def test_context_yields_and_set_priority_is_accepted():
    with sdpa_kernel([SDPBackend.MATH], set_priority=True) as value:
        assert value == {}


def test_bad_backend_argument():
    for mod in (torch_attention, ember_attention):
        with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend or "
                           "a list of SDPBackend instances, got str"):
            with mod.sdpa_kernel("math"):
                pass


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_attention_under_math_backend_is_unchanged(dtype):
    def fn(lib, q, k, v):
        attention = torch_attention if lib is torch else ember_attention
        with attention.sdpa_kernel(attention.SDPBackend.MATH):
            return lib.nn.functional.scaled_dot_product_attention(q, k, v)
    check(fn, (1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), dtype=dtype)


# ---------------------------------------------------------------- nn.utils.rnn (kept here:
# invert_permutation is the one rnn helper this change adds)
@pytest.mark.parametrize("perm", [[2, 0, 1], [0], [], [3, 1, 0, 2]])
def test_invert_permutation(perm):
    from ember.nn.utils.rnn import invert_permutation
    import numpy as np
    array = np.array(perm, dtype=np.int64)
    check(lambda lib, p: lib.nn.utils.rnn.invert_permutation(p), array, grad=False)
    assert invert_permutation(None) is None and torch.nn.utils.rnn.invert_permutation(None) is None


def test_invert_permutation_errors():
    from tests.oracle import check_error
    check_error(lambda lib: lib.nn.utils.rnn.invert_permutation(lib.tensor([1, 0],
                                                                dtype=lib.int32)),
                RuntimeError, "scatter\\(\\): Expected self.dtype to be equal to src.dtype")
    check_error(lambda lib: lib.nn.utils.rnn.invert_permutation(lib.tensor([[1, 0], [0, 1]])),
                IndexError, "Dimension out of range")
