"""torch.backends.cpu: what the CPU's vector instructions let kernels use."""
from __future__ import annotations

__all__ = ["get_cpu_capability"]

# torch's names for the vector-instruction levels, best first, with the features (in NumPy's
# names) each one needs.
_LEVELS = (("AVX512", ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ", "FMA3")),
           ("AVX2", ("AVX2", "FMA3")))


def get_cpu_capability() -> str:
    """The best vector-instruction level of this CPU in torch's words: "AVX512", "AVX2" or
    "DEFAULT". ember asks NumPy, which detects the same features at import; the kernels
    that use them are NumPy's and BLAS's."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:           # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as features
    for name, needed in _LEVELS:
        if all(features.get(feature) for feature in needed):
            return name
    return "DEFAULT"
