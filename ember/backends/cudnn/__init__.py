"""torch.backends.cudnn's flags (benchmark, deterministic, enabled): settable, no effect."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None
