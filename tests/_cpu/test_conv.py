"""The `conv` kernel family (im2col/col2im, ember/_cpu/conv.py and its numba twin): conv2d
and its gradients against torch in both kernel modes (strides, padding, dilation, groups,
non-contiguous and channels-last input), the two implementations against each other bit for
bit, and the fallback for what the twin does not compile."""
import numpy as np
import pytest

import ember
from ember._cpu import conv as reference
from oracle import check

R = np.random.default_rng(3)
GEOMETRIES = [  # (x shape, w shape, stride, padding, dilation, groups)
    ((2, 3, 9, 7), (4, 3, 3, 3), 1, 0, 1, 1),
    ((3, 4, 10, 11), (6, 2, 3, 2), 2, 1, 1, 2),
    ((1, 2, 8, 8), (3, 2, 3, 3), 1, 2, 2, 1),
    ((4, 1, 5, 5), (2, 1, 5, 5), 1, 0, 1, 1),
    ((2, 3, 6, 6), (5, 3, 1, 1), 2, 0, 1, 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs,ws,stride,padding,dilation,groups", GEOMETRIES)
def test_conv2d_matches_torch(kernels, dtype, xs, ws, stride, padding, dilation, groups):
    x, w = R.standard_normal(xs).astype(dtype), R.standard_normal(ws).astype(dtype)
    check(lambda lib, x, w: lib.nn.functional.conv2d(x, w, None, stride, padding, dilation,
                                                     groups), x, w, grad2=False)


@pytest.mark.parametrize("layout", ["transposed", "channels_last"])
def test_conv2d_of_other_layouts_matches_torch(kernels, layout):
    x = R.standard_normal((3, 5, 8, 2)).astype(np.float32)
    w = R.standard_normal((4, 2, 3, 3)).astype(np.float32)

    def conv(lib, x, w):
        x = x.transpose(1, 3) if layout == "transposed" else \
            x.permute(0, 3, 1, 2).contiguous(memory_format=lib.channels_last)
        return lib.nn.functional.conv2d(x, w, padding=1)
    check(conv, x, w, grad2=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs,ws,stride,padding,dilation,groups", GEOMETRIES)
def test_twin_matches_the_reference_exactly(dtype, xs, ws, stride, padding, dilation, groups):
    twin = pytest.importorskip("ember._cpu.numba.conv", reason="numba is not installed")
    x = R.standard_normal(xs).astype(dtype)
    kernel, stride, dilation = ws[2:], (stride,) * 2, (dilation,) * 2
    pads = ((padding, padding),) * 2
    shape = (xs[1], kernel[0] * kernel[1]) + \
        reference.out_size(xs[2:], kernel, stride, dilation, pads) + (xs[0],)
    expected, got = np.empty(shape, dtype), np.empty(shape, dtype)
    reference.im2col(x, kernel, stride, dilation, pads, expected)
    twin.im2col(x, kernel, stride, dilation, pads, got)
    np.testing.assert_array_equal(got, expected)
    cols = R.standard_normal(shape).astype(dtype)
    np.testing.assert_array_equal(twin.col2im(cols, xs, kernel, stride, dilation, pads),
                                  reference.col2im(cols, xs, kernel, stride, dilation, pads))


def test_twin_falls_back_for_float16_and_other_ranks():
    twin = pytest.importorskip("ember._cpu.numba.conv", reason="numba is not installed")
    for xs, kernel in [((2, 3, 6, 5), (3, 3)), ((2, 3, 7), (3,))]:
        x = R.standard_normal(xs).astype(np.float16 if len(xs) == 4 else np.float32)
        n = len(kernel)
        stride, dilation, pads = (1,) * n, (1,) * n, ((1, 1),) * n
        shape = (xs[1], int(np.prod(kernel))) + \
            reference.out_size(xs[2:], kernel, stride, dilation, pads) + (xs[0],)
        expected, got = np.empty(shape, x.dtype), np.empty(shape, x.dtype)
        reference.im2col(x, kernel, stride, dilation, pads, expected)
        twin.im2col(x, kernel, stride, dilation, pads, got)
        np.testing.assert_array_equal(got, expected)
