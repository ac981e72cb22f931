"""The op library: one module per family; each op's forward and backward side by side."""


def __getattr__(name: str):
    """torch.ops.<namespace>: custom operators registered with torch.library.custom_op."""
    import importlib
    import importlib.util
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")     # one of ember's op modules
    if name.startswith("_"):
        raise AttributeError(f"module 'torch.ops' has no attribute '{name}'")
    from ._custom import namespace
    return namespace(name)
