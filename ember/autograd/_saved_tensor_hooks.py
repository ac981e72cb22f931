"""Saved tensor hooks: let the user decide how tensors saved for backward are kept.

Inside `with saved_tensors_hooks(pack, unpack):` every tensor an op saves for backward is
handed to `pack`, and the node keeps whatever `pack` returns (a copy in other memory, a
file name, any object) instead of the tensor. When backward needs the tensor, `unpack`
turns that object back into one. `save_on_cpu` is the pair that keeps a CPU copy.

The node still knows where the saved tensor came from (its grad_fn, or the leaf it was),
so the tensor `unpack` returns is reattached to the graph: a backward that is itself
differentiated (create_graph=True) reaches the same inputs as without hooks. Since the
packed form may be a copy, the in-place check (version counter) does not apply to it.
"""
from __future__ import annotations

from .._modes import own as own_modes
from .._tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


class saved_tensors_hooks:
    """Context manager: `pack_hook(tensor)` runs on each tensor saved for backward inside
    it and may return any object; `unpack_hook(that object)` must give the tensor back
    when backward (or `grad_fn._saved_*`) asks for it. The innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        modes = own_modes()
        if modes.saved_hooks_refusal is not None:
            raise RuntimeError(modes.saved_hooks_refusal)
        modes.saved_hooks = modes.saved_hooks + ((self.pack_hook, self.unpack_hook),)
        return self

    def __exit__(self, *exc):
        modes = own_modes()
        modes.saved_hooks = modes.saved_hooks[:-1]


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept as CPU copies while the graph waits for backward. On ember's
    only device a tensor is on the CPU already, so it is kept as it is, unless
    `pin_memory=True` asks for a copy (pinned memory is ordinary memory here)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack(tensor):
            kept = tensor.clone() if pin_memory else tensor.cpu()
            return tensor.device, kept

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager in which using saved tensor hooks raises RuntimeError(error_message):
    for code whose saved tensors must stay as they are."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self):
        modes = own_modes()
        if modes.saved_hooks:
            raise RuntimeError(self.error_message)
        self._outer, modes.saved_hooks_refusal = modes.saved_hooks_refusal, self.error_message
        return self

    def __exit__(self, *exc):
        own_modes().saved_hooks_refusal = self._outer


def pack_saved(node, hooks) -> None:
    """Hand every tensor `node` saved to the pack hook of `hooks` (called by Function.apply
    once the node is recorded)."""
    pack_hook, unpack_hook = hooks
    for saved in node._saved:
        if saved is not None:
            saved.pack(pack_hook, unpack_hook, node)
    for saved in node.__dict__.get("_outputs_saved", ()):
        saved.pack(pack_hook, unpack_hook, node)


def call_without_grad(hook, value):
    """Run a pack or unpack hook with grad mode off, as torch does (what the hook computes
    is never part of the graph)."""
    modes = own_modes()
    enabled, modes.grad_enabled = modes.grad_enabled, False
    try:
        return hook(value)
    finally:
        modes.grad_enabled = enabled


class Packed:
    """What a saved tensor keeps once packed: the hook's object and how to reattach the
    tensor unpacked from it to the graph."""

    __slots__ = ("value", "unpack_hook", "of_node", "requires_grad", "grad_fn", "output_nr",
                 "accumulator")

    def __init__(self, tensor: Tensor, value, unpack_hook, of_node: bool):
        self.value = value
        self.unpack_hook = unpack_hook
        # The node's own output is reattached to the node at unpack (keeping the node
        # here would be a reference cycle).
        self.of_node = of_node
        self.requires_grad = tensor._requires_grad
        self.grad_fn = None if of_node else tensor._grad_fn
        self.output_nr = tensor._output_nr
        # A leaf reaches the graph through its AccumulateGrad node (which holds the leaf).
        leaf = tensor._requires_grad and tensor._grad_fn is None and not of_node
        self.accumulator = tensor._edge()[0] if leaf else None

    def unpack(self, node) -> Tensor:
        tensor = call_without_grad(self.unpack_hook, self.value)
        if not isinstance(tensor, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                            f"got result of type {type(tensor).__name__}")
        grad_fn = node if self.of_node else self.grad_fn
        rebuilt = Tensor._wrap(tensor._data, self.requires_grad, grad_fn, self.output_nr)
        rebuilt._accumulator = self.accumulator
        return rebuilt


class RawSavedTensor:
    """grad_fn._raw_saved_<name>: one saved tensor of a node, to unpack or to give hooks of
    its own after the fact."""

    def __init__(self, saved, node):
        self._saved = saved
        self._node = node

    def unpack(self) -> Tensor:
        return self._saved.unpack(self._node)

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        if self._saved.packed is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        self._saved.pack(pack_hook, unpack_hook, self._node)
