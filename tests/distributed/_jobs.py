"""Running MPI jobs from tests: every job gets a hard timeout and runs in its own process
group, which is killed whatever happens, so a failing test leaves no process behind."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")
PYTHON = sys.executable
MPIEXEC = os.path.join(os.path.dirname(PYTHON), "mpiexec")


@dataclass
class Job:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    leftover: bool  # processes of the job were still alive after it exited

    def results(self) -> dict:
        """{check name: (outcome, detail)} from the scripts' PASS/FAIL/SKIP lines."""
        found = {}
        for block in ("\n" + self.stdout).split("\n")[1:]:
            kind, _, rest = block.partition(" ")
            if kind in ("PASS", "FAIL", "SKIP"):
                name, _, detail = rest.partition(":")
                found[name] = (kind, detail)
        return found


def run(command: list[str], timeout: float = 40, env: dict | None = None,
        cwd: str = SCRIPTS, terminate_when=None) -> Job:
    """Run `command` to its end; with `terminate_when` (a function), send it SIGTERM as
    soon as that returns true, as a user or a scheduler stopping a hung job would."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=cwd, start_new_session=True,
                               env=dict(os.environ, **(env or {})))
    try:
        if terminate_when is not None:
            while not terminate_when() and time.monotonic() - start < timeout:
                time.sleep(0.05)
            process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=timeout)
        seconds = time.monotonic() - start
        leftover = any(running(pid) for pid in _descendants(process.pid))
    finally:
        _kill_tree(process)
    return Job(process.returncode, stdout, stderr, seconds, leftover)


def running(pid: int) -> bool:
    """Whether process `pid` exists and has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _descendants(root: int) -> list[int]:
    """Processes below `root`: MPI's launcher gives each rank its own session, so the
    job's process group does not hold them all."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError):
                pass
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        found += children
        frontier += children
    return found


def _kill_tree(process: subprocess.Popen) -> None:
    """Stop the job: every descendant and the whole process group, with SIGKILL."""
    victims = _descendants(process.pid)
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def mpiexec(n: int, script: str, *args: str, timeout: float = 40, env: dict | None = None) -> Job:
    """Run a script of scripts/ on n ranks; like ember's launcher, remove the shared
    memory its ranks recorded, which MPI leaves behind when a rank fails."""
    from ember.distributed import _job_files
    with tempfile.TemporaryDirectory(prefix="ember-test-job-") as job:
        command = [MPIEXEC, "-n", str(n), PYTHON, os.path.join(SCRIPTS, script), *args]
        result = run(command, timeout=timeout, env={_job_files.JOB_DIR: job, **(env or {})})
        _job_files.remove_segments(job)
    return result


def script_checks(script: str) -> list[str]:
    """The names of the check functions of a script in scripts/ (read, not imported)."""
    with open(os.path.join(SCRIPTS, script)) as f:
        return [line[4:line.index("(")] for line in f if line.startswith("def check_")]
