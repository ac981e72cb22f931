"""torch._inductor.config: inductor's settings. ember has no inductor, so it reads none of
them; the common ones are here with torch's defaults, and like any module attribute a
setting of another name is accepted (and ignored). The nested groups (`triton.`, `cpp.`
...) are namespaces that accept any setting the same way."""
from types import SimpleNamespace

coordinate_descent_tuning = False
max_autotune = False
max_autotune_gemm = False
max_autotune_pointwise = False
epilogue_fusion = True
fx_graph_cache = True
freezing = False
benchmark_kernel = False
conv_1x1_as_mm = False
shape_padding = True
layout_optimization = True
compile_threads = 2
debug = False

triton = SimpleNamespace(unique_kernel_names=True, cudagraphs=False, cudagraph_trees=True)
cpp = SimpleNamespace(threads=-1, simdlen=None)
trace = SimpleNamespace(enabled=False)
aot_inductor = SimpleNamespace(output_path="")
cuda = SimpleNamespace()
rocm = SimpleNamespace()
halide = SimpleNamespace()
test_configs = SimpleNamespace()

from ..utils._config_module import install  # noqa: E402  (the settings above first)

install(__name__)
