"""F.conv*/conv_transpose* against torch: values, input/weight/bias grads, double backward."""
import pytest
import torch

import ember
import ember.nn.functional  # noqa: F401
from oracle import check, check_error

F_CONV = [
    # (dims, input shape, weight shape, kwargs)
    (2, (2, 3, 9, 8), (4, 3, 3, 3), {}),
    (2, (2, 4, 9, 8), (6, 2, 3, 2), dict(stride=2, padding=1, groups=2)),
    (2, (1, 3, 10, 10), (2, 3, 3, 3), dict(dilation=2, padding=(2, 1))),
    (2, (2, 3, 7, 7), (4, 3, 4, 4), dict(padding="same")),
    (2, (2, 3, 7, 7), (4, 3, 3, 3), dict(padding="valid", stride=(1, 2))),
    (2, (3, 6, 6), (4, 3, 3, 3), {}),  # unbatched
    (2, (2, 4, 6, 6), (4, 1, 3, 3), dict(groups=4, padding=1)),  # depthwise
    (1, (2, 3, 11), (5, 3, 4), dict(stride=3, padding=2)),
    (3, (1, 2, 5, 6, 4), (3, 2, 2, 3, 2), dict(padding=1, stride=(1, 2, 1))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dims,xs,ws,kw", F_CONV)
@pytest.mark.parametrize("bias", [True, False])
def test_conv(dtype, dims, xs, ws, kw, bias):
    name = f"conv{dims}d"
    if bias:
        check(lambda lib, x, w, b: getattr(lib.nn.functional, name)(x, w, b, **kw),
              xs, ws, (ws[0],), dtype=dtype)
    else:
        check(lambda lib, x, w: getattr(lib.nn.functional, name)(x, w, **kw), xs, ws,
              dtype=dtype)


F_CONV_T = [
    (2, (2, 4, 5, 5), (4, 3, 3, 3), {}),
    (2, (2, 4, 5, 6), (4, 2, 3, 2), dict(stride=2, padding=1, output_padding=1, groups=2)),
    (2, (1, 3, 4, 4), (3, 2, 3, 3), dict(dilation=2, stride=2)),
    (1, (2, 3, 7), (3, 5, 4), dict(stride=3, padding=1, output_padding=2)),
    # output_padding at or past the stride (allowed below the dilation), with groups
    (2, (2, 2, 4, 4), (2, 2, 4, 5), dict(stride=(3, 2), padding=(1, 2), output_padding=(2, 3),
                                         groups=2, dilation=(4, 4))),
    (3, (2, 4, 3, 3), (2, 2, 4, 3, 2), dict(stride=(3, 2, 1), padding=(1, 2, 0),
                                            output_padding=(2, 3, 1), groups=2, dilation=4)),
    (1, (4, 5), (4, 1, 3), dict(stride=1, output_padding=1, dilation=2, groups=4)),  # unbatched
]


@pytest.mark.parametrize("dims,xs,ws,kw", F_CONV_T)
def test_conv_transpose(dims, xs, ws, kw):
    name = f"conv_transpose{dims}d"
    check(lambda lib, x, w, b: getattr(lib.nn.functional, name)(x, w, b, **kw),
          xs, ws, (ws[1] * kw.get("groups", 1),), dtype="float64")


@pytest.mark.parametrize("name,xs,ws,kw", [
    ("conv1d", (2, 3, 7), (4, 3, 3), dict(padding=1)),
    ("conv2d", (2, 4, 5, 5), (6, 2, 3, 3), dict(stride=2, groups=2)),
    ("conv_transpose2d", (2, 4, 4, 4), (4, 3, 3, 3), dict(stride=2, output_padding=1)),
    ("conv3d", (1, 2, 4, 4, 3), (3, 2, 2, 2, 2), {}),
])
def test_conv_complex(name, xs, ws, kw):
    # complex input and weight, compared as real and imaginary parts
    def fn(lib, xr, xi, wr, wi):
        y = getattr(lib.nn.functional, name)(lib.complex(xr, xi), lib.complex(wr, wi), **kw)
        return lib.view_as_real(y)
    check(fn, xs, xs, ws, ws, dtype="float64")


def test_conv_double_backward():
    def second_order(lib, x, w):
        y = lib.nn.functional.conv2d(x, w, padding=1, stride=2)
        gx, gw = lib.autograd.grad((y ** 2).sum(), (x, w), create_graph=True)
        return (gx ** 2).sum() + (gw ** 3).sum()
    check(second_order, (2, 3, 6, 5), (4, 3, 3, 3), dtype="float64")


# 3x3 stride-1 convolutions with 16+ channels run by Winograd's F(2x2, 3x3): odd and even
# sizes, every padding, single-pixel and single-tile images, unbatched input.
WINOGRAD = [
    ((2, 16, 8, 8), (16, 16, 3, 3), dict(padding=1)),
    ((3, 17, 7, 5), (20, 17, 3, 3), dict(padding=1)),
    ((2, 16, 6, 9), (16, 16, 3, 3), {}),
    ((1, 16, 5, 4), (18, 16, 3, 3), dict(padding=2)),
    ((2, 16, 5, 6), (16, 16, 3, 3), dict(padding=(0, 1))),
    ((2, 16, 1, 1), (16, 16, 3, 3), dict(padding=1)),
    ((1, 16, 2, 2), (16, 16, 3, 3), dict(padding="same")),
    ((16, 4, 4), (16, 16, 3, 3), dict(padding=1)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs,ws,kw", WINOGRAD)
def test_conv_winograd(dtype, xs, ws, kw):
    check(lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, **kw), xs, ws, (ws[0],),
          dtype=dtype)
    check(lambda lib, x, w: lib.nn.functional.conv2d(x, w, **kw), xs, ws, dtype=dtype,
          non_contiguous=True)


def test_conv_winograd_double_backward_and_transpose():
    def second_order(lib, x, w):
        y = lib.nn.functional.conv2d(x, w, padding=1)
        gx, gw = lib.autograd.grad((y ** 2).sum(), (x, w), create_graph=True)
        return (gx ** 2).sum() + (gw ** 3).sum()
    check(second_order, (2, 16, 5, 6), (16, 16, 3, 3), dtype="float64")
    check(lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(x, w, b, padding=1),
          (2, 16, 5, 7), (16, 20, 3, 3), (20,), dtype="float64")


def test_conv_winograd_only_input_or_weight_grad():
    for grad_inputs in ([0], [1]):
        check(lambda lib, x, w: lib.nn.functional.conv2d(x, w, padding=1), (2, 16, 6, 6),
              (16, 16, 3, 3), grad_inputs=grad_inputs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs,ws", [((64, 1, 28, 28), (10, 1, 5, 5)),   # MNIST's first layer
                                   ((7, 1, 33, 30), (8, 1, 5, 5)),     # sums with a remainder
                                   ((3, 2, 40, 40), (4, 2, 3, 3))])
def test_conv_thin_weight_gradient(dtype, xs, ws):
    """Few weights, each a sum over many positions: the sum runs in slices."""
    check(lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b), xs, ws, (ws[0],),
          dtype=dtype, grad_inputs=[1, 2])


def test_conv_errors():
    check_error(lambda lib: lib.nn.functional.conv2d(lib.ones(1, 3, 5, 5), lib.ones(2, 4, 3, 3)),
                RuntimeError, r"expected input\[1, 3, 5, 5\] to have 4 channels, but got 3")
    check_error(lambda lib: lib.nn.functional.conv2d(lib.ones(1, 3, 2, 2), lib.ones(2, 3, 3, 3)),
                RuntimeError, r"Kernel size can't be greater than actual input size")
    check_error(lambda lib: lib.nn.functional.conv2d(lib.ones(3, 5), lib.ones(2, 3, 3, 3)),
                RuntimeError, r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d")
