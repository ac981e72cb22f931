"""Parametrizations: a module's tensor computed from other tensors on every access.

register_parametrization(module, "weight", P) keeps the tensors P works from under
module.parametrizations.weight (original, or original0, original1, ... when
P.right_inverse returns several) and turns module.weight into a property that returns
P(original). The module's class is replaced by a subclass, Parametrized<Class>, that
carries the property; assigning module.weight = X stores P.right_inverse(X). Several
parametrizations on one tensor apply in registration order.

This is torch.nn.utils.parametrize, with its state_dict keys
(parametrizations.weight.original0 ...), checks and error messages.
"""
from __future__ import annotations

import contextlib
import copy
from collections.abc import Sequence

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations"]

_cache_depth = [0]
_cache: dict = {}


@contextlib.contextmanager
def cached():
    """Within this block each parametrized tensor is computed once, on first access."""
    _cache_depth[0] += 1
    try:
        yield
    finally:
        _cache_depth[0] -= 1
        if not _cache_depth[0]:
            _cache.clear()


def _register_parameter_or_buffer(module, name: str, tensor: Tensor) -> None:
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _set_in_place(dest: Tensor, src: Tensor) -> None:
    """dest takes src's shape and values, staying the same object (torch's set_): what
    optimizers and state_dicts hold keeps pointing at it."""
    dest.set_(src.to(dest.dtype, copy=True))


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, and the tensors they start from (`original`,
    or `original0`, `original1`, ...). Made by register_parametrization."""

    def __init__(self, modules: Sequence, original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        continue    # no usable right_inverse: keep the value (as torch does)
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new.dtype != original.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            with no_grad():
                _set_in_place(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, tensor in enumerate(new):
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the "
                                     f"sequence with type {type(tensor).__name__}.")
                if isinstance(original, Parameter):
                    tensor = Parameter(tensor, original.requires_grad)
                tensor.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", tensor)
        if not self.unsafe:
            _check_unchanged(self(), shape, dtype)

    def right_inverse(self, value: Tensor) -> None:
        """Store the tensors that make the parametrized tensor equal `value`."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_in_place(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of "
                                 f"length {self.ntensors}. Got a sequence of length "
                                 f"{len(value)}.")
            for i, tensor in enumerate(value):
                original = getattr(self, f"original{i}")
                if original.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{tensor.dtype} while `original{i}` has dtype "
                                     f"{original.dtype}")
                _set_in_place(original, tensor)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _check_unchanged(x, shape, dtype) -> None:
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    if x.dtype != dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the "
                         "tensor, unless `unsafe` flag is enabled.\n"
                         f"unparametrized dtype: {dtype}\nparametrized dtype: {x.dtype}")
    if x.shape != shape:
        raise ValueError("Registering a parametrization may not change the shape of the "
                         "tensor, unless `unsafe` flag is enabled.\n"
                         f"unparametrized shape: {shape}\nparametrized shape: {x.shape}")


def _parametrized_getstate(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                       "saving_loading_models.html#saving-loading-a-general-checkpoint-for-"
                       "inference-and-or-resuming-training")


def _deepcopy(self, memo):
    """Copies of a parametrized module copy its __dict__ (pickling is refused)."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _inject_new_class(module) -> None:
    """Give module a class of its own, Parametrized<Class>, to hang properties on."""
    cls = type(module)
    namespace = {"__getstate__": _parametrized_getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth[0]:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name: str, parametrization, *,
                             unsafe: bool = False):
    """module.`tensor_name` becomes parametrization(original) on every access (after the
    tensor's earlier parametrizations). unsafe=True allows a different shape or dtype."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_added(module, tensor_name, parametrization)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def _check_added(module, tensor_name: str, parametrization) -> None:
    """torch's checks for a second parametrization on an already parametrized tensor."""
    current = getattr(module, tensor_name)
    new = parametrization(current)
    if not isinstance(new, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(new).__name__}.")
    for what, a, b in (("dtype", current.dtype, new.dtype), ("shape", current.shape,
                                                             new.shape)):
        if a != b:
            raise ValueError(f"Registering a parametrization may not change the {what} of "
                             "the tensor, unless the `unsafe` flag is enabled.\n"
                             f"module.{tensor_name}.{what}: {a}\n"
                             f"parametrization(module.{tensor_name}).{what}: {b}")


def is_parametrized(module, tensor_name: str | None = None) -> bool:
    """Whether module has a parametrization (on `tensor_name`, or on anything)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else \
        tensor_name in parametrizations


def remove_parametrizations(module, tensor_name: str, leave_parametrized: bool = True):
    """Undo the parametrizations of `tensor_name`: it becomes a parameter (or buffer)
    again, holding its current parametrized value (leave_parametrized=True) or the
    original tensor. The module gets its own class back with its last parametrization."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                _set_in_place(original, getattr(module, tensor_name))
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a "
                             "tensor that is parametrized in terms of a sequence of tensors.")
        value = getattr(module, tensor_name)
        original = Parameter(value.detach()) if value.requires_grad else value
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]     # the class before Parametrized...
    return module


def type_before_parametrizations(module) -> type:
    """The module's class as it was before any parametrization."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)
