"""Peak memory of the nn training-step workloads, ember vs torch.

Each library runs in its own subprocess (so neither's allocations hide in the other's
heap): note the resident size once the library is imported, build the workload (model,
optimizer, data), run a few training steps, and report how far the peak resident size
rose above that baseline — everything training the workload needed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

WORKLOADS = ["mnist_cnn", "mlp", "lstm_lm", "resnet18"]
STEPS = {"resnet18": 2}

_CHILD = """
import importlib, json, resource, sys
lib = importlib.import_module(sys.argv[1])
from bench import nn as workloads
def resident_kb():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024
before = resident_kb()
step, _ = getattr(workloads, sys.argv[2])(lib)
for _ in range(int(sys.argv[3])):
    step()
with open('/proc/self/status') as f:   # VmHWM: this process's own peak (ru_maxrss
    peak = next(int(l.split()[1]) for l in f if l.startswith('VmHWM'))   # survives exec)
print(json.dumps({"before": before, "peak": peak}))
"""


def peak_rise_mb(lib: str, workload: str) -> float:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", _CHILD, lib, workload,
                           str(STEPS.get(workload, 5))], cwd=root, capture_output=True,
                          text=True, check=True, timeout=600)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return (figures["peak"] - figures["before"]) / 1024


def run() -> None:
    for workload in WORKLOADS:
        torch_mb = peak_rise_mb("torch", workload)
        ember_mb = peak_rise_mb("ember", workload)
        print(f"{workload + ' training: peak memory':<44} torch {torch_mb:>8.1f} MB"
              f"        ember {ember_mb:>8.1f} MB        ember/torch "
              f"{ember_mb / max(torch_mb, 1e-9):6.2f}")
