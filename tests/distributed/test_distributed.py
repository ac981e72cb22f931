"""ember.distributed and DistributedDataParallel on 2 and 4 MPI processes (the machine
has 2 cores: 4 processes oversubscribe it, which MPICH allows). Each script runs once
per process count and reports each of its checks; the tests read those reports."""
from __future__ import annotations

import os
import signal
import sys
import time

import pytest

pytest.importorskip("mpi4py")

from _jobs import PYTHON, SCRIPTS, mpiexec, run, running, script_checks  # noqa: E402

_jobs = {}


def _report(script: str, n: int, name: str):
    if (script, n) not in _jobs:
        _jobs[script, n] = mpiexec(n, script)
    job = _jobs[script, n]
    found = job.results()
    assert name in found, f"no report for {name}:\n{job.stdout}\n{job.stderr}"
    kind, detail = found[name]
    if kind == "SKIP":
        pytest.skip(detail)
    assert kind == "PASS", detail
    assert job.returncode == 0, job.stderr


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("check", script_checks("collectives.py"))
def test_collectives(check, n):
    _report("collectives.py", n, check)


@pytest.mark.parametrize("check", script_checks("ddp.py"))
def test_ddp(check):
    _report("ddp.py", 2, check)


@pytest.mark.parametrize("check", script_checks("mismatch.py"))
def test_mismatched_communication_raises(check):
    _report("mismatch.py", 2, check)


def test_agreement_checks_can_be_turned_off():
    checks = ["check_state", "check_all_reduce_ops", "check_broadcast", "check_all_to_all_single",
              "check_send_recv", "check_barrier"]
    job = mpiexec(2, "collectives.py", *checks, env={"EMBER_DISTRIBUTED_CHECKS": "0"})
    assert job.returncode == 0, job.stderr
    assert {name: kind for name, (kind, _) in job.results().items()} == \
        dict.fromkeys(checks, "PASS"), job.stdout


def test_timeout_raises_instead_of_hanging():
    job = mpiexec(2, "timeout.py", timeout=30)
    assert "TIMEOUT after" in job.stdout, job.stdout + job.stderr
    assert "Timed out waiting 1000ms for all_reduce" in job.stdout
    assert not job.leftover


@pytest.mark.parametrize("n", [2, 4])
def test_crashing_rank_stops_the_job(tmp_path, n):
    job = mpiexec(n, "crash.py", str(tmp_path), timeout=30)
    assert job.returncode != 0
    assert f"ValueError: boom from rank {n - 1}" in job.stderr
    assert "Traceback (most recent call last)" in job.stderr
    assert f"[rank {n - 1}] uncaught exception" in job.stderr
    assert not job.leftover
    pids = [int((tmp_path / f"pid{r}").read_text()) for r in range(n)]
    # MPI's teardown has signalled them; give a loaded machine a moment to finish them.
    deadline = time.monotonic() + 3
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(pid) for pid in pids)


def _infos(directory) -> list[dict]:
    import json
    return [json.loads(path.read_text()) for path in sorted(directory.glob("rank*.json"))]


def _launcher(directory, command: list[str], *args: str, terminate_when=None):
    return run([PYTHON, "-m", *command, *args], timeout=30, cwd=SCRIPTS,
               terminate_when=terminate_when,
               env={"INFO_DIR": str(directory), "PYTHONPATH": os.path.dirname(os.path.dirname(
                   os.path.dirname(os.path.abspath(__file__))))})


def test_torchrun_sets_torchrun_environment_and_aliases_torch(tmp_path):
    import importlib.util
    assert importlib.util.find_spec("torch") is not None  # real torch is there to be found
    job = _launcher(tmp_path, ["ember", "torchrun"], "--nproc-per-node", "2", "launched.py",
                    "--init", "x")
    assert job.returncode == 0, job.stderr
    infos = _infos(tmp_path)
    assert [(i["RANK"], i["LOCAL_RANK"], i["WORLD_SIZE"]) for i in infos] == \
        [("0", "0", "2"), ("1", "1", "2")]
    assert all(i["argv"] == ["--init", "x"] and i["sum"] == 2.0 for i in infos)
    assert [i["rank"] for i in infos] == [0, 1]
    assert [i["torch"] for i in infos] == ["ember", "ember"]
    assert infos[0]["MASTER_ADDR"] == "127.0.0.1" and infos[0]["MASTER_PORT"] == "29500"
    if "OMP_NUM_THREADS" not in os.environ:  # torchrun's default of 1 thread per process
        assert infos[0]["OMP_NUM_THREADS"] == "1" and "OMP_NUM_THREADS" in job.stderr


def test_launch_passes_local_rank_argument(tmp_path):
    job = _launcher(tmp_path, ["ember.distributed.launch"], "--nproc_per_node=2",
                    "launched.py", "y")
    assert job.returncode == 0, job.stderr
    assert [i["argv"] for i in _infos(tmp_path)] == [["--local-rank=0", "y"],
                                                     ["--local-rank=1", "y"]]
    assert [i["torch"] for i in _infos(tmp_path)] == ["ember", "ember"]
    assert "torch.distributed.launch is deprecated" in job.stderr
    job = _launcher(tmp_path, ["ember.distributed.launch"], "--nproc_per_node=2", "--use-env",
                    "launched.py")
    assert [i["argv"] for i in _infos(tmp_path)] == [[], []]


def _both_ranks_started(directory):
    return lambda: len(list(directory.glob("rank*.json"))) == 2


@pytest.mark.parametrize("failure", ["--crash", "--fail-early", "--kill", "--mismatch",
                                     "--hang"])
def test_launcher_stops_failed_job_and_removes_its_shared_memory(tmp_path, failure):
    # --crash: rank 1 raises after init_process_group; --fail-early: before it, while
    # rank 0 waits in its first all-reduce; --kill: rank 1 dies of SIGKILL; --mismatch:
    # the ranks all-reduce tensors of different sizes; --hang: the job waits until the
    # launcher gets SIGTERM.
    hang = failure == "--hang"
    job = _launcher(tmp_path, ["ember.distributed.run"], "--nproc-per-node", "2",
                    "launched.py", "--init", failure,
                    terminate_when=_both_ranks_started(tmp_path) if hang else None)
    assert not job.leftover
    infos = _infos(tmp_path)
    segments = {path for info in infos for path in info["segments"]}
    assert len(infos) == 2 and segments  # MPI gave the job its shared memory...
    assert not [path for path in segments if os.path.exists(path)]  # ...and it is gone
    failed = "ember.distributed.run: the job failed"
    if failure in ("--crash", "--fail-early"):
        assert job.returncode != 0
        assert "Traceback (most recent call last)" in job.stderr
        assert "rank 1 failed" in job.stderr
        assert f"{failed} (mpiexec exit code 1): the failing rank's error is above" \
            in job.stderr
    elif failure == "--kill":
        assert job.returncode == 9
        assert "Traceback" not in job.stderr
        assert f"{failed} (mpiexec exit code 9): rank 1 (pid {infos[1]['pid']}) died of " \
               "signal 9 (SIGKILL)" in job.stderr
    elif failure == "--mismatch":
        assert job.returncode == 1
        assert "RuntimeError: Detected mismatch between collectives on ranks." in job.stderr
    else:
        assert job.returncode == -signal.SIGTERM
        assert f"{failed} (mpiexec exit code 15): the launcher received SIGTERM and " \
               "stopped the job" in job.stderr


def test_single_process_without_mpiexec():
    code = ("import ember, ember.distributed as dist\n"
            "dist.init_process_group('mpi')\n"
            "t = ember.ones(3); dist.all_reduce(t, op=dist.ReduceOp.AVG)\n"
            "ddp = ember.nn.parallel.DistributedDataParallel(ember.nn.Linear(3, 1))\n"
            "ddp(t).sum().backward()\n"
            "print(dist.get_rank(), dist.get_world_size(), t.tolist(), "
            "ddp.module.weight.grad.tolist())\n")
    job = run([PYTHON, "-c", code], timeout=30)
    assert job.stdout.split("\n")[0] == "0 1 [1.0, 1.0, 1.0] [[1.0, 1.0, 1.0]]", job.stderr
    job = run([PYTHON, "-c", "import ember.distributed as d; d.init_process_group('mpi')"],
              env={"WORLD_SIZE": "2", "RANK": "0"}, timeout=30)
    assert "RuntimeError: init_process_group: world_size is 2 but this process was not " \
           "started by MPI" in job.stderr
    assert "ember.distributed.run --nproc-per-node 2" in job.stderr
    assert "torch.multiprocessing.spawn(fn, nprocs=2)" in job.stderr


def test_mpi4py_is_optional():
    code = ("import sys\n"
            "sys.modules['mpi4py'] = None  # as if it were not installed\n"
            "import ember\n"
            "import ember.distributed as dist\n"
            "print(dist.is_available())\n"
            "dist.init_process_group()\n")
    job = run([PYTHON, "-c", code], timeout=30)
    assert "ImportError: ember.distributed runs on MPI through mpi4py, which is not " \
           "installed: pip install ember[distributed]" in job.stderr, job.stderr
    assert job.stdout.strip() == "False"


def test_import_does_not_start_mpi():
    job = run([PYTHON, "-c", "import sys, ember, ember.nn.parallel; "
               "print('mpi4py.MPI' in sys.modules, ember.distributed.is_initialized())"],
              timeout=30)
    assert job.stdout.strip() == "False False", job.stderr


def test_not_initialized_errors():
    import ember
    import ember.distributed as dist
    from ember.utils.data import DistributedSampler
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.get_rank()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(list(range(4)))
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        ember.nn.parallel.DistributedDataParallel(ember.nn.Linear(2, 2))
    assert "mpi4py.MPI" not in sys.modules or dist.is_initialized() is False


def test_default_backend_for_device_is_torchs():
    import torch
    import ember
    for device in ("cpu", "cuda:1", ember.device("cpu")):
        expected = torch.distributed.get_default_backend_for_device(
            device if isinstance(device, str) else torch.device("cpu"))
        assert ember.distributed.get_default_backend_for_device(device) == expected
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="Default backend not registered for device : meta"):
            lib.distributed.get_default_backend_for_device("meta")
