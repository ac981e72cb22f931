"""Tensor creation against torch: tensor() inference, legacy constructors, factories, errors."""

import array
import collections

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, same

DTYPES = ["float32", "float64"]




# ---------------------------------------------------------------- tensor() inference
@pytest.mark.parametrize("data", [
    [1.5], [1, 2], [True, False], [True, 2], [True, 2.5], [1, 2.5], [[1, 2], [3, 4]],
    [[True, 1], [2.5, 0]], [], [[]], 3, 2.5, True, 1 + 2j, [1, 2j], (1, 2), range(4),
    [[[1], [2]], [[3], [4]]],
])
def test_tensor_from_python(data):
    same(lambda lib: lib.tensor(data))


@pytest.mark.parametrize("np_dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                      "int64", "uint8", "bool", "complex64", "complex128"])
def test_tensor_from_numpy_array_and_scalar(np_dtype):
    arr = np.arange(6).reshape(2, 3).astype(np_dtype)
    same(lambda lib: lib.tensor(arr))
    same(lambda lib: lib.tensor(arr[1, 2]))
    same(lambda lib: lib.as_tensor(arr))
    same(lambda lib: lib.from_numpy(arr))


@pytest.mark.parametrize("make", [
    lambda lib: [np.float64(1.0), 2], lambda lib: [np.float32(1.0), 2.5],
    lambda lib: [np.int32(1), np.int32(2)], lambda lib: [np.int32(1), 2],
    lambda lib: [np.float16(1), 2], lambda lib: [np.float16(1), 2.5],
    lambda lib: [lib.tensor(1.5), 2], lambda lib: [lib.tensor(1.5, dtype=lib.float64), 2],
    lambda lib: [lib.tensor(1, dtype=lib.int8), 2], lambda lib: [lib.tensor([1.0]), 2.0],
    lambda lib: [np.array([1, 2], dtype=np.int16), np.array([3, 4], dtype=np.int16)],
])
def test_tensor_from_mixed_elements(make):
    same(lambda lib: lib.tensor(make(lib)))


@pytest.mark.parametrize("data,dtype", [([1.7, -2.2], "int64"), ([1, 0, 2], "bool"),
                                        ([1, 2], "float16"), ([[1.5]], "float64"),
                                        ([1, 2], "bfloat16")])
def test_tensor_with_dtype(data, dtype):
    same(lambda lib: lib.tensor(data, dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("data,error,match", [
    ([[1, 2], [3]], ValueError, r"^expected sequence of length 2 at dim 1 \(got 1\)"),
    ([[[1], [2]], [[3], [4, 5]]], ValueError, r"^expected sequence of length 1 at dim 2"),
    ([[1, 2], 3], TypeError, "^not a sequence"),
    ([1.5, [3]], TypeError, "^must be real number, not list"),
    ("abc", TypeError, r"^new\(\): invalid data type 'str'"),
    ([1, "a"], TypeError, r"^new\(\): invalid data type 'str'"),
    (None, RuntimeError, "^Could not infer dtype of NoneType"),
    ([None], RuntimeError, "^Could not infer dtype of NoneType"),
    ({1: 2}, RuntimeError, "^Could not infer dtype of dict"),
    ([1, 2 ** 63], ValueError, "^Overflow when unpacking long"),
])
def test_tensor_errors(data, error, match):
    check_error(lambda lib: lib.tensor(data), error, match)


def test_tensor_with_multi_element_tensors_inside_list():
    check_error(lambda lib: lib.tensor([lib.tensor([1, 2]), lib.tensor([3, 4])]), TypeError,
                "^only integer tensors of a single element can be converted to an index")
    check_error(lambda lib: lib.tensor([lib.tensor([1., 2.]), lib.tensor([3., 4.])]),
                ValueError, "^only one element tensors can be converted to Python scalars")


def test_tensor_copies_and_warns_on_tensor_input():
    src = ember.ones(3)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        t = ember.tensor(src)
    t.add_(1)
    assert src.tolist() == [1.0, 1.0, 1.0]


def test_tensor_requires_grad():
    t = ember.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    check_error(lambda lib: lib.tensor([1, 2], requires_grad=True), RuntimeError,
                "^Only Tensors of floating point and complex dtype can require gradients")


# ---------------------------------------------------------------- memory sharing
def test_from_numpy_and_as_tensor_share_memory():
    arr = np.zeros(3, dtype=np.float32)
    a, b = ember.from_numpy(arr), ember.as_tensor(arr)
    arr[0] = 5
    assert a[0].item() == 5 and b[0].item() == 5
    a[1] = 7
    assert arr[1] == 7
    assert a.numpy() is arr or np.shares_memory(a.numpy(), arr)
    c = ember.as_tensor(arr, dtype=ember.float64)
    arr[2] = 9
    assert c[2].item() == 0 and c.dtype is ember.float64
    t = ember.ones(2)
    assert ember.as_tensor(t) is t
    check_error(lambda lib: lib.from_numpy([1, 2]), TypeError, r"^expected np.ndarray \(got list\)")


def test_as_tensor_from_list():
    same(lambda lib: lib.as_tensor([1, 2], dtype=lib.float16))
    same(lambda lib: lib.as_tensor([[1.5, 2]]))


# ---------------------------------------------------------------- legacy constructors
@pytest.mark.parametrize("make", [
    lambda lib: lib.Tensor([1, 2]), lambda lib: lib.Tensor(np.array([1, 2])),
    lambda lib: lib.Tensor(), lambda lib: lib.Tensor((2, 3)), lambda lib: lib.Tensor([[1, 2]]),
    lambda lib: lib.FloatTensor([1, 2]), lambda lib: lib.LongTensor([1, 2]),
    lambda lib: lib.DoubleTensor([1.5]), lambda lib: lib.HalfTensor([1.5]),
    lambda lib: lib.BFloat16Tensor([1.5]), lambda lib: lib.ByteTensor([1, 0]),
    lambda lib: lib.CharTensor([-1]), lambda lib: lib.ShortTensor([3]),
    lambda lib: lib.IntTensor([1, 0]), lambda lib: lib.BoolTensor([1, 0]),
    lambda lib: lib.LongTensor(np.array([1.5, 2.5])),
    lambda lib: lib.Tensor(lib.ones(2, dtype=lib.int64)),
])
def test_legacy_constructors_from_data(make):
    same(make)


@pytest.mark.parametrize("make", [
    lambda lib: lib.Tensor(2, 3), lambda lib: lib.Tensor(lib.Size([4])),
    lambda lib: lib.FloatTensor(2, 3), lambda lib: lib.LongTensor(4),
    lambda lib: lib.DoubleTensor(0, 2), lambda lib: lib.BoolTensor(3),
])
def test_legacy_constructors_from_size(make):
    e, t = make(ember), make(torch)
    assert tuple(e.shape) == tuple(t.shape) and repr(e.dtype) == repr(t.dtype)


def test_legacy_constructor_errors():
    check_error(lambda lib: lib.Tensor(2.5), TypeError, r"^new\(\): data must be a sequence")
    check_error(lambda lib: lib.Tensor(2, 3.0), TypeError,
                r"^new\(\): argument 'size' failed to unpack the object at pos 2")
    check_error(lambda lib: lib.Tensor(2, -1), RuntimeError,
                "^Trying to create tensor with negative dimension")
    check_error(lambda lib: lib.FloatTensor(lib.ones(2, dtype=lib.int64)), TypeError, "^expected")


def test_legacy_types_isinstance_and_type_strings():
    for name in ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
                 "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]:
        e_cls, t_cls = getattr(ember, name), getattr(torch, name)
        assert repr(e_cls) == repr(t_cls)
        for dt in ["float32", "float64", "int64", "bool"]:
            assert isinstance(ember.zeros(1, dtype=getattr(ember, dt)), e_cls) == \
                isinstance(torch.zeros(1, dtype=getattr(torch, dt)), t_cls)
        assert ember.zeros(1, dtype=e_cls.dtype).type() == torch.zeros(1, dtype=t_cls.dtype).type()
    assert isinstance(ember.FloatTensor([1]), ember.Tensor)
    assert not isinstance([1.0], ember.FloatTensor)


@pytest.mark.parametrize("target", ["torch.DoubleTensor", "torch.LongTensor",
                                    "torch.BoolTensor", "torch.FloatTensor"])
def test_type_cast_by_string(target):
    same(lambda lib: lib.tensor([1.5, 0.0]).type(target))


def test_type_cast_by_class_and_dtype():
    same(lambda lib: lib.tensor([1.5]).type(lib.DoubleTensor))
    same(lambda lib: lib.tensor([1.5]).type(lib.int32))
    x = ember.ones(2)
    assert x.type(ember.FloatTensor) is x and x.type(ember.float32) is x
    check_error(lambda lib: lib.ones(2).type("torch.NopeTensor"), ValueError, "^invalid type")
    check_error(lambda lib: lib.ones(2).type("DoubleTensor"), ValueError, "^invalid type")


# ---------------------------------------------------------------- factories
@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("dtype", [None, "float64", "int32", "bool", "float16"])
@pytest.mark.parametrize("size", [(2, 3), ((2, 3),), ([4],), (0,), ((),)])
def test_filled_factories(fn, dtype, size):
    def make(lib):
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        out = getattr(lib, fn)(*size, **kw)
        return lib.zeros_like(out) if fn == "empty" else out
    same(make)


def test_factories_accept_size_objects_and_requires_grad():
    same(lambda lib: lib.zeros(lib.Size([2, 1])))
    for lib in (ember,):
        t = lib.ones(2, 3, requires_grad=True, dtype=lib.float64)
        assert t.requires_grad and t.is_leaf and t.dtype is lib.float64
        assert lib.zeros(2, device="cpu").device == lib.device("cpu")
        assert lib.zeros(2, device=lib.device("cpu")).device.type == "cpu"


@pytest.mark.parametrize("fill", [1.5, 3, True, -2.25])
@pytest.mark.parametrize("dtype", [None, "int64", "float64"])
def test_full(fill, dtype):
    same(lambda lib: lib.full((2, 3), fill, **({} if dtype is None else
                                                {"dtype": getattr(lib, dtype)})))


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like", "full_like"])
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_like_factories(fn, dtype):
    def make(lib):
        src = lib.ones(2, 3, dtype=lib.int32)
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        args = (2.7,) if fn == "full_like" else ()
        out = getattr(lib, fn)(src, *args, **kw)
        return lib.zeros_like(out) if fn == "empty_like" else out
    same(make)


def test_like_factories_requires_grad():
    t = ember.zeros_like(ember.ones(2), requires_grad=True)
    assert t.requires_grad and t.is_leaf


@pytest.mark.parametrize("args,kw", [
    ((5,), {}), ((1, 2.5), {}), ((0, 1, 0.1), {}), ((-3.3, 7.1, 0.7), {}), ((10, 0, -1.5), {}),
    ((0, 1, 0.1), {"dtype": "float64"}), ((10,), {"dtype": "float16"}),
    ((0.5, 3), {"dtype": "int64"}), ((0.1, 100, 0.37), {}), ((1e-3, 5, 0.0123), {}),
    ((0, 10, 3), {"dtype": "float32"}), ((2, 2), {}), ((-5, 5, 2), {}),
])
def test_arange_exact(args, kw):
    same(lambda lib: lib.arange(*args, **{k: getattr(lib, v) for k, v in kw.items()}))


INTEGER_DTYPES = ["int64", "int32", "int16", "int8", "uint8"]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
@pytest.mark.parametrize("args", [(-3, -1, 0.7), (-3, -1, 1.5), (2.7, 10, 2.5), (-2.5, 3, 1),
                                  (0.3, 5, 1.5), (5, -3, -1.5), (0.5, 3, 1), (300, 200, -30),
                                  (0, 10, 3), (-7, 2 ** 40, 2 ** 38)])
def test_arange_integer_dtypes_with_float_arguments(args, dtype):
    """int64 truncates the bounds and step before counting; the other integer types count
    from the given values and step by the truncations, wrapping into the dtype."""
    if dtype == "int64" and abs(args[2]) < 1:
        check_error(lambda lib: lib.arange(*args, dtype=lib.int64), ValueError,
                    "^step must be nonzero")
        return
    same(lambda lib: lib.arange(*args, dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("fn", ["linspace", "logspace"])
@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
@pytest.mark.parametrize("args", [(-2, 2.2, 7), (1, -1, 7), (-2, 0, 5), (2.5, 3, 4), (0, 3, 1),
                                  (-2, -1, 1), (0, 2, 0)])
def test_spaced_integer_dtypes(fn, args, dtype):
    """Bounds converted to the dtype first (truncated, wrapped), values truncated; as
    Python numbers and as tensors."""
    same(lambda lib: getattr(lib, fn)(*args, dtype=getattr(lib, dtype)))
    same(lambda lib: getattr(lib, fn)(lib.tensor(args[0]), lib.tensor(args[1]), args[2],
                                      dtype=getattr(lib, dtype)))
    if fn == "logspace":
        same(lambda lib: lib.logspace(*args, base=0.5, dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_logspace_single_step_overflow(dtype):
    c_type = "int" if dtype == "int32" else f"{dtype}_t"
    check_error(lambda lib: lib.logspace(40, 1, 1, dtype=getattr(lib, dtype)), RuntimeError,
                f"^value cannot be converted to type {c_type} without overflow")


def test_arange_tensor_arguments():
    same(lambda lib: lib.arange(lib.tensor(4)))
    same(lambda lib: lib.arange(0, lib.tensor(2.5), 0.5))


def test_arange_errors():
    check_error(lambda lib: lib.arange(0, 10, 0), RuntimeError, "^step must be nonzero")
    check_error(lambda lib: lib.arange(0, 10, -1), RuntimeError,
                "^upper bound and lower bound inconsistent with step sign")


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64",
                                   "int32"])
@pytest.mark.parametrize("args", [(0, 1, 7), (-2.3, 9.7, 13), (0, 1, 100), (-5, 3.3, 1001),
                                  (1e-3, 7, 33), (3, -2, 10), (0, 1, 1), (0, 1, 0), (0, 1, 2),
                                  (0, 10, 5)])
def test_linspace_exact(args, dtype):
    same(lambda lib: lib.linspace(*args, dtype=getattr(lib, dtype)))


def test_linspace_defaults_and_errors():
    same(lambda lib: lib.linspace(0, 1, 5))
    same(lambda lib: lib.linspace(lib.tensor(0.0), lib.tensor(1.0), 4))
    check_error(lambda lib: lib.linspace(0, 1, -1), RuntimeError,
                "^number of steps must be non-negative")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("args", [(0, 2, 5), (-1, 1, 7, 2.0), (0, 3, 4, 3), (1, -2, 10)])
def test_logspace(args, dtype):
    same(lambda lib: lib.logspace(*args, dtype=getattr(lib, dtype)), rtol=1e-6)


@pytest.mark.parametrize("args", [(3,), (3, 2), (2, 4), (0,)])
@pytest.mark.parametrize("dtype", [None, "bool", "int64", "float64"])
def test_eye(args, dtype):
    same(lambda lib: lib.eye(*args, **({} if dtype is None else {"dtype": getattr(lib, dtype)})))


@pytest.mark.parametrize("fn,match", [
    (lambda lib: lib.zeros(2, -1), "negative dimension|must be non-negative"),
    (lambda lib: lib.ones(2, -1), "^Trying to create tensor with negative dimension -1"),
    (lambda lib: lib.empty(2, -1), "^Trying to create tensor with negative dimension -1"),
    (lambda lib: lib.full((2, -1), 1.0), "^Trying to create tensor with negative dimension"),
])
def test_negative_size_errors(fn, match):
    check_error(fn, RuntimeError, match)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("size,torch_words", [
    ((2, 3.0), "argument 'size' failed to unpack the object at pos 2"),
    ([(2, 3.0)], "argument 'size' failed to unpack the object at pos 2"),
    # kuangliu's ShuffleNet computes channels with `/`: nn.Conv2d(24, 48.0, 1) fails here
    ([(2.0, 3)], r"argument 'size' \(position 1\) must be tuple of ints, but found element "
                 "of type float at pos 0"),
    ([[None, 2]], r"argument 'size' \(position 1\) must be tuple of ints, but found element "
                  "of type NoneType at pos 0"),
    ((2.5,), r"argument 'size' \(position 1\) must be tuple of ints, not float"),
    (("a",), r"argument 'size' \(position 1\) must be tuple of ints, not str"),
])
def test_non_int_size_errors(name, size, torch_words):
    check_error(lambda lib: getattr(lib, name)(*size), TypeError, rf"^{name}\(\): {torch_words}")


def test_float_size_error_hints_at_division():
    check_error(lambda lib: lib.zeros(2.0, 3), TypeError,
                r"^zeros\(\) takes 1 positional argument but 2 were given")
    with pytest.raises(TypeError, match="a size computed with `/` is a float"):
        ember.nn.Conv2d(24, 48 / 1, 1)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize("size", [(2, 3), [4], (), "Size"])
def test_size_as_keyword(name, size):
    """f(size=...) as GAT-style code writes torch.empty(size=(n, m))."""
    def make(lib):
        out = getattr(lib, name)(size=lib.Size([1, 2]) if size == "Size" else size)
        return lib.zeros_like(out)
    same(make)


@pytest.mark.parametrize("name", ["new_zeros", "new_ones", "new_empty"])
def test_new_methods_size_as_keyword(name):
    same(lambda lib: lib.zeros_like(getattr(lib.ones(1), name)(size=(2, 1))))


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_size_keyword_errors(name):
    check_error(lambda lib: getattr(lib, name)(2, size=(3,)), TypeError)
    check_error(lambda lib: getattr(lib, name)(size=2), TypeError,
                rf"^{name}\(\): argument 'size' must be tuple of ints, not int")
    check_error(lambda lib: getattr(lib, name)(), TypeError)
    if name in ("zeros", "ones", "empty"):
        check_error(lambda lib: getattr(lib, name)(2, size=(3,)), TypeError,
                    rf"^{name}\(\) got multiple values for argument 'size'")
        check_error(lambda lib: getattr(lib, name)(), TypeError,
                    rf'^{name}\(\) missing 1 required positional arguments: "size"')


# ---------------------------------------------------------------- Tensor.new_*
@pytest.mark.parametrize("make", [
    lambda lib, x: x.new_zeros(3), lambda lib, x: x.new_zeros((2, 3)),
    lambda lib, x: x.new_ones(2, 2), lambda lib, x: x.new_full((3,), 2.5),
    lambda lib, x: x.new_full((2,), 7, dtype=lib.float64), lambda lib, x: x.new_tensor([1.5, 2]),
    lambda lib, x: x.new_tensor([1, 2], dtype=lib.float16), lambda lib, x: lib.zeros_like(x.new_empty(3)),
    lambda lib, x: x.new_zeros(2, dtype=lib.bool),
])
@pytest.mark.parametrize("dtype", ["int64", "float64", "float32"])
def test_new_methods(make, dtype):
    same(lambda lib: make(lib, lib.ones(2, dtype=getattr(lib, dtype))))


def test_new_methods_requires_grad():
    t = ember.ones(2).new_zeros(3, requires_grad=True)
    assert t.requires_grad and t.is_leaf


# ---------------------------------------------------------------- construction
@pytest.mark.parametrize("fn", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("row, col, offset", [(3, 4, 0), (4, 3, 1), (3, 3, -1), (3, 4, -5),
                                              (3, 4, 10), (0, 0, 0), (1, 5, 2)])
def test_triangle_indices(fn, row, col, offset):
    check(lambda lib: getattr(lib, fn)(row, col, offset), grad=False)
    check(lambda lib: getattr(lib, fn)(row, col, offset=offset, dtype=lib.int32), grad=False)


@pytest.mark.parametrize("fn", ["tril_indices", "triu_indices"])
def test_triangle_indices_errors(fn):
    check_error(lambda lib: getattr(lib, fn)(-1, 4), RuntimeError,
                r"^row must be non-negative, got-1")
    check_error(lambda lib: getattr(lib, fn)(2, -4), RuntimeError,
                r"^col must be non-negative, got-4")
    for dtype, name in (("float32", "Float"), ("int16", "Short"), ("bool", "Bool")):
        check_error(lambda lib: getattr(lib, fn)(3, 3, dtype=getattr(lib, dtype)),
                    NotImplementedError, rf'^"{fn}" not implemented for \'{name}\'')


@pytest.mark.parametrize("dtype", DTYPES)
def test_block_diag(dtype):
    check(lambda lib, a, b, c, d: lib.block_diag(a, b, c, d), (2, 3), (), (4,), (1, 2),
          dtype=dtype)
    check(lambda lib, a, b: lib.block_diag(a, b), (0, 2), (2, 0), dtype=dtype)
    check(lambda lib, a: lib.block_diag(a), (2, 3), dtype=dtype, non_contiguous=True)


def test_block_diag_dtypes_name_and_errors():
    check(lambda lib, a: lib.block_diag(a, lib.tensor([[1, 2]]), lib.tensor(True)), (2, 2))
    check(lambda lib: lib.block_diag(lib.tensor([1, 2]), lib.tensor([[3]])), grad=False)
    check(lambda lib: lib.block_diag(), grad=False)
    check(lambda lib, a: lib.block_diag(a, a).grad_fn.name(), (2, 2))
    check_error(lambda lib: lib.block_diag(lib.ones(2), lib.ones(2, 2, 2)), RuntimeError,
                r"^torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 1 has "
                r"3 dimensions")


@pytest.mark.parametrize("dtype", DTYPES)
def test_cartesian_prod(dtype):
    check(lambda lib, a, b: lib.cartesian_prod(a, b), (2,), (3,), dtype=dtype)
    check(lambda lib, a, b, c: lib.cartesian_prod(a, b, c), (2,), (0,), (3,), dtype=dtype)
    check(lambda lib, a: lib.cartesian_prod(a), (4,), dtype=dtype)


def test_cartesian_prod_integers_and_errors():
    check(lambda lib: lib.cartesian_prod(lib.arange(2), lib.arange(3)), grad=False)
    check_error(lambda lib: lib.cartesian_prod(lib.ones(2, 2)), RuntimeError,
                r"^Expect a 1D vector, but got shape \[2, 2\]")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(dtype, r, with_replacement):
    check(lambda lib, x: lib.combinations(x, r, with_replacement), (4,), dtype=dtype)


def test_combinations_integers_empty_and_errors():
    check(lambda lib: lib.combinations(lib.arange(3), with_replacement=True), grad=False)
    check(lambda lib, x: lib.combinations(x, 2), (0,))
    check(lambda lib, x: lib.combinations(x, 2).grad_fn.name(), (3,))
    check_error(lambda lib: lib.combinations(lib.ones(2, 2)), RuntimeError,
                r"^Expect a 1D vector, but got shape \[2, 2\]")
    check_error(lambda lib: lib.combinations(lib.ones(3), r=-1), RuntimeError,
                r"^Expect a non-negative number, but got -1")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("N", [None, 0, 1, 4])
@pytest.mark.parametrize("increasing", [False, True])
def test_vander(dtype, N, increasing):
    check(lambda lib, x: lib.vander(x, N, increasing), (3,), dtype=dtype, grad=N in (0, 1))


@pytest.mark.parametrize("increasing", [False, True])
@pytest.mark.parametrize("values", [[0.5, -1.5, 2.0], [0.0, 1.5, -2.0]])
def test_vander_gradient(increasing, values):
    # torch 2.13's vander backward fails ("modified by an inplace operation"), so the
    # gradient is compared with d/dx x^p = p x^(p-1) instead. A zero entry checks that it
    # stays finite there.
    x = ember.tensor(values, dtype=ember.float64, requires_grad=True)
    upstream = np.arange(12.0).reshape(3, 4) - 5
    (ember.vander(x, 4, increasing) * ember.tensor(upstream)).sum().backward()
    powers = np.arange(4) if increasing else np.arange(3, -1, -1)
    data = np.array(values)[:, None]
    slopes = powers * np.where(powers > 0, data ** np.maximum(powers - 1, 0), 0)
    np.testing.assert_allclose(x.grad.numpy(), (upstream * slopes).sum(1), rtol=1e-12)
    assert ember.vander(x).grad_fn.name() == "FlipBackward0"


def test_vander_integers_and_errors():
    for dtype in ("int32", "int64", "bool", "uint8"):
        check(lambda lib: lib.vander(lib.tensor([1, 0, 3]).to(getattr(lib, dtype))),
              grad=False)
    check(lambda lib, x: lib.vander(x), (0,))
    check_error(lambda lib: lib.vander(lib.ones(2, 2)), RuntimeError,
                r"^x must be a one-dimensional tensor.")
    check_error(lambda lib: lib.vander(lib.ones(2), N=-1), RuntimeError,
                r"^N must be non-negative.")


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), 12, (12,), ()])
def test_unravel_index(shape):
    flat = np.array([[0, 5], [11, 7]]) if shape != () else np.zeros((2,), np.int64)
    check(lambda lib, i: lib.unravel_index(i, shape), flat, grad=False)
    check(lambda lib: lib.unravel_index(lib.tensor(3), shape), grad=False)


def test_unravel_index_wraps_out_of_range_and_int32():
    check(lambda lib, i: lib.unravel_index(i, (3, 4)), np.array([-1, 12, 13, -13]), grad=False)
    check(lambda lib, i: lib.unravel_index(i, [3, 4]), np.array([5], np.int32), grad=False)


def test_unravel_index_errors():
    check_error(lambda lib: lib.unravel_index(lib.tensor(1.0), (3, 4)), TypeError,
                r"^expected 'indices' to be integer dtype, but got torch.float32")
    check_error(lambda lib: lib.unravel_index(lib.tensor(1), (-3, 4)), ValueError,
                r"^'shape' cannot have negative values, but got \(-3, 4\)")


@pytest.mark.parametrize("size, layout", [((2, 3, 5, 7), (0, 2, 3, 1)), ((2, 3), (1, 0)),
                                          ((), ()), ((4, 0, 3), (2, 0, 1)), ((1, 3, 5), (0, 1, 2))])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_empty_permuted_layout(size, layout, dtype):
    """Shape, strides (the memory order), dtype and requires_grad as torch's (values are
    uninitialised)."""
    def make(lib):
        t = lib.empty_permuted(size, layout, dtype=getattr(lib, dtype),
                               requires_grad=dtype == "float32")
        return (tuple(t.shape), t.stride(), str(t.dtype), t.requires_grad, t.is_leaf)
    assert make(ember) == make(torch)


@pytest.mark.parametrize("layout, match", [
    ((0,), r"Number of dimensions in size does not match the length of the physical_layout; "
           r"i.e. len\(size\) = 2 is not equal to len\(physical_layout\) = 1"),
    ((0, 0), r"Duplicate dim not allowed"),
    ((0, 2), r"Dimension out of range \(expected to be between 0 and 1, but got 2 at index 1\)"),
])
def test_empty_permuted_errors(layout, match):
    check_error(lambda lib: lib.empty_permuted((2, 3), layout), RuntimeError, match)


def test_torch_level_resize_as_():
    def resize(lib, x):
        out = lib.resize_as_(x.detach().clone(), lib.ones(2, 2))
        return [out, out.shape]
    check(resize, np.arange(6.0).reshape(2, 3), grad=False)


class _Sequence:
    """A user's class with len() and indexing: torch reads it as a sequence."""

    def __len__(self):
        return 3

    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return i * 1.5


_SEQUENCES = {
    "deque": lambda lib: collections.deque([1.0, 2.0]),      # pytorch/examples' REINFORCE
    "deque of ints": lambda lib: collections.deque([1, 2]),
    "list of deques": lambda lib: [collections.deque([1, 2]), collections.deque([3, 4])],
    "empty deque": lambda lib: collections.deque(),
    "deque of tensors": lambda lib: collections.deque([lib.tensor(1.0), lib.tensor(2.5)]),
    "array.array float": lambda lib: array.array("f", [1, 2]),
    "array.array int": lambda lib: array.array("i", [1, 2]),
    "memoryview": lambda lib: memoryview(b"ab"),
    "user sequence": lambda lib: _Sequence(),
}


@pytest.mark.parametrize("data", _SEQUENCES.values(), ids=_SEQUENCES.keys())
@pytest.mark.parametrize("make", ["tensor", "as_tensor", "FloatTensor", "LongTensor"])
def test_any_sequence_is_data(data, make):
    if make == "LongTensor" and data is _SEQUENCES["deque of tensors"]:
        check_error(lambda lib: lib.LongTensor(data(lib)), TypeError,
                    "^only integer tensors of a single element can be converted to an index")
        return
    same(lambda lib: getattr(lib, make)(data(lib)))


@pytest.mark.parametrize("data", ["ab", b"ab"])
@pytest.mark.parametrize("make", ["tensor", "FloatTensor"])
def test_text_is_not_data(data, make):
    check_error(lambda lib: getattr(lib, make)(data), TypeError,
                "^new\\(\\): invalid data type '(str|bytes)'")
    check_error(lambda lib: lib.tensor([[1, 2], data]), TypeError,
                "^new\\(\\): invalid data type '(str|bytes)'")


@pytest.mark.parametrize("element,dtype,error,match", [
    ("1.5", "long", TypeError, "^only integer tensors of a single element can be converted"),
    ("1.5", "bool", TypeError, "^only integer tensors of a single element can be converted"),
    ("[1, 2]", None, TypeError, "^only integer tensors of a single element can be converted"),
    ("[1, 2]", "float32", ValueError, "^only one element tensors can be converted to Python"),
])
def test_tensor_elements_follow_the_result_dtype(element, dtype, error, match):
    """A tensor inside a list is read as an index when the result is integral (a float or a
    longer tensor is refused), as a number otherwise."""
    def make(lib):
        kwargs = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        return lib.tensor([lib.tensor(eval(element))], **kwargs)
    check_error(make, error, match)
    same(lambda lib: lib.tensor([lib.tensor(True), lib.tensor(2)], dtype=lib.long))
    same(lambda lib: lib.tensor([lib.tensor(2)], dtype=lib.float64))
