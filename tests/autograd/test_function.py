"""User-defined autograd.Function against torch (the examples from torch's docs and more)."""
import pytest

from oracle import check_error, same


def functions(lib):
    """The same user Functions, written once, for torch or ember."""
    class MyReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * (input > 0).to(grad_output.dtype)

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    class ScaleAndDouble(lib.autograd.Function):
        """Non-tensor args, two outputs (one integer), needs_input_grad."""
        @staticmethod
        def forward(ctx, x, k, y, flag=True):
            ctx.k = k
            ctx.needs = ctx.needs_input_grad
            return x * k + y, (x * 2).long()

        @staticmethod
        def backward(ctx, grad, grad_long):
            return grad * ctx.k, None, grad, None

    class DoubleInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class TwoOutputs(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            return grad_a * 2

    class SeesNone(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            ctx.seen = (grad_a is None, grad_b is None)
            return grad_a if grad_a is not None else grad_b

    class ZerosForMissing(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            ctx.seen = (grad_a is None, grad_b is None)
            return grad_a + grad_b

    return dict(MyReLU=MyReLU, Exp=Exp, ScaleAndDouble=ScaleAndDouble,
                DoubleInPlace=DoubleInPlace, TwoOutputs=TwoOutputs, SeesNone=SeesNone,
                ZerosForMissing=ZerosForMissing)


def with_functions(fn):
    """fn(lib, functions) as fn(lib), for the oracle's same()."""
    return lambda lib: fn(lib, functions(lib))


def leaf(lib):
    return lib.tensor([-1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)


@pytest.mark.parametrize("name", ["MyReLU", "Exp"])
def test_doc_examples(name):
    def fn(lib, F):
        x = leaf(lib)
        y = F[name].apply(x)
        (y * y).sum().backward()
        return y, x.grad, type(y.grad_fn).__name__, y.requires_grad, y.is_leaf
    same(with_functions(fn), 1e-6, 1e-5)


def test_non_tensor_args_multiple_outputs_needs_input_grad():
    def fn(lib, F):
        x, y = leaf(lib), lib.ones(3, dtype=lib.float64)
        out, as_long = F["ScaleAndDouble"].apply(x, 3.0, y)
        out.sum().backward()
        return out, as_long, as_long.requires_grad, x.grad, out.grad_fn.needs
    same(with_functions(fn), 1e-6, 1e-5)


def test_mark_dirty():
    def fn(lib, F):
        x = leaf(lib)
        y = x * 1
        z = F["DoubleInPlace"].apply(y)
        z.sum().backward()
        return z is y, type(z.grad_fn).__name__, x.grad, y._version
    same(with_functions(fn), 1e-6, 1e-5)
    check_error(lambda lib: functions(lib)["DoubleInPlace"].apply(leaf(lib)), RuntimeError,
                "^a leaf Variable that requires grad has been used in an in-place operation")


def test_mark_non_differentiable():
    def fn(lib, F):
        x = leaf(lib)
        a, b = F["TwoOutputs"].apply(x)
        a.sum().backward()
        return a.requires_grad, b.requires_grad, x.grad
    same(with_functions(fn), 1e-6, 1e-5)


@pytest.mark.parametrize("name", ["SeesNone", "ZerosForMissing"])
def test_materialize_grads(name):
    def fn(lib, F):
        x = leaf(lib)
        a, b = F[name].apply(x)
        a.sum().backward()
        return x.grad, a.grad_fn.seen
    same(with_functions(fn), 1e-6, 1e-5)


def test_apply_without_grad_records_nothing():
    def fn(lib, F):
        x = leaf(lib)
        with lib.no_grad():
            y = F["Exp"].apply(x)
        z = F["Exp"].apply(lib.ones(2))
        return y.requires_grad, y.grad_fn is None, z.requires_grad
    same(with_functions(fn), 1e-6, 1e-5)


def test_custom_function_double_backward():
    def fn(lib, F):
        x = leaf(lib)
        y = F["Exp"].apply(x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x)
        return g, g2
    same(with_functions(fn), 1e-6, 1e-5)


def test_wrong_number_of_gradients():
    def fn(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad, grad
        Bad.apply(leaf(lib)).sum().backward()
    check_error(fn, RuntimeError,
                "^function BadBackward returned an incorrect number of gradients "
                r"\(expected 1, got 2\)")


def test_saved_tensor_modified_in_place():
    def fn(lib):
        x = leaf(lib) * 1
        y = functions(lib)["MyReLU"].apply(x)
        x.add_(1)
        y.sum().backward()
    check_error(fn, RuntimeError, "^one of the variables needed for gradient computation has "
                "been modified by an inplace operation")


def test_saved_tensors_freed_after_backward():
    def fn(lib):
        x = leaf(lib)
        y = functions(lib)["MyReLU"].apply(x)
        y.sum().backward()
        return y.grad_fn.saved_tensors
    check_error(fn, RuntimeError, "^Trying to backward through the graph a second time")


def test_only_python_function_nodes_have_saved_tensors():
    # torchviz draws saved_tensors of the nodes that have it (custom Functions only) and
    # the _saved_<name> attributes of built-in nodes (the double backward tutorial)
    def fn(lib):
        x = leaf(lib)
        y = functions(lib)["MyReLU"].apply(x) * 2
        nodes = (y.grad_fn, y.grad_fn.next_functions[0][0])
        return ([hasattr(n, "saved_tensors") for n in nodes],
                [[a for a in dir(n) if a.startswith("_saved_")] for n in nodes],
                nodes[1].saved_tensors[0].tolist())
    same(fn)
    check_error(lambda lib: (leaf(lib) * 2).grad_fn.saved_tensors, AttributeError,
                "^'MulBackward0' object has no attribute 'saved_tensors'")


def test_once_differentiable():
    # the conv/bn fusion tutorial marks its hand-written backwards @once_differentiable
    def square(lib):
        from importlib import import_module
        once_differentiable = import_module(lib.__name__ + ".autograd.function").once_differentiable

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @once_differentiable
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                assert not lib.is_grad_enabled()
                return 2 * x * grad
        return Square

    def first(lib):
        x = leaf(lib)
        v = lib.tensor([1.0, 0.5, -2.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(square(lib).apply(x), x, v, create_graph=True)
        (h,) = lib.autograd.grad(square(lib).apply(x).sum(), x, create_graph=True)
        return g, g.requires_grad, g.is_leaf, h.requires_grad, square(lib).backward.__name__
    same(first)

    def twice(lib):
        x = leaf(lib)
        v = lib.ones(3, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(square(lib).apply(x), x, v, create_graph=True)
        g.sum().backward()
    check_error(twice, RuntimeError, "^trying to differentiate twice a function that was "
                "marked with @once_differentiable")


def test_save_for_backward_of_inference_tensors_when_nothing_is_recorded():
    # the conv/bn fusion tutorial evaluates its Function under inference_mode
    def fn(lib):
        relu = functions(lib)["MyReLU"]
        with lib.inference_mode():
            x = lib.tensor([-1.0, 2.0], dtype=lib.float64)
            out = relu.apply(x)
        return out, out.requires_grad
    same(fn)
