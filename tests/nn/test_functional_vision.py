"""F.interpolate / upsample*, pixel_(un)shuffle, channel_shuffle, unfold/fold, normalize,
cosine_similarity, pairwise_distance, pdist, rms_norm, local_response_norm against torch."""
import warnings

import pytest

from oracle import check, check_error

F = "nn.functional"
DTYPES = ["float32", "float64"]


def fn(lib):
    return lib.nn.functional


SIZES = [{"size": (5, 7)}, {"size": 3}, {"size": (2, 3)}, {"scale_factor": 2},
         {"scale_factor": 1.7}, {"scale_factor": (0.5, 1.3)}, {"scale_factor": 0.75},
         {"scale_factor": 1.7, "recompute_scale_factor": True}]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", SIZES)
@pytest.mark.parametrize("mode,align", [("nearest", None), ("nearest-exact", None),
                                        ("area", None), ("bilinear", False), ("bilinear", True),
                                        ("bicubic", False), ("bicubic", True)])
def test_interpolate_2d(mode, align, kw, dtype):
    check(lambda lib, x: fn(lib).interpolate(x, mode=mode, align_corners=align, **kw),
          (2, 3, 4, 5), dtype=dtype)


@pytest.mark.parametrize("kw", [{"scale_factor": 2.5}, {"size": 7}, {"size": 2},
                                {"scale_factor": 2.5, "recompute_scale_factor": True}])
@pytest.mark.parametrize("mode,align", [("nearest", None), ("nearest-exact", None),
                                        ("area", None), ("linear", False), ("linear", True)])
def test_interpolate_1d(mode, align, kw):
    check(lambda lib, x: fn(lib).interpolate(x, mode=mode, align_corners=align, **kw), (2, 3, 5))


@pytest.mark.parametrize("mode,align", [("nearest", None), ("trilinear", False),
                                        ("trilinear", True), ("area", None)])
def test_interpolate_3d(mode, align):
    check(lambda lib, x: fn(lib).interpolate(x, scale_factor=(1.5, 2, 0.5), mode=mode,
                                             align_corners=align), (1, 2, 3, 4, 4))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{"size": (3, 2)}, {"size": (9, 4)}, {"size": (4, 11)},
                                {"scale_factor": 0.3}, {"scale_factor": (0.45, 1.6)},
                                {"scale_factor": 0.3, "recompute_scale_factor": True},
                                {"size": 1}, {"size": (17, 13)}])
@pytest.mark.parametrize("mode,align", [("bilinear", False), ("bilinear", True),
                                        ("bicubic", False), ("bicubic", True),
                                        ("lanczos", None)])
def test_interpolate_antialias(mode, align, kw, dtype):
    """Shrinking averages every input pixel (Pillow's filters), values and gradients as
    torch's (which fuses some multiply-adds: equal to float32 rounding)."""
    check(lambda lib, x: fn(lib).interpolate(x, mode=mode, align_corners=align,
                                             antialias=True, **kw), (2, 3, 17, 13),
          dtype=dtype)


def test_interpolate_antialias_grad_fn_and_layouts():
    import ember
    x = ember.randn(1, 2, 8, 8, requires_grad=True)
    for mode in ("bilinear", "bicubic", "lanczos"):
        y = ember.nn.functional.interpolate(x, size=(3, 5), mode=mode, antialias=True)
        assert y.grad_fn.name() == f"Upsample{mode.capitalize()}2DAaBackward0"
    check(lambda lib, x: fn(lib).interpolate(x.to(memory_format=lib.channels_last), size=(4, 3),
                                             mode="bilinear", antialias=True), (2, 3, 9, 7),
          non_contiguous=True)


@pytest.mark.parametrize("mode,antialias", [("nearest", False), ("nearest-exact", False),
                                            ("bilinear", False), ("bilinear", True),
                                            ("bicubic", False), ("bicubic", True),
                                            ("lanczos", True)])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("kw", [{"size": (3, 4)}, {"size": (37, 23)}, {"size": (10, 13)},
                                {"scale_factor": (0.4, 2.3)}])
@pytest.mark.parametrize("channels", [3, 5])
def test_interpolate_uint8_images_as_torch(mode, antialias, align, kw, channels):
    """uint8 images: torch resizes them in fixed point (int16 weights); ember's values
    are torch's exactly, channels-last input included."""
    import numpy as np
    import torch
    import ember
    if (mode.startswith("nearest") or mode == "lanczos") and align:
        return
    image = np.random.default_rng(0).integers(0, 256, (2, channels, 28, 21), dtype=np.uint8)
    options = dict(mode=mode, antialias=antialias, **kw,
                   align_corners=align if mode in ("bilinear", "bicubic") else None)
    expected = torch.nn.functional.interpolate(torch.from_numpy(image), **options)
    got = ember.nn.functional.interpolate(ember.from_numpy(image), **options)
    assert got.dtype == ember.uint8 and np.array_equal(got.numpy(), expected.numpy())
    last = ember.from_numpy(image).to(memory_format=ember.channels_last)
    got = ember.nn.functional.interpolate(last, **options)
    assert np.array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "bool", "uint8"])
@pytest.mark.parametrize("mode,size,antialias", [
    ("nearest", (3, 4), False), ("nearest", (4,), False), ("bilinear", (3, 4), False),
    ("bicubic", (3, 4), False), ("area", (3, 4), False), ("linear", (4,), False),
    ("bilinear", (3, 4), True)])
def test_interpolate_integer_images_refused_as_torch(dtype, mode, size, antialias):
    import numpy as np
    shape = (1, 3, 6, 6)[:2 + len(size)]
    if dtype == "uint8" and mode in ("nearest", "bilinear", "bicubic"):
        return      # resized: the test above
    check_error(lambda lib: fn(lib).interpolate(lib.tensor(np.zeros(shape, dtype=dtype)),
                                                size=size, mode=mode, antialias=antialias),
                NotImplementedError, "not implemented for '(Char|Int|Long|Bool|Byte)'$")


def test_interpolate_non_contiguous_and_double_backward():
    check(lambda lib, x: fn(lib).interpolate(x, scale_factor=2, mode="bilinear"), (3, 2, 4, 5),
          non_contiguous=True)

    def second(lib, x):
        y = fn(lib).interpolate(x * x, size=(5, 3), mode="bicubic")
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        return g
    check(second, (1, 2, 3, 4), dtype="float64")


def test_interpolate_grad_fn_name():
    import ember
    x = ember.randn(1, 1, 3, 3, requires_grad=True)
    y = ember.nn.functional.interpolate(x, scale_factor=2, mode="bilinear")
    assert y.grad_fn.name() == "UpsampleBilinear2DBackward0"


@pytest.mark.parametrize("call,exc,match", [
    (lambda lib, x: fn(lib).interpolate(x, size=3, scale_factor=2), ValueError,
     "only one of size or scale_factor should be defined"),
    (lambda lib, x: fn(lib).interpolate(x), ValueError, "either size or scale_factor"),
    (lambda lib, x: fn(lib).interpolate(x, size=(2, 3, 4)), ValueError,
     "Input and output must have the same number of spatial dimensions"),
    (lambda lib, x: fn(lib).interpolate(x, scale_factor=(2,)), ValueError,
     "Input and scale_factor must have the same number of spatial dimensions"),
    (lambda lib, x: fn(lib).interpolate(x, size=3, align_corners=True), ValueError,
     "align_corners option can only be set with the interpolating modes"),
    (lambda lib, x: fn(lib).interpolate(x, size=3, recompute_scale_factor=True), ValueError,
     "recompute_scale_factor is not meaningful with an explicit size"),
    (lambda lib, x: fn(lib).interpolate(x, size=3, mode="linear"), NotImplementedError,
     "Got 4D input, but linear mode needs 3D input"),
    (lambda lib, x: fn(lib).interpolate(x, size=3, mode="cubic"), NotImplementedError,
     "Input Error: Only 3D, 4D and 5D input Tensors supported"),
    (lambda lib, x: fn(lib).interpolate(x, size=0), RuntimeError,
     "Input and output sizes should be greater than 0"),
    (lambda lib, x: fn(lib).interpolate(x, size=3, mode="nearest", antialias=True), ValueError,
     "Anti-alias option is restricted to bilinear"),
    (lambda lib, x: fn(lib).interpolate(x, size=3, mode="lanczos"), ValueError,
     "^Lanczos mode requires antialias=True"),
    (lambda lib, x: fn(lib).interpolate(x[0], size=3, mode="bilinear", antialias=True),
     ValueError, "requires a 4-D tensor as input"),
])
def test_interpolate_errors(call, exc, match):
    import numpy as np
    x = np.zeros((1, 1, 2, 2), dtype=np.float32)
    check_error(lambda lib: call(lib, lib.tensor(x)), exc, match)


def test_deprecated_upsample_aliases():
    for name, kwargs in [("upsample", {"mode": "bilinear"}), ("upsample_nearest", {}),
                         ("upsample_bilinear", {})]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check(lambda lib, x: getattr(fn(lib), name)(x, scale_factor=2, **kwargs),
                  (1, 2, 3, 3))


@pytest.mark.parametrize("dtype", DTYPES)
def test_pixel_and_channel_shuffle(dtype):
    check(lambda lib, x: fn(lib).pixel_shuffle(x, 2), (2, 8, 3, 4), dtype=dtype)
    check(lambda lib, x: fn(lib).pixel_shuffle(x, 3), (2, 1, 9, 2, 2), dtype=dtype)
    check(lambda lib, x: fn(lib).pixel_unshuffle(x, 2), (5, 2, 3, 4, 6), dtype=dtype)
    check(lambda lib, x: fn(lib).pixel_unshuffle(x, 1), (3, 4, 6), dtype=dtype)
    check(lambda lib, x: fn(lib).channel_shuffle(x, 2), (2, 6, 3), dtype=dtype)
    check(lambda lib, x: fn(lib).channel_shuffle(x, 3), (2, 6, 3, 2), dtype=dtype)


@pytest.mark.parametrize("call,match", [
    (lambda lib: fn(lib).pixel_shuffle(lib.zeros(2, 3), 2),
     "pixel_shuffle expects input to have at least 3 dimensions"),
    (lambda lib: fn(lib).pixel_shuffle(lib.zeros(1, 5, 2, 2), 2),
     r"input.size\(-3\)=5 is not divisible by 4"),
    (lambda lib: fn(lib).pixel_unshuffle(lib.zeros(1, 4, 3, 2), 2),
     r"pixel_unshuffle expects height to be divisible by downscale_factor"),
    (lambda lib: fn(lib).channel_shuffle(lib.zeros(1, 5, 2), 2),
     "Number of channels must be divisible by groups"),
])
def test_shuffle_errors(call, match):
    check_error(call, RuntimeError, match)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unfold_fold(dtype):
    check(lambda lib, x: fn(lib).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
          (2, 3, 6, 7), dtype=dtype)
    check(lambda lib, x: fn(lib).unfold(x, 2), (3, 4, 5), dtype=dtype)
    check(lambda lib, x: fn(lib).unfold(x, 3, padding=1), (2, 2, 4, 4), dtype=dtype,
          non_contiguous=True)
    check(lambda lib, x: fn(lib).fold(x, (5, 6), (2, 3), padding=1, stride=(2, 1)),
          (2, 12, 18), dtype=dtype)
    check(lambda lib, x: fn(lib).fold(x, 4, 2, stride=2), (8, 4), dtype=dtype)
    check(lambda lib, x: fn(lib).fold(x, (5, 5), 3, dilation=2), (1, 9, 1), dtype=dtype)
    check(lambda lib, x: fn(lib).unfold(x, 2), (0, 2, 3, 3), dtype=dtype)


def test_unfold_fold_double_backward():
    def second(lib, x):
        y = fn(lib).fold(fn(lib).unfold(x * x, 2), (3, 4), 2)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        return g
    check(second, (1, 2, 3, 4), dtype="float64")


@pytest.mark.parametrize("call,match", [
    (lambda lib: fn(lib).unfold(lib.zeros(2, 3, 4, 5, 6), 2),
     "Expected 3D or 4D \\(batch mode\\) tensor"),
    (lambda lib: fn(lib).unfold(lib.zeros(1, 2, 3, 3), 5),
     "calculated shape of the array of sliding blocks as"),
    (lambda lib: fn(lib).fold(lib.zeros(2, 3, 4), (3, 3), 2),
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size"),
    (lambda lib: fn(lib).fold(lib.zeros(2, 8, 3), (3, 3), 2),
     "expected size of input's dimension 2 to match the calculated number of sliding blocks"),
    (lambda lib: fn(lib).fold(lib.zeros(8), (3, 3), 2),
     "Expected 2D or 3D \\(batch mode\\) tensor for input"),
])
def test_unfold_fold_errors(call, match):
    check_error(call, RuntimeError, match)


@pytest.mark.parametrize("dtype", DTYPES)
def test_distances(dtype):
    check(lambda lib, x: fn(lib).normalize(x), (3, 4, 2), dtype=dtype)
    check(lambda lib, x: fn(lib).normalize(x, p=1, dim=-1, eps=0.5), (3, 4), dtype=dtype)
    check(lambda lib, x, y: fn(lib).cosine_similarity(x, y), (3, 4, 5), (1, 4, 5), dtype=dtype)
    check(lambda lib, x, y: fn(lib).cosine_similarity(x, y, dim=0), (4,), (4,), dtype=dtype)
    check(lambda lib, x, y: fn(lib).pairwise_distance(x, y), (3, 4), (3, 4), dtype=dtype)
    check(lambda lib, x, y: fn(lib).pairwise_distance(x, y, p=1, keepdim=True), (3, 4), (4,),
          dtype=dtype)
    check(lambda lib, x, y: fn(lib).pairwise_distance(x, y, p=float("inf")), (3, 4), (3, 4),
          dtype=dtype)
    check(lambda lib, x: fn(lib).pdist(x), (5, 4), dtype=dtype)
    check(lambda lib, x: fn(lib).pdist(x, p=3), (5, 4), dtype=dtype)
    check(lambda lib, x: fn(lib).pdist(x), (1, 4), dtype=dtype)
    check_error(lambda lib: fn(lib).pdist(lib.zeros(2, 3, 4)), RuntimeError,
                "pdist only supports 2D tensors, got: 3D")


def test_cosine_similarity_zero_vector_gradient():
    import numpy as np
    # grad2=False: at a zero vector torch's second derivative is NaN where ember's is finite.
    check(lambda lib, x, y: fn(lib).cosine_similarity(x, y), np.zeros((2, 3), np.float32),
          (2, 3), grad2=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_and_local_response_norm(dtype):
    check(lambda lib, x, w: fn(lib).rms_norm(x, (3, 4), w), (2, 3, 4), (3, 4), dtype=dtype)
    check(lambda lib, x: fn(lib).rms_norm(x, (4,), eps=1e-3), (2, 3, 4), dtype=dtype)
    check(lambda lib, x: fn(lib).rms_norm(x, [4]), (2, 3, 4), dtype=dtype)
    check(lambda lib, x: fn(lib).local_response_norm(x, 3), (2, 5, 4), dtype=dtype)
    check(lambda lib, x: fn(lib).local_response_norm(x, 4, alpha=0.1, beta=0.5, k=2.0),
          (2, 6, 3, 4), dtype=dtype)
    check(lambda lib, x: fn(lib).local_response_norm(x, 2), (0, 3, 4), dtype=dtype)
    check_error(lambda lib: fn(lib).local_response_norm(lib.zeros(2, 3), 2), ValueError,
                "Expected 3D or higher dimensionality")
    check_error(lambda lib: fn(lib).rms_norm(lib.zeros(2, 3, 4), [3]), RuntimeError,
                r"Given normalized_shape=\[3\], expected input with shape \[\*3\]")
