"""Removing a reparametrization that lives in a forward pre-hook (weight_norm,
spectral_norm)."""
from __future__ import annotations


def remove_pre_hook(module, kind: type, name: str, label: str) -> None:
    """Undo the `kind` pre-hook of parameter `name` (its remove() restores the
    parameter) and unregister it; ValueError with torch's words when there is none."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return
    raise ValueError(f"{label} of '{name}' not found in {module}")
