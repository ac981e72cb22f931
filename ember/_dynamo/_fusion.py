"""Fusion of pointwise chains: consecutive elementwise ops of a plan become one generated
numba kernel (with the ember[fast] extra; without it the plan calls NumPy op by op).

A chain such as `x * 1.0001 + 0.0001` repeated, or a bias add followed by a ReLU, costs
NumPy one call and one temporary array per op. Fused, the plan makes one call that reads
each input once, keeps the intermediate values in registers and writes only the arrays
something else reads later:

    @jit
    def kernel(shape, x0, x1):
        n0, n1 = shape
        if x0.shape != (n0, n1) or x1.shape != (n1,):
            raise ValueError(...)
        y0 = np.empty((n0, n1), np.float32)
        for i0 in range(n0):
            for i1 in range(n1):
                t0 = x0[i0, i1] + x1[i1]            # AddBackward0
                t1 = t0 if t0 > 0 or t0 != t0 else np.float32(0)   # ReluBackward0
                y0[i0, i1] = t1
        return y0

The plan passes the result's shape, `fused((64, 256), a4, a2)`: a kernel depends only on
the ops, the dtype and which operand dims broadcast, so other sizes reuse its compiled
code (a last batch of another size, the plans of `dynamic=True`).

Only ops whose results round exactly as NumPy's do are fused (the IEEE operations + - * /,
sqrt, max against zero, in one float dtype; numba contracts nothing into multiply-add
without fastmath), so a fused plan gives eager's values to the last bit. numba caches
compiled code only for functions defined in a file, so each kernel's source is written to
a file in `config.cache_dir`, named by its hash: the same plan on a later run (or in
another process) loads the compiled kernel instead of compiling it again.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys

import numpy as np

from .._cpu import kernels
from .._tensor import Tensor
from ..ops.pointwise import arithmetic
from ..ops.pointwise.unary import relu, sqrt
from . import config

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _add(a, raw, scalar):
    return f"{a[0]} + {a[1]}" if len(raw) < 3 or raw[2] == 1 else f"{a[0]} + {a[1]} * {a[2]}"


def _sub(a, raw, scalar):
    return f"{a[0]} - {a[1]}" if len(raw) < 3 or raw[2] == 1 else f"{a[0]} - {a[1]} * {a[2]}"


def _relu(a, raw, scalar):
    # as np.maximum(x, 0): NaN stays NaN, -0.0 becomes 0.0
    return f"{a[0]} if {a[0]} > 0 or {a[0]} != {a[0]} else {scalar}(0)"


# primitive -> (its positional arguments rendered, the same raw, the dtype's scalar type)
# -> the scalar expression, or None where the call is not one a kernel computes exactly
# as the primitive does.
_RULES = {
    arithmetic.Add: _add,
    arithmetic.Sub: _sub,
    arithmetic.Mul: lambda a, raw, scalar: f"{a[0]} * {a[1]}",
    arithmetic.Div: lambda a, raw, scalar: f"{a[0]} / {a[1]}" if len(raw) < 3 or
    raw[2] is None else None,
    arithmetic.Neg: lambda a, raw, scalar: f"-{a[0]}",
    relu.Function: _relu,
    sqrt.Function: lambda a, raw, scalar: f"np.sqrt({a[0]})",
}


class Pointwise:
    """A fusable op as the plan holds it until `build`: its lines (used as they are when it
    is not fused), the names of its result and ctx, its operands (("array", name, shape)
    or ("const", value)), its raw arguments, rule, and result's shape and dtype."""

    __slots__ = ("lines", "out", "ctx", "operands", "rule", "raw", "shape", "dtype")

    def __init__(self, lines, out, ctx, operands, description):
        self.lines, self.out, self.ctx, self.operands = lines, out, ctx, operands
        self.rule, self.raw, self.shape, self.dtype = description


def fusing() -> bool:
    """Whether plans built now fuse: config.fuse_pointwise, with the numba kernels chosen."""
    return config.fuse_pointwise and kernels.current() == "numba"


def describe(cls, args, kwargs, result):
    """What a `Pointwise` needs of a recorded op beyond its names: (rule, raw arguments,
    shape, dtype), or None when the op is not fused (not in the table, keyword arguments,
    another dtype, a result laid out other than in C order, a constant that is not a
    finite Python number)."""
    rule = _RULES.get(cls)
    if rule is None or kwargs or not isinstance(result, Tensor):
        return None
    data = result._data
    if data.dtype not in _FLOATS or not data.flags.c_contiguous or data.size == 0:
        return None
    for arg in args:
        if isinstance(arg, Tensor):
            if arg._data.dtype != data.dtype or arg._data.ndim > data.ndim:
                return None
        elif arg is not None and (type(arg) not in (int, float) or not np.isfinite(arg)
                                  or abs(arg) > 2 ** 24):
            return None
    if rule(["x"] * len(args), args, "s") is None:
        return None
    return rule, args, data.shape, data.dtype


def fuse(lines: list, returned: set, name_of) -> list:
    """`lines` with every run of two or more fusable ops of one shape and dtype replaced
    by a call of a generated kernel (Pointwise items not fused become their lines).
    `name_of(kernel)` gives the plan's name for a kernel function."""
    names = [set(ARRAY_OR_CTX.findall(code(line))) for line in lines]
    read_elsewhere = set().union(*(n for n, line in zip(names, lines)
                                   if not isinstance(line, Pointwise)))
    out, i = [], 0
    while i < len(lines):
        group = _group_at(lines, i, read_elsewhere)
        if len(group) < 2:
            item = lines[i]
            out += item.lines if isinstance(item, Pointwise) else [item]
            i += 1
            continue
        used = set().union(*names[:i], *names[i + len(group):]) | returned
        if any(op.out in used for op in group):     # else nothing reads what it computes
            try:
                out.append(_kernel_call(group, used, name_of))
            except OSError:     # no cache folder to write to: the ops run one by one
                out += [line for op in group for line in op.lines]
        i += len(group)
    return out


# The names of a plan's arrays and ctxs (a7, c3) in its code.
ARRAY_OR_CTX = re.compile(r"\b[ac][0-9]+\b")


def code(line) -> str:
    """A plan line's code without its comment (a Pointwise item: all its lines)."""
    if isinstance(line, Pointwise):
        return " ".join(text.split("  #", 1)[0] for text in line.lines)
    return (line if isinstance(line, str) else line.text()).split("  #", 1)[0]


def _group_at(lines: list, start: int, read_elsewhere: set) -> list:
    """The run of fusable ops starting at `start`: one shape and dtype, and no ctx that
    another line reads (a backward op that takes the node, arrays it saved)."""
    group = []
    for item in lines[start:]:
        if not isinstance(item, Pointwise) or item.ctx in read_elsewhere or group and (
                item.shape != group[0].shape or item.dtype != group[0].dtype):
            break
        group.append(item)
    return group


def _kernel_call(group: list, used_outside: set, name_of) -> str:
    """The plan line calling the generated kernel of `group`."""
    shape, dtype = group[0].shape, group[0].dtype
    scalar = f"np.{dtype.name}"
    inputs, shapes, local, body, names = [], [], {}, [], []
    for n, op in enumerate(group):
        rendered = []
        for operand in op.operands:
            if operand[0] == "const":
                rendered.append("None" if operand[1] is None else
                                f"{scalar}({float(operand[1])!r})")
            elif operand[1] in local:
                rendered.append(local[operand[1]])
            else:
                if operand[1] not in inputs:
                    inputs.append(operand[1])
                    shapes.append(operand[2])
                k = inputs.index(operand[1])
                rendered.append(f"x{k}[{_index(operand[2], shape)}]")
        names.append(op.lines[-1].rsplit("# ", 1)[-1])
        body.append(f"t{n} = {op.rule(rendered, op.raw, scalar)}  # {names[-1]}")
        local[op.out] = f"t{n}"
    outputs = [op.out for op in group if op.out in used_outside]
    source = _source(shapes, shape, scalar, body, [local[name] for name in outputs])
    kernel = name_of(load(source))
    arguments = ", ".join([repr(tuple(shape))] + inputs)
    return f"{', '.join(outputs)}, = {kernel}({arguments})  # fused: {', '.join(names)}"


def _index(operand_shape: tuple, shape: tuple) -> str:
    """How the loops over `shape` index an operand broadcast to it."""
    if not operand_shape:
        return "()"
    return ", ".join("0" if broadcast else f"i{dim}"
                     for dim, broadcast in _operand_dims(operand_shape, shape))


def _operand_dims(operand_shape: tuple, shape: tuple) -> list:
    """(the result's dim, whether the operand broadcasts along it) for each operand dim."""
    lead = len(shape) - len(operand_shape)
    return [(lead + j, size == 1 and shape[lead + j] != 1)
            for j, size in enumerate(operand_shape)]


def _expected_shape(operand_shape: tuple, shape: tuple) -> str:
    """An operand's shape as the kernel checks it: 1 where it broadcasts, else the size
    of the result's dim (n0, n1 ...)."""
    return "".join("1, " if broadcast else f"n{dim}, "
                   for dim, broadcast in _operand_dims(operand_shape, shape))


def _source(shapes, shape, scalar, body, results) -> str:
    """A kernel module's source: shape checks, the output arrays, the loops. Sizes are
    the kernel's first argument; the source holds only which operand dims broadcast."""
    arguments = ", ".join(["shape"] + [f"x{k}" for k in range(len(shapes))])
    sizes = "".join(f"n{k}, " for k in range(len(shape)))
    checks = " or ".join(f"x{k}.shape != ({_expected_shape(s, shape)})"
                         for k, s in enumerate(shapes) if s)
    lines = ["import numpy as np", "from ember._cpu.numba._common import jit", "",
             "", "@jit",
             f"def kernel({arguments}):"]
    if shape:
        lines.append(f"    {sizes}= shape")
    if checks:
        lines += [f"    if {checks}:",
                  '        raise ValueError("ember.compile: a fused kernel got arrays of '
                  'other shapes than it was made for")']
    lines += [f"    y{k} = np.empty(({sizes}), {scalar})" for k in range(len(results))]
    indent = "    "
    for k in range(len(shape)):
        lines.append(f"{indent}for i{k} in range(n{k}):")
        indent += "    "
    lines += [indent + line for line in body]
    at = ", ".join(f"i{k}" for k in range(len(shape))) or "()"
    lines += [f"{indent}y{k}[{at}] = {result}" for k, result in enumerate(results)]
    lines.append(f"    return ({''.join(f'y{k}, ' for k in range(len(results)))})")
    return "\n".join(lines) + "\n"


def _cache_folder() -> str:
    """config.cache_dir, else $EMBER_CACHE_DIR, else ember's folder in the user's cache."""
    if config.cache_dir:
        return config.cache_dir
    if os.environ.get("EMBER_CACHE_DIR"):
        return os.environ["EMBER_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ember")


def load(source: str):
    """The kernel a source defines, from its file in the cache folder (written, atomically,
    if it is not there yet); numba keeps the compiled code beside it."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    folder = os.path.join(_cache_folder(), "fused")
    path = os.path.join(folder, f"k{digest}.py")
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "w") as file:
            file.write(source)
        os.replace(partial, path)
    name = f"ember_fused_k{digest}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return module.kernel
