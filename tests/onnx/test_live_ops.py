"""Ops that compute outside Function.apply (comparisons, logic, isnan, argmax, nonzero,
detach ...) are recorded by the exporter when their input is live, never frozen into a
constant: every public op of ember.ops, run under the tracer on a live input, records a node
or raises; the mapped ones run in onnxruntime as in ember."""
import importlib
import io
import pkgutil

import numpy as np
import pytest

import ember
import ember.ops
from ember._tensor import Tensor
from ember.onnx import _trace
from ember.onnx._symbolic import SYMBOLICS

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

# Ops whose result is still computed outside apply from a live input. Each is either
# shape-only (its values do not depend on the input's) or a known gap; the sweep fails when
# this list is wrong in either direction.
SHAPE_ONLY = {"empty_like", "ones_like", "zeros_like", "rand_like", "randn_like", "randperm"}
KNOWN_GAPS = {"bernoulli", "normal", "poisson", "isclose", "isin", "searchsorted", "unique",
              "unique_consecutive", "histc", "histogram", "tensor", "scalar_tensor"}


def _public_ops() -> dict:
    ops = {}
    for info in pkgutil.walk_packages(ember.ops.__path__, "ember.ops."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            fn = getattr(module, name, None)
            if callable(fn) and not isinstance(fn, type):
                ops.setdefault(name, fn)
    return ops


def _call(fn, x, y):
    """fn on the live x with the first argument list it accepts; None if none does."""
    for args in ((x,), (x, y), (x, 1), (x, 0), (x, ember.tensor([0, 1])), (x, [2, 3])):
        try:
            return fn(*args)
        except TypeError:
            continue
    return None


def _frozen_ops(dtype: str) -> set:
    """The ops whose tensor result, from a live input of `dtype`, is not a recorded value."""
    frozen = set()
    base = np.arange(1, 7).reshape(2, 3)
    for name, fn in sorted(_public_ops().items()):
        x = ember.from_numpy((base % 3).astype(dtype))
        y = ember.from_numpy(np.flip(base, 1).astype(dtype))
        graph = _trace.Graph(17, {})
        graph.bind(x, "x")
        graph.bind(y, "y")
        try:
            with _trace.tracing(graph, SYMBOLICS), np.errstate(all="ignore"):
                out = _call(fn, x, y)
        except Exception:       # refused (or invalid for these arguments): not frozen
            continue
        outs = out if isinstance(out, (tuple, list)) else (out,)
        tensors = [o for o in outs if isinstance(o, Tensor)]
        if tensors and not all(graph.is_live(t) for t in tensors):
            frozen.add(name)
    return frozen


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_no_op_freezes_a_live_input(dtype):
    assert _frozen_ops(dtype) <= SHAPE_ONLY | KNOWN_GAPS
    assert {"eq", "gt", "logical_not", "isnan", "argmax", "any", "nonzero"}.isdisjoint(
        _frozen_ops(dtype))


def test_detach_records_identity():
    graph = _trace.Graph(17, {})
    x = ember.randn(2, 3, requires_grad=True)
    graph.bind(x, "x")
    with _trace.tracing(graph, SYMBOLICS):
        y = x.detach()
    assert [n[0] for n in graph.nodes] == ["Identity"] and graph.is_live(y)
    assert not y.requires_grad and y._vc is x._vc
    assert np.shares_memory(y.numpy(), x.detach().numpy())


class Lambda(ember.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def _run(fn, *arrays, opset=17):
    """Export fn on the arrays; the ONNX node types and onnxruntime's outputs, after checking
    them against ember's."""
    inputs = [ember.from_numpy(a) for a in arrays]
    names = [f"in{i}" for i in range(len(inputs))]
    buf = io.BytesIO()
    ember.onnx.export(Lambda(fn), tuple(inputs), buf, input_names=names, opset_version=opset)
    session = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    for scale in (1, -2):       # other values give other results: nothing was frozen
        xs = [a * scale if a.dtype.kind == "f" else a for a in arrays]
        expected = fn(*[ember.from_numpy(a) for a in xs])
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = session.run(None, dict(zip(names, xs)))
        for e, g in zip(expected, got):
            assert g.dtype == e.numpy().dtype
            np.testing.assert_array_equal(g, e.numpy())
    return [n.op_type for n in onnx.load_from_string(buf.getvalue()).graph.node]


X = np.array([[0.5, -1.0, np.nan], [2.0, np.inf, -np.inf]], np.float32)
Y = np.array([[0.5, 1.0, 0.0], [-2.0, 3.0, -np.inf]], np.float32)


@pytest.mark.parametrize("fn, nodes", [
    (lambda x, y: x > y, ["Greater"]), (lambda x, y: x >= 0.5, ["GreaterOrEqual"]),
    (lambda x, y: x < y, ["Less"]), (lambda x, y: x <= y, ["LessOrEqual"]),
    (lambda x, y: x == y, ["Equal"]), (lambda x, y: x != y, ["Equal", "Not"]),
    (lambda x, y: ember.logical_and(x, y), ["And"]),
    (lambda x, y: ember.logical_or(x > 0, y), ["Greater", "Or"]),
    (lambda x, y: ember.logical_xor(x, y), ["Xor"]),
    (lambda x, y: ember.logical_not(x), ["Not"]),
    (lambda x, y: ~(x > y) & (y > 0) | (x < 1) ^ (y < 0), None),
])
def test_comparisons_and_logic(fn, nodes):
    types = _run(fn, X, Y)
    if nodes is not None:
        assert [t for t in types if t != "Cast"] == nodes


@pytest.mark.parametrize("fn, node", [
    (ember.isnan, "IsNaN"), (ember.isinf, "IsInf"), (ember.isposinf, "IsInf"),
    (ember.isneginf, "IsInf"), (ember.isfinite, "IsInf"),
])
def test_predicates(fn, node):
    assert node in _run(lambda x: fn(x), X)


@pytest.mark.parametrize("fn", [
    lambda x: x.argmax(), lambda x: x.argmin(1), lambda x: x.argmax(0, keepdim=True),
    lambda x: (x > 0).any(), lambda x: (x > 0).all(1), lambda x: x.any(0, keepdim=True),
    lambda x: ember.count_nonzero(x > 0, 1), lambda x: ember.nonzero(x > 0),
    lambda x: ember.where(x > 0), lambda x: x.detach() * 2,
])
def test_reductions_indices_and_detach(fn):
    _run(fn, np.nan_to_num(X, posinf=5, neginf=-5))


def test_bitwise_ops():
    a, b = np.array([5, 3, -8], np.int64), np.array([1, 6, 7], np.int64)
    assert _run(lambda x, y: (x & y) | (~x ^ y), a, b, opset=18) == \
        ["BitwiseAnd", "BitwiseNot", "BitwiseXor", "BitwiseOr"]
    with pytest.raises(NotImplementedError, match="'BitwiseAnd' on integer tensors needs "
                                                  "opset_version >= 18"):
        _run(lambda x, y: x & y, a, b)
