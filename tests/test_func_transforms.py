"""torch.func grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd and hessian against
torch.func: values, dtypes, shapes, requires_grad of the results, gradients through them
(check(..., grad=True) backpropagates through the transform's results) and errors."""
import re

import numpy as np
import pytest
import torch

import ember
import ember.func  # noqa: F401
from oracle import assert_same, check, check_error

DTYPES = ["float32", "float64"]


def f_scalar(lib, x):
    return (x.sin() ** 2 * x).sum()


def raises(fn, error_type, message: str):
    """Both libraries raise error_type with a message starting with `message`."""
    check_error(fn, error_type, "^" + re.escape(message))


def requires_grad_flags(out) -> list:
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (tuple, list)):
        return [flag for o in out for flag in requires_grad_flags(o)]
    return [out.requires_grad]


def same_flags(fn, *arrays, requires_grad=False):
    """fn(lib, *tensors) gives results whose requires_grad flags are torch's."""
    flags = []
    for lib in (torch, ember):
        tensors = [lib.tensor(a, requires_grad=requires_grad) for a in arrays]
        flags.append(requires_grad_flags(fn(lib, *tensors)))
    assert flags[0] == flags[1], f"requires_grad: torch {flags[0]}, ember {flags[1]}"


# ---------------------------------------------------------------------------- grad

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4)])
def test_grad_values_and_gradients_through_it(dtype, shape):
    check(lambda lib, x: lib.func.grad(lambda v: f_scalar(lib, v))(x), shape, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_grad_non_contiguous_and_broadcasting(dtype):
    check(lambda lib, x, y: lib.func.grad(lambda a, b: (a * b).tanh().sum(), argnums=(0, 1))(x, y),
          (3, 4), (4,), dtype=dtype, non_contiguous=True)


@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1, 0), (-2,)])
def test_grad_argnums(argnums):
    check(lambda lib, x, y: lib.func.grad(lambda a, b: (a.exp() * b).sum(), argnums)(x, y),
          (3,), (3,), dtype="float64")


def test_grad_pytree_inputs_and_kwargs():
    def fn(lib, w, b, x):
        def loss(params, x, scale=1.0):
            return scale * ((x @ params["w"] + params["b"][0]) ** 2).mean()
        g = lib.func.grad(loss)({"w": w, "b": [b]}, x, scale=3.0)
        assert isinstance(g, dict) and list(g) == ["w", "b"] and isinstance(g["b"], list)
        return g["w"], g["b"][0]
    check(fn, (4, 2), (2,), (5, 4), dtype="float64")


def test_grad_has_aux_and_grad_and_value():
    def fn(lib, x):
        def f(v):
            return v.pow(3).sum(), {"double": v * 2}
        g, aux = lib.func.grad(f, has_aux=True)(x)
        (g2, (value, aux2)) = lib.func.grad_and_value(f, has_aux=True)(x)
        return g, aux["double"], g2, value, aux2["double"]
    check(fn, (2, 3), dtype="float64")
    check(lambda lib, x: lib.func.grad_and_value(lambda v: f_scalar(lib, v))(x), (4,))


def test_grad_unused_argument_gives_zeros():
    check(lambda lib, x, y: lib.func.grad(lambda a, b: a.sum(), argnums=(0, 1))(x, y), (3,), (2,),
          grad=False)
    check(lambda lib, x: lib.func.grad(lambda a: lib.ones(()))(x), (3,), grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nested_grad_higher_derivatives(dtype):
    check(lambda lib, x: lib.func.grad(lib.func.grad(lambda v: v.sin() * v ** 3))(x), (),
          dtype=dtype)
    third = (lambda lib: lib.func.grad(lib.func.grad(lib.func.grad(lambda v: v.exp() * v.cos()))))
    check(lambda lib, x: third(lib)(x), (), dtype=dtype)


def test_nested_grad_keeps_levels_apart():
    # d/dx [x * d/dy (x + y)] = d/dx [x] = 1: the inner derivative must not see x's
    # dependence (perturbation confusion).
    check(lambda lib, x: lib.func.grad(lambda a: a * lib.func.grad(lambda b: a + b)(a))(x), ())
    check(lambda lib, x, y: lib.func.grad(
        lambda a: lib.func.grad(lambda b: (a * b).sin())(y) * a)(x), (), ())


def test_grad_of_grad_with_respect_to_another_argument():
    def mixed(lib, x, y):
        inner = lib.func.grad(lambda a, b: (a * b ** 2).sum())
        return lib.func.grad(lambda b: inner(x, b).sum())(y)
    check(mixed, (3,), (3,), dtype="float64")


def test_grad_results_require_grad_as_in_torch():
    x = np.array([0.5, -1.0, 2.0])

    def plain(lib, v):
        return lib.func.grad_and_value(lambda u: f_scalar(lib, u))(v)

    same_flags(plain, x)
    same_flags(plain, x, requires_grad=True)

    def captured(lib, v):
        w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        return lib.func.grad(lambda u: (w * u).sin().sum())(v)

    same_flags(captured, x)

    def under_no_grad(lib, v):
        with lib.no_grad():
            return lib.func.grad(lambda u: f_scalar(lib, u))(v)

    same_flags(under_no_grad, x, requires_grad=True)
    check(lambda lib, v: under_no_grad(lib, v), (3,), grad=False)


def test_grad_in_no_grad_still_nests():
    def fn(lib, x):
        with lib.no_grad():
            return lib.func.grad(lib.func.grad(lambda v: v.sin() * v))(x)
    check(fn, (), grad=False)


def test_grad_errors():
    x = lambda lib: lib.tensor([1.0, 2.0, 3.0])  # noqa: E731
    raises(lambda lib: lib.func.grad(lambda v: v)(x(lib)), RuntimeError,
           "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
           "with 1 dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
    raises(lambda lib: lib.func.grad(lambda v: 3.0)(x(lib)), RuntimeError,
           "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got <class 'float'>")
    raises(lambda lib: lib.func.grad(lambda v: v.sum(), has_aux=True)(x(lib)), RuntimeError,
           "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) "
           "if has_aux is True")
    raises(lambda lib: lib.func.grad(lambda v: v.sum(), argnums=2)(x(lib)), RuntimeError,
           "Got argnum=2, but only 1 positional inputs")
    raises(lambda lib: lib.func.grad(lambda v: v.sum(), argnums=-2)(x(lib)), RuntimeError,
           "Got argnum=-2, but only 1 positional inputs")
    raises(lambda lib: lib.func.grad(lambda v: v.sum(), argnums=())(x(lib)), RuntimeError,
           "argnums must be non-empty")
    raises(lambda lib: lib.func.grad(lambda v: v.sum(), argnums=(0, -1))(x(lib)), RuntimeError,
           "argnums elements must be unique, got (0, 0)")
    raises(lambda lib: lib.func.grad(lambda v: v.sum(), argnums=1.0)(x(lib)), RuntimeError,
           "argnums must be int or Tuple[int, ...], got: <class 'float'>")
    raises(lambda lib: lib.func.grad(lambda v: v.sum(), argnums=(0.0,))(x(lib)), RuntimeError,
           "argnum must be int, got: <class 'float'>")
    raises(lambda lib: lib.func.grad(lambda v: v)(3.0), ValueError,
           "Thing passed to transform API must be Tensor, got <class 'float'>")
    raises(lambda lib: lib.func.grad(lambda v: v.sum())(lib.tensor([1, 2])), RuntimeError,
           "only Tensors of floating point dtype can require gradients")


# ----------------------------------------------------------------------------- vjp

@pytest.mark.parametrize("dtype", DTYPES)
def test_vjp_values_and_gradients(dtype):
    def fn(lib, x, y, v):
        out, vjp_fn = lib.func.vjp(lambda a, b: (a * b).sin() + a, x, y)
        return (out,) + vjp_fn(v)
    check(fn, (3, 4), (4,), (3, 4), dtype=dtype, grad_inputs=(0, 1))
    check(fn, (), (), (), dtype=dtype, grad=False)
    check(fn, (0, 2), (2,), (0, 2), dtype=dtype, grad=False)


def test_vjp_pytrees_has_aux_and_repeated_calls():
    def fn(lib, x, y, u, v):
        def f(p):
            return {"a": p[0] * p[1], "b": (p[0].exp(), p[1] ** 2)}, p[0].sum()
        out, vjp_fn, aux = lib.func.vjp(f, [x, y], has_aux=True)
        (gx, gy), = vjp_fn({"a": u, "b": (v, v)})
        again, = vjp_fn({"a": u, "b": (u, v)})     # vjp_fn may be called again
        return out["a"], out["b"][0], aux, gx, gy, again[0]
    check(fn, (3,), (3,), (3,), (3,), dtype="float64", grad_inputs=(0, 1))


def test_vjp_results_require_grad_as_in_torch():
    def fn(lib, x):
        y = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        out, vjp_fn = lib.func.vjp(lambda a, b: a * b, x, y)
        return (out,) + vjp_fn(lib.ones(3, dtype=lib.float64))
    x = np.array([0.5, -1.0, 2.0])
    same_flags(fn, x)
    same_flags(fn, x, requires_grad=True)


def test_vjp_errors():
    x = lambda lib: lib.tensor([1.0, 2.0, 3.0])  # noqa: E731
    raises(lambda lib: lib.func.vjp(lambda v: v, x(lib))[1]((x(lib), x(lib))), RuntimeError,
           "Expected pytree structure of cotangents to be the same as pytree structure of "
           "outputs to the function. cotangents: (*, *), primal output: *")
    raises(lambda lib: lib.func.vjp(lambda v: v, x(lib))[1](lib.ones(2)), RuntimeError,
           "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has "
           "a shape of torch.Size([3]).")
    raises(lambda lib: lib.func.vjp(lambda v: 3.0, x(lib)), RuntimeError,
           "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type "
           "<class 'float'>")
    raises(lambda lib: lib.func.vjp(lambda v: v.long(), x(lib)), RuntimeError,
           "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
           "with dtype torch.int64")
    raises(lambda lib: lib.func.vjp(lambda v: v, x(lib), has_aux=True), RuntimeError,
           "vjp(f, *primals): output of function f should be a tuple: (output, aux) if has_aux "
           "is True")


# ----------------------------------------------------------------------------- jvp

@pytest.mark.parametrize("dtype", DTYPES)
def test_jvp_values_and_gradients(dtype):
    def fn(lib, x, y, u, v):
        return lib.func.jvp(lambda a, b: ((a * b).tanh(), a.sum() * b), (x, y), (u, v))
    check(fn, (3, 4), (4,), (3, 4), (4,), dtype=dtype, grad_inputs=(0, 1))
    check(fn, (), (), (), (), dtype=dtype, grad=False)
    check(fn, (0,), (0,), (0,), (0,), dtype=dtype, grad=False)


def test_jvp_pytrees_has_aux_and_constant_outputs():
    def fn(lib, x, u):
        def f(p):
            return {"y": p["x"].exp(), "const": lib.ones(2, dtype=lib.float64)}, p["x"] * 2
        out, tangent, aux = lib.func.jvp(f, ({"x": x},), ({"x": u},), has_aux=True)
        return out["y"], out["const"], tangent["y"], tangent["const"], aux
    check(fn, (3,), (3,), dtype="float64", grad_inputs=(0,))


def test_jvp_errors():
    x = lambda lib: lib.tensor([1.0, 2.0, 3.0])  # noqa: E731
    jvp = "jvp(f, primals, tangents): "
    raises(lambda lib: lib.func.jvp(lambda v: v, x(lib), x(lib)), RuntimeError,
           jvp + "Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    raises(lambda lib: lib.func.jvp(lambda v: v, (x(lib),), (x(lib), x(lib))), RuntimeError,
           jvp + "Expected primals and tangents to have the same python structure. For example, "
           "if primals is a tuple of 3 tensors, tangents also must be. Got primals with "
           "structure TreeSpec(tuple, None, [*]) and tangents with structure TreeSpec(tuple, "
           "None, [*,\n  *])")
    raises(lambda lib: lib.func.jvp(lambda v: v, (), ()), RuntimeError,
           jvp + "Expected primals to contain at least one Tensor.")
    raises(lambda lib: lib.func.jvp(lambda v: v, (1.0,), (1.0,)), RuntimeError,
           jvp + "Expected primals to only contain Tensors, got <class 'float'>")
    raises(lambda lib: lib.func.jvp(lambda v: v, (x(lib),), (lib.ones(2),)), RuntimeError,
           "Trying to set a forward gradient that has a different size than that of the "
           "original Tensor, this is not supported. Tensor is of size [3] while the given "
           "forward gradient is of size [2].")
    raises(lambda lib: lib.func.jvp(lambda v: v, (lib.tensor([1, 2]),), (lib.tensor([1, 2]),)),
           ValueError, "Expected primal to be floating point or complex, but got: torch.int64")
    raises(lambda lib: lib.func.jvp(lambda v: 2.0, (x(lib),), (x(lib),)), RuntimeError,
           jvp + "expected f(*primals) to return only tensors, got unsupported type "
           "<class 'float'>")
    raises(lambda lib: lib.func.jvp(lambda v: lib.ones(3), (x(lib),), (x(lib),), strict=True),
           RuntimeError, "jvp(f, primals, tangents, strict=True): The output of f is "
           "independent of the inputs. This is not allowed with strict=True.")


@pytest.mark.parametrize("dtype", DTYPES)
def test_nested_forward_and_mixed_modes(dtype):
    """jvp of jvp (second directional derivatives), jvp of grad (forward over reverse),
    jacfwd of jacfwd, grad of jvp (reverse over forward)."""
    def fn(lib, x, u, v):
        f = lambda a: (a.sin() * a.exp()).sum() * a  # noqa: E731
        inner = lambda a: lib.func.jvp(f, (a,), (v,))[1]  # noqa: E731
        return (lib.func.jvp(inner, (x,), (u,)),
                lib.func.jvp(lib.func.grad(lambda a: f(a).sum()), (x,), (u,)),
                lib.func.jacfwd(lib.func.jacfwd(lambda a: a.tanh() * a.sum()))(x),
                lib.func.grad(lambda a: inner(a).sum())(x))
    check(fn, (3,), (3,), (3,), dtype=dtype, grad_inputs=(0,), grad2=False)


def test_jvp_runs_forward_mode():
    """Tangents flow through code run under no_grad: only real forward mode does that."""
    def fn(lib, x, u):
        def f(a):
            with lib.no_grad():
                return a.sin() * a
        return lib.func.jvp(f, (x,), (u,)), lib.func.jacfwd(f)(x), lib.func.linearize(f, x)[1](u)
    check(fn, (3,), (3,), dtype="float64", grad=False)


def test_linearize_matches_jvp():
    def fn(lib, x, u, v):
        out, jvp_fn = lib.func.linearize(lambda a: (a.sin() * a, a.sum()), x)
        return (out, jvp_fn(u), jvp_fn(v))
    check(fn, (4,), (4,), (4,), dtype="float64", grad=False)
    jvp_fn = (lambda lib: lib.func.linearize(lambda a: a.sin(), lib.ones(3))[1])  # noqa: E731
    raises(lambda lib: jvp_fn(lib)(lib.ones(3), lib.ones(3)), RuntimeError,
           "Expected the tangents TreeSpec(tuple, None, [*,\n  *]) to have the same argspec as "
           "the primals TreeSpec(tuple, None, [*])")
    raises(lambda lib: jvp_fn(lib)(lib.ones(2)), RuntimeError,
           "tangent:0 with shape torch.Size([2]) in flattened pytree doesn't match the shape "
           "torch.Size([3]) of the corresponding primal.")
    raises(lambda lib: jvp_fn(lib)(lib.ones(3, dtype=lib.float64)), RuntimeError,
           "tangent:0 with dtype torch.float64 in flattened pytree doesn't match the dtype "
           "torch.float32 of the corresponding primal.")


# ------------------------------------------------------------------ jacrev, jacfwd, hessian

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_values_and_gradients(dtype, jac):
    def fn(lib, x, y):
        return getattr(lib.func, jac)(lambda a, b: (a.sin() * b.sum(), a @ b), argnums=(0, 1))(x, y)
    check(fn, (3,), (3,), dtype=dtype)
    check(lambda lib, x: getattr(lib.func, jac)(lambda a: a.exp() * a)(x), (), dtype=dtype)
    # A Jacobian that is constant in x: torch's jacfwd marks it requires_grad when x does
    # (an artifact of its forward-mode wrappers; jacrev does not), ember never does.
    check(lambda lib, x: getattr(lib.func, jac)(lambda a: a.t() * 2)(x), (2, 3), dtype=dtype,
          non_contiguous=True, grad=jac == "jacrev")
    check(lambda lib, x: getattr(lib.func, jac)(lambda a: a.cos())(x), (0, 2), dtype=dtype,
          grad=False)


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_pytree_and_has_aux(jac):
    def fn(lib, w, x):
        def f(params, x):
            out = x @ params["w"]
            return {"out": out.tanh()}, out.sum()
        jacobian, aux = getattr(lib.func, jac)(f, has_aux=True)({"w": w}, x)
        return jacobian["out"]["w"], aux
    check(fn, (3, 2), (4, 3), dtype="float64")


def test_jacobian_errors():
    x = lambda lib: lib.tensor([1.0, 2.0])  # noqa: E731
    raises(lambda lib: lib.func.jacrev(lambda v: v, chunk_size=0), ValueError,
           "jacrev: `chunk_size` should be greater than 0.")
    raises(lambda lib: lib.func.jacrev(lambda v: v.long())(x(lib)), RuntimeError,
           "vjp(f, ...): All outputs of f must be floating-point or complex Tensors")
    raises(lambda lib: lib.func.jacrev(lambda v: v, has_aux=True)(x(lib)), RuntimeError,
           "vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
           "has_aux is True")
    raises(lambda lib: lib.func.jacfwd(lambda v: v, has_aux=True)(x(lib)), RuntimeError,
           "jvp(f, primals, tangents): output of function f should be a tuple: (output, aux) "
           "if has_aux is True")
    raises(lambda lib: lib.func.jacrev(lambda v: v.abs())(x(lib).to(lib.complex64)),
           RuntimeError, "jacrev: Expected all inputs to be real but received complex tensor "
           "at flattened input idx: 0")
    raises(lambda lib: lib.func.jacfwd(lambda v: v, randomness="foo")(x(lib)), RuntimeError,
           "Only allowed values for randomness are 'error', 'different', or 'same'. Got foo")
    check(lambda lib, v: lib.func.jacrev(lambda a: a * 2, chunk_size=1)(v), (3,), grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_hessian(dtype):
    check(lambda lib, x: lib.func.hessian(lambda a: f_scalar(lib, a))(x), (3,), dtype=dtype)
    check(lambda lib, x, y: lib.func.hessian(lambda a, b: (a.exp() * b.sin()).sum(),
                                             argnums=(0, 1))(x, y), (2,), (2,), dtype=dtype)
    check(lambda lib, x: lib.func.hessian(lambda a: (a ** 3).sum())(x), (2, 2), dtype=dtype)


def test_forward_over_reverse_results_require_grad_as_in_torch():
    # the tangents of a jacrev computed under jvp/jacfwd must not stay attached to its graph
    def fn(lib, x):
        w = lib.tensor([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]], dtype=lib.float64)
        jac = lib.func.jacrev(lambda v: (w @ v).tanh())
        out, tangent = lib.func.jvp(jac, (x,), (lib.ones_like(x),))
        return out, tangent, lib.func.hessian(lambda v: (w @ v).tanh().sum())(x)
    x = np.array([0.5, -1.0, 2.0])
    same_flags(fn, x)
    same_flags(fn, x, requires_grad=True)
    check(fn, (3,), dtype="float64")


def test_nested_jacobians_in_grad_and_vmap():
    def fn(lib, x):
        jac = lib.func.jacrev(lambda a: a.sin() * a.sum())
        return lib.func.grad(lambda a: jac(a).sum())(x), lib.func.vmap(jac)(x.reshape(2, 2))
    check(fn, (4,), dtype="float64")


def test_transforms_are_wrapped_functions():
    def loss(x):
        """docs"""
        return x.sum()
    for transform in (ember.func.grad, ember.func.jacrev, ember.func.vmap):
        wrapped = transform(loss)
        assert wrapped.__name__ == "loss" and wrapped.__doc__ == "docs"
    assert_same(ember.func.grad(loss)(ember.ones(2)), torch.func.grad(loss)(torch.ones(2)),
                0, 0)
