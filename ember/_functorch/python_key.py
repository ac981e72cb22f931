"""torch._functorch.python_key: functorch imports make_fx from here; ember has no FX
tracing, so it raises when called."""


def make_fx(f, *args, **kwargs):
    """Not supported: ember has no torch.fx graphs."""
    raise NotImplementedError("make_fx is not supported by ember (no torch.fx graphs)")
