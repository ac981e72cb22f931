"""torch.library.custom_op: operators defined from Python functions, with autograd."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error


def _define(lib, name: str, with_autograd: bool):
    @lib.library.custom_op(f"embertest::{name}", mutates_args=())
    def scale(x: lib.Tensor, k: float) -> lib.Tensor:
        return x * k

    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    def backward(ctx, grad):
        return grad * ctx.k, None

    if with_autograd:
        lib.library.register_autograd(f"embertest::{name}", backward,
                                      setup_context=setup_context)
    return scale


@pytest.mark.parametrize("through_ops", [False, True])
def test_custom_op_forward_and_registered_backward(through_ops):
    def run(lib):
        op = _define(lib, f"scale_{through_ops}", with_autograd=True)
        if through_ops:
            op = lib.ops.embertest.__getattr__(f"scale_{through_ops}")
        x = lib.tensor(np.arange(3.0, dtype=np.float32), requires_grad=True)
        y = op(x, 3.0)
        (y * y).sum().backward()
        return y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__
    (ey, eg, ename), (ty, tg, tname) = run(ember), run(torch)
    np.testing.assert_array_equal(ey, ty)
    np.testing.assert_array_equal(eg, tg)
    assert ename == tname == f"GeneratedBackwardFor_embertest_scale_{through_ops}_defaultBackward"


def test_custom_op_without_autograd_refuses_backward_and_runs_without_grad():
    def run(lib):
        op = _define(lib, "no_grad_formula", with_autograd=False)
        x = lib.ones(2, requires_grad=True)
        with lib.no_grad():
            assert not op(x, 2.0).requires_grad
        op(x, 2.0).sum().backward()
    check_error(run, RuntimeError, r"^Trying to backward through embertest.no_grad_formula."
                                   r"default but no autograd formula was registered")


def test_custom_op_schema_tuple_output_register_fake_and_aliasing_error():
    def run(lib):
        @lib.library.custom_op("embertest::two", mutates_args=(),
                               schema="(Tensor a, Tensor b) -> (Tensor, Tensor)")
        def two(a, b):
            return a + b, a * b

        @two.register_fake
        def _(a, b):
            return lib.empty_like(a), lib.empty_like(a)
        s, p = two(lib.ones(2), lib.full((2,), 3.0))
        return s.tolist(), p.tolist()
    assert run(ember) == run(torch)

    def aliasing(lib):
        @lib.library.custom_op("embertest::same", mutates_args=())
        def same(x: lib.Tensor) -> lib.Tensor:
            return x
        same(lib.ones(2))
    check_error(aliasing, RuntimeError, r"The output of this custom operator \(1\) must not "
                                        r"also be an input")
    check_error(lambda lib: lib.library.custom_op("nonamespace", lambda x: x, mutates_args=()),
                ValueError)
    check_error(lambda lib: lib.ops.embertest_empty.missing, AttributeError,
                r"^'_OpNamespace' 'embertest_empty' object has no attribute 'missing'")
