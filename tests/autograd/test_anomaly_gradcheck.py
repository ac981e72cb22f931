"""Anomaly detection names the forward op whose backward made NaN; gradcheck/gradgradcheck."""
import warnings

import pytest
import torch

import ember
from oracle import check_error


def sqrt_at_zero(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()


def test_detect_anomaly_context_names_op():
    def fn(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                sqrt_at_zero(lib)
    check_error(fn, RuntimeError, "^Function 'SqrtBackward0' returned nan values in its 0th "
                "output")


def test_detect_anomaly_warns_with_forward_trace():
    with pytest.warns(UserWarning) as record:
        with pytest.raises(RuntimeError):
            with ember.autograd.detect_anomaly():
                sqrt_at_zero(ember)
    messages = [str(w.message) for w in record]
    assert any(m.startswith("Anomaly Detection has been enabled") for m in messages)
    assert any("Error detected in SqrtBackward0" in m and "sqrt_at_zero" in m for m in messages)


def test_set_detect_anomaly_and_state():
    def fn(lib):
        lib.autograd.set_detect_anomaly(True)
        try:
            on = lib.is_anomaly_enabled()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sqrt_at_zero(lib)
        finally:
            lib.autograd.set_detect_anomaly(False)
    check_error(fn, RuntimeError, "^Function 'SqrtBackward0' returned nan values")
    assert not ember.is_anomaly_enabled() and not ember.autograd.is_anomaly_enabled()


def test_without_anomaly_mode_nan_passes_silently():
    for lib in (torch, ember):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        (x.sqrt() * 0).sum().backward()
        assert x.grad.isnan().tolist() == [True, False]


def test_check_nan_false_does_not_raise():
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly(check_nan=False):
                sqrt_at_zero(lib)


def test_detect_anomaly_as_decorator():
    @ember.autograd.detect_anomaly()
    def run():
        sqrt_at_zero(ember)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="^Function 'SqrtBackward0' returned nan"):
            run()
    assert not ember.autograd.is_anomaly_enabled()


def user_functions(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x

    class WrongSquare(Square):
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x
    return Square, WrongSquare


def inputs(lib, n=2):
    gen = lib.Generator().manual_seed(0)
    return tuple(lib.randn(3, dtype=lib.float64, generator=gen).requires_grad_()
                 for _ in range(n))


@pytest.mark.parametrize("fn", [
    lambda lib, x, y: (x * y).sin(),
    lambda lib, x, y: (x.exp() / (y * y + 1)).sum(),
    lambda lib, x, y: (x @ y, x + y),
])
def test_gradcheck_and_gradgradcheck_pass(fn):
    for lib in (torch, ember):
        assert lib.autograd.gradcheck(lambda x, y: fn(lib, x, y), inputs(lib))
        assert lib.autograd.gradgradcheck(lambda x, y: fn(lib, x, y), inputs(lib))


def test_gradcheck_custom_function():
    for lib in (torch, ember):
        square, wrong = user_functions(lib)
        assert lib.autograd.gradcheck(square.apply, inputs(lib, 1))
        assert lib.autograd.gradcheck(wrong.apply, inputs(lib, 1), raise_exception=False) is False
        with pytest.raises(RuntimeError, match="^Jacobian mismatch for output 0 with respect to "
                           "input 0"):
            lib.autograd.gradcheck(wrong.apply, inputs(lib, 1))


def test_gradcheck_forward_mode_only():
    # the forward AD tutorial checks a Function that has jvp and no backward
    for lib in (torch, ember):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.result = x.exp()
                return ctx.result

            @staticmethod
            def jvp(ctx, tangent):
                return tangent * ctx.result

        class WrongExp(Exp):
            @staticmethod
            def jvp(ctx, tangent):
                return tangent * 2 * ctx.result

        only_forward = dict(check_forward_ad=True, check_backward_ad=False,
                            check_undefined_grad=False, check_batched_grad=False)
        assert lib.autograd.gradcheck(Exp.apply, inputs(lib, 1), **only_forward)
        with pytest.raises(RuntimeError, match="^Jacobian computed with forward mode mismatch "
                           "for output 0 with respect to input 0"):
            lib.autograd.gradcheck(WrongExp.apply, inputs(lib, 1), **only_forward)
        square, wrong = user_functions(lib)
        with pytest.raises(RuntimeError, match="^Jacobian mismatch for output 0"):
            lib.autograd.gradcheck(wrong.apply, inputs(lib, 1), check_forward_ad=True)


def test_gradgradcheck_detects_wrong_double_backward():
    for lib in (torch, ember):
        class BadDouble(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                # Right first derivative, but built from a detached x: no second derivative.
                return grad * 3 * x.detach() ** 2
        assert lib.autograd.gradcheck(BadDouble.apply, inputs(lib, 1))
        assert not lib.autograd.gradgradcheck(BadDouble.apply, inputs(lib, 1),
                                              raise_exception=False)


def test_gradcheck_needs_an_input_requiring_grad():
    check_error(lambda lib: lib.autograd.gradcheck(lambda x: x * 2,
                                                   (lib.ones(2, dtype=lib.float64),)),
                ValueError, "^gradcheck expects at least one input tensor to require gradient")
