"""torch._functorch.config: AOT autograd's settings. ember's compile reads none of them
(its AOT split is in ember/_dynamo/_aot.py); the common ones are here with torch's
defaults, and a setting of another name is accepted (and ignored) like any module
attribute."""
donated_buffer = True
activation_memory_budget = 1.0
recompute_views = False
cse = True

from ..utils._config_module import install  # noqa: E402  (the settings above first)

install(__name__)
