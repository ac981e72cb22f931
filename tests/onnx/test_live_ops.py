"""Ops that compute outside Function.apply (comparisons, logic, isnan, argmax, nonzero,
detach, unique, the *_like factories ...) are recorded by the exporter when their input is
live, never frozen into a constant: every public op of ember.ops, Tensor method and
nn.functional function, run under the tracer on a live input, records a node or raises;
the mapped ones run in onnxruntime as in ember. Ops that return Python values warn."""
import importlib
import io
import pkgutil
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F
import ember.ops
from ember._tensor import Tensor
from ember.onnx import _trace
from ember.onnx._symbolic import SYMBOLICS

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

# The ops whose result is not recorded from a live input: factories of explicitly given
# sizes, whose values do not depend on the input's (torch's tracer records them as
# constants too). The sweep fails when this list is wrong in either direction.
SHAPE_ONLY = {"Tensor.new", "Tensor.new_empty", "Tensor.new_ones", "Tensor.new_zeros"}


def _public(names, owner, prefix="") -> dict:
    return {prefix + name: fn for name in names if not name.startswith("_")
            for fn in [getattr(owner, name, None)]
            if callable(fn) and not isinstance(fn, type)}


def _public_ops() -> dict:
    """Every public op of ember.ops, Tensor method and nn.functional function."""
    ops = {}
    for info in pkgutil.walk_packages(ember.ops.__path__, "ember.ops."):
        module = importlib.import_module(info.name)
        ops = _public(getattr(module, "__all__", []), module) | ops
    return ops | _public(dir(Tensor), Tensor, "Tensor.") | _public(dir(F), F, "F.")


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
            with _trace.tracing(_trace.Tracer(graph, SYMBOLICS)), np.errstate(all="ignore"):
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
    assert _frozen_ops(dtype) == SHAPE_ONLY


def test_detach_records_identity():
    graph = _trace.Graph(17, {})
    x = ember.randn(2, 3, requires_grad=True)
    graph.bind(x, "x")
    with _trace.tracing(_trace.Tracer(graph, SYMBOLICS)):
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


# ---------------------------------------------------------------- ops written on Tensors
@pytest.mark.parametrize("fn", [
    lambda x: ember.zeros_like(x) + x, lambda x: ember.ones_like(x, dtype=ember.int64),
    lambda x: ember.full_like(x, 7.0) * x,
    lambda x: ember.tensor(x) * 2, lambda x: ember.scalar_tensor(x[0, 0]) + 1,
    lambda x: ember.isclose(x, x * 1.000001), lambda x: ember.isclose(x, x.flip(1)),
    lambda x: ember.isclose(x, x + 1e-3, rtol=0.1, atol=0.1, equal_nan=True),
    lambda x: ember.isin(x, x[0]), lambda x: ember.isin(x, x[:, 0], invert=True),
    lambda x: ember.unique(x), lambda x: ember.unique(x, return_inverse=True,
                                                      return_counts=True),
])
def test_ops_written_on_tensors(fn):
    _run(fn, np.array([[0.5, -1.0, 3.0], [2.0, 0.5, 3.0]], np.float32))


def test_like_factories_follow_the_runtime_shape():
    buf = io.BytesIO()
    ember.onnx.export(Lambda(lambda x: ember.ones_like(x) + ember.zeros_like(x)),
                      (ember.randn(2, 3),), buf, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    assert [n.op_type for n in onnx.load_from_string(buf.getvalue()).graph.node] == \
        ["Shape", "ConstantOfShape", "Shape", "ConstantOfShape", "Add"]
    session = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(session.run(None, {"x": np.zeros((5, 3), np.float32)})[0],
                                  np.ones((5, 3), np.float32))


def test_one_hot():
    indices = np.array([[2, 0], [1, 3]], np.int64)
    assert _run(lambda x: F.one_hot(x, 5), indices) == ["OneHot"]
    _run(lambda x: F.one_hot(x), indices)


@pytest.mark.parametrize("fn, node", [
    (lambda x: ember.rand_like(x), "RandomUniformLike"),
    (lambda x: ember.randn_like(x, dtype=ember.float64), "RandomNormalLike"),
    (lambda x: ember.normal(x, 0.5), "RandomNormalLike"),
    (lambda x: ember.bernoulli(ember.sigmoid(x)), "Bernoulli"),
])
def test_sampling(fn, node):
    """Random ops export as ONNX's samplers: the runtime's draws have ember's shape and
    dtype (and bernoulli's are 0 or 1)."""
    x = ember.randn(3, 4)
    buf = io.BytesIO()
    ember.onnx.export(Lambda(fn), (x,), buf, input_names=["x"])
    assert node in [n.op_type for n in onnx.load_from_string(buf.getvalue()).graph.node]
    session = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    got, = session.run(None, {"x": x.numpy()})
    expected = fn(x).numpy()
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if node == "Bernoulli":
        assert set(np.unique(got)) <= {0, 1}


@pytest.mark.parametrize("fn, name", [
    (lambda x: ember.poisson(x.abs()), "poisson"),
    (lambda x: ember.randint_like(x, 5), "randint_like"),
    (lambda x: ember.randperm(x[0, 0].long()), "randperm"),
    (lambda x: ember.searchsorted(ember.tensor([0.0, 1.0]), x), "searchsorted"),
    (lambda x: ember.unique_consecutive(x), "unique_consecutive"),
    (lambda x: ember.histc(x, 4), "histc"),
    (lambda x: ember.histogram(x, 4).hist, "histogram"),
])
def test_ops_without_onnx_mapping_are_refused(fn, name):
    with pytest.raises(NotImplementedError, match=f"operator '{name}' has no ONNX mapping"):
        ember.onnx.export(Lambda(fn), (ember.rand(2, 3) + 1,), io.BytesIO())


def test_ops_keep_their_results_under_a_recorder():
    """Run as Functions under a recorder, the ops still return what they return directly:
    a named tuple, into out=, with requires_grad."""
    x = ember.rand(2, 3)
    out = ember.empty(0)
    with ember.profiler.profile():
        hist = ember.histogram(x, 4)
        counted = ember.histc(x, 4, out=out)
        ones = ember.ones_like(x, requires_grad=True)
    assert type(hist) is type(ember.histogram(x, 4)) and counted is out
    np.testing.assert_array_equal(out.numpy(), ember.histc(x, 4).numpy())
    assert ones.requires_grad and ones.grad_fn is None


@pytest.mark.parametrize("fn, op", [
    (lambda x: x * x.sum().item(), "item"), (lambda x: x * float(x.max()), "float"),
    (lambda x: x * int(x.argmax()), "int"), (lambda x: x if bool(x.sum() > 0) else -x, "bool"),
    (lambda x: x * len(x.tolist()), "tolist"), (lambda x: x * ember.equal(x, x), "equal"),
    (lambda x: x * ember.allclose(x, x), "allclose"),
])
def test_python_values_of_live_tensors_warn(fn, op):
    """As torch's tracer: a live tensor turned into a Python value is traced as a constant,
    with a TracerWarning naming the op; a constant tensor's does not warn."""
    with pytest.warns(ember.jit.TracerWarning, match=rf"Converting a tensor to a Python .*"
                                                     rf"\({op}\)"):
        ember.onnx.export(Lambda(fn), (ember.rand(2, 3),), io.BytesIO())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.onnx.export(Lambda(lambda x: x * ember.ones(1).item()), (ember.rand(2, 3),),
                          io.BytesIO())
