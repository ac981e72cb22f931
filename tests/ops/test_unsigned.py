"""The limited-support unsigned dtypes (uint16, uint32, uint64) through the op library:
what torch computes in them matches, and where torch has no kernel ember raises its error."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error, same

UNSIGNED = ["uint16", "uint32", "uint64"]


def pair(lib, name):
    dt = getattr(lib, name)
    return lib.tensor([1, 5, 3], dtype=dt), lib.tensor([2, 2, 7], dtype=dt)


# Ops torch computes in these dtypes (or after promoting them to a float).
SUPPORTED = {
    "mul": lambda a, b: a * b, "mul_scalar": lambda a, b: a * 2, "div": lambda a, b: a / b,
    "add_float": lambda a, b: a + 1.5, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "eq_scalar": lambda a, b: a == 5, "lt_float": lambda a, b: a < 2.5,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "sum": lambda a, b: a.sum(), "prod": lambda a, b: a.prod(0), "cumsum": lambda a, b: a.cumsum(0),
    "sort": lambda a, b: a.sort(), "argsort": lambda a, b: a.argsort(),
    "unique": lambda a, b: a.unique(), "any": lambda a, b: a.any(), "sqrt": lambda a, b: a.sqrt(),
    "floor": lambda a, b: a.floor(), "expand": lambda a, b: a.view(3, 1).expand(3, 2),
    "index": lambda a, b: a[b.long() % 3], "mask": lambda a, b: a[a == 5],
    "mul_": lambda a, b: a.clone().mul_(b), "to_float": lambda a, b: a.float(),
    "to_int64": lambda a, b: a.long(), "isnan": lambda a, b: a.isnan(),
    "copy_from_int64": lambda a, b: a.clone().copy_(a.long() + 1),
    "new": lambda a, b: (a.new_zeros(2), a.new_ones(2), a.new_full((2,), 3)),
    "flip_free_views": lambda a, b: a.view(3, 1).t().reshape(3).unsqueeze(0)[0, 1:],
}


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("op", sorted(SUPPORTED))
def test_supported_ops_match_torch(name, op):
    same(lambda lib: SUPPORTED[op](*pair(lib, name)))


# Ops torch has no kernel for: each raises NotImplementedError naming torch's kernel.
REFUSED = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "rsub": lambda a, b: 10 - a,
    "iadd": lambda a, b: a.clone().add_(b), "neg": lambda a, b: -a, "pow": lambda a, b: a ** b,
    "floor_divide": lambda a, b: a // b, "remainder": lambda a, b: a % b,
    "fmod": lambda a, b: a.fmod(b), "lt": lambda a, b: a < b, "ge": lambda a, b: a >= b,
    "bitwise_not": lambda a, b: ~a, "lshift": lambda a, b: a << b,
    "logical_and": lambda a, b: a.logical_and(b), "logical_not": lambda a, b: a.logical_not(),
    "abs": lambda a, b: a.abs(), "sign": lambda a, b: a.sign(), "relu": lambda a, b: a.relu(),
    "maximum": lambda a, b: a.maximum(b), "clamp": lambda a, b: a.clamp(2, 4),
    "clamp_min": lambda a, b: a.clamp(min=2), "clamp_tensors": lambda a, b: a.clamp(a, b),
    "max": lambda a, b: a.max(), "max_dim": lambda a, b: a.max(0), "amin": lambda a, b: a.amin(),
    "argmax": lambda a, b: a.argmax(), "aminmax": lambda a, b: a.aminmax(),
    "topk": lambda a, b: a.topk(2), "kthvalue": lambda a, b: a.kthvalue(1),
    "median": lambda a, b: a.median(), "mode": lambda a, b: a.mode(),
    "cummax": lambda a, b: a.cummax(0), "flip": lambda a, b: a.flip(0),
    "tril": lambda a, b: a.view(3, 1).tril(), "gather": lambda a, b: a.gather(0, b.long() - 2),
    "index_select": lambda a, b: a.index_select(0, b.long() - 2),
    "masked_fill": lambda a, b: a.masked_fill(a == 5, 0), "take": lambda a, b: a.take(b.long() - 2),
    "nonzero": lambda a, b: a.nonzero(), "count_nonzero": lambda a, b: a.count_nonzero(),
    "dot": lambda a, b: a.dot(b), "mm": lambda a, b: a.view(3, 1).mm(b.view(1, 3)),
    "bincount": lambda a, b: a.bincount(),
    "sum_dtype": lambda a, b: a.sum(dtype=a.dtype), "addcmul": lambda a, b: a.addcmul(a, b),
    "random_": lambda a, b: a.clone().random_(),
}


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("op", sorted(REFUSED))
def test_ops_without_a_kernel_raise_torchs_error(name, op):
    def run(lib):
        a, b = pair(lib, name)
        a_before = a.clone()
        try:
            REFUSED[op](a, b)
        finally:
            assert a.equal(a_before)        # nothing was written before the refusal
    error = check_error(run, NotImplementedError, r'^"\w+" not implemented for \'UInt\d+\'$')
    with pytest.raises(NotImplementedError) as torch_error:
        run(torch)
    assert str(error) == str(torch_error.value)


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("factory", ["arange", "eye", "linspace", "logspace", "rand",
                                     "randperm"])
def test_factories_without_a_kernel_raise_torchs_error(name, factory):
    calls = {"arange": lambda lib, dt: lib.arange(3, dtype=dt),
             "eye": lambda lib, dt: lib.eye(2, dtype=dt),
             "linspace": lambda lib, dt: lib.linspace(0, 4, 3, dtype=dt),
             "logspace": lambda lib, dt: lib.logspace(0, 1, 3, dtype=dt),
             "rand": lambda lib, dt: lib.rand(2, dtype=dt),
             "randperm": lambda lib, dt: lib.randperm(3, dtype=dt)}
    check_error(lambda lib: calls[factory](lib, getattr(lib, name)), NotImplementedError,
                rf'^"\w+" not implemented for \'{getattr(ember, name).scalar_name}\'$')


@pytest.mark.parametrize("name", UNSIGNED)
def test_where_cat_and_stack_keep_the_dtype(name):
    same(lambda lib: lib.where(pair(lib, name)[0] == 5, *pair(lib, name)))
    same(lambda lib: lib.cat(pair(lib, name)))
    same(lambda lib: lib.stack(pair(lib, name)))


@pytest.mark.parametrize("name", UNSIGNED)
def test_mixing_with_another_integer_dtype_raises_the_promotion_error(name):
    check_error(lambda lib: pair(lib, name)[0] + lib.tensor([1, 2, 3]), RuntimeError,
                "^Promotion for uint16, uint32, uint64 types is not supported")
    check_error(lambda lib: lib.cat([pair(lib, name)[0], lib.tensor([1])]), RuntimeError,
                "^Promotion for uint16, uint32, uint64 types is not supported")


@pytest.mark.parametrize("name", UNSIGNED)
def test_creation_repr_and_numpy_round_trip(name):
    top = int(np.iinfo(name).max)
    same(lambda lib: lib.tensor([top, 0, 7], dtype=getattr(lib, name)))
    same(lambda lib: lib.full((2, 2), 9, dtype=getattr(lib, name)))
    same(lambda lib: lib.from_numpy(np.array([1, top], dtype=name)))
    for lib in (torch, ember):
        t = lib.tensor([[top, 1], [2, 3]], dtype=getattr(lib, name))
        assert t.numpy().dtype == np.dtype(name)
    assert repr(ember.tensor([[top, 1], [2, 3]], dtype=getattr(ember, name))) == \
        repr(torch.tensor([[top, 1], [2, 3]], dtype=getattr(torch, name)))
    assert ember.ones(1, dtype=getattr(ember, name)).type() == \
        torch.ones(1, dtype=getattr(torch, name)).type()
    check_error(lambda lib: lib.ones(2, dtype=getattr(lib, name)).requires_grad_(),
                RuntimeError, "^only Tensors of floating point dtype can require gradients")
