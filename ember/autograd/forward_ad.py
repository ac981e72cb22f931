"""Forward-mode AD is not implemented in ember; the namespace exists so imports work."""


def dual_level():
    raise NotImplementedError("ember does not implement forward-mode AD (torch.autograd.forward_ad)")


make_dual = unpack_dual = dual_level
