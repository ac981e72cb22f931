"""ember/_transpose.py: the fast transposes give exactly NumPy's transposes."""
import numpy as np
import pytest

from ember._cpu import openblas as _openblas, transpose as _transpose
from ember._cpu.transpose import contiguous, move_first_axes_last, move_last_axes_first, transpose

DTYPES = [np.float32, np.float64, np.int64, np.complex64, np.bool_]


def _data(shape, dtype):
    return (np.random.default_rng(0).standard_normal(shape) * 10).astype(dtype)


def test_numpys_openblas_is_found():
    if not _openblas._loaded_openblas_paths():
        pytest.skip("NumPy here does not use OpenBLAS")
    assert set(_openblas.LIBRARY.omatcopy) == {np.dtype(np.float32), np.dtype(np.float64)}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 5), (1, 1), (1, 7), (7, 1), (0, 4), (4, 0), (700, 33),
                                   (300, 200), (8, 5000), (1200, 1000)])
def test_transpose(dtype, shape):
    a = _data(shape, dtype)
    result = transpose(a)
    assert result.flags.c_contiguous and result.dtype == a.dtype
    np.testing.assert_array_equal(result, a.T)


@pytest.mark.parametrize("view", [lambda a: a[:, 2:], lambda a: a[::2], lambda a: a[::-1],
                                  lambda a: a[:, ::2], lambda a: a.T,
                                  lambda a: np.broadcast_to(a[:1], a.shape)])
def test_transpose_of_views(view):
    for shape in [(6, 8), (400, 300)]:
        a = view(_data(shape, np.float32))
        np.testing.assert_array_equal(transpose(a), a.T)


def test_transpose_into_out():
    a = _data((5, 3), np.float64)
    out = np.empty((3, 5))
    assert transpose(a, out) is out
    np.testing.assert_array_equal(out, a.T)


@pytest.mark.parametrize("shape", [(4, 3, 5, 6), (64, 10, 24, 24)])
@pytest.mark.parametrize("count", [1, 2, 3])
def test_moving_axes(shape, count):
    x = _data(shape, np.float32)
    order = list(range(count, 4)) + list(range(count))
    np.testing.assert_array_equal(move_first_axes_last(x, count), x.transpose(order))
    moved = np.ascontiguousarray(x.transpose(order))
    np.testing.assert_array_equal(move_last_axes_first(moved, count), x)
    np.testing.assert_array_equal(move_last_axes_first(x[..., ::2], 1),
                                  np.moveaxis(x[..., ::2], -1, 0))


PERMUTATIONS = [(1, 2, 3, 0), (3, 0, 1, 2), (0, 2, 3, 1), (0, 1, 3, 2), (2, 3, 0, 1),
                (1, 0, 2, 3), (0, 3, 1, 2), (3, 2, 1, 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("perm", PERMUTATIONS)
def test_contiguous_of_permutations(dtype, perm):
    for shape in [(2, 3, 4, 5), (64, 10, 24, 24), (4, 200, 1, 300)]:
        view = _data(shape, dtype).transpose(perm)
        result = contiguous(view)
        assert result.flags.c_contiguous and result.shape == view.shape
        np.testing.assert_array_equal(result, view)


@pytest.mark.parametrize("view", [lambda z: z[None, 1:, :250].transpose(0, 1, 3, 2),
                                  lambda z: z[:, None, :250].transpose(1, 0, 3, 2),
                                  lambda z: z[1:, :250].transpose(0, 2, 1),
                                  lambda z: z[::2].transpose(0, 2, 1),
                                  lambda z: z[:, ::-1].transpose(0, 2, 1),
                                  lambda z: z[:, None].transpose(2, 1, 0, 3),
                                  lambda z: np.broadcast_to(z[:, :1], z.shape).transpose(1, 0, 2)])
def test_contiguous_of_sliced_views(view):
    v = view(_data((6, 300, 200), np.float32))
    np.testing.assert_array_equal(contiguous(v), v)


def test_contiguous_returns_contiguous_input_itself():
    a = _data((300, 200), np.float32)
    assert contiguous(a) is a


def test_transposed_layouts_are_recognised():
    x = np.zeros((64, 10, 24, 24), np.float32)
    assert _transpose._transposed_layout(np.moveaxis(x, 0, -1)) == ((), 64, 5760, 5760)
    assert _transpose._transposed_layout(x.transpose(0, 2, 3, 1)) is None   # small matrices
    y = np.zeros((4, 64, 32, 32), np.float32)
    assert _transpose._transposed_layout(y.transpose(0, 2, 3, 1)) == ((4,), 64, 1024, 1024)
    z = np.zeros((6, 300, 200), np.float32)
    assert _transpose._transposed_layout(z[1:, :250].transpose(0, 2, 1)) == ((5,), 250, 200, 200)
    assert _transpose._transposed_layout(z[:, :, :150].transpose(0, 2, 1)) == ((6,), 300, 150, 200)
    assert _transpose._transposed_layout(x[..., ::2]) is None


def test_large_transposes_split_in_row_blocks():
    """Large transposes run in row blocks on every thread; sliced rows included."""
    a = _data((1500, 900), np.float32)
    np.testing.assert_array_equal(transpose(a[:, 100:]), a[:, 100:].T)
    x = _data((64, 40, 24, 24), np.float32)
    np.testing.assert_array_equal(move_first_axes_last(x), np.moveaxis(x, 0, -1))
