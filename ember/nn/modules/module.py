"""class Module: the base of every layer and model.

A Module keeps its state in three ordered dicts, as torch does: `_parameters`
(Parameters), `_buffers` (other tensors, e.g. running statistics) and `_modules`
(child modules). Assigning an attribute routes the value into the right dict
(__setattr__), and everything else -- parameters(), state_dict(), to(), train(),
repr -- walks these dicts. Calling a module runs forward with its hooks around it.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import warnings
from collections import OrderedDict, namedtuple

from ... import _dtype
from ..._device import factory_device
from ..._modes import current as _current_modes
from ..._memory_format import preserve_format
from ..._tensor import Tensor, parse_to_args
from ..._naming import set_public_module
from ..._recorded_call import replayed_call
from ...autograd.grad_mode import no_grad
from ...autograd.graph import RemovableHandle, add_hook
from ..parameter import Buffer, Parameter, is_lazy
from . import _hooks
from ._hooks import (BackwardHook, attach_legacy_hooks, _global_backward_hooks,
                     _global_backward_pre_hooks, _global_forward_hooks,
                     _global_forward_hooks_always_called,
                     _global_forward_hooks_with_kwargs, _global_forward_pre_hooks,
                     register_module_backward_hook, register_module_forward_hook,
                     register_module_forward_pre_hook, register_module_full_backward_hook,
                     register_module_full_backward_pre_hook)

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook"]

# torch defines the global hook registrations in this module.
set_public_module(__name__, register_module_forward_pre_hook, register_module_forward_hook,
                  register_module_full_backward_pre_hook, register_module_full_backward_hook,
                  register_module_backward_hook)

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# While load_state_dict runs, the copies it plans are queued here and made only once
# every key has been checked, so a failed load leaves the model untouched.
_pending_loads: list | None = None


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", "__builtin__", None) else f"{module}.{name}"


def _forward_unimplemented(self, *input):
    """The computation run by calling the module; every subclass overrides it. Call the module
    itself rather than forward() so that hooks run."""
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                              '"forward" function')


# What a user who assigns a value over one of these methods most likely meant to do.
_MEANT_CALLS = {"state_dict": "To load a state dict, call .load_state_dict(...) instead.",
                "eval": "To switch to evaluation mode, call .eval() instead.",
                "train": "To set the training mode, call .train(mode) instead."}


@functools.lru_cache(maxsize=1024)
def _method_names(cls: type) -> frozenset:
    """The names that resolve to a method (function, staticmethod, classmethod) on `cls`;
    cached per class so that attribute assignment stays one set lookup."""
    resolved = {}
    for klass in reversed(cls.__mro__):
        resolved.update((name, inspect.isroutine(value)) for name, value in vars(klass).items())
    return frozenset(name for name, is_method in resolved.items() if is_method)


def _warn_method_replaced(module, name: str, value) -> None:
    """Warn that `module.name = value` (value not callable) shadows the method `name` of the
    module's class: the assignment calls nothing, and later `module.name()` calls fail."""
    consequence = "nothing is loaded" if name == "state_dict" else "the method is not called"
    meant = _MEANT_CALLS.get(name, f"If you meant to call the method, call .{name}(...).")
    warnings.warn(f"Assigning a '{type(value).__name__}' value to '{name}' replaces the method "
                  f"{type(module).__name__}.{name} on this module: {consequence}, and later "
                  f"calls of .{name}() fail. {meant}", UserWarning, stacklevel=3)


# Prefixes a wrapper adds to every state_dict key: (prefix, who adds it, the inner module).
_WRAPPER_PREFIXES = (("module.", "DataParallel/DistributedDataParallel", "model.module"),
                     ("_orig_mod.", "torch.compile", "model._orig_mod"))


def _wrapper_prefix_hints(missing, unexpected) -> list:
    """Hints for the classic checkpoint mix-up: keys saved from a wrapped model loaded into
    the plain one, or the other way round."""
    hints = []
    for prefix, wrapper, inner in _WRAPPER_PREFIXES:
        if unexpected and all(k.startswith(prefix) for k in unexpected):
            hints.append(f"Hint: every unexpected key starts with '{prefix}': the checkpoint "
                         f"was saved from a model wrapped by {wrapper}. Strip the prefix with "
                         f"{{k.removeprefix('{prefix}'): v for k, v in sd.items()}} before "
                         f"loading, or load it into {inner}.")
        elif missing and all(k.startswith(prefix) for k in missing):
            hints.append(f"Hint: every missing key starts with '{prefix}': the model is "
                         f"wrapped by {wrapper} and the checkpoint is not. Load it into "
                         f"{inner}.")
    return hints


class Module:
    """Base class for all neural network modules; subclass it and define forward()."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        state = object.__setattr__
        state(self, "training", True)
        state(self, "_parameters", OrderedDict())
        state(self, "_buffers", OrderedDict())
        state(self, "_non_persistent_buffers_set", set())
        state(self, "_backward_pre_hooks", OrderedDict())
        state(self, "_backward_hooks", OrderedDict())
        state(self, "_is_full_backward_hook", None)
        state(self, "_forward_hooks", OrderedDict())
        state(self, "_forward_hooks_with_kwargs", OrderedDict())
        state(self, "_forward_hooks_always_called", OrderedDict())
        state(self, "_forward_pre_hooks", OrderedDict())
        state(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        state(self, "_state_dict_hooks", OrderedDict())
        state(self, "_state_dict_pre_hooks", OrderedDict())
        state(self, "_load_state_dict_pre_hooks", OrderedDict())
        state(self, "_load_state_dict_post_hooks", OrderedDict())
        state(self, "_modules", OrderedDict())
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ------------------------------------------------------------ registration
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is module state but not a parameter (a running mean, say) under `name`;
        persistent=False keeps it out of state_dict. None is allowed."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add the Parameter `param` (or None) under `name`, so parameters() and state_dict() see
        it."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add the child module `module` (or None) under `name`, as attribute assignment does."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def _get_name(self) -> str:
        return type(self).__name__

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path `target` ('' is self); raises AttributeError naming the
        missing part."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def _get_member(self, target: str, check, kind: str):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        value = getattr(mod, name)
        if not check(mod, name, value):
            raise AttributeError("`" + name + "` is not " + kind)
        return value

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path `target` ('layer.0.weight')."""
        return self._get_member(target, lambda m, n, v: isinstance(v, Parameter),
                                "an nn.Parameter")

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path `target` ('bn.running_mean')."""
        return self._get_member(target, lambda m, n, v: n in m._buffers, "a buffer")

    def get_extra_state(self):
        """Extra picklable state for state_dict; override together with set_extra_state (the base
        raises RuntimeError)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called. Please file an issue to report this bug.")

    def set_extra_state(self, state) -> None:
        """Restore what get_extra_state returned when load_state_dict finds it; override together
        with get_extra_state."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called. Please file an issue to report this bug.")

    # ------------------------------------------------------------ attribute routing
    def __getattr__(self, name: str):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__

        def remove_from(*stores):
            for s in stores:
                if name in s:
                    s.discard(name) if isinstance(s, set) else s.__delitem__(name)

        params = d.get("_parameters")
        modules = d.get("_modules")
        buffers = d.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, buffers, modules, self._non_persistent_buffers_set)
            old = params.get(name)
            if old is not None and old is not value:
                # Optimizers built before this assignment still hold `old`: let them warn.
                old._replaced_as = f"{self._get_name()}.{name}"
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, params, buffers, self._non_persistent_buffers_set)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
        elif isinstance(value, Buffer) or buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            persistent = value.persistent if isinstance(value, Buffer) else \
                name not in self._non_persistent_buffers_set
            if isinstance(value, Buffer):
                value = value.detach()
            self.register_buffer(name, value, persistent)
        else:
            # Only an attribute's first assignment can shadow a method of the class.
            if name not in d and name in _method_names(type(self)) and not callable(value):
                _warn_method_replaced(self, name, value)
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters) +
                list(self._modules) + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in ("_forward_pre_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
                     "_forward_hooks_always_called", "_forward_pre_hooks_with_kwargs",
                     "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks", "_backward_pre_hooks", "_backward_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # ------------------------------------------------------------ iteration
    def _named_members(self, get_members, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield (module_prefix + ("." if module_prefix else "") + k), v

    def parameters(self, recurse: bool = True):
        """Iterator over this module's parameters and (recurse=True) its submodules', each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        """Iterator over (dotted name, parameter) pairs, with names prefixed by `prefix`; shared
        parameters come once unless remove_duplicate=False."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse: bool = True):
        """Iterator over this module's buffers and (recurse=True) its submodules'."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True):
        """Iterator over (dotted name, buffer) pairs, prefixed by `prefix`."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def children(self):
        """Iterator over the direct child modules."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """Iterator over (name, module) pairs of the direct children."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True):
        """Iterator over every module in the tree, self first, each once."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True):
        """Iterator over (dotted name, module) pairs of every module in the tree, self first with
        name `prefix`."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    # ------------------------------------------------------------ modes and conversions
    def train(self, mode: bool = True) -> Module:
        """Set training mode (mode=False: eval mode) on this module and every submodule; returns
        self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        doctor = _current_modes().doctor
        if doctor is not None:
            doctor.mode_set()
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Set eval mode on this module and every submodule (train(False)); returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set requires_grad on every parameter (to freeze or unfreeze them); returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    @replayed_call
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's gradient: to None (the default) or to zeros when
        set_to_none=False."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                grad = p.grad.detach_() if p.grad.grad_fn is not None \
                    else p.grad.requires_grad_(False)
                grad._data_to_write()[...] = 0

    def _apply(self, fn, recurse: bool = True) -> Module:
        """Replace every parameter's and buffer's data by fn(tensor), keeping the
        Parameter objects (so optimizers holding them stay valid)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
            if param._grad is not None:
                with no_grad():
                    param._grad.data = fn(param._grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn) -> Module:
        """Call fn on every submodule, children first, then on self (to initialise weights, say);
        returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast parameters and buffers in place: to(dtype), to(device), to(tensor) or
        to(device, dtype); only floating tensors change dtype. Returns self. A module on the
        meta device has no data to move: use to_empty() to give it memory."""
        dtype, dev, fmt = parse_to_args(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        if dev is not None:
            dev = factory_device(dev)
            if dev.type != "meta" and any(t.is_meta for t in self._tensors()):
                raise NotImplementedError(
                    "Cannot copy out of meta tensor; no data! Please use "
                    "torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving "
                    "module from meta to a different device.")
        if dtype is None and fmt is preserve_format and dev is None:
            return self

        def convert(t: Tensor) -> Tensor:
            # as torch: the dtype applies to floating tensors, a memory format to 4-d and 5-d
            new_dtype = dtype if t.is_floating_point() or t.is_complex() else None
            new_fmt = fmt if fmt is not preserve_format and t.dim() in (4, 5) \
                else preserve_format
            return t.to(device=dev, dtype=new_dtype, memory_format=new_fmt)
        return self._apply(convert)

    def _tensors(self):
        """Every parameter and buffer of self and its submodules."""
        yield from self.parameters()
        yield from self.buffers()

    def cuda(self, device=None) -> Module:
        """ember has no CUDA: raises, as torch does without a GPU."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> Module:
        """Move parameters and buffers to the CPU (they already are); returns self."""
        return self._apply(lambda t: t.cpu())

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Replace every parameter and buffer by an uninitialised one of its shape and
        dtype on `device`: how a module built on the meta device gets memory (then load a
        state_dict or call reset_parameters() to fill it)."""
        device = factory_device(device)
        from ...ops.creation import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def type(self, dst_type) -> Module:
        """Cast every parameter and buffer to `dst_type`; returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def _cast_floating(self, dtype) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> Module:
        """Cast floating-point parameters and buffers to float32; returns self."""
        return self._cast_floating(_dtype.float32)

    def double(self) -> Module:
        """Cast floating-point parameters and buffers to float64; returns self."""
        return self._cast_floating(_dtype.float64)

    def half(self) -> Module:
        """Cast floating-point parameters and buffers to float16; returns self."""
        return self._cast_floating(_dtype.float16)

    def bfloat16(self) -> Module:
        """Cast floating-point parameters and buffers to bfloat16; returns self."""
        return self._cast_floating(_dtype.bfloat16)

    def share_memory(self) -> Module:
        """Move parameters and buffers to shared memory, for multiprocessing; returns self."""
        return self._apply(lambda t: t.share_memory_())

    # ------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Register hook(module, args) to run before forward; it may return new args. Returns a
        handle whose remove() unregisters it."""
        handle = add_hook(self._forward_pre_hooks, hook)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Register hook(module, args, output) to run after forward; it may return a new output.
        Returns a handle whose remove() unregisters it."""
        handle = add_hook(self._forward_hooks, hook)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _set_backward_kind(self, full: bool) -> None:
        if self._is_full_backward_hook is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = full

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Deprecated: the hook sees the gradients of the last op of forward only."""
        self._set_backward_kind(False)
        return add_hook(self._backward_hooks, hook)

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) -> None or a replacement grad_input."""
        self._set_backward_kind(True)
        handle = add_hook(self._backward_hooks, hook)
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_output) -> None or a replacement grad_output."""
        handle = add_hook(self._backward_pre_hooks, hook)
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def _get_backward_hooks(self):
        full, non_full = [], []
        if _hooks._global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _hooks._global_is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    _compiled_call = None       # set by Module.compile()

    def __call__(self, *args, **kwargs):
        modes = _current_modes()
        if modes.doctor is not None or modes.recorder is not None or \
                self._compiled_call is not None:
            return self._watched_call(modes, args, kwargs)
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks or
                self._forward_pre_hooks or _global_backward_pre_hooks or
                _global_backward_hooks or _global_forward_hooks or _global_forward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    def _watched_call(self, modes, args, kwargs):
        """A call something watches: the module's compiled form (Module.compile), a
        recorder that notes module calls (compile's tracer guards on their state), or
        ember.doctor (which calls _call_impl itself)."""
        if self._compiled_call is not None:
            return self._compiled_call(*args, **kwargs)
        record = getattr(modes.recorder, "record_module_call", None)
        if record is not None:
            record(self)
        if modes.doctor is not None:
            return modes.doctor.module_call(self, args, kwargs)
        return self._call_impl(*args, **kwargs)

    def _call_impl(self, *args, **kwargs):
        """The call: forward with the forward and backward hooks around it."""
        called_always = set()
        result = None
        try:
            for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                  *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    new = hook(self, args, kwargs)
                    if new is not None:
                        if not (isinstance(new, tuple) and len(new) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {new}.")
                        args, kwargs = new
                else:
                    new = hook(self, args)
                    if new is not None:
                        args = new if isinstance(new, tuple) else (new,)
            full_hooks, non_full_hooks = self._get_backward_hooks()
            pre_hooks = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
            bw_hook = None
            if full_hooks or pre_hooks:
                bw_hook = BackwardHook(self, full_hooks, pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or \
                        hook_id in _global_forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or \
                        hook_id in _global_forward_hooks_with_kwargs:
                    new = hook(self, args, kwargs, result)
                else:
                    new = hook(self, args, result)
                if new is not None:
                    result = new
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  f"Tensor or a tuple of Tensors but received {type(result)}",
                                  stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            if non_full_hooks:
                var = result
                while not isinstance(var, Tensor):
                    var = next(v for v in var.values() if isinstance(v, Tensor)) \
                        if isinstance(var, dict) else var[0]
                attach_legacy_hooks(self, non_full_hooks, args, var)
            return result
        except Exception:
            self._run_always_called_hooks(args, kwargs, result, called_always)
            raise

    def _run_always_called_hooks(self, args, kwargs, result, already_called: set) -> None:
        """After forward raised, forward hooks registered with always_call=True still run."""
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if hook_id in already_called or not (
                    hook_id in self._forward_hooks_always_called or
                    hook_id in _global_forward_hooks_always_called):
                continue
            try:
                if hook_id in self._forward_hooks_with_kwargs:
                    hook(self, args, kwargs, result)
                else:
                    hook(self, args, result)
            except Exception as err:
                warnings.warn("module forward hook with ``always_call=True`` raised an exception "
                              f"that was silenced as another error was raised in forward: {err}",
                              stacklevel=2)

    # ------------------------------------------------------------ state dict
    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """hook(module, prefix, keep_vars) runs before state_dict() collects this module."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        return add_hook(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata), must return None."""
        hook._from_public_api = True
        return add_hook(self._state_dict_hooks, hook)

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        # Uninitialized (lazy) tensors are saved as they are: they cannot be detached.
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) \
                    else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An ordered dict of every parameter and persistent buffer by dotted name, detached unless
        keep_vars=True; load_state_dict restores it."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead.",
                          FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        return add_hook(self._load_state_dict_pre_hooks,
                        functools.partial(hook, self) if with_module else hook)

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) runs before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """hook(module, incompatible_keys) runs after load_state_dict; it may edit the keys
        lists in place."""
        return add_hook(self._load_state_dict_post_hooks, hook)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """Check this module's own entries of state_dict and copy them in (the copies are
        deferred while load_state_dict validates the whole checkpoint)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state = {k: v for k, v in itertools.chain(
            self._parameters.items(),
            ((k, b) for k, b in self._buffers.items()
             if k not in self._non_persistent_buffers_set)) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  "torch.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(value)}")
                continue
            if is_lazy(param):
                continue    # still uninitialized: the checkpoint's entry is uninitialized too
            if param.ndim == 0 and value.shape == (1,):
                value = value[0]
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{value.shape} from checkpoint, the shape in current model "
                                  f"is {param.shape}.")
                continue
            _run_load(functools.partial(self._load_one, name, param, value, assign))
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                _run_load(functools.partial(self.set_extra_state, state_dict[extra_key]))
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head = key[len(prefix):].split(".", 1)
                    if len(head) > 1 and head[0] not in self._modules or \
                            len(head) == 1 and head[0] not in local_state:
                        unexpected_keys.append(key)

    def _load_one(self, name: str, param: Tensor, value: Tensor, assign: bool) -> None:
        with no_grad():
            if not assign:
                param._data_to_write()[...] = value.numpy(force=True)
            elif isinstance(param, Parameter):
                if not isinstance(value, Parameter):
                    value = Parameter(value, requires_grad=param.requires_grad)
                else:
                    value.requires_grad_(param.requires_grad)
                setattr(self, name, value)
            else:
                setattr(self, name, value)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and buffers from state_dict. Every entry is checked first;
        on any error nothing is copied and RuntimeError lists all the problems."""
        global _pending_loads
        from collections.abc import Mapping
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        visited = []

        def load(module, local_state, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state, prefix, local_metadata, True, missing,
                                         unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            visited.append(module)

        outer, _pending_loads = _pending_loads, []
        try:
            load(self, state_dict)
            pending = _pending_loads
        finally:
            _pending_loads = outer
        has_post_hooks = any(m._load_state_dict_post_hooks for m in visited)
        if errors or (strict and (missing or unexpected) and not has_post_hooks):
            raise RuntimeError(self._load_error(strict, missing, unexpected, errors))
        for action in pending:
            action()
        keys = _IncompatibleKeys(missing, unexpected)
        for module in visited:
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, keys) is not None:
                    raise AssertionError("Hooks registered with "
                                         "``register_load_state_dict_post_hook`` are not expected "
                                         "to return new values, if incompatible_keys need to be "
                                         "modified, it should be done inplace.")
        if strict and (missing or unexpected):
            raise RuntimeError(self._load_error(strict, missing, unexpected, errors))
        return keys

    def _load_error(self, strict, missing, unexpected, errors) -> str:
        msgs = list(errors)
        if strict and unexpected:
            msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected)))
        if strict and missing:
            msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing)))
        msgs.extend(_wrapper_prefix_hints(missing, unexpected))
        return "Error(s) in loading state_dict for {}:\n\t{}".format(
            type(self).__name__, "\n\t".join(msgs))

    # ------------------------------------------------------------ repr
    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr (its constructor arguments);
        override it in your own modules."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _run_load(action) -> None:
    """Copy now, or queue the copy while load_state_dict is validating."""
    if _pending_loads is None:
        action()
    else:
        _pending_loads.append(action)
