"""The backward engine against torch: accumulation, retain_graph, create_graph, grad(), hooks."""

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, same




def leaf(lib, values=(1.0, 2.0, 3.0), dtype="float32"):
    return lib.tensor(list(values), dtype=getattr(lib, dtype), requires_grad=True)


def test_grad_accumulates_across_backward_calls():
    def fn(lib):
        x = leaf(lib)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        return x.grad
    same(fn, 1e-6, 1e-5)


def test_backward_with_gradient_argument():
    def fn(lib):
        x = leaf(lib)
        (x * x).backward(lib.tensor([1.0, 0.0, 2.0]))
        return x.grad
    same(fn, 1e-6, 1e-5)


def test_implicit_grad_only_for_scalars():
    check_error(lambda lib: (leaf(lib) * 2).backward(), RuntimeError,
                "^grad can be implicitly created only for scalar outputs")
    check_error(lambda lib: lib.ones(2).sum().backward(), RuntimeError,
                "^element 0 of tensors does not require grad and does not have a grad_fn")
    check_error(lambda lib: (leaf(lib) * 2).backward(lib.ones(2)), RuntimeError,
                r"^Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[2\]\)")


def test_backward_twice_needs_retain_graph():
    def second_backward(lib):
        y = (leaf(lib).exp() * 2).sum()
        y.backward()
        y.backward()
    check_error(second_backward, RuntimeError,
                "^Trying to backward through the graph a second time")

    def retained(lib):
        x = leaf(lib)
        y = (x.exp() * 2).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    same(retained, 1e-6, 1e-5)


def test_second_derivative_of_cube():
    def fn(lib):
        x = leaf(lib, dtype="float64")
        (d,) = lib.autograd.grad((x ** 3).sum(), x, create_graph=True)
        (d2,) = lib.autograd.grad(d.sum(), x)
        return d, d2, d.requires_grad
    same(fn, 1e-6, 1e-5)


def test_backward_create_graph_then_backward_of_grad():
    def fn(lib):
        x = lib.tensor(2.0, requires_grad=True)
        (x * x * x).backward(create_graph=True)
        g = x.grad
        x.grad = None
        g.backward()
        return g.detach(), x.grad
    same(fn, 1e-6, 1e-5)


def test_gradient_penalty_pattern():
    def fn(lib):
        w = lib.tensor([[1.0, 2.0], [3.0, -4.0]], requires_grad=True)
        inp = lib.tensor([[0.5, -1.0], [0.2, 0.3]], requires_grad=True)
        out = (inp @ w).tanh().sum()
        (g,) = lib.autograd.grad(out, inp, create_graph=True)
        penalty = ((g * g).sum(dim=1).sqrt() - 1).pow(2).mean()
        penalty.backward()
        return w.grad, inp.grad
    same(fn, 1e-6, 1e-5)


def test_autograd_grad_options():
    same(lambda lib: lib.autograd.grad((leaf(lib) ** 2).sum(), [leaf(lib)], allow_unused=True),
         1e-6, 1e-5)

    def unused(lib, **kw):
        x, y = leaf(lib), leaf(lib)
        return lib.autograd.grad((x * 2).sum(), [x, y], allow_unused=True, **kw)
    same(unused, 1e-6, 1e-5)
    same(lambda lib: unused(lib, materialize_grads=True), 1e-6, 1e-5)

    def grad_outputs(lib):
        x = leaf(lib)
        return lib.autograd.grad(x * x, x, grad_outputs=lib.tensor([1.0, 2.0, 3.0]))
    same(grad_outputs, 1e-6, 1e-5)

    def nothing_accumulated(lib):
        x = leaf(lib)
        lib.autograd.grad((x * x).sum(), x)
        return x.grad is None
    assert nothing_accumulated(ember) and nothing_accumulated(torch)


def test_autograd_grad_errors():
    def unused(lib):
        x, y = leaf(lib), leaf(lib)
        lib.autograd.grad((x * 2).sum(), [x, y])
    check_error(unused, RuntimeError, "^The differentiated Tensor at index 1 appears to not "
                "have been used in the graph")
    check_error(lambda lib: lib.autograd.grad((leaf(lib) * 2).sum(), lib.ones(3)),
                RuntimeError, "^One of the differentiated Tensors does not require grad")
    check_error(lambda lib: lib.autograd.grad(leaf(lib) * 2, leaf(lib)), RuntimeError,
                "^grad can be implicitly created only for scalar outputs")
    check_error(lambda lib: lib.autograd.grad((leaf(lib) * 2).sum(), []), RuntimeError,
                "^`inputs` argument to `grad\\(\\)` cannot be empty")
    check_error(lambda lib: (leaf(lib) * 2).sum().backward(inputs=[]), RuntimeError,
                "^`inputs` argument to `backward\\(\\)` cannot be empty")

    def freed(lib):
        x = leaf(lib)
        y = (x.exp()).sum()
        lib.autograd.grad(y, x)
        lib.autograd.grad(y, x)
    check_error(freed, RuntimeError, "^Trying to backward through the graph a second time")

    def freed_scalar_product(lib):      # x * 2 saves a number, yet its node is freed too
        y = (leaf(lib) * 2 - 1).sum()
        y.backward()
        y.backward()
    check_error(freed_scalar_product, RuntimeError,
                "^Trying to backward through the graph a second time")


def test_backward_inputs_restricts_accumulation():
    def fn(lib):
        x, y = leaf(lib), leaf(lib)
        (x * y).sum().backward(inputs=[x])
        return x.grad, y.grad is None
    same(fn, 1e-6, 1e-5)


def test_retain_grad_and_leaf_flags():
    def fn(lib):
        x = leaf(lib)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward()
        return y.grad, y.is_leaf, x.is_leaf, y.requires_grad, y.retains_grad
    same(fn, 1e-6, 1e-5)
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf"):
        _ = (leaf(ember) * 2).grad
    check_error(lambda lib: lib.ones(2).retain_grad(), RuntimeError,
                "^can't retain_grad on Tensor that has requires_grad=False")


def test_variable_is_a_new_leaf_sharing_storage():
    # MorvanZhou's 202_variable printed its plain tensor with requires_grad=True: Variable
    # had set the flag on the tensor it wrapped instead of on a new one.
    def fn(lib):
        from_leaf = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        v = lib.autograd.Variable(from_leaf, requires_grad=True)
        (v * v).mean().backward()
        from_leaf.add_(1)  # storage and version counter are shared
        y = lib.ones(2, requires_grad=True) * 2
        w = lib.autograd.Variable(y)
        return (v is from_leaf, from_leaf.requires_grad, v.requires_grad, v.is_leaf, v.grad,
                v, v._version, w.grad_fn is None, w.requires_grad,
                isinstance(from_leaf, lib.autograd.Variable), isinstance(3, lib.autograd.Variable),
                lib.autograd.Variable())
    same(fn)
    check_error(lambda lib: lib.autograd.Variable([1, 2]), TypeError,
                "^Variable data has to be a tensor, but got list")
    check_error(lambda lib: lib.autograd.Variable(lib.ones(2, dtype=lib.long), True),
                RuntimeError, "^Only Tensors of floating point and complex dtype")
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="^volatile was removed and now has no effect"):
            lib.autograd.Variable(lib.ones(2), volatile=True)


def test_tensor_hooks():
    def non_leaf(lib):
        x = leaf(lib)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        y.sum().backward()
        return x.grad

    def on_leaf_with_remove(lib):
        x = leaf(lib)
        handle = x.register_hook(lambda g: g * 10)
        (x * 2).sum().backward()
        handle.remove()
        (x * 2).sum().backward()
        return x.grad

    def observing(lib):
        x = leaf(lib)
        seen = []
        x.register_hook(lambda g: seen.append(g.clone()))
        (x * x).sum().backward()
        return seen[0], x.grad
    same(non_leaf, 1e-6, 1e-5)
    same(on_leaf_with_remove, 1e-6, 1e-5)
    same(observing, 1e-6, 1e-5)
    check_error(lambda lib: lib.ones(2).register_hook(lambda g: g), RuntimeError,
                "^cannot register a hook on a tensor that doesn't require gradient")


def test_node_hooks():
    def fn(lib):
        x = leaf(lib)
        y = x * 2
        order = []
        y.grad_fn.register_prehook(lambda go: order.append("pre") or (go[0] * 3,))
        y.grad_fn.register_hook(lambda gi, go: order.append("post"))
        y.sum().backward()
        return x.grad, order
    same(fn, 1e-6, 1e-5)


def test_post_accumulate_grad_hook():
    def fn(lib):
        x = leaf(lib)
        seen = []
        x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
        (x * 3).sum().backward()
        return seen
    same(fn, 1e-6, 1e-5)
    check_error(lambda lib: (leaf(lib) * 2).register_post_accumulate_grad_hook(print),
                RuntimeError, "^post accumulate grad hooks cannot be registered on non-leaf")


def test_grad_fn_names_and_next_functions():
    def structure(lib):
        x = leaf(lib)
        y = (x * x + lib.ones(3)).exp()
        node = y.grad_fn
        names = [type(node).__name__, node.name()]
        for _ in range(2):
            nxt = node.next_functions
            names.append([(type(f).__name__ if f is not None else None, nr) for f, nr in nxt])
            node = nxt[0][0]
        names.append(type(node.next_functions[0][0]).__name__)
        names.append(node.next_functions[0][0].variable is x)
        return names
    assert structure(ember) == structure(torch)


def test_two_input_next_functions():
    def structure(lib):
        x, w = leaf(lib), lib.ones(3)
        node = (x * w).grad_fn
        return [(type(f).__name__ if f is not None else None, nr) for f, nr in node.next_functions]
    assert structure(ember) == structure(torch)


def test_diamond_graph_and_shared_leaf():
    check(lambda lib, x: (x.exp() * x.sin() + x * x).sum(), (4,), dtype="float64")
    check(lambda lib, x, y: (x * y + x / (y * y + 1)).sum(dim=0), (3, 4), (4,), dtype="float64")


def test_broadcast_gradient_reduced_to_input_shape():
    check(lambda lib, x, y: x * y, (3, 1, 4), (2, 1), dtype="float64")
    check(lambda lib, x, y: x + y, (), (3,), dtype="float32")


def test_grad_assignment_checks():
    check_error(lambda lib: setattr(leaf(lib), "grad", lib.ones(2)), RuntimeError,
                "^attempting to assign a gradient of size '\\[2\\]' to a tensor of size '\\[3\\]'")
    check_error(lambda lib: setattr(leaf(lib), "grad", lib.ones(3, dtype=lib.float64)),
                RuntimeError, "^attempting to assign a gradient with dtype 'double'")
    check_error(lambda lib: setattr(leaf(lib), "grad", [1.0]), TypeError,
                "^assigned grad expected to be a Tensor or None but got grad of type list")


def test_grad_is_a_plain_leaf():
    def fn(lib):
        x = leaf(lib)
        (x * 2).sum().backward()
        return x.grad.requires_grad, x.grad.is_leaf, x.grad.grad_fn is None
    assert fn(ember) == fn(torch)


def test_grad_with_respect_to_a_non_leaf_leaves_its_history_intact():
    """autograd.grad(z, y) stops at y: y's own backward (and what it saved) is untouched,
    so a later backward through y works, as in torch; stacked targets still all arrive."""
    results = []
    for lib in (torch, ember):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        (gy,) = lib.autograd.grad((y * y).sum(), y)
        y.sum().backward()
        y = x.exp()
        w = y.sin()
        grads = lib.autograd.grad((w * y).sum(), (w, y, x))
        results.append([t.detach().numpy() for t in (gy, x.grad) + grads])
    for e, t in zip(results[1], results[0]):
        np.testing.assert_allclose(e, t, rtol=1e-6)


def test_final_callbacks_wait_for_the_outermost_backward_pass():
    """A reentrant checkpoint runs a backward pass inside the outer one: callbacks queued
    by the outer pass (DistributedDataParallel's) must run once, after it has finished."""
    from ember.autograd import engine
    from ember.utils.checkpoint import checkpoint
    x = ember.ones(3, requires_grad=True)
    y = checkpoint(lambda t: (t * 2).sin(), x, use_reentrant=True).sum()
    seen = []
    y.register_hook(lambda g: engine.queue_callback(lambda: seen.append(x.grad is not None)))
    y.backward()
    assert seen == [True] and engine._PASSES.final_callbacks == []
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(2 * np.ones(3)), rtol=1e-6)


@pytest.mark.parametrize("expression", ["x @ x.detach()", "x.detach() @ x", "x @ x",
                                        "x * x.detach() + x"])
def test_an_input_and_its_detached_alias_are_saved_apart(expression):
    """x and x.detach() share one array; a primitive given both still saves each Tensor (so
    the second derivative treats the detached one as a constant), as torch."""
    def second(lib):
        x = lib.tensor(np.arange(9.0).reshape(3, 3), requires_grad=True)
        y = eval(expression, {"x": x})
        g, = lib.autograd.grad((y ** 2).sum(), x, create_graph=True)
        return lib.autograd.grad(g.sum(), x)[0].detach().numpy()
    np.testing.assert_allclose(second(ember), second(torch), rtol=1e-12)


def test_post_accumulate_grad_hook_needs_a_tensor_that_requires_grad():
    check_error(lambda lib: lib.ones(2).register_post_accumulate_grad_hook(print), RuntimeError,
                "^cannot register a hook on a tensor that doesn't require gradient")
