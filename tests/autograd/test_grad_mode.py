"""Grad-mode switches (context managers and decorators), in-place rules, versions, detach."""
import warnings

import pytest
import torch

import ember
from oracle import assert_same, check_error


def leaf(lib):
    return lib.tensor([1.0, 2.0, 3.0], requires_grad=True)


def flags(fn):
    """fn(lib) returns plain values that must agree between torch and ember."""
    assert fn(ember) == fn(torch)


def test_no_grad_and_enable_grad_nest():
    def fn(lib):
        x = leaf(lib)
        with lib.no_grad():
            a = x * 2
            with lib.enable_grad():
                b = x * 2
            c = x * 2
        return a.requires_grad, b.requires_grad, c.requires_grad, lib.is_grad_enabled()
    flags(fn)


@pytest.mark.parametrize("bare", [False, True])
def test_decorators(bare):
    def fn(lib):
        x = leaf(lib)
        no_grad = lib.no_grad if bare else lib.no_grad()
        enable_grad = lib.enable_grad if bare else lib.enable_grad()
        inference = lib.inference_mode if bare else lib.inference_mode()

        @no_grad
        def f(v):
            return v * 2

        @enable_grad
        def g(v):
            return v * 2

        @inference
        def h(v):
            return v * 2, lib.is_inference_mode_enabled()

        with lib.no_grad():
            inner = g(x).requires_grad
        return f(x).requires_grad, inner, h(x)[0].requires_grad, h(x)[1], lib.is_grad_enabled()
    flags(fn)


def test_decorator_keeps_function_name():
    @ember.no_grad()
    def my_function():
        return 1
    assert my_function.__name__ == "my_function" and my_function() == 1


def test_set_grad_enabled_as_function_and_context():
    def fn(lib):
        x = leaf(lib)
        with lib.set_grad_enabled(False):
            a = x * 2
            inner = lib.is_grad_enabled()
        after = lib.is_grad_enabled()
        lib.set_grad_enabled(False)
        b = x * 2
        lib.set_grad_enabled(True)

        @lib.set_grad_enabled(False)
        def f(v):
            return v * 2
        return a.requires_grad, inner, after, b.requires_grad, f(x).requires_grad, \
            lib.is_grad_enabled()
    flags(fn)


def test_inference_mode():
    def fn(lib):
        x = leaf(lib)
        with lib.inference_mode():
            a = x * 2
            on = lib.is_inference_mode_enabled()
            with lib.inference_mode(False):
                off = lib.is_inference_mode_enabled()
        return a.requires_grad, on, off, lib.is_inference_mode_enabled(), lib.is_grad_enabled()
    flags(fn)


def test_requires_grad_rules():
    def fn(lib):
        x = lib.ones(2)
        y = x.requires_grad_()
        z = leaf(lib) * 2
        return y is x, x.requires_grad, x.is_leaf, z.is_leaf, z.requires_grad, \
            (lib.ones(3) * z).requires_grad, x.detach().requires_grad
    flags(fn)
    check_error(lambda lib: setattr(leaf(lib) * 2, "requires_grad", False), RuntimeError,
                "^you can only change requires_grad flags of leaf variables")
    check_error(lambda lib: lib.ones(2, dtype=lib.int64).requires_grad_(), RuntimeError,
                "^only Tensors of floating point dtype can require gradients")
    check_error(lambda lib: setattr(lib.ones(2, dtype=lib.int64), "requires_grad", True),
                RuntimeError, "^only Tensors of floating point and complex dtype can require")


def test_integer_results_do_not_require_grad():
    flags(lambda lib: ((leaf(lib) * 2).long().requires_grad, (leaf(lib) > 1).requires_grad))


def test_inplace_on_leaf_requiring_grad():
    check_error(lambda lib: leaf(lib).add_(1), RuntimeError,
                "^a leaf Variable that requires grad is being used in an in-place operation")
    check_error(lambda lib: leaf(lib)[0:2].mul_(2), RuntimeError,
                "^a view of a leaf Variable that requires grad is being used in an in-place")

    def allowed(lib):
        x = leaf(lib)
        with lib.no_grad():
            x.add_(1)
        return x.tolist(), x.requires_grad, x.is_leaf, x._version
    flags(allowed)


def test_modified_by_inplace_error():
    def fn(lib):
        x = leaf(lib)
        y = x.exp()
        z = y.sin()
        y.add_(1)
        z.sum().backward()
    check_error(fn, RuntimeError, "^one of the variables needed for gradient computation has "
                r"been modified by an inplace operation: \[torch.FloatTensor \[3\]\], which is "
                "output 0 of")

    def double(lib):
        x = leaf(lib).double()
        y = x * x
        x.add_(1)
        y.sum().backward()
    check_error(double, RuntimeError, "^one of the variables needed for gradient computation "
                r"has been modified by an inplace operation: \[torch.DoubleTensor \[3\]\], which "
                "is output 0 of")


def test_version_counter():
    def fn(lib):
        x = lib.ones(3)
        v = x[1:]
        d = x.detach()
        versions = [x._version]
        x.add_(1)
        versions += [x._version, v._version, d._version]
        v.mul_(2)
        versions += [x._version, d._version]
        x.data.add_(1)
        versions.append(x._version)
        return versions
    flags(fn)


def test_detach_shares_memory_and_data_does_too():
    def fn(lib):
        x = leaf(lib)
        d = x.detach()
        d[0] = 10.0
        data = x.data
        data[1] = 20.0
        return x.tolist(), d.requires_grad, d.is_leaf, data.requires_grad, d._version
    flags(fn)


def test_detach_in_place():
    def fn(lib):
        y = leaf(lib) * 2
        out = y.detach_()
        return out is y, y.requires_grad, y.grad_fn is None, y.is_leaf
    flags(fn)
    check_error(lambda lib: leaf(lib)[0:2].detach_(), RuntimeError,
                r"^Can't detach views in-place. Use detach\(\) instead")


def test_data_assignment():
    def fn(lib):
        x = leaf(lib)
        x.data = lib.zeros(3)
        (x * 2).sum().backward()
        return x.tolist(), x.grad.tolist(), x.requires_grad
    flags(fn)
