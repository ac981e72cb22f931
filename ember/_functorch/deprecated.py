"""The functorch.* names (torch._functorch.deprecated): the torch.func transforms and
make_functional, each warning once per call that functorch is deprecated, as torch does.
The installed functorch package imports its names from here."""
from __future__ import annotations

import warnings

from . import eager_transforms as _impl
from . import make_functional as _nn_impl
from .vmap import vmap as _vmap

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "functionalize", "make_functional", "make_functional_with_buffers",
           "combine_state_for_ensemble"]


def warn_deprecated(api: str, new_api: str | None = None) -> None:
    new_api = new_api or f"torch.func.{api}"
    warnings.warn(f"We've integrated functorch into PyTorch. As the final step of the "
                  f"integration, `functorch.{api}` is deprecated as of PyTorch 2.0 and will be "
                  f"deleted in a future version of PyTorch >= 2.3. Please use `{new_api}` "
                  "instead; see the PyTorch 2.0 release notes and/or the `torch.func` "
                  "migration guide for more details "
                  "https://pytorch.org/docs/main/func.migrating.html", FutureWarning,
                  stacklevel=3)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.vmap, with functorch's deprecation warning."""
    warn_deprecated("vmap", "torch.vmap")
    return _vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


def grad(func, argnums=0, has_aux=False):
    """torch.func.grad, with functorch's deprecation warning."""
    warn_deprecated("grad")
    return _impl.grad(func, argnums, has_aux)


def grad_and_value(func, argnums=0, has_aux=False):
    """torch.func.grad_and_value, with functorch's deprecation warning."""
    warn_deprecated("grad_and_value")
    return _impl.grad_and_value(func, argnums, has_aux)


def vjp(func, *primals, has_aux=False):
    """torch.func.vjp, with functorch's deprecation warning."""
    warn_deprecated("vjp")
    return _impl.vjp(func, *primals, has_aux=has_aux)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """torch.func.jvp, with functorch's deprecation warning."""
    warn_deprecated("jvp")
    return _impl.jvp(func, primals, tangents, strict=strict, has_aux=has_aux)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """torch.func.jacrev, with functorch's deprecation warning."""
    warn_deprecated("jacrev")
    return _impl.jacrev(func, argnums, has_aux=has_aux, chunk_size=chunk_size,
                        _preallocate_and_copy=_preallocate_and_copy)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """torch.func.jacfwd, with functorch's deprecation warning."""
    warn_deprecated("jacfwd")
    return _impl.jacfwd(func, argnums, has_aux, randomness=randomness)


def hessian(func, argnums=0):
    """torch.func.hessian, with functorch's deprecation warning."""
    warn_deprecated("hessian")
    return _impl.hessian(func, argnums=argnums)


def functionalize(func, *, remove="mutations"):
    """Not supported: ember has no functionalization pass."""
    raise NotImplementedError("functorch.functionalize is not supported by ember")


def make_functional(model, disable_autograd_tracking=False):
    """functorch.make_functional, with its deprecation warning."""
    warn_deprecated("make_functional", "torch.func.functional_call")
    return _nn_impl.make_functional(model, disable_autograd_tracking)


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """functorch.make_functional_with_buffers, with its deprecation warning."""
    warn_deprecated("make_functional_with_buffers", "torch.func.functional_call")
    return _nn_impl.make_functional_with_buffers(model, disable_autograd_tracking)


def combine_state_for_ensemble(models):
    """functorch.combine_state_for_ensemble, with its deprecation warning."""
    warn_deprecated("combine_state_for_ensemble", "torch.func.stack_module_state")
    return _nn_impl.combine_state_for_ensemble(models)
