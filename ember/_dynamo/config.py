"""torch._dynamo.config: the settings ember's compile reads.

recompile_limit: how many signatures one compiled function traces; calls with further
new signatures run eagerly, with a warning.
fuse_pointwise: with the ember[fast] kernels, runs of elementwise ops in a plan become one
generated numba kernel each (`_fusion.py`).
cache_dir: the folder for generated kernels (None: $EMBER_CACHE_DIR, else ~/.cache/ember).
The other names exist so that scripts that set them run; ember's compile does not read
them."""
recompile_limit = 8
fuse_pointwise = True
cache_dir = None
cache_size_limit = 8        # torch's older name for recompile_limit (not read by ember)
accumulated_recompile_limit = 256
suppress_errors = False
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
optimize_ddp = True
compiled_autograd = False
guard_nn_modules = True
specialize_int = False
specialize_float = False
assume_static_by_default = True
automatic_dynamic_shapes = True
force_parameter_static_shapes = True
error_on_recompile = False
