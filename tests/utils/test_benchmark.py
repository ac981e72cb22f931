"""ember.utils.benchmark against torch.utils.benchmark: the same Measurements (built from fixed
times, never from timing) print the same reprs and Compare tables; Timer's API, result
fields and errors match. Timing values themselves are never compared."""
import pickle
import re

import pytest
import torch
import torch.utils.benchmark as tb

import ember
import ember.utils.benchmark as eb

CASES = [  # (times per measurement, number_per_run, TaskSpec keywords)
    ([1e-4, 1.1e-4, 1.2e-4, 1.5e-4], 10, dict(description="d")),
    ([2e-3, 2.1e-3, 2.05e-3, 2.2e-3, 2.3e-3], 10, dict(description="e")),
    ([3e-5, 3.5e-5], 10, dict(stmt="g(x)", description="d")),
    ([3e-5, 3.2e-5, 3.1e-5, 3.05e-5, 3.3e-5, 3.0e-5, 3.1e-5], 100,
     dict(stmt="g(x)", description="d", num_threads=4)),
    ([9e-6, 1.9e-5, 1.2e-5, 2e-5], 1000,
     dict(stmt="g(x)", description="e", num_threads=4, sub_label="[4, 4]")),
    ([5e-1, 5.1e-1], 1, dict(stmt="h", label="Other", description="x", num_threads=2)),
    ([1e-6, 1.1e-6, 1.2e-6, 1.9e-6], 1, dict(stmt="h", label="Other", description="y",
                                            num_threads=2, setup="a = 1\nb = 2")),
    ([7e-9, 7.1e-9], 10**6, dict(stmt="x = 1\ny = 2", sub_label="two lines", setup="z = 0",
                                 description="e")),
]


def measurements(lib, cases=CASES):
    return [lib.Measurement(n, [t * n for t in times],
                            lib.TaskSpec(kw.pop("stmt", "f(x)"), kw.pop("setup", "pass"), **kw))
            for times, n, kw in (tuple(c[:2]) + (dict(c[2]),) for c in cases)]


def without_address(text: str) -> str:
    return re.sub(r"object at 0x[0-9a-f]+", "object at ADDRESS", text)


@pytest.mark.parametrize("index", range(len(CASES)))
def test_measurement_repr_and_statistics_match_torch(index):
    t, e = measurements(tb)[index], measurements(eb)[index]
    assert without_address(repr(e)) == without_address(repr(t))
    for name in ("median", "mean", "iqr"):
        assert getattr(e, name) == pytest.approx(getattr(t, name), rel=1e-12), name
    for name in ("significant_figures", "has_warnings", "title", "as_row_name", "env",
                 "number_per_run", "times", "stmt", "label", "sub_label", "num_threads",
                 "description", "metadata"):
        assert getattr(e, name) == getattr(t, name), name
    assert e.meets_confidence(0.5) == t.meets_confidence(0.5)


@pytest.mark.parametrize("options", [(), ("trim",), ("trim", "colorize"),
                                     ("trim", "highlight"), ("rowwise", "highlight")])
def test_compare_tables_match_torch(options):
    tables = []
    for lib in (tb, eb):
        compare = lib.Compare(measurements(lib))
        if "trim" in options:
            compare.trim_significant_figures()
        if "colorize" in options:
            compare.colorize()
        if "rowwise" in options:
            compare.colorize(rowwise=True)
        if "highlight" in options:
            compare.highlight_warnings()
        tables.append(str(compare))
    assert tables[1] == tables[0]


def test_compare_renders_envs_and_merges_replicates_as_torch():
    cases = [([1e-4 * (1 + i / 10) for i in range(5)], 10,
              dict(label="AB", description=f"[{k}]", env=env, num_threads=threads))
             for env in ("environment A: x", "env B") for k in (1, 2) for threads in (1, 2)]
    t = tb.Compare(measurements(tb, cases) * 2)
    e = eb.Compare(measurements(eb, cases) * 2)
    t.trim_significant_figures()
    e.trim_significant_figures()
    assert str(e) == str(t)
    merged = eb.Measurement.merge(measurements(eb) * 2)
    assert [len(m.times) for m in merged] == [len(m.times) for m in tb.Measurement.merge(
        measurements(tb) * 2)]
    assert all(m.number_per_run == 1 and m.metadata is None for m in merged)


def test_measurements_pickle():
    results = measurements(eb)
    revived = pickle.loads(pickle.dumps(results))
    assert str(eb.Compare(revived)) == str(eb.Compare(results))
    assert revived[0].task_spec == results[0].task_spec


def test_units_and_trimming_match_torch():
    for t in (1e-10, 7e-9, 1e-6, 1e-5, 1e-3, 0.5, 2.0):
        assert eb.select_unit(t) == tb.select_unit(t), t
    for x, n in ((3.14159, 2), (123456.7, 3), (0.000123456, 1), (999.5, 3)):
        assert eb.trim_sigfig(x, n) == tb.trim_sigfig(x, n)
    assert eb.unit_to_english("us") == "microsecond"
    assert eb.ordered_unique([3, 1, 3, 2]) == [3, 1, 2]


@pytest.mark.parametrize("kwargs", [
    dict(stmt="x * y", setup="x = torch.ones(3)\ny = torch.ones(1)"),
    dict(stmt="f(x)", globals={"f": abs, "x": -1}, label="L", sub_label="s",
         description="d", num_threads=2),
])
def test_timer_runs_and_reports_as_torch(kwargs):
    titles = []
    for bench in (tb, eb):
        timer = bench.Timer(**kwargs)
        once = timer.timeit(100)
        assert (once.number_per_run, len(once.raw_times)) == (100, 1)
        assert once.num_threads == kwargs.get("num_threads", 1)
        titles.append(once.title)
        blocked = timer.blocked_autorange(min_run_time=0.01)
        assert len(blocked.raw_times) >= 1 and blocked.number_per_run >= 1
        assert timer.adaptive_autorange(max_run_time=0.05).number_per_run >= 1
    assert titles[0] == titles[1]


def test_timer_sees_ember_as_torch_and_dedents():
    timer = eb.Timer("""
        y = torch.ones(2)
        """, setup="""
        x = 1
        """)
    measurement = timer.timeit(3)
    assert measurement.stmt == "y = torch.ones(2)" and measurement.setup == "x = 1"
    assert timer._globals["torch"] is ember


@pytest.mark.parametrize("call", [
    lambda b: b.Timer("x", language="rust"),
    lambda b: b.Timer(lambda: 1),
    lambda b: b.Timer(global_setup="#include <x>"),
    lambda b: b.Timer().repeat(),
    lambda b: b.Timer().autorange(),
    lambda b: b.Compare([1]),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as expected:
        call(tb)
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        call(eb)


def test_cpp_timing_and_callgrind_are_not_implemented():
    with pytest.raises(NotImplementedError, match="Language.CPP"):
        eb.Timer("x * y;", language=eb.Language.CPP)
    with pytest.raises(NotImplementedError, match="collect_callgrind"):
        eb.Timer().collect_callgrind()


def example_fuzzer(lib, bench):
    return bench.Fuzzer(
        parameters=[
            bench.FuzzedParameter("k0", minval=1, maxval=10000, distribution="loguniform"),
            bench.FuzzedParameter("k1", minval=1, maxval=10000, distribution="loguniform"),
            bench.FuzzedParameter("u", minval=0.0, maxval=1, distribution="uniform"),
            bench.FuzzedParameter("n", minval=1, maxval=3, distribution="uniform", strict=True),
        ],
        tensors=[
            bench.FuzzedTensor("x", size=("k0", "k1"), min_elements=128, max_elements=100000,
                               probability_contiguous=0.6),
            bench.FuzzedTensor("i", size=("k1", "n", 3), steps=(2, 1, "n"), dtype=lib.int32,
                               dim_parameter="n"),
        ],
        seed=0,
    )


def test_fuzzer_draws_torch_parameters_and_tensors():
    samples = [list(example_fuzzer(lib, bench).take(8))
               for lib, bench in ((torch, tb), (ember, eb))]
    for (t_tensors, t_props, t_params), (e_tensors, e_props, e_params) in zip(*samples):
        assert e_params == t_params
        assert repr(e_props) == repr(t_props)
        for name in t_tensors:
            t, e = t_tensors[name], e_tensors[name]
            assert (e.shape, e.stride(), e.is_contiguous()) == (t.shape, t.stride(),
                                                               t.is_contiguous())
            assert (e.numpy() == t.numpy()).all()
    fuzzer = example_fuzzer(ember, eb)
    list(fuzzer.take(8))
    assert 0 <= fuzzer.rejection_rate < 1


def test_fuzzer_choices_aliases_and_errors():
    # torch 2.13's FuzzedParameter rejects every normalized dict ("Distribution is not
    # normalized": its check is inverted), so choices are checked on ember alone
    fuzzer = eb.Fuzzer(
        parameters=[eb.FuzzedParameter("a", minval=4, maxval=8, distribution="uniform"),
                    eb.FuzzedParameter("b", distribution={eb.ParameterAlias("a"): 0.5, 1: 0.5})],
        tensors=[eb.FuzzedTensor("x", size=("a", "b"))], seed=1)
    for tensors, _, params in fuzzer.take(20):
        assert params["b"] in (1, params["a"])
        assert tensors["x"].shape == (params["a"], params["b"])
    assert repr(eb.ParameterAlias("k")) == "ParameterAlias[alias_to: k]"
    with pytest.raises(AssertionError, match="Unknown distribution: normal"):
        eb.FuzzedParameter("a", distribution="normal")
    with pytest.raises(AssertionError, match="Distribution is not normalized"):
        eb.FuzzedParameter("a", distribution={1: 0.5})
    with pytest.raises(ValueError, match="Duplicate names in parameters and tensors"):
        eb.Fuzzer([eb.FuzzedParameter("a", 1, 2, "uniform")], [eb.FuzzedTensor("a", size=(1,))])


@pytest.mark.parametrize("kind", ["unary", "binary"])
def test_op_fuzzers_draw_torch_parameters(kind, monkeypatch):
    import importlib

    import numpy as np
    # let torch 2.13 accept its own normalized dict distributions (its check is inverted)
    monkeypatch.setattr(tb.FuzzedParameter, "_check_distribution", lambda self, d: d)
    name = f"{kind.capitalize()}OpFuzzer"
    fuzzers = [getattr(importlib.import_module(f"{lib}.utils.benchmark.op_fuzzers.{kind}"),
                       name)(seed=0) for lib in ("torch", "ember")]
    states = [np.random.RandomState(0), np.random.RandomState(0)]
    for _ in range(5):
        assert fuzzers[1]._generate(states[1]) == fuzzers[0]._generate(states[0])


@pytest.mark.parametrize("kind", ["unary", "binary"])
def test_op_fuzzers_make_valid_tensors(kind):
    from ember.utils.benchmark.op_fuzzers import binary, unary
    fuzzer = unary.UnaryOpFuzzer(seed=0) if kind == "unary" else binary.BinaryOpFuzzer(seed=0)
    fuzzer._tensors[0]._max_elements = 64 * 1024        # keep the test's tensors small
    for tensors, properties, params in fuzzer.take(3):
        x = tensors["x"]
        assert x.dim() == params["dim"] and properties["x"]["numel"] == x.numel() >= 4 * 1024
        if kind == "binary":
            assert (x * tensors["y"]).shape == x.shape


def test_callgrind_names_exist_and_copy_if_callgrind_is_unwrapped():
    for bench in (tb, eb):
        wrapped = bench.CopyIfCallgrind(3, setup="import math")
        assert (wrapped.value, wrapped.setup) == (3, "import math")
        assert bench.CopyIfCallgrind.unwrap_all({"a": wrapped, "b": 1}) == {"a": 3, "b": 1}
        assert bench.Timer("assert y == 3", globals={"y": wrapped}).timeit(10).number_per_run == 10
        assert bench.FunctionCount(5, "f")._fields == ("count", "function")
    with pytest.raises(NotImplementedError, match="CallgrindStats"):
        eb.CallgrindStats()


def sparse_fuzzer(bench):
    return bench.Fuzzer(
        parameters=[
            bench.FuzzedParameter("k0", minval=2, maxval=20, distribution="uniform"),
            bench.FuzzedParameter("k1", minval=2, maxval=20, distribution="uniform"),
            bench.FuzzedParameter("density", minval=0.1, maxval=0.9, distribution="uniform"),
            bench.FuzzedParameter("coalesced", minval=0, maxval=1, distribution="uniform"),
            bench.FuzzedParameter("sparse_dim", minval=1, maxval=2, distribution="uniform"),
        ],
        tensors=[bench.FuzzedSparseTensor("x", size=("k0", "k1", 3), sparse_dim="sparse_dim",
                                          density="density", coalesced="coalesced"),
                 bench.FuzzedSparseTensor("y", size=("k0",), density="density",
                                          coalesced="coalesced")],
        seed=3)


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
def test_sparse_fuzzer_makes_torch_tensors():
    samples = [list(sparse_fuzzer(bench).take(4)) for bench in (tb, eb)]
    for (t_tensors, t_props, t_params), (e_tensors, e_props, e_params) in zip(*samples):
        assert e_params == t_params and repr(e_props) == repr(t_props)
        for name in ("x", "y"):
            t, e = t_tensors[name], e_tensors[name]
            assert e._indices().tolist() == t._indices().tolist()
            assert (e._values().numpy() == t._values().numpy()).all()
