"""torch's profiler summary table, column for column.

Every column is right-aligned and followed by two spaces; the name column is as wide
as the longest name plus 4 (at most `max_name_column_width`), the others 12 wide.
"""
from __future__ import annotations

import math

_US_PER_S = 1_000_000.0
_US_PER_MS = 1000.0
_COLUMN_WIDTH = 12
_SPACING = 2
_TIME_COLUMNS = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
_FLOP_UNITS = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]


def format_time(time_us: float, unit: str | None = None) -> str:
    """torch's time format: three decimals in s, ms or us (chosen by size unless given)."""
    if unit == "s" or (unit is None and time_us >= _US_PER_S):
        return f"{time_us / _US_PER_S:.3f}s"
    if unit == "ms" or (unit is None and time_us >= _US_PER_MS):
        return f"{time_us / _US_PER_MS:.3f}ms"
    return f"{time_us:.3f}us"


def _share(time_us: float, total_us: float) -> str:
    return "NaN" if total_us == 0 else f"{time_us * 100.0 / total_us:.2f}%"


def _flop_unit(smallest: int) -> tuple:
    """(scale, header) for the FLOPs column: the unit in which the smallest count that is
    not zero reads as at least 1, as torch picks it."""
    power = min(int(math.log10(smallest) // 3), len(_FLOP_UNITS) - 1)
    return 10.0 ** (-3 * power), f"Total {_FLOP_UNITS[power]}"


def _sorted(events, sort_by: str | None) -> list:
    if sort_by is None:
        return list(events)
    # torch accepts cuda_*/xpu_* keys as synonyms of its device_* attributes
    attribute = sort_by.replace("cuda", "device").replace("xpu", "device")
    return sorted(events, key=lambda event: getattr(event, attribute), reverse=True)


def build_table(events, sort_by: str | None = None, row_limit: int = 100,
                max_name_column_width: int | None = 55,
                max_shapes_column_width: int | None = 80, header: str | None = None,
                top_level_events_only: bool = False, time_unit: str | None = None,
                with_flops: bool = False) -> str:
    """The summary table of `events` (FunctionEvent or FunctionEventAvg), as torch prints it;
    with_flops adds a column of estimated FLOPs when any event has some."""
    if len(events) == 0:
        return ""
    events = _sorted(events, sort_by)
    name_width = max(len(event.key) for event in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    widths = [name_width] + [_COLUMN_WIDTH] * (len(_TIME_COLUMNS) + 1)
    headers = ["Name"] + _TIME_COLUMNS + ["# of Calls"]
    with_shapes = any(event.input_shapes for event in events)
    if with_shapes:
        shapes_width = max(len(str(event.input_shapes)) for event in events) + 4
        if max_shapes_column_width is not None:
            shapes_width = min(shapes_width, max_shapes_column_width)
        widths.append(shapes_width)
        headers.append("Input Shapes")
    counted = [event.flops for event in events if event.flops > 0]
    with_flops = with_flops and bool(counted)
    if with_flops:
        flops_scale, flops_header = _flop_unit(min(counted))
        widths.append(_COLUMN_WIDTH)
        headers.append(flops_header)

    row_format = "".join("{:>" + str(width) + "}" + " " * _SPACING for width in widths)
    separator = "".join("-" * width + " " * _SPACING for width in widths)
    line_length = sum(width + _SPACING for width in widths) - _SPACING
    total_self_us = sum(event.self_cpu_time_total for event in events)

    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    rows = [event for event in events if not (top_level_events_only and event.cpu_parent)]
    if row_limit >= 0:      # torch prints every row for a negative limit
        rows = rows[:row_limit]
    for event in rows:
        name = event.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        values = [name,
                  _share(event.self_cpu_time_total, total_self_us),
                  format_time(event.self_cpu_time_total, time_unit),
                  _share(event.cpu_time_total, total_self_us),
                  format_time(event.cpu_time_total, time_unit),
                  format_time(event.cpu_time, time_unit),
                  event.count]
        if with_shapes:
            values.append(str(event.input_shapes)[:shapes_width])
        if with_flops:
            values.append(f"{event.flops * flops_scale:8.3f}" if event.flops > 0 else "--")
        lines.append(row_format.format(*values))
    lines += [separator, f"Self CPU time total: {format_time(total_self_us, time_unit)}"]
    return "".join(line + "\n" for line in lines)
