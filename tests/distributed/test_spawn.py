"""mp.spawn + init_process_group(rank, world_size), torch's recipe for data-parallel
training on the CPU, against torch (gloo): with MPI installed ember's spawn starts its
processes as the ranks of one MPI job (ember/multiprocessing/_mpi_spawn.py)."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from _jobs import PYTHON, SCRIPTS, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(SCRIPTS, "spawn_ddp.py")

pytest.importorskip("mpi4py")


def _both(fail: str, port: int):
    torch_job = run([PYTHON, SCRIPT, fail, str(port)], timeout=120)
    ember_job = run([PYTHON, "-m", "ember", "run", SCRIPT, fail, str(port + 1)], timeout=120,
                    env={"PYTHONPATH": ROOT})
    return torch_job, ember_job


def test_spawned_ranks_train_a_ddp_model_as_torch():
    theirs, ours = _both("none", 29611)
    assert theirs.returncode == 0 and ours.returncode == 0, ours.stderr
    weights = [line for line in ours.stdout.splitlines() if line.startswith("weights")]
    expected = [line for line in theirs.stdout.splitlines() if line.startswith("weights")]
    assert len(weights) == len(expected) == 1
    ours_values, theirs_values = (json.loads(line.split(" ", 1)[1]) for line in weights + expected)
    assert ours_values[0] == ours_values[1]         # the ranks agree: gradients were averaged
    assert ours_values == pytest.approx(theirs_values, rel=1e-6)     # float32 rounding
    assert not ours.leftover


@pytest.mark.parametrize("fail", ["before", "after"])
def test_a_failing_rank_raises_in_the_parent_as_torch(fail):
    theirs, ours = _both(fail, 29621 if fail == "before" else 29631)
    raised = [line for line in ours.stdout.splitlines() if line.startswith("raised")]
    assert raised == [line for line in theirs.stdout.splitlines() if line.startswith("raised")]
    assert raised == [f"raised ProcessRaisedException 1 -- Process 1 terminated with the "
                      f"following error: ValueError: rank 1 failed "
                      f"{'before joining' if fail == 'before' else 'in the group'}"]
    assert not ours.leftover       # (a job left waiting would have hit run()'s timeout)


def test_a_killed_rank_is_reported_as_torch():
    theirs, ours = _both("killed", 29641)
    raised = [line for line in ours.stdout.splitlines() if line.startswith("raised")]
    assert raised == [line for line in theirs.stdout.splitlines() if line.startswith("raised")]
    assert raised == ["raised ProcessExitedException 1 process 1 terminated with signal SIGKILL "
                      "-9 SIGKILL"]
    assert not ours.leftover
