"""python -m bench.ab REV [workload ...]: this checkout's ember against the ember of an
older commit, workload by workload, in alternating subprocesses.

Two embers cannot share one process (both are the package `ember`), so each measurement
is a fresh interpreter whose PYTHONPATH points at one tree: the working tree, or a git
worktree of REV made for the run. The two alternate, repeat by repeat, so that machine
noise hits both alike; the figure reported is the median of the paired ratios
(new time / old time: below 1 is faster).

    python -m bench.ab HEAD~3                     # every workload, 7 repeats
    python -m bench.ab main op_forward mlp --repeats 9
    python -m bench.ab HEAD~3 mlp --instructions  # CPU instructions per unit (valgrind)

On a shared machine wall-clock ratios can swing by 2x between repeats. --instructions
counts the CPU instructions a unit of work executes instead, under valgrind's callgrind
(interpreter, NumPy and BLAS included; OpenBLAS on one thread): the same on every run, so
one run per tree suffices. It sees the work done, not memory stalls or page faults.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

# name -> (module, setup function): the workloads bench/ times against torch.
WORKLOADS = {
    "op_forward": ("bench.core", "op_chain_forward"),
    "op_forward_backward": ("bench.core", "op_chain_backward"),
    "mnist_cnn": ("bench.nn", "mnist_cnn"),
    "mlp": ("bench.nn", "mlp"),
    "lstm_lm": ("bench.nn", "lstm_lm"),
    "resnet18": ("bench.nn", "resnet18"),
}
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Run in a child: set up one workload on the ember found first on sys.path. Embers before
# the layered core tuned glibc's malloc on import; later ones do it on request, so the
# child requests it, and both trees run with the same allocator settings.
_CHILD_SETUP = """
import importlib, sys
import ember
tune = getattr(ember.backends.cpu, "tune_malloc", None)
if tune is not None:
    tune()
module, function = sys.argv[1], sys.argv[2]
step, units = getattr(importlib.import_module(module), function)(ember)
"""
# ... then time it,
_CHILD = _CHILD_SETUP + """
from bench.runner import time_call
print(time_call(step, float(sys.argv[3])) / units)
"""
# ... or run it a number of times (after a warm-up call), under callgrind: the parent
# subtracts a run of 0 steps, leaving the steps' own instructions.
_CHILD_COUNT = _CHILD_SETUP + """
step()
for _ in range(int(sys.argv[3])):
    step()
print(units)
"""


def time_in_tree(tree: str, workload: str, seconds: float) -> float:
    """Seconds per unit of `workload`, measured in a fresh interpreter on `tree`'s ember
    (bench/ itself always comes from this checkout)."""
    module, function = WORKLOADS[workload]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([tree, _HERE]))
    result = subprocess.run([sys.executable, "-c", _CHILD, module, function, str(seconds)],
                            env=env, capture_output=True, text=True, check=True, cwd=tree)
    return float(result.stdout.split()[-1])


_COUNT_STEPS = {"op_forward": 20, "op_forward_backward": 20, "mlp": 5, "mnist_cnn": 2,
                "lstm_lm": 2, "resnet18": 1}


def instructions_in_tree(tree: str, workload: str) -> float:
    """CPU instructions per unit of `workload` on `tree`'s ember, counted by callgrind."""
    module, function = WORKLOADS[workload]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([tree, _HERE]), OPENBLAS_NUM_THREADS="1")

    def count(steps: int) -> tuple[int, int]:
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
             "-c", _CHILD_COUNT, module, function, str(steps)],
            env=env, capture_output=True, text=True, check=True, cwd=tree)
        collected = re.search(r"Collected : (\d+)", result.stderr)
        return int(collected.group(1)), int(result.stdout.split()[-1])

    steps = _COUNT_STEPS[workload]
    (baseline, _), (total, units) = count(0), count(steps)
    return (total - baseline) / (steps * units)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev", help="the older commit to compare against")
    parser.add_argument("workloads", nargs="*",
                        help=f"workloads to run (default: all of {', '.join(WORKLOADS)})")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="timing budget of one measurement")
    parser.add_argument("--instructions", action="store_true",
                        help="count CPU instructions under valgrind instead of timing")
    options = parser.parse_args(argv)
    unknown = set(options.workloads) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workloads: {', '.join(sorted(unknown))}")
    if options.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind (e.g. apt install valgrind)")
    with tempfile.TemporaryDirectory(prefix="ember-ab-") as folder:
        old = os.path.join(folder, "old")
        subprocess.run(["git", "-C", _HERE, "worktree", "add", "--detach", "-q", old,
                        options.rev], check=True)
        try:
            if options.instructions:
                print(f"# ember at {options.rev} (old) vs this checkout (new), "
                      "CPU instructions per unit (callgrind)")
            else:
                print(f"# ember at {options.rev} (old) vs this checkout (new), "
                      f"{options.repeats} alternating repeats")
            for workload in options.workloads or list(WORKLOADS):
                if options.instructions:
                    old_count = instructions_in_tree(old, workload)
                    new_count = instructions_in_tree(_HERE, workload)
                    print(f"{workload:<22} old {old_count:,.0f}  new {new_count:,.0f}  "
                          f"new/old {new_count / old_count:.3f}")
                    continue
                ratios = []
                for _ in range(options.repeats):
                    old_time = time_in_tree(old, workload, options.seconds)
                    new_time = time_in_tree(_HERE, workload, options.seconds)
                    ratios.append(new_time / old_time)
                print(f"{workload:<22} new/old time: median {statistics.median(ratios):.3f} "
                      f"(range {min(ratios):.3f}-{max(ratios):.3f})")
        finally:
            subprocess.run(["git", "-C", _HERE, "worktree", "remove", "--force", old],
                           check=False)


if __name__ == "__main__":
    main()
