"""The first training step of each nn workload in a fresh process: what a user waits for
before training runs at speed.

Each row runs in a new subprocess per library and mode, and reports the library's import
time and its first step (the workload's setup excluded). ember runs three ways: with
numba's kernels and an empty numba cache (a new NUMBA_CACHE_DIR: the machine's first run,
which compiles every kernel the step touches), the same again with that cache filled
(every later run), and with `EMBER_KERNELS=numpy`. Each process's first step also pays for
the library's lazy imports (numba's runtime for ember, torch's operator libraries).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from bench.memory import WORKLOADS

_CHILD = """
import importlib, json, sys, time
start = time.perf_counter()
lib = importlib.import_module(sys.argv[1])
imported = time.perf_counter()
from bench import nn as workloads
step, _ = getattr(workloads, sys.argv[2])(lib)
begin = time.perf_counter()
step()
print(json.dumps({"import": imported - start, "first": time.perf_counter() - begin}))
"""


def first_step(lib: str, workload: str, **env) -> dict:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", _CHILD, lib, workload], cwd=root,
                          capture_output=True, text=True, check=True, timeout=600,
                          env={**os.environ, **env})
    return json.loads(done.stdout.strip().splitlines()[-1])


def run() -> None:
    for workload in WORKLOADS + ["gpt"]:
        with tempfile.TemporaryDirectory() as cache:
            rows = [("torch", first_step("torch", workload)),
                    ("ember cold", first_step("ember", workload, NUMBA_CACHE_DIR=cache)),
                    ("ember warm", first_step("ember", workload, NUMBA_CACHE_DIR=cache)),
                    ("ember[numpy]", first_step("ember", workload, EMBER_KERNELS="numpy"))]
        print(f"{workload + ': first step (import)':<34}" + "  ".join(
            f"{name} {r['first']:5.2f} s ({r['import']:4.2f})" for name, r in rows))
