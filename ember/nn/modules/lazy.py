"""LazyModuleMixin: modules whose parameter shapes come from their first input.

A lazy module (LazyLinear, LazyConv2d, LazyBatchNorm1d, ...) starts with
UninitializedParameters. A forward pre-hook calls `initialize_parameters(*inputs)` on
the first call, which materializes them from the input's shape and runs the usual
init; the hook then removes itself and the module turns into `cls_to_become` (e.g.
LazyLinear -> Linear). Loading a checkpoint into a lazy module materializes its
parameters from the checkpoint's shapes instead.
"""
from __future__ import annotations

import itertools

from ...autograd.grad_mode import no_grad
from ..parameter import UninitializedParameter, is_lazy

__all__ = ["LazyModuleMixin"]


def uninitialize_weight_and_bias(module, bias: bool, device, dtype) -> None:
    """Swap the placeholders an eager __init__ built (with zero sizes) for uninitialized
    `weight` and, when `bias`, `bias` parameters."""
    module.weight = UninitializedParameter(device=device, dtype=dtype)
    if bias:
        module.bias = UninitializedParameter(device=device, dtype=dtype)


class LazyModuleMixin:
    """Mixed in before a Module class; see the module docstring."""

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs) -> None:
        """Materialize each uninitialized tensor that the checkpoint holds a real value for,
        so load_state_dict can then copy into it."""
        for name, tensor in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if tensor is not None and is_lazy(tensor) and key in state_dict \
                    and not is_lazy(state_dict[key]):
                with no_grad():
                    tensor.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Materialize and initialize the parameters from the first input(s)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {type(self).__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer of this module is still uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        """The one-shot forward pre-hook: initialize, unhook, become cls_to_become."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become
