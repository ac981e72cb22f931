"""torch._assert / torch._check* and the sym_* helpers against torch, on plain values."""
import re

import numpy as np
import pytest
import torch

import ember


def same_outcome(call):
    """call(lib) gives the same value (and type) or raises the same error in both."""
    outcomes = []
    for lib in (torch, ember):
        try:
            value = call(lib)
            outcomes.append(("value", type(value).__name__, repr(value)))
        except Exception as error:   # noqa: BLE001  (the error is what is compared)
            message = re.sub(r"<class '(torch|ember\._tensor)\.Tensor'>", "TENSOR", str(error))
            outcomes.append((type(error).__name__, message))
    assert outcomes[1] == outcomes[0]


@pytest.mark.parametrize("call", [
    lambda t: t._assert(True, "m"),
    lambda t: t._assert(False, "msg"),
    lambda t: t._assert(0, "zero"),
    lambda t: t._assert(t.tensor(False), "t"),
    lambda t: t._assert(t.tensor([True, True]), "many"),
    lambda t: t._assert_async(t.tensor(True)),
    lambda t: t._assert_async(t.tensor(False)),
    lambda t: t._assert_async(t.tensor(0.0), "boom"),
    lambda t: t._assert_async(t.tensor([1, 1])),
    lambda t: t._assert_async(t.tensor([])),
    lambda t: t._assert_async(1),
])
def test_assert_matches_torch(call):
    same_outcome(call)


@pytest.mark.parametrize("name,error", [("_check", RuntimeError), ("_check_index", IndexError),
                                        ("_check_value", ValueError), ("_check_type", TypeError),
                                        ("_check_not_implemented", NotImplementedError)])
def test_check_family_matches_torch(name, error):
    same_outcome(lambda t: getattr(t, name)(True))
    same_outcome(lambda t: getattr(t, name)(False))
    same_outcome(lambda t: getattr(t, name)(False, lambda: "bad"))
    same_outcome(lambda t: getattr(t, name)(False, "not callable"))
    same_outcome(lambda t: getattr(t, name)(1))
    same_outcome(lambda t: getattr(t, name)(t.tensor(True)))
    with pytest.raises(error, match="bad"):
        getattr(ember, name)(False, lambda: "bad")


@pytest.mark.parametrize("call", [
    lambda t: t._check_with(KeyError, False, lambda: "k"),
    lambda t: t._check_tensor_all(t.tensor([True, True])),
    lambda t: t._check_tensor_all(t.tensor([True, False]), lambda: "m"),
    lambda t: t._check_tensor_all(t.tensor([1, 0])),
    lambda t: t._check_tensor_all(True),
])
def test_check_with_and_tensor_all_match_torch(call):
    same_outcome(call)


def test_check_is_size_warns_and_checks_as_torch():
    for lib in (torch, ember):
        with pytest.warns(FutureWarning, match="_check_is_size will be removed"):
            lib._check_is_size(3)
        with pytest.warns(FutureWarning), pytest.raises(RuntimeError, match="Expected cond"):
            lib._check_is_size(-1)
        with pytest.warns(FutureWarning), pytest.raises(RuntimeError):
            lib._check_is_size(5, max=4)


@pytest.mark.parametrize("call", [
    *[lambda t, v=v: t.sym_int(v) for v in (3.7, -3.7, 3, True, 2.0, np.float64(2.5), "3")],
    lambda t: t.sym_int(float("inf")),
    *[lambda t, v=v: t.sym_float(v) for v in (3, 2.5, True)],
    lambda t: t.sym_max(1, 2.0), lambda t: t.sym_max(3, 2), lambda t: t.sym_max(2.0, 1),
    lambda t: t.sym_min(1, 2.0), lambda t: t.sym_min(1.5, 2), lambda t: t.sym_min(4, 2),
    lambda t: t.sym_max(np.int64(2), 1), lambda t: t.sym_max(np.float32(2), 1),
    lambda t: t.sym_max(t.tensor(1), 2), lambda t: t.sym_min("a", 2),
    lambda t: t.sym_not(True), lambda t: t.sym_not(0), lambda t: t.sym_not(t.tensor(True)),
    lambda t: t.sym_ite(True, 1, 2), lambda t: t.sym_ite(False, "a", "b"),
    lambda t: t.sym_ite(1, 1, 2), lambda t: t.sym_ite(True, 1, 2.0),
    lambda t: t.sym_sum([1, 2, 3]), lambda t: t.sym_sum(1, 2.5), lambda t: t.sym_sum(()),
    lambda t: t.sym_sqrt(4),
    lambda t: isinstance(3, t.SymInt) or isinstance(2.0, t.SymFloat) or isinstance(True, t.SymBool),
])
def test_sym_helpers_match_torch(call):
    same_outcome(call)


def test_compiler_names():
    assert not ember.compiler.is_compiling() and not ember.compiler.is_dynamo_compiling()
    model = ember.compiler.compile(ember.nn.Linear(2, 3))
    assert model(ember.ones(1, 2)).shape == (1, 3)
