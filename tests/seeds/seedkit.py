"""Helpers for the seed-note tests: run one snippet on torch and on ember, compare.

A snippet is a function `snippet(torch)` written as in the note, with the library
passed in. `both(snippet)` runs it on each library; `same(e, t)` compares the two
results recursively (tensors by value, dtype and shape; strings exactly; dicts by
keys in order). `same_error` checks a pitfall raises the same exception on both,
ember's message opening with torch's words (and carrying ember's hint).
"""
from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same

LIBS = [torch, ember]


def both(fn, *args, **kwargs):
    """(torch result, ember result) of fn(lib, ...)."""
    return fn(torch, *args, **kwargs), fn(ember, *args, **kwargs)


def same(e, t, atol=1e-5, rtol=1e-4, what="result"):
    """ember's result `e` equals torch's result `t`."""
    if isinstance(t, torch.Tensor):
        assert_same(e, t, atol, rtol, what)
        assert e.requires_grad == t.requires_grad, f"{what}: requires_grad differs"
    elif isinstance(t, (torch.dtype, torch.device)):
        assert str(e) == str(t), f"{what}: {e} vs torch's {t}"
    elif isinstance(t, torch.Size):
        assert tuple(e) == tuple(t) and type(e).__name__ == "Size", f"{what}: {e} vs {t}"
    elif isinstance(t, dict):
        assert type(e).__name__ == type(t).__name__, f"{what}: {type(e)} vs {type(t)}"
        assert list(e) == list(t), f"{what}: keys {list(e)} vs torch's {list(t)}"
        for k in t:
            same(e[k], t[k], atol, rtol, f"{what}[{k!r}]")
    elif isinstance(t, (list, tuple)):
        assert len(e) == len(t), f"{what}: {len(e)} items vs torch's {len(t)}"
        for i, (ei, ti) in enumerate(zip(e, t)):
            same(ei, ti, atol, rtol, f"{what}[{i}]")
    elif isinstance(t, float):
        np.testing.assert_allclose(e, t, atol=atol, rtol=rtol, err_msg=what)
    else:
        assert e == t, f"{what}: {e!r} vs torch's {t!r}"


def check(fn, *args, atol=1e-5, rtol=1e-4, **kwargs):
    """Run the snippet on both libraries and compare the results."""
    t, e = both(fn, *args, **kwargs)
    same(e, t, atol, rtol)
    return e


def printed(fn, lib, *args) -> str:
    """What fn(lib, *args) prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(lib, *args)
    return out.getvalue()


def check_printed(fn, *args) -> str:
    """The snippet prints the same text on both libraries."""
    t, e = (printed(fn, lib, *args) for lib in LIBS)
    assert e == t
    return e


def warned(fn, lib, *args) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib, *args)
    return [str(w.message) for w in caught]


def same_error(fn, error_type, hint=None, opening=None):
    """fn(lib) raises error_type on both; ember's message starts with torch's first line
    (or with `opening`, when torch's line carries machine-specific details) and, when
    `hint` is given, also matches that regex. Returns ember's message."""
    with pytest.raises(error_type) as t_err:
        fn(torch)
    with pytest.raises(error_type) as e_err:
        fn(ember)
    assert type(e_err.value).__name__ == type(t_err.value).__name__
    t_msg, e_msg = str(t_err.value), str(e_err.value)
    opening = t_msg.splitlines()[0] if opening is None else opening
    assert t_msg.startswith(opening), f"torch said: {t_msg}"
    assert e_msg.startswith(opening), f"ember said: {e_msg}\ntorch said: {t_msg}"
    if hint is not None:
        assert re.search(hint, e_msg[len(opening):]), f"no hint in: {e_msg}"
    return e_msg


def arr(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def data(lib, shape, seed=0):
    """A float32 tensor of standard-normal values, identical on both libraries."""
    return lib.from_numpy(arr(shape, seed))


def labels(lib, n, classes, seed=0):
    return lib.from_numpy(np.random.default_rng(seed).integers(0, classes, n))


def seeded(lib, model, seed=0):
    """Give every parameter deterministic values (torch and ember draw different numbers
    from the same seed, so the snippets start from these instead)."""
    r = np.random.default_rng(seed)
    with lib.no_grad():
        for p in model.parameters():
            bound = 1 / np.sqrt(max(p[0].numel(), 1)) if p.ndim > 1 else 0.1
            p.copy_(lib.from_numpy(r.uniform(-bound, bound, tuple(p.shape)).astype(np.float32)))
    return model


def shapes(state_dict) -> "OrderedDict[str, tuple]":
    return OrderedDict((k, tuple(v.shape)) for k, v in state_dict.items())


def ember_repr(text: str) -> str:
    """Type reprs name ember's modules where torch's name torch's."""
    return text.replace("ember.", "torch.")
