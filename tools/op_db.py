"""Run PyTorch's own op database (OpInfo samples) against ember and count what agrees.

    python tools/op_db.py                      # every OpInfo
    python tools/op_db.py add nn.functional.conv2d --verbose
    python tools/op_db.py --json op_db.json    # also write the raw per-sample table

For each OpInfo in `torch.testing._internal.common_methods_invocations.op_db`, the
runner asks torch for its sample inputs on the CPU (float32 and float64; ops with no
floating dtype use their first supported integer/bool/complex dtype), copies every
tensor to ember (same values, same requires_grad), calls the ember op that matches the
OpInfo's torch callable, and compares values, shapes and dtypes with torch's. For ops
that support autograd, both sides then get the same grad_outputs and the input
gradients are compared. Samples of random ops are skipped (see RANDOM_OPS); ops that
return uninitialised memory are compared on shape and dtype only.

A sample is `pass`, `fail` (a value, shape or dtype differs) or `error` (ember raised,
or timed out). This is a developer tool, not a test: it needs real torch (test-only).
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import json
import signal
import sys
import types
import unittest
import warnings
from collections import Counter, defaultdict

import numpy as np

# torch's testing helpers import `expecttest` (a test-runner package) at module level;
# the op database itself never uses it, so a stand-in is enough.
sys.modules.setdefault("expecttest",
                       types.SimpleNamespace(TestCase=unittest.TestCase, ACCEPT=False))

import torch  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

import ember  # noqa: E402

SAMPLE_TIMEOUT_S = 20

# Results depend on the random stream (or are random by design): skipped, not compared.
RANDOM_OPS = {
    "bernoulli", "normal", "uniform", "multinomial", "cauchy", "exponential", "geometric",
    "log_normal", "randn", "rand", "randint", "randn_like", "rand_like", "randint_like",
    "nn.functional.dropout", "nn.functional.dropout1d", "nn.functional.dropout2d",
    "nn.functional.dropout3d", "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
    "nn.functional.rrelu", "nn.functional.gumbel_softmax", "nn.functional.fractional_max_pool2d",
    "nn.functional.fractional_max_pool3d", "native_dropout_backward", "pca_lowrank", "svd_lowrank",
    "torch.ops.aten._flash_attention_forward", "torch.ops.aten._efficient_attention_forward",
}
# Ops whose samples are random only with some arguments (attention with dropout).
RANDOM_SAMPLES = {
    "nn.functional.scaled_dot_product_attention": lambda s: s.kwargs.get("dropout_p", 0) > 0,
    "nn.functional.multi_head_attention_forward": lambda s: s.kwargs.get("training", False),
}
# Values are whatever memory held: compare shape and dtype only.
UNINITIALISED_OPS = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
                     "new_empty_strided"}

TOLERANCE = {  # dtype name -> (rtol, atol)
    "float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-5),
    "float64": (1e-7, 1e-7), "complex64": (1e-4, 1e-5), "complex128": (1e-7, 1e-7),
}
FALLBACK_DTYPES = (torch.int64, torch.int32, torch.bool, torch.uint8, torch.complex64)
MORE_DTYPES = (torch.int64, torch.bool, torch.complex128)  # with --more-dtypes


# ---------------------------------------------------------------- finding ember's op

# torch's public namespaces, each mirrored by ember's module of the same path.
PUBLIC_SPACES = ["torch", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.special",
                 "torch.fft", "torch.masked", "torch.signal.windows", "torch.sparse"]


def torch_names() -> dict[int, tuple[str, str]]:
    """id(torch callable) -> (namespace, attribute name) over torch's public namespaces."""
    names = {}
    for space in reversed(PUBLIC_SPACES):  # the plain `torch` namespace wins ties
        module = importlib.import_module(space)
        for attr in dir(module):
            if callable(value := getattr(module, attr)):
                names[id(value)] = (space, attr)
    for cls in (torch.Tensor, torch._C.TensorBase):
        for attr, value in vars(cls).items():
            if callable(value):
                names.setdefault(id(value), ("torch.Tensor", attr))
    return names


TORCH_NAMES = torch_names()


def ember_space(space: str):
    """ember's module or class standing where torch's `space` is."""
    if space == "torch.Tensor":
        return ember.Tensor
    return importlib.import_module("ember" + space[len("torch"):])


def ember_callable(fn):
    """The ember counterpart of a torch callable (or a testing wrapper around one)."""
    if id(fn) in TORCH_NAMES:
        space, attr = TORCH_NAMES[id(fn)]
        return getattr(ember_space(space), attr)
    if isinstance(fn, functools.partial):
        return functools.partial(ember_callable(fn.func), *convert(fn.args), **convert(fn.keywords))
    if isinstance(fn, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return getattr(ember, fn.__name__.split(".")[0])  # aten.X(.overload) -> ember.X
    if isinstance(fn, types.FunctionType):
        return rebound(fn)
    raise NotImplementedError(f"no ember counterpart for {fn!r}")


def rebound(fn: types.FunctionType) -> types.FunctionType:
    """`fn` (a lambda or helper from torch's test code) with its torch globals and
    captured torch callables replaced by ember's."""
    scope = dict(fn.__globals__)
    for name in fn.__code__.co_names:
        value = scope.get(name)
        if isinstance(value, types.ModuleType) and value.__name__ in PUBLIC_SPACES:
            scope[name] = ember_space(value.__name__)
    cells = None
    if fn.__closure__:
        cells = tuple(types.CellType(ember_value(c.cell_contents)) for c in fn.__closure__)
    return types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, cells)


def ember_value(value):
    """A value captured by a testing helper: torch callables become ember's."""
    if id(value) in TORCH_NAMES or isinstance(value, (functools.partial, types.FunctionType)):
        return ember_callable(value)
    return convert(value)


# ---------------------------------------------------------------- moving samples across

def convert(value, leaves=None):
    """A torch sample argument as ember sees it; `leaves` maps id(torch tensor) -> ember
    tensor so a tensor used twice stays one ember tensor (and one gradient)."""
    leaves = {} if leaves is None else leaves
    if isinstance(value, torch.Tensor):
        if id(value) not in leaves:
            leaves[id(value)] = ember_tensor(value).requires_grad_(value.requires_grad)
        return leaves[id(value)]
    if id(value) in TORCH_NAMES:  # e.g. distance_function=F.pairwise_distance
        return ember_callable(value)
    if isinstance(value, torch.nn.Module) and not list(value.parameters()):
        # a parameter-free module used as a function (distance_function=PairwiseDistance()):
        # ember's namesake with the same settings
        module = getattr(ember.nn, type(value).__name__)()
        vars(module).update({k: v for k, v in vars(value).items() if not k.startswith("_")})
        return module
    if isinstance(value, torch.Size):
        return ember.Size(value)
    if isinstance(value, (torch.dtype, torch.layout, torch.memory_format)):
        return getattr(ember, str(value).replace("torch.", ""))
    if isinstance(value, torch.device):
        return ember.device(str(value))
    if dataclasses.is_dataclass(value) and type(value).__module__.startswith("torch.nn"):
        ember_class = getattr(ember_space(type(value).__module__), type(value).__name__)
        return ember_class(**{f.name: convert(getattr(value, f.name))
                              for f in dataclasses.fields(value)})
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(convert(v, leaves) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(convert(v, leaves) for v in value)
    if isinstance(value, dict):
        return {k: convert(v, leaves) for k, v in value.items()}
    return value


def ember_tensor(t: torch.Tensor):
    """A copy of a (strided or sparse COO) torch tensor's values as an ember tensor (a view
    of a copy of its base when it is a view)."""
    base = t._base
    if base is not None and not base.requires_grad and base.is_contiguous() \
            and base.storage_offset() == 0 and not t.is_conj() and not t.is_neg():
        # a view (as_strided's partial views read its base's storage beyond it): the same
        # view of a copy of the base
        return ember_tensor(base).as_strided(tuple(t.shape), t.stride(), t.storage_offset())
    t = t.detach()
    if t.layout == torch.sparse_coo:
        return ember.sparse_coo_tensor(ember_tensor(t._indices()), ember_tensor(t._values()),
                                       tuple(t.shape), is_coalesced=t.is_coalesced())
    if t.layout != torch.strided:
        raise NotImplementedError(f"the runner does not convert {t.layout} tensors")
    if t.dtype == torch.bfloat16:
        return ember.from_numpy(t.float().numpy().copy()).to(ember.bfloat16)
    return ember.from_numpy(t.resolve_conj().resolve_neg().numpy().copy())


def flat_tensors(value) -> list:
    """Every tensor in a (nested) output, in order."""
    if isinstance(value, (torch.Tensor, ember.Tensor)):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flat_tensors(v)]
    return []


def numpy_of(t) -> np.ndarray:
    t = t.detach()
    if t.layout != (torch.strided if isinstance(t, torch.Tensor) else ember.strided):
        t = t.to_dense()
    if t.dtype in (torch.bfloat16, ember.bfloat16):
        t = t.float()
    if isinstance(t, torch.Tensor):
        if t._is_zerotensor():  # torch's symbolic zeros (some gradients)
            return np.zeros(tuple(t.shape), dtype=str(t.dtype)[6:])
        t = t.resolve_conj().resolve_neg()
    return t.numpy()


def difference(expected, actual, values: bool = True) -> str | None:
    """None when ember's `actual` matches torch's `expected`, else what differs."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, ember.Tensor):
            return f"expected a tensor, got {type(actual).__name__}"
        if str(expected.dtype)[6:] != str(actual.dtype)[6:]:
            return f"dtype {actual.dtype} != torch's {expected.dtype}"
        if tuple(expected.shape) != tuple(actual.shape):
            return f"shape {tuple(actual.shape)} != torch's {tuple(expected.shape)}"
        if not values:
            return None
        want, got = numpy_of(expected), numpy_of(actual)
        rtol, atol = TOLERANCE.get(str(expected.dtype)[6:], (0, 0))
        if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
            error = np.abs(got.astype(np.complex128) - want)
            return f"values differ (max abs error {np.nanmax(error, initial=0):.3g})"
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return f"expected a sequence of {len(expected)}, got {type(actual).__name__}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            if (why := difference(e, a, values)) is not None:
                return f"[{i}] {why}"
        return None
    if isinstance(expected, (bool, int, float, complex)) and not isinstance(actual, ember.Tensor):
        if not np.allclose(actual, expected, rtol=1e-6, atol=1e-7, equal_nan=True):
            return f"value {actual!r} != torch's {expected!r}"
        return None
    if expected != actual:
        return f"{actual!r} != torch's {expected!r}"
    return None


# ---------------------------------------------------------------- running one sample

class Result:
    """One side's outputs, their projection by the sample's output_process_fn_grad (e.g.
    |U| for svd, whose signs are not unique), and the input gradients through it."""

    def __init__(self, outputs, processed, grads=None, grad_problem=None):
        self.outputs, self.processed, self.grads = outputs, processed, grads
        self.grad_problem = grad_problem  # why no gradients could be taken


def torch_result(opinfo, sample, grad_outputs=None) -> tuple[Result, list]:
    """torch's Result for `sample`, and the grad_outputs used (random unless given): one per
    tensor of the processed outputs, None for those that do not require grad."""
    outputs = opinfo.op(sample.input, *sample.args, **sample.kwargs)
    processed = sample.output_process_fn_grad(outputs)
    inputs = grad_inputs(opinfo, sample)
    tensors = flat_tensors(processed)
    if not inputs or not any(t.requires_grad for t in tensors):
        return Result(outputs, processed), []
    if grad_outputs is None:
        grad_outputs = [torch.randn(t.shape, dtype=t.dtype) if t.requires_grad else None
                        for t in tensors]
    differentiable, seeds = zip(*[(t, g.to(t.dtype)) for t, g in zip(tensors, grad_outputs)
                                  if g is not None])
    grads = torch.autograd.grad(differentiable, inputs, seeds, allow_unused=True)
    return Result(outputs, processed, grads), grad_outputs


def grad_inputs(opinfo, sample) -> list:
    """The tensors of a torch sample that require grad (none if the op has no autograd)."""
    if not opinfo.supports_autograd:
        return []
    return [t for t in flat_tensors([sample.input, *sample.args, *sample.kwargs.values()])
            if t.requires_grad]


def ember_result(opinfo, fn, sample, grad_outputs) -> Result:
    """ember's Result for the same sample and grad_outputs; raises what ember raises."""
    leaves = {}
    args = convert([sample.input, *sample.args], leaves)
    outputs = fn(*args, **convert(sample.kwargs, leaves))
    processed = ember_value(sample.output_process_fn_grad)(outputs)
    if not grad_outputs:
        return Result(outputs, processed)
    tensors = flat_tensors(processed)
    if len(tensors) != len(grad_outputs):
        return Result(outputs, processed, grad_problem="a different number of outputs")
    pairs = [(t, g) for t, g in zip(tensors, grad_outputs) if g is not None]
    if any(not t.requires_grad for t, _ in pairs):
        return Result(outputs, processed, grad_problem="outputs do not require grad like torch's")
    if any(tuple(t.shape) != tuple(g.shape) for t, g in pairs):
        return Result(outputs, processed, grad_problem="outputs' shapes differ from torch's")
    differentiable, grad_outputs = zip(*pairs)
    inputs = grad_inputs(opinfo, sample)
    try:
        grads = ember.autograd.grad(differentiable, [leaves[id(t)] for t in inputs],
                                    convert(grad_outputs), allow_unused=True)
    except Exception as exc:
        raise RuntimeError("backward: " + one_line(exc)) from exc
    return Result(outputs, processed, grads)


def mismatch(opinfo, want: Result, got: Result) -> str | None:
    """What differs between torch's and ember's results, or None."""
    values = opinfo.name not in UNINITIALISED_OPS
    if (why := difference(want.outputs, got.outputs, values)) and \
            difference(want.processed, got.processed, values):
        return why
    if got.grad_problem:
        return "gradient: " + got.grad_problem
    for i, (w, g) in enumerate(zip(want.grads or (), got.grads or ())):
        if w is None or g is None:  # unused on one side: fine when the other grad is zero
            if (w is None) != (g is None) and (w if g is None else g).abs().sum() != 0:
                return f"gradient {i}: one side is None"
        elif why := difference(w, g):
            return f"gradient {i}: {why}"
    return None


def run_sample(opinfo, fn, sample) -> tuple[str, str]:
    """('pass'|'fail'|'error', reason) for one SampleInput."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, grad_outputs = torch_result(opinfo, sample)
        try:
            got = ember_result(opinfo, fn, sample, grad_outputs)
        except Exception as exc:  # noqa: BLE001 -- every ember error is a result
            return "error", one_line(exc)
        why = mismatch(opinfo, want, got)
        if why and "values differ" in why and float32_inputs(sample):
            # torch's float32 kernels round too (sums in another order, other formulas):
            # ember passes when it is about as close to torch's float64 result as torch is.
            want64, _ = torch_result(opinfo, sample.transform(to_float64), grad_outputs)
            if as_accurate_as_torch(want, want64, got):
                return "pass", ""
    return ("fail", why) if why else ("pass", "")


def as_accurate_as_torch(want: Result, want64: Result, got: Result) -> bool:
    """Per tensor, ember's largest error against torch's float64 result is at most twice
    torch's own float32 error, plus float32's tolerance on the tensor's scale."""
    rtol, atol = TOLERANCE["float32"]
    triples = zip(*(flat_tensors([r.processed, list(r.grads or ())]) for r in (want, want64, got)))
    for w32, w64, g in triples:
        w32, w64, g = numpy_of(w32), numpy_of(w64), numpy_of(g)
        if g.shape != w64.shape or not (np.array_equal(np.isnan(g), np.isnan(w64))
                                        or np.array_equal(np.isnan(g), np.isnan(w32))):
            return False
        torch_error = np.nanmax(np.abs(w32 - w64), initial=0)
        ember_error = np.nanmax(np.abs(g - w64), initial=0)
        if not ember_error <= 2 * torch_error + atol + rtol * np.nanmax(np.abs(w64), initial=0):
            return False
    return True


def float32_inputs(sample) -> bool:
    return any(t.dtype == torch.float32 for t in flat_tensors([sample.input, *sample.args]))


def to_float64(value):
    """A float32 tensor or dtype of a sample in float64 (a leaf, keeping requires_grad)."""
    if value is torch.float32:
        return torch.float64
    if isinstance(value, torch.Tensor) and value.dtype == torch.float32:
        return value.detach().double().requires_grad_(value.requires_grad)
    return value


def one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


def _alarm(signum, frame):
    raise TimeoutError(f"sample took over {SAMPLE_TIMEOUT_S} s")


def sample_dtypes(opinfo, more: bool = False) -> list:
    """float32 and float64 where the op takes them, else its first other supported dtype;
    with `more`, also int64, bool and complex128 where supported."""
    supported = opinfo.supported_dtypes("cpu")
    floats = [d for d in (torch.float32, torch.float64) if d in supported]
    if more:
        return floats + [d for d in MORE_DTYPES if d in supported]
    return floats or [d for d in FALLBACK_DTYPES if d in supported][:1]


def run_op(opinfo, verbose: bool = False, more_dtypes: bool = False) -> list[dict]:
    """One row per sample: op, dtype, index, result, reason."""
    rows = []
    name = opinfo.name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else "")

    def row(dtype, index, result, reason):
        rows.append(dict(op=name, dtype=str(dtype)[6:], sample=index, result=result,
                         reason=reason))
        if verbose and result != "pass":
            print(f"  {name} {str(dtype)[6:]} #{index}: {result}: {reason}")

    if opinfo.name in RANDOM_OPS:
        return [dict(op=name, dtype="", sample=0, result="skip", reason="random")]
    if opinfo.name.startswith("jiterator_"):
        return [dict(op=name, dtype="", sample=0, result="skip", reason="CUDA only")]
    try:
        fn, missing = ember_callable(opinfo.op), None
    except (AttributeError, NotImplementedError) as exc:  # each sample counts as an error
        fn, missing = None, f"missing: {exc}"
    for dtype in sample_dtypes(opinfo, more_dtypes):
        torch.manual_seed(0)
        grad = opinfo.supports_autograd and (dtype.is_floating_point or dtype.is_complex)
        try:
            samples = list(opinfo.sample_inputs("cpu", dtype, requires_grad=grad))
        except Exception as exc:  # noqa: BLE001 -- torch's own sample generator failed
            row(dtype, 0, "skip", f"torch's samples: {type(exc).__name__}: {exc}")
            continue
        for index, sample in enumerate(samples):
            if RANDOM_SAMPLES.get(opinfo.name, lambda s: False)(sample):
                row(dtype, index, "skip", "random")
                continue
            if missing:
                row(dtype, index, "error", missing)
                continue
            signal.setitimer(signal.ITIMER_REAL, SAMPLE_TIMEOUT_S)
            try:
                result, reason = run_sample(opinfo, fn, sample)
            except TimeoutError as exc:
                result, reason = "error", str(exc)
            except Exception as exc:  # noqa: BLE001 -- torch itself rejected the sample
                result, reason = "skip", f"torch: {type(exc).__name__}: {exc}"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            row(dtype, index, result, reason)
    return rows


# ---------------------------------------------------------------- report

def summarise(rows: list[dict]) -> None:
    """Print the OpInfos with a failure or an error (counts, first problem), then totals."""
    per_op = defaultdict(Counter)
    first_problem = {}
    for r in rows:
        per_op[r["op"]][r["result"]] += 1
        if r["result"] in ("fail", "error"):
            first_problem.setdefault(r["op"], f"{r['result']} ({r['dtype']} #{r['sample']}): "
                                              f"{r['reason']}")
    print(f"{'op':45} {'pass':>5} {'fail':>5} {'error':>5} {'skip':>5}  first problem")
    for op, c in sorted(per_op.items()):
        if c["fail"] or c["error"]:
            print(f"{op:45} {c['pass']:5} {c['fail']:5} {c['error']:5} {c['skip']:5}"
                  f"  {first_problem[op][:150]}")
    total = Counter(r["result"] for r in rows)
    run = total["pass"] + total["fail"] + total["error"]
    some = sum(1 for c in per_op.values() if c["pass"])
    clean = sum(1 for c in per_op.values() if c["pass"] and not c["fail"] and not c["error"])
    print(f"\n{run} samples run ({total['skip']} skipped): {total['pass']} pass "
          f"({100 * total['pass'] / max(run, 1):.1f}%), {total['fail']} fail, "
          f"{total['error']} error; {some} of {len(per_op)} OpInfos pass at least one sample, "
          f"{clean} pass all.")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*",
                        help="OpInfo names (default: all), e.g. add nn.functional.pad")
    parser.add_argument("--json", help="write every sample's result to this file")
    parser.add_argument("--verbose", action="store_true", help="print every failing sample")
    parser.add_argument("--more-dtypes", action="store_true",
                        help="also run int64, bool and complex128 samples where supported")
    options = parser.parse_args(argv)
    signal.signal(signal.SIGALRM, _alarm)
    chosen = [o for o in op_db if not options.ops or o.name in options.ops]
    rows = []
    for done, opinfo in enumerate(chosen, 1):
        rows += run_op(opinfo, options.verbose, options.more_dtypes)
        print(f"[{done}/{len(chosen)}] {opinfo.name}", file=sys.stderr, flush=True)
    summarise(rows)
    if options.json:
        with open(options.json, "w") as f:
            json.dump(rows, f, indent=0)


if __name__ == "__main__":
    main()
