"""Stands in for `torchvision` where `torch` has a stand-in (see ../torch/__init__.py):
importing that one installs the alias, then ember.vision takes this module's place."""
import importlib
import sys

del sys.modules[__name__]   # install() refuses while a `torchvision` module is imported
import torch  # noqa: E402,F401  (the stand-in: installs the alias)

importlib.import_module(__name__)   # ember.vision, which the import system returns for this one
