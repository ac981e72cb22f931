"""torch._dynamo.explain: trace a call once and report what compile makes of it."""
from __future__ import annotations

import traceback

from .eval_frame import CompiledFunction


class GraphCompileReason:
    """Why a trace ended early: `reason`, and `user_stack` (the user's frame)."""

    def __init__(self, reason: str, where: str | None):
        self.reason = reason
        self.user_stack = []
        if where is not None:
            filename, _, line = where.rpartition(":")
            self.user_stack.append(traceback.FrameSummary(filename, int(line), "<traced>"))

    def __repr__(self) -> str:
        return f"GraphCompileReason(reason={self.reason!r}, user_stack={self.user_stack})"


class ExplainOutput:
    """What explain found: the plans (`graphs`, as Python source), how many ops each
    replays, and the graph breaks with their reasons. explain traces one call: a call
    with a break ran eagerly, so it reports no graph (later calls may replay the
    statements before the break, see _split.py)."""

    def __init__(self, graphs, ops_per_graph, break_reasons, out_guards):
        self.graphs = graphs
        self.graph_count = len(graphs)
        self.graph_break_count = len(break_reasons)
        self.break_reasons = break_reasons
        self.op_count = sum(len(ops) for ops in ops_per_graph)
        self.ops_per_graph = ops_per_graph
        self.out_guards = out_guards
        self.compile_times = ""

    def __str__(self) -> str:
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, reason in enumerate(self.break_reasons, 1):
            lines += [f"  Break Reason {i}:", f"    Reason: {reason.reason}", "    User Stack:"]
            lines += [f"      {frame!r}" for frame in reason.user_stack]
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph, 1):
            lines.append(f"  Ops {i}:")
            lines += [f"    {op}" for op in ops]
        lines.append("Out Guards:")
        lines += [f"  Guard {i}: {guard}" for i, guard in enumerate(self.out_guards, 1)]
        return "\n".join(lines) + "\n"


def explain(f, *extra_args, **extra_kwargs):
    """explain(f)(*args, **kwargs) (or the older explain(f, *args)): run f once under
    compile's tracer and return an ExplainOutput."""
    def inner(*args, **kwargs):
        compiled = CompiledFunction(f)
        compiled(*args, **kwargs)
        entry = compiled._entries[-1]
        if entry.plan is None:
            return ExplainOutput([], [], [GraphCompileReason(entry.reason, entry.where)],
                                 _guards(entry))
        return ExplainOutput([entry.plan.source], [entry.plan.op_names], [], _guards(entry))
    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner


def _guards(entry) -> list[str]:
    grad, inference, autocast, autocast_dtype, global_hooks, arguments, chosen, reads = entry.key
    guards = [f"grad_enabled == {grad}", f"inference_mode == {inference}",
              f"autocast == {autocast} ({autocast_dtype})", f"global module hooks: {global_hooks}",
              f"ember.backends.cpu.kernels == {chosen!r}"]
    guards += [f"argument {i}: {arg}" for i, arg in enumerate(arguments)]
    guards.append(f"{len(reads)} globals, closure variables and defaults read, held by "
                  "identity")
    guards += [f"state of {type(module).__name__} (training={module.training}, "
               f"{len(state.names)} attributes held by identity)" for module, state in entry.modules]
    return guards
