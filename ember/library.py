"""torch.library: define custom operators from Python functions.

    >>> @torch.library.custom_op("mylib::scale", mutates_args=())
    ... def scale(x: torch.Tensor, k: float) -> torch.Tensor:
    ...     return x * k
    >>> torch.library.register_autograd("mylib::scale", backward, setup_context=setup)
    >>> torch.ops.mylib.scale(x, 2.0)          # the same operator

An operator runs its function on the CPU with autograd recording the call as one node,
`GeneratedBackwardFor_<ns>_<name>_defaultBackward`, whose backward is the one given to
register_autograd (without one, backward raises torch's RuntimeError). ember has no fake
tensors or dispatcher: register_fake keeps the function (`CustomOpDef._abstract_fn`) and
schemas are not parsed.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence

from ._tensor import Tensor
from .autograd.function import Function
from .ops import _custom

__all__ = ["custom_op", "register_fake", "register_autograd", "register_kernel", "CustomOpDef"]


class CustomOpDef:
    """An operator made by custom_op: call it like its function."""

    def __init__(self, namespace: str, name: str, fn: Callable, mutates_args) -> None:
        self._namespace, self._name = namespace, name
        self._init_fn = fn
        self._kernel = fn                  # the CPU implementation (register_kernel replaces it)
        self._signature = inspect.signature(fn)
        self._mutates_args = mutates_args
        self._abstract_fn = None
        self._backward_fn = None
        self._setup_context_fn = None
        self._node = _node_class(self)
        self.default = self                # torch.ops.ns.name.default: the one overload

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    def __call__(self, *args, **kwargs):
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return self._node.apply(*bound.args)

    def register_fake(self, fn: Callable | None = None, /) -> Callable:
        """Keep fn, the operator's shape-and-dtype rule (ember has no fake tensors)."""
        def register(fn):
            self._abstract_fn = fn
            return fn
        return register if fn is None else register(fn)

    def register_autograd(self, backward: Callable, /, *,
                          setup_context: Callable | None = None) -> None:
        """backward(ctx, *grads) gives one gradient per input; setup_context(ctx, inputs,
        output) saves what it needs."""
        self._backward_fn, self._setup_context_fn = backward, setup_context

    def register_kernel(self, device_types, fn: Callable | None = None, /) -> Callable:
        """Use fn for the given device types; only the CPU's matters to ember."""
        types = [device_types] if isinstance(device_types, str) else device_types
        def register(fn):
            if types is None or "cpu" in types:
                self._kernel = fn
            return fn
        return register if fn is None else register(fn)

    def _run(self, args: tuple):
        out = self._kernel(*args)
        outputs = out if isinstance(out, tuple) else (out,)
        if any(o is a for o in outputs for a in args if isinstance(o, Tensor)):
            raise RuntimeError(
                f"{self._name} (with implementation in {self._init_fn.__module__}): The output "
                "of this custom operator (1) must not also be an input to this custom operator "
                "and (2) may not alias any inputs to this custom operator or other returns. "
                "Return a clone (x.clone()) instead of an input.")
        return out


def _node_class(op: CustomOpDef) -> type:
    """The autograd.Function recording one call of `op` (its backward: register_autograd's)."""

    def forward(ctx, *args):
        out = op._run(args)
        if op._setup_context_fn is not None:
            op._setup_context_fn(ctx, args, out)
        return out

    def backward(ctx, *grads):
        if op._backward_fn is None:
            raise RuntimeError(f"Trying to backward through {op._namespace}.{op._name}.default "
                               "but no autograd formula was registered. Please use "
                               "register_autograd to add one.")
        result = op._backward_fn(ctx, *grads)
        return result if isinstance(result, tuple) else (result,)

    name = f"GeneratedBackwardFor_{op._namespace}_{op._name}_default"
    # A user Function (not one of ember's array-level primitives): forward sees Tensors.
    return type(name, (Function,), {"__module__": "torch.autograd.function",
                                    "forward": staticmethod(forward),
                                    "backward": staticmethod(backward)})


def custom_op(name: str, fn: Callable | None = None, /, *,
              mutates_args: str | Iterable[str],
              device_types: str | Sequence[str] | None = None,
              schema: str | None = None, tags=None):
    """Make fn the operator `name` ('namespace::opname'), reachable as
    torch.ops.namespace.opname; used as a decorator when fn is omitted."""
    namespace, opname = name.split("::")

    def define(fn: Callable) -> CustomOpDef:
        op = CustomOpDef(namespace, opname, fn, mutates_args)
        if device_types is not None:           # fn serves only those devices
            op._kernel = fn if "cpu" in ([device_types] if isinstance(device_types, str)
                                         else device_types) else _no_cpu_kernel(name)
        _custom.register(name, op)
        return op
    return define if fn is None else define(fn)


def _no_cpu_kernel(name: str) -> Callable:
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"{name}: no kernel registered for device type 'cpu'")
    return refuse


def _op(op) -> CustomOpDef:
    return _custom.lookup(op) if isinstance(op, str) else op


def register_fake(op, func: Callable | None = None, /, *, lib=None, _stacklevel: int = 1,
                  allow_override: bool = True):
    """Register the operator's shape-and-dtype rule (kept, see the module docstring)."""
    return _op(op).register_fake(func)


def register_autograd(op, backward: Callable, /, *, setup_context: Callable | None = None,
                      lib=None) -> None:
    """Register the operator's backward (and setup_context, which saves for it)."""
    _op(op).register_autograd(backward, setup_context=setup_context)


def register_kernel(op, device_types, func: Callable | None = None, /, *, lib=None):
    """Register the operator's implementation for some device types."""
    return _op(op).register_kernel(device_types, func)
