"""Conv*/ConvTranspose*, pooling and padding layers against torch: repr, state_dict keys,
outputs, input and parameter gradients."""
import numpy as np
import pytest
import torch

import ember
from module_oracle import build_pair, check_module
from oracle import check_error

DTYPES = ["float32", "float64"]

CONVS = [
    (lambda lib: lib.nn.Conv1d(3, 4, 3), (2, 3, 9)),
    (lambda lib: lib.nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2), (2, 4, 11)),
    (lambda lib: lib.nn.Conv1d(3, 4, 4, padding="same", padding_mode="reflect"), (2, 3, 9)),
    (lambda lib: lib.nn.Conv1d(3, 4, 3, padding="valid", bias=False), (3, 7)),
    (lambda lib: lib.nn.Conv2d(3, 6, 5), (2, 3, 9, 9)),
    (lambda lib: lib.nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False), (1, 32, 5, 5)),
    (lambda lib: lib.nn.Conv2d(3, 4, (2, 3), stride=(2, 1), padding=(1, 2), dilation=(2, 1)),
     (2, 3, 8, 7)),
    (lambda lib: lib.nn.Conv2d(2, 4, 3, padding=2, padding_mode="circular"), (2, 2, 6, 5)),
    (lambda lib: lib.nn.Conv2d(2, 4, 3, padding=(1, 2), padding_mode="replicate"), (2, 6, 5)),
    (lambda lib: lib.nn.Conv2d(2, 4, 3, padding=1, padding_mode="reflect"), (2, 2, 6, 5)),
    (lambda lib: lib.nn.Conv2d(2, 4, (3, 4), padding="same", dilation=2), (1, 2, 9, 8)),
    (lambda lib: lib.nn.Conv3d(2, 4, 3, padding=1, stride=(1, 2, 1)), (2, 2, 4, 5, 4)),
    (lambda lib: lib.nn.Conv3d(4, 4, (1, 2, 2), groups=4, padding_mode="zeros"), (1, 4, 3, 3, 3)),
    (lambda lib: lib.nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1),
     (2, 3, 5)),
    (lambda lib: lib.nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2, dilation=2, bias=False),
     (2, 4, 4, 3)),
    (lambda lib: lib.nn.ConvTranspose2d(3, 2, (2, 3), stride=(1, 2), padding=(0, 1)),
     (3, 4, 4)),
    (lambda lib: lib.nn.ConvTranspose3d(2, 3, 2, stride=2), (1, 2, 2, 3, 2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,shape", CONVS)
def test_conv_modules(make, shape, dtype):
    check_module(make, shape, dtype=dtype)


@pytest.mark.parametrize("make,text", [
    (lambda lib: lib.nn.Conv2d(3, 6, 5), "Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1))"),
    (lambda lib: lib.nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False),
     "Conv2d(32, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), groups=32, "
     "bias=False)"),
    (lambda lib: lib.nn.Conv1d(2, 2, 3, padding="same", padding_mode="reflect", dilation=2),
     "Conv1d(2, 2, kernel_size=(3,), stride=(1,), padding=same, dilation=(2,), "
     "padding_mode=reflect)"),
    (lambda lib: lib.nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1),
     "ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))"),
])
def test_conv_repr(make, text):
    t, e = build_pair(make)
    assert repr(e) == repr(t) == text


def test_conv_reset_parameters_bounds():
    conv = ember.nn.Conv2d(4, 8, 3)
    bound = 1 / np.sqrt(4 * 9)      # kaiming_uniform_(a=sqrt(5)) bound equals the bias bound
    assert np.abs(conv.weight.detach().numpy()).max() <= bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    assert conv.weight.detach().numpy().std() > bound / 4
    assert conv.weight.shape == (8, 4, 3, 3)
    assert ember.nn.ConvTranspose2d(4, 8, 3, groups=2).weight.shape == (4, 4, 3, 3)


@pytest.mark.parametrize("output_size", [[9, 8], [2, 4, 9, 8], (10, 7)])
def test_conv_transpose_output_size(output_size):
    check_module(lambda lib: lib.nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1),
                 (2, 4, 5, 4), call=lambda m, x: m(x, output_size=output_size))


@pytest.mark.parametrize("fn,exc,match", [
    (lambda lib: lib.nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible"),
    (lambda lib: lib.nn.Conv2d(4, 3, 3, groups=2), ValueError, "out_channels must be divisible"),
    (lambda lib: lib.nn.Conv2d(4, 4, 3, groups=0), ValueError, "groups must be a positive"),
    (lambda lib: lib.nn.Conv2d(4, 4, 3, padding="full"), ValueError, "Invalid padding string"),
    (lambda lib: lib.nn.Conv2d(4, 4, 3, stride=2, padding="same"), ValueError,
     "padding='same' is not supported for strided"),
    (lambda lib: lib.nn.Conv2d(4, 4, 3, padding_mode="edge"), ValueError,
     "padding_mode must be one of"),
    (lambda lib: lib.nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose2d'),
    (lambda lib: lib.nn.ConvTranspose2d(2, 3, 3, stride=2)(lib.zeros(1, 2, 4, 4),
                                                         output_size=[20, 20]),
     ValueError, r"requested an output size of \[20, 20\], but valid sizes range from"),
    (lambda lib: lib.nn.ConvTranspose2d(2, 3, 3)(lib.zeros(1, 2, 4, 4), output_size=[6]),
     ValueError, "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements"),
    (lambda lib: lib.nn.Conv2d(3, 4, 3)(lib.zeros(1, 2, 5, 5)), RuntimeError,
     "expected input.* to have 3 channels, but got 2 channels"),
])
def test_conv_errors(fn, exc, match):
    check_error(fn, exc, match)


POOLS = [
    (lambda lib: lib.nn.MaxPool1d(3, stride=2, padding=1), (2, 3, 9)),
    (lambda lib: lib.nn.MaxPool2d(2, 2), (2, 3, 6, 7)),
    (lambda lib: lib.nn.MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True),
     (2, 3, 8, 7)),
    (lambda lib: lib.nn.MaxPool2d((2, 3), dilation=2), (3, 9, 9)),
    (lambda lib: lib.nn.MaxPool3d(2, stride=1), (1, 2, 3, 4, 3)),
    (lambda lib: lib.nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), (2, 3, 9)),
    (lambda lib: lib.nn.AvgPool2d(2), (2, 3, 6, 7)),
    (lambda lib: lib.nn.AvgPool2d(3, 2, 1, ceil_mode=True, divisor_override=4), (2, 3, 8, 7)),
    (lambda lib: lib.nn.AvgPool3d((1, 2, 2), count_include_pad=False, padding=(0, 1, 1)),
     (1, 2, 3, 4, 5)),
    (lambda lib: lib.nn.LPPool1d(2, 3, stride=2), (2, 3, 9)),
    (lambda lib: lib.nn.LPPool2d(3, (2, 3)), (2, 3, 6, 7)),
    (lambda lib: lib.nn.AdaptiveAvgPool1d(4), (2, 3, 9)),
    (lambda lib: lib.nn.AdaptiveAvgPool2d((3, None)), (2, 3, 7, 5)),
    (lambda lib: lib.nn.AdaptiveAvgPool2d(1), (2, 3, 7, 5)),
    (lambda lib: lib.nn.AdaptiveAvgPool3d((2, 3, 1)), (1, 2, 5, 6, 3)),
    (lambda lib: lib.nn.AdaptiveMaxPool1d(4), (2, 3, 9)),
    (lambda lib: lib.nn.AdaptiveMaxPool2d((3, 2), return_indices=True), (2, 3, 7, 5)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,shape", POOLS)
def test_pool_modules(make, shape, dtype):
    check_module(make, shape, dtype=dtype)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_modules(n):
    shape = (2, 3) + (4,) * n
    pool = {1: "MaxPool1d", 2: "MaxPool2d", 3: "MaxPool3d"}[n]
    unpool = {1: "MaxUnpool1d", 2: "MaxUnpool2d", 3: "MaxUnpool3d"}[n]

    def run(m, x):
        lib = torch if isinstance(x, torch.Tensor) else ember
        y, idx = getattr(lib.nn, pool)(2, return_indices=True)(x)
        return m(y, idx, output_size=x.shape)
    check_module(lambda lib: getattr(lib.nn, unpool)(2), shape, call=run)


@pytest.mark.parametrize("make,text", [
    (lambda lib: lib.nn.MaxPool2d(2, 2),
     "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"),
    (lambda lib: lib.nn.MaxPool1d(3), "MaxPool1d(kernel_size=3, stride=3, padding=0, "
     "dilation=1, ceil_mode=False)"),
    (lambda lib: lib.nn.AvgPool1d(3), "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"),
    (lambda lib: lib.nn.AvgPool2d((2, 3)), "AvgPool2d(kernel_size=(2, 3), stride=(2, 3), "
     "padding=0)"),
    (lambda lib: lib.nn.LPPool2d(2, 3), "LPPool2d(norm_type=2, kernel_size=3, stride=None, "
     "ceil_mode=False)"),
    (lambda lib: lib.nn.AdaptiveAvgPool2d((None, 7)), "AdaptiveAvgPool2d(output_size=(None, 7))"),
    (lambda lib: lib.nn.AdaptiveMaxPool1d(3), "AdaptiveMaxPool1d(output_size=3)"),
    (lambda lib: lib.nn.MaxUnpool2d(2), "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), "
     "padding=(0, 0))"),
])
def test_pool_repr(make, text):
    t, e = build_pair(make)
    assert repr(e) == repr(t) == text


PADS = [
    (lambda lib: lib.nn.ZeroPad1d(2), (2, 3, 4)),
    (lambda lib: lib.nn.ZeroPad2d((1, 2, 0, 3)), (2, 3, 4, 5)),
    (lambda lib: lib.nn.ZeroPad3d(1), (1, 2, 3, 4, 2)),
    (lambda lib: lib.nn.ConstantPad1d((2, -1), 1.5), (3, 4)),
    (lambda lib: lib.nn.ConstantPad2d(1, -2.0), (2, 3, 4, 5)),
    (lambda lib: lib.nn.ConstantPad3d((1, 0, 2, 0, 0, 1), 3.0), (2, 2, 3, 4)),
    (lambda lib: lib.nn.ReflectionPad1d(2), (2, 3, 4)),
    (lambda lib: lib.nn.ReflectionPad2d((1, 2, 0, 3)), (2, 3, 4, 5)),
    (lambda lib: lib.nn.ReflectionPad3d(1), (1, 2, 3, 4, 2)),
    (lambda lib: lib.nn.ReplicationPad1d((3, 1)), (3, 4)),
    (lambda lib: lib.nn.ReplicationPad2d(2), (2, 3, 4, 5)),
    (lambda lib: lib.nn.ReplicationPad3d((1, 2, 0, 1, 2, 0)), (1, 2, 3, 4, 2)),
    (lambda lib: lib.nn.CircularPad1d(2), (2, 3, 4)),
    (lambda lib: lib.nn.CircularPad2d((1, 2, 0, 3)), (2, 3, 4, 5)),
    (lambda lib: lib.nn.CircularPad3d(1), (2, 3, 4, 2)),
]


@pytest.mark.parametrize("make,shape", PADS)
def test_padding_modules(make, shape):
    check_module(make, shape)


def test_padding_reprs_and_types():
    for name, args in [("ZeroPad2d", (1,)), ("ConstantPad1d", (2, 3.5)),
                       ("ReflectionPad2d", ((1, 0, 2, 1),)), ("CircularPad3d", (1,)),
                       ("ReplicationPad1d", (2,)), ("ZeroPad3d", ((1, 2, 3, 4, 5, 6),))]:
        t, e = build_pair(lambda lib: getattr(lib.nn, name)(*args))
        assert repr(e) == repr(t)
    assert isinstance(ember.nn.ZeroPad2d(1), ember.nn.ConstantPad2d)
    check_error(lambda lib: lib.nn.CircularPad2d(1)(lib.zeros(2, 3)), ValueError,
                r"expected 3D or 4D input \(got 2D input\)")


def test_seed_notes_network():
    """The LeNet-style Sequential from the seed notes: keys, repr, a few training steps."""
    def make(lib):
        nn = lib.nn
        return nn.Sequential(nn.Conv2d(3, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                             nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84),
                             nn.ReLU(), nn.Linear(84, 10))
    check_module(make, (4, 3, 32, 32), steps=2, atol=1e-5, rtol=1e-4)
