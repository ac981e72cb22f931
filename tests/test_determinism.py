"""ember.use_deterministic_algorithms and friends (ember/_determinism.py) against torch."""
import pytest
import torch

import ember
from oracle import check_error


@pytest.fixture(autouse=True)
def restore():
    yield
    for lib in (torch, ember):
        lib.use_deterministic_algorithms(False)


@pytest.mark.parametrize("calls", [
    [("use_deterministic_algorithms", (True,), {})],
    [("use_deterministic_algorithms", (True,), {"warn_only": True})],
    [("use_deterministic_algorithms", (True,), {}),
     ("use_deterministic_algorithms", (False,), {})],
    [("set_deterministic_debug_mode", ("warn",), {})],
    [("set_deterministic_debug_mode", ("error",), {})],
    [("set_deterministic_debug_mode", (1,), {}), ("set_deterministic_debug_mode", (0,), {})],
])
def test_state_reads_back_like_torch(calls):
    for lib in (torch, ember):
        for name, args, kwargs in calls:
            getattr(lib, name)(*args, **kwargs)
    for query in ("are_deterministic_algorithms_enabled",
                  "is_deterministic_algorithms_warn_only_enabled",
                  "get_deterministic_debug_mode"):
        assert getattr(ember, query)() == getattr(torch, query)(), query


@pytest.mark.parametrize("fn, error, match", [
    (lambda L: L.use_deterministic_algorithms(1), TypeError,
     r"^_set_deterministic_algorithms\(\): argument 'mode' \(position 1\) must be bool, not "
     r"int$"),
    (lambda L: L.set_deterministic_debug_mode("x"), RuntimeError,
     r"^invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got x$"),
    (lambda L: L.set_deterministic_debug_mode(5), RuntimeError,
     r"^invalid value of debug_mode, expected 0, 1, or 2, but got 5$"),
    (lambda L: L.set_deterministic_debug_mode(1.0), TypeError,
     r"^debug_mode must be str or int, but got <class 'float'>$"),
])
def test_errors(fn, error, match):
    check_error(fn, error, match)
