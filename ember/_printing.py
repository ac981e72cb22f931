"""Tensor repr that reads character for character like PyTorch's.

    tensor([[ 0.1234, -1.0000],
            [ 2.5000,  3.0000]], dtype=torch.float64, requires_grad=True)

How a tensor is printed:

1. Pick one number style for the whole tensor from its finite nonzero values
   (`_Style`): *integer mode* when they are all whole numbers (printed `3.`),
   *scientific* when the largest/smallest magnitude ratio exceeds 1000, the largest
   exceeds 1e8 or (not in integer mode) the smallest is under 1e-4, else fixed point
   with `precision` decimals. Every entry is right-aligned to the widest one.
2. Tensors with more than `threshold` elements are summarised: only `edgeitems`
   entries at each end of every dimension are shown, the rest become `...`. The style
   is then chosen from the shown entries only.
3. Rows are nested with one more space of indent per level; 1-D rows wrap so no
   line passes `linewidth`. Higher dimensions are separated by blank lines.
4. Suffixes (dtype when not the default for its kind, size for empty tensors,
   requires_grad / grad_fn) follow the closing bracket, on a new line if the last
   line would get too long.
"""
from __future__ import annotations

import math

import numpy as np

from . import _dtype
from ._tensor import Tensor, _python_value, bind_methods

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "tensor_repr"]


class _PrintOptions:
    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


OPTIONS = _PrintOptions()

# profile name -> (precision, threshold, edgeitems, linewidth)
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Set how tensors print. A `profile` ('default', 'short', 'full') sets the first four
    options at once; explicit options then override it. `sci_mode` is always reset:
    None lets each tensor choose, True/False forces scientific notation on or off."""
    if profile in _PROFILES:
        (OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems,
         OPTIONS.linewidth) = _PROFILES[profile]
    if precision is not None:
        OPTIONS.precision = precision
    if threshold is not None:
        OPTIONS.threshold = threshold
    if edgeitems is not None:
        OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        OPTIONS.linewidth = linewidth
    OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current options, as keyword arguments for `set_printoptions`."""
    return {name: getattr(OPTIONS, name) for name in _PrintOptions.__slots__}


class printoptions:
    """Context manager: `with printoptions(precision=2): print(t)`."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __enter__(self):
        self.saved = get_printoptions()
        set_printoptions(**self.kwargs)

    def __exit__(self, *exc):
        set_printoptions(**self.saved)


# ---------------------------------------------------------------- number style
class _Style:
    """How every entry of one (real) tensor is written, and the common column width."""

    def __init__(self, values: np.ndarray):
        # `values` holds the entries that will be shown: float64 for floating tensors,
        # the original integers / bools otherwise.
        self.is_float = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not self.is_float:
            self.width = max([self.width] + [len(str(v)) for v in flat.tolist()])
            return
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            # Only zeros, infs and nans: integer mode, width 1 (the forced sci_mode
            # option is not consulted either, as in torch).
            return
        magnitude = np.abs(shown)
        low, high = magnitude.min(), magnitude.max()
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        if OPTIONS.sci_mode is None:
            self.sci_mode = bool(high / low > 1000.0 or high > 1.0e8 or
                                 (not self.int_mode and low < 1.0e-4))
        else:
            self.sci_mode = OPTIONS.sci_mode
        # Integer mode adds one column for the trailing '.'.
        extra = 1 if self.int_mode and not self.sci_mode else 0
        self.width = max(len(self._text(v)) + extra for v in shown.tolist())

    def _text(self, value: float) -> str:
        """One entry without padding (integer mode's '.' is added by `format`)."""
        if self.sci_mode:
            return f"{value:.{OPTIONS.precision}e}"
        if self.int_mode:
            return f"{value:.0f}"
        return f"{value:.{OPTIONS.precision}f}"

    def format(self, value) -> str:
        if not self.is_float:
            text = str(value)
        else:
            text = self._text(value)
            if self.int_mode and not self.sci_mode and math.isfinite(value):
                text += "."
        return text.rjust(self.width)


def _format_complex(value: complex, real: _Style, imag: _Style) -> str:
    imag_text = (imag.format(value.imag) + "j").lstrip()
    sign = "" if imag_text[0] in "+-" else "+"
    return real.format(value.real) + sign + imag_text


# ---------------------------------------------------------------- layout
def _edge_entries(values: np.ndarray) -> np.ndarray:
    """Only the entries a summarised print shows: `edgeitems` at both ends of every dim."""
    edge = OPTIONS.edgeitems
    if values.ndim >= 2 and not edge:
        return values[(slice(0, 0),) * values.ndim]
    for axis, n in enumerate(values.shape):
        if n > 2 * edge:
            keep = np.r_[0:edge, n - edge:n] if edge else np.arange(n)
            values = values.take(keep, axis=axis)
    return values


class _Layout:
    """Writes nested brackets for one tensor, given the style(s) of its entries."""

    def __init__(self, summarize: bool, real: _Style, imag: _Style | None):
        self.summarize = summarize
        self.real = real
        self.imag = imag

    def entry(self, value) -> str:
        if self.imag is None:
            return self.real.format(value)
        return _format_complex(value, self.real, self.imag)

    def _cut(self, n: int) -> bool:
        return self.summarize and n > 2 * OPTIONS.edgeitems

    def render(self, values: np.ndarray, indent: int) -> str:
        if values.ndim == 0:
            return self.entry(values.item())
        if values.ndim == 1:
            return self._row(values, indent)
        n, edge = values.shape[0], OPTIONS.edgeitems
        rows = range(edge) if self._cut(n) else range(n)
        parts = [self.render(values[i], indent + 1) for i in rows]
        if self._cut(n):
            parts.append("...")
            parts += [self.render(values[i], indent + 1) for i in range(n - edge, n)]
        separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
        return "[" + separator.join(parts) + "]"

    def _row(self, values: np.ndarray, indent: int) -> str:
        """A 1-D row, wrapped to the line width ('[' sits at column `indent`)."""
        cell = self.real.width + 2                       # entry plus ', '
        if self.imag is not None:
            cell += self.imag.width + 1                  # imaginary part plus 'j'
        per_line = max(1, math.floor((OPTIONS.linewidth - indent) / cell))
        edge = OPTIONS.edgeitems
        if self.summarize and not edge:
            items = ["..."]
        elif self._cut(values.shape[0]):
            items = ([self.entry(v) for v in values[:edge].tolist()] + [" ..."] +
                     [self.entry(v) for v in values[-edge:].tolist()])
        else:
            items = [self.entry(v) for v in values.tolist()]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _as_printable(data: np.ndarray) -> np.ndarray:
    """Floats as float64 (exact for every narrower float, so digits match torch's)."""
    if data.dtype.kind == "f" or data.dtype in _dtype.LOW_PRECISION_NUMPY:
        return data.astype(np.float64)
    if data.dtype.kind == "c":
        return data.astype(np.complex128)
    return data


def _body(data: np.ndarray, indent: int) -> str:
    """The bracketed numbers of a non-empty tensor."""
    values = _as_printable(data)
    summarize = values.size > OPTIONS.threshold
    shown = _edge_entries(values) if summarize else values
    if values.dtype.kind == "c":
        layout = _Layout(summarize, _Style(shown.real), _Style(shown.imag))
    else:
        layout = _Layout(summarize, _Style(shown), None)
    return layout.render(values, indent)


# ---------------------------------------------------------------- repr
def _has_default_dtype(dt: _dtype.dtype) -> bool:
    default = _dtype.get_default_dtype()
    default_complex = _dtype.complex128 if default is _dtype.float64 else _dtype.complex64
    return dt in (default, default_complex, _dtype.int64, _dtype.bool)


def _with_suffixes(text: str, suffixes: list, indent: int, force_newline: bool = False) -> str:
    """Append ', suffix' items, moving one to a new line when it would pass the width (the
    first one always with force_newline)."""
    line_length = len(text) - text.rfind("\n") + 1
    parts = [text]
    for suffix in suffixes:
        if force_newline or line_length + len(suffix) + 2 > OPTIONS.linewidth:
            force_newline = False
            parts.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_length += len(suffix) + 2
    return "".join(parts) + ")"


def _is_parameter_class(cls) -> bool:
    # Looked up by name so that this module needs no import of ember.nn.
    return any(c.__name__ == "Parameter" for c in cls.__mro__)


def tensor_repr(t, tensor_contents: str | None = None) -> str:
    """repr(t) / str(t), identical to PyTorch's text for the same tensor."""
    plain = type(t) is Tensor or type(t).__name__ == "Parameter"
    prefix = "tensor(" if plain else type(t).__name__ + "("
    indent = len(prefix)
    data = t._data
    suffixes = []
    if t.is_meta:
        # No values to show: torch prints '...', the device, the size and a non-default dtype.
        suffixes += ["device='meta'", f"size={tuple(data.shape)}"]
        if t.dtype is not _dtype.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
        body = "..." if tensor_contents is None else tensor_contents
    elif data.size == 0:
        # No entries to tell int64 from float: always name a non-default dtype.
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if t.dtype is not _dtype.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
        body = "[]" if tensor_contents is None else tensor_contents
    else:
        if not OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(data.shape)}")
        if not _has_default_dtype(t.dtype):
            suffixes.append(f"dtype={t.dtype}")
        body = _body(data, indent) if tensor_contents is None else tensor_contents
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    text = _with_suffixes(prefix + body, suffixes, indent)
    if not plain and _is_parameter_class(type(t)):
        text = f"Parameter({text})"
    return text


def sparse_coo_repr(indices: np.ndarray, values: np.ndarray, shape: tuple, dt: _dtype.dtype,
                    grad_fn, requires_grad: bool) -> str:
    """repr of a sparse COO tensor, as torch prints it: its indices and values (without
    dtypes), then on a new line size, nnz, the dtype when it is not a default one, the
    layout and the autograd state."""
    def field(name: str, data: np.ndarray) -> str:
        if data.size == 0:
            return f"{name}=tensor([], size={tuple(data.shape)})"
        return f"{name}=tensor({_body(data, len(f'tensor({name}=tensor('))})"
    suffixes = [f"size={tuple(shape)}", f"nnz={values.shape[0]}"]
    if not _has_default_dtype(dt):
        suffixes.append(f"dtype={dt}")
    suffixes.append("layout=torch.sparse_coo")
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    text = f"tensor({field('indices', indices)},\n       {field('values', values)}"
    return _with_suffixes(text, suffixes, len("tensor("), force_newline=True)


def _tensor_repr_method(self, *, tensor_contents=None) -> str:
    _python_value("repr", "text", self)
    return tensor_repr(self)


bind_methods(__repr__=_tensor_repr_method)
