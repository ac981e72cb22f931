"""The Optimizer base class: parameter groups, per-parameter state, hooks, state_dict.

Each optimizer (sgd.py, adam.py, ...) validates its options, passes them as
`defaults`, and writes `step()`. The updates work directly on the parameters'
NumPy arrays in place, in the same float order as torch's single-tensor CPU
kernels, and bump each parameter's version counter once (`_written`). SGD, Adam,
RMSprop and Adagrad hand their arrays to the "optim" kernel family (_cpu/optim.py,
compiled in _cpu/numba/optim.py) through for_slices.
"""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any, Callable

import numpy as np

# NumPy helpers of the reference kernels that the other optimizers share
from .._cpu.optim import lerp_ as _lerp_, weight_decayed as _weight_decay  # noqa: F401
from .._cpu.parallel import parallel_for, split
from .._cpu.tuning import OPTIMIZER_SLICE
from .._modes import current as _current_modes
from .._recorded_call import replayed_call
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.graph import RemovableHandle

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a default that every parameter group must set (e.g. SGD's lr in old torch)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks: dict = OrderedDict()
_global_step_post_hooks: dict = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """A hook run before the step() of every optimizer."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """A hook run after the step() of every optimizer."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def _hooked_step(step: Callable) -> Callable:
    """Wrap a subclass's step(): step hooks, the replaced-parameter check, the doctor's
    checks (ember.doctor), no_grad."""

    @functools.wraps(step)
    @replayed_call
    def wrapper(self, *args, **kwargs):
        for hook in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
                args, kwargs = result
        self._warn_replaced_params()
        doctor = _current_modes().doctor
        if doctor is not None:
            doctor.before_step(self)
        with no_grad():
            out = step(self, *args, **kwargs)
        if doctor is not None:
            doctor.after_step(self)
        for hook in chain(self._optimizer_step_post_hooks.values(),
                          _global_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class of all optimizers (torch.optim.Optimizer).

    params: an iterable of Tensors, of (name, Tensor) pairs, or of dicts that each
    define a parameter group with its own options; defaults: the options a group
    takes when it does not set them.
    """

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._init_hooks()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def _init_hooks(self) -> None:
        self._optimizer_step_pre_hooks: dict = OrderedDict()
        self._optimizer_step_post_hooks: dict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: dict = OrderedDict()
        self._optimizer_state_dict_post_hooks: dict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: dict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: dict = OrderedDict()
        self._warned_replaced: set = set()

    def _patch_step_function(self) -> None:
        """Make the class's step() run the hooks (once per class, as torch does)."""
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _hooked_step(cls.step)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_optimizer_step_pre_hooks" not in self.__dict__:
            self._init_hooks()
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own options) to optimize."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or
                                                                        p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = {id(p) for p in params}
        if len(ids) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        existing = set()
        for group in self.param_groups:
            existing.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not existing.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    @replayed_call
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized tensors (to None, or to zeros)."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if grad._grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    if grad.is_sparse:
                        grad.zero_()
                    else:
                        grad._data_to_write().fill(0)

    def step(self, closure: Callable | None = None):
        """Perform one optimization step (each optimizer defines it)."""
        raise NotImplementedError

    def _lazy_state(self, p: Tensor, *buffers: str) -> dict:
        """p's state; on p's first step it gets state['step'] and a zero buffer per name."""
        state = self.state[p]
        if not state:
            state["step"] = _step_counter()
            for name in buffers:
                state[name] = _state_zeros(p)
        return state

    @staticmethod
    def _eval_closure(closure: Callable | None):
        """Run the closure that re-evaluates the loss, with gradients enabled."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    @staticmethod
    def _group_tensors_by_device_and_dtype(tensorlistlist: list, with_indices: bool = False
                                           ) -> dict:
        """{(device, dtype): (lists, indices)}: the positions of tensorlistlist's parallel
        lists (params, grads, states ...) grouped by the first list's device and dtype, so
        multi-tensor (_foreach_) optimizer steps run one group at a time; indices lists the
        positions when with_indices is set, else it is empty."""
        groups: dict = {}
        for index, first in enumerate(tensorlistlist[0]):
            lists, indices = groups.setdefault(
                (first.device, first.dtype), ([[] for _ in tensorlistlist], []))
            for column, tensors in zip(lists, tensorlistlist):
                column.append(tensors[index])
            if with_indices:
                indices.append(index)
        return groups

    def _warn_replaced_params(self) -> None:
        """Warn (once per parameter) when a module attribute was given a new Parameter after
        this optimizer was built: the optimizer keeps updating the old tensor.

        nn.Module.__setattr__ marks the replaced Parameter with `_replaced_as`, the
        qualified attribute name it was stored under.
        """
        for group in self.param_groups:
            for p in group["params"]:
                name = getattr(p, "_replaced_as", None)
                if name is not None and id(p) not in self._warned_replaced:
                    self._warned_replaced.add(id(p))
                    warnings.warn(
                        f"{type(self).__name__} is updating a parameter that is no longer on "
                        f"its module: '{name}' was assigned a new Parameter after the optimizer "
                        "was created, so step() changes the old tensor and the module's new "
                        f"'{name}' is never trained. Create the optimizer after replacing "
                        "parameters (or add the new one with add_param_group()).",
                        UserWarning, stacklevel=3)

    # ------------------------------------------------------------------ hooks
    @staticmethod
    def _add_hook(hooks: dict, hook: Callable, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before step()."""
        return self._add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """hook(optimizer, args, kwargs), after step()."""
        return self._add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        """Register hook(optimizer), run before state_dict() builds its result; returns a removable
        handle."""
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        """Register hook(optimizer, state_dict), run after state_dict(); it may return a replacement
        dict. Returns a removable handle."""
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        """Register hook(optimizer, state_dict), run before load_state_dict(); it may return a
        replacement dict. Returns a removable handle."""
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        """Register hook(optimizer), run after load_state_dict(); returns a removable handle."""
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ state_dict
    def state_dict(self) -> dict[str, Any]:
        """{'state': {index: {...}}, 'param_groups': [...]} with parameters replaced by their
        position counted across groups (state tensors are shared, not copied, as in torch)."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state_dict: options per group and the state of each parameter, whose
        floating tensors are cast to that parameter's dtype ('step' is kept as saved)."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast_state(param, v)
            else:
                state[k] = v
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)


def _cast_state(param: Tensor, value, key=None):
    """A loaded state value moved to `param`'s dtype, recursing into dicts and lists."""
    if isinstance(value, Tensor):
        if key != "step" and param.is_floating_point():
            return value.to(param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, str):
        return type(value)(_cast_state(param, v) for v in value)
    return value


# ---------------------------------------------------------------- helpers for step()
def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


_ARG_WORDS = {"lr": "learning rate", "eps": "epsilon value"}


def _check_nonnegative(**values) -> None:
    """torch's ValueError for the first negative hyperparameter, checked in the order given:
    'Invalid learning rate: ...', 'Invalid epsilon value: ...', 'Invalid <name> value: ...'."""
    for name, value in values.items():
        _check(0.0 <= value, f"Invalid {_ARG_WORDS.get(name, name + ' value')}: {value}")


def _check_betas(betas) -> None:
    for i in (0, 1):
        _check(0.0 <= betas[i] < 1.0, f"Invalid beta parameter at index {i}: {betas[i]}")


def _check_adam_args(lr, betas, eps, weight_decay) -> None:
    """The argument checks Adam, AdamW, Adamax, NAdam and RAdam share."""
    _check_nonnegative(lr=lr, eps=eps)
    _check_betas(betas)
    _check_nonnegative(weight_decay=weight_decay)


def for_slices(kernel: Callable, updates: list) -> None:
    """Run kernel(*arrays, **options) for every (arrays, options) entry of `updates`, on
    slices of the flattened arrays spread over the threads (_cpu/parallel.py). The
    kernels of _cpu/optim.py update each element on its own, so any slicing gives the
    same result; entries holding a non-contiguous array (which could not be flattened in
    place) run whole."""
    pieces, values = [], 0
    for arrays, options in updates:
        present = [a for a in arrays if a is not None]
        size = present[0].size
        values += size * len(present)
        if not all(a.flags.c_contiguous for a in present):
            pieces.append((arrays, options))
            continue
        flat = [None if a is None else a.reshape(-1) for a in arrays]
        for part in split(size, -(-size // OPTIMIZER_SLICE)):
            pieces.append(([None if a is None else a[part] for a in flat], options))
    parallel_for(pieces, lambda piece: kernel(*piece[0], **piece[1]), values)


def _scalar(x) -> float:
    """A learning rate or coefficient given as a Tensor, read as a Python float."""
    return float(x.item()) if isinstance(x, Tensor) else x


def _state_zeros(p: Tensor, fill: float = 0.0) -> Tensor:
    """A state buffer shaped and typed like parameter p."""
    return Tensor._wrap(np.full_like(p.numpy(force=True), fill))


def _step_counter(value: float = 0.0) -> Tensor:
    """The 0-dim float32 tensor torch keeps as state['step']."""
    return Tensor._wrap(np.array(value, dtype=np.float32))


def _view(t: Tensor) -> np.ndarray:
    """t's array, as a 1-element view when t is 0-dim: NumPy arithmetic on 0-dim arrays
    returns scalars, which in-place updates could not write back."""
    data = t.numpy(force=True)
    return data.reshape(1) if data.ndim == 0 else data


def _written(t: Tensor) -> np.ndarray:
    """t's array for an in-place update (counted as one write of t), as _view shapes it."""
    data = t._data_to_write()
    return data.reshape(1) if data.ndim == 0 else data


def _count_step(state: dict) -> float:
    """Add one to the state's step count (a 0-dim Tensor, as torch keeps it) and return it."""
    step = _written(state["step"])
    step += 1
    return float(step[0])


def _grad(p: Tensor, maximize: bool) -> np.ndarray:
    """The gradient array of p (negated when maximizing)."""
    g = _view(p._grad)
    return -g if maximize else g


def _sparse_grad(p: Tensor, maximize: bool) -> tuple[tuple, np.ndarray]:
    """(index, values) of p's sparse gradient, coalesced: p's array at `index` holds the
    entries it updates, once each (negated values when maximizing)."""
    grad = p._grad.coalesce()
    values = grad._values().numpy()
    return tuple(grad._indices().numpy()), -values if maximize else values


def _add_sparse_(p: Tensor, grad: Tensor, alpha: float) -> None:
    """p += alpha * grad for a sparse grad (repeated indices add up), touching only its
    entries."""
    np.add.at(p._data_to_write(), tuple(grad._indices().numpy()),
              grad._values().numpy() * alpha)


def _params_with_grad(group: dict, real_only: str | None = None,
                      dense_only: str | None = None) -> list[Tensor]:
    """The group's parameters that have a gradient. real_only: the name of an optimizer that
    torch itself refuses complex parameters for (its RuntimeError is raised). dense_only: the
    name of an optimizer that refuses sparse gradients (Embedding(sparse=True)'s), as in
    torch; SGD, Adagrad and SparseAdam accept them."""
    params = [p for p in group["params"] if p._grad is not None]
    if dense_only is not None and any(p._grad.is_sparse for p in params):
        hint = ", please consider SparseAdam instead" if dense_only == "Adam" else ""
        raise RuntimeError(f"{dense_only} does not support sparse gradients{hint}")
    if any(p.dtype.is_complex for p in params):
        if real_only:
            raise RuntimeError(f"{real_only} does not support complex parameters")
        raise NotImplementedError("ember optimizers do not support complex parameters yet; "
                                  "optimize torch.view_as_real(param) instead.")
    return params
