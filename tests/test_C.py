"""torch._C on ember: the probes and eager helpers libraries use at import time."""
import torch

import ember


def test_probing_a_missing_binding_gives_the_default():
    # timm: hasattr(getattr(torch._C, '_CudaDeviceProperties', None), 'L2_cache_size')
    assert getattr(ember._C, "_CudaDeviceProperties", None) is None
    assert not hasattr(ember._C, "_no_such_binding")


def test_eager_helpers_return_torchs_values():
    assert ember._C._get_tracing_state() is torch._C._get_tracing_state() is None
    assert ember._C._log_api_usage_once("ember.test") is None
