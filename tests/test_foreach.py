"""torch._foreach_*: each op over a list of tensors equals the per-tensor op (values,
dtypes, gradients), for torch's overloads of the second operand."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, rng, same

SHAPES = ((3, 4), (5,), ())


def tensors(lib, seed=0, positive=False):
    r = rng(seed)
    arrays = [r.standard_normal(s).astype(np.float32) for s in SHAPES]
    return [lib.tensor(np.abs(a) + 0.5 if positive else a) for a in arrays]


UNARY = ["abs", "ceil", "cos", "erf", "exp", "expm1", "floor", "frac", "neg", "round",
         "sigmoid", "sign", "sin", "tanh", "trunc"]
POSITIVE_UNARY = ["log", "log10", "log1p", "log2", "reciprocal", "rsqrt", "sqrt", "lgamma"]


@pytest.mark.parametrize("name", UNARY + POSITIVE_UNARY)
@pytest.mark.parametrize("inplace", [False, True])
def test_unary(name, inplace):
    positive = name in POSITIVE_UNARY

    def run(lib):
        xs = tensors(lib, positive=positive)
        out = getattr(lib, f"_foreach_{name}{'_' if inplace else ''}")(xs)
        return xs if inplace else out
    same(run, atol=1e-6, rtol=1e-6)


OPERANDS = {
    "scalar": lambda lib: 1.5,
    "scalar keyword": lambda lib: {"scalar": 1.5},
    "scalar list": lambda lib: [0.5, -2.0, 3.0],
    "tensor list": lambda lib: tensors(lib, seed=1, positive=True),
    "0-dim tensor": lambda lib: lib.tensor(2.5),
}


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "maximum", "minimum",
                                  "clamp_min", "clamp_max", "pow"])
@pytest.mark.parametrize("operand", list(OPERANDS))
@pytest.mark.parametrize("inplace", [False, True])
def test_binary(name, operand, inplace):
    if operand == "0-dim tensor" and name not in ("add", "sub", "mul", "div"):
        pytest.skip("torch has the Tensor overload for add, sub, mul and div only")
    if name == "pow" and operand == "scalar keyword":
        pytest.skip("pow names its operand `exponent`")

    def run(lib):
        xs = tensors(lib, positive=name == "pow")
        op = getattr(lib, f"_foreach_{name}{'_' if inplace else ''}")
        given = OPERANDS[operand](lib)
        out = op(xs, **given) if isinstance(given, dict) else op(xs, given)
        if inplace:
            assert out is None or out is xs
            return xs
        assert isinstance(out, tuple)
        return out
    same(run, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", ["add", "sub"])
def test_alpha(name):
    same(lambda lib: getattr(lib, f"_foreach_{name}")(tensors(lib), tensors(lib, 1), alpha=0.3),
         atol=1e-6)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", ["default", 0.5, [0.5, 1.0, -2.0], "tensor"])
@pytest.mark.parametrize("inplace", [False, True])
def test_addcmul_addcdiv(name, value, inplace):
    def run(lib):
        xs = tensors(lib)
        args = [tensors(lib, 1), tensors(lib, 2, positive=True)]
        if value == "tensor":
            args.append(lib.tensor([0.5, 1.0, -2.0]))
        elif value != "default":
            args.append(value)
        out = getattr(lib, f"_foreach_{name}{'_' if inplace else ''}")(xs, *args)
        return xs if inplace else out
    same(run, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("weight", [0.25, [0.25, 0.5, 1.0], "tensors"])
@pytest.mark.parametrize("inplace", [False, True])
def test_lerp(weight, inplace):
    def run(lib):
        xs = tensors(lib)
        w = tensors(lib, 3) if weight == "tensors" else weight
        out = getattr(lib, f"_foreach_lerp{'_' if inplace else ''}")(xs, tensors(lib, 1), w)
        return xs if inplace else out
    same(run, atol=1e-6)


@pytest.mark.parametrize("ord", [1, 2, 3, float("inf")])
def test_norm_max_clone_copy_zero(ord):
    same(lambda lib: lib._foreach_norm(tensors(lib), ord), atol=1e-6, rtol=1e-6)
    same(lambda lib: lib._foreach_max(tensors(lib)))
    same(lambda lib: lib._foreach_clone(tensors(lib)))
    same(lambda lib: lib._foreach_pow(2.0, tensors(lib)), rtol=1e-6)

    def copy_then_zero(lib):
        xs, ys = tensors(lib), tensors(lib, 1)
        lib._foreach_copy_(xs, ys)
        zs = tensors(lib, 2)
        lib._foreach_zero_(zs)
        return xs + zs
    same(copy_then_zero)


def test_out_of_place_ops_carry_gradients():
    check(lambda lib, a, b: lib._foreach_addcmul(lib._foreach_mul([a, b], 2.0), [b, a], [a, a],
                                                  0.5), (3, 4), (3, 4))


def test_mixed_dtypes_follow_the_per_tensor_rules():
    def run(lib):
        xs = [lib.arange(3), lib.ones(2, dtype=lib.float64)]
        return lib._foreach_mul(xs, 0.5), lib._foreach_add(xs, 1)
    same(run)
    check_error(lambda lib: lib._foreach_div_([lib.ones(2, dtype=lib.int64)], 2), RuntimeError,
                "^result type Float can't be cast to the desired output type Long")


def test_errors():
    check_error(lambda lib: lib._foreach_add([], 1), RuntimeError,
                "^Tensor list must have at least one tensor.")
    check_error(lambda lib: lib._foreach_add(tensors(lib), [lib.ones(1)]), RuntimeError,
                "^Tensor lists must have the same number of tensors, got 3 and 1")
    check_error(lambda lib: lib._foreach_mul(tensors(lib), [1.0]), RuntimeError,
                "^Tensor list must have same number of elements as scalar list.")
    check_error(lambda lib: lib._foreach_mul_([lib.ones(2, requires_grad=True)], 2.0),
                RuntimeError, "^a leaf Variable that requires grad is being used in an in-place")
