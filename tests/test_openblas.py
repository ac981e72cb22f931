"""ember/_openblas.py: the fast transposes give exactly NumPy's transposes."""
import numpy as np
import pytest

from ember import _openblas
from ember._openblas import move_first_axes_last, move_last_axes_first, transpose

DTYPES = [np.float32, np.float64, np.int64, np.complex64, np.bool_]


def _data(shape, dtype):
    return (np.random.default_rng(0).standard_normal(shape) * 10).astype(dtype)


def test_numpys_openblas_is_found():
    if not _openblas._loaded_openblas_paths():
        pytest.skip("NumPy here does not use OpenBLAS")
    assert set(_openblas.LIBRARY.omatcopy) == {np.dtype(np.float32), np.dtype(np.float64)}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 5), (1, 1), (1, 7), (7, 1), (0, 4), (4, 0), (700, 33)])
def test_transpose(dtype, shape):
    a = _data(shape, dtype)
    result = transpose(a)
    assert result.flags.c_contiguous and result.dtype == a.dtype
    np.testing.assert_array_equal(result, a.T)


@pytest.mark.parametrize("view", [lambda a: a[:, 2:], lambda a: a[::2], lambda a: a[::-1],
                                  lambda a: a[:, ::2], lambda a: a.T,
                                  lambda a: np.broadcast_to(a[:1], a.shape)])
def test_transpose_of_views(view):
    a = view(_data((6, 8), np.float32))
    np.testing.assert_array_equal(transpose(a), a.T)


def test_transpose_into_out():
    a = _data((5, 3), np.float64)
    out = np.empty((3, 5))
    assert transpose(a, out) is out
    np.testing.assert_array_equal(out, a.T)


@pytest.mark.parametrize("count", [1, 2, 3])
def test_moving_axes(count):
    x = _data((4, 3, 5, 6), np.float32)
    order = list(range(count, 4)) + list(range(count))
    np.testing.assert_array_equal(move_first_axes_last(x, count), x.transpose(order))
    moved = np.ascontiguousarray(x.transpose(order))
    np.testing.assert_array_equal(move_last_axes_first(moved, count), x)
    np.testing.assert_array_equal(move_last_axes_first(x[..., ::2], 1),
                                  np.moveaxis(x[..., ::2], -1, 0))
