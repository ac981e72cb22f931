"""torch.compiler.config: compile's user-facing settings. The names exist so that scripts
that set them run; ember's compile reads recompile_limit from ember._dynamo.config and
none of these."""
job_id = None
cache_key_tag = ""
force_disable_caches = False
dynamic_shapes = True
assume_static_by_default = True
automatic_dynamic_shapes = True

from ..utils._config_module import install  # noqa: E402  (the settings above first)

install(__name__)
