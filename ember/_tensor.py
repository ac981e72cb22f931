"""class Tensor: a NumPy array plus the autograd fields torch gives a tensor.

The math lives in ember/ops/ (one module per family); ops/_methods.py binds it to
Tensor as methods and Python operators. This file holds what is about the tensor
itself: construction, identity (shape, dtype, strides, versions, views), autograd
state, conversions and the in-place machinery.
"""
from __future__ import annotations

import numpy as np

from . import _dtype, _layout, _memory_format
from ._device import CPU, META, DLDeviceType, check_device, device as _device_cls
from ._meta import MetaArray
from ._size import Size
from ._storage import StorageMethods, storage_bytes
from ._modes import current as modes
from ._recorded_call import replayed_call

_new = object.__new__

INPLACE_ON_INFERENCE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


class InferenceVersion(list):
    """The version counter of an inference tensor: one made under `inference_mode` (and
    its views). torch tracks no versions for these tensors and refuses to change them once
    inference mode is left. Every in-place write counts a version (`_vc[0] += 1`), so the
    refusal sits in the counter itself; a normal tensor's counter stays a plain list."""

    __slots__ = ()

    def __setitem__(self, index, value) -> None:
        if not modes().inference:
            raise RuntimeError(INPLACE_ON_INFERENCE)
        list.__setitem__(self, index, value)


def is_inference_tensor(t: "Tensor") -> bool:
    """Whether t was made under inference_mode (or is a view of a tensor that was)."""
    return type(t._vc) is InferenceVersion


def _refuse_inference_write(t: "Tensor") -> None:
    """torch's error for changing an inference tensor outside inference mode, raised before
    anything is written (the counter's own check comes after some writes)."""
    if is_inference_tensor(t) and not modes().inference:
        raise RuntimeError(INPLACE_ON_INFERENCE)


def _cast_method(name: str, dtype):
    """A Tensor method converting to `dtype`, as Tensor.float() and its siblings."""
    def cast(self, *args, memory_format=_memory_format.preserve_format) -> "Tensor":
        if args:    # torch's words: memory_format is keyword-only
            raise TypeError(f"{name}() takes 0 positional arguments but {len(args)} "
                            f"{'was' if len(args) == 1 else 'were'} given")
        return self.to(dtype, memory_format=memory_format)
    cast.__name__ = name
    cast.__qualname__ = "Tensor." + name
    cast.__doc__ = f"self converted to {dtype} (self.to({dtype})); self when it has that dtype."
    return cast


def _python_value(op: str, kind: str, *tensors) -> None:
    """Tell the recorder, if it asks (the exporter does), that `op` turns tensors into a
    Python value (`kind`: number, boolean, list)."""
    record = getattr(modes().recorder, "record_python_value", None)
    if record is not None:
        record(op, kind, tensors)


_warned_float_of_grad = False    # float() of a tensor that requires grad: warned yet


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

    @staticmethod
    def _make_subclass(cls, data: "Tensor", require_grad: bool = False) -> "Tensor":
        """An instance of Tensor subclass `cls` sharing `data`'s memory (used by Parameter)."""
        t = _new(cls)
        _init_fields(t, data._data, data._vc)
        t._base = data._base
        if require_grad:
            t.requires_grad = True
        return t

    def as_subclass(self, cls) -> "Tensor":
        """This tensor's data as an instance of Tensor subclass `cls`, sharing its memory
        and version counter; a tensor that requires grad stays in the graph through an
        alias node (AliasBackward0), as in torch. (ember's ops return plain Tensors: there is
        no __torch_function__ to keep the subclass through them.)"""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit "
                            "from Tensor is not possible. Make sure your class inherits from "
                            "Tensor.")
        source = self[...] if self._requires_grad and modes().grad_enabled else self
        t = _new(cls)
        _init_fields(t, source._data, source._vc)
        t._requires_grad = source._requires_grad
        t._grad_fn, t._output_nr = source._grad_fn, source._output_nr
        if source is self and self._requires_grad:     # (no_grad: a leaf of its own)
            t._requires_grad = True
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
        t._vc = vc if vc is not None else _new_version_counter()
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
        """The shape as a Size, or the size of dimension `dim` (negative dims count from the end).
        """
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        """Number of dimensions."""
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        """Number of elements (the product of the sizes)."""
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        """Size of one element in bytes."""
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def device(self) -> _device_cls:
        return META if type(self._data) is MetaArray else CPU

    @property
    def is_meta(self) -> bool:
        """Whether the tensor is on the meta device: shape, dtype and strides, no data."""
        return type(self._data) is MetaArray

    @property
    def is_cpu(self) -> bool:
        return type(self._data) is not MetaArray

    # torch's device and layout predicates: a strided, dense tensor on the CPU or meta device.
    is_cuda = is_xpu = is_mps = is_mtia = is_maia = is_ipu = is_xla = is_vulkan = False
    is_mkldnn = is_sparse = is_sparse_csr = is_quantized = is_nested = False
    layout = _layout.strided

    def is_distributed(self) -> bool:
        """Legacy distributed-tensor check: False, as for every torch tensor."""
        return False

    def is_coalesced(self) -> bool:
        """Whether a sparse COO tensor's indices are coalesced; a strided tensor has none."""
        raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got "
                           "Strided")

    def get_device(self) -> int:
        """The device index: -1 for CPU tensors, which are all ember has."""
        return -1

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating-point type."""
        return self._data.dtype.kind == "f" or self._data.dtype == _dtype.bfloat16.numpy

    def is_complex(self) -> bool:
        """Whether the dtype is complex."""
        return self._data.dtype.kind == "c"

    def is_signed(self) -> bool:
        """Whether the dtype is signed (every dtype but bool and uint8)."""
        return self.dtype.is_signed

    def stride(self, dim: int | None = None):
        """The strides in elements (one per dimension), or the stride of dimension `dim`."""
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
        """Whether the elements are laid out densely in the order of memory_format (row-major by
        default)."""
        _memory_format.check_format(memory_format, "is_contiguous")
        return _memory_format.is_contiguous_as(self._data, memory_format)

    def data_ptr(self) -> int:
        """Address of the first element in memory (0 for a meta tensor, which has none)."""
        if type(self._data) is MetaArray:
            return 0
        return self._data.__array_interface__["data"][0]

    const_data_ptr = data_ptr

    def _wrap_dim(self, dim: int, ndim: int | None = None) -> int:
        n = self._data.ndim if ndim is None else ndim
        bound = max(n, 1)
        if not -bound <= dim < bound:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-bound}, {bound - 1}], but got {dim})")
        return dim % bound

    @property
    def _version(self) -> int:
        if is_inference_tensor(self):
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    def _bump_version(self) -> None:
        """Count one in-place change of the data (autograd's saved-tensor check reads it)."""
        self._vc[0] += 1

    def _data_to_write(self):
        """The NumPy array, for the caller to change in place: the one write path for code
        outside the ops. Counts as one in-place change (bumps the version, as torch's
        in-place ops do), so a tensor saved for backward is known to be stale."""
        self._vc[0] += 1
        record = getattr(modes().recorder, "record_write", None)
        if record is not None:      # compile's tracer cannot replay the write
            record(self)
        return self._data

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
        if value and is_inference_tensor(self) and not modes().inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set whether autograd records operations on this leaf tensor; returns self."""
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

    # Setting .grad or .data is Python state a compiled plan must repeat: replayed calls.
    @grad.setter
    @replayed_call
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
                                   f"'{value.dtype.cpp_name}' to a tensor with grad_dtype "
                                   f"'{self.dtype.scalar_name}'. The gradient must match "
                                   "the tensor's grad_dtype (defaults to the tensor's dtype).")
        self._grad = value

    def _retains_grad(self) -> bool:
        node = self._grad_fn
        return node is not None and bool(node._retained) and self._output_nr in node._retained

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad()

    def detach(self) -> "Tensor":
        """A new tensor sharing this one's data but cut from the autograd graph (requires_grad
        False)."""
        t = Tensor._wrap(self._data, False, None, 0, self._vc)
        t._base = self._base
        return t

    def detach_(self) -> "Tensor":
        """Cut this tensor from the autograd graph in place, making it a leaf."""
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
        t = Tensor._wrap(self._data, vc=InferenceVersion([0]) if is_inference_tensor(self) else [0])
        if type(self._data) is MetaArray:
            return t
        if self._base is not None or getattr(self, "_storage_buffer", None) is not None:
            t._storage_buffer = storage_bytes(self)
        return t

    @data.setter
    @replayed_call
    def data(self, value: "Tensor") -> None:
        self._data = value._data
        self._vc = value._vc

    # ------------------------------------------------------------------ in-place machinery
    def _check_inplace(self) -> None:
        """torch's refusals for in-place ops on tensors autograd depends on, and on
        inference tensors outside inference mode (checked before anything is written)."""
        _refuse_inference_write(self)
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

    def _refuse_internal_overlap(self) -> None:
        """torch's refusal to compute into a tensor whose elements share memory (an expanded
        dimension: stride 0, size > 1). fill_ and indexed writes are allowed there."""
        data = self._data
        if data.size and any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape)):
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.")

    def _assign_result(self, out: "Tensor") -> None:
        """Write `out` into self's memory, refusing casts torch refuses, bumping the version."""
        _refuse_inference_write(self)
        self._refuse_internal_overlap()
        src = out._data
        if src.dtype != self._data.dtype and not _dtype.can_cast(out.dtype, self.dtype):
            raise RuntimeError(f"result type {out.dtype.scalar_name} can't be cast to the "
                               f"desired output type {self.dtype.scalar_name}. Hint: an "
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
        """The NumPy array sharing this tensor's memory; refuses tensors that require grad unless
        force=True."""
        if not force:   # force=True skips the checks: it is the fast read for library code
            _python_value("numpy", "NumPy array", self)
            if self._requires_grad:
                raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                                   "tensor.detach().numpy() instead.")
            if self._data.dtype == _dtype.bfloat16.numpy:
                raise TypeError("Got unsupported ScalarType BFloat16")
        self._refuse_meta_numpy()
        return self._data

    def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
        """Export this tensor's memory through DLPack (see ember.utils.dlpack)."""
        if self._requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        self._refuse_meta_numpy()
        return self._data.__dlpack__(max_version=max_version, copy=copy)

    def __dlpack_device__(self) -> tuple:
        return DLDeviceType.kDLCPU, 0

    def _refuse_meta_numpy(self) -> None:
        if type(self._data) is MetaArray:
            raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() "
                            "to copy the tensor to host memory first.")

    def _refuse_meta_copy(self) -> None:
        if type(self._data) is MetaArray:
            raise NotImplementedError("Cannot copy out of meta tensor; no data! A meta tensor "
                                      "has only a shape and a dtype: materialise the module "
                                      "with to_empty(device='cpu') and load its weights.")

    def __array__(self, dtype=None, copy=None):
        _python_value("__array__", "NumPy array", self)
        self._refuse_meta_numpy()
        data = self._data
        return data if dtype is None else data.astype(dtype)

    def item(self):
        """The value of a one-element tensor as a Python number."""
        _python_value("item", "number", self)
        return self._item()

    def _item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        if type(self._data) is MetaArray:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        value = self._data.reshape(()).item() if self._data.dtype != _dtype.bfloat16.numpy \
            else float(self._data.reshape(()))
        return value

    def tolist(self):
        """The tensor's values as (nested) Python lists of Python numbers."""
        _python_value("tolist", "list", self)
        self._refuse_meta_copy()
        data = self._data
        if data.dtype == _dtype.bfloat16.numpy:
            data = data.astype(np.float32)
        return data.tolist()

    def _python_scalar(self, op: str):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        _python_value(op, "number", self)
        return self._item()

    def __float__(self) -> float:
        global _warned_float_of_grad
        if self._requires_grad and not _warned_float_of_grad and modes().grad_enabled:
            _warned_float_of_grad = True        # torch warns once per process
            import warnings
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                          "unexpected behavior.\nConsider using tensor.detach() first.",
                          UserWarning, stacklevel=2)
        return float(self._python_scalar("float"))

    def __int__(self) -> int:
        return int(self._python_scalar("int"))

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self._python_scalar("complex"))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            amount = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        _python_value("bool", "boolean", self)
        return bool(self._item())

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
        _init_fields(new, self._data.copy())
        new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        if hasattr(self, "__dict__"):
            import copy
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = new
        return new

    def cpu(self, memory_format=None) -> "Tensor":
        """The tensor on the CPU: self for a CPU tensor; a meta tensor has no data to copy."""
        self._refuse_meta_copy()
        return self

    def cuda(self, device=None, non_blocking: bool = False, memory_format=None):
        """ember has no CUDA: raises, as torch does without a GPU."""
        check_device("cuda")

    def pin_memory(self, device=None) -> "Tensor":
        """self (page-locking is only meaningful with a GPU)."""
        return self

    def is_pinned(self, device=None) -> bool:
        """Whether the tensor is in pinned memory: never in ember."""
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
    cfloat = _cast_method("cfloat", _dtype.complex64)
    cdouble = _cast_method("cdouble", _dtype.complex128)

    def chalf(self, *, memory_format=_memory_format.preserve_format) -> "Tensor":
        """self converted to complex32 (torch's half-precision complex), which ember lacks."""
        raise NotImplementedError("chalf(): ember has no complex32 (torch.chalf) dtype; use "
                                  "cfloat() for complex64")

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




def bind_methods(**methods) -> None:
    """Attach methods that higher layers implement (backward from autograd, the in-place
    machinery from ops...) to Tensor, named as Tensor's own in reprs and tracebacks."""
    for name, fn in methods.items():
        fn.__name__, fn.__qualname__ = name, f"Tensor.{name}"
        setattr(Tensor, name, fn)


def _new_version_counter() -> list:
    """The version counter of a new tensor: an inference tensor's under inference_mode."""
    return [0] if not modes().inference else InferenceVersion([0])


def _init_fields(t: Tensor, data: np.ndarray, vc: list | None = None) -> None:
    """Fill a new Tensor's fields; `vc` is the counter it shares (None: a new one)."""
    if vc is None:
        vc = _new_version_counter()
    t._data = data
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._vc = vc
    t._base = None
    t._accumulator = None


