"""The function transforms behind ember.func (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap).

eager_transforms.py builds the derivative transforms on ember's reverse-mode autograd;
vmap.py maps a function over a batch dimension by calling it once per slice. Both take
nested tuples / lists / dicts of tensors, flattened with ember.utils._pytree.
"""

from . import config  # noqa: F401,E402  (torch._functorch.config)
