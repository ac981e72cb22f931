"""torch.fx on ember: the eager parts FX-aware libraries use at import time."""
import pytest
import torch

import ember
from oracle import check_error


def _leaf(x):
    return x * 2


# Module level, as libraries do it: both as a decorator and by name.
WRAPPED = {"torch": (torch.fx.wrap(_leaf), torch.fx.wrap("_leaf")),
           "ember": (ember.fx.wrap(_leaf), ember.fx.wrap("_leaf"))}


def test_wrap_at_module_level_returns_its_argument():
    assert WRAPPED["ember"] == WRAPPED["torch"] == (_leaf, "_leaf")


def test_wrap_inside_a_function_is_refused():
    check_error(lambda lib: lib.fx.wrap(_leaf), NotImplementedError,
                "^wrap must be called at the top level of a module")


def test_wrap_of_a_non_callable_is_refused():
    check_error(lambda lib: lib.fx.wrap(3), RuntimeError,
                "^Unsupported type for global function! Must be either a callable or string")


def test_symbolic_trace_names_what_is_missing():
    with pytest.raises(NotImplementedError, match="^torch.fx.symbolic_trace: ember has no FX"):
        ember.fx.symbolic_trace(ember.nn.Linear(2, 2))
