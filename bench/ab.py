"""python -m bench.ab REV [workload ...]: this checkout's ember against the ember of an
older commit, workload by workload, in alternating subprocesses.

Two embers cannot share one process (both are the package `ember`), so each measurement
is a fresh interpreter whose PYTHONPATH points at one tree: the working tree, or a git
worktree of REV made for the run. The two alternate, repeat by repeat, so that machine
noise hits both alike; the figure reported is the median of the paired ratios
(new time / old time: below 1 is faster).

    python -m bench.ab HEAD~3                     # every workload, 7 repeats
    python -m bench.ab main op_forward mlp --repeats 9
"""
from __future__ import annotations

import argparse
import os
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

# Run in the child: time one workload on the ember found first on sys.path. Embers before
# the layered core tuned glibc's malloc on import; later ones do it on request, so the
# child requests it, and both trees run with the same allocator settings.
_CHILD = """
import importlib, sys
import ember
tune = getattr(ember.backends.cpu, "tune_malloc", None)
if tune is not None:
    tune()
from bench.runner import time_call
module, function, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
step, units = getattr(importlib.import_module(module), function)(ember)
print(time_call(step, seconds) / units)
"""


def time_in_tree(tree: str, workload: str, seconds: float) -> float:
    """Seconds per unit of `workload`, measured in a fresh interpreter on `tree`'s ember
    (bench/ itself always comes from this checkout)."""
    module, function = WORKLOADS[workload]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([tree, _HERE]))
    result = subprocess.run([sys.executable, "-c", _CHILD, module, function, str(seconds)],
                            env=env, capture_output=True, text=True, check=True, cwd=tree)
    return float(result.stdout.split()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev", help="the older commit to compare against")
    parser.add_argument("workloads", nargs="*",
                        help=f"workloads to run (default: all of {', '.join(WORKLOADS)})")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="timing budget of one measurement")
    options = parser.parse_args(argv)
    unknown = set(options.workloads) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workloads: {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory(prefix="ember-ab-") as folder:
        old = os.path.join(folder, "old")
        subprocess.run(["git", "-C", _HERE, "worktree", "add", "--detach", "-q", old,
                        options.rev], check=True)
        try:
            print(f"# ember at {options.rev} (old) vs this checkout (new), "
                  f"{options.repeats} alternating repeats")
            for workload in options.workloads or list(WORKLOADS):
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
