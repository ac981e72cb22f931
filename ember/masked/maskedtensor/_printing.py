"""torch's MaskedTensor repr: the specified elements (floats as `{:8.4f}`), `--` for the
masked-out ones, one bracketed row per line.

    MaskedTensor(
      [
        [  1.0000,       --,   3.0000],
        [      --,       --,       --]
      ]
    )
"""
from __future__ import annotations

import numpy as np

_FLOAT = "{0:8.4f}"


def _element(value) -> str:
    return _FLOAT.format(value) if isinstance(value, float) else str(value)


def _rows(data: np.ndarray, mask: np.ndarray) -> str:
    if data.ndim == 1:
        shown = [_element(v) for v in data.tolist()]
        # A masked-out element is as wide as the widest, with at least 8 columns.
        width = max(len(s) if m else 8 for s, m in zip(shown, mask))
        return "[" + ", ".join(s if m else "--".rjust(width) for s, m in zip(shown, mask)) + "]"
    inner = ["\n".join("  " + line for line in _rows(d, m).split("\n"))
             for d, m in zip(data, mask)]
    return "[\n" + ",\n".join(inner) + "\n]"


def masked_tensor_repr(data, mask) -> str:
    """The repr torch gives a MaskedTensor with this data and mask."""
    values, present = data.numpy(force=True), mask.numpy(force=True)
    if values.ndim == 0:
        shown = _element(values.item()) if present.item() else "--"
        return f"MaskedTensor({shown}, {bool(present.item())})"
    body = "\n".join("  " + line for line in _rows(values, present).split("\n"))
    return "MaskedTensor(\n" + body + "\n)"
