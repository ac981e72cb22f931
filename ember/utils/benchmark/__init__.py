"""ember.utils.benchmark: torch.utils.benchmark's Timer, Measurement and Compare.

    t = benchmark.Timer("x @ x", globals={"x": x}, label="matmul")
    print(t.blocked_autorange(min_run_time=0.5))

Fuzzer (and op_fuzzers.binary.BinaryOpFuzzer) makes seeded random inputs. Python statements
only: C++ timing and Callgrind instruction counts raise NotImplementedError.
"""
from .utils.common import *  # noqa: F401,F403
from .utils.compare import *  # noqa: F401,F403
from .utils.fuzzer import *  # noqa: F401,F403
from .utils.sparse_fuzzer import *  # noqa: F401,F403
from .utils.timer import *  # noqa: F401,F403
from .utils.valgrind_wrapper.timer_interface import *  # noqa: F401,F403
