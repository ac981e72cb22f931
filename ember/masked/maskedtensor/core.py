"""class MaskedTensor: a tensor (`data`) paired with a bool tensor of the same shape
(`mask`) that says which elements are specified; the others are "masked out" and take
no part in reductions.

ember's MaskedTensor is a Tensor subclass holding the two tensors. Autograd runs on the
data tensor: `requires_grad`, `grad_fn`, `is_leaf`, `backward()` and `grad` (a
MaskedTensor with the same mask) read and act on it. The wrapper's own storage is a
stand-in that refuses every use, so a torch function that ember does not route to
MaskedTensor (`torch.exp(mt)`; the method form `mt.exp()` works) raises
NotImplementedError instead of computing on masked-out values.

What differs from torch (whose MaskedTensor is a prototype too): a gradient reaching a
plain tensor (the data given to as_masked_tensor) is a plain tensor, where torch gives a
MaskedTensor; a leaf's grad has the leaf's mask (torch's may be masked out beyond a view
the loss used); grad values at masked-out elements, which torch leaves undefined, may
differ (var and std give zeros there); grad_fn names are those of the ops run on the data;
`torch.autograd.grad`/`backward` take get_data(), not the MaskedTensor; torch functions
(torch.exp(mt), torch.sum(mt)) and `all`/`norm` as methods are not routed to MaskedTensor;
sparse data or masks are not supported.
"""
from __future__ import annotations

import warnings

from ... import _dtype, _layout
from ..._tensor import Tensor, _init_fields

__all__ = ["MaskedTensor", "is_masked_tensor"]

_PROTOTYPE_WARNING = (
    "The PyTorch API of MaskedTensors is in prototype stage and will change in the near "
    "future. Please open a Github issue for features requests and see our documentation on "
    "the torch.masked module for further information about the project.")
_REQUIRES_GRAD_WARNING = (
    "It is not recommended to create a MaskedTensor with a tensor that requires_grad. To "
    "avoid this, you can use data.detach().clone()")
_SUPPORTED_DTYPES = (_dtype.float16, _dtype.float32, _dtype.float64, _dtype.bool, _dtype.int8,
                     _dtype.int16, _dtype.int32, _dtype.int64)


def is_masked_tensor(obj, /) -> bool:
    """Whether `obj` is a MaskedTensor."""
    return isinstance(obj, MaskedTensor)


class _RefusedStorage:
    """A MaskedTensor's `_data`: the shape and dtype of its data, for the Tensor methods that
    only describe it, and a NotImplementedError for anything that would compute on it."""

    def __init__(self, data: Tensor):
        array = data.numpy(force=True)
        self.shape, self.dtype, self.strides = array.shape, array.dtype, array.strides
        self.ndim, self.size, self.itemsize = array.ndim, array.size, array.itemsize

    @staticmethod
    def refuse(op: str):
        raise NotImplementedError(
            f"{op} on a MaskedTensor: ember's MaskedTensor supports its methods (reductions "
            "such as mt.sum(), elementwise ops such as mt.exp() and mt + other, to_tensor, "
            "get_data, get_mask); torch functions called on it are not routed to them")

    def __getattr__(self, name: str):
        self.refuse(name)

    def __array__(self, dtype=None, copy=None):
        self.refuse("conversion to an array")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self.refuse(ufunc.__name__)

    def __array_function__(self, func, types, args, kwargs):
        self.refuse(func.__name__)

    def __getitem__(self, key):
        self.refuse("indexing")


def _validate(data, mask) -> None:
    """torch's checks of a MaskedTensor's members, with its messages."""
    if is_masked_tensor(data) or not isinstance(data, Tensor):
        raise TypeError("data must be a Tensor")
    if is_masked_tensor(mask) or not isinstance(mask, Tensor):
        raise TypeError("mask must be a Tensor")
    if data.layout != _layout.strided or mask.layout != _layout.strided:
        raise NotImplementedError("MaskedTensor: sparse data or masks are not supported by "
                                  "ember; give dense tensors")
    if mask.dtype != _dtype.bool:
        raise TypeError("mask must have dtype bool.")
    if data.dtype not in _SUPPORTED_DTYPES:
        raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
    if data.dim() != mask.dim():
        raise ValueError("data.dim() must equal mask.dim()")
    if data.shape != mask.shape:
        raise ValueError("data.size() must equal mask.size()")


class MaskedTensor(Tensor):
    """A tensor whose elements where `mask` is False are masked out (see the module).

    MaskedTensor(data, mask, requires_grad=False) copies data (cut from its graph) and
    mask; torch.masked.as_masked_tensor keeps data's graph. Like torch's, it is a
    prototype and says so with a UserWarning when created.
    """

    __slots__ = ("_masked_data", "_masked_mask")

    def __new__(cls, data, mask, requires_grad: bool = False):
        _validate(data, mask)
        _warn(data)
        copy = data.detach().clone()
        if requires_grad:
            copy.requires_grad_(True)
        return cls._make(copy, mask.clone())

    def __init__(self, data, mask, requires_grad: bool = False):
        """Nothing left to do: __new__ built the tensor (the base's __init__ must not
        see these arguments)."""

    @classmethod
    def _make(cls, data: Tensor, mask: Tensor) -> "MaskedTensor":
        """A MaskedTensor around `data` and `mask` as they are (no copy, no check)."""
        self = object.__new__(cls)
        _init_fields(self, _RefusedStorage(data), [0])
        self._masked_data, self._masked_mask = data, mask
        return self

    @classmethod
    def _from_values(cls, data: Tensor, mask: Tensor) -> "MaskedTensor":
        """A MaskedTensor whose data stays on data's autograd graph (as_masked_tensor)."""
        _validate(data, mask)
        _warn(data)
        return cls._make(data.clone(), mask.clone())

    # -- the members --------------------------------------------------------------------
    def get_data(self) -> Tensor:
        """The data tensor, masked-out elements included (differentiable: a gradient through
        it reaches this MaskedTensor)."""
        return self._masked_data.view_as(self._masked_data)

    def get_mask(self) -> Tensor:
        """The bool mask: True where an element is specified."""
        return self._masked_mask

    def to_tensor(self, value) -> Tensor:
        """A plain tensor: the data with the masked-out elements set to `value`."""
        return self.get_data().masked_fill(~self._masked_mask, value)

    def is_sparse_coo(self) -> bool:
        """Whether the data is a sparse COO tensor (never, in ember)."""
        return False

    def is_sparse_csr(self) -> bool:
        """Whether the data is a sparse CSR tensor (never, in ember)."""
        return False

    def stride(self, dim: int | None = None):
        """The data's strides."""
        return self._masked_data.stride(dim)

    def is_contiguous(self, memory_format=None) -> bool:
        """Whether the data is contiguous."""
        return self._masked_data.is_contiguous()

    def numpy(self, *, force: bool = False):
        """Refused, as torch refuses it for tensor subclasses (use get_data() or to_tensor())."""
        raise RuntimeError(".numpy() is not supported for tensor subclasses.")

    def item(self):
        """The data's only element as a Python number (masked or not)."""
        return self._masked_data.item()

    # -- autograd, on the data ------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._masked_data.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._masked_data.requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> "MaskedTensor":
        """Set whether autograd records operations on this leaf; returns self."""
        self._masked_data.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._masked_data.grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._masked_data.is_leaf

    @property
    def grad(self):
        grad = self._masked_data.grad
        return None if grad is None else MaskedTensor._make(grad, self._masked_mask)

    @grad.setter
    def grad(self, value) -> None:
        self._masked_data.grad = value._masked_data if is_masked_tensor(value) else value

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False,
                 inputs=None) -> None:
        """Backpropagate from this MaskedTensor (its data) into the leaves it came from."""
        if is_masked_tensor(gradient):
            gradient = gradient._masked_data
        if inputs is not None:
            inputs = [t._masked_data if is_masked_tensor(t) else t
                      for t in (inputs if isinstance(inputs, (list, tuple)) else [inputs])]
        self._masked_data.backward(gradient, retain_graph, create_graph, inputs)

    def detach(self) -> "MaskedTensor":
        """The same MaskedTensor cut from the autograd graph (data shared)."""
        return MaskedTensor._make(self._masked_data.detach(), self._masked_mask)

    def clone(self, *, memory_format=None) -> "MaskedTensor":
        """A copy of data and mask (the data's copy stays on the graph)."""
        return MaskedTensor._make(self._masked_data.clone(), self._masked_mask.clone())

    def to(self, *args, **kwargs) -> "MaskedTensor":
        """The data converted as Tensor.to would (dtype, device), the mask kept."""
        return MaskedTensor._make(self._masked_data.to(*args, **kwargs), self._masked_mask)

    def __repr__(self) -> str:
        from ._printing import masked_tensor_repr
        return masked_tensor_repr(self._masked_data, self._masked_mask)

    __hash__ = Tensor.__hash__        # (the comparison operators return MaskedTensors)


def _warn(data: Tensor) -> None:
    """torch's warnings on creating a MaskedTensor (shown once, from this line)."""
    warnings.warn(_PROTOTYPE_WARNING, UserWarning, stacklevel=2)
    if data.requires_grad:
        warnings.warn(_REQUIRES_GRAD_WARNING, UserWarning, stacklevel=2)
