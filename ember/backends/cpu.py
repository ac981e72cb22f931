"""torch.backends.cpu: what the CPU's vector instructions let kernels use; and ember's own
CPU switches: which kernels run (`kernels`: "numba" with the ember[fast] extra, else
"numpy"; see ember/_cpu/kernels.py) and the opt-in malloc tuning (tune_malloc) that
`ember run` applies."""
from __future__ import annotations

from . import ContextProp, _flags_block, _install_flags
from .._cpu import kernels as _kernels
from .._cpu.allocator import tune_malloc

# torch's __all__; ember's own names (kernels, flags, tune_malloc) stay out of it.
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


_this = _install_flags(__name__, kernels=ContextProp(_kernels.current, _kernels.select))


def flags(kernels: str | None = None):
    """Context manager: run the block with these CPU switches (None leaves one as it is),
    then put the old ones back; e.g. `with ember.backends.cpu.flags(kernels="numpy"):`."""
    return _flags_block(_this, {"kernels": kernels})
