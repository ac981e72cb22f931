"""The autograd graph: nodes, saved tensors, gradient accumulation into leaves.

Every op that records history creates one Node (its `grad_fn`). A node keeps one
edge per positional input of the op: `None` where no gradient is wanted, otherwise
`(node, output_nr)` of the input's own grad_fn, or the AccumulateGrad node of a
leaf. The engine (engine.py) walks these edges backwards from the loss.
"""
from __future__ import annotations

import re
import sys
from collections import OrderedDict

from .._cpu import buffers
from .._memory_format import copy_with_layout, follows_layout, grad_layout_for
from .._modes import current as current_modes
from .._tensor import is_inference_tensor
from . import anomaly_mode
from ._saved_tensor_hooks import Packed, RawSavedTensor, call_without_grad, \
    disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks

_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


class RemovableHandle:
    """Returned by every register_*hook; `.remove()` takes the hook out again."""

    _next_id = 0

    def __init__(self, hooks_dict: dict):
        self.hooks_dict = hooks_dict
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        self.hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks: dict, fn) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


class Node:
    """A step of the backward pass. Subclasses define `backward(self, *grad_outputs)`.

    Attributes are set by `Function.apply` when the node is recorded:
      _edges       one entry per positional input: None or (next_node, output_nr)
      _input_meta  one entry per positional input: None or (shape, dtype), used by the
                   engine to sum broadcast gradients back and cast them to the input's dtype
      _output_meta (shape, dtype) of each output of a multi-output node, to materialise
                   missing output grads (empty for single-output nodes)
    """

    # Class-level defaults keep node creation cheap; instances override on demand.
    _edges = ()
    _input_meta = ()
    _output_meta = ()
    _saved = ()
    _freed = False
    _pre_hooks = None
    _post_hooks = None
    _tensor_hooks = None      # {output_nr: OrderedDict of hooks registered on that output}
    _retained = None          # {output_nr: tensor} for retain_grad()
    _trace = None             # forward stack, recorded in anomaly mode
    materialize_grads = True  # missing output grads reach backward as zeros, not None
    backward_name = None

    # ---------------------------------------------------------------- identity
    def name(self) -> str:
        return self.backward_name or type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    @property
    def next_functions(self) -> tuple:
        edges = tuple(e if e is not None else (None, 0) for e, meta in
                      zip(self._edges, self._input_meta) if meta is not False)
        # A node standing for a torch op whose inputs come in another order (addmm's
        # bias first) lists its edges in torch's order.
        layout = getattr(type(self), "torch_grad_layout", None)
        return edges if layout is None else layout.torch_order(edges)

    @property
    def metadata(self) -> dict:
        if "_metadata" not in self.__dict__:
            self._metadata = {}
        return self._metadata

    # ---------------------------------------------------------------- saved tensors
    # torch's names for what `_saved` holds, in order: grad_fn._saved_self reads
    # `_saved[saved_names.index("self")]`; a single saved output reads as _saved_result.
    saved_names = ()

    def __getattr__(self, name: str):
        raw = name.startswith("_raw_saved_")
        if raw or name.startswith("_saved_"):
            key = name[len("_raw_saved_") if raw else len("_saved_"):]
            saves_result = getattr(type(self), "saves_outputs", False)
            if key in type(self).saved_names or (key == "result" and saves_result):
                if self._freed:
                    raise RuntimeError(_FREED_MESSAGE)
                entry = self._named_saved_value(key)
                if not isinstance(entry, SavedTensor):      # a number, or nothing saved
                    return entry
                return RawSavedTensor(entry, self) if raw else entry.unpack(self)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        cls = type(self)
        keys = cls.saved_names + (("result",) if getattr(cls, "saves_outputs", False) else ())
        return sorted(set(super().__dir__()).union(
            *((f"_saved_{k}", f"_raw_saved_{k}") for k in keys)))

    def _named_saved_value(self, key: str):
        if key == "result":
            return self.__dict__.get("_outputs_saved", (None,))[0]
        index = type(self).saved_names.index(key)
        entry = self._saved[index] if index < len(self._saved) else None
        # a binary op keeps a number operand beside its tensors (pow's exponent 2)
        return self.scalars[index] if entry is None and "scalars" in self.__dict__ else entry

    def save_for_backward(self, *tensors) -> None:
        self._saved = tuple([None if t is None else SavedTensor(t) for t in tensors])

    @property
    def saved_tensors(self) -> tuple:
        """What an autograd.Function's forward saved. As in torch, only the nodes of
        Python-defined Functions have it (torchviz tells them apart this way); ember's
        primitives read theirs as `_unpacked_saved`."""
        if not getattr(type(self), "exposes_saved_tensors", False):
            raise AttributeError(f"'{self.name()}' object has no attribute 'saved_tensors'")
        return self._unpacked_saved

    @property
    def _unpacked_saved(self) -> tuple:
        if self._freed:
            raise RuntimeError(_FREED_MESSAGE)
        return tuple([None if s is None else s.unpack(self) for s in self._saved])

    def _free(self) -> None:
        if self._saved or self.__dict__.get("_outputs_saved"):
            self._saved = ()
            self._outputs_saved = ()
            self._freed = True

    # ---------------------------------------------------------------- hooks
    def register_hook(self, fn) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) -> None or replacement grad_inputs, after backward."""
        if self._post_hooks is None:
            self._post_hooks = OrderedDict()
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """fn(grad_outputs) -> None or replacement grad_outputs, before backward."""
        if self._pre_hooks is None:
            self._pre_hooks = OrderedDict()
        return add_hook(self._pre_hooks, fn)

    def _add_tensor_hook(self, output_nr: int, fn) -> RemovableHandle:
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        return add_hook(self._tensor_hooks.setdefault(output_nr, OrderedDict()), fn)

    def _record_trace(self) -> None:
        if anomaly_mode.STATE.enabled:
            self._trace = anomaly_mode.capture_stack()


_UNWATCHED = (0,)


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    A node's own output is not kept as a Tensor (that would make a reference cycle
    output -> grad_fn -> output); its data is kept and the Tensor rebuilt on unpack.
    """

    __slots__ = ("tensor", "data", "vc", "version", "output_nr", "requires_grad", "packed")

    def __init__(self, tensor, output_of_node: bool = False):
        self.packed = None
        if is_inference_tensor(tensor):
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or use "
                "`torch.no_grad()` instead of `torch.inference_mode()`.")
        self.vc = tensor._vc
        self.version = tensor._vc[0]
        if output_of_node:
            self.tensor = None
            self.data = tensor._data
            self.output_nr = tensor._output_nr
            self.requires_grad = tensor.requires_grad
        else:
            self.tensor = tensor

    def unpack(self, node):
        if self.vc[0] != self.version:
            from .._dtype import _BY_NUMPY
            t = self.tensor
            data = self.data if t is None else t._data
            kind = _BY_NUMPY[data.dtype]._legacy_name
            # torch names the producing node without its "Backward0" suffix and says
            # nothing about a producer for a leaf.
            fn = node if t is None else t._grad_fn
            output_nr = self.output_nr if t is None else t._output_nr
            produced = "" if fn is None else \
                f", which is output {output_nr} of {_BACKWARD_SUFFIX.sub('', fn.name())},"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [torch.{kind} {list(data.shape)}]{produced} is at version "
                f"{self.vc[0]}; expected version {self.version} instead. Hint: the tensor was "
                "changed in place (x += ..., x.add_(), x[idx] = ..., relu(inplace=True)) after "
                "it was used; use the out-of-place form (x = x + ...) instead.")
        if self.tensor is not None:
            return self.tensor
        if self.packed is not None:
            return self.packed.unpack(node)
        from .._tensor import Tensor
        return Tensor._wrap(self.data, self.requires_grad, node, self.output_nr, self.vc)

    def pack(self, pack_hook, unpack_hook, node) -> None:
        """Keep what `pack_hook` makes of the tensor instead of the tensor (saved tensor
        hooks, _saved_tensor_hooks.py)."""
        tensor = self.unpack(node)
        of_node = self.tensor is None
        version = tensor._vc[0]
        value = call_without_grad(pack_hook, tensor)
        if tensor._vc[0] != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects. Please open an issue if you need to perform in-place "
                "operations on the input to a pack hook.")
        self.packed = Packed(tensor, value, unpack_hook, of_node)
        self.tensor = self.data = None
        self.vc, self.version = _UNWATCHED, 0   # a packed copy has no version to check


# While AccumulateGrad runs, the engine's own references to the incoming gradient are
# the node's gradient list and the accumulate() argument; _unshared's argument and
# getrefcount's make four. Any other reference (another leaf, a hook, retain_grad, the
# caller's gradient) makes more.
_ENGINE_REFERENCES = 4


def _unshared(grad) -> bool:
    """Whether a gradient in a plain backward can become a leaf's .grad as it is, as torch
    does when nothing else holds it: a fresh array that only this tensor wraps, and a
    tensor that only the engine holds (so no one sees it change when later gradients are
    added into .grad in place)."""
    data = grad._data
    return (sys.getrefcount(grad) <= _ENGINE_REFERENCES and grad._base is None
            and grad._grad_fn is None and not grad._requires_grad and data.base is None
            and data.flags.writeable
            # the tensor's slot, `data`, the argument (and a buffer cache's list)
            and sys.getrefcount(data) <= 3 + buffers.held(data))


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds the incoming gradient into `variable.grad`."""

    def __init__(self, variable):
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"       # torch's C++ name for the node

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def accumulate(self, grad, create_graph: bool) -> None:
        record = getattr(current_modes().recorder, "record_accumulate", None)
        if record is not None:      # compile's tracer replays the accumulation
            return record(self, grad, create_graph)
        var = self.variable
        if grad.is_sparse or var.is_sparse or var._grad is not None and var._grad.is_sparse:
            var._grad = _sum_with_sparse(var._grad, grad, create_graph)
        elif var._grad is None:
            layout = grad_layout_for(var._data)
            if create_graph or _unshared(grad) and follows_layout(grad._data, layout):
                var._grad = grad
            else:   # the same gradient may flow to several leaves, hooks may keep it
                from .._tensor import Tensor
                var._grad = Tensor._wrap(copy_with_layout(grad._data, var._data, layout))
        elif create_graph:
            var._grad = var._grad + grad
        else:
            var._grad._data += grad._data


def _sum_with_sparse(old, new, create_graph: bool):
    """A .grad where a sparse tensor is involved (a sparse leaf, or a sparse gradient
    such as Embedding(sparse=True)'s). Sparse tensors are never changed in place, so the
    incoming gradient can be kept as it is; sums are new tensors."""
    if old is None:
        return new if create_graph else new.detach()
    total = new + old if old.is_sparse and not new.is_sparse else old + new
    return total if create_graph else total.detach()
