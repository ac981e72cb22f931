"""torch.backends against real torch's CPU build: names, flag defaults, setters and their
errors, the flags() context managers, and the switches that do act on the CPU (the
scaled-dot-product-attention kernels, float32 matmul precision)."""
import contextlib
import functools
import re
import types
import warnings

import pytest
import torch

import ember
from oracle import check_error

SUBMODULES = ["cpu", "cuda", "cudnn", "cusparselt", "kleidiai", "mha", "miopen", "mkl", "mkldnn",
              "mps", "nnpack", "openmp", "opt_einsum", "quantized"]
# torch's machinery for putting properties on modules, not part of what a module offers.
TORCH_MACHINERY = {"ContextProp", "PropModule", "GenericModule", "CudnnModule", "MkldnnModule",
                   "MiopenModule", "OptEinsumModule", "QuantizedEngine", "TYPE_CHECKING"}


def _public_names(module) -> set:
    """What a torch.backends module defines: its own functions, classes and values and the
    properties of its module class, but not what it imports."""
    names = set()
    for source in (vars(getattr(module, "m", module)), vars(type(module))):
        for name, value in source.items():
            owner = getattr(value, "__module__", None) or ""
            imported = callable(value) and not owner.startswith("torch.backends")
            if not (name.startswith("_") or name == "m" or imported
                    or isinstance(value, types.ModuleType) or name in TORCH_MACHINERY):
                names.add(name)
    return names


@pytest.mark.parametrize("name", [None] + SUBMODULES)
def test_every_public_name_of_torch_exists(name):
    theirs = torch.backends if name is None else getattr(torch.backends, name)
    ours = ember.backends if name is None else getattr(ember.backends, name)
    assert isinstance(ours, types.ModuleType)
    missing = sorted(n for n in _public_names(theirs) if not hasattr(ours, n))
    assert not missing, missing
    if hasattr(theirs, "__all__"):
        assert sorted(ours.__all__) == sorted(theirs.__all__)


def _get(lib, path: str):
    """lib.backends.<path>, calling it when path ends with '()'."""
    value = functools.reduce(getattr, path.removesuffix("()").split("."), lib.backends)
    return value() if path.endswith("()") else value


SAME_AS_TORCH = [
    "fp32_precision", "flags_frozen()", "cudnn.enabled", "cudnn.benchmark",
    "cudnn.benchmark_limit", "cudnn.deterministic", "cudnn.allow_tf32", "cudnn.fp32_precision",
    "cudnn.depthwise_kernel", "cudnn.conv.fp32_precision", "cudnn.rnn.fp32_precision",
    "cudnn.version()", "cudnn.is_available()", "mkldnn.enabled", "mkldnn.deterministic",
    "mkldnn.fp32_precision", "mkldnn.matmul.fp32_precision", "mkldnn.conv.fp32_precision",
    "mkldnn.rnn.fp32_precision", "mkldnn.is_acl_available()", "mkldnn.VERBOSE_ON_CREATION",
    "mkl.VERBOSE_ON", "cuda.is_built()", "cuda.matmul.allow_tf32",
    "cuda.matmul.allow_fp16_reduced_precision_reduction",
    "cuda.matmul.allow_fp16_reduced_precision_reduction_split_k",
    "cuda.matmul.allow_bf16_reduced_precision_reduction",
    "cuda.matmul.allow_bf16_reduced_precision_reduction_split_k",
    "cuda.matmul.allow_fp16_accumulation", "cuda.matmul.fp32_precision",
    "cuda.flash_sdp_enabled()", "cuda.mem_efficient_sdp_enabled()", "cuda.math_sdp_enabled()",
    "cuda.cudnn_sdp_enabled()", "cuda.fp16_bf16_reduction_math_sdp_allowed()",
    "cuda.is_flash_attention_available()", "cuda.is_ck_sdpa_available()",
    "miopen.immediate", "mps.is_built()", "mps.is_available()", "cusparselt.is_available()",
    "cusparselt.version()", "cusparselt.get_max_alg_id()", "kleidiai.is_available()",
    "opt_einsum.is_available()", "opt_einsum.enabled", "opt_einsum.strategy",
    "opt_einsum.get_opt_einsum()", "mha.get_fastpath_enabled()", "cpu.get_cpu_capability()"]


# torch uses the opt_einsum package when it is installed (jax brings it along); ember never
# does, so its opt_einsum flags are compared with a torch that lacks the package.
TORCH_USES_OPT_EINSUM = torch.backends.opt_einsum.is_available()
without_opt_einsum = pytest.mark.skipif(TORCH_USES_OPT_EINSUM, reason="opt_einsum is "
                                        "installed: torch uses it, ember does not")


@pytest.mark.parametrize("path", [pytest.param(p, marks=without_opt_einsum)
                                  if p.startswith("opt_einsum.") else p for p in SAME_AS_TORCH])
def test_defaults_match_a_torch_cpu_build(path):
    assert _get(ember, path) == _get(torch, path)


@pytest.mark.parametrize("name", ["preferred_linalg_library", "preferred_blas_library",
                                  "preferred_rocm_fa_library"])
def test_preferred_library_defaults(name):
    assert repr(getattr(ember.backends.cuda, name)()) == repr(getattr(torch.backends.cuda, name)())


def test_cpu_libraries_ember_lacks_are_not_available():
    # torch's CPU build has these; ember computes with NumPy instead.
    for name in ["mkldnn", "mkl", "openmp", "nnpack"]:
        assert getattr(ember.backends, name).is_available() is False
    assert ember.backends.quantized.engine == "none"
    assert ember.backends.quantized.supported_engines == ["none"]


def test_flags_context_managers_set_and_restore_like_torch():
    blocks = [("cudnn", dict(enabled=True, benchmark=True, deterministic=True,
                             fp32_precision="tf32", depthwise_kernel="native")),
              ("cudnn", {}), ("mkldnn", dict(enabled=True, deterministic=True,
                                             fp32_precision="bf16")),
              ("miopen", dict(immediate=True)), ("nnpack", dict(enabled=True)),
              ("opt_einsum", dict(enabled=False)), (None, dict(fp32_precision="ieee"))]
    for name, kwargs in blocks:
        if name == "opt_einsum" and TORCH_USES_OPT_EINSUM:
            continue
        # A module's own flags. torch derives the precisions of backends and of their
        # operations (cudnn.conv ...) from the generic one; ember keeps each as set (see
        # backends.FP32Precision).
        read = ([p for p in SAME_AS_TORCH if p.startswith(f"{name}.") and p.count(".") == 1]
                if name else ["fp32_precision"])
        with contextlib.ExitStack() as stack:
            for lib in (torch, ember):
                owner = lib.backends if name is None else getattr(lib.backends, name)
                stack.enter_context(owner.flags(**kwargs))
            assert [_get(ember, p) for p in read] == [_get(torch, p) for p in read], name
        assert [_get(ember, p) for p in read] == [_get(torch, p) for p in read], name


def test_set_flags_returns_the_previous_values_like_torch():
    order = ["enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32",
             "fp32_precision", "depthwise_kernel"]
    returned = []
    for lib in (torch, ember):
        cudnn = lib.backends.cudnn
        before = tuple(getattr(cudnn, name) for name in order)
        previous = cudnn.set_flags(_benchmark=True, _deterministic=True)
        assert previous == before
        assert cudnn.set_flags(*previous)[1:4:2] == (True, True)
        assert tuple(getattr(cudnn, name) for name in order) == before
        mkldnn = lib.backends.mkldnn.set_flags()
        # torch 2.13 reads mkldnn.allow_tf32 back as None (see ember/backends/mkldnn.py).
        returned.append((previous, mkldnn[:2] + mkldnn[3:], lib.backends.set_flags()))
    assert returned[1] == returned[0]


def test_assignment_sets_a_flag():
    cudnn = ember.backends.cudnn
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        assert cudnn.benchmark and cudnn.deterministic
    finally:
        cudnn.benchmark = cudnn.deterministic = False


def _set(path: str, value):
    """lib -> assign lib.backends.<path> = value."""
    owner, name = path.rsplit(".", 1) if "." in path else ("", path)
    return lambda lib: setattr(_get(lib, owner) if owner else lib.backends, name, value)


@pytest.mark.parametrize("fn", [
    _set("cudnn.enabled", 3), _set("cudnn.benchmark", "yes"), _set("cudnn.deterministic", None),
    _set("cudnn.allow_tf32", 1), _set("mkldnn.enabled", 0), _set("mkldnn.deterministic", 1),
    _set("miopen.immediate", 1), _set("cudnn.depthwise_kernel", "bogus"),
    _set("cudnn.depthwise_kernel", 3), _set("fp32_precision", "bogus"),
    _set("cudnn.fp32_precision", "bf16"), _set("cudnn.conv.fp32_precision", "bf16"),
    _set("cuda.matmul.fp32_precision", "bf16"), _set("mkldnn.matmul.fp32_precision", "fp16"),
    _set("cuda.matmul.foo", 1), _set("cuda.matmul.allow_fp16_reduced_precision_reduction", 1),
    _set("cuda.matmul.allow_bf16_reduced_precision_reduction", ()),
    _set("cuda.matmul.allow_bf16_reduced_precision_reduction", (True, False, True)),
    _set("cuda.matmul.allow_fp16_reduced_precision_reduction", (True, 1)),
    _set("cuda.matmul.allow_fp16_reduced_precision_reduction", [True, False]),
    _set("quantized.engine", "bogus"), _set("quantized.supported_engines", []),
    lambda lib: lib.backends.cuda.matmul.foo,
    lambda lib: lib.backends.nnpack.set_flags(1),
    pytest.param(lambda lib: lib.backends.opt_einsum.set_flags(True), marks=without_opt_einsum),
    pytest.param(lambda lib: lib.backends.opt_einsum.set_flags(_strategy="greedy"),
                 marks=without_opt_einsum),
    pytest.param(lambda lib: lib.backends.opt_einsum.flags(enabled=True).__enter__(),
                 marks=without_opt_einsum),
    lambda lib: lib.backends.cuda.preferred_linalg_library("cusolver"),
    lambda lib: lib.backends.cuda.preferred_linalg_library("magma"),
    lambda lib: lib.backends.cuda.preferred_linalg_library("bogus"),
    lambda lib: lib.backends.cuda.preferred_linalg_library(3),
    lambda lib: lib.backends.cuda.preferred_blas_library("cublaslt"),
    lambda lib: lib.backends.cuda.preferred_blas_library("bogus"),
    lambda lib: lib.backends.cuda.preferred_rocm_fa_library("bogus"),
    lambda lib: lib.backends.cuda.preferred_rocm_fa_library(3),
    lambda lib: lib.backends.cuda.cufft_plan_cache[0],
    lambda lib: lib.backends.cuda.cufft_plan_cache.max_size,
    lambda lib: lib.backends.cuda.cublas_workspace_size(),
    lambda lib: lib.backends.mps.is_macos13_or_newer(),
    lambda lib: lib.backends.mps.is_macos_or_newer(14, 0),
    lambda lib: lib.backends.mps.get_name(),
])
def test_refused_values_and_unavailable_queries_fail_like_torch(fn):
    with pytest.raises(Exception) as expected:
        fn(torch)
    message = str(expected.value)
    if isinstance(expected.value, (AttributeError, TypeError)) and "torch._C" in message \
            or "incompatible function arguments" in message:
        message = ""        # torch's message names its C extension; only the type must match
    check_error(fn, type(expected.value), "^" + re.escape(message))


def test_refused_values_change_nothing():
    before = [_get(ember, p) for p in SAME_AS_TORCH]
    with pytest.raises(RuntimeError):
        ember.backends.cudnn.set_flags(_benchmark=True, _fp32_precision="bogus")
    with pytest.raises(RuntimeError):
        ember.backends.cudnn.conv.fp32_precision = "bf16"
    assert [_get(ember, p) for p in SAME_AS_TORCH] == before


def test_library_preferences_are_remembered_like_torch():
    for lib in (torch, ember):
        cuda = lib.backends.cuda
        try:
            assert cuda.preferred_blas_library("ck").name == "Ck"
            assert cuda.preferred_blas_library().name == "Ck"
            assert cuda.preferred_rocm_fa_library("aotriton").name == "AOTriton"
            assert cuda.preferred_rocm_fa_library().name == "AOTriton"
        finally:
            assert cuda.preferred_blas_library("default").name == "Cublas"
            cuda.preferred_rocm_fa_library("default")


@pytest.fixture
def unfrozen_flags(monkeypatch):
    """Undo disable_global_flags() after the test, in torch and in ember."""
    monkeypatch.setitem(vars(torch.backends.m), "__allow_nonbracketed_mutation_flag", True)
    monkeypatch.setattr(ember.backends, "_allow_flag_writes", True)


def test_disable_global_flags_leaves_only_flags_blocks(unfrozen_flags):
    for lib in (torch, ember):
        lib.backends.disable_global_flags()
        assert lib.backends.flags_frozen()
        with lib.backends.cudnn.flags(enabled=True, benchmark=True):
            assert lib.backends.cudnn.benchmark
        assert not lib.backends.cudnn.benchmark
    for path in ["cudnn.benchmark", "mkldnn.enabled", "miopen.immediate", "fp32_precision"]:
        name = re.escape(path.rpartition(".")[0] or "backends")
        check_error(_set(path, True), RuntimeError,
                    rf"^not allowed to set (torch|ember)\.(backends\.)?{name} flags after "
                    r"disable_global_flags; please use flags\(\) context manager instead$")


def test_matmul_allow_tf32_is_float32_matmul_precision():
    for lib in (torch, ember):
        try:
            lib.backends.cuda.matmul.allow_tf32 = True
            assert lib.get_float32_matmul_precision() == "high"
            lib.set_float32_matmul_precision("highest")
            assert lib.backends.cuda.matmul.allow_tf32 is False
            lib.set_float32_matmul_precision("medium")
            assert lib.backends.cuda.matmul.allow_tf32 is True
        finally:
            lib.set_float32_matmul_precision("highest")


def _attention(lib):
    q = lib.ones(1, 2, 3, 4)
    return lib.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.1)


def test_sdp_switches_decide_which_attention_kernel_may_run_on_the_cpu():
    for lib in (torch, ember):
        cuda = lib.backends.cuda
        try:
            cuda.enable_math_sdp(False)
            assert not cuda.math_sdp_enabled()
            # Only torch's CPU flash kernel is left, and it takes no dropout.
            pytest.raises(RuntimeError, _attention, lib)
            cuda.enable_flash_sdp(False)
        finally:
            cuda.enable_math_sdp(True)
        try:
            cuda.enable_math_sdp(False)
            with pytest.raises(RuntimeError, match="^No viable backend for scaled_dot_product"):
                _attention(lib)
        finally:
            cuda.enable_math_sdp(True)
            cuda.enable_flash_sdp(True)
        assert _attention(lib).shape == (1, 2, 3, 4)


def test_sdpa_kernel_and_sdp_kernel_set_the_same_switches_as_torch():
    names = ["flash_sdp_enabled", "mem_efficient_sdp_enabled", "math_sdp_enabled",
             "cudnn_sdp_enabled"]

    def switches(lib):
        return [getattr(lib.backends.cuda, n)() for n in names]
    for backend in ["MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION"]:
        with torch.nn.attention.sdpa_kernel(getattr(torch.nn.attention.SDPBackend, backend)), \
                ember.nn.attention.sdpa_kernel(getattr(ember.nn.attention.SDPBackend, backend)):
            assert switches(ember) == switches(torch), backend
    messages = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.backends.cuda.sdp_kernel(enable_math=False, enable_flash=False) as inside:
                assert inside == {}
                assert switches(lib) == [False, True, False, True]
        messages.append([(w.category, str(w.message)) for w in caught])
        assert switches(lib) == [True] * 4
    assert messages[0] == messages[1] and messages[0][0][0] is FutureWarning


def test_sdpa_params_and_fused_kernel_checks():
    for lib in (torch, ember):
        q = lib.ones(1, 2, 3, 4)
        params = lib.backends.cuda.SDPAParams(q, q, q, None, 0.0, False, False)
        assert (params.dropout, params.is_causal, params.enable_gqa) == (0.0, False, False)
        assert params.attn_mask is None and params.query is q
        for check in ["can_use_flash_attention", "can_use_efficient_attention",
                      "can_use_cudnn_attention"]:
            assert getattr(lib.backends.cuda, check)(params) is False


def test_verbose_scopes_off_do_nothing_and_on_fail_without_the_library():
    for name in ["mkl", "mkldnn"]:
        module = getattr(ember.backends, name)
        with module.verbose(module.VERBOSE_OFF) as inside:
            assert inside is None
        with pytest.raises(AssertionError, match=f"^Failed to set {name.upper()} into verbose"):
            with module.verbose(module.VERBOSE_ON):
                pass


def test_cublas_reduction_settings_read_back_like_torch():
    names = ["allow_bf16_reduced_precision_reduction", "allow_fp16_reduced_precision_reduction"]
    for value in [(False, False), (False,), True, [False, True], (True, True)]:
        reads = []
        for lib in (torch, ember):
            matmul = lib.backends.cuda.matmul
            for name in names:
                setattr(matmul, name, value)
            reads.append([getattr(matmul, name + suffix) for name in names
                          for suffix in ("", "_split_k")])
        assert reads[1] == reads[0], value
