"""Compare: many Measurements printed as tables, one per label.

In a table, each description is a column and each (num_threads, env, sub_label or stmt) a
row; rows are grouped under a "<n> threads:" separator. Times share the unit of the table's
fastest median. Options: trim_significant_figures (show only the digits each measurement
supports), colorize (ANSI colours against the best time of the column or row) and
highlight_warnings (mark cells whose IQR is large).
"""
from __future__ import annotations

import collections
import enum
import operator

import numpy as np

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(value: float) -> int:
    return int(np.ceil(common.log10_f32(value)))


class _Column:
    """One description's cells: a shared number format wide enough for every cell."""

    def __init__(self, grouped: list[tuple], time_scale: float, trim: bool,
                 highlight_warnings: bool) -> None:
        self.grouped = grouped            # per thread group, this column's cell of each row
        present = [m for group in grouped for m in group if m is not None]
        self._trim = trim
        self._highlight = highlight_warnings and any(m.has_warnings for m in present)
        digits = [_leading_digits(m.median / time_scale) for m in present]
        decimals = (min(max(m.significant_figures - d, 0) for m, d in zip(present, digits))
                    if trim else 1)
        self._width = max(digits) + decimals + (1 if decimals else 0)
        self._decimals = decimals

    def cell(self, value: float | None, sigfigs: int = 1, spread: float | None = None) -> str:
        """A time (in the table's unit) formatted for this column; blanks for a missing one."""
        if value is None:
            return " " * len(self.cell(1.0))
        if self._trim:
            value = common.trim_sigfig(value, sigfigs)
        text = f"{value:>{self._width}.{self._decimals}f}"
        if self._highlight:
            text += f"{f' (! {spread * 100:.0f}%)' if spread is not None else '':>7}"
        return text


def _colored(text: str, value: float, best: float) -> str:
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + text + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + text + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + text + TERMINATE * 2
    if value >= best * 2:
        return BAD + text + TERMINATE * 2
    return text


class _Table:
    """The table of one label."""

    def __init__(self, results: list, colorize: Colorize, trim: bool,
                 highlight_warnings: bool) -> None:
        if len({m.label for m in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self.label = results[0].label
        self.colorize = colorize
        self.highlight_warnings = highlight_warnings
        self.unit, self.scale = common.select_unit(min(m.median for m in results))
        row_keys = common.ordered_unique(self._row_key(m) for m in results)
        self.row_keys = sorted(row_keys, key=operator.itemgetter(slice(2)))  # stmt order kept
        self.column_keys = common.ordered_unique(m.description for m in results)
        cells = {(self._row_key(m), m.description): m for m in results}
        self.grid = [[cells.get((row, col)) for col in self.column_keys]
                     for row in self.row_keys]
        # rows sharing a thread count form a group, headed by "<n> threads: ---"
        self.group_of_row, group_rows = [], []
        for index, (threads, _, _) in enumerate(self.row_keys):
            if index == 0 or threads != self.row_keys[index - 1][0]:
                group_rows.append([])
            group_rows[-1].append(self.grid[index])
            self.group_of_row.append(len(group_rows) - 1)
        self.columns = [_Column([tuple(row[j] for row in rows) for rows in group_rows],
                                self.scale, trim, highlight_warnings)
                        for j in range(len(self.column_keys))]

    @staticmethod
    def _row_key(m) -> tuple:
        return m.num_threads, m.env, m.as_row_name

    def _first_cells(self) -> list[str]:
        """Each row's name, prefixed by (env) where the env changes if envs differ."""
        envs = {m.env for m in self.results}
        env_width = max(len(env) for env in envs) if len(envs) > 1 else 0
        names, prior = [], None
        for index, row in enumerate(self.grid):
            starts_group = index == 0 or self.group_of_row[index] != self.group_of_row[index - 1]
            env = next(m for m in row if m is not None).env
            shown = f"({env})" if len(envs) > 1 and (starts_group or env != prior) else ""
            names.append("  " + shown.ljust(env_width + 4) + self.row_keys[index][2])
            prior = env
        return names

    def _best_values(self, index: int) -> list:
        row = self.grid[index]
        if self.colorize == Colorize.ROWWISE:
            return [min(m.median for m in row if m is not None)] * len(row)
        if self.colorize == Colorize.COLUMNWISE:
            group = self.group_of_row[index]
            return [min((m.median for m in column.grouped[group] if m is not None), default=None)
                    for column in self.columns]
        return [None] * len(row)

    def render(self) -> str:
        text_rows = [[""] + self.column_keys]
        for name, row in zip(self._first_cells(), self.grid):
            text_rows.append([name] + [
                column.cell(None) if m is None else column.cell(
                    m.median / self.scale, m.significant_figures,
                    m.iqr / m.median if m.has_warnings else None)
                for m, column in zip(row, self.columns)])
        widths = [max(len(cell) for cell in column) for column in zip(*text_rows)]
        header = "  |  ".join(cell.center(w) for cell, w in zip(text_rows[0], widths))
        lines = [header]
        for index, cells in enumerate(text_rows[1:]):
            threads = self.row_keys[index][0]
            if index == 0 or threads != self.row_keys[index - 1][0]:
                lines.append(f"{threads} threads: ".ljust(len(header), "-"))
            parts = [cells[0].ljust(widths[0])]
            for text, width, m, best in zip(cells[1:], widths[1:], self.grid[index],
                                            self._best_values(index)):
                text = text.center(width)
                if self.colorize != Colorize.NONE and m is not None and best is not None:
                    text = _colored(text, m.median, best)
                parts.append(text)
            lines.append("  |  ".join(parts))
        title = f" {self.label or ''} ".center(len(header) - 2, "-")
        warned = self.highlight_warnings and any(m.has_warnings for m in self.results)
        note = ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
                if warned else "")
        return (f"[{title}]\n" + "\n".join(lines) + "\n\nTimes are in "
                f"{common.unit_to_english(self.unit)}s ({self.unit}).\n" + note)


class Compare:
    """Tables of Measurements: print(compare) or compare.print(). Replicates of one task
    (same TaskSpec) are merged; each label gets its own table."""

    def __init__(self, results: list) -> None:
        self._results: list = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results) -> None:
        """Add Measurements to the ones already held."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Show only the digits each measurement's spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colour each time against the best of its column (or of its row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark the times whose IQR is a large fraction of the median."""
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def __str__(self) -> str:
        by_label = collections.defaultdict(list)
        for m in common.Measurement.merge(self._results):
            by_label[m.label].append(m)
        return "\n".join(_Table(group, self._colorize, self._trim_significant_figures,
                                self._highlight_warnings).render()
                         for group in by_label.values())
