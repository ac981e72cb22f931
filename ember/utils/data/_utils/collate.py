"""Collation: turning a list of samples into a batch (default_collate) and converting
NumPy data to tensors without batching (default_convert)."""
from __future__ import annotations

import collections
import copy
import re
from collections.abc import Callable

import numpy as np

from ...._modes import current as current_modes
from ...._tensor import Tensor
from ..dataset import BatchedSamples
from .shared_memory import shared_empty

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

# NumPy dtypes that hold strings or Python objects: not convertible to tensors.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, "
                                  "numbers, dicts or lists; found {}")


def _as_tensor(data) -> Tensor:
    from .... import as_tensor
    return as_tensor(data)


def _rebuild_like(container, items):
    """A container of `container`'s type holding `items` (a dict of values for a Mapping,
    a list for a Sequence), falling back to dict/list when the type can't be rebuilt so."""
    try:
        if isinstance(container, collections.abc.MutableMapping):
            clone = copy.copy(container)
            clone.update(items)
            return clone
        if isinstance(container, collections.abc.MutableSequence):
            clone = copy.copy(container)
            clone[:] = items
            return clone
        return type(container)(items)
    except TypeError:
        return items


def default_convert(data):
    """Convert NumPy arrays and scalars (also inside dicts, namedtuples and sequences) to
    tensors, leaving everything else as it is. Used when batch_size=None."""
    if isinstance(data, Tensor):
        return data
    kind = type(data)
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_", "bytes_"):
        if isinstance(data, np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_like(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as torch returns
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_like(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate `batch` (a list of samples) by the type of its first element: the function
    registered for that type in `collate_fn_map`, else recursively through mappings,
    namedtuples and sequences (which are transposed: a list of pairs becomes a pair of
    batches)."""
    if isinstance(batch, BatchedSamples):
        batch = list(batch)
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    def recurse(samples):
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_like(elem, {key: recurse([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(recurse(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if len(set(map(len, batch))) > 1:
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [recurse(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # a list, as torch returns
        return _rebuild_like(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def _positions(indices: list[int]) -> str:
    """'position 5' / 'positions 0, 1, 2, ...' (at most 4 listed)."""
    shown = ", ".join(map(str, indices[:4])) + (", ..." if len(indices) > 4 else "")
    return f"position{'s' if len(indices) > 1 else ''} {shown}"


def _size_mismatch_error(shapes: list[tuple]) -> RuntimeError:
    """torch's stack error, plus which batch positions have which shape and the usual
    fixes."""
    first = next(i for i, shape in enumerate(shapes) if shape != shapes[0])
    by_shape: dict[tuple, list[int]] = {}
    for i, shape in enumerate(shapes):
        by_shape.setdefault(shape, []).append(i)
    groups = "; ".join(f"{list(shape)} at {_positions(where)}"
                       for shape, where in by_shape.items())
    return RuntimeError(
        f"stack expects each tensor to be equal size, but got {list(shapes[0])} at entry 0 "
        f"and {list(shapes[first])} at entry {first}. ember: the samples of this batch have "
        f"different shapes ({groups}); resize or crop them to one size in the dataset's "
        f"transform (e.g. transforms.Resize((H, W)) or transforms.CenterCrop(size)), or "
        f"pass the DataLoader a custom collate_fn (e.g. one that pads them).")


def collate_tensor_fn(batch, *, collate_fn_map: dict | None = None) -> Tensor:
    """torch.stack(batch): a new leading batch dimension. In a worker the batch is made
    in shared memory, so that it reaches the main process without a copy."""
    if batch[0].is_sparse:
        raise RuntimeError("Batches of sparse tensors are not currently supported by the "
                           "default collate_fn; please provide a custom collate_fn to handle "
                           "them appropriately.")
    arrays = [t.numpy(force=True) for t in batch]
    shapes = [a.shape for a in arrays]
    if shapes.count(shapes[0]) != len(shapes):
        raise _size_mismatch_error(shapes)
    shape, dtype = shapes[0], arrays[0].dtype
    if (any([t._requires_grad for t in batch]) or len({a.dtype for a in arrays}) > 1
            or current_modes().recorder is not None):
        # torch.stack's full path: it records the graph, promotes mixed dtypes, and is
        # seen by the profiler and the exporters
        from .... import stack
        return stack(batch, 0)
    # Samples of data: one NumPy copy into the batch, no graph to record.
    batch_shape = (len(arrays),) + shape
    out = shared_empty(batch_shape, dtype)
    if out is None:
        out = np.empty(batch_shape, dtype)
    if shape:   # as rows of the batch joined end to end: concatenate is twice np.stack's speed
        np.concatenate(arrays, out=out.reshape((len(arrays) * shape[0],) + shape[1:]))
    else:
        np.stack(arrays, out=out)
    return Tensor._wrap(out)


def collate_numpy_array_fn(batch, *, collate_fn_map: dict | None = None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map: dict | None = None) -> Tensor:
    return _as_tensor(np.array(batch))


def collate_float_fn(batch, *, collate_fn_map: dict | None = None) -> Tensor:
    from .... import float64, tensor
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map: dict | None = None) -> Tensor:
    from .... import tensor
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map: dict | None = None):
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch: tensors, NumPy arrays and numbers become
    tensors with a leading batch dimension, strings and bytes stay lists, and mappings,
    namedtuples and sequences are collated field by field."""
    if isinstance(batch, BatchedSamples):  # already one tensor per field (TensorDataset)
        return list(batch.columns)
    return collate(batch, collate_fn_map=default_collate_fn_map)
