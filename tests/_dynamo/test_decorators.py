"""The names scripts use around compile (torch._dynamo's decorators, torch.compiler's
stance, the config modules of inductor, functorch and logging), against torch."""
import subprocess
import sys
import warnings

import pytest
import torch

import ember
from ember._dynamo.exc import Unsupported


def _times_two_plus_one(lib):
    return lib.compile(lambda x: x * 2 + 1)


def _calls(fn, x, n=3):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [fn(x) for _ in range(n)]
    return results, [str(w.message) for w in caught]


def test_graph_break_inside_a_compiled_call_runs_it_eagerly_with_a_warning():
    def body(x):
        y = x * 2
        ember._dynamo.graph_break("here")
        return y + 1
    fn = ember.compile(body)
    results, messages = _calls(fn, ember.ones(3))
    assert [r.tolist() for r in results] == [[3.0] * 3] * 3
    assert fn.plan_source() == []
    assert any("torch._dynamo.graph_break(): here" in m for m in messages)
    ember._dynamo.graph_break()                 # outside compile: nothing happens
    with pytest.raises(Unsupported, match="graph_break"):
        ember.compile(body, fullgraph=True)(ember.ones(3))


def test_shape_markers_are_accepted_as_in_torch():
    for lib in (torch, ember):
        x = lib.ones(3, 4)
        lib._dynamo.mark_dynamic(x, 0, min=2, max=64)
        lib._dynamo.maybe_mark_dynamic(x, [0, 1])
        lib._dynamo.mark_static(x)
        lib._dynamo.mark_static_address(x)
    x = ember.ones(3, 4)
    ember._dynamo.mark_dynamic(x, 0)
    fn = ember.compile(lambda t: t.sum(0))
    for rows in (3, 3, 5, 5):                   # a marked dimension's new size traces again
        assert fn(ember.ones(rows, 4)).tolist() == [float(rows)] * 4
    assert len(fn.plan_source()) == 2


def test_force_eager_runs_every_compiled_call_eagerly():
    fn = _times_two_plus_one(ember)
    with ember.compiler.set_stance("force_eager"):
        assert fn(ember.ones(2)).tolist() == [3.0, 3.0]
    assert fn._entries == []
    assert ember.compiler.set_stance.current == "default"


def _torch_error(stance: str) -> str:
    """The error torch's compiled call raises under `stance`, from a subprocess: a
    compile error leaves torch's frame-evaluation hook in this process (it changes
    reference counts that ember's engine reads)."""
    code = ("import torch\n"
            "fn = torch.compile(lambda x: x * 2 + 1, backend='eager')\n"
            f"with torch.compiler.set_stance({stance!r}):\n"
            "    try:\n"
            "        fn(torch.ones(2))\n"
            "    except RuntimeError as e:\n"
            "        print(type(e).__name__, str(e).splitlines()[0])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    return done.stdout


def test_fail_on_recompile_raises_for_a_new_signature_as_torch_does():
    assert _torch_error("fail_on_recompile").startswith(
        "RuntimeError Detected recompile when torch.compile stance is 'fail_on_recompile'.")
    fn = _times_two_plus_one(ember)
    with ember.compiler.set_stance("fail_on_recompile"):
        with pytest.raises(RuntimeError, match="^Detected recompile when torch.compile "
                                               "stance is 'fail_on_recompile'."):
            fn(ember.ones(2))
    fn = _times_two_plus_one(ember)
    _calls(fn, ember.ones(2))                  # traced and confirmed: the plan replays
    with ember.compiler.set_stance("fail_on_recompile"):
        assert fn(ember.ones(2)).tolist() == [3.0, 3.0]
        with pytest.raises(RuntimeError, match="fail_on_recompile"):
            fn(ember.ones(3))


def test_eager_on_recompile_replays_plans_and_runs_new_signatures_eagerly():
    fn = _times_two_plus_one(ember)
    _calls(fn, ember.ones(2))

    @ember.compiler.set_stance("eager_on_recompile")
    def under_stance():
        return fn(ember.ones(2)), fn(ember.ones(4))
    assert ember.compiler.set_stance.current == "default"     # a decorator sets it per call
    old, new = under_stance()
    assert old.tolist() == [3.0] * 2 and new.tolist() == [3.0] * 4
    assert len(fn._entries) == 1


def test_eager_then_compile_runs_the_first_call_eagerly():
    fn = _times_two_plus_one(ember)
    with ember.compiler.set_stance("eager_then_compile"):
        fn(ember.ones(2))
        assert fn._entries == []
        _calls(fn, ember.ones(2))
        assert fn._entries[0].confirmed


def test_an_unknown_stance_fails_at_the_next_compiled_call_as_in_torch():
    assert _torch_error("sideways").startswith("RuntimeError invalid torch.compile stance")
    fn = _times_two_plus_one(ember)
    with ember.compiler.set_stance("sideways"):
        with pytest.raises(RuntimeError, match="^invalid torch.compile stance 'sideways'"):
            fn(ember.ones(1))


def test_set_stance_refuses_what_ember_cannot_do():
    with pytest.raises(NotImplementedError, match="skip_guard_eval_unsafe"):
        ember.compiler.set_stance("default", skip_guard_eval_unsafe=True)
    assert ember.compiler.set_stance.current == "default"


def test_optimize_is_the_older_decorator_and_refuses_the_with_statement():
    fn = ember._dynamo.optimize("inductor")(lambda x: x * 3)
    assert [fn(ember.ones(2)).tolist() for _ in range(3)] == [[3.0, 3.0]] * 3
    assert len(fn.plan_source()) == 1
    eager = ember._dynamo.optimize("eager")(lambda x: x * 3)
    assert eager(ember.ones(1)).tolist() == [3.0]
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match=r"torch._dynamo.optimize\(...\) is used with "
                                                r"a context manager"):
            with lib._dynamo.optimize("eager"):
                pass


def test_disable_and_allow_in_graph_are_torch_compilers():
    calls = []

    @ember._dynamo.disable
    def side_effect(x):
        calls.append(1)
        return x + 1
    fn = ember.compile(lambda x: side_effect(x * 2))
    _calls(fn, ember.ones(1), n=4)
    assert len(calls) == 4                      # replayed as a call, not frozen
    assert ember._dynamo.allow_in_graph(len) is len
    assert ember._dynamo.assume_constant_result(len) is len    # transformers decorates with it


@pytest.mark.parametrize("module,names", [
    ("_inductor.config", ["coordinate_descent_tuning", "max_autotune", "max_autotune_gemm",
                          "epilogue_fusion", "fx_graph_cache", "freezing", "compile_threads",
                          "triton.unique_kernel_names", "triton.cudagraphs", "cpp.threads"]),
    ("_functorch.config", ["donated_buffer", "activation_memory_budget"]),
    ("_dynamo.config", ["optimize_ddp", "compiled_autograd",
                        "specialize_int", "automatic_dynamic_shapes", "suppress_errors"]),
])
def test_config_modules_hold_torchs_defaults_and_take_settings(module, names):
    import functools
    import importlib
    importlib.import_module("torch." + module)   # torch binds it only once imported
    for name in names:
        path = module.split(".") + name.split(".")
        assert functools.reduce(getattr, path, ember) == functools.reduce(getattr, path, torch), \
            name
    group = functools.reduce(getattr, module.split("."), ember)
    *parents, last = names[0].split(".")
    target = functools.reduce(getattr, parents, group)
    before = getattr(target, last)
    setattr(target, last, not before)
    try:
        assert getattr(target, last) == (not before)
    finally:
        setattr(target, last, before)
    ember._inductor.config.triton.some_other_setting = 1         # accepted and ignored


def test_set_logs_and_cudagraph_step_marks_are_accepted():
    import logging
    assert ember._logging.set_logs(dynamo=logging.INFO, graph_breaks=True) is None
    assert ember.compiler.cudagraph_mark_step_begin() is None
    assert ember.compiler.is_exporting() is torch.compiler.is_exporting() is False


def test_is_compiling_is_true_while_compile_traces():
    # torch's documented use: a branch for compiled code (torch gives [1, 1] compiled,
    # [-1, -1] eager for this function)
    def f(x):
        return x + 1 if ember.compiler.is_compiling() else x - 1

    compiled = ember.compile(f)
    x = ember.zeros(2)
    assert [compiled(x).tolist() for _ in range(4)] == [[1.0, 1.0]] * 4
    assert f(x).tolist() == [-1.0, -1.0]
    assert not ember.compiler.is_compiling() and not ember._dynamo.is_compiling()
