"""Write torchvision_names.txt: every public class and function torchvision defines, as
"module name" lines (torchvision 0.29.1 for the committed file). Pickles and
torch.serialization allow-lists name objects by these paths, so ember must have each at
the same path under ember.vision (tests/vision/test_module_paths.py). Needs torchvision:
python make_torchvision_names.py
"""
import importlib
import inspect
import os
import pkgutil

import torchvision

# compiled or environment-specific parts with no Python-level classes to mirror
SKIPPED = (".io", "._C", ".image_stable", ".extension", "._meta_registrations",
           "._autograd_registrations", "._internally_replaced_utils", ".prototype", ".version",
           "._register_onnx_ops")


def main() -> None:
    lines = []
    for info in pkgutil.walk_packages(torchvision.__path__, "torchvision."):
        if any(part in info.name for part in SKIPPED):
            continue
        module = importlib.import_module(info.name)
        for name, value in sorted(vars(module).items()):
            if name.startswith("_") or not (inspect.isclass(value) or inspect.isfunction(value)):
                continue
            if getattr(value, "__module__", None) == info.name:
                lines.append(f"{info.name} {name}")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torchvision_names.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
