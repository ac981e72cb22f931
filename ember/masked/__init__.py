"""torch.masked: reductions and normalizations that leave out the elements a bool mask
marks False, and MaskedTensor, a tensor that carries such a mask.

    torch.masked.sum(x, 1, mask=m)        # sums of the elements where m is True
    mt = torch.masked.masked_tensor(x, m)
    mt.sum(1)                             # the same, as a MaskedTensor
"""
# maskedtensor first: its methods are built on the masked functions below, which in turn
# recognise a MaskedTensor input by its class.
from .maskedtensor import MaskedTensor, as_masked_tensor, is_masked_tensor, masked_tensor
from ._binary import logaddexp
from ._normalizations import cumprod, cumsum, log_softmax, normalize, softmax, softmin
from ._reductions import (amax, amin, argmax, argmin, logsumexp, mean, median, norm, prod, std,
                          sum, var)

__all__ = ["amax", "amin", "argmax", "argmin", "as_masked_tensor", "cumprod", "cumsum",
           "is_masked_tensor", "log_softmax", "logaddexp", "logsumexp", "masked_tensor",
           "MaskedTensor", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin",
           "std", "sum", "var"]
