"""torch.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) against torch."""
import numpy as np
import pytest
import torch

import ember
from oracle import TOL, assert_same, check_error, make_inputs, same, to_ember, to_torch


# Functions written once for both libraries: (inputs -> outputs), tensors in and out.
def single(lib, x):
    return x.sin() * x.sum()


def pair_to_pair(lib, a, b):
    return a @ b, (a * a).sum(1)


def scalar(lib, x):
    return (x ** 3).sum() + x.prod() * x[..., :1].sum()


def scalar_of_two(lib, a, b):
    return (a.sin() * b).sum() + (a * a * b).sum()


def ignores_second(lib, a, b):
    return (a * a).sum()


def linear(lib, x):
    return 2 * x.sum()


def run(fname, func, specs, dtype, v_specs=None, tuple_inputs=True, grad_of_result=False,
        **kwargs):
    """fname(func, inputs[, v]) on both libraries from the same arrays; compares everything.
    grad_of_result: with create_graph=True, also backpropagate through the result to the
    (requires-grad) inputs and compare those gradients."""
    arrays = make_inputs(specs, dtype, seed=1)
    v_arrays = None if v_specs is None else make_inputs(v_specs, dtype, seed=2)
    results = {}
    for lib, conv in ((torch, to_torch), (ember, to_ember)):
        inputs = tuple(conv(a, requires_grad=grad_of_result) for a in arrays)
        args = [inputs if tuple_inputs else inputs[0]]
        if v_arrays is not None:
            v = tuple(conv(a) for a in v_arrays)
            args.append(v if tuple_inputs or len(v) > 1 else v[0])
        out = getattr(lib.autograd.functional, fname)(lambda *x: func(lib, *x), *args, **kwargs)
        grads = None
        if grad_of_result:
            total = sum(t.sum() for t in _flat(out))
            grads = lib.autograd.grad(total, inputs, allow_unused=True, materialize_grads=True)
        results[lib] = out, grads
    atol, rtol = TOL[dtype]
    assert_same(results[ember][0], results[torch][0], atol * 10, rtol * 10, fname)
    if grad_of_result:
        assert_same(results[ember][1], results[torch][1], atol * 10, rtol * 10, "gradient")
    # without create_graph nothing requires grad; with it, what torch's does (a zero block
    # of a Hessian, say, does not)
    assert ([t.requires_grad for t in _flat(results[ember][0])]
            == [t.requires_grad for t in _flat(results[torch][0])])
    assert grad_of_result or not any(t.requires_grad for t in _flat(results[ember][0]))
    return results


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3,), (2, 3), ()])
def test_single_input(shape, dtype):
    run("vjp", single, [shape], dtype, v_specs=[shape], tuple_inputs=False)
    run("jvp", single, [shape], dtype, v_specs=[shape], tuple_inputs=False)
    run("jacobian", single, [shape], dtype, tuple_inputs=False)
    run("jacobian", single, [shape], dtype, tuple_inputs=False, vectorize=True)
    run("hessian", scalar, [shape + (2,)], dtype, tuple_inputs=False)
    run("vhp", scalar, [shape + (2,)], dtype, v_specs=[shape + (2,)], tuple_inputs=False)
    run("hvp", scalar, [shape + (2,)], dtype, v_specs=[shape + (2,)], tuple_inputs=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_tuples_of_inputs_and_outputs(dtype):
    specs = [(2, 3), (3, 4)]
    run("vjp", pair_to_pair, specs, dtype, v_specs=[(2, 4), (2,)])
    run("jvp", pair_to_pair, specs, dtype, v_specs=specs)
    res = run("jacobian", pair_to_pair, specs, dtype)
    assert [tuple(j.shape) for row in res[ember][0] for j in row] == \
        [(2, 4, 2, 3), (2, 4, 3, 4), (2, 2, 3), (2, 3, 4)]
    run("hessian", scalar_of_two, [(2,), (2,)], dtype)
    run("vhp", scalar_of_two, [(2,), (2,)], dtype, v_specs=[(2,), (2,)])
    run("hvp", scalar_of_two, [(2,), (2,)], dtype, v_specs=[(2,), (2,)])
    # a tuple of one input still gives a tuple (over the inputs) back
    res = run("jacobian", single, [(3,)], dtype)
    assert isinstance(res[ember][0], tuple) and isinstance(res[ember][0][0], ember.Tensor)


@pytest.mark.parametrize("dtype", DTYPES)
def test_create_graph_results_are_differentiable(dtype):
    run("jacobian", single, [(3,)], dtype, tuple_inputs=False, create_graph=True,
        grad_of_result=True)
    run("vjp", single, [(3,)], dtype, v_specs=[(3,)], tuple_inputs=False, create_graph=True,
        grad_of_result=True)
    run("jvp", single, [(3,)], dtype, v_specs=[(3,)], tuple_inputs=False, create_graph=True,
        grad_of_result=True)
    run("hessian", scalar_of_two, [(2,), (2,)], dtype, create_graph=True, grad_of_result=True)
    run("hvp", scalar, [(3,)], dtype, v_specs=[(3,)], tuple_inputs=False, create_graph=True,
        grad_of_result=True)
    run("vhp", scalar, [(3,)], dtype, v_specs=[(3,)], tuple_inputs=False, create_graph=True,
        grad_of_result=True)


def test_independent_inputs_give_zeros_and_strict_raises():
    res = run("jacobian", ignores_second, [(2,), (3,)], "float64")
    assert not res[ember][0][1].detach().numpy().any()
    run("hessian", ignores_second, [(2,), (3,)], "float64")
    run("vjp", ignores_second, [(2,), (3,)], "float64")
    run("hessian", linear, [(2,)], "float64", tuple_inputs=False)
    errors = [
        ("jacobian", ignores_second, "^Output 0 of the user-provided function is independent of "
         "input 1. This is not allowed in strict mode.$"),
        ("vjp", ignores_second, "^The output of the user-provided function is independent of "
         "input 1. This is not allowed in strict mode.$"),
        ("hessian", ignores_second, "^While computing the hessian, found that the jacobian of "
         "the user-provided function with respect to input 1 is independent of the input."),
        ("vhp", ignores_second, "^The output of the user-provided function is independent of "
         "input 1. This is not allowed in strict mode.$"),
    ]
    for fname, func, message in errors:
        check_error(lambda lib: getattr(lib.autograd.functional, fname)(
            lambda *x: func(lib, *x), (lib.ones(2), lib.ones(3)),
            *[(lib.ones(2), lib.ones(3))] * (fname == "vhp"), strict=True),
            RuntimeError, message)
    check_error(lambda lib: lib.autograd.functional.hessian(
        lambda x: linear(lib, x), lib.ones(2), strict=True), RuntimeError,
        "^While computing the hessian, found that the jacobian of the user-provided function "
        r"with respect to input 0 is independent of the input. This is not allowed in strict "
        r"mode. You should ensure that your function is twice differentiable and that the "
        r"jacobian depends on the inputs \(this would be violated by a linear function for "
        r"example\).$")
    check_error(lambda lib: lib.autograd.functional.jacobian(
        lambda x: lib.ones(2), lib.ones(2), strict=True), RuntimeError,
        "^Output 0 of the user-provided function does not require gradients. The outputs must "
        "be computed in a differentiable manner from the input when running in strict mode.$")
    check_error(lambda lib: lib.autograd.functional.jvp(
        lambda *x: ignores_second(lib, *x), (lib.ones(2), lib.ones(3)),
        (lib.ones(2), lib.ones(3)), strict=True), RuntimeError,
        "^The output of the user-provided function is independent of input 1. This is not "
        "allowed in strict mode.$")


def test_argument_errors():
    F = "autograd.functional"

    def call(lib, fname, *args, **kwargs):
        module = lib
        for part in F.split("."):
            module = getattr(module, part)
        return getattr(module, fname)(*args, **kwargs)

    check_error(lambda lib: call(lib, "jacobian", lambda x: x, [lib.ones(1)]), TypeError,
                "^The inputs given to jacobian must be either a Tensor or a tuple of Tensors but "
                "the given inputs has type <class 'list'>.$")
    check_error(lambda lib: call(lib, "vjp", lambda x, y: x, (lib.ones(1), 2)), TypeError,
                "^The inputs given to vjp must be either a Tensor or a tuple of Tensors but the "
                "value at index 1 has type <class 'int'>.$")
    check_error(lambda lib: call(lib, "vjp", lambda x: x, lib.ones(2)), RuntimeError,
                "^The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element.$")
    check_error(lambda lib: call(lib, "jvp", lambda x: x, lib.ones(2)), RuntimeError,
                "^The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element.$")
    check_error(lambda lib: call(lib, "vjp", lambda x: x, lib.ones(2), lib.ones(3)),
                RuntimeError, r"^v has invalid size: should be torch.Size\(\[2\]\) but got "
                r"torch.Size\(\[3\]\).$")
    check_error(lambda lib: call(lib, "jvp", lambda x, y: x, (lib.ones(2), lib.ones(2)),
                                 (lib.ones(2),)), RuntimeError,
                "^v is a tuple of invalid length: should be 2 but got 1.$")
    check_error(lambda lib: call(lib, "jvp", lambda x, y: x, (lib.ones(2), lib.ones(2)),
                                 (lib.ones(2), lib.ones(1))), RuntimeError,
                r"^Entry 1 in v has invalid size: should be torch.Size\(\[2\]\) but got "
                r"torch.Size\(\[1\]\).$")
    check_error(lambda lib: call(lib, "vjp", lambda x: x, lib.ones(1), (lib.ones(1),) * 2),
                RuntimeError, "^The given v should contain a single Tensor.$")
    check_error(lambda lib: call(lib, "vjp", lambda x: (x, x), lib.ones(1), lib.ones(1)),
                RuntimeError, "^v is a tuple of invalid length: should be 2 but got 1.$")
    for fname in ("hessian", "vhp", "hvp"):
        check_error(lambda lib: call(lib, fname, lambda x: x * 2, lib.ones(2),
                                     *([] if fname == "hessian" else [lib.ones(2)])),
                    RuntimeError, f"^The Tensor returned by the function given to {fname} "
                    "should contain a single element$")
        check_error(lambda lib: call(lib, fname, lambda x: (x.sum(),), lib.ones(1)),
                    RuntimeError, f"^The function given to {fname} should return a single "
                    "Tensor$")
    check_error(lambda lib: call(lib, "jacobian", lambda x: x, lib.ones(1), strategy="fwd"),
                AssertionError, '^Expected strategy to be either "forward-mode" or '
                '"reverse-mode". Hint: If your function has more outputs than inputs')
    check_error(lambda lib: call(lib, "hessian", lambda x: x.sum(), lib.ones(1),
                                 outer_jacobian_strategy="fwd"),
                AssertionError, '^Expected strategy to be either "forward-mode" or '
                '"reverse-mode".$')
    check_error(lambda lib: call(lib, "jacobian", lambda x: x, lib.ones(1), strict=True,
                                 vectorize=True), RuntimeError,
                "^torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together.")
    check_error(lambda lib: call(lib, "jacobian", lambda x: x, lib.ones(1),
                                 strategy="forward-mode"), NotImplementedError,
                "^Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
                "implemented for `vectorize=True`.")
    check_error(lambda lib: call(lib, "jacobian", lambda x: x, lib.ones(1), vectorize=True,
                                 strategy="forward-mode", create_graph=True),
                NotImplementedError, "^torch.autograd.functional.jacobian: `create_graph=True` "
                'and `strategy="forward-mode"` are not supported together')


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_mode_jacobian_and_hessian(dtype):
    def run(lib):
        functional = lib.autograd.functional
        x = lib.from_numpy(np.linspace(-1, 1, 6, dtype=dtype).reshape(2, 3))
        y = lib.from_numpy(np.linspace(0.5, 2, 3, dtype=dtype))

        def f(a, b):
            return (a * b).sin(), (a @ b).exp().sum()
        return (functional.jacobian(f, (x, y), vectorize=True, strategy="forward-mode"),
                functional.jacobian(lambda a: a.tanh() * 2, y, vectorize=True,
                                    strategy="forward-mode"),
                functional.hessian(lambda a, b: (a.pow(3) * b).sum(), (x, y), vectorize=True,
                                   outer_jacobian_strategy="forward-mode"))
    same(run, atol=1e-5 if dtype == "float32" else 1e-12, rtol=1e-5)


def test_inputs_are_not_modified_and_results_detached():
    for lib in (torch, ember):
        x = lib.ones(3, requires_grad=True)
        jac = lib.autograd.functional.jacobian(lambda a: a * a, x)
        assert not jac.requires_grad and x.grad is None and x.is_leaf
        np.testing.assert_array_equal(jac.numpy(), 2 * np.eye(3))
    # torch 2.13 fails on an output without elements ("stack expects a non-empty
    # TensorList"); ember returns the empty Jacobian of shape output.shape + input.shape
    empty = ember.autograd.functional.jacobian(lambda a: a[:0], ember.ones(3))
    assert tuple(empty.shape) == (0, 3) and empty.dtype == ember.float32
