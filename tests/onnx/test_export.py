"""ember.onnx.export: exported graphs pass onnx.checker and onnxruntime reproduces ember's
outputs (also at another batch size when the batch axis is dynamic)."""
import io
import math
import sys

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def randn(*shape):
    return ember.tensor(np.random.default_rng(sum(shape)).standard_normal(shape)
                        .astype(np.float32))


def export_and_run(model, *inputs, opset=None, dynamic=False, batches=(), **kwargs):
    """Export, check, run with onnxruntime on `inputs` and on inputs with the other batch
    sizes; compare with ember. Returns the ModelProto."""
    names = [f"in{i}" for i in range(len(inputs))]
    axes = {n: {0: "batch"} for n in names} | {"out": {0: "batch"}} if dynamic else None
    buf = io.BytesIO()
    ember.onnx.export(model, inputs, buf, input_names=names, output_names=["out"],
                      opset_version=opset, dynamic_axes=axes, **kwargs)
    proto = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(proto)
    session = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    model.eval()    # export ran the model in eval mode and restored its mode
    for batch in (None, *batches):
        xs = inputs if batch is None else [randn(batch, *x.shape[1:]) for x in inputs]
        with ember.no_grad():
            expected = model(*xs).numpy()
        got = session.run(None, {n: x.numpy() for n, x in zip(names, xs)})[0]
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    return proto


def op_types(proto):
    return [node.op_type for node in proto.graph.node]


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


# ------------------------------------------------------------- layers built on F (the nn
# conv / norm / pool layer files are written separately; these keep the tests independent)
class Conv2d(nn.Module):
    def __init__(self, cin, cout, k, stride=1, padding=0, groups=1, bias=False, dilation=1):
        super().__init__()
        self.weight = nn.Parameter(randn(cout, cin // groups, k, k) * 0.3)
        self.bias = nn.Parameter(randn(cout) * 0.1) if bias else None
        self.args = (stride, padding, dilation, groups)

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, *self.args)


class BatchNorm2d(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.weight = nn.Parameter(randn(c) * 0.1 + 1)
        self.bias = nn.Parameter(randn(c) * 0.1)
        self.register_buffer("running_mean", randn(c) * 0.1)
        self.register_buffer("running_var", randn(c).abs() + 0.5)

    def forward(self, x):
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training, 0.1, 1e-5)


class LayerNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(randn(d) * 0.1 + 1)
        self.bias = nn.Parameter(randn(d) * 0.1)

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, 1e-5)


class BasicBlock(nn.Module):
    """torchvision's ResNet block: in-place ReLU and `out += identity`."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = Conv2d(cin, cout, 3, stride, 1)
        self.bn1 = BatchNorm2d(cout)
        self.conv2 = Conv2d(cout, cout, 3, 1, 1)
        self.bn2 = BatchNorm2d(cout)
        self.downsample = nn.Sequential(Conv2d(cin, cout, 1, stride), BatchNorm2d(cout)) \
            if stride != 1 or cin != cout else None

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)), inplace=True)
        out = self.bn2(self.conv2(out))
        out += identity
        return F.relu(out, inplace=True)


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = Conv2d(3, 8, 3, 1, 1, bias=True)
        self.layer1 = nn.Sequential(BasicBlock(8, 8), BasicBlock(8, 16, stride=2))
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.stem(x)), 3, 2, 1)
        x = self.layer1(x)
        x = F.adaptive_avg_pool2d(x, (1, 1))
        return self.fc(ember.flatten(x, 1))


class InvertedResidual(nn.Module):
    """MobileNetV2's block: expand 1x1, depthwise 3x3 (groups=channels), ReLU6, project."""

    def __init__(self, c, expand=4):
        super().__init__()
        hidden = c * expand
        self.conv = nn.Sequential(Conv2d(c, hidden, 1), BatchNorm2d(hidden), nn.ReLU6(True),
                                  Conv2d(hidden, hidden, 3, 1, 1, groups=hidden),
                                  BatchNorm2d(hidden), nn.ReLU6(True),
                                  Conv2d(hidden, c, 1), BatchNorm2d(c))

    def forward(self, x):
        return x + self.conv(x)


class Attention(nn.Module):
    """A pre-norm causal self-attention + MLP block (LayerNorm, MatMul, Softmax ...)."""

    def __init__(self, d=16, heads=2, t=6):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = LayerNorm(d), LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d),
                                 nn.Dropout(0.1) if hasattr(nn, "Dropout") else nn.Identity())
        self.register_buffer("mask", ember.tril(ember.ones(t, t)).view(1, 1, t, t))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.mlp(self.ln2(x))


# ------------------------------------------------------------- whole models
def test_mlp_gemm_dynamic_batch():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3), nn.LogSoftmax(dim=1))
    proto = export_and_run(model, randn(2, 4), dynamic=True, batches=(5, 1))
    assert op_types(proto) == ["Gemm", "Relu", "Gemm", "LogSoftmax"]
    assert {i.name for i in proto.graph.initializer} == {"0.weight", "0.bias", "2.weight",
                                                         "2.bias"}
    assert [i.name for i in proto.graph.input] == ["in0"]
    assert [o.name for o in proto.graph.output] == ["out"]
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"


def test_resnet_basic_blocks():
    proto = export_and_run(TinyResNet(), randn(2, 3, 16, 16), dynamic=True, batches=(3,))
    types = op_types(proto)
    for op in ("Conv", "BatchNormalization", "MaxPool", "GlobalAveragePool", "Add", "Flatten",
               "Gemm"):
        assert op in types
    names = {i.name for i in proto.graph.initializer}
    assert {"stem.weight", "layer1.0.bn1.running_mean", "layer1.1.downsample.0.weight"} <= names


def test_mobilenet_inverted_residual():
    proto = export_and_run(InvertedResidual(4), randn(2, 4, 8, 8), dynamic=True, batches=(1,))
    groups = [a.i for n in proto.graph.node if n.op_type == "Conv" for a in n.attribute
              if a.name == "group"]
    assert 16 in groups and "Clip" in op_types(proto)


def test_attention_block():
    proto = export_and_run(Attention(), randn(2, 6, 16), dynamic=True, batches=(3,))
    for op in ("LayerNormalization", "MatMul", "Softmax", "Where", "Split", "Transpose"):
        assert op in op_types(proto)


@pytest.mark.parametrize("opset", [13, 14, 17, 18, 20])
def test_opsets(opset):
    proto = export_and_run(Attention(), randn(2, 6, 16), opset=opset)
    assert proto.opset_import[0].version == opset
    assert proto.ir_version <= 10
    ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])


def test_cnn_flatten_view_dynamic():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = Conv2d(1, 4, 3, 1, "same", bias=True)
            self.fc = nn.Linear(4 * 4 * 4, 3)

        def forward(self, x):
            x = F.avg_pool2d(F.relu(self.conv(x)), 2)
            x = F.dropout(x, 0.5, self.training)
            return self.fc(x.view(x.size(0), -1))
    proto = export_and_run(Net(), randn(2, 1, 8, 8), dynamic=True, batches=(4,))
    assert "Dropout" not in op_types(proto) and "Reshape" in op_types(proto)


# ------------------------------------------------------------- ops one at a time
ACTIVATIONS = {   # called through the namespace, as model code does
    "relu": lambda x: F.relu(x), "relu6": lambda x: F.relu6(x),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2), "sigmoid": lambda x: ember.sigmoid(x),
    "tanh": lambda x: x.tanh(), "gelu": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": lambda x: F.silu(x),
    "hardswish": lambda x: F.hardswish(x), "hardsigmoid": lambda x: F.hardsigmoid(x),
    "elu": lambda x: F.elu(x), "selu": lambda x: F.selu(x), "celu": lambda x: F.celu(x, 0.5),
    "softplus": lambda x: F.softplus(x, beta=2.0), "mish": lambda x: F.mish(x),
    "logsigmoid": lambda x: F.logsigmoid(x), "softsign": lambda x: F.softsign(x),
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 0.5), "softmax": lambda x: F.softmax(x, 1),
    "log_softmax": lambda x: F.log_softmax(x, -1), "softmin": lambda x: F.softmin(x, 1),
}


@pytest.mark.parametrize("opset", [13, 17, 20])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations(name, opset):
    export_and_run(Lambda(ACTIVATIONS[name]), randn(3, 5) * 3, opset=opset)


def test_prelu():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(ember.tensor([0.1, 0.2, 0.3]))

        def forward(self, x):
            return F.prelu(x, self.weight)
    export_and_run(Net(), randn(2, 3, 4, 4))


TENSOR_OPS = {
    "arith": lambda x: (x + 1) * 2 - x / 3 + (1 - x) + 2 / (x.abs() + 1) - x ** 2,
    "unary": lambda x: x.abs().sqrt() + x.exp().tanh() - x.neg().sigmoid() + ember.erf(x),
    "matmul": lambda x: x @ x.transpose(0, 1) + ember.mm(x, x.t()),
    "cat_stack": lambda x: ember.cat([x, x * 2], dim=1).sum(1) + ember.stack([x, x], 0).mean(0)
    .sum(-1),
    "reductions": lambda x: x.mean(1, keepdim=True) + x.sum(dim=1, keepdim=True) + x.amax(1, True),
    "mean_all": lambda x: x.mean() + x.sum(),
    "shape": lambda x: x.unsqueeze(0).permute(2, 0, 1).squeeze(1).reshape(-1).flatten(),
    "expand": lambda x: x[:, :1].expand(-1, 4) + x[:1].expand_as(x),
    "getitem": lambda x: x[1:, ::2] + x[..., None][:-1, 1:4:2, 0] + x[0, :2] + x[-1, 1::2],
    "split_chunk": lambda x: x.split(2, dim=1)[1] + x.chunk(2, 0)[0].sum(0, keepdim=True)[:, :2],
    "rsqrt": lambda x: (x.abs() + 1).rsqrt(),
    "where_clamp": lambda x: ember.where(x > 0, x, x * 0.1) + x.clamp(-0.5, 0.5) +
    ember.maximum(x, x * 2) + ember.minimum(x, -x),
    "compare": lambda x: (x >= 0).float() + (x < 0.5).to(ember.float32) + (x != 0).float(),
    "unbind": lambda x: sum(x.unbind(1)),
    "pow_div": lambda x: ember.pow(x, 2) / (x.abs() + 1) + x.pow(3) * 0.1,
    "pad": lambda x: F.pad(x, (1, 2)) + F.pad(x, (1, 2), value=0.5),
}


@pytest.mark.parametrize("name", sorted(TENSOR_OPS))
def test_tensor_ops(name):
    export_and_run(Lambda(TENSOR_OPS[name]), randn(4, 4))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pad", [((2, 3, 5), (1, 2)), ((2, 3, 4, 5), (1, 2, 0, 3)),
                                        ((1, 2, 3, 4, 5), (1, 0, 2, 1, 1, 1))])
def test_mode_padding(mode, shape, pad):
    """One Pad node per F.pad call; circular padding is ONNX's 'wrap' mode (opset 19)."""
    proto = export_and_run(Lambda(lambda x: F.pad(x, pad, mode=mode) * 2), randn(*shape),
                           opset=19 if mode == "circular" else None)
    ops = [n.op_type for n in proto.graph.node]
    assert ops.count("Pad") == 1 and "Gather" not in ops


def test_circular_padding_needs_opset_19():
    with pytest.raises(NotImplementedError, match="circular padding needs opset_version >= 19"):
        ember.onnx.export(Lambda(lambda x: F.pad(x, (1, 1), mode="circular")),
                          (randn(2, 3, 4),), io.BytesIO())


def test_embedding_gather():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(randn(10, 3))

        def forward(self, idx):
            return F.embedding(idx, self.weight).mean(1)
    idx = ember.tensor([[1, 2, 3], [9, 0, 0]])
    export_and_run(Net(), idx)


@pytest.mark.parametrize("kwargs", [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                    dict(kernel_size=2, dilation=2)])
def test_max_pool_options(kwargs):
    export_and_run(Lambda(lambda x: F.max_pool2d(x, **kwargs)), randn(1, 2, 9, 9))


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool_padding(count_include_pad):
    export_and_run(Lambda(lambda x: F.avg_pool2d(x, 3, 2, 1,
                                                 count_include_pad=count_include_pad)),
                   randn(1, 2, 8, 8))


def test_adaptive_pool_divisible():
    proto = export_and_run(Lambda(lambda x: F.adaptive_avg_pool2d(x, 2) +
                                  F.adaptive_max_pool2d(x, 2)), randn(1, 2, 8, 8))
    assert {"AveragePool", "MaxPool"} <= set(op_types(proto))


@pytest.mark.parametrize("fn, nodes", [
    (lambda x: F.adaptive_avg_pool2d(x, 3), None),      # 8 -> 3 does not divide
    (lambda x: x.flatten(), ["Reshape"]), (lambda x: x.flatten(1, 2), ["Reshape"]),
    (lambda x: x.flatten(1), ["Flatten"]),
])
def test_composites_not_written_whole(fn, nodes):
    """Calls that torch's single nodes do not express are exported from their primitives."""
    proto = export_and_run(Lambda(fn), randn(1, 2, 8, 8))
    assert "AveragePool" not in op_types(proto) and "BatchNormalization" not in op_types(proto)
    if nodes is not None:
        assert op_types(proto) == nodes


def test_training_mode_batch_norm_is_refused():
    with pytest.raises(NotImplementedError, match="'batch_norm' has no ONNX mapping"):
        ember.onnx.export(Lambda(lambda x: F.batch_norm(x, ember.zeros(2), ember.ones(2),
                                                        training=True)),
                          randn(1, 2, 4, 4), io.BytesIO())


def test_conv_options():
    conv = Conv2d(4, 6, 3, stride=2, padding=2, groups=2, bias=True, dilation=2)
    export_and_run(conv, randn(2, 4, 11, 11))


def test_float64_model():
    lin = nn.Linear(3, 2).double()
    x = ember.tensor(np.ones((2, 3)), dtype=ember.float64)
    export_and_run(Lambda(lambda x: lin(x) * 2 + 1), x)


# ------------------------------------------------------------- export options
def test_file_path_and_eval_mode_restored(tmp_path):
    model = nn.Sequential(nn.Linear(3, 2))
    model.train()
    path = tmp_path / "m.onnx"
    ember.onnx.export(model, (randn(1, 3),), str(path))
    assert model.training
    onnx.checker.check_model(onnx.load(str(path)))


def test_export_params_false_makes_inputs():
    model = nn.Linear(3, 2)
    buf = io.BytesIO()
    ember.onnx.export(model, randn(1, 3), buf, export_params=False)
    proto = onnx.load_from_string(buf.getvalue())
    assert not proto.graph.initializer
    assert {i.name for i in proto.graph.input} == {"input", "weight", "bias"}


def test_keep_initializers_as_inputs_and_no_folding():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(randn(3, 3))

        def forward(self, x):
            return x @ (self.w * 2).t()
    proto = export_and_run(Net(), randn(2, 3), do_constant_folding=False,
                           keep_initializers_as_inputs=True)
    assert "w" in {i.name for i in proto.graph.input}
    assert "Transpose" in op_types(proto)
    folded = export_and_run(Net(), randn(2, 3))
    assert op_types(folded) == ["MatMul"]


def test_multiple_outputs_and_inputs():
    model = Lambda(lambda x, y: (x + y, x * y))
    buf = io.BytesIO()
    ember.onnx.export(model, (randn(2, 2), randn(2, 2)), buf, input_names=["a", "b"],
                      output_names=["s", "p"])
    session = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    a, b = randn(2, 2), randn(2, 2)
    s, p = session.run(["s", "p"], {"a": a.numpy(), "b": b.numpy()})
    np.testing.assert_allclose(s, (a + b).numpy())
    np.testing.assert_allclose(p, (a * b).numpy())


# ------------------------------------------------------------- errors
def test_unmapped_op_is_named():
    with pytest.raises(NotImplementedError, match="operator 'cumsum' has no ONNX mapping"):
        ember.onnx.export(Lambda(lambda x: x.cumsum(0)), randn(2, 2), io.BytesIO())


def test_sparse_input_reaches_the_unmapped_op_error():
    sparse = ember.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse()
    with pytest.raises(NotImplementedError, match="'sparse_mm' has no ONNX mapping"):
        ember.onnx.export(Lambda(lambda s, d: s @ d), (sparse, randn(2, 2)), io.BytesIO())


def test_unmapped_primitive_is_named():
    class Double(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    with pytest.raises(NotImplementedError, match="operator 'Double' has no ONNX mapping"):
        ember.onnx.export(Lambda(lambda x: Double.apply(x)), randn(2, 2), io.BytesIO())


def _attributes_of_ember() -> dict:
    """Every attribute of every ember module, of Tensor and of Function, by identity."""
    owners = [m for n, m in sorted(sys.modules.items()) if n == "ember" or
              n.startswith("ember.")] + [ember.Tensor, ember.autograd.Function]
    return {(id(owner), name): id(value) for owner in owners
            for name, value in list(vars(owner).items())}


def test_export_modifies_no_module_attribute():
    ember.onnx.export(nn.Linear(2, 2), randn(1, 2), io.BytesIO())   # imports onnx
    before = _attributes_of_ember()
    during = []

    def forward(x):
        during.append(_attributes_of_ember())
        return F.relu(x) + 1
    ember.onnx.export(Lambda(forward), randn(1, 2), io.BytesIO())
    assert during[0] == before and _attributes_of_ember() == before
    with pytest.raises(NotImplementedError, match="cumsum"):     # fails midway
        ember.onnx.export(Lambda(lambda x: (F.relu(x) + 1).cumsum(0)), randn(2, 2),
                          io.BytesIO())
    assert _attributes_of_ember() == before


def test_other_threads_are_not_traced():
    """Ops another thread runs during an export are neither recorded nor refused."""
    import threading
    started, finish = threading.Event(), threading.Event()
    inputs, results = [], []

    def other_thread():     # works on the traced input: cumsum would stop a traced thread
        started.wait()
        results.append((inputs[0].cumsum(0) + 1).numpy())
        finish.set()

    def forward(x):
        inputs.append(x)
        started.set()
        assert finish.wait(10)
        return x * 2

    worker = threading.Thread(target=other_thread)
    worker.start()
    proto = export_and_run(Lambda(forward), randn(2, 2))
    worker.join()
    assert op_types(proto) == ["Mul"]
    np.testing.assert_allclose(results[0], randn(2, 2).numpy().cumsum(0) + 1)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(dynamo=True), NotImplementedError, "dynamo"),
    (dict(opset_version=12), ValueError, "Unsupported ONNX opset version: 12"),
    (dict(export_modules_as_functions=True), NotImplementedError,
     "export_modules_as_functions"),
    (dict(training=ember.onnx.TrainingMode.TRAINING), NotImplementedError, "training"),
])
def test_refused_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        ember.onnx.export(nn.Linear(2, 2), randn(1, 2), io.BytesIO(), **kwargs)


def test_missing_onnx_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match=r"pip install ember\[onnx\]"):
        ember.onnx.export(nn.Linear(2, 2), randn(1, 2), io.BytesIO())


def test_import_ember_does_not_import_onnx():
    import subprocess
    code = "import sys, ember; print('onnx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False"
