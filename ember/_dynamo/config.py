"""torch._dynamo.config: the settings ember's compile reads.

recompile_limit: how many signatures one compiled function traces; calls with further
new signatures run eagerly, with a warning (`cache_size_limit` is its older name).
fail_on_recompile_limit_hit: raise exc.FailOnRecompileLimitHit at the limit instead.
error_on_recompile: raise exc.RecompileError whenever a call needs a new trace.
fuse_pointwise: with the ember[fast] kernels, runs of elementwise ops in a plan become one
generated numba kernel each (`_fusion.py`).
cache_dir: the folder for generated kernels (None: $EMBER_CACHE_DIR, else ~/.cache/ember).
The other names exist so that scripts that set them run; ember's compile does not read
them. `patch(...)` and `get_config_copy()` work as in torch (ember/utils/_config_module.py).
"""
recompile_limit = 8
fail_on_recompile_limit_hit = False
error_on_recompile = False
fuse_pointwise = True
cache_dir = None
accumulated_recompile_limit = 256
skip_code_recursive_on_recompile_limit_hit = True
suppress_errors = False
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
optimize_ddp = True
compiled_autograd = False
guard_nn_modules = True
inline_inbuilt_nn_modules = True
specialize_int = False
specialize_float = False
assume_static_by_default = True
automatic_dynamic_shapes = True
force_parameter_static_shapes = True

from ..utils._config_module import install  # noqa: E402  (the settings above first)

install(__name__, {"cache_size_limit": "recompile_limit",
                   "accumulated_cache_size_limit": "accumulated_recompile_limit",
                   "fail_on_cache_limit_hit": "fail_on_recompile_limit_hit",
                   "skip_code_recursive_on_cache_limit_hit":
                       "skip_code_recursive_on_recompile_limit_hit"})
