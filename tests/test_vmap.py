"""torch.func.vmap against torch: in_dims / out_dims forms, pytrees, nesting, gradients
through the stacked results, randomness modes, per-sample gradients and errors."""
import re

import numpy as np
import pytest
import torch

import ember
import ember.func  # noqa: F401
from oracle import assert_same, check, check_error, rng

DTYPES = ["float32", "float64"]


def raises(fn, error_type, message: str):
    check_error(fn, error_type, "^" + re.escape(message))


@pytest.mark.parametrize("dtype", DTYPES)
def test_vmap_values_and_gradients(dtype):
    check(lambda lib, x: lib.func.vmap(lambda v: v.sin() * v.sum())(x), (4, 3), dtype=dtype)
    check(lambda lib, x, w: lib.func.vmap(lambda v, m: v @ m, in_dims=(0, None))(x, w),
          (5, 3), (3, 2), dtype=dtype)
    check(lambda lib, x: lib.func.vmap(lambda v: v.sum())(x), (3, 0), dtype=dtype)
    check(lambda lib, x: lib.func.vmap(lambda v: v * 2)(x), (3,), dtype=dtype)


@pytest.mark.parametrize("in_dims, y_shape", [(1, (3, 4, 2)), (-1, (2, 3)), ((1, 0), (4, 2)),
                                              ((-2, 2), (2, 2, 4))])
def test_vmap_in_dims(in_dims, y_shape):
    check(lambda lib, x, y: lib.func.vmap(lambda a, b: a * b.mean(), in_dims)(x, y),
          (2, 4, 3), y_shape, dtype="float64", non_contiguous=True)


@pytest.mark.parametrize("out_dims", [0, 1, -1, (2,)])
def test_vmap_out_dims(out_dims):
    check(lambda lib, x: lib.func.vmap(lambda v: v.t(), out_dims=out_dims)(x), (4, 2, 3))


def test_vmap_pytrees_kwargs_and_unmapped_outputs():
    def fn(lib, x, y, z):
        def f(pair, scale, *, shift):
            out = {"sum": pair[0] + pair[1]["y"] * scale + shift, "prod": pair[0] * scale}
            return out, (pair[0].sum(), z)
        out, (total, unmapped) = lib.func.vmap(
            f, in_dims=((0, {"y": 1}), None), out_dims=({"sum": 0, "prod": 1}, (0, None)))(
            (x, {"y": y}), z, shift=z)
        return out["sum"], out["prod"], total, unmapped
    check(fn, (3, 2), (2, 3), (2,), dtype="float64")


def test_vmap_returns_non_tensors_with_out_dims_none():
    result = [lib.func.vmap(lambda v: (v * 2, "label", 3), out_dims=(0, None, None))(lib.ones(2, 3))
              for lib in (torch, ember)]
    assert result[1][1:] == result[0][1:]
    assert_same(result[1][0], result[0][0], 0, 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nested_vmap(dtype):
    check(lambda lib, x, y: lib.func.vmap(lib.func.vmap(lambda a, b: a * b, in_dims=(0, None)),
                                          in_dims=(None, 0))(x, y), (3,), (4,), dtype=dtype)
    check(lambda lib, x: lib.func.vmap(lib.func.vmap(lambda a: a.sum(), in_dims=1))(x),
          (2, 3, 4), dtype=dtype)


def test_vmap_of_grad_and_jacrev():
    check(lambda lib, x: lib.func.vmap(lib.func.grad(lambda v: (v.sin() * v).sum()))(x), (4, 3),
          dtype="float64")
    check(lambda lib, x: lib.func.vmap(lib.func.jacrev(lambda v: v.exp() * v.sum()))(x), (2, 3),
          dtype="float64")
    check(lambda lib, x: lib.func.grad(
        lambda v: lib.func.vmap(lambda r: r.tanh().sum())(v).sum())(x), (2, 3), dtype="float64")


@pytest.mark.parametrize("dtype", DTYPES)
def test_per_sample_gradients_with_functional_call(dtype):
    def per_sample_grads(lib, x, y):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
        state = {k: lib.tensor(v.detach().numpy()).to(getattr(lib, dtype))
                 for k, v in model.named_parameters()}
        module = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
        module = module.to(getattr(lib, dtype))

        def loss(params, sample, target):
            out = lib.func.functional_call(module, params, (sample.unsqueeze(0),))
            return lib.nn.functional.mse_loss(out, target.unsqueeze(0))

        grads = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(state, x, y)
        return tuple(grads[k] for k in state)
    grads = check(per_sample_grads, (5, 3), (5, 2), dtype=dtype, grad=False)
    assert [tuple(g.shape) for g in grads] == [(5, 4, 3), (5, 4), (5, 2, 4), (5, 2)]


def test_randomness_modes():
    x = ember.ones(4, 3)
    raises(lambda lib: lib.func.vmap(lambda v: lib.rand(3) + v)(lib.ones(4, 3)), RuntimeError,
           "vmap: called random operation while in randomness error mode. Please either use the "
           "'same' or 'different' randomness flags on vmap or perform the randomness operation "
           "out of vmap")
    dropout = ember.nn.Dropout(0.5)
    raises(lambda lib: lib.func.vmap(lib.nn.Dropout(0.5))(lib.ones(4, 3)), RuntimeError,
           "vmap: called random operation while in randomness error mode.")
    assert_same(ember.func.vmap(dropout.eval())(x), torch.ones(4, 3), 0, 0)
    different = ember.func.vmap(lambda v: ember.rand(3) + v, randomness="different")(x)
    assert not np.array_equal(different[0].numpy(), different[1].numpy())
    same = ember.func.vmap(lambda v: ember.rand(3) + v, randomness="same")(x)
    assert all(np.array_equal(same[0].numpy(), row.numpy()) for row in same)
    raises(lambda lib: lib.func.vmap(lambda v: v, randomness="foo"), RuntimeError,
           "Only allowed values for randomness are 'error', 'different', or 'same'. Got foo")


def test_chunk_size_gives_the_same_result():
    x = rng(0).standard_normal((5, 3))
    results = [lib.func.vmap(lambda v: v.cumsum(0), chunk_size=2)(lib.tensor(x))
               for lib in (torch, ember)]
    assert_same(results[1], results[0], 1e-12, 1e-12)
    raises(lambda lib: lib.func.vmap(lambda v: v, chunk_size=0), ValueError,
           "vmap: chunk_size should be None or greater than 0. (got 0)")


def test_vmap_input_errors():
    def v(lib, shape):
        return lib.ones(shape)
    raises(lambda lib: lib.func.vmap(lambda a, b: a + b)(v(lib, (2, 3)), v(lib, (3, 3))),
           ValueError, "vmap: Expected all tensors to have the same size in the mapped "
           "dimension, got sizes [2, 3] for the mapped dimension")
    raises(lambda lib: lib.func.vmap(lambda a, b: a, in_dims=(0,))(v(lib, 2), v(lib, 2)),
           ValueError, "vmap(<lambda>, in_dims=(0,), ...)(<inputs>): in_dims is not compatible "
           "with the structure of `inputs`. in_dims has structure TreeSpec(tuple, None, [*]) but "
           "inputs has structure TreeSpec(tuple, None, [*,\n  *]).")
    raises(lambda lib: lib.func.vmap(lambda a: a, in_dims=None)(v(lib, 2)), ValueError,
           "vmap(<lambda>, in_dims=None, ...)(<inputs>): expected `in_dims` to be int or a "
           "(potentially nested) tuple matching the structure of inputs, got: <class 'NoneType'>.")
    raises(lambda lib: lib.func.vmap(lambda a: a, in_dims=[0])(v(lib, 2)), ValueError,
           "vmap(<lambda>, in_dims=[0], ...)(<inputs>): expected `in_dims` to be int")
    raises(lambda lib: lib.func.vmap(lambda a: a, in_dims=(None,))(v(lib, 2)), ValueError,
           "vmap: Expected at least one Tensor to vmap over")
    raises(lambda lib: lib.func.vmap(lambda a: a, in_dims=(2,))(v(lib, (2, 3))), ValueError,
           "vmap(<lambda>, in_dims=(2,), ...)(<inputs>): Got in_dim=2 for some input, but that "
           "input is a Tensor of dimensionality 2 so expected in_dim to satisfy -2 <= in_dim < 2.")
    raises(lambda lib: lib.func.vmap(lambda a: a)(lib.tensor(1.0)), ValueError,
           "vmap(<lambda>, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that "
           "input is a Tensor of dimensionality 0 so expected in_dim to satisfy -0 <= in_dim < 0.")
    raises(lambda lib: lib.func.vmap(lambda a: a, in_dims=(1.5,))(v(lib, 2)), ValueError,
           "vmap(<lambda>, in_dims=(1.5,), ...)(<inputs>): Got in_dim=1.5 for an input but "
           "in_dim must be either an integer dimension or None.")
    raises(lambda lib: lib.func.vmap(lambda a, b: a, in_dims=(0, 0))(v(lib, 2), 3.0), ValueError,
           "vmap(<lambda>, in_dims=(0, 0), ...)(<inputs>): Got in_dim=0 for an input but the "
           "input is of type <class 'float'>. We cannot vmap over non-Tensor arguments, please "
           "use None as the respective in_dim")
    raises(lambda lib: lib.func.vmap(lambda: 1)(), ValueError,
           "vmap(<lambda>)(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
           "trying to vmap over a function with no inputs. The latter is unsupported.")


def test_vmap_output_errors():
    x = lambda lib: lib.ones(2, 3)  # noqa: E731
    raises(lambda lib: lib.func.vmap(lambda a: 3.0)(x(lib)), ValueError,
           "vmap(<lambda>, ...): `<lambda>` must only return Tensors, got type <class 'float'>. "
           "Did you mean to set out_dims= to None for output?")
    raises(lambda lib: lib.func.vmap(lambda a: (a, None))(x(lib)), ValueError,
           "vmap(<lambda>, ...): `<lambda>` must only return Tensors, got type <class 'NoneType'>")
    raises(lambda lib: lib.func.vmap(lambda a: a, out_dims=3)(x(lib)), IndexError,
           "Dimension out of range (expected to be in range of [-2, 1], but got 3)")
    raises(lambda lib: lib.func.vmap(lambda a: a, out_dims=(0, 1))(x(lib)), ValueError,
           "vmap(<lambda>, ..., out_dims=(0, 1))(<inputs>): out_dims is not compatible with the "
           "structure of `outputs`. out_dims has structure TreeSpec(tuple, None, [*,\n  *]) but "
           "outputs has structure *.")
    raises(lambda lib: lib.func.vmap(lambda a: a, out_dims="a")(x(lib)), ValueError,
           "vmap(<lambda>, ..., out_dims=a): `out_dims` must be an int, None or a python "
           "collection of ints representing where in the outputs the vmapped dimension should "
           "appear.")
    raises(lambda lib: lib.func.vmap(lambda a: a * 2, out_dims=None)(lib.arange(6.).view(2, 3)),
           ValueError, "vmap(<lambda>, ...): `<lambda>` can not return a BatchedTensor when "
           "out_dim is None")


def test_top_level_vmap_is_func_vmap():
    assert torch.vmap is torch.func.vmap and ember.vmap is ember.func.vmap
