"""Hooks that apply to every Module, and the machinery behind full backward hooks.

torch exposes the global registration functions as torch.nn.modules.module.*;
module.py re-exports them from here.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict

from ..._tensor import Tensor
from ...autograd.function import Function
from ..._modes import current as modes
from ...autograd.graph import RemovableHandle, add_hook

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook"]

# Global hooks (run for every module, before the module's own hooks).
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_is_full_backward_hook = None


# ---------------------------------------------------------------- global hooks
def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """hook(module, args) runs before every module's forward."""
    return add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """hook(module, args, output) runs after every module's forward."""
    handle = add_hook(_global_forward_hooks, hook)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _set_global_backward_kind(full: bool) -> None:
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as "
                           "a global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = full


def register_module_backward_hook(hook) -> RemovableHandle:
    _set_global_backward_kind(False)
    return add_hook(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    return add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    _set_global_backward_kind(True)
    return add_hook(_global_backward_hooks, hook)


# ---------------------------------------------------------------- full backward hooks
class BackwardHookFunction(Function):
    """Identity on tensors; its graph node marks where a module's gradients pass."""

    backward_name = "BackwardHookFunctionBackward"

    @staticmethod
    def forward(ctx, *arrays):
        ctx.mark_non_differentiable(*(a for a, needed in zip(arrays, ctx.needs_input_grad)
                                      if not needed))
        return arrays

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """Routes the gradients of a module's outputs and inputs to its full backward hooks.

    The module's tensor inputs and outputs each pass through a BackwardHookFunction.
    When gradient reaches the output node, the backward pre-hooks run on the output
    gradients; when it reaches the input node, the full backward hooks get
    (module, grad_input, grad_output) and may replace grad_input.
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None

    @staticmethod
    def _pack(indices, values, size) -> tuple:
        packed = [None] * size
        for i, v in zip(indices, values):
            packed[i] = v
        return tuple(packed)

    @staticmethod
    def _wrap(args, on_node):
        """Pass the tensors among args through the identity; returns (args, indices)."""
        indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not (modes().grad_enabled and any(args[i].requires_grad for i in indices)):
            return args, None
        wrapped = BackwardHookFunction.apply(*(args[i] for i in indices))
        on_node(next(t.grad_fn for t in wrapped if t.grad_fn is not None))
        new_args = list(args)
        for i, t in zip(indices, wrapped):
            new_args[i] = t
        return tuple(new_args), indices

    def setup_input_hook(self, args: tuple) -> tuple:
        def input_hook(grad_input, _):
            if self.grad_outputs is None:
                return None  # gradient reached the inputs without passing the outputs
            res = self._pack(self.input_index, grad_input, self.n_inputs)
            for hook in self.user_hooks:
                out = hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(f"Backward hook returned an invalid number of "
                                       f"grad_input, got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_index)

        args, self.input_index = self._wrap(args, lambda node: node.register_hook(input_hook))
        self.n_inputs = len(args)
        return args

    def setup_output_hook(self, result):
        def output_hook(_, grad_output):
            self.grad_outputs = self._pack(self.output_index, grad_output, self.n_outputs)
            for hook in self.user_pre_hooks:
                new = hook(self.module, self.grad_outputs)
                if new is None:
                    continue
                if len(new) != len(self.grad_outputs):
                    raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                       f"grad_output, got {len(new)}, but expected "
                                       f"{len(self.grad_outputs)}")
                self.grad_outputs = tuple(new)
            local = self.grad_outputs
            if self.input_index is None:
                # No input needs a gradient: the full hooks fire here, with grad_input all None.
                warnings.warn("Full backward hook is firing when gradients are computed with "
                              "respect to module outputs since no inputs require gradients.",
                              stacklevel=2)
                grad_inputs = (None,) * self.n_inputs
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (isinstance(res, tuple) and
                                                all(r is None for r in res)):
                        raise RuntimeError("Backward hook for Modules where no input requires "
                                           "gradient should always return None or None for "
                                           "all gradients.")
                self.grad_outputs = None
            return tuple(local[i] for i in self.output_index)

        single = not isinstance(result, tuple)
        outs = (result,) if single else result
        outs, self.output_index = self._wrap(outs, lambda node: node.register_hook(output_hook))
        self.n_outputs = len(outs)
        return outs[0] if single else outs


# ---------------------------------------------------------------- legacy backward hooks
_NON_FULL_WARNING = (
    "Using a non-full backward hook when the forward contains multiple autograd Nodes is "
    "deprecated and will be removed in future versions. This hook will be missing some "
    "grad_input. Please use register_full_backward_hook to get the documented behavior.")


def attach_legacy_hooks(module, hooks, args: tuple, output: Tensor) -> None:
    """register_backward_hook's semantics: the hooks see the gradients of the node that
    produced `output` (the last op of forward), in torch's layout for that node."""
    node = output.grad_fn
    if node is None:
        return
    inputs_nodes = {a.grad_fn for a in args if isinstance(a, Tensor) and a.grad_fn is not None}
    if inputs_nodes != {n for n, _ in node.next_functions}:
        warnings.warn(_NON_FULL_WARNING, FutureWarning, stacklevel=3)
    layout = getattr(type(node), "torch_grad_layout", None)
    tensor_slots = [i for i, meta in enumerate(node._input_meta) if meta is not False]

    def node_hook(grad_inputs, grad_outputs):
        # Present one gradient per tensor input of the node (torch has no slots for the
        # non-tensor arguments ember's primitives take), reordered as torch's node has them.
        shown = tuple(grad_inputs[i] for i in tensor_slots)
        if layout is not None:
            shown = layout.to_torch(shown)
        for hook in hooks:
            result = hook(module, shown, grad_outputs)
            if result is not None:
                shown = tuple(result)
        if layout is not None:
            shown = layout.from_torch(shown)
        new = list(grad_inputs)
        for i, g in zip(tensor_slots, shown):
            new[i] = g
        return tuple(new)
    node.register_hook(node_hook)
