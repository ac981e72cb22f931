"""Saved tensor hooks (torch.autograd.graph.saved_tensors_hooks, save_on_cpu,
disable_saved_tensors_hooks) and a node's saved tensors by name (grad_fn._saved_self),
against torch, following pytorch/tutorials' autograd_saved_tensors_hooks_tutorial."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error, same

X = np.array([0.5, -1.25, 2.0, 3.5], dtype=np.float32)
Y = np.array([1.5, 0.25, -2.0, 0.75], dtype=np.float32)


def _logged(lib, log):
    """A pack/unpack pair that records what it sees and passes tensors through."""
    def pack(t):
        log.append(("pack", tuple(t.shape), t.requires_grad, t.grad_fn is not None,
                    lib.is_grad_enabled()))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape), lib.is_grad_enabled()))
        return t
    return pack, unpack


def test_pack_and_unpack_calls_follow_torch():
    def fn(lib):
        log = []
        a = lib.tensor(X, requires_grad=True)
        b = lib.tensor(Y, requires_grad=True) * 2
        with lib.autograd.graph.saved_tensors_hooks(*_logged(lib, log)):
            y = a * b                    # saves both operands (other first, as torch)
            z = y.exp()                  # saves its result
            w = z.pow(2).sin()           # saves its inputs
        forward = list(log)
        w.sum().backward()
        return forward, log[len(forward):], a.grad
    assert same(fn, rtol=1e-6)       # (exp and sin round float32 apart by an ulp)


def test_no_pack_without_a_graph():
    def fn(lib):
        log = []
        a = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(*_logged(lib, log)):
            with lib.no_grad():
                a * a
            lib.tensor(X) * lib.tensor(Y)
        return log
    assert same(fn) == []


def test_unpacked_value_is_what_backward_uses():
    def fn(lib):
        x = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
            y = lib.pow(x, 2)
        y.sum().backward()
        return x.grad
    same(fn)


@pytest.mark.parametrize("kind", ["index", "tuple", "string"])
def test_pack_may_return_any_object(kind):
    def fn(lib):
        storage = []
        hooks = {
            "index": (lambda t: storage.append(t) or len(storage) - 1, lambda i: storage[i]),
            "tuple": (lambda t: (t - 1, lambda v: v + 1), lambda p: p[1](p[0])),
            "string": (lambda t: t.tolist(), lambda v: lib.tensor(v)),
        }[kind]
        x = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(*hooks):
            y = x * x
        y.sum().backward()
        return x.grad
    same(fn)


def test_unpacked_tensors_stay_in_the_graph_for_double_backward():
    def fn(lib):
        x = lib.tensor(X.astype(np.float64), requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            y = (x * x * x).exp().sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        g2, = lib.autograd.grad(g.sum(), x)
        return g, g2
    same(fn, rtol=1e-12)


def test_custom_function_saves_are_packed():
    def fn(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * x

        log = []
        x = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(*_logged(lib, log)):
            y = Double.apply(x)
        y.sum().backward()
        return log, x.grad
    same(fn)


def test_innermost_pair_applies():
    def fn(lib):
        log = []
        x = lib.tensor(X, requires_grad=True)
        graph = lib.autograd.graph
        with graph.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
            with graph.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t):
                x * x
            x.exp()
        return log
    assert same(fn) == ["inner", "inner", "outer"]


def test_packed_tensors_skip_the_inplace_check():
    # torch no longer watches a packed tensor's version: the hooks may have copied it
    def fn(lib):
        x = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            y = x * 1
            z = y * y
        y.add_(1)
        z.sum().backward()
        return x.grad
    same(fn)


def test_save_on_cpu():
    def fn(lib):
        class Model(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.tensor(Y.astype(np.float64)))

            def forward(self, x):
                with lib.autograd.graph.save_on_cpu(pin_memory=True):
                    return (self.w * x).tanh()

        model = Model()
        loss = model(lib.tensor(X.astype(np.float64))).sum()
        loss.backward()
        with lib.autograd.graph.save_on_cpu():
            y = (model.w * 3).exp()
        y.sum().backward()
        return loss, model.w.grad
    same(fn, rtol=1e-12)


def test_errors():
    def hooks(lib):
        return lib.autograd.graph.saved_tensors_hooks

    def unpack_not_a_tensor(lib):
        x = lib.tensor(X, requires_grad=True)
        with hooks(lib)(lambda t: t, lambda t: 1):
            y = x * x
        y.sum().backward()
    check_error(unpack_not_a_tensor, TypeError,
                "^Output of saved tensor unpack_hook expected to be a Tensor but got result "
                "of type int$")

    def pack_changes_input(lib):
        x = lib.tensor(X, requires_grad=True)
        with hooks(lib)(lambda t: t.add_(1), lambda t: t):
            x * x
    check_error(pack_changes_input, RuntimeError,
                "^A saved tensor pack hook is modifying its input in place. Tensors provided "
                "as input to pack hook cannot be modified by in-place operations")

    def inside_disabled(lib):
        with lib.autograd.graph.disable_saved_tensors_hooks("not here"):
            with hooks(lib)(lambda t: t, lambda t: t):
                pass
    check_error(inside_disabled, RuntimeError, "^not here$")

    def disabled_while_active(lib):
        with hooks(lib)(lambda t: t, lambda t: t):
            with lib.autograd.graph.disable_saved_tensors_hooks("not now"):
                pass
    check_error(disabled_while_active, RuntimeError, "^not now$")


def test_disable_restores_the_outer_refusal():
    def fn(lib):
        graph = lib.autograd.graph
        said = []
        with graph.disable_saved_tensors_hooks("outer"):
            with graph.disable_saved_tensors_hooks("inner"):
                pass
            try:
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            except RuntimeError as e:
                said.append(str(e))
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            said.append("allowed after")
        return said
    assert same(fn) == ["outer", "allowed after"]


# ---------------------------------------------------------------- grad_fn._saved_<name>
def _saved(lib, name, y):
    value = getattr(y.grad_fn, "_saved_" + name)
    return value.detach() if isinstance(value, lib.Tensor) else value


@pytest.mark.parametrize("op, names", [
    (lambda x, y: x * y, ["self", "other"]),
    (lambda x, y: x / y, ["self", "other"]),
    (lambda x, y: x.pow(2), ["self", "exponent"]),
    (lambda x, y: x.exp(), ["result"]),
    (lambda x, y: x.sin(), ["self"]),
    (lambda x, y: x.relu(), ["result"]),
    (lambda x, y: x.tanh(), ["result"]),
    (lambda x, y: x.amax(0), ["self", "result"]),
    (lambda x, y: x.reshape(2, 2) @ y.reshape(2, 2), ["self", "mat2"]),
    (lambda x, y: torch_or_ember(x).nn.functional.mse_loss(x, y), ["self", "target"]),
    (lambda x, y: torch_or_ember(x).nn.functional.gelu(x), ["self"]),
    (lambda x, y: torch_or_ember(x).atan2(x, y), ["self", "other"]),
])
def test_saved_tensors_by_name(op, names):
    def fn(lib):
        x = lib.tensor(X, requires_grad=True)
        y = lib.tensor(Y, requires_grad=True)
        out = op(x, y)
        return [_saved(lib, n, out) for n in names]
    same(fn, rtol=1e-6)


def torch_or_ember(t):
    return torch if isinstance(t, torch.Tensor) else ember


def test_saved_leaf_is_the_tensor_itself_and_result_a_new_one():
    def fn(lib):
        a = lib.tensor(X, requires_grad=True)
        b = lib.tensor(Y, requires_grad=True)
        y = a * b
        e = a.exp()
        return (y.grad_fn._saved_self is a, y.grad_fn._saved_other is b,
                e.grad_fn._saved_result is e, e.grad_fn._saved_result.equal(e))
    assert same(fn) == (True, True, False, True)


def test_saved_names_after_backward_and_unknown_names():
    check_error(lambda lib: _backward_then_read(lib, "_saved_self"), RuntimeError,
                "^Trying to backward through the graph a second time")
    check_error(lambda lib: _backward_then_read(lib, "_saved_nothing"), AttributeError,
                "'PowBackward0' object has no attribute '_saved_nothing'")


def _backward_then_read(lib, name):
    x = lib.tensor(X, requires_grad=True)
    y = x.pow(2)
    y.sum().backward()
    return getattr(y.grad_fn, name)


def test_raw_saved_tensor_register_hooks():
    def fn(lib):
        log = []
        x = lib.tensor(X, requires_grad=True)
        y = x.pow(2)
        raw = y.grad_fn._raw_saved_self
        raw.register_hooks(lambda t: log.append("pack") or t * 2, lambda t: log.append("unpack") or t / 2)
        y.grad_fn._saved_self
        y.sum().backward()
        return log, x.grad
    same(fn)

    def twice(lib):
        y = lib.tensor(X, requires_grad=True).pow(2)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    check_error(twice, RuntimeError, "^Calling register_hooks on a saved tensor whose hooks "
                "have already been set. Hint: only one pair of hooks is allowed at a time.")


def test_compile_runs_eagerly_under_saved_tensor_hooks():
    model = ember.nn.Linear(4, 2)
    compiled = ember.compile(model)
    x = ember.tensor(X.reshape(1, 4))
    compiled(x).sum().backward()
    log = []
    with pytest.warns(UserWarning, match="saved tensor hooks"):
        with ember.autograd.graph.saved_tensors_hooks(lambda t: log.append(1) or t, lambda t: t):
            out = compiled(x)
    assert log and out.grad_fn is not None
