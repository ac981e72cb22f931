"""ember.utils.hooks against torch.utils.hooks."""
import warnings

import pytest
import torch
import torch.utils.hooks

import ember
import ember.utils.hooks
from ember.autograd.graph import RemovableHandle


def test_removable_handle_is_the_autograd_one():
    assert ember.utils.hooks.RemovableHandle is RemovableHandle


def test_removable_handle_removes_and_works_as_context_manager():
    hooks = {}
    handle = RemovableHandle(hooks)
    hooks[handle.id] = print
    with handle:
        assert handle.id in hooks
    assert handle.id not in hooks
    handle.remove()     # removing twice is harmless
    assert RemovableHandle(hooks).id > handle.id


@pytest.mark.parametrize("lib", [torch, ember])
def test_handle_from_register_hook_removes_the_hook(lib):
    x = lib.ones(2, requires_grad=True)
    seen = []
    handle = x.register_hook(lambda g: seen.append(g))
    assert isinstance(handle, lib.utils.hooks.RemovableHandle)
    handle.remove()
    (x * 2).sum().backward()
    assert seen == []


def test_unserializable_hook_marks_the_function():
    def hook(grad):
        return grad
    assert ember.utils.hooks.unserializable_hook(hook) is hook
    assert hook.__torch_unserializable__ is True


@pytest.mark.parametrize("lib", [torch, ember])
@pytest.mark.parametrize("leaf", [True, False])
def test_warn_if_has_hooks(lib, leaf):
    x = lib.ones(2, requires_grad=True)
    t = x if leaf else x * 2

    def plain(grad):
        return grad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lib.utils.hooks.warn_if_has_hooks(t)     # no hooks: silent
    t.register_hook(lib.utils.hooks.unserializable_hook(lambda g: g))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lib.utils.hooks.warn_if_has_hooks(t)     # only marked hooks: silent
    t.register_hook(plain)
    with pytest.warns(UserWarning, match=r"backward hook <function .*plain.* on tensor will "
                      r"not be serialized.  If this is expected, you can decorate"):
        lib.utils.hooks.warn_if_has_hooks(t)


def test_warn_if_has_hooks_ignores_other_outputs_hooks():
    a, b = ember.ones(2, 3, requires_grad=True).unbind(0)
    b.register_hook(lambda g: g)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.utils.hooks.warn_if_has_hooks(a)
