"""Tensor internals stay in the core (docs/architecture.md, "The tensor").

A Tensor's array (`_data`) and version counter (`_vc`) belong to the Tensor layer, the ops
(whose primitives get arrays from Function.apply) and autograd. Everything above reads a
tensor through its public methods (`numpy(force=True)`, `dtype`, `shape`), writes it through
the one write path (`_data_to_write()`) or an in-place op, and so cannot forget a version
bump. The few modules that must reach the array itself are listed below with the reason;
the test fails on any other use, and on a listed module that no longer needs it.
"""
from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent / "ember"

# Where the internals are the subject: the ops, autograd and the CPU kernels.
CORE = ("ops/", "autograd/", "_cpu/")

# module -> why it reaches a Tensor's array directly
DATA_USERS = {
    "_tensor.py": "the Tensor class itself",
    "_storage.py": "storages are views of the Tensor's array",
    "_printing.py": "formats the array's values without going through ops",
    "_data_conversion.py": "builds Tensors from Python data and other tensors' arrays",
    "_legacy_types.py": "the legacy constructors (torch.FloatTensor(t)) share t's array",
    "_random.py": "generators fill Tensors' arrays in place",
    "linalg/__init__.py": "the linalg op family (primitives on arrays, like ember/ops)",
    "linalg/_checks.py": "the linalg op family",
    "linalg/_eig.py": "the linalg op family",
    "linalg/_legacy.py": "the linalg op family",
    "linalg/_lstsq.py": "the linalg op family",
    "serialization/__init__.py": "writes and reads storages' bytes (torch's .pth format)",
    "serialization/_pickling.py": "pickles storages as torch does (by their bytes)",
    "serialization/_safetensors.py": "safetensors stores raw array bytes",
    "multiprocessing/reductions.py": "moves a storage's array into shared memory",
    "nn/parameter.py": "an uninitialized parameter hides the array slot behind a property "
                       "that raises; it keeps the slot's descriptor to reach its placeholder",
    "utils/data/_utils/shared_memory.py": "moves a batch's arrays into shared memory",
    "_dynamo/_tracer.py": "compile names the arrays ops read and produce (by identity) to "
                          "write a plan of primitive forwards on arrays",
    "_dynamo/_plan.py": "a plan runs primitives' forwards on arrays, as Function.apply does",
    "_dynamo/_aot.py": "a plan's autograd node hands arrays to its forward and backward parts",
    "_dynamo/_fusion.py": "fusion reads the dtypes, shapes and layouts of the arrays ops made",
    "_dynamo/eval_frame.py": "guards on the shapes, dtypes and strides of the arguments' arrays",
    "sparse/_autograd.py": "a sparse node records its inputs' shapes and dtypes as Function.apply "
                            "does (a sparse tensor's placeholder array carries the dense ones)",
}
# module -> why it sets a Tensor's version counter (sharing one, never counting by hand)
VERSION_SHARERS = {
    "_tensor.py": "the Tensor class itself",
    "_legacy_types.py": "a legacy constructor's result shares its source's counter",
    "nn/parameter.py": "a Parameter shares its data tensor's counter",
    "ops/shape.py": "views share their base's counter",
}


def _users(pattern: str) -> dict[str, int]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        count = len(re.findall(pattern, path.read_text()))
        if count:
            found[name] = count
    return found


def test_array_reads_stay_in_the_core():
    outside = {name for name in _users(r"\._data\b") if not name.startswith(CORE)}
    assert sorted(outside - set(DATA_USERS)) == [], "new uses of Tensor._data"
    assert sorted(set(DATA_USERS) - outside) == [], "listed modules that no longer use it"


def test_version_counters_are_never_counted_by_hand():
    counted = {name for name in _users(r"\._vc\[") if not name.startswith("autograd/")}
    assert counted <= {"_tensor.py"}
    shared = {name for name in _users(r"\._vc\b") if not name.startswith("autograd/")}
    assert shared == set(VERSION_SHARERS)
