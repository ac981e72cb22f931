"""vmap as a loop: func runs once per index of the mapped dimension and the per-sample
outputs are stacked along out_dims.

The results (values, shapes, gradients) are torch's; the speed is that of a Python loop,
not of vectorised kernels. Differences that follow from the loop:
- randomness='error' notices a random draw after func returns (the default generator's
  state changed) rather than at the draw, and only draws from the default generator;
- an output with out_dims=None must be the same for every sample (same object or equal
  values), where torch tracks whether it depends on the mapped inputs.
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from .. import _random
from .._tensor import Tensor
from ..ops.joining import stack
from ..utils._pytree import _broadcast_to_and_flatten
from ..utils._pytree import tree_flatten as flatten, tree_unflatten as unflatten

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


def check_randomness(randomness: str) -> None:
    if randomness not in _RANDOMNESS:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def _name(func: Callable) -> str:
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


def vmap(func: Callable, in_dims=0, out_dims=0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """func mapped over dimension in_dims of its positional arguments: the result stacks
    func's outputs for every index along out_dims. in_dims and out_dims are an int (every
    tensor), None (not mapped) or a tuple matching the arguments / outputs. Keyword
    arguments are passed unmapped. randomness: 'error' (random draws raise), 'different'
    (each sample draws its own numbers) or 'same' (every sample draws the same numbers).
    chunk_size only changes how torch batches the work, so it is checked and ignored."""
    check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        flat_args, args_spec = flatten(args)
        flat_in_dims = _flat_in_dims(func, in_dims, args, flat_args, args_spec)
        batch_size = _batch_size(flat_args, flat_in_dims)
        samples = [unflatten(sample, args_spec)
                   for sample in _per_sample_args(flat_args, flat_in_dims, batch_size)]
        outputs = _run_samples(func, randomness, samples, kwargs)
        return _stack_outputs(func, outputs, out_dims, batch_size)

    return wrapped


# ------------------------------------------------------------------------------ inputs

def _flat_in_dims(func, in_dims, args: tuple, flat_args: list, args_spec) -> list:
    """One in_dim (non-negative int or None) per leaf of args, after torch's checks."""
    where = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to "
                         "add inputs, or you are trying to vmap over a function with no "
                         "inputs. The latter is unsupported.")
    flat_in_dims = _broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {flatten(in_dims)[1]} but inputs has "
                         f"structure {args_spec}.")
    result = []
    for arg, in_dim in zip(flat_args, flat_in_dims):
        if in_dim is not None and not isinstance(in_dim, int):
            raise ValueError(f"{where}: Got in_dim={in_dim} for an input but in_dim must be "
                             "either an integer dimension or None.")
        if in_dim is not None and not isinstance(arg, Tensor):
            raise ValueError(f"{where}: Got in_dim={in_dim} for an input but the input is of "
                             f"type {type(arg)}. We cannot vmap over non-Tensor arguments, "
                             "please use None as the respective in_dim")
        if in_dim is not None and not -arg.dim() <= in_dim < arg.dim():
            raise ValueError(f"{where}: Got in_dim={in_dim} for some input, but that input is "
                             f"a Tensor of dimensionality {arg.dim()} so expected in_dim to "
                             f"satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
        result.append(None if in_dim is None else in_dim % arg.dim())
    return result


def _batch_size(flat_args: list, flat_in_dims: list) -> int:
    sizes = [arg.shape[d] for arg, d in zip(flat_args, flat_in_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(size != sizes[0] for size in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _per_sample_args(flat_args: list, flat_in_dims: list, batch_size: int):
    """For each index of the mapped dimension, the flat arguments with that slice taken.
    An empty batch yields one sample of zeros, run only to learn the outputs' shapes."""
    if batch_size == 0:
        yield [arg if d is None else arg.new_zeros(arg.shape[:d] + arg.shape[d + 1:])
               for arg, d in zip(flat_args, flat_in_dims)]
    for i in range(batch_size):
        yield [arg if d is None else arg.select(d, i) for arg, d in zip(flat_args, flat_in_dims)]


# -------------------------------------------------------------------------- randomness

def _generator_position(generator) -> bytes:
    """Where the generator is in its stream: changes with every draw."""
    return generator.get_state().numpy().tobytes()


def _run_samples(func, randomness: str, samples: list, kwargs: dict) -> list:
    """func's output for each sample's arguments, under the randomness rule."""
    generator = _random.default_generator
    start = generator.get_state() if randomness == "same" else None
    outputs = []
    for args in samples:
        if start is not None:
            generator.set_state(start)   # every sample draws the same numbers
        before = _generator_position(generator)
        outputs.append(func(*args, **kwargs))
        if randomness == "error" and _generator_position(generator) != before:
            raise RuntimeError("vmap: called random operation while in randomness error mode. "
                               "Please either use the 'same' or 'different' randomness flags "
                               "on vmap or perform the randomness operation out of vmap")
    return outputs


# ----------------------------------------------------------------------------- outputs

def _check_out_dims(out_dims, func) -> None:
    for out_dim in flatten(out_dims)[0]:
        if out_dim is not None and not isinstance(out_dim, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must "
                             "be an int, None or a python collection of ints representing "
                             "where in the outputs the vmapped dimension should appear.")


def _flat_out_dims(func, out_dims, output, output_spec) -> list:
    flat = None
    if isinstance(output, Tensor):   # a lone tensor also accepts out_dims=(d,)
        if not isinstance(out_dims, tuple):
            flat = [out_dims]
        elif len(out_dims) == 1:
            flat = list(out_dims)
    else:
        flat = _broadcast_to_and_flatten(out_dims, output_spec)
    if flat is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims "
                         "is not compatible with the structure of `outputs`. out_dims has "
                         f"structure {flatten(out_dims)[1]} but outputs has structure "
                         f"{output_spec}.")
    return flat


def _unmapped(name: str, samples: list):
    """The output for out_dim=None: every sample must have produced the same value."""
    first = samples[0]
    if isinstance(first, Tensor) and any(
            s is not first and not (isinstance(s, Tensor) and s.shape == first.shape
                                    and np.array_equal(s.numpy(force=True),
                                                       first.numpy(force=True)))
            for s in samples[1:]):
        raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when "
                         "out_dim is None")
    return first


def _stack_outputs(func, outputs: list, out_dims, batch_size: int):
    """One output tree from the per-sample ones: each tensor stacked along its out_dim."""
    name = _name(func)
    flat_samples = []
    output_spec = None
    for output in outputs:
        leaves, output_spec = flatten(output)
        flat_samples.append(leaves)
    flat_out_dims = _flat_out_dims(func, out_dims, outputs[0], output_spec)
    results = []
    for i, out_dim in enumerate(flat_out_dims):
        samples = [leaves[i] for leaves in flat_samples]
        if out_dim is None:
            results.append(_unmapped(name, samples))
            continue
        if not isinstance(samples[0], Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(samples[0])}. Did you mean to set out_dims= to None for "
                             "output?")
        stacked = stack(samples, out_dim)
        results.append(stacked.narrow(out_dim, 0, 0) if batch_size == 0 else stacked)
    return unflatten(results, output_spec)
