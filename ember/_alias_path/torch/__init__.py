"""Stands in for `torch` in a process started by multiprocessing (spawn, forkserver) from
one running under the torch alias: ember.compat.install() puts this folder on sys.path,
which such children inherit, so the main script they re-import finds this module first.
It installs the alias in the child and hands back ember in its place."""
import importlib
import sys

del sys.modules[__name__]   # install() refuses while a `torch` module is imported
from ember import compat  # noqa: E402

compat.install()
importlib.import_module(__name__)   # ember, which the import system returns for this one
