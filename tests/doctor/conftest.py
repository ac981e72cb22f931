"""Run small training scripts under ember.doctor and read what it found.

A script marks the line a check must point at with a comment `# <- check-id`. `diagnose`
writes the script to a file, runs it in this process with the checks on (as `ember run
--doctor` would, minus the subprocess), and returns the findings; `expect` checks that they
are exactly the marked ones.
"""
from __future__ import annotations

import runpy
import textwrap

import pytest

import ember.doctor
from doctor_scripts import PRELUDE, marked_lines


@pytest.fixture
def diagnose(tmp_path):
    """diagnose(body) -> (findings, script path, full source): run PRELUDE + body."""
    def run(body: str):
        source = PRELUDE + textwrap.dedent(body)
        script = tmp_path / "train.py"
        script.write_text(source)
        ember.doctor.enable()
        try:
            runpy.run_path(str(script), run_name="__main__")
        finally:
            found = ember.doctor.findings()
            ember.doctor.disable()
        return found, str(script), source
    return run


@pytest.fixture
def expect(diagnose):
    """expect(body): the findings are exactly the lines marked in the script, one each."""
    def check(body: str):
        found, script, source = diagnose(body)
        assert {(f.path, f.line, f.check) for f in found} == \
            {(script, line, check) for line, check in marked_lines(source).items()}, found
        return found
    return check
