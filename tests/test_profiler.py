"""ember.profiler and ember.autograd.profiler against torch's: event names and nesting,
call counts, the schedule's step logic, table layout, Chrome trace files.
Timings are only checked for consistency (never for speed)."""
import json
import os
import re
import warnings

import numpy as np
import pytest
import torch
import torch.autograd.profiler as torch_autograd_profiler
import torch.profiler

import ember
import ember.autograd.profiler as autograd_profiler
import ember.profiler
from ember.autograd import engine as ember_engine

LIBS = {"torch": (torch, torch.profiler), "ember": (ember, ember.profiler)}


def mlp_run(lib, profiler_module, record_shapes=True):
    """Forward + backward of a small MLP inside a profiler; returns the profiler."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2))
    x = lib.tensor(np.ones((5, 4), dtype=np.float32))
    with profiler_module.profile(record_shapes=record_shapes) as prof:
        with profiler_module.record_function("forward"):
            loss = model(x).sum()
        loss.backward()
    return prof


def names(prof) -> set:
    return {event.name for event in prof.events()}


def check_times(events):
    for event in events:
        assert event.self_cpu_time_total >= 0
        assert event.cpu_time_total >= event.self_cpu_time_total


# ---------------------------------------------------------------------------------- events
def test_mlp_event_names_shared_with_torch():
    torch_names = names(mlp_run(torch, torch.profiler))
    ember_names = names(mlp_run(ember, ember.profiler))
    expected = {"forward", "aten::linear", "aten::relu", "aten::sum",
                "autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0",
                "autograd::engine::evaluate_function: ReluBackward0", "ReluBackward0",
                "autograd::engine::evaluate_function: SumBackward0", "SumBackward0",
                "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                "torch::autograd::AccumulateGrad"}
    assert expected <= torch_names
    assert expected <= ember_names


def test_mlp_nesting_and_shapes():
    prof = mlp_run(ember, ember.profiler)
    events = prof.events()
    forward = next(e for e in events if e.name == "forward")
    assert forward.cpu_parent is None
    assert [c.name for c in forward.cpu_children] == ["aten::linear", "aten::relu",
                                                      "aten::linear", "aten::sum"]
    assert forward.cpu_children[0].input_shapes == [[5, 4], [3, 4], [3]]   # as in torch
    assert forward.cpu_children[0].cpu_parent is forward
    for event in events:
        if event.name.startswith("autograd::engine::evaluate_function: "):
            inner = event.name.split(": ", 1)[1]
            assert [c.name for c in event.cpu_children] == [inner]
            assert event.input_shapes == []
    addmm = [e for e in events if e.name == "AddmmBackward0"]
    assert [e.input_shapes for e in addmm] == [[[5, 2]], [[5, 3]]]   # torch: the grad's shape
    check_times(events)
    assert [e.id for e in events] == list(range(1, len(events) + 1))


def test_linear_called_three_times_counts_three():
    counts = {}
    for name, (lib, profiler_module) in LIBS.items():
        layer = lib.nn.Linear(3, 3)
        x = lib.ones(2, 3)
        with profiler_module.profile() as prof:
            for _ in range(3):
                x = layer(x)
        averages = {a.key: a for a in prof.key_averages()}
        counts[name] = averages["aten::linear"].count
        check_times(prof.key_averages())
    assert counts == {"torch": 3, "ember": 3}


def test_key_averages_sum_the_events():
    prof = mlp_run(ember, ember.profiler)
    averages = {a.key: a for a in prof.key_averages()}
    clones = [e for e in prof.events() if e.name == "torch::autograd::AccumulateGrad"]
    average = averages["torch::autograd::AccumulateGrad"]
    assert average.count == len(clones) == 4
    assert average.cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in clones))
    assert average.cpu_time == pytest.approx(average.cpu_time_total / 4)
    assert average.input_shapes == ""
    grouped = prof.key_averages(group_by_input_shape=True)
    linear_shapes = sorted(str(a.input_shapes) for a in grouped if a.key == "aten::linear")
    assert linear_shapes == ["[[5, 3], [2, 3], [2]]", "[[5, 4], [3, 4], [3]]"]
    total = prof.events().total_average()
    assert total.key == "Total" and total.count == len(prof.events())
    assert prof.events().self_cpu_time_total == pytest.approx(
        sum(e.self_cpu_time_total for e in prof.events()))


@pytest.mark.parametrize("cls_name, aten", [("Mm", "aten::mm"), ("Add", "aten::add"),
                                            ("MaxPool2DWithIndices",
                                             "aten::max_pool2d_with_indices"),
                                            ("LogSoftmax", "aten::log_softmax")])
def test_op_names_from_backward_names(cls_name, aten):
    from ember.profiler._recorder import op_name
    cls = type(cls_name, (ember.autograd.Function,),
               {"backward_name": cls_name + "Backward0", "__module__": "ember.ops.fake"})
    assert op_name(cls) == aten


def test_unmapped_primitive_and_user_function_names():
    from ember.profiler._recorder import op_name
    odd = type("CopySlices", (ember.autograd.Function,),
               {"backward_name": "CopySlices", "__module__": "ember.ops.fake"})
    assert op_name(odd) == "ember::CopySlices"

    def user_function(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2
        return Double

    seen = {}
    for name, (lib, profiler_module) in LIBS.items():
        x = lib.ones(3, requires_grad=True)
        with profiler_module.profile() as prof:
            user_function(lib).apply(x).sum().backward()
        events = prof.events()
        double = next(e for e in events if e.name == "Double")
        seen[name] = ([c.name for c in double.cpu_children][:1],
                      "autograd::engine::evaluate_function: DoubleBackward" in names(prof))
    assert seen["ember"] == seen["torch"] == (["aten::mul"], True)


def test_ops_add_and_mm_are_named_like_torch():
    for lib, profiler_module in LIBS.values():
        a, b = lib.ones(2, 2), lib.ones(2, 2)
        with profiler_module.profile() as prof:
            lib.mm(a, b).add(a)
        assert {"aten::mm", "aten::add"} <= names(prof)


# ----------------------------------------------------------------------- record_function
def test_record_function_nesting_self_time_excludes_children():
    x = ember.ones(50, 50)
    with ember.profiler.profile() as prof:
        with ember.profiler.record_function("outer"):
            with ember.profiler.record_function("inner"):
                for _ in range(5):
                    x = x + 1
            x = x * 2
    events = {e.name: e for e in prof.events() if e.name in ("outer", "inner")}
    outer, inner = events["outer"], events["inner"]
    assert inner.cpu_parent is outer
    assert [c.name for c in outer.cpu_children] == ["inner", "aten::mul"]
    assert [c.name for c in inner.cpu_children] == ["aten::add"] * 5
    children_time = sum(c.cpu_time_total for c in outer.cpu_children)
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total - children_time)
    assert outer.cpu_time_total >= inner.cpu_time_total
    check_times(prof.events())


def test_record_function_as_decorator_and_outside_a_profiler():
    @ember.profiler.record_function("my_step")
    def step(x):
        return x + 1

    step(ember.ones(2))       # no profiler running: records nothing, raises nothing
    with ember.profiler.profile() as prof:
        step(step(ember.ones(2)))
    averages = {a.key: a.count for a in prof.key_averages()}
    assert averages == {"my_step": 2, "aten::add": 2}
    assert ember.profiler.record_function is autograd_profiler.record_function


def test_record_function_args_not_supported():
    with pytest.raises(NotImplementedError, match="args"):
        ember.profiler.record_function("x", args="meta")


# -------------------------------------------------------------------------------- schedule
SCHEDULES = [dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
             dict(wait=0, warmup=1, active=1),
             dict(wait=2, warmup=1, active=3, repeat=1),
             dict(wait=3, warmup=2, active=1, skip_first=2, skip_first_wait=1)]


@pytest.mark.parametrize("kwargs", SCHEDULES)
def test_schedule_actions_match_torch(kwargs):
    expected = [torch.profiler.schedule(**kwargs)(i).name for i in range(20)]
    got = [ember.profiler.schedule(**kwargs)(i).name for i in range(20)]
    assert got == expected


def test_schedule_warnings_and_errors_match_torch():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
            lib.profiler.schedule(wait=0, warmup=0, active=1)
        with pytest.raises(AssertionError, match=r"Invalid profiler schedule arguments\. "
                                                 r"Got wait=0 \(need >= 0\), warmup=1"):
            lib.profiler.schedule(wait=0, warmup=1, active=0)
        with pytest.raises(AssertionError, match="Step must be non-negative"):
            lib.profiler.schedule(wait=0, warmup=1, active=1)(-1)


def scheduled_run(lib, n_steps, **schedule_kwargs):
    """Which steps each on_trace_ready call saw, with a record_function per step."""
    ready = []

    def on_trace_ready(prof):
        steps = sorted(e.name for e in prof.events() if e.name.startswith("step"))
        ready.append((prof.step_num, steps))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.profiler.profile(schedule=lib.profiler.schedule(**schedule_kwargs),
                                  on_trace_ready=on_trace_ready) as prof:
            for i in range(n_steps):
                with lib.profiler.record_function(f"step{i}"):
                    lib.ones(2).add(1)
                prof.step()
    return ready, prof


@pytest.mark.parametrize("n_steps, kwargs", [
    (6, dict(wait=1, warmup=1, active=2, repeat=1)),
    (12, dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1)),
    (7, dict(wait=0, warmup=1, active=1)),
    (5, dict(wait=1, warmup=0, active=3)),
])
def test_scheduled_steps_recorded_like_torch(n_steps, kwargs):
    torch_ready, _ = scheduled_run(torch, n_steps, **kwargs)
    ember_ready, _ = scheduled_run(ember, n_steps, **kwargs)
    assert ember_ready == torch_ready
    assert ember_ready       # at least one trace was saved


def test_step_ranges_named_profiler_step():
    _, prof = scheduled_run(ember, 2, wait=0, warmup=1, active=2)
    step_events = [e for e in prof.events() if e.name == "ProfilerStep*"]
    assert [e.trace_name for e in step_events] == ["ProfilerStep#1", "ProfilerStep#2"]
    assert [c.name for c in step_events[0].cpu_children] == ["step1"]


def test_default_schedule_records_everything_without_step_ranges():
    with ember.profiler.profile() as prof:
        for _ in range(3):
            ember.ones(2).add(1)
            prof.step()
    assert [e.name for e in prof.events()] == ["aten::add"] * 3
    assert prof.step_num == 3


def test_start_stop_api():
    prof = ember.profiler.profile()
    prof.start()
    ember.ones(2).add(1)
    prof.stop()
    ember.ones(2).add(1)                    # after stop(): not recorded
    assert [e.name for e in prof.events()] == ["aten::add"]
    assert ember._modes.current().recorder is None


def test_results_before_start_raise():
    for lib in (torch, ember):
        with pytest.raises(AssertionError, match="Profiler must be initialized"):
            lib.profiler.profile().key_averages()


# ------------------------------------------------------------------------------- activities
def test_activities():
    assert [m.name for m in ember.profiler.ProfilerActivity] == \
        [m for m in torch.profiler.ProfilerActivity.__members__]
    assert ember.profiler.ProfilerActivity.CUDA.value == \
        int(torch.profiler.ProfilerActivity.CUDA.value)
    assert ember.profiler.supported_activities() == {ember.profiler.ProfilerActivity.CPU}
    cpu, cuda = ember.profiler.ProfilerActivity.CPU, ember.profiler.ProfilerActivity.CUDA
    with pytest.warns(UserWarning, match="CUDA is not available, disabling CUDA profiling"):
        prof = ember.profiler.profile(activities=[cpu, cuda])
    with prof:
        ember.ones(2).add(1)
    assert names(prof) == {"aten::add"}
    with ember.profiler.profile(activities=[]) as prof:     # [] means the default, as in torch
        ember.ones(2).add(1)
    assert names(prof) == {"aten::add"}


@pytest.mark.parametrize("option", ["profile_memory", "with_stack", "with_modules"])
def test_unsupported_options_raise(option):
    with pytest.raises(NotImplementedError, match=option):
        ember.profiler.profile(**{option: True})
    with pytest.raises(NotImplementedError, match=option):
        autograd_profiler.profile(**{option: True})


def test_two_profilers_at_once_not_supported():
    with ember.profiler.profile():
        with pytest.raises(NotImplementedError, match="two profilers"):
            with ember.profiler.profile():
                pass
    assert ember._modes.current().recorder is None


def test_hooks_removed_after_profiling_even_on_error():
    call_node = ember_engine._call_node
    with pytest.raises(ValueError):
        with ember.profiler.profile():
            raise ValueError("boom")
    assert ember._modes.current().recorder is None
    assert ember_engine._call_node is call_node


# ------------------------------------------------------------------------------------ table
def header_lines(table: str) -> list:
    return table.splitlines()[:3]


def test_table_header_equals_torch():
    for group in (False, True):
        tables = [mlp_run(lib, module).key_averages(group_by_input_shape=group).table(
                  sort_by="self_cpu_time_total", row_limit=5) for lib, module in LIBS.values()]
        torch_lines, ember_lines = (header_lines(t) for t in tables)
        # the name column is as wide as the longest name, the shapes column as the widest
        # shapes: both depend on which ops ran, so compare the layout with widths unified
        widths = re.compile(r"-+")
        assert [c for c in re.split(r"\s{2,}", ember_lines[1].strip())] == \
            [c for c in re.split(r"\s{2,}", torch_lines[1].strip())]
        assert len(widths.findall(ember_lines[0])) == len(widths.findall(torch_lines[0]))
        assert torch_lines[0].split()[1:7] == ember_lines[0].split()[1:7]


def test_table_layout_exact_for_same_names():
    """With the same names, the whole header block is character for character torch's."""
    for lib, module in LIBS.values():
        with module.profile() as prof:
            with module.record_function("a_block"):
                pass
        lines = header_lines(prof.key_averages().table())
        if lib is torch:
            expected = lines
        else:
            assert lines == expected


def test_table_rows_and_totals():
    prof = mlp_run(ember, ember.profiler)
    averages = prof.key_averages()
    table = averages.table(sort_by="self_cpu_time_total", row_limit=4)
    lines = table.splitlines()
    assert len(lines) == 3 + 4 + 2 and lines[-1].startswith("Self CPU time total: ")
    self_times = [float(re.findall(r"([\d.]+)%", line)[0]) for line in lines[3:7]]
    assert self_times == sorted(self_times, reverse=True)
    assert len(averages.table(row_limit=-1).splitlines()) == 3 + len(averages) + 2
    truncated = [line for line in lines if "..." in line]
    assert all(len(line.split("  ")[0].strip()) <= 55 for line in truncated)
    assert ember.profiler.profile is not None and str(averages) == averages.table()
    assert averages.table(time_unit="ms").count("us") == 0


def test_table_of_empty_event_list_is_empty():
    with ember.profiler.profile() as prof:
        pass
    assert prof.key_averages().table() == "" == str(torch.autograd.profiler_util.EventList())


# ------------------------------------------------------------------------------------ FLOPs
def flop_workload(lib):
    """Every op torch estimates FLOPs for, in the forms ember records them, and some it
    does not (matrix-vector, transposed convolution, sub): values do not matter."""
    F = lib.nn.functional
    lib.manual_seed(0)
    a, b = lib.ones(8, 16, requires_grad=True), lib.ones(16, 4)
    a @ b
    lib.matmul(lib.ones(3, 1, 4, 5), lib.ones(2, 5, 6))         # broadcast batches
    lib.bmm(lib.ones(2, 3, 4), lib.ones(2, 4, 5))
    lib.addmm(lib.zeros(4), a, b)
    lib.baddbmm(lib.ones(2, 3, 5), lib.ones(2, 3, 4), lib.ones(2, 4, 5))
    F.linear(lib.ones(2, 3, 16), b.t(), lib.ones(4))
    F.conv2d(lib.ones(2, 4, 7, 7), lib.ones(6, 2, 3, 3), groups=2, stride=2, padding=1)
    F.conv1d(lib.ones(1, 2, 5), lib.ones(3, 2, 3))
    F.conv_transpose2d(lib.ones(1, 2, 5, 5), lib.ones(2, 3, 3, 3))
    lib.mv(b.t(), lib.ones(16)), a - a
    lib.mul(lib.ones(1, 16), lib.ones(8, 16)), a + a, a + 1
    (a * 2).sum().backward()


def flops_run(lib, profiler_module):
    with profiler_module.profile(with_flops=True) as prof:
        flop_workload(lib)
    return prof


def test_flops_total_matches_torch():
    torch_prof, ember_prof = flops_run(torch, torch.profiler), flops_run(ember, ember.profiler)
    total = sum(event.flops for event in torch_prof.events())
    assert sum(event.flops for event in ember_prof.events()) == total > 0
    assert ember_prof.key_averages().total_average().flops == total
    # ops that torch and ember name alike carry the same FLOPs
    for name in ("aten::mul", "aten::add"):
        assert sorted(e.flops for e in ember_prof.events() if e.name == name) == \
            sorted(e.flops for e in torch_prof.events() if e.name == name)
    assert all(event.flops == 0 for event in ember_prof.events()
               if event.name not in ("aten::mm", "aten::linear", "ember::AddProduct",
                                     "aten::convolution", "aten::mul", "aten::add"))


def test_flops_record_shapes_and_need_asking_for():
    prof = flops_run(ember, ember.profiler)
    assert all(e.input_shapes for e in prof.events() if e.name == "aten::mul")
    with ember.profiler.profile() as prof:
        flop_workload(ember)
    assert sum(event.flops for event in prof.events()) == 0
    assert "FLOPs" not in prof.key_averages().table()
    with autograd_profiler.profile(with_flops=True) as prof:
        ember.ones(3, 5) @ ember.ones(5, 2)
    assert [(e.name, e.flops, e.input_shapes) for e in prof.function_events] == \
        [("aten::mm", 60, [[3, 5], [5, 2]])]


@pytest.mark.parametrize("rows", [2, 2000])
def test_flops_column_like_torch(rows):
    """The column header picks the unit of the smallest count; rows without FLOPs show --."""
    tables = []
    for lib, module in LIBS.values():
        x = lib.ones(rows, 3)
        with module.profile(with_flops=True) as prof:
            x.mul(x).add(x).neg()
        tables.append(prof.key_averages().table(sort_by="count"))
    torch_rows, ember_rows = ([re.split(r"\s{2,}", line.strip()) for line in table.splitlines()]
                              for table in tables)
    assert ember_rows[1] == torch_rows[1]             # the header, with 'Total FLOPs'/KFLOPs
    assert ("KFLOPs" in ember_rows[1][-1]) == (rows == 2000)
    torch_flops = {row[0]: row[-1] for row in torch_rows[3:-2]}
    assert {row[0]: row[-1] for row in ember_rows[3:-2]} == torch_flops


# ------------------------------------------------------------------------------------ trace
def test_export_chrome_trace(tmp_path):
    prof = mlp_run(ember, ember.profiler)
    path = str(tmp_path / "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    assert {"schemaVersion", "traceEvents", "displayTimeUnit", "traceName"} <= set(trace)
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(prof.events())
    for event in complete:
        assert {"ph", "cat", "name", "pid", "tid", "ts", "dur", "args"} <= set(event)
        assert event["dur"] >= 0
    by_name = {e["name"]: e for e in complete}
    assert by_name["forward"]["cat"] == "user_annotation"
    assert by_name["aten::relu"]["cat"] == "cpu_op"
    assert by_name["aten::relu"]["args"]["Input Dims"] == [[5, 3]]


def test_tensorboard_trace_handler(tmp_path):
    log_dir = str(tmp_path / "log")
    handler = ember.profiler.tensorboard_trace_handler(log_dir, worker_name="worker0")
    schedule = ember.profiler.schedule(wait=0, warmup=1, active=1)
    with ember.profiler.profile(schedule=schedule, on_trace_ready=handler) as prof:
        for _ in range(2):
            ember.ones(2).add(1)
            prof.step()
    files = os.listdir(log_dir)
    assert len(files) == 1      # step 1 saved; step 2 (warmup) ends without a trace
    assert re.fullmatch(r"worker0\.\d+\.pt\.trace\.json", files[0])
    with open(os.path.join(log_dir, files[0])) as f:
        names_in_trace = [e["name"] for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
    assert names_in_trace == ["ProfilerStep#1", "aten::add"]


# ------------------------------------------------------------------------ autograd profiler
def test_autograd_profiler_profile():
    for lib, module in ((torch, torch_autograd_profiler), (ember, autograd_profiler)):
        with module.profile(record_shapes=True) as prof:
            with module.record_function("outer"):
                lib.ones(2, 3).add(1)
        events = prof.function_events
        assert events[0].name == "outer"
        assert "aten::add" in {e.name for e in events}
        assert prof.self_cpu_time_total == pytest.approx(events.self_cpu_time_total)
        assert prof.total_average().key == "Total"
        assert prof.table().splitlines()[1] == events.table().splitlines()[1]
        assert str(prof) == prof.table()


def test_autograd_profiler_disabled_and_unstarted():
    for module in (torch_autograd_profiler, autograd_profiler):
        assert list(module.profile().key_averages()) == []
        assert module.profile().table() == ""
    # torch 2.13 raises AttributeError ('NoneType' object has no attribute 'table') on the
    # results of a disabled profiler; ember reports the empty result instead.
    with autograd_profiler.profile(enabled=False) as prof:
        ember.ones(2).add(1)
    assert prof.table() == "" and list(prof.function_events) == []
    with pytest.raises(NotImplementedError, match="use_cuda"):
        autograd_profiler.profile(use_cuda=True)


def test_autograd_profiler_export(tmp_path):
    with autograd_profiler.profile() as prof:
        ember.ones(2).add(1)
    path = str(tmp_path / "t.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        assert [e["name"] for e in json.load(f)["traceEvents"] if e["ph"] == "X"] == \
            ["aten::add"]


def test_emit_nvtx_is_a_no_op_context():
    with autograd_profiler.emit_nvtx(record_shapes=True):
        y = ember.ones(2).add(1)
    assert y.tolist() == [2.0, 2.0]


def test_acc_events_keeps_every_cycle():
    schedule = ember.profiler.schedule(wait=0, warmup=1, active=1)
    with ember.profiler.profile(schedule=schedule, acc_events=True) as prof:
        for _ in range(4):
            ember.ones(2).add(1)
            prof.step()
    assert [e.trace_name for e in prof.events() if e.name == "ProfilerStep*"] == \
        ["ProfilerStep#1", "ProfilerStep#3"]
    assert [e.id for e in prof.events()] == list(range(1, len(prof.events()) + 1))
