"""Where a public name is said to live.

ember splits some of torch's large modules into smaller files (torch.nn.functional is
one module, ember.nn.functional a package of families; lr_scheduler's cycling schedules
sit in their own file). Pickles and reprs name an object by its `__module__`, and files
must name torch's path to load in both libraries: `set_public_module` gives each object
the public module it is imported from, as torch's own `__module__` does.
"""
from __future__ import annotations


def set_public_module(module_name: str, *objects) -> None:
    """Make `module_name` the `__module__` of each object (a class or a function)."""
    for obj in objects:
        obj.__module__ = module_name
