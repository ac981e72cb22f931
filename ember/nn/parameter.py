"""Parameter and Buffer: Tensor subclasses that a Module registers when assigned.

A Parameter shares memory (and version counter) with the tensor it is made from,
requires grad by default and is always a leaf of the autograd graph.
"""
from __future__ import annotations

import copy

from .._tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer",
           "UninitializedTensorMixin", "is_lazy"]


def _alias(cls, data: Tensor | None):
    """A new `cls` instance viewing `data`'s memory, with no autograd history."""
    if data is None:
        from ..ops.creation import empty
        data = empty(0)
    if not isinstance(data, Tensor):
        raise TypeError(f"Parameter(): argument 'data' must be Tensor, not "
                        f"{type(data).__name__}")
    t = Tensor._make_subclass(cls, data)
    t._base = None      # never a view, even when data is one (as in torch)
    return t


class Parameter(Tensor):
    """A tensor that is a module parameter: `Parameter(data=None, requires_grad=True)`."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        t = _alias(cls, data)
        t.requires_grad = requires_grad
        return t

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        """Everything happens in __new__ (Tensor.__init__ must not run again)."""

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        if self._grad is not None:
            result._grad = self._grad.__deepcopy__(memo)
        result.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter,
                (self.numpy(force=True).copy(), self._requires_grad, self.__dict__))


def _rebuild_parameter(data, requires_grad, state):
    p = Parameter(Tensor._wrap(data), requires_grad)
    p.__dict__.update(state)
    return p


class Buffer(Tensor):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute.

    `persistent=False` keeps it out of the state_dict.
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        t = _alias(cls, data)
        t.persistent = persistent
        return t

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True):
        """Everything happens in __new__."""


# The array slot every Tensor stores its data in. The uninitialized classes below hide it
# behind a raising property and reach the placeholder array through this descriptor.
_STORAGE = Tensor._data


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (see nn.modules.lazy).

    It holds an empty placeholder array that only fixes its dtype. Reading its data --
    which every op does -- raises ValueError; dtype queries and conversions still work.
    `materialize(shape)` gives it real storage and turns it into `cls_to_become`.
    """

    __slots__ = ()
    cls_to_become: type

    def _use_error(self) -> ValueError:
        return ValueError(
            "Attempted to use an uninitialized parameter in a tensor operation. "
            "This error happens when you are using a `LazyModule` or explicitly manipulating "
            f"`torch.nn.parameter.{type(self).__name__}` objects. When using LazyModules Call "
            "`forward` with a dummy batch to initialize the parameters before calling torch "
            "functions")

    @property
    def _data(self):
        raise self._use_error()

    @_data.setter
    def _data(self, array) -> None:
        _STORAGE.__set__(self, array)

    def _placeholder(self) -> Tensor:
        """The empty placeholder as an ordinary tensor (what `.data` returns, as in torch)."""
        return Tensor._wrap(_STORAGE.__get__(self))

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the tensor uninitialized storage of `shape` (in its dtype unless `dtype` is
        given); it then becomes a plain Parameter / Tensor."""
        from ..ops.creation import empty
        self.data = empty(shape, device=device, dtype=dtype or self.dtype)
        self.__class__ = self.cls_to_become

    # ---- what may be asked of an uninitialized tensor: dtype, device, conversions
    @property
    def data(self) -> Tensor:
        return self._placeholder()

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = _STORAGE.__get__(value)   # value may be uninitialized itself
        self._vc = value._vc

    def cpu(self, memory_format=None):
        """self: an uninitialized tensor is on the CPU and has no data to copy."""
        return self

    @property
    def dtype(self):
        return self._placeholder().dtype

    def size(self, dim: int | None = None):
        return self._placeholder().size(dim)

    @property
    def ndim(self) -> int:
        return self._placeholder().ndim

    def is_floating_point(self) -> bool:
        return self._placeholder().is_floating_point()

    def is_complex(self) -> bool:
        return self._placeholder().is_complex()

    def to(self, *args, **kwargs) -> Tensor:
        """Self when nothing changes; otherwise the converted (empty) tensor."""
        placeholder = self._placeholder()
        placeholder._requires_grad = self._requires_grad
        converted = placeholder.to(*args, **kwargs)
        return self if converted is placeholder else self._from_converted(converted)

    def _from_converted(self, converted: Tensor) -> Tensor:
        return converted

    # ---- what needs a shape or the data
    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def requires_grad_(self, requires_grad: bool = True):
        raise self._use_error()   # as torch, which only allows dtype and device changes

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, dtype=self.dtype)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad, None, self.dtype))


def is_lazy(param) -> bool:
    """Whether `param` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape a lazy module infers from its first input."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        from ..ops.creation import empty
        return Tensor._make_subclass(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        """Everything happens in __new__."""


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape a lazy module infers from its first input; becomes a Tensor."""

    # No instance __dict__: materialize() must be able to turn it into a plain Tensor.
    __slots__ = ()
    cls_to_become = Tensor
    persistent = True

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None,
                persistent: bool = True):
        from ..ops.creation import empty
        if not persistent:
            raise NotImplementedError(
                "UninitializedBuffer(persistent=False) is not supported by ember; register it "
                "with module.register_buffer(name, buffer, persistent=False) instead.")
        return Tensor._make_subclass(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = False, device=None, dtype=None,
                 persistent: bool = True):
        """Everything happens in __new__."""

    def _from_converted(self, converted: Tensor) -> Tensor:
        # Converting a lazy buffer (module.double() before the first forward) keeps it lazy.
        return UninitializedBuffer(self.requires_grad, dtype=converted.dtype)
