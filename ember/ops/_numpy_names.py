"""NumPy's keyword names for torch's: torch accepts `axis=` for `dim=` and `keepdims=` for
`keepdim=` in every function and method that has those parameters (torch.sum(x, axis=0),
x.all(axis=-1, keepdims=True)). `accept_numpy_names` gives an op that understands them."""
from __future__ import annotations

import functools
import inspect

# torch's parameter name -> the NumPy spelling it also answers to
_NUMPY_NAME = {"dim": "axis", "keepdim": "keepdims"}


def accept_numpy_names(fn):
    """fn, or a wrapper of it that renames axis= / keepdims= to the parameters fn has."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    renames = {alias: name for name, alias in _NUMPY_NAME.items()
               if name in params and alias not in params}
    if not renames:
        return fn

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if kwargs and not renames.keys().isdisjoint(kwargs):
            for alias in renames.keys() & kwargs.keys():
                name = renames[alias]
                if name in kwargs:          # torch's words: the alias is then unknown
                    raise TypeError(f"{fn.__name__}() got an unexpected keyword argument "
                                    f"'{alias}'")
                kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    return op
