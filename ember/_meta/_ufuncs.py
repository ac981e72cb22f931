"""NumPy ufuncs on MetaArrays: the broadcast shape, NumPy's result dtype, and the layout
a real call would give (following the operand that already has the output's shape)."""
from __future__ import annotations

import numpy as np

from ._array import MetaArray, MetaUnsupported, reduced_shape, result_dtype, shape_of
from ._layout import layout_like


def ufunc_result(ufunc, method: str, inputs: tuple, kwargs: dict):
    """What `ufunc.method(*inputs, **kwargs)` returns, as MetaArrays (None for ufunc.at)."""
    out = kwargs.pop("out", None)
    if out is not None and not isinstance(out, tuple):
        out = (out,)
    if method == "__call__":
        results = _call(ufunc, inputs, kwargs)
    elif method == "reduce":
        results = (_reduce(ufunc, *inputs, **kwargs),)
    elif method == "accumulate":
        results = (_accumulate(ufunc, *inputs, **kwargs),)
    elif method == "at":
        return None         # an in-place update of a data-less array: nothing to do
    else:
        raise MetaUnsupported(f"numpy.{ufunc.__name__}.{method} on a meta array")
    if out is not None and out[0] is not None:
        for target, result in zip(out, results):
            if shape_of(target) != result.shape:
                raise ValueError(f"non-broadcastable output operand with shape "
                                 f"{shape_of(target)} doesn't match the broadcast shape "
                                 f"{result.shape}")
        results = out
    return results[0] if len(results) == 1 else results


def _call(ufunc, inputs: tuple, kwargs: dict) -> tuple:
    where = kwargs.pop("where", True)
    shapes = [shape_of(x) for x in inputs]
    shape = _matmul_shape(*shapes) if ufunc is np.matmul else np.broadcast_shapes(
        *shapes, shape_of(where))
    with np.errstate(all="ignore"):
        probe = ufunc(*(_stand_in_for(x) for x in inputs), **kwargs)
    probe = probe if isinstance(probe, tuple) else (probe,)
    template = next((x for x in inputs if isinstance(x, MetaArray) and x.shape == shape), None)
    return tuple(_new(shape, np.asarray(p).dtype, template) for p in probe)


def _stand_in_for(x):
    """One element of x's dtype, shaped (1, 1) for matmul's core dims."""
    if isinstance(x, (MetaArray, np.ndarray)):
        return np.ones((1,) * min(x.ndim, 2), x.dtype)
    return x


def _new(shape: tuple, dtype, template: MetaArray | None) -> MetaArray:
    dt = np.dtype(dtype)
    if template is None:
        return MetaArray(shape, dt)
    return MetaArray(shape, dt, layout_like(shape, dt.itemsize, template.shape,
                                            template.strides))


def _matmul_shape(a: tuple, b: tuple) -> tuple:
    """matmul's result shape: batch dims broadcast, (n, k) @ (k, m) -> (n, m), a 1-D operand
    promoted to a matrix and its dim dropped again."""
    if not a or not b:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, "
                         f"with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {b2[-2]} is "
                         f"different from {a2[-1]})")
    batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    core = (() if len(a) == 1 else (a2[-2],)) + (() if len(b) == 1 else (b2[-1],))
    return batch + core


def _reduce(ufunc, array, axis=0, dtype=None, keepdims=False, initial=np._NoValue,
            where=True):
    if array.size == 0 and initial is np._NoValue and ufunc.identity is None and (
            axis is None or any(array.shape[a] == 0 for a in
                                (axis if isinstance(axis, tuple) else (axis,)))):
        raise ValueError(f"zero-size array to reduction operation {ufunc.__name__} which has "
                         "no identity")
    dt = result_dtype(ufunc.reduce, np.ones(1, array.dtype), dtype=dtype)
    return MetaArray(reduced_shape(array.shape, axis, keepdims), dt)


def _accumulate(ufunc, array, axis=0, dtype=None):
    dt = result_dtype(ufunc.accumulate, np.ones(1, array.dtype), dtype=dtype)
    return MetaArray(array.shape, dt)
