"""torch.backends.mps: never available in ember."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
