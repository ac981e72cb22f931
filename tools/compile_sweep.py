"""Look for values a compiled plan keeps from the call it traced, over PyTorch's op database.

    python tools/compile_sweep.py                     # every OpInfo (float64, 4 samples each)
    python tools/compile_sweep.py norm scatter_reduce --verbose

For each OpInfo sample (see tools/op_db.py), the op and a backward through it are compiled
as one step whose arguments are the sample's floating tensors. The step is traced twice
on the sample's values, then called on values that exercise value-dependent code paths
(zeros scattered with the first slice zero and the last slice constant, all zeros, one
value everywhere, the sample again; integer tensors such as targets and indices get their
values in another order). At every call the compiled step's outputs and
gradients must equal an eager step's on the same values, to the bit. A mismatch means
the plan froze something computed from the traced call's values (a mask in a backward
formula, a branch taken in Python); a step that cannot replay is fine when it says why
(`--verbose` prints each step's plan or break). This is a developer tool, not a test.
"""
from __future__ import annotations

import argparse
import signal
import warnings

import numpy as np

import op_db
import ember

DATA = ("traced", "traced", "zeros", "all zeros", "one value", "traced")
RNG = np.random.default_rng(0)


def values(array: np.ndarray, kind: str) -> np.ndarray:
    """The sample's values (`traced`), or values that take the value-dependent paths."""
    out = array.copy()
    if kind == "zeros":
        flat = out.reshape(-1)
        flat[RNG.random(flat.size) < 0.35] = 0
        if out.ndim:
            out[0] = 0
            if out.shape[0] > 1:
                out[-1] = 1.5
    elif kind == "all zeros":
        out[...] = 0
    elif kind == "one value":
        out[...] = 2.0
    return out


def sweep_sample(fn, sample):
    """(the data kinds where compiled and eager differ, the step's plan or break reason),
    or None when the sample has no floating tensor."""
    leaves = {}
    args = op_db.convert([sample.input, *sample.args], leaves)
    kwargs = op_db.convert(sample.kwargs, leaves)
    inputs = [t for t in leaves.values() if t.is_floating_point()]
    if not inputs:
        return None
    traced = [t.detach().numpy().copy() for t in inputs]
    # integer tensors (targets, indices) get their own values in another order
    integers = [t for t in leaves.values() if t.dtype in (ember.int64, ember.int32)]
    traced_integers = [t.numpy().copy() for t in integers]

    def step(*_inputs):     # the tensors reach the op through args and kwargs
        out = fn(*args, **kwargs)
        tensors = [t for t in op_db.flat_tensors(out) if isinstance(t, ember.Tensor)]
        graded = [t for t in tensors if t.requires_grad and t.is_floating_point()]
        if graded:
            sum((t * (ember.arange(t.numel(), dtype=t.dtype).reshape(t.shape) % 7 - 3)).sum()
                for t in graded).backward()
        return [t.detach() for t in tensors]

    compiled = ember.compile(step)
    differing = []
    for kind in DATA:
        data = [values(a, kind) for a in traced]
        shuffled = [a if kind == "traced" else RNG.permutation(a.reshape(-1)).reshape(a.shape)
                    for a in traced_integers]
        results = []
        for run in (step, compiled):
            for t, a in zip(inputs, data):
                with ember.no_grad():
                    t.copy_(ember.from_numpy(a))
                t.grad = None
            for t, a in zip(integers, shuffled):
                t.copy_(ember.from_numpy(a))
            outs = run(*inputs)
            results.append([o.numpy().copy() for o in outs] +
                           [None if t.grad is None else t.grad.numpy().copy() for t in inputs])
        if any((a is None) != (b is None) or a is not None and (
                a.shape != b.shape or not np.array_equal(a, b, equal_nan=True))
               for a, b in zip(*results)):
            differing.append(kind)
    entry = compiled._entries[0] if compiled._entries else None
    how = "no trace" if entry is None else "replays" if entry.plan is not None else entry.reason
    return differing, how


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", help="OpInfo names (default: all)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--samples", type=int, default=4, help="samples per OpInfo")
    options = parser.parse_args(argv)
    signal.signal(signal.SIGALRM, op_db._alarm)
    total = wrong = 0
    for opinfo in op_db.op_db:
        if options.ops and opinfo.name not in options.ops or not opinfo.supports_autograd or \
                opinfo.name in op_db.RANDOM_OPS or opinfo.name in op_db.UNINITIALISED_OPS:
            continue
        name = opinfo.name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else "")
        try:
            fn = op_db.ember_callable(opinfo.op)
            samples = list(opinfo.sample_inputs("cpu", op_db.torch.float64, requires_grad=True))
        except Exception:   # noqa: BLE001 -- no ember op, or torch's samples failed
            continue
        for index, sample in enumerate(samples[:options.samples]):
            if op_db.RANDOM_SAMPLES.get(opinfo.name, lambda s: False)(sample):
                continue
            signal.setitimer(signal.ITIMER_REAL, op_db.SAMPLE_TIMEOUT_S)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = sweep_sample(fn, sample)
            except Exception:   # noqa: BLE001 -- an op error is op_db.py's business
                result = None
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if result is None:
                continue
            total += 1
            differing, how = result
            wrong += bool(differing)
            if differing or options.verbose:
                print(f"{name} #{index}: {how}" +
                      (f"; compiled differs from eager on: {', '.join(differing)}"
                       if differing else ""), flush=True)
    print(f"{wrong} of {total} samples: a compiled step differs from the eager one")


if __name__ == "__main__":
    main()
