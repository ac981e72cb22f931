"""Compile's settings modules against torch's: older names as aliases, patch(),
get_config_copy(), and the settings that turn a recompile into an error."""
import functools
import json
import subprocess
import sys

import pytest
import torch

import ember
from ember._dynamo.exc import FailOnRecompileLimitHit, RecompileError, TorchDynamoException


@functools.lru_cache(maxsize=None)
def _torch_recompile_errors() -> dict:
    """torch's error (type, first line) for each setting that makes a recompile fail, from a
    subprocess: a compile error leaves torch's frame-evaluation hook in this process."""
    code = """
import json, torch
found = {}
def first_error(name, fn, sizes):
    try:
        for n in sizes:
            fn(torch.ones(n))
    except Exception as e:
        found[name] = [type(e).__name__, str(e).splitlines()[0]]
with torch._dynamo.config.patch(error_on_recompile=True):
    first_error("error_on_recompile", torch.compile(lambda x: x * 2, backend="eager"), (2, 3))
with torch._dynamo.config.patch(fail_on_recompile_limit_hit=True, recompile_limit=1):
    first_error("fail_on_recompile_limit_hit",
                torch.compile(lambda x: x * 2, backend="eager", dynamic=False), (2, 3))
with torch._dynamo.config.patch(recompile_limit=1):
    first_error("fullgraph", torch.compile(lambda x: x * 2, backend="eager", dynamic=False,
                                           fullgraph=True), (2, 3))
print(json.dumps(found))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    return json.loads(done.stdout.splitlines()[-1])


def test_older_names_are_aliases_as_in_torch():
    for lib in (torch, ember):
        config = lib._dynamo.config
        before = config.recompile_limit
        try:
            config.cache_size_limit = 3
            assert config.recompile_limit == config.cache_size_limit == 3
            config.recompile_limit = 5
            assert config.cache_size_limit == 5
            config.accumulated_cache_size_limit = 7
            assert config.accumulated_recompile_limit == 7
        finally:
            config.recompile_limit = before
            config.accumulated_recompile_limit = 256


def test_the_older_name_limits_traces():
    traced = []

    def f(x):
        traced.append(x.shape)
        return x * 2
    compiled = ember.compile(f)
    with ember._dynamo.config.patch(cache_size_limit=1), \
            pytest.warns(UserWarning, match=r"hit the recompile limit \(1\)"):
        for n in (2, 2, 3):
            assert compiled(ember.ones(n, 1)).tolist() == [[2.0]] * n
    # the first size traced twice (a plan is kept when two traces agree), the second ran
    # eagerly: its call is the eager one, not a trace
    assert traced == [(2, 1), (2, 1), (3, 1)]
    assert len(compiled._entries) == 1


def test_patch_as_context_decorator_and_with_every_argument_form():
    for lib in (torch, ember):
        config = lib._dynamo.config
        with config.patch(recompile_limit=3, suppress_errors=True):
            assert (config.recompile_limit, config.suppress_errors) == (3, True)
            with config.patch("recompile_limit", 4):
                assert config.recompile_limit == 4
            assert config.recompile_limit == 3
        assert (config.recompile_limit, config.suppress_errors) == (8, False)

        @config.patch({"recompile_limit": 2})
        def read():
            return config.recompile_limit
        assert read() == 2 and config.recompile_limit == 8
        with pytest.raises(RuntimeError):
            with config.patch(recompile_limit=1):
                raise RuntimeError("restored anyway")
        assert config.recompile_limit == 8
    with ember._inductor.config.patch("triton.cudagraphs", True):
        assert ember._inductor.config.triton.cudagraphs is True
    assert ember._inductor.config.triton.cudagraphs is False


@pytest.mark.parametrize("args,kwargs", [(("recompile_limit", 2), {"verbose": True}),
                                         ((3, 4), {}), ((3,), {}), ((None, 4), {})])
def test_patch_refuses_mixed_arguments_with_torchs_messages(args, kwargs):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(AssertionError) as info:
            with lib._dynamo.config.patch(*args, **kwargs):
                pass
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_config_copy_and_unknown_names():
    for lib in (torch, ember):
        config = lib._dynamo.config
        copy = config.get_config_copy()
        assert copy["recompile_limit"] == 8 and "cache_size_limit" not in copy
        copy["recompile_limit"] = 1
        assert config.recompile_limit == 8
        with pytest.raises(AttributeError, match=r"_dynamo\.config\.no_such_setting does not "
                                                 "exist"):
            config.no_such_setting
    assert ember.compiler.config.get_config_copy()["job_id"] is None


def test_error_on_recompile_raises_at_the_first_new_signature():
    name, message = _torch_recompile_errors()["error_on_recompile"]
    compiled = ember.compile(lambda x: x * 2)
    with ember._dynamo.config.patch(error_on_recompile=True):
        assert compiled(ember.ones(2)).tolist() == [2.0, 2.0]
        assert compiled(ember.ones(2)).tolist() == [2.0, 2.0]      # same signature: replays
        with pytest.raises(RecompileError) as info:
            compiled(ember.ones(3))
    assert name == type(info.value).__name__
    assert isinstance(info.value, TorchDynamoException) and isinstance(info.value, RuntimeError)
    assert message.startswith("Recompiling function <lambda> in ")
    assert str(info.value).startswith("Recompiling function <lambda> in " + __file__)
    assert compiled(ember.ones(3)).tolist() == [2.0] * 3           # the setting is gone


@pytest.mark.parametrize("setting,options", [("fail_on_recompile_limit_hit", {}),
                                             ("fullgraph", {"fullgraph": True})])
def test_a_hard_failure_at_the_recompile_limit_when_asked(setting, options):
    name, message = _torch_recompile_errors()[setting]
    compiled = ember.compile(lambda x: x * 2, dynamic=False, **options)
    patch = {"recompile_limit": 1} | ({setting: True} if setting != "fullgraph" else {})
    with ember._dynamo.config.patch(patch):
        compiled(ember.ones(2))
        with pytest.raises(FailOnRecompileLimitHit) as info:
            compiled(ember.ones(3))
    assert name == type(info.value).__name__
    assert str(info.value).startswith(message)
