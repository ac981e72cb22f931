"""stft / istft (ember/ops/spectral.py) against torch."""
import numpy as np
import pytest
import torch

import ember
import ember.ops.windows as windows
from ember.ops.spectral import istft, stft
from oracle import check_error
from test_fft import _random, check_transform


class Lib:
    """torch's namespace for torch; for ember, its stft, istft and windows (not yet bound
    as ember.stft ...)."""
    def __init__(self, lib):
        self.lib = lib
        if lib is ember:
            self.stft, self.istft = stft, istft
            self.hann_window, self.hamming_window = windows.hann_window, windows.hamming_window

    def __getattr__(self, name):
        return getattr(self.lib, name)


def on(fn):
    return lambda lib, *args: fn(Lib(lib), *args)


pytestmark = [pytest.mark.filterwarnings("ignore:A window was not provided"),
              pytest.mark.filterwarnings("ignore:The length of signal is shorter"),
              pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")]

STFT_CASES = [
    lambda lib, x: lib.stft(x, 8, return_complex=True),
    lambda lib, x: lib.stft(x, 8, window=lib.hann_window(8, dtype=x.dtype), return_complex=True),
    lambda lib, x: lib.stft(x, 8, 3, window=lib.hann_window(8, dtype=x.dtype),
                            return_complex=True, normalized=True),
    lambda lib, x: lib.stft(x, 8, hop_length=2, win_length=5, return_complex=True),
    lambda lib, x: lib.stft(x, 8, 4, 6, lib.hamming_window(6, dtype=x.dtype),
                            return_complex=True),
    lambda lib, x: lib.stft(x, 6, center=False, return_complex=True),
    lambda lib, x: lib.stft(x, 6, center=False, align_to_window=False, return_complex=True),
    lambda lib, x: lib.stft(x, 8, pad_mode="constant", return_complex=True),
    lambda lib, x: lib.stft(x, 8, pad_mode="replicate", return_complex=True),
    lambda lib, x: lib.stft(x, 8, pad_mode="circular", return_complex=True),
    lambda lib, x: lib.stft(x, 8, onesided=False, return_complex=True),
    lambda lib, x: lib.stft(x, 7, 2, return_complex=True, normalized=True, onesided=False),
    lambda lib, x: lib.stft(x, 20, 20, center=False, return_complex=True),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(STFT_CASES)))
def test_stft(case, dtype):
    fn = on(STFT_CASES[case])
    check_transform(fn, _random((20,), dtype, False))
    check_transform(fn, _random((3, 20), dtype, False))
    check_transform(fn, _random((3, 20), dtype, False), non_contiguous=True)


def test_stft_of_complex_signals():
    """Complex input gives a two-sided spectrum by default."""
    z = _random((2, 24), "float64", True)
    check_transform(on(lambda lib, x: lib.stft(x, 8, return_complex=True)), z)
    check_transform(on(lambda lib, x: lib.stft(x, 8)), z)
    check_transform(on(lambda lib, x: lib.stft(x, 8, 2, normalized=True,
                                               window=lib.hann_window(8, dtype=lib.float64))), z)


def test_stft_window_gradient_and_promotion():
    """The window gets a gradient too; a float64 window promotes float32 input."""
    check_transform(on(lambda lib, x, w: lib.stft(x, 8, window=w, return_complex=True)),
                    _random((2, 30), "float64", False), _random((8,), "float64", False))
    check_transform(on(lambda lib, x, w: lib.stft(x, 8, 3, 6, window=w, return_complex=True)),
                    _random((30,), "float32", False), _random((6,), "float32", False))
    check_transform(on(lambda lib, x: lib.stft(x, 8, window=lib.hann_window(8, dtype=lib.float64),
                                               return_complex=True)),
                    _random((30,), "float32", False))


@pytest.mark.parametrize("complex_signal", [True, False])
def test_stft_gradients_with_complex_operands(complex_signal):
    check_transform(on(lambda lib, x, w: lib.stft(x, 8, window=w)),
                    _random((24,), "float64", complex_signal),
                    _random((8,), "float64", not complex_signal))


def test_stft_double_backward():
    check_transform(on(lambda lib, x: lib.stft(x, 8, window=lib.hann_window(8, dtype=x.dtype),
                                               return_complex=True)),
                    _random((2, 24), "float64", False), double_backward=True)


def _spectrum(shape_signal, n_fft, hop, window, dtype="float64", onesided=True, seed=0):
    """A consistent stft (so istft's frames overlap-add to a signal) as a NumPy array."""
    x = torch.from_numpy(_random(shape_signal, dtype, not onesided, seed))
    return torch.stft(x, n_fft, hop, window=window, return_complex=True).numpy()


ISTFT_CASES = [
    (lambda lib, s: lib.istft(s, 8, window=lib.hann_window(8, dtype=lib.float64)), 8, 2),
    (lambda lib, s: lib.istft(s, 8, 2, window=lib.hann_window(8, dtype=lib.float64),
                              length=20), 8, 2),
    (lambda lib, s: lib.istft(s, 8, 2, window=lib.hann_window(8, dtype=lib.float64),
                              length=27), 8, 2),
    (lambda lib, s: lib.istft(s, 8, 2, window=lib.hann_window(8, dtype=lib.float64),
                              length=11), 8, 2),
    (lambda lib, s: lib.istft(s, 8, 3, normalized=True), 8, 3),
    (lambda lib, s: lib.istft(s, 8, 2, 6, window=lib.hann_window(6, dtype=lib.float64)), 8, 2),
    (lambda lib, s: lib.istft(s, 8, 4, center=False), 8, 4),
    (lambda lib, s: lib.istft(s, 8, 4, center=False, length=30), 8, 4),
]


@pytest.mark.parametrize("case", range(len(ISTFT_CASES)))
def test_istft(case):
    fn, n_fft, hop = ISTFT_CASES[case]
    window = torch.hann_window(n_fft, dtype=torch.float64)
    check_transform(on(fn), _spectrum((22,), n_fft, hop, window))
    check_transform(on(fn), _spectrum((2, 22), n_fft, hop, window))
    check_transform(on(fn), _random((5, 9), "float64", True))    # any complex input


def test_istft_two_sided_input():
    s = _spectrum((2, 24), 8, 2, None, onesided=False)
    check_transform(on(lambda lib, x: lib.istft(x, 8, 2, return_complex=True)), s)
    check_transform(on(lambda lib, x: lib.istft(x, 8, 2)), s)      # real part of the signal
    check_transform(on(lambda lib, x: lib.istft(x, 8, 2, onesided=False)), s)


def test_istft_float32_and_window_gradient():
    s = _spectrum((30,), 8, 2, None, dtype="float32")
    check_transform(on(lambda lib, x: lib.istft(x, 8, 2)), s)
    check_transform(on(lambda lib, x, w: lib.istft(x, 8, 2, window=w)), s,
                    (np.hanning(10)[1:-1] + 0.1).astype(np.float32))


def test_round_trip():
    x = ember.randn(2, 100, dtype=ember.float64)
    w = windows.hann_window(16, dtype=ember.float64)
    spectra = stft(x, 16, 4, window=w, return_complex=True)
    np.testing.assert_allclose(istft(spectra, 16, 4, window=w, length=100).numpy(), x.numpy(),
                               atol=1e-12)


def test_double_backward_istft():
    check_transform(on(lambda lib, s: lib.istft(s, 8, 2)), _spectrum((20,), 8, 2, None),
                    double_backward=True)


X = np.zeros(20, dtype=np.float32)


def _x(lib):
    return lib.from_numpy(X.copy())


STFT_ERRORS = [
    (lambda lib: lib.stft(_x(lib), 8), RuntimeError,
     "^stft requires the return_complex parameter be given for real inputs"),
    (lambda lib: lib.stft(_x(lib), 8, return_complex=True, align_to_window=True), RuntimeError,
     "^stft align_to_window should only be set when center = false"),
    (lambda lib: lib.stft(_x(lib).reshape(1, 2, 10), 4, return_complex=True), RuntimeError,
     r"^stft\(torch.FloatTensor\[1, 2, 14\], n_fft=4, .* : expected a 1D or 2D tensor"),
    (lambda lib: lib.stft(_x(lib), 0, return_complex=True), RuntimeError,
     r"^stft\(.*\) : expected 0 < n_fft < 20, but got n_fft=0"),
    (lambda lib: lib.stft(_x(lib), 30, center=False, return_complex=True), RuntimeError,
     r"^stft\(torch.FloatTensor\[20\], n_fft=30, hop_length=7, win_length=30, window=None, "
     r"normalized=0, onesided=None, return_complex=1, align_to_window=None\) : "
     r"expected 0 < n_fft < 20, but got n_fft=30"),
    (lambda lib: lib.stft(_x(lib), 8, hop_length=0, return_complex=True), RuntimeError,
     r"^stft\(.*\) : expected hop_length > 0, but got hop_length=0"),
    (lambda lib: lib.stft(_x(lib), 8, win_length=9, return_complex=True), RuntimeError,
     r"^stft\(.*\) : expected 0 < win_length <= n_fft, but got win_length=9"),
    (lambda lib: lib.stft(_x(lib), 8, window=lib.ones(7), return_complex=True), RuntimeError,
     r"^stft\(.*window=torch.FloatTensor\{\[7\]\}.*\) : expected a 1D window tensor of size "
     r"equal to win_length=8, but got window with size \[7\]"),
    (lambda lib: lib.stft(_x(lib).to(lib.complex64), 8, onesided=True), RuntimeError,
     "^Cannot have onesided output if window or input is complex"),
    (lambda lib: lib.stft(_x(lib).long(), 8, return_complex=True), RuntimeError,
     r"^stft\(torch.LongTensor.* : expected a tensor of floating point or complex values"),
    (lambda lib: lib.stft(_x(lib).half(), 8, return_complex=True), RuntimeError,
     "^MKL FFT doesn't support tensors of type: Half"),
    (lambda lib: lib.stft(_x(lib)[:3], 8, return_complex=True), RuntimeError,
     "^Argument #4: Padding size should be less than the corresponding input dimension"),
    (lambda lib: lib.stft(_x(lib), 8, return_complex=True, pad_mode="bad"), NotImplementedError,
     "^Unrecognised padding mode bad"),
]
ISTFT_ERRORS = [
    (lambda lib: lib.istft(lib.ones(5, 11), 8), RuntimeError,
     "^istft requires a complex-valued input tensor matching the output from stft"),
    (lambda lib: lib.istft(lib.ones(1, 1, 5, 3, dtype=lib.complex64), 8), RuntimeError,
     r"^istft\(CPUComplexFloatType\[1, 1, 5, 3\], n_fft=8, .* : expected a tensor with 3 or 4 "
     "dimensions, but got 5"),
    (lambda lib: lib.istft(lib.ones(5, 0, dtype=lib.complex64), 8), RuntimeError,
     r"^istft\(.*\) : input tensor cannot be empty."),
    (lambda lib: lib.istft(lib.ones(5, 3, dtype=lib.complex64), 8, win_length=9), RuntimeError,
     r"^istft\(.*\) : expected 0 < win_length <= n_fft"),
    (lambda lib: lib.istft(lib.ones(5, 3, dtype=lib.complex64), 8, 0), RuntimeError,
     r"^istft\(.*\) : expected 0 < hop_length <= win_length"),
    (lambda lib: lib.istft(lib.ones(5, 3, dtype=lib.complex64), 8, window=lib.ones(7)),
     RuntimeError, r"^istft\(.*\) : Invalid window shape. window has to be 1D and length of "),
    (lambda lib: lib.istft(lib.ones(5, 3, dtype=lib.complex64), 10), RuntimeError,
     r"^istft\(CPUComplexFloatType\[5, 3\], n_fft=10, hop_length=2, win_length=10, "
     r"window=None, center=1, normalized=0, onesided=None, length=None, return_complex=0\) : "
     r"expected the frequency dimension \(3rd to the last\) of the input tensor to match "
     r"n_fft / 2 \+ 1 when onesided=True, but got 5"),
    (lambda lib: lib.istft(lib.ones(5, 3, dtype=lib.complex64), 8, onesided=False),
     RuntimeError, r"^istft\(.*\) : expected the frequency dimension \(3rd to the last\) of the "
     "input tensor to match n_fft when onesided=False, but got 5"),
    (lambda lib: lib.istft(lib.ones(5, 3, dtype=lib.complex64), 8, return_complex=True),
     RuntimeError, "^Cannot have onesided output if window or input is complex"),
    (lambda lib: lib.istft(lib.ones(5, 3, dtype=lib.complex64), 8, center=False,
                           window=lib.hann_window(8)), RuntimeError,
     r"^istft\(.*\) window overlap add min"),
]


@pytest.mark.parametrize("fn, error, match", STFT_ERRORS + ISTFT_ERRORS)
def test_errors(fn, error, match):
    check_error(lambda lib: fn(Lib(lib)), error, match)


def test_unsupported_arguments():
    with pytest.raises(NotImplementedError, match="return_complex=False"):
        stft(ember.ones(20), 8, return_complex=False)
    with pytest.raises(NotImplementedError, match="align_to_window"):
        stft(ember.ones(20), 8, center=False, align_to_window=True, return_complex=True)


def test_missing_window_warns():
    with pytest.warns(UserWarning, match="A window was not provided"):
        stft(ember.ones(20), 8, return_complex=True)
