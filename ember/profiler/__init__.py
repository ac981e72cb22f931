"""torch.profiler for ember: time ember's ops, per step of a training loop if wanted.

See profiler.py for `profile` and its schedule, ember/autograd/profiler.py for the
autograd profiler it drives, and _recorder.py for how ops are timed.
"""
from ._record_function import record_function
from .profiler import (ProfilerAction, ProfilerActivity, profile, schedule,
                       supported_activities, tensorboard_trace_handler)

__all__ = ["profile", "record_function", "schedule", "tensorboard_trace_handler",
           "ProfilerActivity", "ProfilerAction", "supported_activities"]
