"""The doctor's findings: where in the user's code a mistake shows, and the stderr line.

A finding is identified by (check, file, line). The first occurrence prints one line to
stderr; later ones only count. The line is the user's: the first frame, walking out from
the hook site, whose code lives outside the ember package.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

# ember/ (with the separator), the prefix of every file of the package
_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@dataclass
class Finding:
    """One mistake at one place: the check's id, the user's file and line, the message
    (what happened — what to do), and how many times it occurred."""

    check: str
    path: str
    line: int
    message: str
    count: int = 1


def in_ember(filename: str) -> bool:
    """Whether code from this file is ember's own."""
    return filename.startswith(_EMBER_DIR)


def user_frame():
    """The innermost frame of the current stack whose code is not ember's (None when every
    frame is ember's): the user's line that led to the hook site."""
    frame = sys._getframe(1)
    while frame is not None and in_ember(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _shown(path: str) -> str:
    """The path as printed: relative to the working directory when it lies below it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:      # another drive (Windows)
        return path
    return path if relative.startswith(os.pardir) else relative


class Report:
    """The findings of one doctor session, one per (check, file, line)."""

    def __init__(self, stream=None):
        self._findings: dict[tuple, Finding] = {}
        self._stream = stream

    def add(self, check: str, message: str, frame=None) -> None:
        """Record `check` at the user's line (the given frame, or the caller's first user
        frame); print it the first time that line shows that mistake."""
        if frame is None:
            frame = user_frame()
        if frame is None:
            return
        key = (check, frame.f_code.co_filename, frame.f_lineno)
        found = self._findings.get(key)
        if found is not None:
            found.count += 1
            return
        found = self._findings[key] = Finding(check, key[1], key[2], message)
        stream = self._stream or sys.stderr
        print(f"ember doctor: {_shown(found.path)}:{found.line}: {check}: {message}",
              file=stream, flush=True)

    def findings(self) -> list[Finding]:
        """Copies of the findings, in the order they were first seen."""
        return [Finding(f.check, f.path, f.line, f.message, f.count)
                for f in self._findings.values()]
