"""ember.compat: `import torch` resolving to ember. Each check runs in a fresh interpreter,
so this process's real torch is left alone."""
import subprocess
import sys
import textwrap

import pytest


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)


def test_torch_imports_resolve_to_ember():
    result = run("""
        import ember, ember.compat
        ember.compat.install()
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.optim.lr_scheduler
        import torch.nn.modules.module
        from torch import nn as nn2, optim
        from torch.utils.data import DataLoader, Dataset
        assert torch is ember and nn is ember.nn and nn2 is nn and F is ember.nn.functional
        assert optim is ember.optim and torch.optim.lr_scheduler is ember.optim.lr_scheduler
        assert torch.nn.modules.module.Module is ember.nn.Module
        assert DataLoader is ember.utils.data.DataLoader
        import sys
        assert sys.modules["torch.nn"] is ember.nn
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"


def test_torchvision_maps_to_ember_vision():
    result = run("""
        import importlib.util, ember.compat
        ember.compat.install()
        try:
            import torchvision
        except ModuleNotFoundError as e:
            print("missing:", e)
        else:
            import ember.vision
            print(torchvision is ember.vision)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout in ("True\n", "missing: No module named 'torchvision' (ember has no "
                                       "'ember.vision' to stand in for it)\n")


def test_missing_submodule_names_both_modules():
    result = run("""
        import ember.compat
        ember.compat.install()
        try:
            import torch.no_such_module
        except ModuleNotFoundError as e:
            print(type(e).__name__, e.name, "|", e)
    """)
    assert result.stdout == ("ModuleNotFoundError torch.no_such_module | No module named "
                             "'torch.no_such_module' (ember has no 'ember.no_such_module' to "
                             "stand in for it)\n"), result.stderr


def test_refuses_when_real_torch_is_imported_and_uninstall_restores_it():
    result = run("""
        import ember.compat
        ember.compat.install()
        import torch
        assert torch.__name__ == "ember" and ember.compat.is_installed()
        ember.compat.uninstall()
        assert not ember.compat.is_installed()
        import torch
        assert torch.__name__ == "torch", torch.__name__
        try:
            ember.compat.install()
        except RuntimeError as e:
            print(e)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ember.compat.install(): 'torch' is already imported")


def test_install_twice_is_harmless():
    result = run("""
        import sys, ember.compat
        ember.compat.install(); ember.compat.install()
        import torch
        print(sum(type(f).__name__ == "_TorchAliasFinder" for f in sys.meta_path))
    """)
    assert result.stdout == "1\n", result.stderr


def test_installed_alias_answers_torch_metadata():
    """accelerate reads importlib.metadata.version("torch") at import: with the alias
    installed it gets the torch release ember claims, real torch installed or not."""
    result = run("""
        import importlib.metadata as md
        import ember, ember.compat
        ember.compat.install()
        print(md.version("torch"), md.distribution("torch").metadata["Name"])
        print("torch" in md.packages_distributions().get("torch", []))
        print(md.version("numpy") == __import__("numpy").__version__)
        ember.compat.uninstall()
        try:
            md.distribution("torch").metadata["Name"]
        except md.PackageNotFoundError:
            pass
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{__import__('ember').__version__} torch\nTrue\nTrue\n"
