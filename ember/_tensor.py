"""class Tensor: a NumPy array plus the autograd fields torch gives a tensor.

The math lives in ember/ops/ (one module per family); ops/_methods.py binds it to
Tensor as methods and Python operators. This file holds what is about the tensor
itself: construction, identity (shape, dtype, strides, versions, views), autograd
state, conversions and the in-place machinery.
"""
from __future__ import annotations

import numpy as np

from . import _dtype, _layout, _memory_format
from ._device import CPU, check_device, device as _device_cls
from ._size import Size
from ._storage import StorageMethods, storage_bytes
from ._modes import current as modes
from .autograd import function as _function
from .autograd.graph import AccumulateGrad

_new = object.__new__


def _cast_method(name: str, dtype):
    """A Tensor method converting to `dtype`, as Tensor.float() and its siblings."""
    def cast(self, memory_format=_memory_format.preserve_format) -> "Tensor":
        return self.to(dtype, memory_format=memory_format)
    cast.__name__ = name
    cast.__qualname__ = "Tensor." + name
    return cast


class Tensor(StorageMethods):
    """A multi-dimensional array with autograd, stored in one NumPy array (`_data`).

    The storage methods (untyped_storage, storage_offset, resize_, set_ ...) live in
    _storage.py.

    _vc is the version counter, a one-element list shared by a tensor and its views;
    every in-place op increments it. _base is the tensor a view was taken from.
    _storage_buffer is set only on a root whose array is a window on a larger storage
    (after resize_, set_ or as_strided_; see _storage.py).
    """

    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc",
                 "_base", "_accumulator", "_storage_buffer", "__weakref__")

    # Make NumPy defer to Tensor's reflected operators (ndarray + Tensor -> Tensor).
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __init__(self, *args, device=None):
        """Legacy constructor (torch.Tensor makes tensors of the default dtype):
        Tensor(2, 3) / Tensor(torch.Size) -> uninitialised, Tensor(data) -> a copy."""
        _legacy_init(self, args, _dtype.get_default_dtype(), device, strict=False)

    @staticmethod
    def _make_subclass(cls, data: "Tensor", require_grad: bool = False) -> "Tensor":
        """An instance of Tensor subclass `cls` sharing `data`'s memory (used by Parameter)."""
        t = _new(cls)
        _init_fields(t, data._data, data._vc)
        t._base = data._base
        if require_grad:
            t.requires_grad = True
        return t

    @staticmethod
    def _wrap(data: np.ndarray, requires_grad: bool = False, grad_fn=None, output_nr: int = 0,
              vc=None) -> "Tensor":
        """Fast internal constructor around an existing array (no copy, no checks)."""
        t = _new(Tensor)
        t._data = data
        t._requires_grad = requires_grad
        t._grad = None
        t._grad_fn = grad_fn
        t._output_nr = output_nr
        t._vc = vc if vc is not None else [0]
        t._base = None
        t._accumulator = None
        return t

    def _make_view(self, data: np.ndarray, grad_fn=None, output_nr: int = 0) -> "Tensor":
        """A tensor sharing self's memory (and version counter) with `data` as its array."""
        t = Tensor._wrap(data, grad_fn is not None, grad_fn, output_nr, self._vc)
        t._base = self if self._base is None else self._base
        return t

    # ------------------------------------------------------------------ identity
    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype._BY_NUMPY[self._data.dtype]

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def device(self) -> _device_cls:
        return CPU

    # torch's device and layout predicates: a strided, dense CPU tensor, nothing else.
    is_cpu = True
    is_cuda = is_xpu = is_mps = is_mtia = is_maia = is_ipu = is_xla = is_vulkan = False
    is_meta = is_mkldnn = is_sparse = is_sparse_csr = is_quantized = is_nested = False
    layout = _layout.strided

    def is_distributed(self) -> bool:
        """Legacy distributed-tensor check: False, as for every torch tensor."""
        return False

    def is_coalesced(self) -> bool:
        """Whether a sparse COO tensor's indices are coalesced; a strided tensor has none."""
        raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got "
                           "Strided")

    def get_device(self) -> int:
        return -1

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f" or self._data.dtype == _dtype.bfloat16.numpy

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    def stride(self, dim: int | None = None):
        data = self._data
        strides = tuple(s // data.itemsize for s in data.strides)
        if data.flags.c_contiguous and 0 in strides:
            # A size-1 (or empty) dim NumPy inserted has stride 0; torch gives it the
            # row-major one.
            row_major, step = [], 1
            for n in reversed(data.shape):
                row_major.append(step)
                step *= max(n, 1)
            strides = tuple(r if s == 0 else s for s, r in zip(strides, reversed(row_major)))
        return strides if dim is None else strides[self._wrap_dim(dim)]

    def is_contiguous(self, memory_format=_memory_format.contiguous_format) -> bool:
        _memory_format.check_format(memory_format, "is_contiguous")
        return _memory_format.is_contiguous_as(self._data, memory_format)

    def data_ptr(self) -> int:
        return self._data.__array_interface__["data"][0]

    def _wrap_dim(self, dim: int, ndim: int | None = None) -> int:
        n = self._data.ndim if ndim is None else ndim
        bound = max(n, 1)
        if not -bound <= dim < bound:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-bound}, {bound - 1}], but got {dim})")
        return dim % bound

    @property
    def _version(self) -> int:
        return self._vc[0]

    def _bump_version(self) -> None:
        self._vc[0] += 1

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        return self._output_nr

    def _is_view(self) -> bool:
        return self._base is not None

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self._grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return
        if value and not (self.is_floating_point() or self.is_complex()):
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if requires_grad and not (self.is_floating_point() or self.is_complex()):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self):
        if self._grad_fn is not None and self._grad is None and not self._retains_grad():
            import warnings
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead.", UserWarning,
                stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size "
                                   f"'{list(value.shape)}' to a tensor of size "
                                   f"'{list(self.shape)}'. Please ensure that the gradient and "
                                   "the tensor are the same size")
            if value.dtype != self.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype "
                                   f"'{_C_TYPE_NAMES[value.dtype]}' to a tensor with grad_dtype "
                                   f"'{self.dtype._legacy_name[:-6]}'. The gradient must match "
                                   "the tensor's grad_dtype (defaults to the tensor's dtype).")
        self._grad = value

    def _edge(self):
        """The (node, output_nr) through which gradient flows into this tensor."""
        if self._grad_fn is not None:
            return (self._grad_fn, self._output_nr)
        if self._accumulator is None:
            self._accumulator = AccumulateGrad(self)
        return (self._accumulator, 0)

    def _retains_grad(self) -> bool:
        node = self._grad_fn
        return node is not None and bool(node._retained) and self._output_nr in node._retained

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad()

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None:
            return
        if self._grad_fn._retained is None:
            self._grad_fn._retained = {}
        self._grad_fn._retained[self._output_nr] = self

    def register_hook(self, hook):
        """hook(grad) -> None or a replacement gradient, called when the grad is computed."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node, nr = self._edge()
        return node._add_tensor_hook(nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        node, _ = self._edge()

        def after_accumulate(grad_inputs, grad_outputs):
            hook(self)
        return node.register_hook(after_accumulate)

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False,
                 inputs=None) -> None:
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> "Tensor":
        t = Tensor._wrap(self._data, False, None, 0, self._vc)
        t._base = self._base
        return t

    def detach_(self) -> "Tensor":
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> "Tensor":
        # Unlike detach(), .data has its own version counter: changes through it are
        # invisible to autograd (the reason .data is discouraged). It is no autograd view,
        # but it does sit in the same storage, at the same offset.
        t = Tensor._wrap(self._data)
        if self._base is not None or getattr(self, "_storage_buffer", None) is not None:
            t._storage_buffer = storage_bytes(self)
        return t

    @data.setter
    def data(self, value: "Tensor") -> None:
        self._data = value._data
        self._vc = value._vc

    # ------------------------------------------------------------------ in-place machinery
    def _check_inplace(self) -> None:
        """torch's refusals for in-place ops on tensors autograd depends on."""
        if not modes().grad_enabled:
            return
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation. "
                "Hint: to change a parameter, wrap the update in `with torch.no_grad():`.")
        base = self._base
        if base is not None and base._requires_grad and base._grad_fn is None:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.")

    def _inplace(self, compute, *args) -> "Tensor":
        """Run the out-of-place `compute(self, *args)` and write its result into self.

        The result's graph node becomes self's grad_fn. Before computing, autograd
        gets a snapshot of self's current value, since self's memory is overwritten.
        """
        self._check_inplace()
        recording = modes().grad_enabled and (self._requires_grad or any(
            isinstance(a, Tensor) and a._requires_grad for a in args))
        if recording and self._base is not None:
            return self._inplace_on_view(compute, args)
        if recording:
            snapshot = Tensor._wrap(self._data.copy(), self._requires_grad, self._grad_fn,
                                    self._output_nr)
            snapshot._accumulator = self._accumulator
            out = compute(snapshot, *args)
        else:
            out = compute(self, *args)
        self._assign_result(out)
        if recording:
            self._grad_fn = out._grad_fn
            self._output_nr = out._output_nr
            self._requires_grad = out._requires_grad
        return self

    def _inplace_on_view(self, compute, args) -> "Tensor":
        """An in-place op on a view, recorded as torch's CopySlices: the base's history
        becomes "old base with the view's elements replaced by the op's result", so
        gradients reach both the modified region and the rest of the base; the view's
        own history is then re-derived from the new base."""
        node = self._grad_fn
        if node is not None and type(node).is_view and len(node._output_meta) > 1:
            import re
            raise RuntimeError(
                f"Output {self._output_nr} of {re.sub(r'Backward[0-9]*$', '', node.name())} is "
                "a view and is being modified inplace. This view is the output of a function "
                "that returns multiple views. Such functions do not allow the output views to "
                "be modified inplace. You should replace the inplace operation by an "
                "out-of-place one.")
        from .ops.indexing import CopySlices, Index
        base = self._base
        key = np.unravel_index(self._view_positions(), base._data.shape)
        out = compute(Index.apply(base, key), *args)
        self._assign_result(out)
        new_base = CopySlices.apply(base, key, out)
        base._grad_fn, base._output_nr = new_base._grad_fn, 0
        base._requires_grad = new_base._requires_grad
        view = Index.apply(base, key)
        if view._grad_fn is not None:
            view._grad_fn.backward_name = "AsStridedBackward0"
        self._grad_fn, self._output_nr = view._grad_fn, 0
        self._requires_grad = view._requires_grad
        return self

    def _view_positions(self) -> np.ndarray:
        """For each element of this view, its flat (C-order) position in its base: number
        the base's elements in a scratch buffer laid out like the base's memory, then read
        that buffer through the view's strides."""
        base = self._base._data
        item = base.itemsize
        low, high = np.lib.array_utils.byte_bounds(base)
        labels = np.zeros((high - low) // item, dtype=np.int64)

        def laid_out_like(a: np.ndarray) -> np.ndarray:
            start = (a.__array_interface__["data"][0] - low) // item
            return np.lib.stride_tricks.as_strided(
                labels[start:], a.shape, tuple(s // item * labels.itemsize for s in a.strides))
        laid_out_like(base)[...] = np.arange(base.size).reshape(base.shape)
        return laid_out_like(self._data).copy()

    def _assign_result(self, out: "Tensor") -> None:
        """Write `out` into self's memory, refusing casts torch refuses, bumping the version."""
        src = out._data
        if src.dtype != self._data.dtype and not _dtype.can_cast(out.dtype, self.dtype):
            from .ops.pointwise import scalar_type_name
            raise RuntimeError(f"result type {scalar_type_name(out.dtype)} can't be cast to the "
                               f"desired output type {scalar_type_name(self.dtype)}. Hint: an "
                               "in-place op keeps the tensor's dtype; use the out-of-place form "
                               "(x = x * 0.5) or skip integer entries such as a state_dict's "
                               "num_batches_tracked.")
        if src.shape != self._data.shape:
            try:
                np.broadcast_to(src, self._data.shape)
            except ValueError:
                raise RuntimeError(
                    f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                    f"shape {list(np.broadcast_shapes(src.shape, self._data.shape))}") from None
        np.copyto(self._data, src, casting="unsafe")
        self._vc[0] += 1

    def _rebase_history(self, node, output_nr: int) -> "Tensor":
        """Make self (modified in place by a user Function) an output of `node`."""
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                               "operation.")
        self._check_inplace()
        self._grad_fn = node
        self._output_nr = output_nr
        self._requires_grad = True
        self._vc[0] += 1
        return self

    # ------------------------------------------------------------------ conversions
    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._data.dtype == _dtype.bfloat16.numpy and not force:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self._data

    def __array__(self, dtype=None, copy=None):
        data = self._data
        return data if dtype is None else data.astype(dtype)

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        value = self._data.reshape(()).item() if self._data.dtype != _dtype.bfloat16.numpy \
            else float(self._data.reshape(()))
        return value

    def tolist(self):
        data = self._data
        if data.dtype == _dtype.bfloat16.numpy:
            data = data.astype(np.float32)
        return data.tolist()

    def _python_scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self) -> float:
        return float(self._python_scalar())

    def __int__(self) -> int:
        return int(self._python_scalar())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self._python_scalar())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            amount = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self.item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self, *, tensor_contents=None) -> str:
        from ._printing import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        """A 0-dim tensor formats as its Python number (f"{loss}" prints the float, as in
        torch); other tensors print their repr and refuse a format spec."""
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec) if spec else self.__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_tensor, (self._data.copy(), self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        new = _new(type(self))
        _init_fields(new, self._data.copy(), [0])
        new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        if hasattr(self, "__dict__"):
            import copy
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = new
        return new

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        """With no argument the legacy type string ('torch.FloatTensor'); else a cast."""
        if dtype is None:
            return "torch." + self.dtype._legacy_name
        if isinstance(dtype, str):
            prefix, _, name = dtype.rpartition(".")
            if prefix != "torch" or name not in _dtype.BY_LEGACY_NAME:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = _dtype.BY_LEGACY_NAME[name]
        elif isinstance(dtype, _LegacyTensorType):
            dtype = dtype.dtype
        return self.to(dtype)

    def type_as(self, other: "Tensor") -> "Tensor":
        """self cast to other's dtype (self itself when the dtypes already agree)."""
        return self.to(other.dtype)

    def new(self, *args, device=None) -> "Tensor":
        """Legacy constructor in self's dtype: new(2, 3) -> uninitialised, new(data) -> a copy."""
        t = _new(Tensor)
        _legacy_init(t, args, self.dtype, device, strict=True)
        return t

    def to(self, *args, **kwargs) -> "Tensor":
        """to(dtype) / to(device[, dtype]) / to(other); returns self when nothing changes."""
        copy = kwargs.pop("copy", False)
        dtype, dev, fmt = parse_to_args(args, kwargs)
        check_device(dev)
        _memory_format.memory_order(fmt, self.ndim)     # the channels-last formats' rank
        same_layout = fmt is _memory_format.preserve_format or \
            _memory_format.suggested_format(self._data) is fmt
        if (dtype is None or dtype is self.dtype) and same_layout and not copy:
            return self
        from .ops.pointwise import to_dtype
        return to_dtype(self, dtype or self.dtype, fmt)

    def cpu(self, memory_format=None) -> "Tensor":
        return self

    def cuda(self, device=None, non_blocking: bool = False, memory_format=None):
        check_device("cuda")

    def pin_memory(self, device=None) -> "Tensor":
        return self

    def is_pinned(self, device=None) -> bool:
        return False

    # double(), float(), ..., bool(): self.to(that dtype), keeping the memory layout
    # unless memory_format says otherwise.
    double = _cast_method("double", _dtype.float64)
    float = _cast_method("float", _dtype.float32)
    half = _cast_method("half", _dtype.float16)
    bfloat16 = _cast_method("bfloat16", _dtype.bfloat16)
    long = _cast_method("long", _dtype.int64)
    int = _cast_method("int", _dtype.int32)
    short = _cast_method("short", _dtype.int16)
    char = _cast_method("char", _dtype.int8)
    byte = _cast_method("byte", _dtype.uint8)
    bool = _cast_method("bool", _dtype.bool)

    def cfloat(self) -> "Tensor":
        return self.to(_dtype.complex64)

    def cdouble(self) -> "Tensor":
        return self.to(_dtype.complex128)

    def nonzero_static(self, *, size: int, fill_value: int = -1) -> "Tensor":
        """The indices of nonzero elements as nonzero() gives them, cut or padded with
        `fill_value` rows to exactly `size` rows (a shape known before looking at the data)."""
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
        if isinstance(fill_value, bool) or not isinstance(fill_value, int):
            raise TypeError(f"nonzero_static(): argument 'fill_value' must be int, not "
                            f"{type(fill_value).__name__}")
        found = np.argwhere(self._data)[:size]
        rows = np.full((size, self._data.ndim), fill_value, dtype=np.int64)
        rows[:len(found)] = found
        return Tensor._wrap(rows)

    def apply_(self, fn) -> "Tensor":
        """Apply a Python function to every element in place (slow; CPU tensors only)."""
        if self._requires_grad and modes().grad_enabled:
            raise RuntimeError("apply_ is only implemented on CPU tensors that don't require "
                               "grad")
        flat = self._data.reshape(-1) if self._data.flags.c_contiguous else None
        values = np.array([fn(v) for v in self._data.ravel().tolist()], dtype=self._data.dtype)
        if flat is not None:
            flat[...] = values
        else:
            self._data[...] = values.reshape(self._data.shape)
        self._vc[0] += 1
        return self


def parse_to_args(args: tuple, kwargs: dict) -> tuple:
    """(dtype, device, memory_format) from the argument forms of Tensor.to and Module.to:
    a dtype, a device, another tensor (its dtype and device), and dtype=/device=/
    memory_format= keywords (memory_format defaults to preserve_format)."""
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    fmt = kwargs.pop("memory_format", _memory_format.preserve_format)
    _memory_format.check_format(fmt, "to")
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got an "
                        f"unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, dev = a.dtype, a.device
        elif isinstance(a, (str, _device_cls, int)) and not isinstance(a, bool):
            dev = a
        elif not isinstance(a, bool):
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(a).__name__})")
    return dtype, dev, fmt


def _rebuild_tensor(data, requires_grad):
    t = Tensor._wrap(data)
    t._requires_grad = requires_grad
    return t


# C++ type names torch uses in some messages.
_C_TYPE_NAMES = {
    _dtype.bool: "bool", _dtype.uint8: "unsigned char", _dtype.int8: "signed char",
    _dtype.int16: "short", _dtype.int32: "int", _dtype.int64: "long int",
    _dtype.float16: "c10::Half", _dtype.bfloat16: "c10::BFloat16", _dtype.float32: "float",
    _dtype.float64: "double", _dtype.complex64: "c10::complex<float>",
    _dtype.complex128: "c10::complex<double>",
}


def _init_fields(t: Tensor, data: np.ndarray, vc: list) -> None:
    t._data = data
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._vc = vc
    t._base = None
    t._accumulator = None


def _legacy_init(t: Tensor, args: tuple, dt: _dtype.dtype, device, strict: bool) -> None:
    """torch's legacy constructors: sizes -> uninitialised memory, data -> a copy in `dt`,
    a Tensor -> an alias of it (`strict`: only when its dtype is `dt`)."""
    from .ops.creation import array_from_data, size_from_args
    check_device(device)
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if not args:
        data = np.empty((0,), dtype=dt.numpy)
    elif all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        data = np.empty(size_from_args(args, "new"), dtype=dt.numpy)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if strict and src.dtype is not dt:
            raise TypeError(f"expected {dt._legacy_name} (got {src.dtype._legacy_name}): "
                            "legacy tensor types alias a tensor of their own dtype only")
        _init_fields(t, src._data, src._vc)
        t._base = src._base
        return
    elif len(args) == 1 and isinstance(args[0], (list, tuple, range, np.ndarray)):
        data = array_from_data(args[0], dt)
    elif len(args) == 1:
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    elif any(isinstance(a, (int, np.integer)) for a in args):
        data = np.empty(size_from_args(args, "new"), dtype=dt.numpy)
    else:
        kinds = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"new() received an invalid combination of arguments - got ({kinds})")
    _init_fields(t, data, [0])


class _LegacyTensorType(type):
    """torch.FloatTensor and friends: constructors of one dtype, and isinstance checks
    (isinstance(x, torch.FloatTensor) is true for float32 tensors)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None) -> Tensor:
        t = _new(Tensor)
        _legacy_init(t, args, cls.dtype, device, strict=True)
        return t


def _legacy_type(dt: _dtype.dtype) -> _LegacyTensorType:
    attributes = {"dtype": dt, "is_cuda": False, "__module__": "torch"}
    return _LegacyTensorType(dt._legacy_name, (), attributes)


BoolTensor = _legacy_type(_dtype.bool)
ByteTensor = _legacy_type(_dtype.uint8)
CharTensor = _legacy_type(_dtype.int8)
ShortTensor = _legacy_type(_dtype.int16)
IntTensor = _legacy_type(_dtype.int32)
LongTensor = _legacy_type(_dtype.int64)
HalfTensor = _legacy_type(_dtype.float16)
BFloat16Tensor = _legacy_type(_dtype.bfloat16)
FloatTensor = _legacy_type(_dtype.float32)
DoubleTensor = _legacy_type(_dtype.float64)


_function.register_tensor_type(Tensor)
