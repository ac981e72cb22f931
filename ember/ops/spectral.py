"""The three discrete Fourier transform primitives behind ember.fft, and stft / istft.

    FftC2C: complex -> complex, a full n-dimensional transform.
    FftR2C: real -> complex, full or one-sided (the last axis keeps n // 2 + 1 bins).
    FftC2R: complex -> real, the inverse of a one-sided spectrum (or the real part of a
            full transform).

Each is linear, so its gradient is its adjoint, and the adjoint of one is again one of
the three: the transform in the opposite direction (`sign` flipped) with the dual
normalization ("backward" <-> "forward"), because a forward transform scaled by 1/N is
the conjugate transpose of an inverse transform scaled by 1/N. Gradients follow torch's
convention for complex numbers (the gradient of a real loss is dL/dRe + i dL/dIm), so
for a real input only the real part of the adjoint remains.

One-sided spectra need one more step. The one-sided inverse (irfft) counts every bin
except the zero-frequency bin (and the Nyquist bin of an even length) twice, as it stands
for itself and its conjugate mirror. `weight` tracks that doubling: FftR2C multiplies
its output by w**weight and FftC2R its input by w**weight (w = 2 on the doubled bins,
1 elsewhere); rfft is FftR2C with weight 0, irfft FftC2R with weight 0, and their
adjoints are FftC2R with weight -1 and FftR2C with weight 1.

The NumPy transforms keep single precision: float32 -> complex64, float64 -> complex128.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function
from .indexing import put_into_zeros
from .padding import ConstantPad, pad
from .pointwise import scalar_type_name

METHODS = ["stft", "istft"]
INPLACE: list = []

__all__ = ["stft", "istft"]

_DUAL_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _numpy_norm(numpy_sign: int, sign: int, norm: str) -> str:
    """The norm to give a NumPy transform of direction `numpy_sign` (-1 for rfftn, +1 for
    irfftn) that computes, around conjugations, a transform of direction `sign`.

    NumPy reads `norm` as torch does; a transform run in the other direction carries the
    scale of the dual norm (a forward transform scaled by 1/N is an unscaled inverse one)."""
    return norm if numpy_sign == sign else _DUAL_NORM[norm]


def _doubled_bins(length: int) -> slice:
    """The bins a one-sided spectrum of a real signal of `length` samples counts twice."""
    return slice(1, (length + 1) // 2)


def _weighted(spectrum: np.ndarray, axis: int, length: int, weight: int) -> np.ndarray:
    """spectrum * w**weight along `axis` (w = 2 on the doubled bins, 1 elsewhere)."""
    if weight == 0:
        return spectrum
    spectrum = spectrum.copy()
    index = (slice(None),) * (axis % spectrum.ndim) + (_doubled_bins(length),)
    spectrum[index] *= 2.0 ** weight
    return spectrum


def _c2c(z: np.ndarray, axes: tuple, sign: int, norm: str) -> np.ndarray:
    if sign < 0:
        return np.fft.fftn(z, axes=axes, norm=norm)
    return np.fft.ifftn(z, axes=axes, norm=norm)


class FftC2C(Function):
    """scale * sum_n z[n] exp(sign * 2 pi i k n / N) over `axes`, scaled by torch's `norm`."""
    backward_name = "FftC2CBackward0"

    @staticmethod
    def forward(ctx, z, axes, sign, norm):
        ctx.args = axes, -sign, _DUAL_NORM[norm]
        return _c2c(z, axes, sign, norm)

    @staticmethod
    def backward(ctx, grad):
        return FftC2C.apply(grad, *ctx.args), None, None, None


class FftR2C(Function):
    """The transform of a real tensor over `axes`; one-sided keeps n // 2 + 1 last bins."""
    backward_name = "FftR2CBackward0"

    @staticmethod
    def forward(ctx, x, axes, sign, norm, onesided, weight=0):
        length = x.shape[axes[-1]]
        ctx.args = axes, length, -sign, _DUAL_NORM[norm], onesided, weight - 1
        transform = np.fft.rfftn if onesided else np.fft.fftn
        out = transform(x, axes=axes, norm=_numpy_norm(-1, sign, norm))
        if sign > 0:    # a real signal's transform with +i is the conjugate of the -i one
            out = np.conj(out)
        return _weighted(out, axes[-1], length, weight) if onesided else out

    @staticmethod
    def backward(ctx, grad):
        return FftC2R.apply(grad, *ctx.args), None, None, None, None, None


class FftC2R(Function):
    """The real signal (of `length` samples along axes[-1]) of a one-sided spectrum, or, when
    not `onesided`, the real part of a full complex transform."""
    backward_name = "FftC2RBackward0"

    @staticmethod
    def forward(ctx, z, axes, length, sign, norm, onesided=True, weight=0):
        ctx.args = axes, -sign, _DUAL_NORM[norm], onesided, weight + 1
        if not onesided:
            return _c2c(z, axes, sign, norm).real.copy()
        data = _weighted(z, axes[-1], length, weight)
        if sign < 0:    # Re(F_-(z)) = Re(conj(F_+(conj z))) = Re(F_+(conj z))
            data = np.conj(data)
        sizes = [data.shape[a] for a in axes[:-1]] + [length]
        return np.fft.irfftn(data, s=sizes, axes=axes, norm=_numpy_norm(1, sign, norm))

    @staticmethod
    def backward(ctx, grad):
        return FftR2C.apply(grad, *ctx.args), None, None, None, None, None, None


# ---------------------------------------------------------------- stft / istft
def _describe(input: Tensor, style: str) -> str:
    """A tensor as torch's stft / istft error messages print it."""
    name, shape = scalar_type_name(input.dtype), ", ".join(map(str, input.shape))
    return f"torch.{name}Tensor[{shape}]" if style == "stft" else f"CPU{name}Type[{shape}]"


def _describe_window(window) -> str:
    if window is None:
        return "None"
    return f"torch.{scalar_type_name(window.dtype)}Tensor{{[{', '.join(map(str, window.shape))}]}}"


def _flag(value) -> str:
    return "None" if value is None else str(int(value))


def _call(op: str, input: Tensor, **args) -> str:
    """How torch's stft / istft errors open: the call with its (resolved) arguments."""
    return f"{op}({', '.join([_describe(input, op)] + [f'{k}={v}' for k, v in args.items()])})"


def _full_window(window, win_length: int, n_fft: int, real_dtype) -> Tensor:
    """The window (ones when None) zero-padded on both sides to n_fft samples, centred."""
    if window is None:
        window = Tensor._wrap(np.ones(win_length, dtype=real_dtype))
    left = (n_fft - win_length) // 2
    if left == 0 and win_length == n_fft:
        return window
    return ConstantPad.apply(window, ((left, n_fft - win_length - left),), 0)


def _spectrum_dtype_check(input: Tensor, prefix: str) -> None:
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"{prefix} : expected a tensor of floating point or complex values")
    if input._data.dtype.itemsize == 2:
        raise RuntimeError("MKL FFT doesn't support tensors of type: "
                           f"{scalar_type_name(input.dtype)}")


def stft(input: Tensor, n_fft: int, hop_length: int | None = None,
         win_length: int | None = None, window: Tensor | None = None, center: bool = True,
         pad_mode: str = "reflect", normalized: bool = False, onesided: bool | None = None,
         return_complex: bool | None = None, align_to_window: bool | None = None) -> Tensor:
    """The short-time Fourier transform: the spectra of windowed frames of n_fft samples,
    hop_length apart, as a (batch?, frequencies, frames) complex tensor."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if align_to_window:
        raise NotImplementedError("stft(align_to_window=True) is not supported by ember")
    if center:      # pad with reflections so that frame t is centred on sample t * hop_length
        signal_dim = input.ndim
        extended = input.reshape((1,) * (3 - signal_dim) + tuple(input.shape))
        padded = pad(extended, [n_fft // 2, n_fft // 2], pad_mode)
        input = padded.reshape(padded.shape[3 - signal_dim:] if signal_dim else ())
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    prefix = _call("stft", input, n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                   window=_describe_window(window), normalized=_flag(normalized),
                   onesided=_flag(onesided), return_complex=_flag(return_complex),
                   align_to_window=_flag(align_to_window))
    complex_input = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_input:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if return_complex is False:
        raise NotImplementedError("stft(return_complex=False) is not supported by ember (torch "
                                  "deprecates it); use return_complex=True and view_as_real")
    _spectrum_dtype_check(input, prefix)
    if input.ndim not in (1, 2):
        raise RuntimeError(f"{prefix} : expected a 1D or 2D tensor")
    length = input.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"{prefix} : expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop_length <= 0:
        raise RuntimeError(f"{prefix} : expected hop_length > 0, but got "
                           f"hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{prefix} : expected 0 < win_length <= n_fft, but got "
                           f"win_length={win_length}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win_length):
        raise RuntimeError(f"{prefix} : expected a 1D window tensor of size equal to "
                           f"win_length={win_length}, but got window with size "
                           f"{list(window.shape)}")
    onesided = not complex_input if onesided is None else onesided
    if onesided and complex_input:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which "
                      "is known to cause spectral leakage. Other windows such as "
                      "torch.hann_window or torch.hamming_window are recommended to reduce "
                      "spectral leakage.To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    batched = input.ndim == 2
    frames = (input if batched else input.unsqueeze(0)).unfold(-1, n_fft, hop_length)
    real_dtype = np.empty(0, input._data.dtype).real.dtype
    frames = frames * _full_window(window, win_length, n_fft, real_dtype)
    norm = "ortho" if normalized else "backward"
    if frames.is_complex():
        spectra = FftC2C.apply(frames, (2,), -1, norm)
    else:
        spectra = FftR2C.apply(frames, (2,), -1, norm, onesided)
    spectra = spectra.transpose(1, 2)
    return spectra if batched else spectra.squeeze(0)


def _overlap_add(frames: Tensor, hop_length: int) -> Tensor:
    """Sum (batch, frames, n) frames placed hop_length apart into (batch, signal) signals."""
    batch, count, n = frames.shape
    length = n + hop_length * (count - 1)
    positions = hop_length * np.arange(count)[:, None] + np.arange(n)      # (frames, n)
    return put_into_zeros(frames, (slice(None), positions), (batch, length))


def istft(input: Tensor, n_fft: int, hop_length: int | None = None,
          win_length: int | None = None, window: Tensor | None = None, center: bool = True,
          normalized: bool = False, onesided: bool | None = None, length: int | None = None,
          return_complex: bool = False) -> Tensor:
    """The inverse of stft: the signal whose windowed frames have these spectra, by
    overlap-adding the inverse transforms and dividing by the summed squared window."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    prefix = _call("istft", input, n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                   window=_describe_window(window), center=_flag(center),
                   normalized=_flag(normalized), onesided=_flag(onesided), length=length,
                   return_complex=_flag(return_complex))
    if input.ndim not in (2, 3):
        raise RuntimeError(f"{prefix} : expected a tensor with 3 or 4 dimensions, but got "
                           f"{input.ndim + 1}")
    if input.numel() == 0:
        raise RuntimeError(f"{prefix} : input tensor cannot be empty.")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{prefix} : expected 0 < win_length <= n_fft")
    if not 0 < hop_length <= win_length:
        raise RuntimeError(f"{prefix} : expected 0 < hop_length <= win_length")
    if window is not None and (window.ndim != 1 or window.shape[0] != win_length):
        raise RuntimeError(f"{prefix} : Invalid window shape. window has to be 1D and length "
                           "of `win_length`")
    bins = input.shape[-2]
    onesided = bins != n_fft if onesided is None else onesided
    if onesided and bins != n_fft // 2 + 1:
        raise RuntimeError(f"{prefix} : expected the frequency dimension (3rd to the last) of "
                           "the input tensor to match n_fft / 2 + 1 when onesided=True, but "
                           f"got {bins}")
    if not onesided and bins != n_fft:
        raise RuntimeError(f"{prefix} : expected the frequency dimension (3rd to the last) of "
                           f"the input tensor to match n_fft when onesided=False, but got "
                           f"{bins}")
    batched = input.ndim == 3
    spectra = (input if batched else input.unsqueeze(0)).transpose(1, 2)
    norm = "ortho" if normalized else "backward"
    axes = (2,)
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = FftC2C.apply(spectra, axes, 1, norm)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            spectra = spectra.narrow(2, 0, n_fft // 2 + 1)
        frames = FftC2R.apply(spectra, axes, n_fft, 1, norm)
    real_dtype = np.empty(0, input._data.dtype).real.dtype
    window = _full_window(window, win_length, n_fft, real_dtype)
    signal = _overlap_add(frames * window, hop_length)
    count = frames.shape[1]
    envelope = _overlap_add((window * window).reshape(1, 1, n_fft).expand(1, count, n_fft),
                            hop_length)[0]
    start = n_fft // 2 if center else 0
    full = signal.shape[-1]
    if length is not None:
        end = start + length
    else:
        end = full - n_fft // 2 if center else full
    signal, envelope = signal[:, start:end], envelope[start:end]
    if envelope.numel() and float(envelope.abs().min()) < 1e-11:
        raise RuntimeError(f"{prefix} window overlap add min: 1")
    signal = signal / envelope
    if length is not None and signal.shape[-1] < length:
        warnings.warn("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.")
        signal = ConstantPad.apply(signal, ((0, 0), (0, length - signal.shape[-1])), 0)
    return signal if batched else signal.squeeze(0)
