"""ember.utils.checkpoint: trade compute for memory by recomputing activations in backward.

`checkpoint(fn, *args)` runs `fn` without keeping its intermediate results; when the
gradient reaches it, `fn` runs again (with grad on, the same RNG state, and the same
autocast state) and the gradient is pushed through that fresh graph.

Both of torch's variants exist:
- use_reentrant=True (torch's current default, with a warning): a node whose inputs
  are the tensor arguments; its backward calls `ember.autograd.backward` on the
  recomputed graph, which also accumulates into the `.grad` of parameters used inside.
- use_reentrant=False: the node's inputs are the tensor arguments *and* every leaf
  (parameter) the function reached, found by walking the forward's graph once before
  it is dropped, so gradients reach parameters even when no argument requires grad,
  `autograd.grad` works, and double backward works. Unlike torch, whose output keeps
  the function's own grad_fn (MulBackward0...), ember's output has a
  CheckpointFunctionBackward node.
"""
from __future__ import annotations

import contextlib
import warnings
from typing import Any, Callable, Iterable

from .. import random as _rng
from .._tensor import Tensor
from ..amp import autocast_mode
from ..autograd import grad as _autograd_grad
from ..autograd import backward as _autograd_backward
from ..autograd.function import Function
from ..autograd.graph import AccumulateGrad
from ..autograd.grad_mode import enable_grad, is_grad_enabled

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "detach_variable", "check_backward_validity", "noop_context_fn"]

_DETERMINISM_CHECKS = ("default", "none")


class CheckpointError(RuntimeError):
    """The recomputed forward did not match the original one."""


def noop_context_fn():
    """The default context_fn: no context around either the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs: tuple) -> tuple:
    """Detached copies of the tensors in `inputs` keeping their requires_grad (others as is)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x
                 for x in inputs)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(x.requires_grad for x in inputs if isinstance(x, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


def _tensors_in(value) -> list:
    """The tensors in a function's result (a tensor, or nested tuples, lists, dicts)."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors_in(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors_in(item)]
    return []


def _replace_tensors(value, replacements: dict):
    """`value` with each tensor found in `replacements` (keyed by id) swapped for its match."""
    if isinstance(value, Tensor):
        return replacements.get(id(value), value)
    if isinstance(value, (tuple, list)):
        return type(value)(_replace_tensors(item, replacements) for item in value)
    if isinstance(value, dict):
        return {key: _replace_tensors(item, replacements) for key, item in value.items()}
    return value


_TENSOR_SLOT = object()   # marks where a tensor argument goes back in


def _without_tensors(args: tuple) -> list:
    """`args` with each tensor replaced by a slot marker (tensors go to save_for_backward)."""
    return [_TENSOR_SLOT if isinstance(a, Tensor) else a for a in args]


def _with_tensors(template: list, tensors: tuple) -> tuple:
    """The arguments again: `template` with its slots refilled from `tensors`."""
    refill = iter(tensors)
    return tuple(next(refill) if a is _TENSOR_SLOT else a for a in template)


class _Rerun:
    """Everything needed to run the function again exactly as in the forward pass."""

    def __init__(self, function: Callable, kwargs: dict, preserve_rng_state: bool,
                 recompute_context=contextlib.nullcontext()):
        self.function = function
        self.kwargs = kwargs
        self.rng_state = _rng.get_rng_state() if preserve_rng_state else None
        self.autocast = (autocast_mode.is_autocast_enabled("cpu"),
                         autocast_mode.get_autocast_dtype("cpu"))
        self.recompute_context = recompute_context

    def __call__(self, inputs: tuple):
        enabled, dtype = self.autocast
        with _rng.fork_rng(enabled=self.rng_state is not None):
            if self.rng_state is not None:
                _rng.set_rng_state(self.rng_state)
            with enable_grad(), autocast_mode.autocast("cpu", dtype=dtype, enabled=enabled), \
                    self.recompute_context:
                return self.function(*inputs, **self.kwargs)


# ---------------------------------------------------------------- use_reentrant=True
class CheckpointFunction(Function):
    """torch's reentrant checkpoint: forward under no_grad; backward recomputes and runs a
    nested backward pass through the recomputed graph."""
    exposes_saved_tensors = True   # torch defines it as a Python autograd.Function

    backward_name = "CheckpointFunctionBackward"
    forward_on_tensors = True   # forward runs the user's function on the Tensors

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.rerun = _Rerun(run_function, {}, preserve_rng_state)
        ctx.plain_args = _without_tensors(args)
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        outputs = run_function(*args)
        if not (isinstance(outputs, Tensor) or isinstance(outputs, tuple) and
                all(isinstance(out, Tensor) for out in outputs)):
            # ember's Function.apply would turn other outputs into tensors.
            raise NotImplementedError(
                "checkpoint(use_reentrant=True): ember supports a function returning a "
                f"tensor or a tuple of tensors, not {type(outputs).__name__}; pass "
                "use_reentrant=False for other outputs.")
        return outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        inputs = detach_variable(_with_tensors(ctx.plain_args, ctx._unpacked_saved))
        outputs = ctx.rerun(inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(out, grad) for out, grad in zip(outputs, grad_outputs)
                 if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _autograd_backward([out for out, _ in pairs], [grad for _, grad in pairs])
        return (None, None, *[x.grad if isinstance(x, Tensor) else None for x in inputs])


# ---------------------------------------------------------------- use_reentrant=False
def _leaves_reached(outputs: list, exclude: list) -> list:
    """The leaf tensors requiring grad whose AccumulateGrad the outputs' graph reaches."""
    excluded = {id(t) for t in exclude}
    seen, leaves = set(), []
    stack = [t._grad_fn for t in outputs if t._grad_fn is not None]
    stack += [t._accumulator for t in outputs if t._grad_fn is None and t.requires_grad]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if type(node) is AccumulateGrad:
            if id(node.variable) not in excluded:
                leaves.append(node.variable)
            continue
        stack.extend(edge[0] for edge in node._edges if edge is not None)
    return leaves


class _Recorded:
    """What the forward learned: the outputs to hand out and how to recompute them."""

    def __init__(self, rerun: _Rerun, outputs: list, args: tuple, determinism_check: str):
        self.rerun = rerun
        self.outputs = outputs
        self.metadata = [(t.shape, t.dtype) for t in outputs]
        self.plain_args = _without_tensors(args)
        self.n_args = sum(a is _TENSOR_SLOT for a in self.plain_args)
        self.determinism_check = determinism_check


class _CheckpointNonReentrant(Function):
    """Node over [tensor args..., leaves...] whose outputs are the checkpointed outputs."""

    backward_name = "CheckpointFunctionBackward"
    forward_on_tensors = True   # its outputs are the Tensors the forward already computed

    @staticmethod
    def forward(ctx, recorded, *sources):
        ctx.recorded = recorded
        ctx.save_for_backward(*sources[:recorded.n_args])
        ctx.leaves = sources[recorded.n_args:]
        outputs = tuple(t.detach() for t in recorded.outputs)
        recorded.outputs = None   # drop the forward's graph: it is recomputed in backward
        return outputs[0] if len(outputs) == 1 else outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        recorded = ctx.recorded
        create_graph = is_grad_enabled()   # the engine runs backward in create_graph mode
        args = ctx._unpacked_saved
        # Under create_graph the recomputation must stay connected to the real inputs.
        inputs = tuple(a.view_as(a) for a in args) if create_graph else detach_variable(args)
        outputs = _tensors_in(recorded.rerun(_with_tensors(recorded.plain_args, inputs)))
        _check_recomputed(outputs, recorded)
        pairs = [(out, g) for out, g in zip(outputs, grad_outputs) if out.requires_grad]
        targets = [x for x in inputs if x.requires_grad] + list(ctx.leaves)
        found = iter(_autograd_grad([out for out, _ in pairs], targets,
                                    [g for _, g in pairs], retain_graph=True,
                                    create_graph=create_graph, allow_unused=True)
                     if pairs and targets else [None] * len(targets))
        arg_grads = [next(found) if x.requires_grad else None for x in inputs]
        return (None, *arg_grads, *found)


def _check_recomputed(outputs: list, recorded: _Recorded) -> None:
    if recorded.determinism_check == "none":
        return
    again = [(t.shape, t.dtype) for t in outputs]
    if again != recorded.metadata:
        raise CheckpointError(
            "torch.utils.checkpoint: Recomputed values for the following tensors have "
            "different metadata than during the forward pass.\n"
            f"forward: {recorded.metadata}\nrecomputed: {again}\n"
            "The checkpointed function must compute the same thing each time it runs.")


def _checkpoint_without_reentrant(function: Callable, preserve_rng_state: bool,
                                  context_fn: Callable, determinism_check: str,
                                  args: tuple, kwargs: dict):
    forward_context, recompute_context = context_fn()
    rerun = _Rerun(function, kwargs, preserve_rng_state, recompute_context)
    if not is_grad_enabled():
        with forward_context:
            return function(*args, **kwargs)
    inputs = detach_variable(args)
    with forward_context:
        result = function(*inputs, **kwargs)
    # An argument handed back unchanged is returned as the caller's own tensor.
    replacements = {id(x): a for x, a in zip(inputs, args) if isinstance(a, Tensor)}
    outputs = [t for t in _tensors_in(result) if t.requires_grad and id(t) not in replacements]
    if outputs:
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        leaves = _leaves_reached(outputs, [x for x in inputs if isinstance(x, Tensor)])
        recorded = _Recorded(rerun, outputs, args, determinism_check)
        wrapped = _CheckpointNonReentrant.apply(recorded, *tensor_args, *leaves)
        wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
        replacements.update({id(t): w for t, w in zip(outputs, wrapped)})
    return _replace_tensors(result, replacements)


# ---------------------------------------------------------------- public API
def checkpoint(function: Callable, *args, use_reentrant: bool | None = None,
               context_fn: Callable = noop_context_fn, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, **kwargs):
    """Run `function(*args, **kwargs)` now without keeping its activations; recompute them
    when the gradient arrives. preserve_rng_state (default True) makes dropout and other
    random ops draw the same numbers again. early_stop is accepted and ignored: ember
    always recomputes the whole function (same results)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                      "use_reentrant will raise an exception. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, "
                         f"but got {determinism_check}")
    if debug:
        raise NotImplementedError("checkpoint: debug=True (an operator trace of the "
                                  "recomputation) is not supported by ember")
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         args, kwargs)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None,
                          **kwargs):
    """Run `functions` (a Sequential or a list of callables) in `segments` chunks; every
    chunk but the last is checkpointed."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
                      "parameter should be passed explicitly. In version 2.9 we will raise an "
                      "exception if use_reentrant is not passed. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(chunk: list) -> Callable:
        def forward(x):
            for fn in chunk:
                x = fn(x)
            return x
        return forward

    size = len(functions) // segments
    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(run(functions[start:end]), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(functions[end:])(input)
