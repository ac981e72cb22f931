"""ember's layers: every import points downward (docs/architecture.md, "Layers").

The layer table is read from the architecture page; every module's imports, function-level
ones included, are read with `ast` (nothing is imported or run). A module may import its
own layer and the layers below; only the root package may import upward (it re-exports
every layer), and below the top nothing imports the root package.
"""
from __future__ import annotations

import ast
import fnmatch
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ember"


def layer_table() -> list[tuple[str, list[str]]]:
    """[(layer, module patterns)], bottom layer first, from docs/architecture.md."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("<!-- layers: read by tests/test_layers.py -->")[1]
    block = block.split("<!-- end of layers -->")[0]
    rows = [line for line in block.splitlines() if line.startswith("| ") and "`" in line]
    return [(row.split("|")[1].strip(), re.findall(r"`([^`]+)`", row)) for row in rows]


LAYERS = layer_table()


def layer_of(module: str) -> int:
    for index, (_, patterns) in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(module, pattern) for pattern in patterns):
            return index
    raise AssertionError(f"{module} matches no row of the layer table")


def modules() -> dict[str, pathlib.Path]:
    """{dotted name: file} for every module of the package."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = modules()


def imported_modules(module: str, path: pathlib.Path) -> set[tuple[int, str]]:
    """(line, ember module) for every import in the file, resolved to the most specific
    module it names (`from .ops import shape` names ember.ops.shape)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            candidates = [f"{base}.{alias.name}" for alias in node.names] or [base]
            candidates = [c if c in MODULES else base for c in candidates]
        else:
            continue
        for name in candidates:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("ember") and name != module:
                found.add((node.lineno, name))
    return found


def test_the_table_covers_every_layer_and_ends_with_the_top():
    assert [name for name, _ in LAYERS] == ["foundation", "kernels", "tensor", "autograd",
                                            "ops", "namespaces", "nn", "optim", "top"]
    assert LAYERS[-1][1] == ["*"]
    assert layer_of("ember") == len(LAYERS) - 1


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name != "ember"))
def test_imports_point_downward(module):
    own = layer_of(module)
    upward = []
    for line, target in sorted(imported_modules(module, MODULES[module])):
        if target == "ember" and own < len(LAYERS) - 1:
            upward.append(f"line {line}: the root package ember")
        elif target != "ember" and layer_of(target) > own:
            upward.append(f"line {line}: {target} ({LAYERS[layer_of(target)][0]})")
    assert not upward, f"{module} ({LAYERS[own][0]}) imports upward: {upward}"


def test_the_check_sees_function_level_and_relative_imports(tmp_path):
    # Read as if it were ember/_tensor.py (tensor layer): a function-level
    # `from .ops import shape` there is an upward import.
    path = tmp_path / "_tensor.py"
    path.write_text("def f():\n    from .ops import shape\n    import ember\n")
    assert imported_modules("ember._tensor", path) == {(2, "ember.ops.shape"), (3, "ember")}
    assert layer_of("ember.ops.shape") > layer_of("ember._tensor")
